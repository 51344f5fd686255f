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
for s in "$SRCDIR"/tests/vm/scenarios/*.sh; do vm_scenario "$s"; done
vm_boot
vm_collect
echo "# one boot, every scenario: $VM_SECONDS s (qemu TCG, kernel $(cat "$VM_DIR/release"))"
finish
