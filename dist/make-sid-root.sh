#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Makes the Debian sid root dist/make-sid-artefacts.sh builds real boot
# artefacts in: systemd (per-executable dlopen notes), the initrd builders
# dracut (dracut-core: the dracut command without its kernel hook, since the
# dracut package conflicts with initramfs-tools) and initramfs-tools, ukify
# with the stub it wraps (systemd-boot-efi), a kernel (linux-image-amd64:
# modules and a kernel version for the initrds, the kernel of the UKI), and
# what the builders use at their defaults (zstd, busybox, binutils); and
# libdw, which systemd-analyze dlopen-metadata loads to read the notes.
#   sh dist/make-sid-root.sh [DIR]   (default /var/cache/pkgnote/roots/sid)
# Needs mmdebstrap and the network; run as root (or add --mode=unshare).
# The kernel's postinst runs update-initramfs, so the root's /boot also holds
# the initrd Debian itself would have made.
set -eu
dir=${1:-${PKGNOTE_SID_ROOT:-/var/cache/pkgnote/roots/sid}}
[ -f "$dir/.pkgnote-sid-root" ] && exit 0
command -v mmdebstrap > /dev/null || { echo "mmdebstrap is not installed" >&2; exit 1; }
mkdir -p "$(dirname "$dir")"
rm -rf "$dir.tmp"
pkgs=systemd,systemd-sysv,udev,systemd-ukify,systemd-boot-efi,python3-pefile,python3-zstandard
pkgs=$pkgs,dracut-core,dracut-install,initramfs-tools,linux-image-amd64
pkgs=$pkgs,zstd,xz-utils,cpio,busybox,binutils,kmod,e2fsprogs,libdw1t64
# sid's Release file is valid for a week only; a mirror that lags behind
# (or a frozen one) still serves a consistent archive, so its age is not
# checked.
mmdebstrap --variant=minbase --include="$pkgs" --skip=check/empty \
        --aptopt='Acquire::Check-Valid-Until "false"' \
        --customize-hook='chroot "$1" dpkg-query -W > "$1/.pkgnote-sid-packages"' \
        sid "$dir.tmp" http://deb.debian.org/debian
ls "$dir.tmp"/boot/vmlinuz-* > /dev/null
[ -x "$dir.tmp/usr/bin/dracut" ] && [ -x "$dir.tmp/usr/sbin/mkinitramfs" ] && [ -x "$dir.tmp/usr/bin/ukify" ]
touch "$dir.tmp/.pkgnote-sid-root"
mv "$dir.tmp" "$dir"
