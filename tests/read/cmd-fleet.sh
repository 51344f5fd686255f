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
# left out, pkgnote list --group's exact groups (the contract "The group
# JSON"); a journal file cut short is a problem, never a crash.
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
# (systemd-coredump's elfutils) looks for them: /usr/lib/debug/.build-id.
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
PY

# The hostile entry's values: stack text with terminal escapes, absurd
# frame numbers and addresses, a thousand frames and a 10 000-byte line (the
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
m += ["#%d  0x%016x f%d (libhostile%d.so + 0x10)" % (i, i, i, i) for i in range(4, 1004)]
m += ["ELF object binary architecture: AMD x86-64"]
open(d + "/hostile-message", "w").write("\n".join(m) + "\n")
open(d + "/hostile-cmdline", "w").write("x" * (1 << 20))
open(d + "/hostile-package", "w").write("[" * 10000 + "]" * 10000)
PY

# The plans: the machines run one after another, in the order of the crash
# times (B, two hours ago, plus seconds), so that the journal's order and
# the crashes' agree: fleetprog 1.1-1 is first seen at B+600, after the
# last crash of the bug it fixed.
B=$(($(date +%s) - 7200))
# Each plan runs in its machine (tests/read/fleet-machine.sh), with B, BIN
# and MID from here.
export B BIN MID
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

# run_machine NAME INDEX CONF VACUUM DEBUG: machine NAME (fleet-NAME) runs
# plan-NAME.sh in its namespaces, wired to the collector by veth pair
# INDEX; coredump.conf lines CONF (';' between them), its cores removed
# afterwards when VACUUM is 1, DEBUG its /usr/lib/debug.
run_machine() {
        _n=$1 _x=$2
        _id=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
        echo "$_id" > "$FLEET/$_n.id"
        FLEET=$FLEET FLEET_NAME=$_n FLEET_INDEX=$_x FLEET_HOST=fleet-$_n FLEET_ID=$_id FLEET_UPLOAD=$JUPLOAD \
                FLEET_CONF=$3 FLEET_VACUUM=$4 FLEET_DEBUG=$5 FLEET_PLAN="$FLEET/plan-$_n.sh" \
                unshare -m -u -n --propagation private sh "$SRCDIR/tests/read/fleet-machine.sh" > "$FLEET/$_n.log" 2>&1 &
        _mp=$!
        _i=0
        until [ -e "$FLEET/$_n.inside" ]; do
                _i=$((_i + 1))
                { [ $_i -gt 100 ] || ! kill -0 "$_mp" 2> /dev/null; } && fatal "machine $_n did not start: $(cat "$FLEET/$_n.log")"
                sleep 0.1
        done
        ip link add "fleet$_x" type veth peer name eth0 netns "$_mp" && ip addr add "10.44.$_x.1/24" dev "fleet$_x" &&
                ip link set "fleet$_x" up || fatal "cannot wire machine $_n"
        : > "$FLEET/$_n.wired"
        wait "$_mp" || fatal "machine $_n failed: $(cat "$FLEET/$_n.log")"
        # Every entry it logged reaches the collector (30 s).
        _want=$(wc -l < "$FLEET/$_n.entries")
        _i=0
        until [ "$(journalctl -D "$COLLECT" -q -o json $MID _MACHINE_ID="$_id" 2> /dev/null | wc -l)" -eq "$_want" ]; do
                _i=$((_i + 1))
                [ $_i -gt 300 ] && fatal "the collector has not every entry of machine $_n ($_want): $(cat "$T/remote.log")"
                sleep 0.1
        done
}
run_machine a 1 'Storage=external' 1 ''
run_machine b 2 'Storage=journal' 0 "$DEBUG"
run_machine c 3 '' 0 ''
kill "$REMOTE" && wait "$REMOTE" || fatal "systemd-journal-remote did not stop cleanly: $(cat "$T/remote.log")"
ls -l "$COLLECT"
[ -n "${FLEET_KEEP:-}" ] && rm -rf "$FLEET_KEEP" && mkdir -p "$FLEET_KEEP" && cp -r "$FLEET" "$COLLECT" "$FLEET_KEEP"/
finish
