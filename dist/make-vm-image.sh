#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The cached part of the VM the tests/vm scenarios boot: Debian sid's
# kernel from the sid root (dist/make-sid-root.sh), copied with its
# version beside it, and busybox's closure from the same root listed for
# the initramfs (the test adds the pkgnote it built, whose closure only
# the built pkgnote can tell).  Nothing here runs the VM.
#   sh dist/make-vm-image.sh [DIR]   (default /var/cache/pkgnote/vm)
set -eu
dir=${1:-${PKGNOTE_VM_DIR:-/var/cache/pkgnote/vm}}
root=${PKGNOTE_SID_ROOT:-/var/cache/pkgnote/roots/sid}
[ -f "$dir/.pkgnote-vm" ] && exit 0
[ -f "$root/.pkgnote-sid-root" ] || sh "$(dirname "$0")/make-sid-root.sh" "$root"
kernel=$(ls "$root"/boot/vmlinuz-* | sort -V | tail -1)
release=${kernel##*/vmlinuz-}
[ -d "$root/usr/lib/modules/$release" ] || { echo "no modules for $release in $root" >&2; exit 1; }
[ -x "$root/usr/bin/busybox" ] || { echo "no busybox in $root" >&2; exit 1; }
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
cp "$kernel" "$dir.tmp/vmlinuz"
echo "$release" > "$dir.tmp/release"
echo "$root" > "$dir.tmp/root"
touch "$dir.tmp/.pkgnote-vm"
rm -rf "$dir"
mv "$dir.tmp" "$dir"
