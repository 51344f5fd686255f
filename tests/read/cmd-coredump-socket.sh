#!/bin/sh
# pkgnote-coredump's quota and socket mode on this machine, without the
# kernel's help (kernel.core_pattern is never touched here; tests/vm runs
# the kernel's side): the pipe mode under a quota of 3 fed one program's
# core 8 times (3 cores stored, 5 metadata-only entries naming its
# package), a client that is not the kernel refused by the listening
# socket, systemd's socket activation, and --register against a fixture
# core_pattern file.
. "$SRCDIR/tests/lib.sh"
HANDLER="$BUILDDIR/pkgnote-coredump"
[ -x "$HANDLER" ] || fatal "no $HANDLER"
# The pipe handler looks at /proc/PID while the kernel holds the
# process: a live crasher stands in for it.
. "$SRCDIR/tests/read/crasher.sh"
trap 'kill $WAITER 2>/dev/null' EXIT
STATE="$T/state"
i=0
while [ $i -lt 8 ]; do
        "$HANDLER" -d "$STATE" -l "$T/log" --quota-count 3 --quota-interval 3600 $WAITER 0 0 11 $((1700000000 + i)) \
                18446744073709551615 testhost crasher < segv.core || fail "handler run $i exits 0"
        i=$((i + 1))
done
cores=$(ls "$STATE" | grep -c '^core\..*\.json$')
rejected=$(ls "$STATE/rejected" 2>/dev/null | grep -c '\.json$')
[ "$cores" = 3 ] && pass "pipe mode, quota 3: 3 entries stored" || fail "pipe mode, quota 3: 3 entries stored" "stored $cores"
[ "$rejected" = 5 ] && pass "pipe mode, quota 3: 5 metadata-only entries" \
        || fail "pipe mode, quota 3: 5 metadata-only entries" "$rejected"
python3 - "$STATE/rejected" > out 2>&1 <<'P'
import json, os, sys
d = sys.argv[1]
for n in sorted(os.listdir(d)):
    r = json.load(open(os.path.join(d, n)))
    assert r["coreStored"] == 0, r
    assert r["programPackage"] == "crasher/4.2-1", r["programPackage"]
    assert r["program"].endswith("/crasher"), r["program"]
    assert r["reason"].startswith("over quota: 3 cores"), r["reason"]
print("ok")
P
[ "$(cat out)" = ok ] && pass "metadata-only entries name the program, its package and the quota" \
        || fail "metadata-only entries name the program, its package and the quota" "$(cat out)"
grep -q "package crasher/4.2-1; core dropped: over quota" "$T/log" && pass "over-quota crash logged with its package" \
        || fail "over-quota crash logged with its package" "$(tail -2 "$T/log")"
# Without a quota every crash is stored.
"$HANDLER" -d "$T/free" -l "$T/log" --quota-count 0 --quota-bytes 0 $WAITER 0 0 11 1700000100 \
        18446744073709551615 testhost crasher < segv.core
"$HANDLER" -d "$T/free" -l "$T/log" --quota-count 0 --quota-bytes 0 $WAITER 0 0 11 1700000101 \
        18446744073709551615 testhost crasher < segv.core
[ "$(ls "$T/free" | grep -c '^core\..*\.json$')" = 2 ] && [ ! -e "$T/free/rejected" ] \
        && pass "no quota: every crash stored" || fail "no quota: every crash stored" "$(ls -a "$T/free")"

# An identification that never ends (a mapped file on a file system that
# never answers, played by PKGNOTE_COREDUMP_TEST_IDENTIFY_HANG) is given up
# after 10 s: the crash is counted by its command name and stored.
t0=$(date +%s)
PKGNOTE_COREDUMP_TEST_IDENTIFY_HANG=1 timeout 60 "$HANDLER" -d "$T/hang" -l "$T/hang.log" $WAITER 0 0 11 1700000200 \
        18446744073709551615 testhost crasher < segv.core
st=$?
t1=$(date +%s)
[ $st = 0 ] && [ $((t1 - t0)) -lt 30 ] && pass "identification bounded: the handler ends ($((t1 - t0)) s)" \
        || fail "identification bounded: the handler ends" "status $st after $((t1 - t0)) s"
grep -q "identifying it took longer than 10 s; counted as comm:crasher" "$T/hang.log" \
        && [ "$(ls "$T/hang" | grep -c '^core\..*\.json$')" = 1 ] \
        && pass "identification bounded: counted as comm:crasher, the core stored" \
        || fail "identification bounded: counted as comm:crasher, the core stored" "$(cat "$T/hang.log"; ls "$T/hang")"

# A client that is not the kernel: refused, nothing stored.
SOCK="$T/cd.socket"
"$HANDLER" -d "$T/sock-state" -l "$T/sock-log" --socket="$SOCK" --connections 1 &
SRV=$!
wait_for 5 test -S "$SOCK"
[ "$(stat -c %a "$SOCK")" = 600 ] && pass "socket made 0600" || fail "socket made 0600" "$(stat -c %a "$SOCK")"
python3 - "$SOCK" > out 2>&1 <<'P'
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.settimeout(10)
# The server may have refused and closed before the request is sent.
try:
    s.sendall(struct.pack("=IIQ", 16, 16, 0xf))
    got = s.recv(16)
except OSError as e:
    got = b""
print("answered" if got else "closed")
P
wait $SRV
[ "$(cat out)" = closed ] && pass "a client that is not the kernel gets no answer" \
        || fail "a client that is not the kernel gets no answer" "$(cat out)"
grep -q "refused a connection to the coredump socket: " "$T/sock-log" \
        && pass "a client that is not the kernel refused, with the reason logged" \
        || fail "a client that is not the kernel refused, with the reason logged" "$(cat "$T/sock-log" 2>/dev/null)"
[ -z "$(ls "$T/sock-state" 2>/dev/null | grep -v '^\.quota')" ] && pass "the refused client stored nothing" \
        || fail "the refused client stored nothing" "$(ls -a "$T/sock-state")"

# systemd's socket activation: the socket passed as fd 3.
if command -v systemd-socket-activate > /dev/null 2>&1; then
        rm -f "$T/sock-log"
        systemd-socket-activate -l "$T/act.socket" "$HANDLER" -d "$T/sock-state" -l "$T/sock-log" --socket "$T/act.socket" --connections 1 \
                > /dev/null 2>&1 &
        ACT=$!
        wait_for 5 test -S "$T/act.socket"
        python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(10); print(s.recv(16))' \
                "$T/act.socket" > /dev/null 2>&1
        wait $ACT
        grep -q "refused a connection" "$T/sock-log" && pass "socket activation: the passed socket is served" \
                || fail "socket activation: the passed socket is served" "$(cat "$T/sock-log" 2>/dev/null)"
else
        missing "socket activation: the passed socket is served" systemd-socket-activate
fi
# A passed socket bound elsewhere than PATH would never see a crash.
if command -v systemd-socket-activate > /dev/null 2>&1; then
systemd-socket-activate -l "$T/other.socket" "$HANDLER" -d "$T/x" -l "$T/x.log" --socket "$T/act.socket" > /dev/null 2> err &
ACT=$!
wait_for 5 test -S "$T/other.socket"
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])' "$T/other.socket" > /dev/null 2>&1
wait $ACT
st=$?
[ $st -eq 2 ] && grep -q "is not this one" err && pass "socket activation: a socket bound elsewhere than PATH is an error" \
        || fail "socket activation: a socket bound elsewhere than PATH is an error" "status $st: $(cat err)"
fi
"$HANDLER" --socket relative/path -d "$T/x" -l "$T/x.log" > /dev/null 2> err
[ $? -eq 2 ] && grep -q "relative/path: cannot listen: not an absolute path" err && pass "--socket with a relative path: an error" \
        || fail "--socket with a relative path: an error" "$(cat err)"
# What is at the path and is not a socket stays; a live server keeps its
# socket.
echo kept > "$T/plain"
timeout 20 "$HANDLER" --socket "$T/plain" -d "$T/x" -l "$T/x.log" > /dev/null 2> err
st=$?
[ $st -eq 2 ] && grep -q "plain: cannot listen: it (or its name with .new) is there and is not a socket; not replaced" err \
        && [ "$(cat "$T/plain")" = kept ] && pass "--socket naming a regular file: an error, the file kept" \
        || fail "--socket naming a regular file: an error, the file kept" "status $st; $(cat err); $(ls -l "$T/plain")"
"$HANDLER" --socket "$T/live.socket" -d "$T/live" -l "$T/live.log" --connections 1 &
LIVE=$!
wait_for 10 test -S "$T/live.socket"
timeout 20 "$HANDLER" --socket "$T/live.socket" -d "$T/x" -l "$T/x.log" > /dev/null 2> err
st=$?
# Asked without a connection: the live server (--connections 1) still
# waits for its one, its log untouched.
sleep 0.3
kill -0 $LIVE 2> /dev/null && alive=yes || alive=no
kill $LIVE 2> /dev/null
wait $LIVE 2> /dev/null
[ $st -eq 2 ] && grep -q "live.socket: cannot listen: a server is listening on it already" err \
        && [ $alive = yes ] && ! grep -q "refused" "$T/live.log" 2> /dev/null \
        && pass "--socket where a server listens: an error, its socket kept, the server not disturbed" \
        || fail "--socket where a server listens: an error, its socket kept, the server not disturbed" \
                "status $st, server alive: $alive; $(cat err "$T/live.log" 2> /dev/null)"

# --register against a fixture file: what the kernel supports decides
# (PKGNOTE_COREDUMP_KERNEL_LEVEL stands in for its answer), and the
# pattern written is read back.
echo '|/usr/lib/systemd/systemd-coredump %P' > pattern
for lvl in 2 1 0; do
        out=$(PKGNOTE_COREDUMP_KERNEL_LEVEL=$lvl "$HANDLER" --register --sysctl pattern --socket=/run/pkgnote/coredump.socket)
        case $lvl in
        2) want=@@/run/pkgnote/coredump.socket ;;
        1) want=@/run/pkgnote/coredump.socket ;;
        0) want="|$(readlink -f "$HANDLER") %P %u %g %s %t %c %h %e" ;;
        esac
        [ "$out" = "$want" ] && [ "$(cat pattern)" = "$want" ] && pass "--register, kernel level $lvl: $want" \
                || fail "--register, kernel level $lvl: $want" "printed '$out', file '$(cat pattern)'"
done
"$HANDLER" --register --sysctl "$T/none/core_pattern" 2> err
[ $? -eq 2 ] && grep -q "cannot register" err && pass "--register: a missing sysctl file is an error" \
        || fail "--register: a missing sysctl file is an error" "$(cat err)"
finish
