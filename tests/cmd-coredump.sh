#!/bin/sh
# pkgnote-coredump called exactly as the kernel calls a core_pattern pipe
# handler (arguments %P %u %g %s %t %c %h %e, a real core on standard
# input), then pkgnote list and pkgnote core on what it stored.  No
# /proc/sys setting is touched: the cores come from ulimit -c and the
# core_pattern this machine already has.
. "$SRCDIR/tests/lib.sh"
HANDLER="$BUILDDIR/pkgnote-coredump"
[ -x "$HANDLER" ] || fatal "no $HANDLER"
case $(cat /proc/sys/kernel/core_pattern) in
"|"*) echo "1..0 # SKIP core_pattern is a pipe here: cannot make a core file to feed"; exit 77 ;;
esac
ulimit -c unlimited

cat > crash.c <<'C'
#include <stdlib.h>
int main(int argc, char **argv) { if (argc > 1) abort(); *(volatile int *)0 = 1; return 0; }
C
cc -o crasher crash.c -Xlinker '--package-metadata={"type":"deb","name":"crasher","version":"4.2-1","architecture":"amd64"}' \
        || fatal "cannot build"
make_core() { # $1: name for the core file; $2: extra argument
        rm -f core
        sh -c "ulimit -c unlimited; exec ./crasher ${2:-}" 2>/dev/null
        [ -f core ] || fatal "the kernel wrote no core"
        mv core "$1"
}
make_core segv.core
make_core abrt.core x
STATE="$T/state"
feed() { # core pid sig time [options]
        core=$1 pid=$2 sig=$3 t=$4
        shift 4
        "$HANDLER" -d "$STATE" -l "$T/log" "$@" "$pid" 0 0 "$sig" "$t" 18446744073709551615 testhost crasher < "$core"
}
feed segv.core 101 11 1700000000
[ $? -eq 0 ] && pass "handler exits 0" || fail "handler exits 0"
entry="$STATE/core.crasher.0.101.1700000000"
[ -s "$entry.json" ] && pass "report written" || fail "report written"
if command -v zstd >/dev/null; then
        zstd -dc "$entry.zst" | cmp -s - segv.core && pass "stored core decompresses to the original" \
                || fail "stored core decompresses to the original"
fi
python3 - "$entry.json" <<'PY' && pass "report names the package" || fail "report names the package"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["package"]["name"] == "crasher" and d["package"]["version"] == "4.2-1", d["package"]
assert d["signal"] == 11 and d["hostname"] == "testhost" and d["time"] == 1700000000, d
PY
grep -q "process 101 (crasher) of user 0 crashed with signal 11 (SEGV), package crasher/4.2-1" log \
        && pass "one log line with the package" || fail "one log line with the package" "$(cat log)"
[ "$(wc -l < log)" -eq 1 ] && pass "exactly one log line" || fail "exactly one log line"

feed abrt.core 102 6 1700000100
PKGNOTE_COREDUMP_DIR="$STATE" run list
expect_status 0 "list exits 0"
[ "$(grep -c crasher out)" -eq 2 ] && pass "list shows both crashes" || fail "list shows both crashes" "$(cat out)"
grep -q "ABRT /.*crasher crasher/4.2-1" out && pass "list: signal, exe, package" || fail "list: signal, exe, package" "$(cat out)"
PKGNOTE_COREDUMP_DIR="$STATE" run list --json
python3 -c '
import json
rows = [json.loads(l) for l in open("out")]
assert [r["signal"] for r in rows] == [11, 6], rows
assert rows[1]["package"]["name"] == "crasher"' && pass "list --json, oldest first" || fail "list --json, oldest first"

pid=$(python3 -c 'import json; print(json.loads(open("out").readlines()[1])["pid"])')
PKGNOTE_COREDUMP_DIR="$STATE" run core "$pid"
expect_status 0 "core accepts a PID from the list"
grep -q "Signal: 6 (ABRT)" out && grep -q "Package: crasher/4.2-1" out && pass "core reads the listed entry" \
        || fail "core reads the listed entry" "$(cat out) $(cat err)"

# Limits: a per-core size cap, and a total cap removing the oldest first.
feed segv.core 103 11 1700000200 --max-core-size 64K
grep -q "process 103 .*(truncated at the size limit)" log && pass "per-core cap reported" || fail "per-core cap reported" "$(tail -1 log)"
size=$(stat -c %s "$STATE/core.crasher.0.103.1700000200.zst")
feed segv.core 104 11 1700000300 --max-use $((size * 3))
[ ! -e "$STATE/core.crasher.0.101.1700000000.zst" ] && [ ! -e "$STATE/core.crasher.0.101.1700000000.json" ] \
        && pass "total cap removes the oldest entry whole" || fail "total cap removes the oldest entry whole" "$(ls "$STATE")"
[ -e "$STATE/core.crasher.0.104.1700000300.zst" ] && pass "the new entry is kept" || fail "the new entry is kept"

# RLIMIT_CORE 0 (%c): no core kept, still logged.
"$HANDLER" -d "$STATE" -l "$T/log" 105 0 0 11 1700000400 0 testhost crasher < segv.core
[ ! -e "$STATE/core.crasher.0.105.1700000400.zst" ] && grep -q "process 105 .*RLIMIT_CORE is 0" log \
        && pass "RLIMIT_CORE 0 keeps no core" || fail "RLIMIT_CORE 0 keeps no core"

# A hostile command name cannot escape the directory or forge log lines.
"$HANDLER" -d "$STATE" -l "$T/log" 106 0 0 11 1700000500 18446744073709551615 testhost "../../x$(printf '\nfake')" < segv.core
ls "$STATE" | grep -q "^core\.______x_fake\.0\.106\." && pass "hostile COMM sanitised in the name" || fail "hostile COMM sanitised in the name" "$(ls "$STATE")"
[ "$(grep -c '^fake' log)" -eq 0 ] && pass "hostile COMM cannot forge a log line" || fail "hostile COMM cannot forge a log line"

"$HANDLER" 1 2 3 > /dev/null 2> err
[ $? -eq 2 ] && grep -q "expected PID UID GID" err && pass "wrong arguments: exit 2 with a message" || fail "wrong arguments: exit 2 with a message"
PKGNOTE_COREDUMP_DIR="$T/nonexistent" run list
expect_status 2 "list of a missing directory exits 2"
finish
