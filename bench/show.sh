#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Benchmarks "pkgnote show" over every regular file of a tree against
# "readelf -n", "eu-readelf -n" and a floor program that only opens each
# file and reads its first 4 KiB.  All are fed the same file list by xargs
# in batches of 500, output goes to /dev/null, exit codes are ignored
# (non-ELF files and files without notes are errors for some tools).
# Warm cache: one untimed run of each tool first, then the best of $RUNS.
#
# Usage: bench/show.sh [PKGNOTE [ROOT]]   (defaults: build/pkgnote /usr)
# Writes the table to stdout and to bench/results-show.txt.
set -eu

pkgnote=${1:-build/pkgnote}
root=${2:-/usr}
runs=${RUNS:-3}
batch=${BATCH:-500}
here=$(cd "$(dirname "$0")" && pwd)
results=${RESULTS:-$here/results-show.txt}

case $pkgnote in /*) ;; *) pkgnote=$PWD/$pkgnote ;; esac
if [ ! -x "$pkgnote" ]; then
        echo "show.sh: '$pkgnote' is not an executable (build pkgnote first)" >&2
        exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O2 -o "$tmp/floor" "$here/floor.c"

export LC_ALL=C
find "$root" -type f -print0 2>/dev/null > "$tmp/list"
nfiles=$(tr -cd '\000' < "$tmp/list" | wc -c)

. "$here/lib.sh"

# Best of $runs runs of "xargs ... TOOL ARGS" over every file.
over_files() {
        measure "xargs -0 -n '$batch' $* < '$tmp/list'"
}

printf 'measuring %s files under %s (best of %s, batches of %s)...\n' "$nfiles" "$root" "$runs" "$batch" >&2
t_floor=$(over_files "'$tmp/floor'")
t_pkgnote=$(over_files "'$pkgnote'" show)
t_readelf=$(over_files readelf -n)
if command -v eu-readelf > /dev/null 2>&1; then
        t_eu=$(over_files eu-readelf -n)
else
        t_eu=
fi

{
        printf '# pkgnote show benchmark, %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        printf '# %s regular files under %s; xargs -0 -n %s; warm cache, best of %s\n' "$nfiles" "$root" "$batch" "$runs"
        printf '# %s; %s CPUs; %s\n' "$(uname -srm)" "$(nproc)" "$(readelf --version | head -n 1)"
        printf '# "x floor" and "x readelf" are time ratios (lower is faster)\n'
        printf '%-16s %10s %10s %10s\n' tool seconds 'x floor' 'x readelf'
        row() {
                [ -n "$2" ] || return 0
                echo "$1 $2 $t_floor $t_readelf" |
                        awk '{ printf "%-16s %10.3f %10.2f %10.2f\n", $1, $2, $2 / $3, $2 / $4 }'
        }
        row floor "$t_floor"
        row "pkgnote-show" "$t_pkgnote"
        row "readelf-n" "$t_readelf"
        row "eu-readelf-n" "$t_eu"
        echo "$t_pkgnote $t_floor $t_readelf" | awk '{
                f = $1 / $2; r = $3 / $1
                fs = (f <= 1.30) ? "met" : "MISSED"; rs = (r >= 1.5) ? "met" : "MISSED"
                printf "# goal: pkgnote <= 1.30x floor: %.2fx (%s); >= 1.5x faster than readelf -n: %.2fx (%s)\n", f, fs, r, rs }'
} | tee "$results"
