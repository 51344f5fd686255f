#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Builds real boot artefacts in the Debian sid root of dist/make-sid-root.sh,
# with its own tools as they are used on a Debian system, for the tests of
# pkgnote deps --verify:
#   initrd-dracut.img           dracut --force --no-hostonly --kver KVER
#                               (and --verbose, for the modules in its log)
#   initrd-initramfs-tools.img  mkinitramfs -o ... KVER (Debian's configuration)
#   uki-dracut.efi              ukify build: the root's kernel, the dracut
#                               initrd, the stub of systemd-boot-efi
# Beside them: VERSIONS (the tools' versions), each build's log, and per
# artefact ARTEFACT.ORACLE.txt (dist/sid-oracle.py: its segments, its ELF
# files with their DT_NEEDED and dlopen notes, and the sonames they name that
# the artefact does not hold).
#   sh dist/make-sid-artefacts.sh [DIR]   (default /var/cache/pkgnote/roots/sid-artefacts)
# The root is PKGNOTE_SID_ROOT (default /var/cache/pkgnote/roots/sid). Run as
# root. The builds run in a private mount namespace: /proc, /sys and /dev are
# mounted into the root there, /tmp, /var/tmp and /run are fresh tmpfs, so
# neither the host nor the cached root keeps a trace.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=${PKGNOTE_SID_ROOT:-/var/cache/pkgnote/roots/sid}
dir=${1:-${PKGNOTE_SID_ARTEFACTS:-/var/cache/pkgnote/roots/sid-artefacts}}
[ -f "$dir/VERSIONS" ] && exit 0
[ "$(id -u)" -eq 0 ] || { echo "make-sid-artefacts.sh: needs root (chroot, mounts)" >&2; exit 1; }
[ -f "$root/.pkgnote-sid-root" ] || { echo "no sid root at $root: run dist/make-sid-root.sh first" >&2; exit 1; }
command -v unshare > /dev/null || { echo "unshare (util-linux) is not installed" >&2; exit 1; }

if [ -z "${PKGNOTE_SID_INSIDE:-}" ]; then
        mkdir -p "$(dirname "$dir")"
        dir=$(cd "$(dirname "$dir")" && pwd)/$(basename "$dir")
        rm -rf "$dir.tmp"
        mkdir "$dir.tmp"
        PKGNOTE_SID_INSIDE=1 PKGNOTE_SID_ROOT=$root unshare --mount --propagation private \
                sh "$here/make-sid-artefacts.sh" "$dir.tmp" ||
                { echo "make-sid-artefacts.sh: the logs are in $dir.tmp" >&2; exit 1; }
        mv "$dir.tmp" "$dir"
        exit 0
fi

# In the private mount namespace from here on; $dir is DIR.tmp.
out=$dir
mounted=
cleanup() {
        for m in $mounted; do umount -R "$m" 2> /dev/null || umount -l "$m" 2> /dev/null || :; done
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
bind() { # TYPE SRC TARGET
        case $1 in
        rbind) mount --rbind "$2" "$3" ;;
        bind) mount --bind "$2" "$3" ;;
        *) mount -t "$1" "$2" "$3" ;;
        esac
        mounted="$3 $mounted"
}
bind proc proc "$root/proc"
bind rbind /sys "$root/sys"
bind rbind /dev "$root/dev"
bind tmpfs tmpfs "$root/tmp"
bind tmpfs tmpfs "$root/var/tmp"
bind tmpfs tmpfs "$root/run"
bind bind "$out" "$root/mnt"

in_root() {
        chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
                TMPDIR=/var/tmp "$@"
}

kver=$(ls "$root/usr/lib/modules")
case $kver in *" "*|"") echo "expected one kernel in $root/usr/lib/modules, found: $kver" >&2; exit 1 ;; esac
[ -f "$root/boot/vmlinuz-$kver" ] || { echo "no /boot/vmlinuz-$kver in the root" >&2; exit 1; }

step() { # NAME COMMAND...: runs COMMAND in the root, its output to NAME.log
        name=$1; shift
        start=$(date +%s)
        if ! in_root "$@" > "$out/$name.log" 2>&1; then
                tail -n 30 "$out/$name.log" >&2
                echo "make-sid-artefacts.sh: $name failed: $*" >&2
                exit 1
        fi
        echo "$name: $(($(date +%s) - start)) s" >> "$out/TIMES"
}

step initrd-dracut dracut --force --verbose --no-hostonly --kver "$kver" /mnt/initrd-dracut.img
step initrd-initramfs-tools mkinitramfs -o /mnt/initrd-initramfs-tools.img "$kver"
step uki-dracut ukify build --linux "/boot/vmlinuz-$kver" --initrd /mnt/initrd-dracut.img \
        --uname "$kver" --cmdline "root=LABEL=root ro quiet" --output /mnt/uki-dracut.efi
# dracut writes its image mode 0600; tests that do not run as root read them.
chmod 0644 "$out/initrd-dracut.img" "$out/initrd-initramfs-tools.img" "$out/uki-dracut.efi"

{
        echo "kernel $kver"
        echo "dracut $(in_root dracut --version 2>&1 | head -n 1)"
        echo "mkinitramfs $(in_root dpkg-query -W -f '${Version}' initramfs-tools-core)"
        echo "ukify $(in_root ukify --version 2>&1 | head -n 1)"
        echo "systemd $(in_root systemctl --version | head -n 1)"
        echo "readelf $(in_root readelf --version | head -n 1)"
        echo "packages:"
        in_root dpkg-query -W -f '  ${Package} ${Version}\n' systemd systemd-boot-efi systemd-ukify \
                dracut-core dracut-install initramfs-tools initramfs-tools-core busybox zstd cpio \
                binutils "linux-image-$kver" libc6
        echo "sizes:"
        for f in initrd-dracut.img initrd-initramfs-tools.img uki-dracut.efi; do
                echo "  $f $(stat -c %s "$out/$f")"
        done
} > "$out/VERSIONS.tmp"

cp "$here/sid-oracle.py" "$root/tmp/sid-oracle.py"
for f in initrd-dracut.img initrd-initramfs-tools.img uki-dracut.efi; do
        step "oracle-$f" python3 /tmp/sid-oracle.py "/mnt/$f" "/mnt/$f.ORACLE.txt"
done
# VERSIONS comes last: its presence says the directory is complete.
mv "$out/VERSIONS.tmp" "$out/VERSIONS"
