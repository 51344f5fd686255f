#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Benchmarks "pkgnote scan" of compressed artefacts against the
# decompressor alone writing to /dev/null (the floor of any reader that
# must see every byte):
#   - a zstd and an xz tar of a root filesystem part ($ARCHIVE_MIB MiB of
#     the largest directories under $ROOT, default 300 MiB of /usr);
#   - a .deb of the same files (dpkg-deb -Zxz), against
#     "dpkg-deb --fsys-tarfile";
#   - an initramfs: an uncompressed early cpio, then a zstd cpio, against
#     zstd -dc of that segment.
# Each timing is the best of $RUNS after one untimed run.
# Usage: bench/artefacts.sh [PKGNOTE [ROOT]]
# Writes the table to stdout and to bench/results-artefacts.txt.
set -eu

pkgnote=${1:-build/pkgnote}
root=${2:-/usr}
runs=${RUNS:-3}
min_mib=${ARCHIVE_MIB:-300}
here=$(cd "$(dirname "$0")" && pwd)
results=${RESULTS:-$here/results-artefacts.txt}

case $pkgnote in /*) ;; *) pkgnote=$PWD/$pkgnote ;; esac
for t in zstd xz dpkg-deb cpio; do
        command -v $t > /dev/null || { echo "artefacts.sh: $t is not installed" >&2; exit 2; }
done
[ -x "$pkgnote" ] || { echo "artefacts.sh: '$pkgnote' is not an executable (build pkgnote first)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/pkgnote-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C
. "$here/lib.sh"

# The tree: the largest directories until $min_mib MiB.
printf 'gathering %s MiB of %s...\n' "$min_mib" "$root" >&2
largest_dirs "$root" "$min_mib" > "$tmp/dirs"
mkdir "$tmp/deb"
tar -C / -cf - -T "$tmp/dirs" 2>/dev/null | tar -C "$tmp/deb" -xf -
bytes=$(du -sb "$tmp/deb" | cut -f1)

printf 'compressing...\n' >&2
tar -C "$tmp/deb" -cf - . | zstd -q -T0 -3 -o "$tmp/root.tar.zst"
tar -C "$tmp/deb" -cf - . | xz -T0 -1 > "$tmp/root.tar.xz"
mkdir "$tmp/deb/DEBIAN"
printf 'Package: bench\nVersion: 1\nArchitecture: all\nMaintainer: b <b@example.org>\nDescription: b\n' > "$tmp/deb/DEBIAN/control"
dpkg-deb -Zxz -z1 --root-owner-group -b "$tmp/deb" "$tmp/bench.deb" > /dev/null
rm -r "$tmp/deb/DEBIAN"
mkdir -p "$tmp/early/kernel/x86/microcode"
head -c 100000 /dev/urandom > "$tmp/early/kernel/x86/microcode/GenuineIntel.bin"
(cd "$tmp/early" && find . | cpio -o -H newc --quiet) > "$tmp/initrd.img"
(cd "$tmp/deb" && find . | cpio -o -H newc --quiet) | zstd -q -T0 -3 -o "$tmp/main.cpio.zst"
cat "$tmp/main.cpio.zst" >> "$tmp/initrd.img"
rm -rf "$tmp/deb"

printf 'measuring, best of %s...\n' "$runs" >&2
row() { # NAME FLOOR-COMMAND SCAN-INPUT
        f=$(measure "$2 > /dev/null")
        s=$(measure "'$pkgnote' scan --no-progress '$3' > /dev/null")
        size=$(stat -c %s "$3")
        echo "$1 $size $f $s" | awk '{ printf "%-22s %10.1f %10.3f %10.3f %8.2f\n", $1, $2 / 1048576, $3, $4, $4 / $3 }'
}
{
        printf '# pkgnote scan of compressed artefacts, %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        printf '# %s; %s CPUs; load average %s\n' "$(uname -srm)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
        printf '# %s bytes of %s (%s); best of %s; "x floor" = scan / decompressor alone\n' "$bytes" "$root" \
                "$(tr '\n' ' ' < "$tmp/dirs" | cut -c1-80)..." "$runs"
        printf '%-22s %10s %10s %10s %8s\n' artefact MiB floor-s scan-s 'x floor'
        row "tar.zst(zstd-dc)" "zstd -dc '$tmp/root.tar.zst'" "$tmp/root.tar.zst"
        row "tar.xz(xz-dc)" "xz -dc '$tmp/root.tar.xz'" "$tmp/root.tar.xz"
        row "deb(dpkg-deb)" "dpkg-deb --fsys-tarfile '$tmp/bench.deb'" "$tmp/bench.deb"
        row "initramfs(zstd-dc)" "zstd -dc '$tmp/main.cpio.zst'" "$tmp/initrd.img"
        printf '# goal (issue): <= 1.10x floor for each\n'
} | tee "$results"
