# SPDX-License-Identifier: LGPL-2.1-or-later
# The VM harness, sourced by tests/vm/cmd-*.sh after tests/lib.sh:
#   vm_require              skips (or, under PKGNOTE_STRICT=1, fails) when
#                           qemu-system-x86_64 or the cached kernel is missing
#   vm_add ROOT PATH...     PATH (in ROOT) and its closure (pkgnote deps
#                           --closure) into the initramfs, at the same paths
#   vm_file SRC DEST        one file, at DEST
#   vm_scenario FILE        a scenario script (runs as /vm/scenarios/NAME)
#   vm_boot                 makes the initramfs, boots Debian sid's kernel on
#                           it under TCG (no KVM here), console on serial;
#                           the console in $T/vm.log, the TAP lines of every
#                           scenario in $T/vm.tap, the boot's seconds in
#                           VM_SECONDS
# One boot runs every scenario: add them all, then boot once.
VM_DIR=${PKGNOTE_VM_DIR:-/var/cache/pkgnote/vm}
VM_STAGE="$T/vm-root"
mkdir -p "$VM_STAGE/vm/scenarios" "$VM_STAGE/vm/bin"

vm_require() {
        command -v qemu-system-x86_64 > /dev/null 2>&1 || {
                [ "${PKGNOTE_STRICT:-0}" = 1 ] && { echo "not ok - qemu-system-x86_64 missing (make deps-test installs qemu-system-x86)"; exit 1; }
                echo "1..0 # SKIP qemu-system-x86_64 is not installed"; exit 77; }
        [ -f "$VM_DIR/.pkgnote-vm" ] || {
                [ "${PKGNOTE_STRICT:-0}" = 1 ] && { echo "not ok - no VM kernel in $VM_DIR (make deps-test runs dist/make-vm-image.sh)"; exit 1; }
                echo "1..0 # SKIP no VM kernel in $VM_DIR (sh dist/make-vm-image.sh)"; exit 77; }
        command -v cpio > /dev/null 2>&1 || require cpio
        VM_ROOT=$(cat "$VM_DIR/root")
}

vm_add() { # ROOT PATH...
        _root=$1
        shift
        "$PKGNOTE" deps --closure --root "$_root" "$@" > "$T/vm-closure" 2> "$T/vm-closure.err" \
                || { cat "$T/vm-closure.err"; fatal "pkgnote deps --closure failed for $*"; }
        while IFS= read -r _p; do
                [ -n "$_p" ] || continue
                (cd "$_root" && cp -a --parents ".$_p" "$VM_STAGE/") 2> /dev/null \
                        || fatal "cannot copy $_root$_p into the initramfs"
        done < "$T/vm-closure"
}

vm_file() { # SRC DEST
        mkdir -p "$VM_STAGE$(dirname "$2")"
        cp -L "$1" "$VM_STAGE$2"
}

vm_scenario() {
        cp "$1" "$VM_STAGE/vm/scenarios/${1##*/}"
}

vm_boot() {
        cp "$SRCDIR/tests/vm/init" "$VM_STAGE/init"
        # Merged /usr, as sid has it: /bin/sh is busybox's (--install).
        [ -e "$VM_STAGE/bin" ] || ln -s usr/bin "$VM_STAGE/bin"
        [ -e "$VM_STAGE/sbin" ] || ln -s usr/sbin "$VM_STAGE/sbin"
        chmod 755 "$VM_STAGE/init"
        (cd "$VM_STAGE" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) > "$T/vm.cpio" \
                || fatal "cannot make the initramfs"
        _start=$(date +%s.%N)
        # -no-reboot: poweroff -f (or a panic, panic=-1) ends qemu.
        timeout "${VM_TIMEOUT:-300}" qemu-system-x86_64 -accel tcg -m 1024 -smp 2 -no-reboot -nographic \
                -monitor none -nic none -serial stdio -kernel "$VM_DIR/vmlinuz" -initrd "$T/vm.cpio" \
                -append "console=ttyS0 rdinit=/init panic=-1 quiet loglevel=3" < /dev/null > "$T/vm.log" 2>&1
        _rc=$?
        VM_SECONDS=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $_start }")
        # The firmware's escape sequences may precede the first line.
        tr -d '\r' < "$T/vm.log" | sed -n '/VM-BEGIN/,/^VM-END/p' > "$T/vm.tap"
        grep -q '^VM-END' "$T/vm.tap" || { sed 's/^/# /' "$T/vm.log" | tail -40; fatal "the VM did not finish its scenarios (qemu status $_rc)"; }
}

# vm_collect: the scenarios' TAP lines as this test's own.
vm_collect() {
        while IFS= read -r _l; do
                case $_l in
                "ok - "*" # SKIP "*)
                        _n=${_l#ok - }
                        skip "${_n%% # SKIP *}" "${_n#* # SKIP }" ;;
                "ok - "*) pass "${_l#ok - }" ;;
                "not ok - "*) fail "${_l#not ok - }" ;;
                "#"*) echo "$_l" ;;
                *VM-BEGIN*|VM-END*) echo "# ${_l#*VM-}" ;;
                esac
        done < "$T/vm.tap"
}
