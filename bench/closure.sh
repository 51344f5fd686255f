#!/bin/sh
# Benchmark of `pkgnote deps --closure` beside pax-utils' lddtree (`lddtree
# -l`, which an initrd builder uses the same way: the files a program
# needs, read from disk, the loader not run), over every dynamically
# linked program in /usr/bin:
#   - all of them in one call of each tool, and
#   - one call per program (as dracut's inst_binary does), over a sample
#     of SAMPLE programs (default 100).
# Both outputs are also compared: the files each names, resolved, must be
# the same set (differences are written to the results).
#
#   bench/closure.sh [PKGNOTE]   (default: build/pkgnote; writes bench/results-closure.txt)
#
# Goal: faster than lddtree.  Timings are the best of RUNS (default 3)
# after one untimed run, warm page cache.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_args closure "$@"
sample=${SAMPLE:-100}
LDDTREE=$(command -v lddtree) || { echo "lddtree is not installed (apt-get install pax-utils python3-pyelftools)" >&2; exit 1; }
# lddtree runs under the system's Python, which has pyelftools.
PY=/usr/bin/python3
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# The dynamically linked programs of /usr/bin (each file once).
for f in /usr/bin/*; do
        [ -f "$f" ] && [ ! -L "$f" ] || continue
        readelf -l "$f" 2> /dev/null | grep -q 'Requesting program interpreter' && echo "$f"
done > "$W/progs"
n=$(wc -l < "$W/progs")
awk -v n="$n" -v s="$sample" 'NR % int((n + s - 1) / s) == 0' "$W/progs" | head -n "$sample" > "$W/sample"
ns=$(wc -l < "$W/sample")

all_pk=$(measure "xargs '$pkgnote' deps --closure --ignore-missing < '$W/progs'")
all_ld=$(measure "xargs '$PY' '$LDDTREE' -l --skip-missing < '$W/progs'")
one_pk=$(measure "while read -r p; do '$pkgnote' deps --closure --ignore-missing \"\$p\"; done < '$W/sample'")
one_ld=$(measure "while read -r p; do '$PY' '$LDDTREE' -l --skip-missing \"\$p\"; done < '$W/sample'")

# The same files?  Each program's regular files, resolved, by both tools.
same=0
differ=
while read -r p; do
        "$pkgnote" deps --closure --ignore-missing "$p" 2> /dev/null | while read -r f; do [ -L "$f" ] || echo "$f"; done | sort -u > "$W/a"
        "$PY" "$LDDTREE" -l --skip-missing "$p" 2> /dev/null | xargs -r realpath | sort -u > "$W/b"
        if cmp -s "$W/a" "$W/b"; then same=$((same + 1)); else differ="$differ $p"; fi
done < "$W/sample"

{
        echo "# bench/closure.sh: pkgnote deps --closure vs lddtree -l (pax-utils $(dpkg-query -W -f '${Version}' pax-utils 2>/dev/null)), $(date -u +%Y-%m-%d)"
        echo "# machine: $(nproc) cores, $(uname -r); best of $runs runs, warm cache; seconds"
        echo "programs in /usr/bin (dynamic): $n"
        printf 'all in one call:     pkgnote %s  lddtree %s  (%sx)\n' "$all_pk" "$all_ld" "$(echo "$all_ld $all_pk" | awk '{ printf "%.1f", $1 / ($2 > 0 ? $2 : 0.001) }')"
        printf 'one call each (%s): pkgnote %s  lddtree %s  (%sx)\n' "$ns" "$one_pk" "$one_ld" "$(echo "$one_ld $one_pk" | awk '{ printf "%.1f", $1 / ($2 > 0 ? $2 : 0.001) }')"
        echo "same files as lddtree: $same of $ns${differ:+; differ:$differ}"
} | tee "$results"
