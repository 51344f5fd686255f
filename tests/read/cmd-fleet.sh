#!/bin/sh
# A fleet of three machines and a collector, all real: each machine
# (tests/read/fleet-machine.sh) has its own mount, UTS and network
# namespace, its own machine ID (bound over /etc/machine-id) and hostname,
# its own journald and systemd-coredump (tests/read/systemd-ns.sh), and
# reaches the collector over a veth pair of its own (10.44.I.2 <->
# 10.44.I.1; iproute2's ip; no loopback is shared).  The collector, this
# script in a private mount and network namespace, runs
# systemd-journal-remote on 10.44.0.1:19532 writing one journal file per
# machine; each machine sends its journal with systemd-journal-upload once
# its crashes are logged.
#   fleet-a  systemd-coredump, Storage=external, the cores removed afterwards
#   fleet-b  systemd-coredump, Storage=journal, a debug directory where the
#            symbols of the stripped build are found
#   fleet-c  pkgnote-coredump with stack = yes (its MESSAGE holds the stack)
# The crashes are real kernel cores of a test program with two bugs (a NULL
# write in store_record, abort() after a failed check in check_limits),
# built as fleetprog 1.0-1 and 1.1-1 (the NULL write fixed) with a package
# note from pkgnote generate, and the 1.0 build stripped; and of Debian's
# /bin/sleep killed with SIGSEGV.  Besides: a spoofed crash entry from a
# user and one from root under another command name, and a hostile entry
# (stack text with control characters and absurd frames, a field over the
# size limit).  On the collector's directory: coredumpctl -D and pkgnote
# list -D list the same crashes, the machine column, the spoofed entries
# left out, pkgnote list --group's exact groups (its JSON as
# pkgnote-list(1) gives it); a journal file cut short is a problem, never a crash.
# Networking is a veth pair per machine, never a shared loopback: where no
# network namespace with a veth pair can be made, the test skips.  All
# machines share the host's kernel, so its boot ID: every group has one
# boot.  A check given a known bug prints a TAP TODO line and does not
# fail the test; once such a check passes, it fails the test, to be made
# an ordinary check (none is now).
SDNS_UNSHARE=-n
if [ -z "${PKGNOTE_SDNS_INSIDE:-}" ]; then
        # Probe what the fleet needs before entering its namespaces.
        [ "$(id -u)" = 0 ] || { echo "1..0 # SKIP network namespaces need root"; exit 77; }
        command -v ip > /dev/null 2>&1 || {
                [ "${PKGNOTE_STRICT:-0}" = 1 ] && { echo "not ok - required tool missing: ip (iproute2)"; exit 1; }
                echo "1..0 # SKIP ip (iproute2) is not installed"; exit 77
        }
        unshare -n sh -c 'ip link set lo up && ip link add fleet0 type veth peer name fleet1' > /dev/null 2>&1 || {
                echo "1..0 # SKIP no network namespace with a veth pair here (unshare -n; ip link add ... type veth)"; exit 77
        }
        # Mount points a machine binds its own files over.
        for _f in /etc/machine-id /usr/lib/debug; do
                [ -e "$_f" ] || { echo "1..0 # SKIP no $_f here for a machine to bind its own over"; exit 77; }
        done
fi
. "$SRCDIR/tests/read/systemd-ns.sh"
require python3 gcc strip objcopy readelf setpriv
JREMOTE=/lib/systemd/systemd-journal-remote
JUPLOAD=/lib/systemd/systemd-journal-upload
for _t in "$JREMOTE" "$JUPLOAD"; do
        [ -x "$_t" ] || _sdns_need "$_t"
done
[ "$(uname -m)" = x86_64 ] || { echo "1..0 # SKIP x86-64 only (the test program's notes)"; exit 77; }
require_feature stack
MID=MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1
FLEET="$T/fleet"
BIN="$FLEET/bin"
mkdir -p "$FLEET" "$BIN" || fatal "cannot make $FLEET"

# The program: two bugs, the first fixed in 1.1.
cat > fleetprog.c <<'C'
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
__attribute__((noinline)) void store_record(int *slot, int value) {
#ifdef FIXED
        if (!slot)
                return;
#endif
        *(volatile int *)slot = value;
}
__attribute__((noinline)) void check_limits(int n) {
        if (n > 10) {
                fprintf(stderr, "fleetprog " VERSION ": %d records over the limit\n", n);
                abort();
        }
}
int main(int argc, char **argv) {
        if (argc > 1 && !strcmp(argv[1], "wait"))
                pause();
        else if (argc > 1 && !strcmp(argv[1], "store"))
                store_record(NULL, argc);
        else if (argc > 1 && !strcmp(argv[1], "limits"))
                check_limits(argc + 20);
        return 0;
}
C
build() { # VERSION OUTPUT CFLAGS...: fleetprog VERSION with its package note
        _v=$1 _o=$2
        shift 2
        "$PKGNOTE" generate --no-os-release --type deb --os debian --name fleetprog --version "$_v" --architecture amd64 \
                -F object -o "note-$_v.o" || fatal "pkgnote generate $_v"
        gcc -O1 -g -fno-optimize-sibling-calls -DVERSION="\"$_v\"" "$@" -o "$_o" fleetprog.c "note-$_v.o" ||
                fatal "cannot build $_o"
}
build 1.0-1 "$BIN/fleetprog-1.0"
build 1.1-1 "$BIN/fleetprog-1.1" -DFIXED
cp "$BIN/fleetprog-1.0" "$BIN/fleetprog-1.0-stripped" && strip --strip-all "$BIN/fleetprog-1.0-stripped" ||
        fatal "cannot strip"
bid() { readelf -n "$1" | sed -n 's/^ *Build ID: //p' | head -n 1; }
BID10=$(bid "$BIN/fleetprog-1.0")
[ -n "$BID10" ] && [ "$(bid "$BIN/fleetprog-1.0-stripped")" = "$BID10" ] && [ "$(bid "$BIN/fleetprog-1.1")" != "$BID10" ] ||
        fatal "build-ids: 1.0 $BID10, stripped $(bid "$BIN/fleetprog-1.0-stripped"), 1.1 $(bid "$BIN/fleetprog-1.1")"
"$PKGNOTE" show "$BIN/fleetprog-1.0-stripped" 2>&1 | grep -q 1.0-1 || fatal "the stripped build lost its package note"
# The symbols of the stripped build, where machine fleet-b's unwinder
# (systemd-coredump's elfutils) looks for them: its /usr/lib/debug/.build-id.
# The other machines get an empty /usr/lib/debug: every machine unwinds
# the C library with the symbols it exports alone, as where no debug
# package is installed (with libc's debug symbols on some machines only,
# the same crash gets other frame names there, and another group).
DEBUG="$FLEET/debug"
mkdir -p "$DEBUG/.build-id/$(echo "$BID10" | cut -c1-2)"
objcopy --only-keep-debug "$BIN/fleetprog-1.0" "$DEBUG/.build-id/$(echo "$BID10" | cut -c1-2)/$(echo "$BID10" | cut -c3-).debug" ||
        fatal "cannot keep the debug symbols"

# crash NAME CMD...: the kernel's core of CMD (run in this namespace, in
# the directory NAME, killed with SIGSEGV after 0.3 s unless it crashed
# by itself) as $FLEET/NAME.core.
crash() {
        _n=$1
        shift
        mkdir -p "$T/cores/$_n"
        (
                cd "$T/cores/$_n" || exit 1
                ulimit -c unlimited
                exec "$@"
        ) > /dev/null 2>&1 &
        _p=$!
        _i=0
        while kill -0 "$_p" 2> /dev/null && [ $_i -lt 3 ]; do
                sleep 0.1
                _i=$((_i + 1))
        done
        kill -SEGV "$_p" 2> /dev/null
        wait "$_p" 2> /dev/null
        _c=$(ls "$T/cores/$_n"/core* 2> /dev/null | head -n 1)
        [ -n "$_c" ] || fatal "the kernel wrote no core for $*"
        mv "$_c" "$FLEET/$_n.core"
}
crash store-1.0 "$BIN/fleetprog-1.0" store
crash limits-1.0 "$BIN/fleetprog-1.0" limits
crash limits-1.1 "$BIN/fleetprog-1.1" limits
crash store-1.0-stripped "$BIN/fleetprog-1.0-stripped" store
crash sleep /bin/sleep 100
"$BIN/fleetprog-1.1" store || fatal "1.1 still crashes in store_record"

# The collector: its own address on its loopback, systemd-journal-remote
# writing one file per machine into COLLECT.
COLLECT="$T/collect"
mkdir -p "$COLLECT"
ip link set lo up && ip addr add 10.44.0.1/32 dev lo || fatal "cannot set up the collector's address"
"$JREMOTE" --listen-http=10.44.0.1:19532 --output="$COLLECT/" > "$T/remote.log" 2>&1 &
REMOTE=$!
SDNS_PIDS="$SDNS_PIDS $REMOTE"
_i=0
until grep -q ' 01002C0A:4C4C 00000000:0000 0A' /proc/net/tcp 2> /dev/null; do # 10.44.0.1:19532, listening
        _i=$((_i + 1))
        [ $_i -gt 100 ] && fatal "systemd-journal-remote does not listen: $(cat "$T/remote.log")"
        sleep 0.1
done

# send.py COMM [-] FIELD=VALUE...: one entry to journald's native socket
# from a process named COMM; with -, the MESSAGE and COREDUMP_* fields of
# the journal entry on standard input (journalctl -o json) come first (the
# inline core and its file name left out), then FIELD=VALUE replaces or
# adds; a VALUE @FILE is FILE's bytes.  Values go in the binary-safe form
# (NAME, newline, 64-bit little-endian size, bytes, newline); an entry too
# big for a datagram goes as a sealed memfd, as journald's clients do.
cat > "$FLEET/send.py" <<'PY'
import ctypes, fcntl, json, os, socket, struct, sys
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)  # PR_SET_NAME
args = sys.argv[2:]
fields = {}
if args and args[0] == "-":
    args = args[1:]
    entry = json.loads(sys.stdin.readline())
    for k, v in entry.items():
        if (k == "MESSAGE" or k.startswith("COREDUMP_")) and k != "COREDUMP_FILENAME" and isinstance(v, str):
            fields[k] = v.encode()
for arg in args:
    name, value = arg.split("=", 1)
    fields[name] = open(value[1:], "rb").read() if value.startswith("@") else os.fsencode(value)
data = b"".join(k.encode() + b"\n" + struct.pack("<Q", len(v)) + v + b"\n" for k, v in fields.items())
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
where = "/run/systemd/journal/socket"
if len(data) < 100000:
    s.sendto(data, where)
else:
    fd = os.memfd_create("entry", os.MFD_ALLOW_SEALING)
    os.write(fd, data)
    fcntl.fcntl(fd, 1033, 1 | 2 | 4 | 8)  # F_ADD_SEALS: seal, shrink, grow, write
    s.sendmsg([], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", fd))], 0, where)
# Alive until journald wrote the entry: it reads the sender's _COMM from
# /proc when it takes the entry, and a sender gone by then has none (an
# entry of root's without _COMM passes for a handler's: the handler may be
# gone as well).  Another user's entry is no crash either way, and cannot
# read the journal to wait.
import subprocess, time
pid = fields.get("COREDUMP_PID", b"").decode()
for _ in range(400 if os.getuid() == 0 else 0):
    out = subprocess.run(["journalctl", "-D", "/run/log/journal", "-q", "-o", "cat", "COREDUMP_PID=" + pid],
                         capture_output=True).stdout
    if out:
        break
    time.sleep(0.025)
PY

# The hostile entry's values: stack text with terminal escapes, absurd
# frame numbers and addresses, 700 frames and a 10 000-byte line (the
# MESSAGE stays below the 64 KiB a field may hold); a command line of
# 1 MiB (over it); a package JSON nested 10 000 deep.
python3 - "$FLEET" <<'PY' || fatal "cannot write the hostile values"
import sys
d = sys.argv[1]
m = ["Process 3900003 (hostile) of user 0 dumped core.", "",
     "Module /usr/bin/pkgnote-hostile with build-id 00112233445566778899aabbccddeeff00112233",
     "Module /usr/bin/pkgnote-hostile from deb evil-6.6-6.amd64", "",
     "Stack trace of thread 3900003:",
     "#0  0x0000000000401000 \x1b]0;pwned\x07\x1b[2Jcls (pkgnote-hostile + 0x1000)",
     "#1  0x00000000deadbeef n/a (n/a + 0xffffffffffffffffffffffffffffffff)",
     "#18446744073709551616 0x1 main (pkgnote-hostile + 0x1)",
     "#2  0x1 ((((((((((((( (pkgnote-hostile + 0x2)",
     "#3  " + "A" * 10000]
m += ["#%d  0x%016x f%d (libhostile%d.so + 0x10)" % (i, i, i, i) for i in range(4, 704)]
m += ["ELF object binary architecture: AMD x86-64"]
open(d + "/hostile-message", "w").write("\n".join(m) + "\n")
open(d + "/hostile-cmdline", "w").write("x" * (1 << 20))
open(d + "/hostile-package", "w").write("[" * 10000 + "]" * 10000)
PY

# The plans: the machines run side by side, each crash handed its time
# (the kernel's %t: B, two hours ago, plus seconds), so that the crashes'
# order is known whatever order the journals hold them in: fleetprog 1.1-1
# is first seen at B+600, after the last crash of the bug it fixed.
B=$(($(date +%s) - 7200))
# Each plan runs in its machine (tests/read/fleet-machine.sh), with B, BIN
# and MID from here.
export FLEET B BIN MID
cat > "$FLEET/plan-a.sh" <<'EOF2'
sd_crash "$FLEET/store-1.0.core" 11 $((B + 100)) "$BIN/fleetprog-1.0" wait
first=$SDNS_PID
sd_crash "$FLEET/limits-1.0.core" 6 $((B + 200)) "$BIN/fleetprog-1.0" wait
sd_crash "$FLEET/sleep.core" 11 $((B + 300)) /bin/sleep 100
sd_crash "$FLEET/store-1.0-stripped.core" 11 $((B + 350)) "$BIN/fleetprog-1.0-stripped" wait
# A user's copy of the first crash's entry (its stack, package, executable).
journalctl -D "$SDNS_JOURNAL" --all -o json "$MID" COREDUMP_PID="$first" > "$T/first.json"
log_entry spoof nobody fleet-spoof 3900001 - COREDUMP_TIMESTAMP=$((B + 360))000000 < "$T/first.json"
EOF2
cat > "$FLEET/plan-b.sh" <<'EOF2'
sd_crash "$FLEET/store-1.0.core" 11 $((B + 400)) "$BIN/fleetprog-1.0" wait
sd_crash "$FLEET/store-1.0-stripped.core" 11 $((B + 500)) "$BIN/fleetprog-1.0-stripped" wait
message "$SDNS_PID" | grep -q " store_record (fleetprog-1.0-stripped + " ||
        fatal "systemd-coredump found no symbols for the stripped build: $(message "$SDNS_PID")"
sd_crash "$FLEET/limits-1.1.core" 6 $((B + 600)) "$BIN/fleetprog-1.1" wait
# Root's copy of the stripped build's crash under another command name,
# after 1.1-1 came: it would say the bug 1.1-1 fixed is still seen.
journalctl -D "$SDNS_JOURNAL" --all -o json "$MID" COREDUMP_EXE="$BIN/fleetprog-1.0-stripped" > "$T/stripped.json"
log_entry spoof root fleet-spoof 3900002 - COREDUMP_TIMESTAMP=$((B + 650))000000 SYSLOG_IDENTIFIER=systemd-coredump \
        < "$T/stripped.json"
EOF2
cat > "$FLEET/plan-c.sh" <<'EOF2'
pn_crash "$FLEET/limits-1.1.core" 6 $((B + 700)) fleetprog-1.1 "$BIN/fleetprog-1.1" wait
pn_crash "$FLEET/limits-1.1.core" 6 $((B + 800)) fleetprog-1.1 "$BIN/fleetprog-1.1" wait
message "$_pid" | grep -q "^Stack trace of thread " || fatal "pkgnote-coredump's MESSAGE has no stack: $(message "$_pid")"
pn_crash "$FLEET/sleep.core" 11 $((B + 900)) sleep /bin/sleep 100
# Hostile values, logged by root as systemd-coredump (a crash handler's
# name): an entry that counts as a crash.
log_entry hostile root systemd-coredump 3900003 COREDUMP_UID=0 COREDUMP_GID=0 COREDUMP_SIGNAL=11 \
        COREDUMP_TIMESTAMP=$((B + 950))000000 COREDUMP_EXE=/usr/bin/pkgnote-hostile \
        "COREDUMP_COMM=$(printf 'host\033[31mile')" COREDUMP_HOSTNAME=fleet-c MESSAGE=@"$FLEET/hostile-message" \
        COREDUMP_CMDLINE=@"$FLEET/hostile-cmdline" COREDUMP_PACKAGE_JSON=@"$FLEET/hostile-package"
EOF2

# start_machine NAME INDEX CONF VACUUM DEBUG: machine NAME (fleet-NAME)
# runs plan-NAME.sh in its namespaces, wired to the collector by veth pair
# INDEX; coredump.conf lines CONF (';' between them), its cores removed
# afterwards when VACUUM is 1, DEBUG its /usr/lib/debug.  Sets PID_NAME.
start_machine() {
        _n=$1 _x=$2
        _id=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
        echo "$_id" > "$FLEET/$_n.id"
        FLEET_NAME=$_n FLEET_INDEX=$_x FLEET_HOST=fleet-$_n FLEET_ID=$_id FLEET_UPLOAD=$JUPLOAD \
                FLEET_CONF=$3 FLEET_VACUUM=$4 FLEET_DEBUG=$5 FLEET_PLAN="$FLEET/plan-$_n.sh" \
                unshare -m -u -n --propagation private sh "$SRCDIR/tests/read/fleet-machine.sh" > "$FLEET/$_n.log" 2>&1 &
        _mp=$!
        eval "PID_$_n=\$_mp"
        _i=0
        until [ -e "$FLEET/$_n.inside" ]; do
                _i=$((_i + 1))
                { [ $_i -gt 100 ] || ! kill -0 "$_mp" 2> /dev/null; } && fatal "machine $_n did not start: $(cat "$FLEET/$_n.log")"
                sleep 0.1
        done
        ip link add "fleet$_x" type veth peer name eth0 netns "$_mp" && ip addr add "10.44.$_x.1/24" dev "fleet$_x" &&
                ip link set "fleet$_x" up || fatal "cannot wire machine $_n"
        : > "$FLEET/$_n.wired"
}
mkdir -p "$FLEET/no-debug"
start_machine a 1 'Storage=external' 1 "$FLEET/no-debug"
start_machine b 2 'Storage=journal' 0 "$DEBUG"
start_machine c 3 '' 0 "$FLEET/no-debug"
# The machines crash side by side; once each has logged its entries they
# upload together (60 s).
_i=0
until [ -e "$FLEET/a.logged" ] && [ -e "$FLEET/b.logged" ] && [ -e "$FLEET/c.logged" ]; do
        _i=$((_i + 1))
        for m in a b c; do
                eval "_mp=\$PID_$m"
                kill -0 "$_mp" 2> /dev/null || [ -e "$FLEET/$m.logged" ] || { wait "$_mp"; fatal "machine $m failed: $(cat "$FLEET/$m.log")"; }
        done
        [ $_i -gt 600 ] && fatal "the machines did not log their crashes in time: $(cat "$FLEET"/?.log)"
        sleep 0.1
done
: > "$FLEET/upload"
for m in a b c; do
        eval "_mp=\$PID_$m"
        wait "$_mp" || fatal "machine $m failed: $(cat "$FLEET/$m.log")"
done
# The collector has every entry of each machine (30 s).
for m in a b c; do
        _want=$(wc -l < "$FLEET/$m.entries")
        _i=0
        until [ "$(journalctl -D "$COLLECT" -q -o json "$MID" _MACHINE_ID="$(cat "$FLEET/$m.id")" 2> /dev/null | wc -l)" -eq "$_want" ]; do
                _i=$((_i + 1))
                [ $_i -gt 300 ] && fatal "the collector has not every entry of machine $m ($_want): $(cat "$T/remote.log")"
                sleep 0.1
        done
done
kill "$REMOTE" && wait "$REMOTE" || fatal "systemd-journal-remote did not stop cleanly: $(cat "$T/remote.log")"

# Checks written in Python print one line each: "P NAME", "F NAME|DETAIL",
# or for a known bug of another part "T NAME|BUG" when it still fails (a
# TAP TODO line: not counted as a failure) and "U NAME|BUG" when it passes,
# which fails the test: the bug is fixed, make it an ordinary check.
report() {
        while IFS= read -r _l; do
                case $_l in
                "P "*) pass "${_l#P }" ;;
                "F "*) _r=${_l#F }; fail "${_r%%|*}" "${_r#*|}" ;;
                "T "*) _r=${_l#T }; echo "not ok - ${_r%%|*} # TODO ${_r#*|}" ;;
                "U "*) _r=${_l#U }; fail "${_r%%|*}" "passes now: the known bug is fixed, make this an ordinary check (${_r#*|})" ;;
                *) fail "the checks' output" "$_l" ;;
                esac
        done
}

# Each machine's journal file on the collector holds its entries, under
# its machine ID and hostname as its journald stamped them.
for m in a:1 b:2 c:3; do
        n=${m%:*} x=${m#*:}
        f="$COLLECT/remote-10.44.$x.2.journal"
        if [ -f "$f" ]; then
                journalctl --file "$f" -q -o json --output-fields=_MACHINE_ID,_HOSTNAME "$MID" > "ids-$n.json" 2>&1
                want="$(cat "$FLEET/$n.id") fleet-$n $(wc -l < "$FLEET/$n.entries")"
                got=$(python3 -c 'import json,sys
e = [json.loads(l) for l in open(sys.argv[1])]
print(" ".join(sorted({x["_MACHINE_ID"] + " " + x["_HOSTNAME"] for x in e})), len(e))' "ids-$n.json")
                [ "$got" = "$want" ] && pass "fleet-$n's journal file on the collector: its machine ID, hostname, every entry" ||
                        fail "fleet-$n's journal file on the collector: its machine ID, hostname, every entry" "$got, expected $want"
        else
                fail "fleet-$n's journal file on the collector: its machine ID, hostname, every entry" "no $f: $(ls "$COLLECT")"
        fi
done

"$COREDUMPCTL" -D "$COLLECT" --no-pager --json=short list > cdc.json 2> cdc.err || fatal "coredumpctl -D: $(cat cdc.err)"
"$PKGNOTE" list -D "$COLLECT" --json > list.json 2> list.err
LIST_STATUS=$?
"$PKGNOTE" list -D "$COLLECT" > list.txt 2> list-text.err
TEXT_STATUS=$?
"$PKGNOTE" list -D "$COLLECT" --group --json > group.json 2> group.err
GROUP_STATUS=$?
"$PKGNOTE" list -D "$COLLECT" --group > group.txt 2> group-text.err
GROUP_TEXT_STATUS=$?
[ $LIST_STATUS -eq 0 ] && [ $TEXT_STATUS -eq 0 ] && [ $GROUP_STATUS -eq 0 ] && [ $GROUP_TEXT_STATUS -eq 0 ] &&
        pass "pkgnote list -D, --json, --group and --group --json on the collector exit 0" ||
        fail "pkgnote list -D, --json, --group and --group --json on the collector exit 0" \
                "$LIST_STATUS $TEXT_STATUS $GROUP_STATUS $GROUP_TEXT_STATUS: $(cat list.err group.err)"

python3 - "$FLEET" "$B" "$BID10" > checks.out 2>&1 <<'PY'
import json, re, sys
fleet, B, bid10 = sys.argv[1], int(sys.argv[2]), sys.argv[3]
out = []
def check(name, ok, detail="", bug=None):
    detail = repr(detail)[:3000]
    if bug:
        out.append(("U %s|%s" if ok else "T %s|%s") % (name, bug))
    else:
        out.append("P " + name if ok else "F %s|%s" % (name, detail))

# What each machine logged: KIND PID LABEL TIME.
machines = {}
entries = []
for n in "abc":
    machines[n] = {"id": open("%s/%s.id" % (fleet, n)).read().strip(), "host": "fleet-" + n}
    for line in open("%s/%s.entries" % (fleet, n)):
        kind, pid, label, t = line.split()
        entries.append({"machine": n, "kind": kind, "pid": int(pid), "label": label,
                        "time": int(t) if t != "-" else (B + 950 if kind == "hostile" else None)})
crashes = [e for e in entries if e["kind"] != "spoof"]
def hostile_problem(err):  # a problem about a MESSAGE or its stack text
    return any(re.search(r"\bMESSAGE\b(?!_)|stack", l) for l in err.splitlines())
spoofs = [e for e in entries if e["kind"] == "spoof"]
by_pid = {e["pid"]: e for e in entries}
assert len(crashes) == 11 and len(spoofs) == 2, entries

# coredumpctl lists every entry with the crash MESSAGE_ID, pkgnote list
# those a crash handler logged: the same crashes, in the same order, the
# spoofed entries left out.
cdc = json.load(open("cdc.json"))
rows = [json.loads(l) for l in open("list.json")]
lerr = open("list.err").read()
cdc_pids = [r["pid"] for r in cdc]
pids = [r["pid"] for r in rows]
check("coredumpctl -D lists every entry the machines logged, spoofed ones too",
      sorted(cdc_pids) == sorted(by_pid), (cdc_pids, sorted(by_pid)))
check("pkgnote list -D lists the crashes coredumpctl -D lists, without the spoofed entries",
      sorted(pids) == sorted(p for p in cdc_pids if by_pid.get(p, {}).get("kind") != "spoof") == sorted(e["pid"] for e in crashes),
      (pids, cdc_pids))
times = [r.get("time") for r in rows]
check("pkgnote list -D: newest last", times == sorted(times), times)
cdc_by = {r["pid"]: r for r in cdc}
same = [p for p in pids if p in cdc_by and cdc_by[p]["exe"] == next(r for r in rows if r["pid"] == p).get("executable")
        and cdc_by[p]["sig"] == next(r for r in rows if r["pid"] == p).get("signal")]
check("pkgnote list and coredumpctl agree on each crash's executable and signal", same == pids, (same, pids))
row = {r["pid"]: r for r in rows}
bad = [(e["pid"], row[e["pid"]].get("time"), e["time"]) for e in crashes if e["pid"] in row and row[e["pid"]].get("time") != e["time"]]
check("each crash's time is the one its handler was given", not bad, bad)
bad = [(e["pid"], row[e["pid"]].get("hostname"), row[e["pid"]].get("machineId")) for e in crashes if e["pid"] in row and
       (row[e["pid"]].get("hostname"), row[e["pid"]].get("machineId")) != (machines[e["machine"]]["host"], machines[e["machine"]]["id"])]
check("each crash names its machine's hostname and machine ID (--json)", not bad, bad)
want_core = {"a": ("gone", "missing"), "b": ("journal", "journal"), "c": ("gone", "missing")}
bad = [(e["pid"], e["machine"], row[e["pid"]].get("core"), cdc_by[e["pid"]]["corefile"]) for e in crashes
       if e["kind"] == "crash" and e["pid"] in row and e["pid"] in cdc_by
       and (row[e["pid"]].get("core"), cdc_by[e["pid"]]["corefile"]) != want_core[e["machine"]]]
check("cores: vacuumed on fleet-a, in the journal on fleet-b, in fleet-c's own store (gone here), as coredumpctl says", not bad, bad)
check("the spoofed entries are a problem, counted", "2 entries have the crash MESSAGE_ID not logged by systemd-coredump or pkgnote-coredump" in lerr, lerr)
check("a field over the limit (1 MiB) is a problem, the crash still listed",
      re.search(r"COREDUMP_CMDLINE is 1048576 bytes, over the limit of 65536", lerr) is not None and 3900003 in row, lerr)
check("hostile stack text in a crash's MESSAGE is a problem naming the entry, not a silent '?'",
      hostile_problem(lerr), lerr)
check("a problem ends in one ', ignoring'", ", ignoring, ignoring" not in lerr, lerr)

# The signatures: the same bug on two machines, rebuilt, and stripped with
# its symbols found, gives one signature; stripped without them, another.
def sig(label, machine):
    return [row[e["pid"]].get("signature") for e in crashes if e["label"] == label and e["machine"] == machine and e["pid"] in row]
s_a, s_b, s_bs = sig("store-1.0", "a"), sig("store-1.0", "b"), sig("store-1.0-stripped", "b")
check("the NULL write has the same signature on fleet-a and fleet-b, and the stripped build's with its symbols found",
      s_a == s_b == s_bs == ["fleetprog: store_record | main"], (s_a, s_b, s_bs))
s_as = sig("store-1.0-stripped", "a")
check("the stripped build without its symbols: build-id and offsets",
      len(s_as) == 1 and (s_as[0] or "").startswith("fleetprog: %s+0x" % bid10), s_as)
l10, l11 = sig("limits-1.0", "a"), sig("limits-1.1", "b") + sig("limits-1.1", "c")
check("the failed check has one signature in 1.0-1 and 1.1-1, by systemd-coredump and pkgnote-coredump",
      len(l10) == 1 and len(l11) == 3 and len(set(l10 + l11)) == 1 and (l10[0] or "").endswith("check_limits | main"), (l10, l11))
check("the failed check's signature skips the abort machinery to the program's frames",
      l10 == ["fleetprog: check_limits | main"], l10)

# The text listing has a machine column: each crash's row names its machine.
text = open("list.txt", encoding="utf-8", errors="replace").read().splitlines()
head = text[0] if text else ""
bad = [e["pid"] for e in crashes if not any(re.search(r"\b%d\b" % e["pid"], l) and
       (machines[e["machine"]]["host"] in l or machines[e["machine"]]["id"][:8] in l) for l in text[1:])]
check("pkgnote list -D has a machine column naming each crash's machine", ("MACHINE" in head or "HOST" in head) and not bad, (head, bad))
for name in ("list.txt", "group.txt"):
    raw = open(name, "rb").read()
    check("%s: no control character of the hostile entry reaches the terminal" % name,
          not re.search(rb"[\x00-\x08\x0b-\x1f\x7f]", raw), raw[:2000])

# The groups, exactly (list --group --json, pkgnote-list(1)).
try:
    g = json.load(open("group.json"))
except Exception as e:
    g = {"error": str(e)}
groups = g.get("groups", [])
def find(pred):
    m = [x for x in groups if pred(x)]
    return m[0] if len(m) == 1 else None
def machines_of(*spec):  # (machine, count, last)...
    return sorted([{"machineId": machines[m]["id"], "hostname": machines[m]["host"], "count": c, "last": B + t} for m, c, t in spec],
                  key=lambda x: x["hostname"])
def mine(x):
    return sorted(x.get("machines", []), key=lambda y: y.get("hostname", ""))
check("--group --json: 11 crashes in 5 groups on 3 machines, first and last",
      (g.get("groupBy"), g.get("crashes"), g.get("groupCount"), g.get("machineCount"), g.get("first"), g.get("last"), len(groups)) ==
      ("signature", 11, 5, 3, B + 100, B + 950, 5), {k: v for k, v in g.items() if k != "groups"})
check("groups sorted by count, then last, descending",
      [(x.get("count"), x.get("last")) for x in groups] == sorted([(x.get("count"), x.get("last")) for x in groups], reverse=True),
      [(x.get("key"), x.get("count"), x.get("last")) for x in groups])
store = find(lambda x: x.get("key") == "fleetprog: store_record | main")
check("the NULL write: one group of 3 on fleet-a and fleet-b (the stripped build with symbols in it, the spoofed copies not)",
      store is not None and (store["count"], store["first"], store["last"], store.get("package"), mine(store)) ==
      (3, B + 100, B + 500, "fleetprog", machines_of(("a", 1, 100), ("b", 2, 500))), store and {k: v for k, v in store.items() if k != "example"})
check("the NULL write: version 1.0-1 only, not seen since 1.1-1 (a spoofed later copy does not count)",
      store is not None and store.get("versions") == [{"version": "1.0-1", "count": 3, "first": B + 100, "last": B + 500}] and
      store.get("notSeenSince") == "1.1-1", store and (store.get("versions"), store.get("notSeenSince")))
stripped = find(lambda x: x.get("key", "").startswith("fleetprog: %s+0x" % bid10))
check("the stripped build without symbols: a group of its own on fleet-a, not seen since 1.1-1",
      stripped is not None and (stripped["count"], mine(stripped), stripped.get("package"), stripped.get("versions"), stripped.get("notSeenSince")) ==
      (1, machines_of(("a", 1, 350)), "fleetprog", [{"version": "1.0-1", "count": 1, "first": B + 350, "last": B + 350}], "1.1-1"),
      stripped and {k: v for k, v in stripped.items() if k != "example"})
limits = find(lambda x: x.get("key", "").endswith("check_limits | main"))
check("the failed check: one group of 4 over 1.0-1 and 1.1-1 on the three machines, still seen",
      limits is not None and (limits["count"], limits["first"], limits["last"], mine(limits), "notSeenSince" in limits) ==
      (4, B + 200, B + 800, machines_of(("a", 1, 200), ("b", 1, 600), ("c", 2, 800)), False),
      limits and {k: v for k, v in limits.items() if k != "example"})
check("the failed check's group: package fleetprog, versions 1.0-1 x1 and 1.1-1 x3",
      limits is not None and limits.get("package") == "fleetprog" and limits.get("versions") ==
      [{"version": "1.0-1", "count": 1, "first": B + 200, "last": B + 200}, {"version": "1.1-1", "count": 3, "first": B + 600, "last": B + 800}],
      limits and (limits.get("key"), limits.get("package"), limits.get("versions")))
sleep = find(lambda x: "nanosleep" in x.get("key", ""))
check("Debian's sleep killed by SIGSEGV: one group of 2, fleet-a (systemd-coredump) and fleet-c (pkgnote-coredump)",
      sleep is not None and (sleep["count"], mine(sleep), "notSeenSince" in sleep) == (2, machines_of(("a", 1, 300), ("c", 1, 900)), False),
      sleep and {k: v for k, v in sleep.items() if k != "example"})
hostile = find(lambda x: x.get("example", {}).get("pid") == 3900003)
check("the hostile entry: a group of its own on fleet-c, its key printable",
      hostile is not None and (hostile["count"], mine(hostile)) == (1, machines_of(("c", 1, 950))) and
      not re.search(r"[\x00-\x1f\x7f]", hostile.get("key", "")), hostile and {k: v for k, v in hostile.items() if k != "example"})
# Each group's example is one of its crashes; its days (UTC) count its
# crashes by version.
import datetime
def day(t):
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%d")
members = {"store": [("store-1.0", "a"), ("store-1.0", "b"), ("store-1.0-stripped", "b")],
           "stripped": [("store-1.0-stripped", "a")], "sleep": [("sleep", "a"), ("sleep", "c")],
           "limits": [("limits-1.0", "a"), ("limits-1.1", "b"), ("limits-1.1", "c")]}
named = {"store": store, "stripped": stripped, "sleep": sleep, "limits": limits}
bad = []
for k, spec in members.items():
    grp = named[k]
    es = [e for e in crashes if (e["label"], e["machine"]) in spec]
    if grp is None or grp.get("example", {}).get("pid") not in [e["pid"] for e in es]:
        bad.append((k, "example", grp and grp.get("example", {}).get("pid")))
    if k in ("store", "stripped"):  # one version each
        want = {}
        for e in es:
            want[day(e["time"])] = want.get(day(e["time"]), 0) + 1
        want = [{"day": d, "version": "1.0-1", "count": n} for d, n in sorted(want.items())]
        if grp is None or grp.get("days") != want:
            bad.append((k, "days", grp and grp.get("days"), want))
check("each group's example is one of its crashes; days by version", not bad, bad)
check("every crash is in a group, each once", sum(x.get("count", 0) for x in groups) == 11 and
      len({id(x) for x in (store, stripped, limits, sleep, hostile) if x is not None}) == 5, [x.get("key") for x in groups])
print("\n".join(out))
PY
[ $? -eq 0 ] || fail "the checks ran" "$(cat checks.out)"
report < checks.out

# The text table: a header line, a column line and one row per group, the
# fixed bug's marked; --top 2 keeps the first two groups of the JSON.
rows=$(sed -n '3,/^$/p' group.txt | grep -vc '^$')
[ "$rows" -eq 5 ] && grep -E '^ +3 +2 .*1\.0-1 x3; not seen since 1\.1-1 +fleetprog: store_record \| main$' group.txt > /dev/null &&
        pass "pkgnote list --group: one row per group, the fixed bug not seen since 1.1-1" ||
        fail "pkgnote list --group: one row per group, the fixed bug not seen since 1.1-1" "$(cat group.txt)"
"$PKGNOTE" list -D "$COLLECT" --group --top 2 --json > top.json 2> top.err
python3 -c 'import json, sys
a, b = json.load(open("group.json")), json.load(open("top.json"))
assert b["groups"] == a["groups"][:2] and b["crashes"] == a["crashes"], (b.get("groupCount"), len(b["groups"]))' 2> top.check &&
        pass "--top 2 keeps the first two groups" || fail "--top 2 keeps the first two groups" "$(cat top.check top.err)"

# A journal file cut short: named alone (--file) it is an error (exit 2),
# never a crash; in the collector's directory the other machines' crashes
# are still listed, and the file is a problem.
cp "$COLLECT/remote-10.44.2.2.journal" cut.journal
truncate -s 1000000 cut.journal
"$PKGNOTE" list --file "$T/cut.journal" --json > cut.out 2> cut.err
status=$?
[ $status -eq 2 ] && grep -q "cut.journal': cannot open the journal: the file is cut short" cut.err && [ ! -s cut.out ] &&
        pass "a journal file cut short (--file): a clear error, exit 2" ||
        fail "a journal file cut short (--file): a clear error, exit 2" "status $status: $(cat cut.out cut.err)"
# Cut elsewhere too: in the header, after it, in the data.
bad=
for size in 100 300 65536 4000000; do
        cp "$COLLECT/remote-10.44.2.2.journal" cut2.journal
        truncate -s $size cut2.journal
        "$PKGNOTE" list --file "$T/cut2.journal" > cut2.out 2> cut2.err
        status=$?
        { [ $status -eq 2 ] && grep -q "cut2.journal': " cut2.err; } || bad="$bad $size: status $status, $(cat cut2.err);"
done
[ -z "$bad" ] && pass "a journal file cut at 100, 300, 64 KiB and 4 MB: a clear error, exit 2" ||
        fail "a journal file cut at 100, 300, 64 KiB and 4 MB: a clear error, exit 2" "$bad"
# fleet-c's file alone (--file): its crashes, the field over the limit a
# problem.
"$PKGNOTE" list --file "$COLLECT/remote-10.44.3.2.journal" --json > c.out 2> c.err
status=$?
n=$(grep -c '"pid"' c.out)
want=$(grep -c '^crash\|^hostile' "$FLEET/c.entries")
[ $status -eq 0 ] && [ "$n" -eq "$want" ] && grep -q "COREDUMP_CMDLINE is 1048576 bytes, over the limit of 65536" c.err &&
        pass "--file with fleet-c's journal: its crashes, the field of 1 MiB a problem" ||
        fail "--file with fleet-c's journal: its crashes, the field of 1 MiB a problem" "status $status, $n crashes, expected $want: $(cat c.err)"
mkdir cutdir
cp "$COLLECT"/*.journal cutdir/
cp cut.journal cutdir/remote-10.44.2.2.journal
"$PKGNOTE" list -D "$T/cutdir" --json > cutdir.out 2> cutdir.err
status=$?
n=$(grep -c '"pid"' cutdir.out)
want=$(grep -c '^crash\|^hostile' "$FLEET/a.entries" "$FLEET/c.entries" | awk -F: '{ s += $2 } END { print s }')
[ $status -eq 0 ] && [ "$n" -eq "$want" ] && pass "a journal file cut short in a directory: the other files' crashes listed" ||
        fail "a journal file cut short in a directory: the other files' crashes listed" "status $status, $n crashes, expected $want: $(cat cutdir.err)"
grep -q "remote-10.44.2.2.journal': the journal file is cut short (1000000 of [0-9]* bytes)" cutdir.err &&
        pass "a journal file cut short in a directory is a problem naming it" ||
        fail "a journal file cut short in a directory is a problem naming it" "$(cat cutdir.err)"
# FLEET_KEEP=DIR keeps the fleet and the collector's files, to look into.
[ -n "${FLEET_KEEP:-}" ] && rm -rf "$FLEET_KEEP" && mkdir -p "$FLEET_KEEP" && cp -r "$FLEET" "$COLLECT" "$FLEET_KEEP"/
finish
