# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the benchmarks: timing of shell commands (with $runs set), and
# the choice of a tree's part to pack.

now() { date +%s.%N; }

# Sets what a benchmark of an image of a tree takes, for the benchmark NAME
# ($1) with its arguments [PKGNOTE [ROOT]]: pkgnote (made absolute; default
# build/pkgnote), root (default /usr/lib/x86_64-linux-gnu, or /usr/lib
# without it), runs ($RUNS, default 3) and results ($RESULTS, default
# bench/results-NAME.txt; $here is the bench directory).
bench_args() {
        name=$1
        shift
        pkgnote=${1:-build/pkgnote}
        root=${2:-/usr/lib/x86_64-linux-gnu}
        [ -d "$root" ] || root=/usr/lib
        runs=${RUNS:-3}
        results=${RESULTS:-$here/results-$name.txt}
        case $pkgnote in /*) ;; *) pkgnote=$PWD/$pkgnote ;; esac
}

# One timed run of the shell command $1, in seconds.
run_once() {
        t0=$(now)
        sh -c "$1" > /dev/null 2>&1 || true
        t1=$(now)
        echo "$t0 $t1" | awk '{ printf "%.3f\n", $2 - $1 }'
}

# The best of $runs runs of $1 after one untimed run.
measure() {
        run_once "$1" > /dev/null
        best=
        i=0
        while [ "$i" -lt "$runs" ]; do
                t=$(run_once "$1")
                best=$(echo "$best $t" | awk '{ if (NF == 1 || $2 < $1) print $NF; else print $1 }')
                i=$((i + 1))
        done
        echo "$best"
}

# The largest directories two levels below ROOT ($1), largest first,
# until they hold $2 MiB, skipping those that would overshoot by more than
# half of it, so the result stays near its size: one path per line,
# relative to /.
largest_dirs() {
        du -sk "$1"/*/* 2>/dev/null | sort -rn | {
                total=0
                while read -r k d; do
                        [ "$total" -lt $(($2 * 1024)) ] || break
                        [ $((total + k)) -le $(($2 * 1536)) ] || continue
                        echo "${d#/}"
                        total=$((total + k))
                done
        }
}
