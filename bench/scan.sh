#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Benchmarks "pkgnote scan" (default table report to /dev/null):
#
# 1. over a tree (/usr), warm cache, against
#    - floor: bench/floor.c, one thread, opening every regular file and
#      reading its first 4 KiB (fed by xargs in batches of 500 from a list
#      made beforehand, so the walk is not even counted);
#    - readelf -n, batched with xargs over every regular file;
#    - systemd-analyze inspect-elf, batched with xargs over the ELF files
#      only (it stops a batch at the first file it cannot parse);
# 2. over a "docker save"-style archive of at least 500 MiB built here
#    with tar from the tree's contents, against tar -xOf ARCHIVE >/dev/null.
#    The archive is deleted afterwards.
# 3. over docker save archives whose upper layer whites out every second
#    file of the lower one ($WHITE_FILES files, default 20000), against the
#    same archive with plain files in place of the whiteouts, and at twice
#    the size (the merge must not grow quadratically).
#
# Each timing is the best of $RUNS after one untimed run.
# Usage: bench/scan.sh [PKGNOTE [ROOT]]   (defaults: build/pkgnote /usr)
# Writes the table to stdout and to bench/results-scan.txt.
set -eu

pkgnote=${1:-build/pkgnote}
root=${2:-/usr}
runs=${RUNS:-3}
batch=${BATCH:-500}
min_mib=${ARCHIVE_MIB:-500}
here=$(cd "$(dirname "$0")" && pwd)
results=${RESULTS:-$here/results-scan.txt}

case $pkgnote in /*) ;; *) pkgnote=$PWD/$pkgnote ;; esac
if [ ! -x "$pkgnote" ]; then
        echo "scan.sh: '$pkgnote' is not an executable (build pkgnote first)" >&2
        exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/pkgnote-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
${CC:-cc} -O2 -o "$tmp/floor" "$here/floor.c"

export LC_ALL=C
find "$root" -type f -print0 2>/dev/null > "$tmp/list"
nfiles=$(tr -cd '\000' < "$tmp/list" | wc -c)
"$pkgnote" scan --format json --no-progress "$root" 2>/dev/null |
        python3 -c 'import json, sys
for l in sys.stdin:
    d = json.loads(l)
    if "path" in d: sys.stdout.write(d["path"] + "\0")' > "$tmp/elf"
nelf=$(tr -cd '\000' < "$tmp/elf" | wc -c)

. "$here/lib.sh"

printf 'tree: %s files (%s ELF) under %s, best of %s...\n' "$nfiles" "$nelf" "$root" "$runs" >&2
t_floor=$(measure "xargs -0 -n $batch '$tmp/floor' < '$tmp/list'")
t_scan=$(measure "'$pkgnote' scan --no-progress '$root' > /dev/null")
t_scan1=$(measure "'$pkgnote' scan --no-progress -j 1 '$root' > /dev/null")
t_readelf=$(measure "xargs -0 -n $batch readelf -n < '$tmp/list'")
if command -v systemd-analyze > /dev/null 2>&1; then
        t_sd=$(measure "xargs -0 -n $batch systemd-analyze inspect-elf < '$tmp/elf'")
else
        t_sd=
fi

# A docker save archive: one layer holding the tree's largest top
# directories until it passes $min_mib MiB, then manifest.json.
printf 'building a docker save archive of at least %s MiB...\n' "$min_mib" >&2
id=$(printf 'pkgnote-bench' | sha256sum | cut -d' ' -f1)
mkdir "$tmp/img" "$tmp/img/$id"
largest_dirs "$root" "$min_mib" > "$tmp/dirs"
tar -C / -cf "$tmp/img/$id/layer.tar" -T "$tmp/dirs" 2>/dev/null || true
printf '[{"Config":"%s.json","RepoTags":["bench:latest"],"Layers":["%s/layer.tar"]}]' "$id" "$id" > "$tmp/img/manifest.json"
printf '{"architecture":"amd64","os":"linux"}' > "$tmp/img/$id.json"
tar -C "$tmp/img" -cf "$tmp/image.tar" "$id" "$id.json" manifest.json
rm -rf "$tmp/img"
asize=$(stat -c %s "$tmp/image.tar")
printf 'archive: %s MiB, best of %s...\n' $((asize / 1048576)) "$runs" >&2
t_tar=$(measure "tar -xOf '$tmp/image.tar' > /dev/null")
t_ascan=$(measure "'$pkgnote' scan --no-progress '$tmp/image.tar' > /dev/null")
# From a pipe, every byte goes through libarchive (no skipping by seeking).
t_apipe=$(measure "cat '$tmp/image.tar' | '$pkgnote' scan --no-progress - > /dev/null")
aobjs=$("$pkgnote" scan --format json --no-progress "$tmp/image.tar" 2>/dev/null | tail -n 1 |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["summary"]["objects"])')
rm -f "$tmp/image.tar"

# Whiteouts: a lower layer of FILES empty files, an upper one removing
# every second file (as a layer deleting a big package does); the same
# upper layer with plain files instead of whiteouts is the reference, and
# doubling both sizes shows how the merge grows.
wfiles=${WHITE_FILES:-20000}
white_image() { # OUT FILES WHITEOUTS PREFIX
        python3 - "$@" <<'PY'
import hashlib, io, json, sys, tarfile
out, nf, nw, prefix = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def layer(names):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode="w") as t:
        for n in names:
            t.addfile(tarfile.TarInfo(n))
    return b.getvalue()
path = lambda i, p: "usr/lib/pkg%d/dir%d/%sfile%d" % (i % 100, i % 1000, p, i)
layers = [layer(path(i, "") for i in range(nf)), layer(path(i, prefix) for i in range(0, 2 * nw, 2))]
ids = [hashlib.sha256(l).hexdigest() for l in layers]
with tarfile.open(out, "w") as t:
    for i, l in zip(ids, layers):
        x = tarfile.TarInfo(i + "/layer.tar"); x.size = len(l); t.addfile(x, io.BytesIO(l))
    m = json.dumps([{"Config": "c.json", "Layers": [i + "/layer.tar" for i in ids]}]).encode()
    x = tarfile.TarInfo("manifest.json"); x.size = len(m); t.addfile(x, io.BytesIO(m))
PY
}
printf 'whiteouts: %s files, %s whiteouts, best of %s...\n' "$wfiles" $((wfiles / 2)) "$runs" >&2
white_image "$tmp/w1.tar" "$wfiles" $((wfiles / 2)) .wh.
white_image "$tmp/w2.tar" $((2 * wfiles)) "$wfiles" .wh.
white_image "$tmp/w0.tar" "$wfiles" $((wfiles / 2)) new.
t_w0=$(measure "'$pkgnote' scan --no-progress '$tmp/w0.tar' > /dev/null")
t_w1=$(measure "'$pkgnote' scan --no-progress '$tmp/w1.tar' > /dev/null")
t_w2=$(measure "'$pkgnote' scan --no-progress '$tmp/w2.tar' > /dev/null")
t_wt=$(measure "tar -xOf '$tmp/w1.tar' > /dev/null")
rm -f "$tmp/w0.tar" "$tmp/w1.tar" "$tmp/w2.tar"

{
        printf '# pkgnote scan benchmark, %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        printf '# %s; %s CPUs; load average %s; %s\n' "$(uname -srm)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
                "$(readelf --version | head -n 1)"
        printf '# tree: %s regular files, %s ELF, under %s; warm cache, best of %s; xargs -n %s\n' \
                "$nfiles" "$nelf" "$root" "$runs" "$batch"
        printf '# "x floor" and "x readelf" are time ratios (lower is faster)\n'
        printf '%-28s %10s %10s %10s\n' tool seconds 'x floor' 'x readelf'
        row() {
                [ -n "$2" ] || return 0
                echo "$1 $2 $t_floor $t_readelf" |
                        awk '{ printf "%-28s %10.3f %10.2f %10.2f\n", $1, $2, $2 / $3, $2 / $4 }'
        }
        row "floor(1-thread,4KiB)" "$t_floor"
        row "pkgnote-scan" "$t_scan"
        row "pkgnote-scan-j1" "$t_scan1"
        row "readelf-n" "$t_readelf"
        row "systemd-analyze(ELF-only)" "$t_sd"
        echo "$t_scan $t_floor $t_readelf" | awk '{
                f = $1 / $2; r = $3 / $1
                printf "# goal: scan <= 1.00x floor: %.2fx (%s); >= 2x faster than readelf -n: %.2fx (%s)\n",
                        f, (f <= 1.0) ? "met" : "MISSED", r, (r >= 2) ? "met" : "MISSED" }'
        printf '#\n# archive: docker save layout, %s bytes (%s), %s ELF objects found\n' "$asize" "$(tr '\n' ' ' < "$tmp/dirs" | cut -c1-120)..." "$aobjs"
        printf '%-28s %10s %10s\n' tool seconds 'MiB/s'
        for x in "tar-xO $t_tar" "pkgnote-scan $t_ascan" "pkgnote-scan(pipe) $t_apipe"; do
                echo "$x $asize" | awk '{ printf "%-28s %10.3f %10.1f\n", $1, $2, $3 / 1048576 / $2 }'
        done
        echo "$t_ascan $t_tar" | awk '{ t = $2 / $1
                printf "# goal: scan throughput >= 0.8x tar -xO: %.2fx (%s)\n", t, (t >= 0.8) ? "met" : "MISSED" }'
        echo "$t_apipe $t_tar" | awk '{ printf "# from a pipe (no seeking): %.2fx tar -xO\n", $2 / $1 }'
        printf '#\n# whiteouts: docker save layout, %s files in the lower layer, every second one whited out\n' "$wfiles"
        printf '%-28s %10s %10s\n' tool seconds 'x plain'
        for x in "pkgnote-scan(plain-upper) $t_w0" "pkgnote-scan(whiteouts) $t_w1" "pkgnote-scan(2x-whiteouts) $t_w2" \
                "tar-xO $t_wt"; do
                echo "$x $t_w0" | awk '{ printf "%-28s %10.3f %10.2f\n", $1, $2, $2 / $3 }'
        done
        echo "$t_w2 $t_w1" | awk '{ r = $1 / $2
                printf "# goal: twice the whiteouts and files <= 2.5x the time (not quadratic): %.2fx (%s)\n", r, (r <= 2.5) ? "met" : "MISSED" }'
} | tee "$results"
