#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Benchmarks "pkgnote deps --verify" of real initrds against "cpio -t"
# over the same decompressed stream: listing every member is the least a
# check of an archive's contents must do, and verify also reads every ELF
# object and resolves what each needs.  For each initrd:
#   - "stream": the initrd with its compressed main archive decompressed
#     (the early cpio archive, then the main one, uncompressed, as the
#     kernel sees them), given to pkgnote, against "cpio -t" of each of
#     the two archives of the same bytes;
#   - "shipped": the initrd as built, against "cpio -t" of its early
#     archive and the main archive's decompressor piped into "cpio -t".
# The initrds are the real ones dist/make-sid-artefacts.sh builds with
# dracut and initramfs-tools in a Debian sid root (made by "make
# deps-test"), or those given as arguments after PKGNOTE.
# Each timing is the best of $RUNS (default 10) after one untimed run;
# peak memory is GNU time's maximum resident set size.
# Usage: bench/verify.sh [PKGNOTE [INITRD...]]
# Writes the table to stdout and to bench/results-verify.txt.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
pkgnote=${1:-build/pkgnote}
[ $# -gt 0 ] && shift
runs=${RUNS:-10}
results=${RESULTS:-$here/results-verify.txt}
case $pkgnote in /*) ;; *) pkgnote=$PWD/$pkgnote ;; esac
[ -x "$pkgnote" ] || { echo "verify.sh: '$pkgnote' is not an executable (build pkgnote first)" >&2; exit 2; }
if [ $# -eq 0 ]; then
        art=/var/cache/pkgnote/roots/sid-artefacts
        [ -f "$art/initrd-dracut.img" ] || { echo "verify.sh: no initrds in $art (run make deps-test) and none given" >&2; exit 2; }
        set -- "$art/initrd-dracut.img" "$art/initrd-initramfs-tools.img"
fi
for t in cpio python3 /usr/bin/time; do
        command -v $t > /dev/null || { echo "verify.sh: $t is not installed" >&2; exit 2; }
done

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/pkgnote-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C
. "$here/lib.sh"

# Splits initrd $1 into $tmp/early.cpio (its leading uncompressed newc
# archives, with the zeros after them) and $tmp/main (the rest), and
# prints the decompressor of the rest.
split_initrd() {
        python3 - "$1" "$tmp/early.cpio" "$tmp/main" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
off = 0
while d[off:off + 6] in (b'070701', b'070702'):
    while True:
        h = d[off:off + 110]
        nsz, fsz = int(h[94:102], 16), int(h[54:62], 16)
        name = d[off + 110:off + 110 + nsz - 1]
        off = (off + 110 + nsz + 3) & ~3
        off = (off + fsz + 3) & ~3
        if name == b'TRAILER!!!':
            break
    while off < len(d) and d[off] == 0:
        off += 1
open(sys.argv[2], 'wb').write(d[:off])
open(sys.argv[3], 'wb').write(d[off:])
m = d[off:off + 6]
for magic, tool in ((b'\x28\xb5\x2f\xfd', 'zstd -dcq'), (b'\xfd7zXZ', 'xz -dc'), (b'\x1f\x8b', 'gzip -dc'),
                    (b'\x02\x21\x4c\x18', 'lz4 -dcq'), (b'0707', 'cat')):
    if m.startswith(magic):
        print(tool)
        break
else:
    sys.exit('%s: the main archive is in no format this benchmark knows' % sys.argv[1])
PY
}

# Peak resident memory of command $1 in KiB.
peak() {
        /usr/bin/time -f %M sh -c "$1" 2>&1 > /dev/null | tail -n 1
}

{
        printf '# pkgnote deps --verify against cpio -t (GNU cpio %s), %s\n' \
                "$(cpio --version | head -n 1 | awk '{ print $NF }')" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        printf '# %s; %s CPUs; load average %s; best of %s\n' "$(uname -srm)" "$(nproc)" \
                "$(cut -d' ' -f1-3 /proc/loadavg)" "$runs"
        printf '%-28s %-8s %8s %9s %9s %7s %9s %9s\n' initrd input MiB cpio-s verify-s ratio cpio-KiB verify-KiB
        for img in "$@"; do
                dec=$(split_initrd "$img")
                sh -c "$dec < '$tmp/main'" > "$tmp/main.cpio"
                cat "$tmp/early.cpio" "$tmp/main.cpio" > "$tmp/stream.img"
                # The check must succeed (0 or 1: something missing), or the
                # timing would be of an error.
                rc=0
                "$pkgnote" deps --verify "$tmp/stream.img" > /dev/null 2>&1 || rc=$?
                [ "$rc" -le 1 ] || { echo "verify.sh: pkgnote deps --verify '$img' failed ($rc)" >&2; exit 1; }
                name=$(basename "$img")
                c="cpio -t < '$tmp/early.cpio'; cpio -t < '$tmp/main.cpio'"
                v="'$pkgnote' deps --verify '$tmp/stream.img'"
                cs=$(measure "$c"); vs=$(measure "$v")
                echo "$name stream $(stat -c %s "$tmp/stream.img") $cs $vs $(peak "$c") $(peak "$v")" |
                        awk '{ printf "%-28s %-8s %8.1f %9.3f %9.3f %7.2f %9d %9d\n", $1, $2, $3 / 1048576, $4, $5, $5 / $4, $6, $7 }'
                c="cpio -t < '$tmp/early.cpio'; $dec < '$tmp/main' | cpio -t"
                v="'$pkgnote' deps --verify '$img'"
                cs=$(measure "$c"); vs=$(measure "$v")
                echo "$name shipped $(stat -c %s "$img") $cs $vs $(peak "$c") $(peak "$v")" |
                        awk '{ printf "%-28s %-8s %8.1f %9.3f %9.3f %7.2f %9d %9d\n", $1, $2, $3 / 1048576, $4, $5, $5 / $4, $6, $7 }'
        done
        printf '# ratio = verify / cpio -t; goal (issue 45): <= 1.5 for the largest initrd, stream\n'
} | tee "$results"
