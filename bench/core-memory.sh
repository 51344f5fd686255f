#!/bin/sh
# Memory of a stack trace of a large compressed core: a program that
# allocates and touches 1 GiB of non-zero bytes (so every page is dumped)
# crashes with SIGSEGV, its core compressed with zstd as systemd-coredump
# stores them (core.COMM.UID.BOOTID.PID.USEC.zst), and `pkgnote core --json`
# (stack trace on) reads it.  The core is decompressed once for the reader
# and the unwinder: up to PKGNOTE_MAX_CORE_IN_MEMORY (64 MiB) in a memfd,
# the rest in an unlinked temporary file in $TMPDIR (else /var/tmp).
# Measured per run: wall time and peak RSS (/usr/bin/time -v: the largest
# of pkgnote and its unwinder child), and the peak growth of the machine's
# Shmem (/proc/meminfo, sampled every 50 ms): a memfd's pages are shared
# memory that no process's RSS shows.  Medians of RUNS (default 5), with
# OLD_PKGNOTE (a build to compare, e.g. one that kept the whole core in a
# memfd) side by side.  Other processes' shared memory moves Shmem too: run
# it on a quiet machine.
#
#   bench/core-memory.sh [PKGNOTE]   (default: build/pkgnote; writes bench/results-core-memory.txt)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PKGNOTE=$(realpath "${1:-$here/../build/pkgnote}")
RUNS=${RUNS:-5}
out=$here/results-core-memory.txt
for t in gcc zstd /usr/bin/time python3; do
        command -v "$t" > /dev/null || { echo "bench/core-memory.sh: $t is needed" >&2; exit 1; }
done
case $(cat /proc/sys/kernel/core_pattern) in
"|"* | */*) echo "bench/core-memory.sh: core_pattern must be a plain file name" >&2; exit 1 ;;
esac
W=$(mktemp -d "${BENCH_DIR:-/var/tmp}/pkgnote-bench.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W"
cat > big.c <<'C'
#include <stdint.h>
#include <stdlib.h>
static void __attribute__((noinline)) crash_here(volatile int *p) { *p = 1; }
int main(void) {
        size_t n = (size_t)1 << 30;
        uint8_t *b = malloc(n);
        if (!b)
                return 1;
        for (size_t i = 0; i < n; i++)
                b[i] = (uint8_t)((i >> 12) * 31 + (i & 0xff));
        crash_here((volatile int *)0);
        return b[n - 1];
}
C
gcc -O1 -g -o big big.c
(ulimit -c unlimited; exec ./big) 2> /dev/null || true
[ -f core ] || { echo "bench/core-memory.sh: no core written" >&2; exit 1; }
Z=core.big.0.0123456789abcdef0123456789abcdef.1.1765000000000000.zst
zstd -q -3 --rm core -o "$Z"

# measure PKGNOTE: RUNS lines "SECONDS RSS_KIB SHMEM_KIB FRAME"
measure() {
        base=$(awk '/^Shmem:/ {print $2}' /proc/meminfo)
        for i in $(seq "$RUNS"); do
                echo "$base" > shmem.peak
                (p=$base; while :; do s=$(awk '/^Shmem:/ {print $2}' /proc/meminfo); [ "$s" -gt "$p" ] && p=$s && echo "$p" > shmem.peak; sleep 0.05; done) &
                mon=$!
                /usr/bin/time -v "$1" core --json "$Z" > out.json 2> time.txt
                kill "$mon"
                wait "$mon" 2> /dev/null || true
                python3 - "$base" <<'PY'
import json, re, sys
t = open("time.txt").read()
wall = t.split("Elapsed (wall clock) time (h:mm:ss or m:ss): ")[1].split()[0].split(":")
secs = float(wall[-1]) + 60 * float(wall[-2])
rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", t).group(1))
shmem = int(open("shmem.peak").read()) - int(sys.argv[1])
d = json.load(open("out.json"))
print(secs, rss, shmem, d["threads"][0]["frames"][0].get("function"))
PY
        done
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
row() { # LABEL FILE
        printf '%-12s %8s s %9s KiB RSS %9s KiB Shmem   first frame: %s\n' "$1" \
                "$(cut -d' ' -f1 "$2" | median)" "$(cut -d' ' -f2 "$2" | median)" "$(cut -d' ' -f3 "$2" | median)" \
                "$(cut -d' ' -f4 "$2" | sort -u | tr '\n' ' ')"
}
measure "$PKGNOTE" > new.txt
[ -n "${OLD_PKGNOTE:-}" ] && measure "$(realpath "$OLD_PKGNOTE")" > old.txt
{
        echo "pkgnote core --json (stack trace) of a 1 GiB core compressed with zstd ($(stat -c %s "$Z") bytes), medians of $RUNS"
        echo "TMPDIR=${TMPDIR:-/var/tmp (unset)}"
        row pkgnote new.txt
        [ -n "${OLD_PKGNOTE:-}" ] && row "${OLD_LABEL:-old}" old.txt
        true
} | tee "$out"
