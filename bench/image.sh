#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Benchmarks "pkgnote scan" of one image held in the places images live,
# against scanning the same files as a plain directory tree:
#   - the tree itself (the reference: what any image reader must beat or
#     approach), and readelf -n over it, batched with xargs;
#   - a local container store, vfs driver (containers-storage:[vfs@...]);
#   - a local container store, overlay driver: the image as two layers,
#     the upper one deleting every tenth file of the lower one;
#   - an OCI image layout (gzip-compressed layers, oci:DIR), against
#     gzip -dc of its layers (what any reader of it must do);
#   - scan --images of the overlay store (descriptions only).
# The image is made here: umoci builds the layout from $ROOT (default
# /usr/lib/x86_64-linux-gnu, or its parent without that), skopeo copies it
# into the two stores.
#
# Each timing is the best of $RUNS after one untimed run.
# Usage: bench/image.sh [PKGNOTE [ROOT]]   (defaults: build/pkgnote, see above)
# Writes the table to stdout and to bench/results-image.txt.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_args image "$@"
for t in umoci skopeo readelf; do
        command -v $t > /dev/null || { echo "image.sh: $t is not installed (make deps-test)" >&2; exit 2; }
done
[ -x "$pkgnote" ] || { echo "image.sh: '$pkgnote' is not an executable (build pkgnote first)" >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/pkgnote-bench.XXXXXX")
cleanup() {
        # containers/storage leaves its overlay directory mounted on itself
        awk -v t="$tmp/" 'index($2, t) == 1 { print $2 }' /proc/mounts | sort -r |
                while read -r m; do umount -l "$m" 2>/dev/null; done
        rm -rf "$tmp"
}
trap cleanup EXIT INT TERM
export LC_ALL=C

printf 'building the image from %s...\n' "$root" >&2
cd "$tmp"
umoci init --layout lay > /dev/null
umoci new --image lay:one > /dev/null
umoci unpack --image lay:one b > /dev/null
mkdir -p "b/rootfs$root"
cp -a "$root/." "b/rootfs$root/" 2> /dev/null || true
umoci repack --image lay:one b > /dev/null
# The upper layer deletes every tenth regular file.
umoci tag --image lay:one two > /dev/null
find "b/rootfs$root" -type f | awk 'NR % 10 == 0' | while read -r f; do rm -f "$f"; done
umoci repack --image lay:two b > /dev/null
mv b/rootfs tree
rm -rf b
for d in vfs overlay; do
        skopeo copy -q oci:lay:two "containers-storage:[$d@$tmp/$d+$tmp/run-$d]localhost/bench:two" > /dev/null
done
nfiles=$(find tree -type f | wc -l)
bytes=$(du -sb tree | cut -f1)
find tree -type f -print0 > list

printf 'scanning: %s files, %s bytes, best of %s...\n' "$nfiles" "$bytes" "$runs" >&2
t_tree=$(measure "'$pkgnote' scan --no-progress '$tmp/tree' > /dev/null")
t_readelf=$(measure "xargs -0 -n 500 readelf -n < '$tmp/list'")
t_vfs=$(measure "'$pkgnote' scan --no-progress 'containers-storage:[vfs@$tmp/vfs]bench:two' > /dev/null")
t_ovl=$(measure "'$pkgnote' scan --no-progress 'containers-storage:[overlay@$tmp/overlay]bench:two' > /dev/null")
t_oci=$(measure "'$pkgnote' scan --no-progress 'oci:$tmp/lay:two' > /dev/null")
# The floor of any reader of the layout: decompressing its layers.
layers=$(python3 -c 'import json
idx = json.load(open("lay/index.json"))
d = [m for m in idx["manifests"] if m["annotations"]["org.opencontainers.image.ref.name"] == "two"][0]["digest"]
m = json.load(open("lay/blobs/sha256/" + d[7:]))
print(" ".join("lay/blobs/sha256/" + l["digest"][7:] for l in m["layers"]))')
t_gz=$(measure "cd '$tmp' && cat $layers | gzip -dc")
t_list=$(measure "'$pkgnote' scan --images 'containers-storage:[overlay@$tmp/overlay]' > /dev/null")
# The same objects everywhere: the reports must agree.
for r in "$tmp/tree" "containers-storage:[vfs@$tmp/vfs]bench:two" "containers-storage:[overlay@$tmp/overlay]bench:two" \
        "oci:$tmp/lay:two"; do
        "$pkgnote" scan --format json --no-progress "$r" 2> /dev/null | python3 -c 'import json, sys
for l in sys.stdin:
    d = json.loads(l)
    if "path" in d:
        p = d["path"]
        print(p[p.index("/usr/"):] if "/usr/" in p else p, d["buildId"])' | sort | sha256sum | cut -c1-16
done | sort -u | wc -l > agree

{
        printf '# pkgnote scan of one image, benchmark, %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        printf '# %s; %s CPUs; load average %s\n' "$(uname -srm)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
        printf '# image: %s as two layers (the upper deletes every tenth file): %s files, %s bytes; best of %s\n' \
                "$root" "$nfiles" "$bytes" "$runs"
        printf '# "x tree" is the time against scanning the same files as a directory (lower is faster)\n'
        printf '%-34s %10s %10s\n' what seconds 'x tree'
        for x in "scan-DIR $t_tree" "readelf-n(DIR) $t_readelf" "scan-containers-storage(vfs) $t_vfs" \
                "scan-containers-storage(overlay) $t_ovl" "scan-oci-layout(gzip) $t_oci" "gzip-dc(layers) $t_gz" \
                "scan--images(overlay) $t_list"; do
                echo "$x $t_tree" | awk '{ printf "%-34s %10.3f %10.2f\n", $1, $2, $2 / $3 }'
        done
        printf '# the four reports list the same objects: %s\n' "$([ "$(cat agree)" = 1 ] && echo yes || echo NO)"
} | tee "$results"
