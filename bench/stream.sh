#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Benchmarks "pkgnote scan -" of an image piped in, the way "docker save
# IMAGE | pkgnote scan -" is used, against "tar -xO > /dev/null" of the
# same stream (what reading every byte of the archive costs, the floor of
# any reader of a pipe), and the same archive named as a file.  Peak
# memory is /usr/bin/time's maximum resident set size.
# The archive is made here in docker save's shape with python's tarfile:
# one layer tar of $ROOT (default /usr/lib/x86_64-linux-gnu), its
# configuration, and manifest.json after the layer, as a stream may give
# it.
#
# Each timing is the best of $RUNS after one untimed run; the memory is
# the largest of those runs.
# Usage: bench/stream.sh [PKGNOTE [ROOT]]   (defaults: build/pkgnote, see above)
# Writes the table to stdout and to bench/results-stream.txt.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_args stream "$@"
for t in python3 tar; do
        command -v $t > /dev/null || { echo "stream.sh: $t is not installed (make deps-test)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "stream.sh: /usr/bin/time is not installed (make deps-test)" >&2; exit 2; }
[ -x "$pkgnote" ] || { echo "stream.sh: '$pkgnote' is not an executable (build pkgnote first)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/pkgnote-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C

printf 'building the archive from %s...\n' "$root" >&2
cd "$tmp"
python3 - "$root" img.tar <<'PY'
import hashlib, io, json, os, sys, tarfile
root, out = sys.argv[1], sys.argv[2]
lay = out + ".layer"
with tarfile.open(lay, "w", format=tarfile.PAX_FORMAT) as t:
    t.add(root, arcname=root.lstrip("/"))
h = hashlib.sha256()
with open(lay, "rb") as f:
    for b in iter(lambda: f.read(1 << 20), b""):
        h.update(b)
d = h.hexdigest()
cfg = json.dumps({"architecture": "amd64", "os": "linux", "config": {},
                  "rootfs": {"type": "layers", "diff_ids": ["sha256:" + d]}}).encode()
cd = hashlib.sha256(cfg).hexdigest()
man = json.dumps([{"Config": cd + ".json", "RepoTags": ["bench:stream"], "Layers": [d + ".tar"]}]).encode()
def add(t, name, data):
    ti = tarfile.TarInfo(name)
    ti.size = len(data)
    t.addfile(ti, io.BytesIO(data))
with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as t:
    t.add(lay, arcname=d + ".tar")  # the layer first, the manifest after it
    add(t, cd + ".json", cfg)
    add(t, "manifest.json", man)
os.unlink(lay)
PY
bytes=$(stat -c %s img.tar)
nfiles=$(find "$root" -type f | wc -l)

# The largest maximum resident set size of $runs runs of $1, in KiB.
peak() {
        max=0
        i=0
        while [ "$i" -lt "$runs" ]; do
                /usr/bin/time -f %M -o rss sh -c "$1" > /dev/null 2>&1 || true
                k=$(tail -n 1 rss)
                [ "$k" -gt "$max" ] && max=$k
                i=$((i + 1))
        done
        echo "$max"
}

printf 'scanning: %s bytes, best of %s...\n' "$bytes" "$runs" >&2
c_tar="cat '$tmp/img.tar' | tar -xO > /dev/null"
c_pipe="cat '$tmp/img.tar' | '$pkgnote' scan --no-progress - > /dev/null"
c_file="'$pkgnote' scan --no-progress '$tmp/img.tar' > /dev/null"
t_tar=$(measure "$c_tar")
t_pipe=$(measure "$c_pipe")
t_file=$(measure "$c_file")
# Of a pipeline, the largest of its processes' (ru_maxrss of the children
# waited for): pkgnote's.
m_tar=$(peak "$c_tar")
m_pipe=$(peak "$c_pipe")
m_file=$(peak "$c_file")
# The same objects either way (but for the input's name).
for i in pipe file; do
        [ $i = pipe ] && in=- || in=img.tar
        "$pkgnote" scan --format json --no-progress $in < img.tar 2> /dev/null | python3 -c 'import json, sys
for l in sys.stdin:
    d = json.loads(l)
    d.pop("input", None)
    if isinstance(d.get("image"), dict):
        d["image"].pop("reference", None)
    print(json.dumps(d, sort_keys=True))' > $i.json || true
done
agree=$(cmp -s pipe.json file.json && [ -s pipe.json ] && echo yes || echo NO)

{
        printf '# pkgnote scan of an image piped in, benchmark, %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        printf '# %s; %s CPUs; load average %s\n' "$(uname -srm)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
        printf '# archive: docker save shape, one layer of %s (%s files), manifest.json after it: %s bytes; best of %s\n' \
                "$root" "$nfiles" "$bytes" "$runs"
        printf '# "x tar" is the throughput against "tar -xO > /dev/null" of the same stream (higher is faster)\n'
        printf '%-26s %10s %10s %12s\n' what seconds 'x tar' 'peak KiB'
        for x in "tar-xO(pipe) $t_tar $m_tar" "scan-(pipe) $t_pipe $m_pipe" "scan-FILE $t_file $m_file"; do
                echo "$x $t_tar" | awk '{ printf "%-26s %10.3f %10.2f %12d\n", $1, $2, $4 / $2, $3 }'
        done
        printf '# the piped and the file scan report the same objects: %s\n' "$agree"
} | tee "$results"
