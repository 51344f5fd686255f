# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the benchmarks: timing of shell commands, with $runs set.

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
