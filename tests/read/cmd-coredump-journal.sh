#!/bin/sh
# pkgnote-coredump logs each crash it stores to a real journald, as
# systemd-coredump does: in a private mount namespace (tests/read/systemd-ns.sh)
# journald runs, the handler is called as the kernel calls it on a real
# core (cmd-coredump.sh) while a twin of the crashed program lives under
# the PID, and Debian's coredumpctl (unpacked, never installed) lists the
# crash, shows it and dumps its core byte for byte.  The same core handed
# to the real systemd-coredump gives the same COREDUMP_PACKAGE_JSON.  A
# value with a newline, a message too big for one datagram (sent as a
# sealed memfd), a journal that does not read (the handler does not wait)
# and no journal at all (nothing changes) are checked too.
. "$SRCDIR/tests/read/systemd-ns.sh"
HANDLER="$BUILDDIR/pkgnote-coredump"
[ -x "$HANDLER" ] || fatal "no $HANDLER"
require cc python3
sdns_start

cat > crash.c <<'C'
#include <unistd.h>
int main(int argc, char **argv) { if (argc > 1) { pause(); return 0; } *(volatile int *)0 = 1; return 0; }
C
PJ='{"type":"deb","os":"debian","name":"crasher","version":"4.2-1","architecture":"amd64"}'
cc -o crasher crash.c -Xlinker "--package-metadata=$PJ" || fatal "cannot build"
sdns_crash segv.core ./crasher
STATE="$T/state"
if has_feature zstd; then Z=.zst; else Z=; fi
MID=MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1

# handle CORE TIME ARG...: the handler on CORE while a twin (./crasher
# wait ARG...) lives under the PID it is given; sets PID.
handle() {
        _core=$1 _t=$2
        shift 2
        ./crasher wait "$@" > /dev/null 2>&1 &
        PID=$!
        sleep 0.2
        "$HANDLER" -d "$STATE" -l "$T/log" "$PID" 0 0 11 "$_t" 18446744073709551615 testhost crasher < "$_core"
        HANDLER_STATUS=$?
        kill -KILL "$PID" 2> /dev/null
        wait "$PID" 2> /dev/null
}
field() { # PID FIELD: the field of the crash's entry, as journalctl -o json gives it
        journalctl -D "$SDNS_JOURNAL" --all -o json "$MID" COREDUMP_PID="$1" |
                python3 -c 'import json,sys; e=json.loads(sys.stdin.readline()); v=e.get(sys.argv[1]); print(v if isinstance(v, str) else json.dumps(v))' "$2"
}

handle segv.core 1700000000 "with
newline"
[ "$HANDLER_STATUS" -eq 0 ] && pass "handler exits 0" || fail "handler exits 0" "$(cat "$T/log")"
sdns_wait_entry "$PID"
pass "the crash is in the journal"
STORED="$STATE/core.crasher.0.$PID.1700000000$Z"
[ -s "$STORED" ] && pass "the crash is stored as before" || fail "the crash is stored as before" "$(ls "$STATE")"

"$COREDUMPCTL" -D "$SDNS_JOURNAL" --no-pager list > list.txt 2>&1
grep -E " $PID +0 +0 +SIGSEGV +present +$T/crasher" list.txt > /dev/null &&
        pass "coredumpctl list: PID, UID, GID, signal, core present, executable" ||
        fail "coredumpctl list: PID, UID, GID, signal, core present, executable" "$(cat list.txt)"
"$COREDUMPCTL" -D "$SDNS_JOURNAL" --no-pager info "$PID" > info.txt 2>&1
for want in "PID: $PID (crasher)" "Signal: 11 (SEGV)" "Storage: $STORED" "Hostname: testhost" \
        "Executable: $T/crasher" "Command Line: ./crasher wait with" "Module $T/crasher from deb crasher-4.2-1.amd64" \
        "Package: crasher/4.2-1"; do
        grep -qF -- "$want" info.txt && pass "coredumpctl info: $want" || fail "coredumpctl info: $want" "$(cat info.txt)"
done
if has_feature zstd; then
        "$COREDUMPCTL" -D "$SDNS_JOURNAL" --no-pager dump -o dumped.core "$PID" > dump.txt 2>&1
        cmp -s dumped.core segv.core && pass "coredumpctl dump: the core byte for byte" ||
                fail "coredumpctl dump: the core byte for byte" "$(cat dump.txt)"
else
        # A build without zstd stores cores plain, and coredumpctl 252
        # dumps only compressed external cores: it fails the same way on
        # systemd-coredump's own Compress=no cores ("Failed to decompress
        # ...: Protocol not supported").
        skip "coredumpctl dump: the core byte for byte" "coredumpctl 252 cannot dump an uncompressed stored core"
fi
[ "$(field "$PID" COREDUMP_CMDLINE)" = "./crasher wait with
newline" ] && pass "a value with a newline, binary-safe" || fail "a value with a newline, binary-safe" "$(field "$PID" COREDUMP_CMDLINE)"
[ "$(field "$PID" COREDUMP_TIMESTAMP)" = 1700000000000000 ] && [ "$(field "$PID" PRIORITY)" = 2 ] &&
        [ "$(field "$PID" COREDUMP_SIGNAL_NAME)" = SIGSEGV ] && [ "$(field "$PID" COREDUMP_RLIMIT)" = 18446744073709551615 ] &&
        pass "timestamp in microseconds, priority, signal name, rlimit as systemd writes them" ||
        fail "timestamp in microseconds, priority, signal name, rlimit as systemd writes them"
field "$PID" COREDUMP_CGROUP | grep -q '^/' && pass "COREDUMP_CGROUP from /proc" || fail "COREDUMP_CGROUP from /proc"
ours=$PID

# Regression: the journal entry names the core in pkgnote's store, which
# the journal reader did not recognise: every crash was listed twice, and
# 'core PID' took the journal's copy and said "Core: gone" for a core that
# is there (exit 1).  One crash, one entry: the store's, its core present,
# with what the journal adds (cgroup); a match on a journal field finds it
# too.  The PID is the handler's %P (the twin's here), which the store's
# name and the journal entry carry; the core's own is another.
one_entry() { # FILE: the one crash of PID ours in FILE (list --json) is the store's
        python3 - "$1" "$STORED" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1])]
assert len(r) == 1, r
d = r[0]
assert d["store"] == "pkgnote" and d["core"] == "file" and d["coreFile"] == sys.argv[2], d
assert d["executable"].endswith("/crasher") and d["package"]["name"] == "crasher", d
assert d.get("cgroup", "").startswith("/") and d.get("timestamp") == "1700000000000000", d
assert "unit" not in d or d["unit"] != "evil.service", d
PY
}
"$PKGNOTE" list -d "$STATE" --json "$ours" > one.json 2> one.err
one_entry one.json && pass "pkgnote-coredump with a journal: one crash, one entry" ||
        fail "pkgnote-coredump with a journal: one crash, one entry" "$(cat one.json one.err)"
# The store and the journal hold this one crash so far: a header and a line.
"$PKGNOTE" list -d "$STATE" > list-all.txt 2>&1
[ "$(wc -l < list-all.txt)" = 2 ] && grep -E " 0 +SEGV +present +pkgnote +$T/crasher +crasher/4.2-1\$" list-all.txt > /dev/null &&
        pass "pkgnote-coredump with a journal: one crash, one entry (text, unfiltered)" ||
        fail "pkgnote-coredump with a journal: one crash, one entry (text, unfiltered)" "$(cat list-all.txt)"
"$PKGNOTE" list -d "$STATE" --json COREDUMP_PID="$ours" > one-field.json 2>&1
one_entry one-field.json && pass "pkgnote-coredump with a journal: a journal field's match finds the one entry" ||
        fail "pkgnote-coredump with a journal: a journal field's match finds the one entry" "$(cat one-field.json)"
"$PKGNOTE" core -d "$STATE" --no-stack "$ours" > core-pid.txt 2> core-pid.err
status=$?
[ $status -eq 0 ] && grep -qxF "          Core: $STORED" core-pid.txt && grep -qxF "         Store: pkgnote" core-pid.txt &&
        ! grep -q gone core-pid.txt && grep -qxF "       Package: crasher/4.2-1" core-pid.txt &&
        grep -q "^Module $T/crasher from deb crasher-4.2-1 (amd64)" core-pid.txt &&
        pass "core PID opens the store's core when the journal also names it" ||
        fail "core PID opens the store's core when the journal also names it" "status $status: $(cat core-pid.txt core-pid.err)"

# The real systemd-coredump on the same core: the same package object, and
# every field pkgnote-coredump writes is one it writes too.
sdns_feed segv.core 11 1700000100 ./crasher wait
theirs=$SDNS_PID
field "$ours" COREDUMP_PACKAGE_JSON > ours.json
field "$theirs" COREDUMP_PACKAGE_JSON > theirs.json
python3 -c '
import json, sys
a, b = json.load(open("ours.json")), json.load(open("theirs.json"))
k = "crasher"  # systemd-coredump names the executable by its base name
assert a[k]["name"] == "crasher" and a == b, (a, b)' && pass "COREDUMP_PACKAGE_JSON equals systemd-coredump's" ||
        fail "COREDUMP_PACKAGE_JSON equals systemd-coredump's" "$(cat ours.json theirs.json)"
journalctl -D "$SDNS_JOURNAL" --all -o json "$MID" > all.json
python3 - "$ours" "$theirs" <<'PY' && pass "every COREDUMP_ field is one systemd-coredump writes" || fail "every COREDUMP_ field is one systemd-coredump writes"
import json, sys
e = {x["COREDUMP_PID"]: x for x in map(json.loads, open("all.json"))}
ours, theirs = e[sys.argv[1]], e[sys.argv[2]]
extra = {k for k in ours if k.startswith("COREDUMP_")} - {k for k in theirs if k.startswith("COREDUMP_")}
assert not extra, extra
for k in ("COREDUMP_PACKAGE_NAME", "COREDUMP_PACKAGE_VERSION", "COREDUMP_EXE", "COREDUMP_COMM", "COREDUMP_SIGNAL"):
    assert ours[k] == theirs[k], (k, ours[k], theirs[k])
PY

# The crash signature of systemd-coredump's entry, from the stack text of
# its MESSAGE (pkgnote list opens no core), is the one pkgnote core gives
# from the unwound stack of the same core.
field "$theirs" MESSAGE > theirs-message.txt
if ! grep -q "^Stack trace of thread" theirs-message.txt; then
        skip "systemd-coredump's MESSAGE gives the signature of the unwound stack" "its MESSAGE holds no stack trace"
elif ! has_feature stack; then
        skip "systemd-coredump's MESSAGE gives the signature of the unwound stack" "built without elfutils libdw"
else
        "$PKGNOTE" list -D "$SDNS_JOURNAL" --json "$theirs" > sig-list.json 2> sig-list.err
        "$PKGNOTE" core --json segv.core > sig-core.json 2> sig-core.err
        python3 - "$theirs" > sig.check 2>&1 <<'PY'
import json, sys
rows = [json.loads(l) for l in open("sig-list.json")]
rows = [r for r in rows if r.get("pid") == int(sys.argv[1])]
core = json.load(open("sig-core.json"))
assert len(rows) == 1, rows
assert rows[0].get("signatureSource") == "message", rows[0]
assert core.get("signature") and rows[0].get("signature") == core["signature"], (rows[0].get("signature"), core.get("signature"))
assert rows[0].get("signatureHash") == core["signatureHash"]
assert rows[0]["signature"].startswith("crasher: main"), rows[0]["signature"]
PY
        [ $? -eq 0 ] && pass "systemd-coredump's MESSAGE gives the signature of the unwound stack" ||
                fail "systemd-coredump's MESSAGE gives the signature of the unwound stack" "$(cat sig.check sig-list.err theirs-message.txt)"
fi

# pkgnote-coredump with a stack trace (stack = yes) writes the crashing
# thread's stack into MESSAGE as systemd-coredump does: once its stored
# core and report are gone, the journal still gives the signature.
if has_feature stack; then
        echo "stack = yes" > stack.conf
        ./crasher wait > /dev/null 2>&1 &
        SPID=$!
        sleep 0.2
        "$HANDLER" -c "$T/stack.conf" -d "$T/state-stack" -l "$T/log" "$SPID" 0 0 11 1700000200 18446744073709551615 testhost crasher < segv.core
        kill -KILL "$SPID" 2> /dev/null
        wait "$SPID" 2> /dev/null
        sdns_wait_entry "$SPID"
        field "$SPID" MESSAGE > our-message.txt
        rm -rf "$T/state-stack"
        "$PKGNOTE" list -D "$SDNS_JOURNAL" --json "$SPID" > our-list.json 2> our-list.err
        python3 - "$SPID" > our-sig.check 2>&1 <<'PY'
import json, sys
rows = [r for r in map(json.loads, open("our-list.json")) if r.get("pid") == int(sys.argv[1])]
core = json.load(open("sig-core.json"))
assert len(rows) == 1, rows
assert rows[0].get("signatureSource") == "message" and rows[0].get("signature") == core["signature"], (rows[0], core.get("signature"))
PY
        [ $? -eq 0 ] && grep -q "^Stack trace of thread " our-message.txt &&
                pass "pkgnote-coredump's MESSAGE holds the stack, which gives the signature once the core is gone" ||
                fail "pkgnote-coredump's MESSAGE holds the stack, which gives the signature once the core is gone" \
                        "$(cat our-sig.check our-list.err our-message.txt)"
fi

# A spoofed entry (any user may log the crash MESSAGE_ID, under the
# handler's name and identifier, naming the store's file with its PID and
# time) neither hides nor changes the store's entry: it is refused as
# before, and the one entry stays the store's.
setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 - "$ours" "$STORED" <<'PY' || fatal "cannot log the spoofed entry"
import ctypes, socket, sys
ctypes.CDLL(None).prctl(15, b"pkgnote-coredump", 0, 0, 0)  # PR_SET_NAME
f = {"MESSAGE_ID": "fc2e22bc6ee647b6b90729ab34a250b1", "MESSAGE": "spoof", "COREDUMP_PID": sys.argv[1],
     "COREDUMP_UID": "0", "COREDUMP_SIGNAL": "11", "COREDUMP_TIMESTAMP": "1700000000000000",
     "COREDUMP_FILENAME": sys.argv[2], "COREDUMP_EXE": "/usr/bin/evil", "COREDUMP_UNIT": "evil.service",
     "SYSLOG_IDENTIFIER": "pkgnote-coredump"}
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.sendto("".join("%s=%s\n" % kv for kv in f.items()).encode(), "/run/systemd/journal/socket")
PY
_i=0
until journalctl -D "$SDNS_JOURNAL" -q -o cat "$MID" COREDUMP_EXE=/usr/bin/evil 2> /dev/null | grep -q .; do
        _i=$((_i + 1))
        [ $_i -gt 100 ] && fatal "the spoofed entry never reached the journal"
        sleep 0.1
done
"$PKGNOTE" list -d "$STATE" --json "$ours" > spoof.json 2> spoof.err
one_entry spoof.json && grep -q "1 entry has the crash MESSAGE_ID not logged by systemd-coredump or pkgnote-coredump" spoof.err &&
        pass "a spoofed entry naming the store's core neither hides nor changes its entry" ||
        fail "a spoofed entry naming the store's core neither hides nor changes its entry" "$(cat spoof.json spoof.err)"

# A hostile command name (a newline, an escape, a byte that is not
# UTF-8), as the kernel may hand it: the entry holds it byte for byte.
./crasher wait > /dev/null 2>&1 &
PID=$!
sleep 0.2
"$HANDLER" -d "$STATE" -l "$T/log" "$PID" 0 0 11 1700000150 18446744073709551615 testhost "$(printf 'a\nb\033[31m\377')" < segv.core
kill -KILL "$PID" 2> /dev/null
wait "$PID" 2> /dev/null
sdns_wait_entry "$PID"
journalctl -D "$SDNS_JOURNAL" --all -o export "$MID" COREDUMP_PID="$PID" > export.txt
python3 - <<'PY' && pass "a hostile command name is logged byte for byte" || fail "a hostile command name is logged byte for byte"
import struct
data = open("export.txt", "rb").read()
key = b"COREDUMP_COMM\n"
i = data.index(key) + len(key)
n = struct.unpack("<Q", data[i:i + 8])[0]
assert data[i + 8:i + 8 + n] == b"a\nb\033[31m\377", data[i:i + 8 + n]
PY

# Too big for one datagram: four 100 KB arguments (one may hold at most
# 128 KiB) go in a sealed memfd.
big=$(python3 -c 'print("x" * 100000)')
handle segv.core 1700000200 "$big" "$big" "$big" "$big"
sdns_wait_entry "$PID"
[ "$(field "$PID" COREDUMP_CMDLINE | wc -c)" -gt 400000 ] && pass "a message over a datagram's size arrives whole (memfd)" ||
        fail "a message over a datagram's size arrives whole (memfd)"

# A journal that reads nothing: its queue full, the handler does not wait
# and still stores the crash.
JPID=$(for p in $SDNS_PIDS; do [ "$(cat /proc/$p/comm 2> /dev/null)" = systemd-journal ] && echo "$p"; done)
[ -n "$JPID" ] || fatal "no journald among $SDNS_PIDS"
kill -STOP "$JPID"
python3 - <<'PY'
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.setblocking(False)
try:
    for i in range(10000):
        s.sendto(b"MESSAGE=filler\n", "/run/systemd/journal/socket")
except BlockingIOError:
    pass
PY
start=$(date +%s)
handle segv.core 1700000300
end=$(date +%s)
kill -CONT "$JPID"
[ "$HANDLER_STATUS" -eq 0 ] && [ $((end - start)) -lt 5 ] && [ -s "$STATE/core.crasher.0.$PID.1700000300$Z" ] &&
        pass "a journal that does not read: no wait, the crash stored" ||
        fail "a journal that does not read: no wait, the crash stored" "status $HANDLER_STATUS, $((end - start)) s"
grep -q "process $PID (crasher): cannot log the crash to the journal: Resource temporarily unavailable" "$T/log" &&
        pass "the lost entry is said in the handler's log" || fail "the lost entry is said in the handler's log" "$(cat "$T/log")"

# No journal: the socket gone, nothing else changes.
sdns_stop
rm -f /run/systemd/journal/socket
: > "$T/log"
handle segv.core 1700000400
[ "$HANDLER_STATUS" -eq 0 ] && [ "$(wc -l < "$T/log")" -eq 1 ] && grep -q "package crasher/4.2-1" "$T/log" &&
        [ -s "$STATE/core.crasher.0.$PID.1700000400$Z" ] && pass "without a journal: one log line, the crash stored" ||
        fail "without a journal: one log line, the crash stored" "$(cat "$T/log")"
finish
