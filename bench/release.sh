#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Benchmarks "pkgnote scan" of a tree against the previous release, side
# by side: the release is built from this repository's history (the commit
# "Release X.Y.Z", or REV) into a temporary directory, and both programs
# scan the same tree in turn, $RUNS times each after one untimed run each.
# The release is built as the project builds by default (debugoptimized),
# as build/ is.  It reports the medians of CPU (user + system) and wall
# time of each and their ratios, and the peak resident memory.
#
# Usage: bench/release.sh [PKGNOTE [ROOT [REV]]]
#   defaults: build/pkgnote, /usr, the newest "Release X.Y.Z" commit of
#   another version than this tree's meson.build.  Writes the table to
#   stdout and bench/results-release.txt.
set -eu

pkgnote=${1:-build/pkgnote}
root=${2:-/usr}
rev=${3:-}
runs=${RUNS:-11}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
results=${RESULTS:-$here/results-release.txt}
case $pkgnote in /*) ;; *) pkgnote=$PWD/$pkgnote ;; esac
if [ ! -x "$pkgnote" ]; then
        echo "release.sh: '$pkgnote' is not an executable (build pkgnote first)" >&2
        exit 2
fi
if [ ! -d "$root" ]; then
        echo "release.sh: '$root' is not a directory" >&2
        exit 2
fi
if [ -z "$rev" ]; then
        # The newest release before this tree's own version.
        cur=$(sed -n "s/^ *version : '\([0-9.]*\)',\$/\1/p" "$top/meson.build" | head -n 1)
        rev=$(git -C "$top" log --format='%H %s' --grep='^Release [0-9]' HEAD |
                awk -v cur="$cur" '$2 != "Release" || $3 != cur":" { print $1; exit }') || rev=
        if [ -z "$rev" ]; then
                echo "release.sh: no 'Release ...' commit in the history; name one as the third argument" >&2
                exit 2
        fi
fi
if ! git -C "$top" rev-parse -q --verify "$rev^{commit}" > /dev/null; then
        echo "release.sh: '$rev' is not a commit of $top" >&2
        exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/pkgnote-release.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C

git -C "$top" archive --format=tar "$rev" | tar -x -C "$tmp"
if ! (cd "$tmp" && meson setup b > build.log 2>&1 && ninja -C b pkgnote >> build.log 2>&1); then
        tail -n 20 "$tmp/build.log" >&2
        echo "release.sh: cannot build $rev" >&2
        exit 1
fi
old=$tmp/b/pkgnote
version=$("$old" --version 2>/dev/null | head -n 1) || version=$rev

# Both must scan the tree (a failure would time an error message).
for p in "$pkgnote" "$old"; do
        rc=0
        "$p" scan "$root" > /dev/null 2> "$tmp/err" || rc=$?
        if [ "$rc" -gt 1 ]; then
                echo "release.sh: $p scan $root failed ($rc): $(tail -n 1 "$tmp/err")" >&2
                exit 1
        fi
done

# One run: "cpu wall peak-KiB" of PROGRAM scan ROOT.
one() {
        python3 - "$1" "$root" <<'PY'
import os, resource, subprocess, sys, time
t = time.monotonic()
subprocess.run([sys.argv[1], "scan", sys.argv[2]], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
w = time.monotonic() - t
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.4f %.4f %d" % (r.ru_utime + r.ru_stime, w, r.ru_maxrss))
PY
}

one "$pkgnote" > /dev/null
one "$old" > /dev/null
: > "$tmp/new"
: > "$tmp/old"
i=0
while [ "$i" -lt "$runs" ]; do
        one "$pkgnote" >> "$tmp/new"
        one "$old" >> "$tmp/old"
        i=$((i + 1))
done

# Column $2's median of file $1.
median() {
        cut -d' ' -f"$2" "$1" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

{
        printf '# pkgnote scan %s: this build against the release %s (%s), %s\n' "$root" \
                "$(git -C "$top" rev-parse --short "$rev")" "$version" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        printf '# %s; %s CPUs; load average %s; medians of %s runs, taken in turn\n' "$(uname -srm)" "$(nproc)" \
                "$(cut -d' ' -f1-3 /proc/loadavg)" "$runs"
        printf '%-10s %9s %9s %10s\n' build cpu-s wall-s peak-KiB
        for b in new old; do
                printf '%-10s %9.3f %9.3f %10d\n' "$b" "$(median "$tmp/$b" 1)" "$(median "$tmp/$b" 2)" "$(median "$tmp/$b" 3)"
        done
        printf 'ratio cpu %.3f, wall %.3f (this build / release; goal: cpu <= 1.05)\n' \
                "$(echo "$(median "$tmp/new" 1) $(median "$tmp/old" 1)" | awk '{ print $1 / $2 }')" \
                "$(echo "$(median "$tmp/new" 2) $(median "$tmp/old" 2)" | awk '{ print $1 / $2 }')"
} | tee "$results"
