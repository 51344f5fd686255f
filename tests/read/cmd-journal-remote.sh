#!/bin/sh
# A collector's journal: crash entries of three machines, as
# systemd-coredump writes them, in journal export format fed to the real
# systemd-journal-remote, which writes one remote-*.journal per sending
# machine into one directory, read as it is with -D (as coredumpctl -D
# reads it).  Every crash carries its machine's ID and hostname, list
# shows a MACHINE column, and an inline core (Storage=journal) of another
# machine is opened with its packages named from the notes in the core
# alone, never from this machine's package database; one of this machine
# is read as before.
. "$SRCDIR/tests/lib.sh"
require cc python3
JR=/lib/systemd/systemd-journal-remote
[ -x "$JR" ] || JR=/usr/lib/systemd/systemd-journal-remote
if [ ! -x "$JR" ]; then
        missing "systemd-journal-remote writes the collector's journal" systemd-journal-remote
        finish
        exit $?
fi
case $(cat /proc/sys/kernel/core_pattern) in
"|"*) echo "1..0 # SKIP core_pattern is a pipe here: cannot make a core file"; exit 77 ;;
esac
[ -s /etc/machine-id ] || fatal "no /etc/machine-id"
LOCAL=$(head -c 32 /etc/machine-id)

cat > crash.c <<'C'
int main(void) { *(volatile int *)0 = 1; return 0; }
C
cc -o crasher crash.c -Xlinker '--package-metadata={"type":"deb","name":"crasher","version":"4.2-1","architecture":"amd64"}' \
        || fatal "cannot build"
rm -f core
sh -c "ulimit -c unlimited; exec ./crasher" 2> /dev/null
[ -f core ] || fatal "the kernel wrote no core"
mv core segv.core

# gen MACHINE_ID HOST PID INLINE [COREDUMP_HOSTNAME]: one crash entry in
# export format (a binary COREDUMP= field holding segv.core when INLINE is 1).
gen() {
        python3 - "$@" <<'PY'
import struct, sys
mid, host, pid, inline = sys.argv[1:5]
chost = sys.argv[5] if len(sys.argv) > 5 else None
out = sys.stdout.buffer
usec = 1733400000000000 + int(pid) * 1000000
def f(k, v):
    v = v if isinstance(v, bytes) else v.encode()
    if b"\n" in v or b"\0" in v:
        out.write(k.encode() + b"\n" + struct.pack("<Q", len(v)) + v + b"\n")
    else:
        out.write(k.encode() + b"=" + v + b"\n")
f("__REALTIME_TIMESTAMP", str(usec)); f("__MONOTONIC_TIMESTAMP", str(usec % 10**9))
f("_BOOT_ID", "0123456789abcdef0123456789abcdef"); f("_MACHINE_ID", mid); f("_HOSTNAME", host)
f("_UID", "0"); f("_GID", "0"); f("_COMM", "systemd-coredum"); f("_TRANSPORT", "journal")
f("SYSLOG_IDENTIFIER", "systemd-coredump"); f("PRIORITY", "2")
f("MESSAGE_ID", "fc2e22bc6ee647b6b90729ab34a250b1")
f("COREDUMP_PID", pid); f("COREDUMP_UID", "0"); f("COREDUMP_GID", "0"); f("COREDUMP_SIGNAL", "11")
f("COREDUMP_SIGNAL_NAME", "SIGSEGV"); f("COREDUMP_TIMESTAMP", str(usec - 1000))
f("COREDUMP_COMM", "crasher"); f("COREDUMP_EXE", "/opt/crasher")
if chost:
    f("COREDUMP_HOSTNAME", chost)
if inline == "1":
    f("COREDUMP", open("segv.core", "rb").read())
f("MESSAGE", "Process %s (crasher) of user 0 dumped core.\n\nStack trace of thread %s:\n#0  0x0000555555555129 main (crasher + 0x1129)\n" % (pid, pid))
out.write(b"\n")
PY
}
A=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
B=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
mkdir journal
{ gen $A alpha 101 0 alpha-core; gen $A alpha 102 0; } > alpha.export
gen $B beta 201 1 beta > beta.export
gen "$LOCAL" "$(hostname)" 301 1 > local.export
for m in alpha beta local; do
        "$JR" -o "journal/remote-$m.journal" - < $m.export > jr-$m.log 2>&1 || fatal "systemd-journal-remote failed: $(cat jr-$m.log)"
done
ls journal/remote-*.journal > /dev/null 2>&1 || fatal "systemd-journal-remote wrote no remote-*.journal"

run list -D journal
expect_status 0 "list -D of a journal-remote directory exits 0"
[ "$(grep -c crasher out)" = 4 ] && pass "list: every machine's crash" || fail "list: every machine's crash" "$(cat out err)"
head -n 1 out | grep -q " MACHINE " && grep -q " 101 .* alpha-core /opt/crasher" out && grep -q " 102 .* alpha  */opt/crasher" out && grep -q " 201 .* beta  *.*/opt/crasher" out \
        && pass "list: a MACHINE column with each crash's hostname" || fail "list: a MACHINE column with each crash's hostname" "$(cat out)"
run list --file journal/remote-alpha.journal
! head -n 1 out | grep -q MACHINE && [ "$(grep -c crasher out)" = 2 ] \
        && pass "list: no MACHINE column for one machine's crashes" || fail "list: no MACHINE column for one machine's crashes" "$(cat out)"
run list -D journal --json
python3 - "$A" "$B" "$LOCAL" <<'PY' && pass "list --json: machineId and hostname (COREDUMP_HOSTNAME, else _HOSTNAME)" \
        || fail "list --json: machineId and hostname (COREDUMP_HOSTNAME, else _HOSTNAME)" "$(cat out)"
import json, sys
a, b, local = sys.argv[1:4]
got = {c["pid"]: (c.get("machineId"), c.get("hostname"), c["core"]) for c in map(json.loads, open("out"))}
assert got[101] == (a, "alpha-core", "gone"), got
assert got[102] == (a, "alpha", "gone"), got
assert got[201] == (b, "beta", "journal"), got
assert got[301][0] == local and got[301][2] == "journal", got
PY
# list --json reads each record whole in its one pass over the entry
# (PKGNOTE_CRASH_WHOLE_RECORDS): the records a lazy listing gives when
# each crash's rest is read later, by its cursor, and signatures alike.
cp out whole.json
python3_lib - > lazy.json 2> lazy.err <<'PY'
import ctypes
lib = ctypes.CDLL("libpkgnote.so.1")
class Opts(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("stores", ctypes.c_uint), ("pkgnote_dir", ctypes.c_char_p),
                ("match", ctypes.c_char_p), ("systemd_dir", ctypes.c_char_p), ("journal_dir", ctypes.c_char_p),
                ("journal_files", ctypes.c_void_p), ("since", ctypes.c_int64), ("until", ctypes.c_int64),
                ("flags", ctypes.c_uint)]
lib.pkgnote_crashes_load.argtypes = [ctypes.POINTER(Opts), ctypes.POINTER(ctypes.c_void_p)]
lib.pkgnote_crashes_get.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
lib.pkgnote_crashes_get.restype = ctypes.c_void_p
lib.pkgnote_crashes_count.argtypes = [ctypes.c_void_p]
lib.pkgnote_crashes_count.restype = ctypes.c_size_t
lib.pkgnote_crash_to_json.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p)]
o = Opts(ctypes.sizeof(Opts), 4, None, None, None, b"journal", None, 0, 0, 0)
l = ctypes.c_void_p()
assert lib.pkgnote_crashes_load(ctypes.byref(o), ctypes.byref(l)) == 0
for i in range(lib.pkgnote_crashes_count(l)):
    j = ctypes.c_char_p()
    assert lib.pkgnote_crash_to_json(lib.pkgnote_crashes_get(l, i), ctypes.byref(j)) == 0
    print(j.value.decode())
o.flags = 2
assert lib.pkgnote_crashes_load(ctypes.byref(o), ctypes.byref(ctypes.c_void_p())) == -22
PY
python3 - <<'PY' && pass "list --json: records read whole in one pass equal those read lazily, unknown flags refused" \
        || fail "list --json: records read whole in one pass equal those read lazily, unknown flags refused" "$(cat lazy.err whole.json lazy.json)"
import json
whole = sorted(map(json.loads, open("whole.json")), key=lambda c: c["pid"])
lazy = sorted(map(json.loads, open("lazy.json")), key=lambda c: c["pid"])
assert len(whole) == 4 and whole == lazy, (whole, lazy)
assert all(c.get("signature") for c in whole), whole
PY
COREDUMPCTL=/var/cache/pkgnote/systemd-coredump/usr/bin/coredumpctl
if [ -x "$COREDUMPCTL" ]; then
        "$COREDUMPCTL" --no-pager -D journal list 2> /dev/null | awk 'NR > 1 { print $5 }' | sort > want.txt
        "$PKGNOTE" list -D journal | awk 'NR > 1 { print $4 }' | sort > got.txt
        [ -s want.txt ] && cmp -s want.txt got.txt && pass "list -D: the crashes coredumpctl -D lists" \
                || fail "list -D: the crashes coredumpctl -D lists" "$(cat want.txt got.txt)"
else
        missing "list -D: the crashes coredumpctl -D lists" "coredumpctl (dist/fetch-systemd-coredump.sh)"
fi

# A listed field longer than the listing reads at first (2 KiB) is read
# whole; one over the limit is said once, also when --json reads the rest.
python3 - > long.export <<'PY'
for pid, n in ((501, 3000), (502, 70000)):
    print("__REALTIME_TIMESTAMP=%d" % (1733500000000000 + pid))
    print("_MACHINE_ID=cccccccccccccccccccccccccccccccc\n_BOOT_ID=0123456789abcdef0123456789abcdef\n_HOSTNAME=gamma")
    print("_UID=0\n_COMM=systemd-coredum\nMESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1")
    print("COREDUMP_PID=%d\nCOREDUMP_EXE=/%s\nMESSAGE=x\n" % (pid, "e" * n))
PY
mkdir long
"$JR" -o long/remote-gamma.journal - < long.export > jr-long.log 2>&1 || fatal "systemd-journal-remote failed: $(cat jr-long.log)"
run list -D long --json
python3 - <<'PY' && [ "$(grep -c "COREDUMP_EXE is 70001 bytes, over the limit of 65536" err)" = 1 ] \
        && pass "list: a long field read whole, one over the limit said once" \
        || fail "list: a long field read whole, one over the limit said once" "$(cut -c1-200 out; cat err)"
import json
got = {c["pid"]: len(c.get("executable") or "") for c in map(json.loads, open("out"))}
assert got == {501: 3001, 502: 0}, got
PY

# Another machine's inline core: opened, its packages from the notes alone.
run core -S --json -D journal 201
expect_status 0 "core: another machine's inline core opens"
python3 - <<'PY' && pass "core: another machine's core names packages from its notes alone, and says why" \
        || fail "core: another machine's core names packages from its notes alone, and says why" "$(head -c 3000 out; cat err)"
import json
d = json.load(open("out"))
assert d["core"] == "journal" and d["package"]["name"] == "crasher", d.get("package")
assert all(m.get("dbState") in (None, "not-asked", "unknown") and "dbPackage" not in m for m in d["modules"]), d["modules"]
assert any("another machine" in p and "package database" in p for p in d.get("problems", [])), d.get("problems")
PY
expect_err "another machine" "core: the reason on standard error too"
# The same core of this machine: nothing said, the database asked as before.
run core -S --json -D journal 301
expect_status 0 "core: this machine's inline core opens"
python3 - <<'PY' && pass "core: this machine's core is no other machine's" \
        || fail "core: this machine's core is no other machine's" "$(head -c 3000 out; cat err)"
import json
d = json.load(open("out"))
assert d["core"] == "journal" and d["package"]["name"] == "crasher", d.get("package")
assert not any("another machine" in p for p in d.get("problems", [])), d.get("problems")
PY

# This machine's own store: its machine ID and hostname.
HANDLER="$BUILDDIR/pkgnote-coredump"
"$HANDLER" -d "$T/state" -l "$T/log" 401 0 0 11 1733500000 18446744073709551615 "$(hostname)" crasher < segv.core \
        || fatal "pkgnote-coredump failed: $(cat "$T/log")"
run list --json -d "$T/state"
python3 - "$LOCAL" "$(hostname)" <<'PY' && pass "list: a crash of this machine's store carries its machine ID and hostname" \
        || fail "list: a crash of this machine's store carries its machine ID and hostname" "$(cat out err)"
import json, sys
c = [json.loads(l) for l in open("out") if json.loads(l)["store"] == "pkgnote"]
assert c and c[0]["machineId"] == sys.argv[1] and c[0]["hostname"] == sys.argv[2], c
PY
finish
