# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the benchmarks: timing of shell commands (with $runs set), and
# the choice of a tree's part to pack.

now() { date +%s.%N; }

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
