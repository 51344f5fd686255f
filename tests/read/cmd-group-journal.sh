#!/bin/sh
# pkgnote list --group over a collector's journal: systemd-coredump's
# crash entries of three machines (journal export format through the real
# systemd-journal-remote, one remote-*.journal per machine, read with -D).
# The signatures come from the stack text of MESSAGE, the faulting
# package's version from COREDUMP_PACKAGE_JSON, the machines from
# _MACHINE_ID; an entry whose MESSAGE holds no stack is grouped under
# "PACKAGE: ?"; a hostile executable path and host name stay data.
. "$SRCDIR/tests/lib.sh"
require python3
JR=/lib/systemd/systemd-journal-remote
[ -x "$JR" ] || JR=/usr/lib/systemd/systemd-journal-remote
if [ ! -x "$JR" ]; then
        missing "systemd-journal-remote writes the collector's journal" systemd-journal-remote
        finish
        exit $?
fi

T0=1733400000
A=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa
B=bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb
C=cccccccccccccccccccccccccccccccc
# gen MACHINE HOST: the export stream of the crashes lines on standard
# input: SECONDS PID VERSION EXE FRAMES... ("-" FRAMES: no stack).
gen() {
        python3 - "$1" "$2" "$T0" <<'PY'
import hashlib, struct, sys
machine, host, t0 = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = sys.stdout.buffer
def f(name, value):
    value = value.encode() if isinstance(value, str) else value
    if b"\n" in value or any(c < 32 and c != 9 for c in value):
        out.write(name.encode() + b"\n" + struct.pack("<Q", len(value)) + value + b"\n")
    else:
        out.write(name.encode() + b"=" + value + b"\n")
for n, line in enumerate(open("crashes." + host.split("\x1b")[0])):
    secs, pid, version, exe, *frames = line.split()
    exe = exe.replace("ESC", "\x1b")
    usec = (t0 + int(secs)) * 1000000
    bid = hashlib.md5(version.encode()).hexdigest()
    f("__CURSOR", "s=%s;i=%x" % (machine, n + 1))
    f("__REALTIME_TIMESTAMP", str(usec + 300000))
    f("__MONOTONIC_TIMESTAMP", str(1000000 + n))
    f("_BOOT_ID", hashlib.md5((machine + "boot").encode()).hexdigest())
    f("_MACHINE_ID", machine)
    f("_HOSTNAME", host)
    f("_TRANSPORT", "journal")
    f("_UID", "0")
    f("_GID", "0")
    f("_COMM", "systemd-coredum")
    f("SYSLOG_IDENTIFIER", "systemd-coredump")
    f("PRIORITY", "2")
    f("MESSAGE_ID", "fc2e22bc6ee647b6b90729ab34a250b1")
    f("COREDUMP_PID", pid)
    f("COREDUMP_UID", "1000")
    f("COREDUMP_GID", "1000")
    f("COREDUMP_SIGNAL", "11")
    f("COREDUMP_SIGNAL_NAME", "SIGSEGV")
    f("COREDUMP_TIMESTAMP", str(usec))
    f("COREDUMP_HOSTNAME", host)
    f("COREDUMP_COMM", "svc")
    f("COREDUMP_EXE", exe)
    f("COREDUMP_PACKAGE_NAME", "svcpkg")
    f("COREDUMP_PACKAGE_VERSION", version)
    f("COREDUMP_PACKAGE_JSON", '{"elfType":"coredump","elfArchitecture":"AMD x86-64","svc":{"type":"deb",'
      '"name":"svcpkg","version":"%s","architecture":"amd64","buildId":"%s"}}' % (version, bid))
    msg = "Process %s (svc) of user 1000 dumped core.\n\n" % pid
    if frames != ["-"]:
        msg += "Module svc from deb svcpkg-%s (amd64), build-id %s\nStack trace of thread %s:\n" % (version, bid, pid)
        msg += "".join("#%d  0x%016x %s (svc + 0x%x)\n" % (k, 0x555555555000 + 16 * k, fn, 0x1000 + 16 * k)
                       for k, fn in enumerate(frames))
        msg += "\nELF object binary architecture: AMD x86-64\n"
    f("MESSAGE", msg)
    out.write(b"\n")
PY
}
# Machine A: the parse bug twice and a crash whose text has no stack;
# B: the parse bug and another bug; C, a day later, the parse bug in
# version 2.0, and one crash of a program under a hostile path.
cat > crashes.alpha <<'X'
0 101 1.0 /usr/bin/svc parse_line run main _start
50 102 1.0 /usr/bin/svc -
100 103 1.0 /usr/bin/svc parse_line run main _start
X
cat > crashes.beta <<'X'
200 201 1.0 /usr/bin/svc parse_line run main
300 202 1.0 /usr/bin/svc other_bug main
X
cat > crashes.gamma <<'X'
86400 301 2.0 /usr/bin/svc parse_line run main
86500 302 2.0 /opt/ESC[2Jx/svc lone_bug main
X
mkdir journal
gen $A alpha < /dev/null > alpha.export
gen $B beta < /dev/null > beta.export
gen $C "$(printf 'gamma\033[1m')" < /dev/null > gamma.export
for m in alpha beta gamma; do
        "$JR" -o "journal/remote-$m.journal" - < $m.export > jr-$m.log 2>&1 ||
                fatal "systemd-journal-remote failed: $(cat jr-$m.log)"
done
"$PKGNOTE" list -D journal --json > plain.json 2> plain.err || fatal "pkgnote list -D: $(cat plain.err)"
[ "$(wc -l < plain.json)" -eq 7 ] || fatal "pkgnote list -D sees $(wc -l < plain.json) crashes, not 7: $(cat plain.err)"

check() {
        python3 - "$2" "$T0" "$A" "$B" "$C" > check.out 2>&1 <<PY
import json, sys
D = json.load(open(sys.argv[1]))
T0 = int(sys.argv[2])
A, B, C = sys.argv[3:6]
$3
PY
        [ $? -eq 0 ] && pass "$1" || fail "$1" "$(tr '\n' ' ' < check.out)"
}

"$PKGNOTE" list -D journal --group --json > sig.json 2> sig.err
[ $? -eq 0 ] && pass "list -D --group --json exits 0" || fail "list -D --group --json exits 0" "$(cat sig.err)"
check "the groups of three machines' crashes, from MESSAGE's stack text" sig.json '
assert (D["crashes"], D["groupCount"], D["machineCount"]) == (7, 4, 3), D
assert (D["first"], D["last"]) == (T0, T0 + 86500), D
k = [(g["key"], g["count"]) for g in D["groups"]]
assert k == [("svcpkg: parse_line | run | main", 4), ("svcpkg: lone_bug | main", 1), ("svcpkg: other_bug | main", 1),
             ("svcpkg: ?", 1)], k
'
check "machines by their machine ID, versions from COREDUMP_PACKAGE_JSON, days" sig.json '
g = D["groups"][0]
assert g["package"] == "svcpkg" and len(g["hash"]) == 16, g
m = [(x["machineId"], x["hostname"], x["count"], x["last"]) for x in g["machines"]]
assert m == [(A, "alpha", 2, T0 + 100), (B, "beta", 1, T0 + 200), (C, "gamma\x1b[1m", 1, T0 + 86400)], m
assert g["boots"] == 3, g["boots"]
v = [(x["version"], x["count"], x["first"], x["last"]) for x in g["versions"]]
assert v == [("1.0", 3, T0, T0 + 200), ("2.0", 1, T0 + 86400, T0 + 86400)], v
assert [(d["day"], d["version"], d["count"]) for d in g["days"]] == [("2024-12-05", "1.0", 3), ("2024-12-06", "2.0", 1)], g["days"]
assert "notSeenSince" not in g, g
e = g["example"]
assert e["time"] == T0 + 86400 and e["store"] == "journal" and e["signatureSource"] == "message", e
assert e["signature"] == g["key"] and e["machineId"] == C, e
'
check "a bug of 1.0 is not seen since 2.0; a crash without a stack is \"svcpkg: ?\"" sig.json '
g = {x["key"]: x for x in D["groups"]}
assert g["svcpkg: other_bug | main"]["notSeenSince"] == "2.0", g["svcpkg: other_bug | main"]
n = g["svcpkg: ?"]
assert "hash" not in n and n["package"] == "svcpkg" and n["count"] == 1 and n["notSeenSince"] == "2.0", n
assert [(x["version"], x["count"]) for x in n["versions"]] == [("1.0", 1)], n["versions"]
assert [x["machineId"] for x in n["machines"]] == [A], n["machines"]
assert "signature" not in n["example"], n["example"]
'
"$PKGNOTE" list -D journal --group=executable > exe.txt 2> exe.err
if grep -q "$(printf '\033')" exe.txt; then fail "text: a hostile executable path is escaped" "$(od -c exe.txt | head)"
elif grep -qF '/opt/\x1b[2Jx/svc' exe.txt && grep -q "^ *6 *3 .*/usr/bin/svc$" exe.txt; then
        pass "text: a hostile executable path is escaped"
else fail "text: a hostile executable path is escaped" "$(cat exe.txt exe.err)"; fi
"$PKGNOTE" list -D journal --group=package --json --top 1 > pkg.json 2> pkg.err
check "--group=package --top 1" pkg.json '
assert [(g["key"], g["count"]) for g in D["groups"]] == [("svcpkg", 7)], D["groups"]
assert [(x["version"], x["count"]) for x in D["groups"][0]["versions"]] == [("1.0", 5), ("2.0", 2)], D["groups"]
'
"$PKGNOTE" list -D journal --group --json --since @$((T0 + 86400)) > since.json 2>&1
check "--since selects before grouping" since.json '
assert D["crashes"] == 2 and D["machineCount"] == 1, D
'
finish
