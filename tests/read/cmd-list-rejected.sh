#!/bin/sh
# pkgnote list and pkgnote-coredump's metadata-only entries (rejected/:
# a crash over the quota, its core refused or dropped): listed as crashes
# whose core was refused ("rejected (quota)"; JSON "core": "rejected" and
# coreRejected), found by PID, opened with a clear error, and counted in
# --max-use (the oldest entry goes when they push the store over it).
# The pipe mode is fed a core the kernel wrote here (kernel.core_pattern
# is only read, never written).
. "$SRCDIR/tests/lib.sh"
HANDLER="$BUILDDIR/pkgnote-coredump"
[ -x "$HANDLER" ] || fatal "no $HANDLER"
. "$SRCDIR/tests/read/crasher.sh"
trap 'kill $WAITER 2>/dev/null; umount_below "$T"; rm -rf "$T"' EXIT

STATE="$T/state"
crash() { # TIME OPTIONS...
        _t=$1
        shift
        "$HANDLER" -d "$STATE" -l "$T/log" --quota-count 3 --quota-interval 3600 "$@" $WAITER 0 0 11 "$_t" \
                18446744073709551615 testhost crasher < segv.core || fail "handler at $_t exits 0"
}
i=0
while [ $i -lt 8 ]; do crash $((1700000000 + i)); i=$((i + 1)); done
[ "$(ls "$STATE/rejected" | grep -c '\.json$')" = 5 ] || fatal "the quota kept no 5 metadata-only entries: $(ls "$STATE" "$STATE/rejected")"

run list -d "$STATE"
expect_status 0 "list: status 0"
# Only pkgnote's store: a machine with systemd-coredump's has its lines too.
grep ' pkgnote ' out > out.p && mv out.p out
[ "$(grep -c 'crasher' out)" = 8 ] && pass "list: 8 crashes, 3 stored and 5 rejected" || fail "list: 8 crashes, 3 stored and 5 rejected" "$(cat out)"
[ "$(grep -c ' present ' out)" = 3 ] && pass "list: 3 with their core present" || fail "list: 3 with their core present" "$(cat out)"
[ "$(grep -c ' rejected (quota) ' out)" = 5 ] && pass "list: 5 rejected (quota)" || fail "list: 5 rejected (quota)" "$(cat out)"
grep ' rejected (quota) ' out | grep -q " SEGV .*crasher/4.2-1" && pass "list: a rejected crash shows its signal and package" \
        || fail "list: a rejected crash shows its signal and package" "$(grep rejected out | head -1)"

run list -d "$STATE" --json
expect_status 0 "list --json: status 0"
python3 - out "$STATE" "$WAITER" > check.out 2>&1 <<'P'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rows = [r for r in rows if r.get("store") == "pkgnote"]
rej = [r for r in rows if r["core"] == "rejected"]
got = [r for r in rows if r["core"] == "file"]
assert len(rows) == 8 and len(rej) == 5 and len(got) == 3, [r["core"] for r in rows]
for r in rej:
    assert r["coreRejected"].startswith("over quota: 3 cores"), r
    assert r.get("coreFile") is None, r
    assert r["pid"] == int(sys.argv[3]) and r["uid"] == 0 and r["signal"] == 11, r
    assert r["package"]["name"] == "crasher" and r["package"]["version"] == "4.2-1", r["package"]
    assert r["executable"].endswith("/crasher"), r["executable"]
    assert r["store"] == "pkgnote", r
assert sorted(r["time"] for r in rej) == list(range(1700000003, 1700000008)), [r["time"] for r in rej]
for r in got:
    assert "coreRejected" not in r, r
print("ok")
P
[ "$(cat check.out)" = ok ] && pass "list --json: \"core\": \"rejected\" with its reason, PID, signal and package" \
        || fail "list --json: \"core\": \"rejected\" with its reason, PID, signal and package" "$(cat check.out)"
# Where they crashed, as a stored core's report says it: this boot, this
# machine and the running kernel (the crash groups count boots by it),
# written into the entries themselves (a listing fills in this machine's
# id for a report without one) and listed.
python3 - out "$STATE" > check.out 2>&1 <<'P'
import glob, json, os, sys
for p in glob.glob(sys.argv[2] + "/rejected/*.json"):
    r = json.load(open(p))
    assert len(r["bootId"]) == 32, (p, r.get("bootId"))
    if os.path.exists("/etc/machine-id"):
        assert r["machineId"] == open("/etc/machine-id").read().strip(), (p, r.get("machineId"))
    if os.access("/sys/kernel/notes", os.R_OK):
        assert r["kernel"]["release"] and r["kernel"]["buildId"], (p, r.get("kernel"))
rows = [json.loads(l) for l in open("out") if l.strip()]
rows = [r for r in rows if r.get("store") == "pkgnote"]
boot = open("/proc/sys/kernel/random/boot_id").read().strip().replace("-", "")
release = open("/proc/sys/kernel/osrelease").read().strip()
for r in rows:
    assert r["bootId"] == boot, (r.get("bootId"), boot)
    if os.path.exists("/etc/machine-id"):
        assert r["machineId"] == open("/etc/machine-id").read().strip(), r.get("machineId")
    if os.access("/sys/kernel/notes", os.R_OK):
        assert r["kernelRelease"] == release and len(r["kernelBuildId"]) >= 16, r
print("ok")
P
[ "$(cat check.out)" = ok ] && pass "list --json: stored and rejected crashes name this boot, machine and kernel" \
        || fail "list --json: stored and rejected crashes name this boot, machine and kernel" "$(cat check.out)"

run list -d "$STATE" $WAITER
[ "$(grep ' pkgnote ' out | grep -c crasher)" = 8 ] && pass "list PID: the rejected crashes match by PID too" || fail "list PID: the rejected crashes match by PID too" "$(cat out)"
id=$(ls "$STATE/rejected" | grep '\.json$' | head -1)
run core -d "$STATE" "rejected/${id%.json}"
case $STATUS in 0) fail "core of a rejected crash: an error" "status 0" ;;
*) grep -q 'refused (over quota)' err && pass "core of a rejected crash: says its core was refused" \
        || fail "core of a rejected crash: says its core was refused" "$(cat err out | head -3)" ;;
esac

# --max-use counts them: the store's files (no ledger) fit it exactly; one
# more metadata-only entry goes over, and the oldest entry (a stored core)
# goes.  Without counting rejected/ the cores alone stay under it.
bytes() { find "$@" -maxdepth 1 -type f -name 'core.*' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }
main=$(bytes "$STATE")
rej=$(bytes "$STATE/rejected")
crash 1700000008 --max-use $((main + rej))
[ "$(ls "$STATE/rejected" | grep -c '\.json$')" = 6 ] && pass "--max-use: the new metadata-only entry kept" \
        || fail "--max-use: the new metadata-only entry kept" "$(ls "$STATE/rejected")"
[ "$(ls "$STATE" | grep -c '^core\..*\.json$')" = 2 ] && [ ! -e "$STATE/core.crasher.0.$WAITER.1700000000.json" ] \
        && pass "--max-use counts the metadata-only entries: the oldest stored entry removed" \
        || fail "--max-use counts the metadata-only entries: the oldest stored entry removed" "$(ls "$STATE")"
after=$(( $(bytes "$STATE") + $(bytes "$STATE/rejected") ))
[ "$after" -le $((main + rej)) ] && pass "--max-use: the store within it ($after <= $((main + rej)) bytes)" \
        || fail "--max-use: the store within it" "$after > $((main + rej))"
# A tiny --max-use: every entry goes, rejected/ too, oldest first.
crash 1700000009 --max-use 1
[ "$(bytes "$STATE")" = 0 ] && [ "$(bytes "$STATE/rejected")" = 0 ] \
        && pass "--max-use 1: nothing left, the metadata-only entries included" \
        || fail "--max-use 1: nothing left, the metadata-only entries included" "$(ls "$STATE" "$STATE/rejected")"

# The quota is per user: user 1000's crashes over it leave root's whole.
U="$T/users"
ucrash() { # UID TIME
        "$HANDLER" -d "$U" -l "$T/ulog" --quota-count 2 --quota-interval 3600 $WAITER "$1" "$1" 11 "$2" \
                18446744073709551615 testhost crasher < segv.core || fail "handler for user $1 at $2 exits 0"
}
ucrash 1000 1700000000
ucrash 1000 1700000001
ucrash 1000 1700000002
ucrash 0 1700000003
[ "$(ls "$U/rejected" 2>/dev/null | grep -c '\.json$')" = 1 ] && [ -e "$U/rejected/core.crasher.1000.$WAITER.1700000002.json" ] \
        && pass "quota per user: user 1000's third crash rejected" \
        || fail "quota per user: user 1000's third crash rejected" "$(ls "$U" "$U/rejected" 2>&1)"
[ -e "$U/core.crasher.0.$WAITER.1700000003.json" ] && pass "quota per user: root's crash of the same program stored after it" \
        || fail "quota per user: root's crash of the same program stored after it" "$(ls "$U"; cat "$T/ulog")"
finish
