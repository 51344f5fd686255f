#!/bin/sh
# Benchmark: what reading a crash through systemd-coredump's journal and
# store costs over reading its core alone.  A real journald and
# systemd-coredump run in a private mount namespace (tests/read/systemd-ns.sh,
# the harness of the command tests); journalctl, crashed for real and fed
# to systemd-coredump, is the crash.  Timed (best of RUNS, default 10,
# warm page cache), all without the stack (-S), so that only the way to
# the core differs:
#   core FILE.zst       the stored core named directly
#   core -D DIR PID     the same crash found through the journal: the
#                       journal opened with sd-journal, the entries read,
#                       the store file paired, then the same core read
#   core FILE           the same core decompressed, for scale
#   list -D DIR         the listing alone
# Goal: the journal adds less than 20 ms over the core alone.
#
#   bench/journal.sh [PKGNOTE]   (default build/pkgnote; writes bench/results-journal.txt)
set -u
here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=$(cd "$here/.." && pwd)
PKGNOTE=$(realpath "${1:-$SRCDIR/build/pkgnote}")
RESULTS=${RESULTS:-$here/results-journal.txt}
export SRCDIR PKGNOTE RESULTS
# Re-executes this script in the namespace, then sources tests/lib.sh
# (which moves into a temporary directory).
. "$SRCDIR/tests/read/systemd-ns.sh"
. "$here/lib.sh"

runs=${RUNS:-10}
sdns_start
JC="journalctl -D $SDNS_JOURNAL -f"
sdns_crash jc.core $JC
sdns_feed jc.core 11 "$(date +%s)" $JC
pid=$SDNS_PID
stored=$(ls "$SDNS_STORE"/core.journalctl.* | head -n 1)
[ -f "$stored" ] || fatal "systemd-coredump stored no core"
case $stored in
*.zst) zstd -dc "$stored" > plain.core ;;
*) cp "$stored" plain.core ;;
esac
# Each command must work before it is timed.
for c in "core -S $stored" "core -S -D $SDNS_JOURNAL $pid" "core -S plain.core" "list -D $SDNS_JOURNAL"; do
        "$PKGNOTE" $c > /dev/null 2>&1 || fatal "pkgnote $c failed"
done
t_file=$(measure "$PKGNOTE core -S $stored")
t_journal=$(measure "$PKGNOTE core -S -D $SDNS_JOURNAL $pid")
t_plain=$(measure "$PKGNOTE core -S plain.core")
t_list=$(measure "$PKGNOTE list -D $SDNS_JOURNAL")
added=$(echo "$t_journal $t_file" | awk '{ printf "%.1f", ($1 - $2) * 1000 }')
{
        echo "pkgnote core through systemd-coredump's journal, beside the core alone"
        echo "(journalctl crashed, $(($(stat -c %s plain.core) >> 20)) MiB core stored as $(basename "$stored" | sed 's/.*\.//'); best of $runs; $(date -u +%Y-%m-%d))"
        echo
        printf '%-44s %8s\n' command seconds
        printf '%-44s %8s\n' "core -S STORED-FILE" "$t_file"
        printf '%-44s %8s\n' "core -S -D JOURNAL PID (journal + store)" "$t_journal"
        printf '%-44s %8s\n' "core -S PLAIN-CORE (decompressed, for scale)" "$t_plain"
        printf '%-44s %8s\n' "list -D JOURNAL" "$t_list"
        echo
        echo "the journal adds $added ms (goal: < 20 ms)"
} | tee "$RESULTS"
sdns_stop
