#!/bin/sh
# make fuzz: runs each libFuzzer harness for SECONDS (default 600) from the
# committed corpus, one after another; new inputs go to fuzz/corpus-NAME-run
# (ignored by git).  Fold them in with:
#   BUILD/fuzz/fuzz-NAME -merge=1 fuzz/corpus/NAME fuzz/corpus-NAME-run
# HARNESSES="image archive" runs only those.
set -eu
BUILD=${1:-build-fuzz}
SECONDS_EACH=${2:-600}
cd "$(dirname "$0")/.."
status=0
# Every harness by default: each fuzz/fuzz-NAME.c is one.
all=$(for f in fuzz/fuzz-*.c; do f=${f#fuzz/fuzz-}; printf '%s ' "${f%.c}"; done)
for h in ${HARNESSES:-$all}; do
        mkdir -p "fuzz/corpus-$h-run"
        echo "== fuzz-$h for ${SECONDS_EACH}s"
        # An input that runs over 30 s is a hang: it is written out as
        # timeout-* like a crash.
        # libarchive reserves read-ahead room for the name size a cpio header
        # declares (up to 4 GiB) before it finds the bytes missing; the
        # memory is never touched, so only the resident size is capped.
        "$BUILD/fuzz/fuzz-$h" -max_total_time="$SECONDS_EACH" -timeout=30 -rss_limit_mb=2048 -malloc_limit_mb=4096 -max_len=1048576 \
                -artifact_prefix="fuzz/corpus-$h-run/" "fuzz/corpus-$h-run" "fuzz/corpus/$h" || status=1
done
exit $status
