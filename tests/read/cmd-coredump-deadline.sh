#!/bin/sh
# pkgnote-coredump's socket mode, its own bounds: a worker whose dump
# stalls half-way, or whose report never ends (a debuginfod server that
# never answers), is ended at its deadline (PKGNOTE_COREDUMP_TEST_DEADLINE
# shortens it from 600 s) and leaves nothing half-written in the store;
# SIGTERM while a worker is busy (no more connections taken, the worker
# finishes, then the server exits 0; one that does not finish is ended
# after a grace); a worker's own SIGTERM; a peer that exits, and whose PID is
# taken by another process, before or while it is identified.  The
# kernel's side is played by kern.py over the socket, which the handler
# serves though no process is dumping core (PKGNOTE_COREDUMP_TEST_PEER);
# kernel.core_pattern is never touched.
. "$SRCDIR/tests/lib.sh"
HANDLER="$BUILDDIR/pkgnote-coredump"
[ -x "$HANDLER" ] || fatal "no $HANDLER"
. "$SRCDIR/tests/read/crasher.sh"
SRV= STALL= REUSED= KERN= HOLDER=
trap 'kill $WAITER $SRV $STALL $REUSED $KERN $HOLDER 2>/dev/null' EXIT
export PKGNOTE_COREDUMP_TEST_PEER=1

# The kernel's side of "@@PATH": the request, the ack read, the marker,
# then the dump (whole; half and stalled; half, then the rest once the
# file GO exists), and the wait until the server closes.  Lines
# "SECONDS EVENT", seconds from the connect.
cat > kern.py <<'P'
import os, resource, socket, struct, sys, time
path, core, mode = sys.argv[1:4]
resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
data = open(core, "rb").read()
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
t0 = time.monotonic()
def say(what):
    print("%.2f %s" % (time.monotonic() - t0, what), flush=True)
say("connected")
s.settimeout(200)
try:
    s.sendall(struct.pack("=IIQ", 16, 16, 0xF))
    ack = b""
    while len(ack) < 16:
        b = s.recv(16 - len(ack))
        if not b:
            break
        ack += b
    if len(ack) < 16:
        say("closed before the ack")
        sys.exit(0)
    say("ack %#x" % struct.unpack("=IIQ", ack)[2])
    s.sendall(struct.pack("=I", 0))
    if mode == "whole":
        s.sendall(data)
    else:
        s.sendall(data[: len(data) // 2])
        say("half sent")
        if mode.startswith("go:"):
            while not os.path.exists(mode[3:]):
                time.sleep(0.05)
            s.sendall(data[len(data) // 2 :])
            say("rest sent")
    if mode != "stall":
        s.shutdown(socket.SHUT_WR)
    while s.recv(65536):
        pass
except OSError as e:
    say("error %s" % e.strerror)
say("closed")
P
# Seconds of EVENT in kern.py's output FILE (empty when not there).
at() { sed -n "s/^\([0-9.]*\) $2\$/\1/p" "$1" | head -1; }
# Waits up to 60 s for the socket PATH.
wait_socket() {
        wait_for 60 test -S "$1"
}
# The workers of server PID (its children of its name).
workers_of() {
        for c in $(cat /proc/$1/task/$1/children 2> /dev/null); do
                [ "$(cat /proc/$c/comm 2> /dev/null)" = pkgnote-coredum ] && echo $c
        done
}
# What a store holds but its quota ledger: "name name ...".
store_files() { ls -A "$1" 2>/dev/null | grep -v '^\.quota' | tr '\n' ' '; }

# ------------------------------------------------ a dump that stalls half-way
# A deadline of 12 s, then a second connection, served whole: with a
# quota of 1 core, which the crash ended at its deadline gave back.
rm -f "$T/dl.log"
PKGNOTE_COREDUMP_TEST_DEADLINE=12 "$HANDLER" -d "$T/dl" -l "$T/dl.log" --socket="$T/dl.socket" --connections 2 --quota-count 1 &
SRV=$!
wait_socket "$T/dl.socket"
python3 kern.py "$T/dl.socket" segv.core stall > stall.out 2>&1
end=$(at stall.out closed)
half=$(at stall.out "half sent")
# Ended at 12 s, not by the 30 s a single read may wait.
if [ -n "$half" ] && [ -n "$end" ] && python3 -c 'import sys; sys.exit(not 11 <= float(sys.argv[1]) < 28)' "$end"; then
        pass "a dump stalled half-way: the worker ended at its deadline (${end} s)"
else
        fail "a dump stalled half-way: the worker ended at its deadline" "$(cat stall.out)"
fi
wait_for 10 grep -qs "ended at its deadline" "$T/dl.log"
grep -q "coredump socket: the worker for process [0-9]* was ended at its deadline of 12 s; what it had not stored whole is removed" \
        "$T/dl.log" && pass "the deadline logged, with the crash's process" || fail "the deadline logged, with the crash's process" "$(cat "$T/dl.log")"
left=$(store_files "$T/dl")
[ -z "$left" ] && pass "a dump stalled half-way: nothing left in the store" \
        || fail "a dump stalled half-way: nothing left in the store" "$left"
python3 kern.py "$T/dl.socket" segv.core whole > next.out 2>&1
wait $SRV
st=$?
SRV=
[ $st = 0 ] && grep -q "ack 0x9" next.out && grep -q "closed" next.out \
        && [ "$(ls "$T/dl" | grep -c '^core\..*\.json$')" = 1 ] && [ "$(ls "$T/dl" | grep -c '^core\..*\.zst$\|^core\..*[0-9]$')" = 1 ] \
        && pass "the next connection served: its crash stored (the quota's place given back), the server exits 0" \
        || fail "the next connection served: its crash stored (the quota's place given back), the server exits 0" "status $st; $(cat next.out); $(ls -A "$T/dl")"

# ------------------------------------------------ a ledger locked by another handler
# One that hangs holding the quota's lock (its file system stopped
# answering) must not keep a worker past its deadline: the worker waits
# for the lock at most 5 s (its deadline of 3 s held off meanwhile), then
# the deadline ends it (it would have kept the core, unquota'd).
mkdir -p "$T/lk"
flock -o "$T/lk/.quota.lock" sleep 40 & # -o: the lock is flock's, gone with it
HOLDER=$!
wait_for 10 test -e "$T/lk/.quota.lock"
sleep 0.3
PKGNOTE_COREDUMP_TEST_DEADLINE=3 "$HANDLER" -d "$T/lk" -l "$T/lk.log" --socket="$T/lk.socket" --connections 1 --quota-count 5 &
SRV=$!
wait_socket "$T/lk.socket"
python3 kern.py "$T/lk.socket" segv.core stall > lk.out 2>&1
# (closed before its ack, or after the dump's half)
end=$(sed -n 's/^\([0-9.]*\) closed.*/\1/p' lk.out | head -n 1)
wait $SRV
SRV=
pkill -P $HOLDER 2> /dev/null # its sleep, which holds the test's output
kill $HOLDER 2> /dev/null
wait $HOLDER 2> /dev/null
# (it waited for the lock: ended after 4.5 s, before its ack)
if [ -n "$end" ] && python3 -c 'import sys; sys.exit(not 4.5 <= float(sys.argv[1]) < 25)' "$end" && grep -q "closed before the ack" lk.out \
        && grep -q "ended at its deadline of 3 s" "$T/lk.log"; then
        pass "a ledger locked by a hung handler: the worker still ended by its deadline (${end} s), logged"
else
        fail "a ledger locked by a hung handler: the worker still ended by its deadline" "$(cat lk.out "$T/lk.log")"
fi

# ------------------------------------------------ a report that never ends
# The crash's note names a debuginfod server that accepts and never
# answers, and the configuration allows it: the core is stored, then its
# report waits for the download until the deadline (15 s) ends the
# worker.  A core without its report is no entry: none may be left.
if has_feature stack; then
        cat > stall.py <<'P'
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
print(s.getsockname()[1], flush=True)
held = []
while True:
    c, _ = s.accept()
    held.append(c)
    open(sys.argv[1], "a").write("asked\n")
P
        python3 stall.py "$T/asked" > port &
        STALL=$!
        wait_for 10 test -s port
        URL="http://127.0.0.1:$(cat port)"
        cc -o dicrasher crash.c -Xlinker "--package-metadata={\"type\":\"rpm\",\"name\":\"dicrasher\",\"version\":\"1.0-1\",\"debugInfoUrl\":\"$URL\"}" \
                || fatal "cannot build"
        rm -f core
        sh -c "ulimit -c unlimited; exec ./dicrasher" 2> /dev/null
        [ -f core ] || fatal "the kernel wrote no core"
        mv core di.core
        printf 'stack = yes\ndebuginfod-allow = %s\ndebuginfod-cache = %s\ndebuginfod-timeout = 300\ndebuginfod-budget = 300\n' \
                "$URL" "$T/di-cache" > di.conf
        t0=$(date +%s)
        PKGNOTE_COREDUMP_TEST_DEADLINE=15 "$HANDLER" -d "$T/di" -l "$T/di.log" -c di.conf --socket="$T/di.socket" --connections 1 &
        SRV=$!
        wait_socket "$T/di.socket"
        # The dump is taken whole (the connection closed once it is read),
        # then the report waits.
        python3 kern.py "$T/di.socket" di.core whole > di.out 2>&1
        wait $SRV
        st=$?
        SRV=
        end=$(($(date +%s) - t0))
        if [ $st = 0 ] && grep -q "ack 0x9" di.out && [ -s "$T/asked" ] && grep -q "ended at its deadline of 15 s" "$T/di.log" \
                && [ $end -ge 14 ] && [ $end -lt 100 ]; then
                pass "a report waiting for debuginfod: the worker ended at its deadline (server done after ${end} s), logged"
        else
                fail "a report waiting for debuginfod: the worker ended at its deadline, logged" \
                        "status $st, asked: $(cat "$T/asked" 2>/dev/null); $(cat di.out "$T/di.log")"
        fi
        left=$(store_files "$T/di")
        [ -z "$left" ] && pass "a report waiting for debuginfod: no core without its report left" \
                || fail "a report waiting for debuginfod: no core without its report left" "$left"
        # The same wait, stopped: SIGTERM to the worker's unwinder alone
        # (the child that downloads) leaves the entry whole, its report
        # without the stack; SIGTERM to the next crash's worker removes
        # its core, its report not written.
        "$HANDLER" -d "$T/dit" -l "$T/dit.log" -c di.conf --socket="$T/dit.socket" --connections 2 &
        SRV=$!
        wait_socket "$T/dit.socket"
        orphan=
        for step in unwinder worker; do
                rm -f "$T/asked"
                python3 kern.py "$T/dit.socket" di.core whole > "dit-$step.out" 2>&1
                wait_for 60 test -s "$T/asked"
                worker=$(workers_of $SRV)
                if [ $step = unwinder ]; then
                        victims=$(cat /proc/$worker/task/$worker/children 2> /dev/null)
                        want="; core "
                else
                        victims=$worker
                        orphan=$(cat /proc/$worker/task/$worker/children 2> /dev/null)
                        want="was stopped (SIGTERM)"
                fi
                [ -n "$victims" ] && kill -TERM $victims
                wait_for 30 grep -qs "$want" "$T/dit.log"
                [ $step = unwinder ] && whole=$(store_files "$T/dit")
        done
        # The stopped worker's unwinder (still downloading) ends with it.
        # (a zombie no one reaped yet has ended too)
        gone() { [ -z "$(sed -n 's/^[0-9]* (.*) \([^ZX]\) .*/\1/p' /proc/$1/stat 2> /dev/null)" ]; }
        if [ -n "$orphan" ] && wait_for 5 gone $orphan; then
                pass "a report waiting for debuginfod: the stopped worker's unwinder ends with it"
        else
                fail "a report waiting for debuginfod: the stopped worker's unwinder ends with it" "unwinder '${orphan}' $(ps -o pid,stat,comm -p ${orphan:-0} 2> /dev/null | tail -n +2)"
        fi
        wait $SRV
        SRV=
        set -- $whole
        if [ $# = 2 ] && [ -f "$T/dit/$1" ] && [ -f "$T/dit/$2" ] && [ "$(store_files "$T/dit")" = "$whole" ] \
                && grep -q "was stopped (SIGTERM); what it had not stored whole is removed" "$T/dit.log"; then
                pass "a report waiting for debuginfod: the unwinder's SIGTERM leaves the entry whole; the worker's, no core without its report"
        else
                fail "a report waiting for debuginfod: the unwinder's SIGTERM leaves the entry whole; the worker's, no core without its report" \
                        "after the unwinder's: $whole; at the end: $(store_files "$T/dit"); $(cat "$T/dit.log")"
        fi
        kill $STALL 2> /dev/null
        wait $STALL 2> /dev/null
        STALL=
else
        skip "a report waiting for debuginfod: the worker ended at its deadline" "pkgnote was built without stack"
        skip "a report waiting for debuginfod: no core without its report left" "pkgnote was built without stack"
        skip "a report waiting for debuginfod: the unwinder's SIGTERM leaves the entry whole; the worker's, no core without its report" \
                "pkgnote was built without stack"
        skip "a report waiting for debuginfod: the stopped worker's unwinder ends with it" "pkgnote was built without stack"
fi

# ------------------------------------------------ SIGTERM while a worker is busy
rm -f go
"$HANDLER" -d "$T/term" -l "$T/term.log" --socket="$T/term.socket" &
SRV=$!
wait_socket "$T/term.socket"
python3 kern.py "$T/term.socket" segv.core go:go > term.out 2>&1 &
KERN=$!
wait_for 60 grep -q "half sent" term.out
kill -TERM $SRV
sleep 2
if kill -0 $SRV 2> /dev/null; then alive=yes; else alive=no; fi
# A crash after the SIGTERM: refused at once, never left waiting.
python3 - "$T/term.socket" > refused.out 2>&1 <<'P'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1])
    print("connected")
except ConnectionRefusedError:
    print("refused")
P
if kill -0 $SRV 2> /dev/null; then alive2=yes; else alive2=no; fi
touch go
wait $KERN
wait $SRV
st=$?
SRV=
[ "$alive" = yes ] && [ "$alive2" = yes ] && pass "SIGTERM: the server stays while its worker is busy" \
        || fail "SIGTERM: the server stays while its worker is busy" "alive 2 s after: $alive, then: $alive2"
[ "$(cat refused.out)" = refused ] && pass "SIGTERM: a connection after it is refused at once" \
        || fail "SIGTERM: a connection after it is refused at once" "$(cat refused.out)"
# The worker stored the crash (logged by it), then the server exited 0.
python3 - "$T/term" segv.core > whole.out 2>&1 <<'P'
import json, os, subprocess, sys
d, core = sys.argv[1:3]
reports = [n for n in os.listdir(d) if n.startswith("core.") and n.endswith(".json")]
cores = [n for n in os.listdir(d) if n.startswith("core.") and not n.endswith(".json")]
assert len(reports) == 1 and len(cores) == 1, os.listdir(d)
r = json.load(open(os.path.join(d, reports[0])))
assert "error" not in r, r.get("error")
t = json.dumps(r)
assert '"crasher"' in t and '"4.2-1"' in t, "the report does not name crasher 4.2-1"
data = open(os.path.join(d, cores[0]), "rb").read()
if cores[0].endswith(".zst"):
    data = subprocess.run(["zstd", "-dc"], input=data, stdout=subprocess.PIPE, check=True).stdout
assert data == open(core, "rb").read(), "the stored core differs: %d bytes" % len(data)
print("ok")
P
[ $st = 0 ] && grep -q "rest sent" term.out && grep -q "ack 0x9" term.out && [ "$(cat whole.out)" = ok ] \
        && grep -q "package crasher/4.2-1; core $T/term/core\." "$T/term.log" \
        && pass "SIGTERM: the busy worker's crash stored whole, then the server exits 0" \
        || fail "SIGTERM: the busy worker's crash stored whole, then the server exits 0" "status $st; $(cat term.out whole.out "$T/term.log")"

# ------------------------------------------------ stopped while a dump stalls
# stall_on SOCKET OUT: kern.py's dump stalled half-way (KERN), in the
# background, once the half is sent.
stall_on() {
        python3 kern.py "$1" segv.core stall > "$2" 2>&1 &
        KERN=$!
        wait_for 60 grep -q "half sent" "$2"
}
# SIGTERM with a worker whose dump never ends: the server waits half the
# deadline (here 30 s, so 15; 30 s in service), then ends the worker,
# which removes what it had not stored whole, and exits 0: before its
# deadline, and before a service manager's stop timeout would SIGKILL.
PKGNOTE_COREDUMP_TEST_DEADLINE=30 "$HANDLER" -d "$T/grace" -l "$T/grace.log" --socket="$T/grace.socket" &
SRV=$!
wait_socket "$T/grace.socket"
stall_on "$T/grace.socket" grace.out
t0=$(date +%s)
kill -TERM $SRV
wait $SRV
st=$?
SRV=
took=$(($(date +%s) - t0))
wait $KERN
if [ $st = 0 ] && [ $took -ge 14 ] && [ $took -lt 29 ] && grep -q "closed" grace.out \
        && grep -q "coredump socket: stopped: 1 worker still busy after 15 s, ended" "$T/grace.log" \
        && grep -q "coredump socket: the worker for process [0-9]* was stopped (SIGTERM); what it had not stored whole is removed" "$T/grace.log"; then
        pass "SIGTERM, a dump stalled: the worker ended after the grace (${took} s), logged, the server exits 0"
else
        fail "SIGTERM, a dump stalled: the worker ended after the grace, logged, the server exits 0" \
                "status $st after ${took} s; $(cat grace.out "$T/grace.log")"
fi
left=$(store_files "$T/grace")
[ -z "$left" ] && pass "SIGTERM, a dump stalled: nothing left in the store" \
        || fail "SIGTERM, a dump stalled: nothing left in the store" "$left"

# ------------------------------------------------ a worker stopped on its own
# A service manager's stop signals every process of the service, the
# workers too (KillMode=control-group; the unit shipped uses "mixed"): a
# worker's SIGTERM removes what it had not stored whole, the server logs
# it and serves the next crash (under a quota of 1 core: the place is
# given back).
"$HANDLER" -d "$T/wterm" -l "$T/wterm.log" --socket="$T/wterm.socket" --connections 2 --quota-count 1 &
SRV=$!
wait_socket "$T/wterm.socket"
stall_on "$T/wterm.socket" wterm.out
worker=$(workers_of $SRV)
[ -n "$worker" ] && kill -TERM "$worker"
wait $KERN
wait_for 10 grep -qs "was stopped (SIGTERM)" "$T/wterm.log"
left=$(store_files "$T/wterm")
if [ -n "$worker" ] && grep -q "closed" wterm.out && [ -z "$left" ] \
        && grep -q "coredump socket: the worker for process [0-9]* was stopped (SIGTERM); what it had not stored whole is removed" "$T/wterm.log"; then
        pass "a worker's own SIGTERM: nothing left in the store, logged"
else
        fail "a worker's own SIGTERM: nothing left in the store, logged" "worker ${worker:-not found}; left: $left; $(cat wterm.out "$T/wterm.log")"
fi
python3 kern.py "$T/wterm.socket" segv.core whole > wterm2.out 2>&1
wait $SRV
st=$?
SRV=
[ $st = 0 ] && grep -q "ack 0x9" wterm2.out && [ "$(ls "$T/wterm" | grep -c '^core\..*\.json$')" = 1 ] \
        && pass "a worker's own SIGTERM: the next crash stored (the quota's place given back)" \
        || fail "a worker's own SIGTERM: the next crash stored (the quota's place given back)" "status $st; $(cat wterm2.out); $(ls -A "$T/wterm")"

# ------------------------------------------------ a server killed, its worker alive
# The path's lock is the server's alone: killed (SIGKILL, the OOM killer)
# while a worker still serves a crash, a new server starts on its path at
# once, not when that worker ends.
PKGNOTE_COREDUMP_TEST_DEADLINE=30 "$HANDLER" -d "$T/ko" -l "$T/ko.log" --socket="$T/ko.socket" &
SRV=$!
wait_socket "$T/ko.socket"
stall_on "$T/ko.socket" ko.out
worker=$(workers_of $SRV)
kill -KILL $SRV
wait $SRV 2> /dev/null
"$HANDLER" -d "$T/ko2" -l "$T/ko2.log" --socket="$T/ko.socket" --connections 1 > /dev/null 2> ko2.err &
SRV=$!
sleep 1
if [ -n "$worker" ] && kill -0 $worker 2> /dev/null && kill -0 $SRV 2> /dev/null && [ ! -s ko2.err ]; then
        pass "a server killed while its worker serves: a new one starts on its path"
else
        fail "a server killed while its worker serves: a new one starts on its path" "worker '${worker}'; $(cat ko2.err)"
fi
[ -n "$worker" ] && kill $worker 2> /dev/null
kill $SRV $KERN 2> /dev/null
wait $SRV $KERN 2> /dev/null
SRV= KERN=

# ------------------------------------------------ a stop during the report's commit
# The report's directory fsync made slow (strace injects a delay into
# every fsync from the third on): a SIGTERM to the worker once the report
# is renamed into place lands while the commit holds it off; the entry is
# whole then, and its quota place is kept, not given back.
if ! command -v strace > /dev/null; then
        missing "a stop during the report's commit: the entry whole, its quota place kept" strace
elif ! strace -f -qq -o /dev/null -e trace=fsync -e inject=fsync:delay_enter=1000:when=1+ true 2> /dev/null; then
        skip "a stop during the report's commit: the entry whole, its quota place kept" "strace cannot inject delays here"
else
        strace -f -qq -o /dev/null -e trace=fsync -e inject=fsync:delay_enter=4000000:when=3+ \
                "$HANDLER" -d "$T/cm" -l "$T/cm.log" --socket="$T/cm.socket" --connections 1 --quota-count 5 &
        SRV=$!
        wait_socket "$T/cm.socket"
        python3 kern.py "$T/cm.socket" segv.core whole > cm.out 2>&1
        has_report() { ls "$1" 2> /dev/null | grep -q '^core\..*\.json$'; }
        wait_for 30 has_report "$T/cm"
        srvp=$(workers_of $SRV) # SRV is strace: the server is its child
        worker=$(for s in $srvp; do workers_of $s; done)
        [ -n "$worker" ] && kill -TERM $worker
        wait $SRV
        SRV=
        left=$(store_files "$T/cm")
        set -- $left
        if [ -n "$worker" ] && [ $# = 2 ] && ! grep -q ' -1 ' "$T/cm/.quota" && grep -q ' 1 0 ' "$T/cm/.quota"; then
                pass "a stop during the report's commit: the entry whole, its quota place kept"
        else
                fail "a stop during the report's commit: the entry whole, its quota place kept" \
                        "worker '$worker' (server '$srvp'); store: $left; ledger: $(cat "$T/cm/.quota" 2> /dev/null); $(cat cm.out "$T/cm.log")"
        fi
fi

# ------------------------------------------------ a peer that exits, its PID reused
# reuse PID PROGRAM...: runs PROGRAM as the process PID (clone3's set_tid,
# root's), printing it; "error ..." when the kernel refuses.
cat > reuse.c <<'C'
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <unistd.h>
int main(int argc, char **argv) {
        if (argc < 3)
                return 2;
        pid_t want = (pid_t)atoi(argv[1]);
        uint64_t a[11] = {0}; /* struct clone_args, CLONE_ARGS_SIZE_VER1 */
        a[4] = SIGCHLD;       /* exit_signal */
        a[8] = (uint64_t)(uintptr_t)&want;
        a[9] = 1;
        long p = syscall(SYS_clone3, a, sizeof a);
        if (p < 0) {
                printf("error %s\n", strerror(errno));
                return 1;
        }
        if (p == 0) {
                /* Not the caller's pipe: it reads to its end. */
                int null = open("/dev/null", O_WRONLY);
                if (null >= 0)
                        dup2(null, STDOUT_FILENO);
                execv(argv[2], argv + 2);
                _exit(127);
        }
        printf("%ld\n", p);
        return 0;
}
C
cc -o reuse reuse.c || fatal "cannot build reuse"
# exiting.py PATH CORE WAIT: process A connects, forks B (which plays the
# kernel's side with the connection), sleeps WAIT s and exits; the script
# reaps A and runs the crasher as A's PID.  Prints "pid A", "reused C".
cat > exiting.py <<'P'
import os, resource, socket, struct, subprocess, sys, time
path, core, wait = sys.argv[1], sys.argv[2], float(sys.argv[3])
resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
r, w = os.pipe()
a = os.fork()
if a == 0:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    if os.fork() == 0:
        os.close(r)
        os.write(w, b"x")
        os.close(w)
        data = open(core, "rb").read()
        out = open("b.out", "w", buffering=1)
        s.settimeout(200)
        try:
            s.sendall(struct.pack("=IIQ", 16, 16, 0xF))
            ack = s.recv(16)
            out.write("ack %#x\n" % struct.unpack("=IIQ", ack)[2] if len(ack) == 16 else "closed before the ack\n")
            if len(ack) == 16:
                s.sendall(struct.pack("=I", 0))
                s.sendall(data)
                s.shutdown(socket.SHUT_WR)
                while s.recv(65536):
                    pass
        except OSError as e:
            out.write("error %s\n" % e.strerror)
        out.write("closed\n")
        os._exit(0)
    time.sleep(wait)
    os._exit(0)
os.close(w)
os.read(r, 1)
os.waitpid(a, 0)
print("pid", a, flush=True)
out = subprocess.run(["./reuse", str(a), "./crasher", "wait"], stdout=subprocess.PIPE, text=True).stdout.strip()
print("reused", out, flush=True)
P

# Exited and reaped before the handler looks (the server is stopped
# meanwhile), its PID another process's: refused.  By the PID alone the
# handler would take the crasher for the crashing process.
rm -f b.out
"$HANDLER" -d "$T/gone" -l "$T/gone.log" --socket="$T/gone.socket" --connections 1 &
SRV=$!
wait_socket "$T/gone.socket"
kill -STOP $SRV
python3 exiting.py "$T/gone.socket" segv.core 0 > gone.out 2>&1
A=$(sed -n 's/^pid //p' gone.out)
REUSED=$(sed -n 's/^reused \([0-9]*\)$/\1/p' gone.out)
kill -CONT $SRV
wait $SRV
SRV=
wait_for 30 grep -qs closed b.out
if [ -z "$REUSED" ]; then
        skip "a peer reaped before the check, its PID reused: refused" "cannot run a process as PID $A: $(cat gone.out)"
else
        [ "$(readlink /proc/$REUSED/exe)" = "$(readlink -f crasher)" ] \
                && grep -q "refused a connection to the coredump socket: its process has exited and been reaped" "$T/gone.log" \
                && grep -q "^closed" b.out && ! grep -q "^ack" b.out && [ -z "$(store_files "$T/gone")" ] \
                && pass "a peer reaped before the check, its PID $A now the crasher's: refused, nothing stored" \
                || fail "a peer reaped before the check, its PID reused: refused, nothing stored" \
                        "$(cat gone.out b.out "$T/gone.log"; ls -A "$T/gone")"
        kill $REUSED 2> /dev/null
fi
REUSED=

# Alive at the check, exited, reaped and its PID reused while it is
# identified (made to take 10 s): the pidfd tells, though the PID is alive
# again; what /proc told is dropped, and the crash is stored under "?".
rm -f b.out
PKGNOTE_COREDUMP_TEST_IDENTIFY_HANG=1 "$HANDLER" -d "$T/left" -l "$T/left.log" --socket="$T/left.socket" --connections 1 &
SRV=$!
wait_socket "$T/left.socket"
python3 exiting.py "$T/left.socket" segv.core 5 > left.out 2>&1
A=$(sed -n 's/^pid //p' left.out)
REUSED=$(sed -n 's/^reused \([0-9]*\)$/\1/p' left.out)
wait $SRV
st=$?
SRV=
wait_for 30 grep -qs closed b.out
if [ -z "$REUSED" ]; then
        skip "a peer exiting while identified, its PID reused: told by the pidfd" "cannot run a process as PID $A: $(cat left.out)"
else
        [ $st = 0 ] && [ "$(readlink /proc/$REUSED/exe)" = "$(readlink -f crasher)" ] \
                && grep -q "process $A ([^)]*) exited while it was identified; what /proc told is dropped" "$T/left.log" \
                && grep -q "ack 0x9" b.out && ls "$T/left" | grep -q "^core\.[^.]*\.0\.$A\.[0-9]*\.json$" \
                && pass "a peer exiting while identified, its PID $A now the crasher's: told by the pidfd, stored without /proc's names" \
                || fail "a peer exiting while identified, its PID reused: told by the pidfd" \
                        "status $st; $(cat left.out b.out "$T/left.log"; ls -A "$T/left")"
        kill $REUSED 2> /dev/null
fi
REUSED=
finish
