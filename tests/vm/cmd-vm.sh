#!/bin/sh
# The scenarios that need a kernel of their own (kernel.core_pattern is
# global, and this machine's /proc/sys is never written): one boot of
# Debian sid's kernel under qemu (TCG: there is no KVM here) on an
# initramfs made of busybox from the sid root and the pkgnote just built,
# each with its closure as pkgnote deps --closure finds it; every
# tests/vm/scenarios/*.sh runs inside, printing TAP lines on the serial
# console, collected here.  Another area adds its checks by adding a
# scenario (and what it needs, with vm_add or vm_file below).
. "$SRCDIR/tests/lib.sh"
. "$SRCDIR/tests/vm/vm.sh"
vm_require
require cc
HANDLER="$BUILDDIR/pkgnote-coredump"
# busybox and its libraries from sid; then the build's programs with the
# build machine's libraries, never replacing sid's C library (newer, and
# what busybox needs; the build's programs run on it as on any newer one).
vm_add / "$PKGNOTE" "$HANDLER"
vm_add "$VM_ROOT" /usr/bin/busybox
vm_file "$PKGNOTE" /vm/bin/pkgnote
vm_file "$HANDLER" /vm/bin/pkgnote-coredump
vm_file "$BUILDDIR/libpkgnote.so.1" /usr/lib/x86_64-linux-gnu/libpkgnote.so.1
cc -O1 -o crasher "$SRCDIR/tests/vm/crasher.c" \
        -Xlinker '--package-metadata={"type":"deb","name":"crasher","version":"4.2-1","architecture":"amd64"}' \
        || fatal "cannot build the crasher"
vm_file crasher /vm/bin/crasher
# The kernel row (scenarios/20-kernel.sh): sid's image where Debian puts
# it, a few modules (.ko.xz, as packaged, for pkgnote's module rows; and
# decompressed for busybox insmod, which reads no xz), and what pkgnote on
# this machine reads from the same files: the image's build-id and each
# module's, through a fixture sysfs naming them loaded.
# What this build reads not (the scenarios skip what needs it).
echo "${PKGNOTE_FEATURES_OFF:-}" > features-off
vm_file features-off /vm/features-off
kernel_row=true
if feature_off zstd || feature_off xz; then
        # sid's image is zstd inside, its modules xz: this build reads neither.
        skip "vm kernel: the running kernel against sid's image and modules" "this build reads no zstd or no xz"
        kernel_row=false
else
        VM_REL=$(cat "$VM_DIR/release")
        VM_MODS="crc8 crc16 cordic crc_itu_t"
        require xz
        mkdir -p kfix/sys/kernel kfix/sys/module
        : > kfix/sys/kernel/notes
        echo "$VM_REL" > kfix/osrelease
        for m in $VM_MODS; do mkdir -p "kfix/sys/module/$m/notes"; echo live > "kfix/sys/module/$m/initstate"; done
        "$PKGNOTE" ps --kernel --json --no-database --sysfs kfix/sys --osrelease kfix/osrelease --root "$VM_ROOT" \
                > kfix/host.json 2> kfix/host.err || { cat kfix/host.err; fatal "pkgnote cannot read sid's kernel image and modules"; }
        python3 - kfix/host.json "$VM_MODS" > kernel-expect <<'PY' || fatal "sid's image or modules without a build-id"
import json, sys
d = json.load(open(sys.argv[1]))
print("image", d["image"]["buildId"])
mods = {m["name"]: m for m in d["modules"]}
for n in sys.argv[2].split():
    print("module", n, mods[n]["fileBuildId"], mods[n]["file"])
PY
        vm_file kernel-expect /vm/kernel-expect
        vm_file "$VM_ROOT/usr/lib/modules/$VM_REL/vmlinuz" "/usr/lib/modules/$VM_REL/vmlinuz"
        while read -r what name id file; do
                [ "$what" = module ] || continue
                vm_file "$VM_ROOT$file" "$file"
                mkdir -p "$VM_STAGE/vm/ko"
                xz -dc "$VM_ROOT$file" > "$VM_STAGE/vm/ko/$name.ko" || fatal "cannot decompress $file"
        done < kernel-expect
fi
# systemd-coredump 262 of sid beside pkgnote-coredump
# (scenarios/30-systemd-coredump.sh): the package unpacked, never
# installed (dist/fetch-sid-systemd-coredump.sh), its binary with
# libsystemd-shared's closure from the sid root (and the compressors and
# libdw it loads), a passwd naming its user.
SDC=${PKGNOTE_VM_SYSTEMD_COREDUMP:-/var/cache/pkgnote/vm-systemd-coredump}
if [ -x "$SDC/usr/lib/systemd/systemd-coredump" ]; then
        "$PKGNOTE" deps --closure --root "$VM_ROOT" --feature zstd --feature lz4 --feature lzma --feature dw --feature elf \
                --feature acl /usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-262.so > "$T/sdc-closure" 2> "$T/sdc-closure.err" \
                || { cat "$T/sdc-closure.err"; fatal "pkgnote deps --closure failed for libsystemd-shared"; }
        while IFS= read -r p; do
                [ -n "$p" ] && { (cd "$VM_ROOT" && cp -a --parents ".$p" "$VM_STAGE/") || fatal "cannot copy $p"; }
        done < "$T/sdc-closure"
        vm_file "$SDC/usr/lib/systemd/systemd-coredump" /usr/lib/systemd/systemd-coredump
        vm_file "$SDC/etc/systemd/coredump.conf" /etc/systemd/coredump.conf
        cat "$SDC/.version" > sdc-version
        vm_file sdc-version /vm/systemd-coredump-version
        printf 'root:x:0:0:root:/root:/bin/sh\nsystemd-coredump:x:998:998:systemd Core Dumper:/:/usr/sbin/nologin\n' > passwd
        printf 'root:x:0:\nsystemd-coredump:x:998:\n' > group
        vm_file passwd /etc/passwd
        vm_file group /etc/group
        echo 0123456789abcdef0123456789abcdef > machine-id
        vm_file machine-id /etc/machine-id
elif [ "${PKGNOTE_STRICT:-0}" = 1 ]; then
        fail "vm: systemd-coredump of sid unpacked in $SDC (sh dist/fetch-sid-systemd-coredump.sh)"
fi
for s in "$SRCDIR"/tests/vm/scenarios/*.sh; do
        [ "$kernel_row" = false ] && [ "${s##*/}" = 20-kernel.sh ] && continue
        vm_scenario "$s"
done
vm_boot
vm_collect
echo "# one boot, every scenario: $VM_SECONDS s (qemu TCG, kernel $(cat "$VM_DIR/release"))"
finish
