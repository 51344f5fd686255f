#!/bin/sh
# pkgnote ps: the packages of what runs now.  Real processes: a library
# replaced on disk by rename while its users run (the notes of both
# versions), checked against Debian's needrestart on the same processes;
# a chrooted process whose root has its own dpkg database (dpkg --root);
# processes that come and go during the walk; an unprivileged run.
. "$SRCDIR/tests/lib.sh"

require cc python3 setpriv

# needrestart ignores mappings below /tmp and /run (its blacklist_mappings),
# so the programs of this test live below the build directory.
D=$(mktemp -d "$BUILDDIR/ps-test.XXXXXX") || fatal "cannot make a directory in the build directory"
chmod 755 "$D"
PIDS=""
trap 'for p in $PIDS; do kill $p 2>/dev/null; done; rm -rf "$D"; umount_below "$T"; rm -rf "$T"' EXIT
chmod 755 "$T"
# The programs, some run as other users, say they are ready here.
mkdir -m 1777 "$T/rd"

note() { printf '{"type":"deb","name":"demo","version":"%s","architecture":"amd64"}' "$1"; }
echo 'const char *demo_version(void) { return VERSION; }' > demo.c
mkdir -p v1 v2 "$D/lib"
cc -shared -fPIC -DVERSION='"1"' -Wl,-soname,libdemo.so.1 -o v1/libdemo.so.1 demo.c -Xlinker "--package-metadata=$(note 1.0-1)" ||
        fatal "cannot build libdemo 1.0-1"
cc -shared -fPIC -DVERSION='"2"' -Wl,-soname,libdemo.so.1 -o v2/libdemo.so.1 demo.c -Xlinker "--package-metadata=$(note 2.0-1)" ||
        fatal "cannot build libdemo 2.0-1"
cat > user.c <<'C'
#include <stdio.h>
#include <unistd.h>
const char *demo_version(void);
int main(int argc, char **argv) {
        if (!demo_version())
                return 1;
        FILE *f = fopen(argv[argc - 1], "w");
        if (f)
                fclose(f);
        pause();
        return 0;
}
C
cp v1/libdemo.so.1 "$D/lib/libdemo.so.1"
cc -o "$D/user" user.c -L"$D/lib" -l:libdemo.so.1 -Wl,-rpath,"$D/lib" || fatal "cannot link the user"
chmod -R a+rX "$D"

# start [UID]: starts $D/user (as UID when given), sets PID once it runs.
N=0
start() {
        N=$((N + 1))
        _ready=$T/rd/ready.$N
        if [ $# -gt 0 ]; then
                setpriv --reuid="$1" --regid="$1" --clear-groups "$D/user" "$_ready" > /dev/null 2>&1 &
        else
                "$D/user" "$_ready" > /dev/null 2>&1 &
        fi
        PID=$!
        PIDS="$PIDS $PID"
        for _i in $(seq 1 250); do
                [ -e "$_ready" ] && return 0
                sleep 0.02
        done
        fatal "the user program did not start"
}

# pcheck NAME FILE EXPR: EXPR holds over the JSON lines of FILE: procs
# (by PID), mod(PID, BASENAME).
pcheck() {
        if python3 - "$2" "$3" > pyerr 2>&1 <<'PY'
import json, os, sys
procs = {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    procs[d["pid"]] = d
def mod(pid, base):
    found = [m for m in procs[pid]["modules"] if os.path.basename(m["path"]) == base]
    assert len(found) == 1, "module %s: %d matches" % (base, len(found))
    return found[0]
ok = eval(sys.argv[2])
if not ok:
    print(json.dumps(procs, indent=1)[:4000])
sys.exit(0 if ok else 1)
PY
        then pass "$1"; else fail "$1" "$(cat pyerr)"; fi
}

# ------------------------------------------ a library replaced by rename
start
OLD=$PID
start 65534
OLDNOBODY=$PID
cp v2/libdemo.so.1 "$D/lib/.libdemo.new" && mv "$D/lib/.libdemo.new" "$D/lib/libdemo.so.1" || fatal "cannot replace libdemo"
start
NEW=$PID

run ps --json $OLD $NEW
expect_status 0 "ps --json of two processes"
cp out replaced.json
pcheck "replaced-library: flagged, 1.0-1 in memory, 2.0-1 installed" replaced.json \
        "procs[$OLD]['needsRestart'] == 1 and mod($OLD, 'libdemo.so.1').get('replaced') is True and mod($OLD, 'libdemo.so.1')['packages'][0]['version'] == '1.0-1' and mod($OLD, 'libdemo.so.1')['installedPackages'][0]['version'] == '2.0-1'"
pcheck "replaced-library: a process started after the upgrade is not flagged" replaced.json \
        "procs[$NEW]['needsRestart'] == 0 and 'replaced' not in mod($NEW, 'libdemo.so.1') and mod($NEW, 'libdemo.so.1')['packages'][0]['version'] == '2.0-1'"
run ps $OLD
grep "/libdemo.so.1 " out | grep -q "demo 1.0-1 .* note .*needs-restart (replaced; installed: demo 2.0-1)" &&
        pass "replaced-library: the table shows both versions" || fail "replaced-library: the table shows both versions" "$(cat out)"
run ps --needs-restart $OLD $NEW
grep -q "^ *$OLD " out && ! grep -q "^ *$NEW " out && pass "--needs-restart keeps the flagged process alone" ||
        fail "--needs-restart keeps the flagged process alone" "$(cat out)"
run ps --by-package $OLD $OLDNOBODY $NEW
grep -A1 "^demo 1.0-1 (note): 2 processes" out | grep -q " $OLD(needs-restart) $OLDNOBODY(needs-restart)" &&
        grep -A1 "^demo 2.0-1 (note): 1 process$" out | grep -qx "        $NEW" &&
        pass "--by-package: the processes of each version" || fail "--by-package: the processes of each version" "$(cat out)"
run ps --by-package --json $OLD
python3 -c '
import json, sys
rows = [json.loads(l) for l in open("out")]
demo = [r for r in rows if r["name"] == "demo"]
sys.exit(0 if len(demo) == 1 and demo[0]["pid"] == int(sys.argv[1]) and demo[0]["version"] == "1.0-1" and demo[0]["needsRestart"] == 1 and demo[0]["installedVersion"] == "2.0-1" else 1)
' $OLD && pass "--by-package --json: one line per package and process" || fail "--by-package --json: one line per package and process" "$(cat out)"
run ps --exe "$D/user"
[ "$(grep -c "^ *[0-9]* .* $D/user\$" out)" = 3 ] && pass "--exe: the three users" || fail "--exe: the three users" "$(cat out)"

# ---------------------------------------------- SBOMs of what is running
# The two versions of demo in memory are two components; the old one is
# flagged as replaced on disk, naming what is installed now; each process
# depends on the version it maps.
run ps --format cyclonedx $OLD $NEW
expect_status 0 "sbom: ps --format cyclonedx"
cp out running.cdx.json
python3 - $OLD $NEW > pyerr 2>&1 <<'PY' && pass "sbom-cyclonedx: one component per version in memory, the replaced one flagged, processes depend on theirs" || fail "sbom-cyclonedx: one component per version in memory, the replaced one flagged, processes depend on theirs" "$(cat pyerr out)"
import json, sys
old, new = sys.argv[1:]
d = json.load(open("running.cdx.json"))
assert d["bomFormat"] == "CycloneDX", d.get("bomFormat")
comps = d["components"]
props = lambda c: [(p["name"], p["value"]) for p in c.get("properties", [])]
prop = lambda c, n: [v for k, v in props(c) if k == n]
demo = {c["version"]: c for c in comps if c["name"] == "demo"}
assert sorted(demo) == ["1.0-1", "2.0-1"], sorted(demo)
v1, v2 = demo["1.0-1"], demo["2.0-1"]
assert v1["purl"] == "pkg:deb/demo@1.0-1?arch=amd64", v1["purl"]
assert prop(v1, "pkgnote:origin") == ["note"] and prop(v2, "pkgnote:origin") == ["note"], (props(v1), props(v2))
assert prop(v1, "pkgnote:replacedOnDisk") == ["true"], props(v1)
assert prop(v1, "pkgnote:installedNow") == ["demo 2.0-1"], props(v1)
assert prop(v2, "pkgnote:replacedOnDisk") == ["false"] and not prop(v2, "pkgnote:installedNow"), props(v2)
assert [o["location"].endswith("/lib/libdemo.so.1") for o in v1["evidence"]["occurrences"]] == [True], v1["evidence"]
procs = {prop(c, "pkgnote:pid")[0]: c for c in comps if c["type"] == "application"}
assert sorted(procs) == sorted([old, new]), sorted(procs)
assert prop(procs[old], "pkgnote:needsRestart") == ["true"] and prop(procs[new], "pkgnote:needsRestart") == ["false"]
deps = {x["ref"]: x["dependsOn"] for x in d["dependencies"]}
assert v1["bom-ref"] in deps[procs[old]["bom-ref"]] and v2["bom-ref"] not in deps[procs[old]["bom-ref"]], deps
assert v2["bom-ref"] in deps[procs[new]["bom-ref"]] and v1["bom-ref"] not in deps[procs[new]["bom-ref"]], deps
# Every package ref is a component's, and each package appears once.
refs = [c["bom-ref"] for c in comps]
assert len(refs) == len(set(refs)) and all(r in refs for v in deps.values() for r in v), refs
PY
# CycloneDX 1.6 unless asked for 1.5, as pkgnote scan writes.
python3 -c 'import json, sys; sys.exit(json.load(open("running.cdx.json"))["specVersion"] != "1.6")' &&
        pass "sbom-cdx-version: CycloneDX 1.6 by default, as scan's" || fail "sbom-cdx-version: CycloneDX 1.6 by default, as scan's" "$(grep specVersion running.cdx.json)"
run ps --format cyclonedx --cyclonedx-version 1.5 $OLD $NEW
cp out running15.cdx.json
python3 -c 'import json, sys; d = json.load(open("running15.cdx.json")); sys.exit(d["specVersion"] != "1.5" or len(d["components"]) != len(json.load(open("running.cdx.json"))["components"]))' &&
        pass "sbom-cdx-version: --cyclonedx-version 1.5 writes CycloneDX 1.5, the same components" ||
        fail "sbom-cdx-version: --cyclonedx-version 1.5 writes CycloneDX 1.5, the same components" "$(head -c 300 running15.cdx.json)"
run ps --format cyclonedx --cyclonedx-version 1.6 $OLD
python3 -c 'import json, sys; sys.exit(json.load(open("out"))["specVersion"] != "1.6")' &&
        pass "sbom-cdx-version: --cyclonedx-version 1.6" || fail "sbom-cdx-version: --cyclonedx-version 1.6" "$(head -c 300 out)"
run ps --format cyclonedx --cyclonedx-version 1.4 $OLD
expect_status 2 "sbom-cdx-version: --cyclonedx-version 1.4 is refused"
grep -q "^pkgnote: ps: unknown CycloneDX version '1.4' (1.6, 1.7, 1.5)\$" err &&
        pass "sbom-cdx-version: the refusal names the versions" || fail "sbom-cdx-version: the refusal names the versions" "$(cat err)"

run ps --format spdx $OLD $NEW
expect_status 0 "sbom: ps --format spdx"
cp out running.spdx.json
python3 - $OLD $NEW > pyerr 2>&1 <<'PY' && pass "sbom-spdx: the processes described, DEPENDS_ON their versions, the replaced one annotated" || fail "sbom-spdx: the processes described, DEPENDS_ON their versions, the replaced one annotated" "$(cat pyerr out)"
import json, sys
old, new = sys.argv[1:]
d = json.load(open("running.spdx.json"))
assert d["spdxVersion"] == "SPDX-2.3"
pk = {p["SPDXID"]: p for p in d["packages"]}
demo = {p["versionInfo"]: p for p in d["packages"] if p["name"] == "demo"}
assert sorted(demo) == ["1.0-1", "2.0-1"], sorted(demo)
ann = demo["1.0-1"].get("annotations", [])
assert len(ann) == 1 and ann[0]["comment"].startswith("pkgnote:replacedOnDisk:") and "installed now: demo 2.0-1" in ann[0]["comment"], ann
assert "annotations" not in demo["2.0-1"]
rels = [(r["spdxElementId"], r["relationshipType"], r["relatedSpdxElement"]) for r in d["relationships"]]
po, pn = "SPDXRef-Process-" + old, "SPDXRef-Process-" + new
assert ("SPDXRef-DOCUMENT", "DESCRIBES", po) in rels and ("SPDXRef-DOCUMENT", "DESCRIBES", pn) in rels, rels
assert pk[po]["primaryPackagePurpose"] == "APPLICATION"
assert (po, "DEPENDS_ON", demo["1.0-1"]["SPDXID"]) in rels and (po, "DEPENDS_ON", demo["2.0-1"]["SPDXID"]) not in rels, rels
assert (pn, "DEPENDS_ON", demo["2.0-1"]["SPDXID"]) in rels, rels
assert all(a in pk and b in pk for a, t, b in rels if t == "DEPENDS_ON"), rels
PY
run ps --format cyclonedx --cyclonedx-version 1.7 $OLD $NEW
cp out running17.cdx.json
python3 -c 'import json, sys; d = json.load(open("running17.cdx.json")); sys.exit(d["specVersion"] != "1.7" or len(d["components"]) != len(json.load(open("running.cdx.json"))["components"]))' &&
        pass "sbom-cdx-version: --cyclonedx-version 1.7 writes CycloneDX 1.7, the same components" ||
        fail "sbom-cdx-version: --cyclonedx-version 1.7 writes CycloneDX 1.7, the same components" "$(head -c 300 running17.cdx.json)"

# SPDX 3.0.1: what the 2.3 document says (tests/scan/spdx3-compare.py),
# the processes' SBOM of type runtime, the replaced version annotated.
# spdx3_pair NAME ARGS...: NAME.spdx.json and NAME.spdx3.json of one time.
spdx3_pair() {
        _n=$1
        shift
        SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" ps --format spdx "$@" > "$_n.spdx23.json" 2> /dev/null &&
                SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" ps --format spdx3 "$@" > "$_n.spdx3.json" 2> "$_n.err" &&
                python3 "$SRCDIR/tests/scan/spdx3-compare.py" "$_n.spdx23.json" "$_n.spdx3.json" > "$_n.cmp" 2>&1
}
spdx3_pair running $OLD $NEW && pass "sbom-spdx3: the 2.3 document's facts ($(cat running.cmp))" ||
        fail "sbom-spdx3: the 2.3 document's facts" "$(cat running.err running.cmp)"
python3 - > pyerr 2>&1 <<'PY' && pass "sbom-spdx3: a runtime SBOM rooted in the processes and the kernel, the replaced version annotated" || fail "sbom-spdx3: a runtime SBOM rooted in the processes and the kernel, the replaced version annotated" "$(cat pyerr)"
import json
g = json.load(open("running.spdx3.json"))["@graph"]
byid = {e["spdxId"]: e for e in g if "spdxId" in e}
[sbom] = [e for e in g if e["type"] == "software_Sbom"]
assert sbom["software_sbomType"] == ["runtime"], sbom
# the processes, and the kernel they run on (tests/read/cmd-kernel-sbom.sh)
roots = [byid[r]["software_primaryPurpose"] for r in sbom["rootElement"]]
assert all(byid[r]["name"] for r in sbom["rootElement"]) and roots.count("operatingSystem") <= 1, sbom
assert sorted(set(roots)) in (["application"], ["application", "operatingSystem"]), roots
[ann] = [e for e in g if e["type"] == "Annotation" and not e["statement"].startswith("pkgnote:needsReboot:")]
assert byid[ann["subject"]]["software_packageVersion"] == "1.0-1" and ann["statement"].startswith("pkgnote:replacedOnDisk:"), ann
dep = [e for e in g if e["type"] == "Relationship" and e["relationshipType"] == "dependsOn"]
assert {byid[e["to"][0]]["software_packageVersion"] for e in dep if byid[e["to"][0]]["name"] == "demo"} == {"1.0-1", "2.0-1"}, dep
PY
SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" ps --format cyclonedx $OLD > r1.json 2>&1
SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" ps --format cyclonedx $OLD > r2.json 2>&1
cmp -s r1.json r2.json && grep -q '"timestamp": "2023-11-14T22:13:20Z"' r1.json &&
        pass "sbom: SOURCE_DATE_EPOCH makes the document reproducible" || fail "sbom: SOURCE_DATE_EPOCH makes the document reproducible" "$(diff r1.json r2.json | head)"
run ps --format cyclonedx --by-package $OLD
expect_status 2 "sbom: --by-package with an SBOM format is refused"
run ps --format yaml $OLD
expect_status 2 "sbom: an unknown format is refused"

# ------------------------------------------------------- vs needrestart
# needrestart lists the processes of the user it runs as (NEEDRESTART-PID:
# NAME=PID,...); as root it names services instead, so both run as a user
# of their own, whose processes are the test's alone.
case $D in
/tmp/* | /var/tmp/* | /run/*) NRSKIP="the build directory is below /tmp or /run, which needrestart ignores" ;;
*) NRSKIP= ;;
esac
if [ -n "$NRSKIP" ]; then
        skip "needrestart -b -r l flags the same processes" "$NRSKIP"
elif command -v needrestart > /dev/null; then
        U=64123
        start $U
        Q1=$PID
        cp "$D/user" "$D/user-deleted" && chmod 755 "$D/user-deleted"
        setpriv --reuid=$U --regid=$U --clear-groups "$D/user-deleted" "$T/rd/ready.del" > /dev/null 2>&1 &
        Q3=$!
        PIDS="$PIDS $Q3"
        for _i in $(seq 1 250); do [ -e "$T/rd/ready.del" ] && break; sleep 0.02; done
        rm -f "$D/user-deleted"
        cp v1/libdemo.so.1 "$D/lib/.libdemo.new" && mv "$D/lib/.libdemo.new" "$D/lib/libdemo.so.1" || fatal "cannot replace libdemo"
        start $U
        Q2=$PID
        setpriv --reuid=$U --regid=$U --clear-groups needrestart -b -r l > nr.out 2> nr.err
        sed -n 's/^NEEDRESTART-PID: [^=]*=//p' nr.out | tr ',' '\n' | sort -n > nr.pids
        setpriv --reuid=$U --regid=$U --clear-groups "$PKGNOTE" ps --needs-restart --json > ps.out 2> ps.err
        python3 -c 'import json; [print(json.loads(l)["pid"]) for l in open("ps.out")]' | sort -n > ps.pids
        # Both must agree on every process of the user; of the test's own,
        # the two that map what was replaced are in and the fresh one is
        # out (another run of this test may leave processes of the user).
        if [ -s nr.pids ] && cmp -s nr.pids ps.pids && grep -qx "$Q1" ps.pids && grep -qx "$Q3" ps.pids &&
                ! grep -qx "$Q2" ps.pids; then
                pass "needrestart -b -r l flags the same processes ($(cat ps.pids | tr '\n' ' '))"
        else
                fail "needrestart -b -r l flags the same processes" "needrestart: $(cat nr.pids | tr '\n' ' ') pkgnote: $(cat ps.pids | tr '\n' ' ') expected $Q1 $Q3, not $Q2; $(cat nr.out ps.err)"
        fi
else
        missing "needrestart -b -r l flags the same processes" needrestart
fi

# ------------------------------------------------ 30,000 mappings
# Regression (many-mappings): maps was read up to 1 MiB and the rest
# dropped silently.  Addresses are handed out top-down and maps lists
# them upwards, so the libraries a process loaded first (loader, libc,
# here libdemo) are its last lines: a process with some 30,000 mappings,
# as JVMs and search engines have, was shown with its executable alone
# and --needs-restart passed it over.  many.c loads its libraries, then
# maps pages of alternating protections (that the kernel cannot merge).
cat > many.c <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
const char *demo_version(void);
/* many pages N READY: N mappings of one page each.
 * many files N FILE READY: N copies of FILE (FILE.0, ...), each mapped
 * at offset 0 (one file mapped N times is 16 modules at most). */
int main(int argc, char **argv) {
        if (argc < 4 || !demo_version())
                return 1;
        long pg = sysconf(_SC_PAGESIZE);
        size_t n = strtoul(argv[2], NULL, 10);
        if (!strcmp(argv[1], "pages")) {
                char *p = mmap(NULL, n * pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
                if (p == MAP_FAILED)
                        return 2;
                for (size_t i = 0; i < n; i += 2)
                        if (mprotect(p + i * pg, pg, PROT_READ | PROT_WRITE))
                                return 3;
        } else {
                char buf[65536], name[4096];
                int in = open(argv[3], O_RDONLY);
                ssize_t len = in < 0 ? -1 : read(in, buf, sizeof buf);
                for (size_t i = 0; i < n; i++) {
                        snprintf(name, sizeof name, "%s.%zu", argv[3], i);
                        int fd = len > 0 ? open(name, O_RDWR | O_CREAT | O_TRUNC, 0644) : -1;
                        if (fd < 0 || write(fd, buf, (size_t)len) != len ||
                            mmap(NULL, pg, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
                                return 4;
                        close(fd);
                }
        }
        FILE *f = fopen(argv[argc - 1], "w");
        if (f)
                fclose(f);
        pause();
        return 0;
}
C
mkdir -p "$D/mlib"
cp v1/libdemo.so.1 "$D/mlib/libdemo.so.1"
cc -o "$D/many" many.c -L"$D/mlib" -l:libdemo.so.1 -Wl,-rpath,"$D/mlib" || fatal "cannot link many"
chmod -R a+rX "$D"
# start_many ARGS...: runs $D/many ARGS READY, sets PID once it is ready.
start_many() {
        N=$((N + 1))
        _ready=$T/rd/ready.$N
        "$D/many" "$@" "$_ready" > /dev/null 2>&1 &
        PID=$!
        PIDS="$PIDS $PID"
        for _i in $(seq 1 500); do
                [ -e "$_ready" ] && return 0
                kill -0 $PID 2> /dev/null || fatal "many $* exited"
                sleep 0.02
        done
        fatal "many $* did not start"
}
# The kernel's vm.max_map_count bounds a process's mappings (65530 by
# default); a machine set lower cannot run this (the checks below are
# left unindented for their here-documents).
MAXMAP=$(cat /proc/sys/vm/max_map_count 2> /dev/null || echo 0)
MANY=
if [ "$MAXMAP" -lt 31000 ]; then
        skip "many-mappings: pid and ps of a process with 30,000 mappings" "vm.max_map_count is $MAXMAP here, below 31000"
else
start_many pages 30000
MANY=$PID
# The premise: over 30,000 lines, libc's past the first MiB.
lines=$(wc -l < /proc/$MANY/maps)
libc_at=$(awk '/libc\.so\.6/ { print n; exit } { n += length($0) + 1 }' /proc/$MANY/maps)
[ "$lines" -ge 30000 ] && [ "${libc_at:-0}" -gt 1048576 ] ||
        fatal "many's maps: $lines lines, libc at byte ${libc_at:-none}: not the layout this test needs"
cp v2/libdemo.so.1 "$D/mlib/.libdemo.new" && mv "$D/mlib/.libdemo.new" "$D/mlib/libdemo.so.1" || fatal "cannot replace many's libdemo"
run pid --json $MANY
cp out many-pid.json
python3 - > pyerr 2>&1 <<'PY2' && pass "many-mappings: pid lists the loader, libc, the vDSO and the replaced library of a process with 30,000 mappings" || fail "many-mappings: pid lists the loader, libc, the vDSO and the replaced library of a process with 30,000 mappings" "$(cat pyerr err)"
import json, os
d = json.load(open("many-pid.json"))
names = {os.path.basename(m["path"]): m for m in d["modules"] if not m.get("vdso")}
assert "libc.so.6" in names and any(n.startswith("ld-linux") for n in names), sorted(names)
assert any(m.get("vdso") for m in d["modules"]), "no vDSO"
lib = names["libdemo.so.1"]
assert lib.get("replaced") is True and lib["packages"][0]["version"] == "1.0-1", lib
assert "problems" not in d, d["problems"]
PY2
[ "$STATUS" = 0 ] && [ ! -s err ] && pass "many-mappings: pid exits 0 and warns of nothing" || fail "many-mappings: pid exits 0 and warns of nothing" "status $STATUS: $(cat err)"
run ps --needs-restart --json $MANY
cp out many-ps.json
pcheck "many-mappings: ps --needs-restart flags it for the replaced library, libc listed" many-ps.json \
        "list(procs) == [$MANY] and procs[$MANY]['needsRestart'] == 1 and mod($MANY, 'libdemo.so.1').get('replaced') is True and mod($MANY, 'libc.so.6')['path'].startswith('/')"
run ps $MANY
grep "/libdemo.so.1 " out | grep -q "needs-restart (replaced; installed: demo 2.0-1)" && grep -q "/libc.so.6 " out &&
        pass "many-mappings: the table shows libc and the library to restart for" || fail "many-mappings: the table shows libc and the library to restart for" "$(cat out)"
fi

# Regression (module-limit-said): a cut is said, never silent.  4,100
# files mapped at offset 0 (an ELF header each) are 4,100 modules, past
# PKGNOTE_MAX_MODULES; ps said nothing of it and JSON had no place for it.
mkdir -p "$T/hdr"
head -c 64 "$D/mlib/libdemo.so.1" > "$T/hdr/h"
start_many files 4100 "$T/hdr/h"
FILES=$PID
run ps --json $FILES
cp out files-ps.json
python3 - > pyerr 2>&1 <<'PY2' && pass "module-limit-said: ps --json names the cut in the process's problems" || fail "module-limit-said: ps --json names the cut in the process's problems" "$(cat pyerr)"
import json
[d] = [json.loads(l) for l in open("files-ps.json")]
assert len(d["modules"]) == 4096, len(d["modules"])
assert any("more than 4096 modules" in p for p in d.get("problems", [])), d.get("problems")
PY2
grep -q "^pkgnote: '$FILES': more than 4096 modules" err && pass "module-limit-said: ps says the cut on standard error" ||
        fail "module-limit-said: ps says the cut on standard error" "$(cat err)"
run pid --json $FILES
python3 -c 'import json, sys; d = json.load(open("out")); sys.exit(not any("more than 4096 modules" in p for p in d.get("problems", [])))' &&
        grep -q "^pkgnote: '$FILES': more than 4096 modules" err &&
        pass "module-limit-said: pid says the cut in JSON and on standard error" || fail "module-limit-said: pid says the cut in JSON and on standard error" "$(cat err)"
kill $MANY $FILES 2> /dev/null

# ------------------------------------------- a chroot with its own dpkg
# The chrooted program maps /opt/demo/libdemo.so.1 (no note) of its root,
# which dpkg --root installed as chroot-demo 5.0-1; the host's database
# knows nothing of it, and the root's knows nothing of the host's libc.
if command -v dpkg-deb > /dev/null && command -v chroot > /dev/null; then
        C=$D/croot
        mkdir -p "$C/var/lib/dpkg/info" "$C/var/lib/dpkg/updates" "$C/var/lib/dpkg/triggers"
        : > "$C/var/lib/dpkg/status"
        cc -shared -fPIC -DVERSION='"c"' -Wl,-soname,libdemo.so.1 -o plain.so demo.c || fatal "cannot build the plain libdemo"
        rm -rf pkg && mkdir -p pkg/DEBIAN pkg/opt/demo
        cp plain.so pkg/opt/demo/libdemo.so.1
        printf 'Package: chroot-demo\nVersion: 5.0-1\nArchitecture: amd64\nMaintainer: t <t@example.org>\nDescription: test\n' > pkg/DEBIAN/control
        # A machine-readable copyright file: the license the SBOMs give,
        # one name SPDX knows and one it does not.
        mkdir -p pkg/usr/share/doc/chroot-demo
        printf 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\nUpstream-Name: demo\n\nFiles: *\nCopyright: 2026 t\nLicense: GPL-2+\n\nFiles: extra/*\nCopyright: 2026 t\nLicense: demo-permissive\n' > pkg/usr/share/doc/chroot-demo/copyright
        dpkg-deb --root-owner-group -b pkg chroot-demo.deb > /dev/null || fatal "dpkg-deb failed"
        dpkg --root="$C" --force-not-root --force-bad-path --log=/dev/null -i chroot-demo.deb > dpkg.log 2>&1 || fatal "dpkg: $(cat dpkg.log)"
        LIBC=$(ldd "$D/user" | awk '/libc.so.6/ { print $3 }')
        LDSO=$(ldd "$D/user" | awk '/ld-linux/ { print $1 }')
        mkdir -p "$C$(dirname "$LIBC")" "$C$(dirname "$LDSO")"
        cp "$LIBC" "$C$LIBC" && cp "$LDSO" "$C$LDSO" || fatal "cannot copy libc into the chroot"
        # The root is Debian 5, the host another: a note of the root's OS
        # without its version gets the root's, never the host's.
        mkdir -p "$C/etc"
        printf 'ID=debian\nVERSION_ID="5"\n' > "$C/etc/os-release"
        cc -shared -fPIC -DVERSION='"n"' -Wl,-soname,libnotedemo.so.1 -o "$C/opt/demo/libnotedemo.so.1" demo.c \
                -Xlinker '--package-metadata={"type":"deb","os":"debian","name":"notedemo","version":"3.0-1","architecture":"amd64"}' ||
                fatal "cannot build libnotedemo"
        cc -o "$C/user" user.c "$C/opt/demo/libdemo.so.1" -Wl,--no-as-needed "$C/opt/demo/libnotedemo.so.1" -Wl,-rpath,/opt/demo ||
                fatal "cannot link the chrooted user"
        chroot "$C" /user /ready > /dev/null 2>&1 &
        CPID=$!
        PIDS="$PIDS $CPID"
        for _i in $(seq 1 250); do [ -e "$C/ready" ] && break; sleep 0.02; done
        [ -e "$C/ready" ] || fatal "the chrooted program did not start"
        run ps --json --root "$C"
        cp out chroot.json
        pcheck "chroot: the package from the database of the process's own root" chroot.json \
                "list(procs) == [$CPID] and mod($CPID, 'libdemo.so.1')['packageFrom'] == 'database' and mod($CPID, 'libdemo.so.1')['dbPackage']['name'] == 'chroot-demo' and mod($CPID, 'libdemo.so.1')['dbPackage']['version'] == '5.0-1'"
        pcheck "chroot: the host's database is not asked (its libc is not in the chroot's)" chroot.json \
                "mod($CPID, 'libc.so.6')['packageFrom'] == 'none' and mod($CPID, 'libc.so.6')['dbState'] == 'unowned'"
        run ps --format cyclonedx --root "$C"
        cp out chroot.cdx.json
        python3 - > pyerr 2>&1 <<'PY' && pass "sbom-database: the chroot's package from its own database, said so" || fail "sbom-database: the chroot's package from its own database, said so" "$(cat pyerr out)"
import json
d = json.load(open("chroot.cdx.json"))
libs = [c for c in d["components"] if c["type"] == "library"]
assert [c["name"] for c in libs] == ["chroot-demo", "notedemo"], [c["name"] for c in libs]
c = libs[0]
p = {x["name"]: x["value"] for x in c["properties"]}
assert c["version"] == "5.0-1" and p["pkgnote:origin"] == "database", (c["version"], p)
assert json.loads(p["pkgnote:database"])["name"] == "chroot-demo", p
assert c["purl"] == "pkg:deb/debian/chroot-demo@5.0-1?arch=amd64&distro=debian-5", c["purl"]
PY
        python3 - > pyerr 2>&1 <<'PY' && pass "sbom-purl-root: a note of the root's OS gets the root's version as distro, as in scan" || fail "sbom-purl-root: a note of the root's OS gets the root's version as distro, as in scan" "$(cat pyerr)"
import json
d = json.load(open("chroot.cdx.json"))
[c] = [c for c in d["components"] if c["name"] == "notedemo"]
assert [x["value"] for x in c["properties"] if x["name"] == "pkgnote:origin"] == ["note"], c["properties"]
assert c["purl"] == "pkg:deb/debian/notedemo@3.0-1?arch=amd64&distro=debian-5", c["purl"]
PY
        python3 - > pyerr 2>&1 <<'PY' && pass "sbom-license: the database package's license from its copyright file, as in scan" || fail "sbom-license: the database package's license from its copyright file, as in scan" "$(cat pyerr)"
import json
d = json.load(open("chroot.cdx.json"))
[c] = [c for c in d["components"] if c["name"] == "chroot-demo"]
[lic] = c["licenses"]
names = lic["expression"].split(" AND ")
assert sorted(names) == ["GPL-2.0-or-later", "LicenseRef-demo-permissive"], lic
[n] = [c for c in d["components"] if c["name"] == "notedemo"]
assert "licenses" not in n, n
PY
        run ps --format spdx --root "$C"
        cp out chroot.spdx.json
        spdx3_pair chroot --root "$C" && pass "sbom-spdx3-license: the 2.3 document's facts, licenses and LicenseRef texts ($(cat chroot.cmp))" ||
                fail "sbom-spdx3-license: the 2.3 document's facts, licenses and LicenseRef texts" "$(cat chroot.err chroot.cmp)"
        grep -q '"expandedlicensing_CustomLicense"' chroot.spdx3.json && grep -q '"LicenseRef-demo-permissive"' chroot.spdx3.json &&
                pass "sbom-spdx3-license: the LicenseRef is a CustomLicense the expression maps" ||
                fail "sbom-spdx3-license: the LicenseRef is a CustomLicense the expression maps"
        python3 - > pyerr 2>&1 <<'PY' && pass "sbom-license: SPDX licenseDeclared, its LicenseRef declared" || fail "sbom-license: SPDX licenseDeclared, its LicenseRef declared" "$(cat pyerr)"
import json
d = json.load(open("chroot.spdx.json"))
[p] = [p for p in d["packages"] if p["name"] == "chroot-demo"]
assert sorted(p["licenseDeclared"].split(" AND ")) == ["GPL-2.0-or-later", "LicenseRef-demo-permissive"], p["licenseDeclared"]
assert [x["licenseId"] for x in d.get("hasExtractedLicensingInfos", [])] == ["LicenseRef-demo-permissive"], d.get("hasExtractedLicensingInfos")
[n] = [p for p in d["packages"] if p["name"] == "notedemo"]
assert n["licenseDeclared"] == "NOASSERTION", n
PY
        # One package element (lib/10-write-sbom-package.c) for both
        # writers: the same package read by scan at rest and by ps in
        # memory is the same element in both documents.
        for fmt in cyclonedx spdx; do
                "$PKGNOTE" scan --format $fmt "$C" > "chroot-scan.$fmt.json" 2> err ||
                        fail "sbom-same-element: scan --format $fmt of the chroot" "$(cat err)"
        done
        python3 - > pyerr 2>&1 <<'PY' && pass "sbom-same-element: scan and ps write one package the same (name, version, purl, CPE, licenses)" || fail "sbom-same-element: scan and ps write one package the same (name, version, purl, CPE, licenses)" "$(cat pyerr)"
import json
def by_name(elements, keys):
    return {e["name"]: {k: e.get(k) for k in keys} for e in elements if e["name"] in ("chroot-demo", "notedemo")}
cdx = ["name", "version", "purl", "cpe", "licenses", "type"]
ps, scan = json.load(open("chroot.cdx.json")), json.load(open("chroot-scan.cyclonedx.json"))
a, b = by_name(ps["components"], cdx), by_name(scan["components"], cdx)
assert sorted(a) == ["chroot-demo", "notedemo"] and a == b, (a, b)
spdx = ["name", "versionInfo", "downloadLocation", "filesAnalyzed", "licenseConcluded", "licenseDeclared", "copyrightText", "externalRefs"]
ps, scan = json.load(open("chroot.spdx.json")), json.load(open("chroot-scan.spdx.json"))
a, b = by_name(ps["packages"], spdx), by_name(scan["packages"], spdx)
assert sorted(a) == ["chroot-demo", "notedemo"] and a == b, (a, b)
PY
else
        missing "chroot: the package from the database of the process's own root" "dpkg-deb, chroot"
fi

# ------------------------------------------- a chroot with its own rpm
# The chrooted program maps /opt/rdemo/librdemo.so.1 (no note), which rpm
# --root installed as rpm-demo with the old Fedora License tag "GPLv2+
# and MIT": the SBOMs give it as SPDX maps it, as pkgnote scan does.
if command -v rpmbuild > /dev/null && command -v rpm > /dev/null && command -v chroot > /dev/null; then
        RR=$D/rroot
        mkdir -p "$RR/opt/rdemo" rtop
        cc -shared -fPIC -DVERSION='"r"' -Wl,-soname,librdemo.so.1 -o rplain.so demo.c || fatal "cannot build librdemo"
        printf 'Name: rpm-demo\nVersion: 4.0\nRelease: 2\nSummary: test\nLicense: GPLv2+ and MIT\n%%global debug_package %%{nil}\n%%description\ntest\n%%install\nmkdir -p %%{buildroot}/opt/rdemo\ninstall -m 755 %%{plain} %%{buildroot}/opt/rdemo/librdemo.so.1\n%%files\n/opt/rdemo/librdemo.so.1\n' > rdemo.spec
        rpmbuild --define "_topdir $T/rtop" --define "plain $T/rplain.so" --define '__os_install_post %{nil}' -bb rdemo.spec > rpmbuild.log 2>&1 ||
                fatal "rpmbuild: $(tail -n 5 rpmbuild.log)"
        rpm --root "$RR" --dbpath /var/lib/rpm --initdb > rpm.log 2>&1 &&
                rpm --root "$RR" --dbpath /var/lib/rpm --nodeps --noscripts --ignorearch -i rtop/RPMS/*/rpm-demo-4.0-2.*.rpm >> rpm.log 2>&1 ||
                fatal "rpm -i: $(cat rpm.log)"
        LIBC=$(ldd "$D/user" | awk '/libc.so.6/ { print $3 }')
        LDSO=$(ldd "$D/user" | awk '/ld-linux/ { print $1 }')
        mkdir -p "$RR$(dirname "$LIBC")" "$RR$(dirname "$LDSO")"
        cp "$LIBC" "$RR$LIBC" && cp "$LDSO" "$RR$LDSO" || fatal "cannot copy libc into the rpm chroot"
        cc -o "$RR/user" user.c -Wl,--no-as-needed "$RR/opt/rdemo/librdemo.so.1" -Wl,-rpath,/opt/rdemo || fatal "cannot link the rpm chroot's user"
        chroot "$RR" /user /ready > /dev/null 2>&1 &
        RPID=$!
        PIDS="$PIDS $RPID"
        for _i in $(seq 1 250); do [ -e "$RR/ready" ] && break; sleep 0.02; done
        [ -e "$RR/ready" ] || fatal "the rpm chroot's program did not start"
        run ps --format cyclonedx --root "$RR"
        cp out rpm.cdx.json
        run ps --format spdx --root "$RR"
        cp out rpm.spdx.json
        spdx3_pair rpm --root "$RR" && pass "sbom-spdx3-rpm: the 2.3 document's facts ($(cat rpm.cmp))" ||
                fail "sbom-spdx3-rpm: the 2.3 document's facts" "$(cat rpm.err rpm.cmp)"
        python3 - > pyerr 2>&1 <<'PY' && pass "sbom-license-rpm: the License tag mapped to SPDX, as in scan" || fail "sbom-license-rpm: the License tag mapped to SPDX, as in scan" "$(cat pyerr)"
import json
d = json.load(open("rpm.cdx.json"))
[c] = [c for c in d["components"] if c["name"] == "rpm-demo"]
assert [x["value"] for x in c["properties"] if x["name"] == "pkgnote:origin"] == ["database"], c["properties"]
assert c["licenses"] == [{"expression": "GPL-2.0-or-later AND MIT"}], c.get("licenses")
assert json.loads([x["value"] for x in c["properties"] if x["name"] == "pkgnote:database"][0])["license"] == "GPLv2+ and MIT", c["properties"]
s = json.load(open("rpm.spdx.json"))
[p] = [p for p in s["packages"] if p["name"] == "rpm-demo"]
assert p["licenseDeclared"] == "GPL-2.0-or-later AND MIT", p["licenseDeclared"]
PY
else
        missing "sbom-license-rpm: the License tag mapped to SPDX, as in scan" "rpmbuild, rpm, chroot"
fi

# ----------------------------------------- processes exiting in the walk
# A loop starts and ends short processes while ps walks every process:
# those gone between the listing and their reading are passed over.
(while [ ! -e "$T/stop" ]; do /bin/true; /bin/sleep 0.001; done) > /dev/null 2>&1 &
LOOP=$!
PIDS="$PIDS $LOOP"
bad=0
for i in $(seq 1 20); do
        "$PKGNOTE" ps > churn.out 2> churn.err || { bad=1; break; }
        # What a process still there says of itself (another test's, run
        # beside this one) is no matter here: only the gone ones must say
        # nothing.
        grep -v "^pkgnote: ps: [0-9]* process\(es\)\? could not be read (permission denied); [0-9]* shown\$" churn.err |
                while IFS= read -r line; do
                        p=$(printf '%s\n' "$line" | sed -n "s/^pkgnote: '\([0-9][0-9]*\)': .*/\1/p")
                        [ -n "$p" ] && kill -0 "$p" 2> /dev/null && continue
                        printf '%s\n' "$line"
                done > churn.other
        [ -s churn.other ] && { bad=1; break; }
        "$PKGNOTE" ps --json > churn.out 2> churn.err || { bad=1; break; }
        python3 -c 'import json, sys; [json.loads(l) for l in open("churn.out")]' || { bad=1; break; }
done
touch "$T/stop"
wait $LOOP 2> /dev/null
[ $bad = 0 ] && pass "exiting-processes: 40 walks beside short processes, no error" ||
        fail "exiting-processes: 40 walks beside short processes, no error" "run $i: $(cat churn.err)"

# ------------------------------------------------------------ unprivileged
setpriv --reuid=65534 --regid=65534 --clear-groups "$PKGNOTE" ps --json > np.out 2> np.err
NPSTATUS=$?
if [ $NPSTATUS = 0 ] && python3 - $OLDNOBODY $OLD > pyerr 2>&1 <<'PY'
import json, re, sys
pids = [json.loads(l)["pid"] for l in open("np.out")]
err = open("np.err").read().splitlines()
assert int(sys.argv[1]) in pids, "the process of nobody is missing: %s" % pids
assert int(sys.argv[2]) not in pids, "root's process is listed"
rows = [json.loads(l) for l in open("np.out")]
for r in rows:  # pkgnote ps itself is one of them, gone by now: its uid as reported
    assert r["uid"] == 65534, "process %d is not nobody's" % r["pid"]
assert len(err) == 1, "stderr: %s" % err
m = re.match(r"pkgnote: ps: (\d+) process(es)? could not be read \(permission denied\); (\d+) shown$", err[0])
assert m and int(m.group(1)) > 0 and int(m.group(3)) == len(pids), err
PY
then pass "unprivileged: its own processes alone, and one line counting the others"
else fail "unprivileged: its own processes alone, and one line counting the others" "status $NPSTATUS; $(cat pyerr np.err)"
fi

setpriv --reuid=65534 --regid=65534 --clear-groups "$PKGNOTE" ps --root / > npr.out 2> npr.err
grep -q "^pkgnote: ps: [1-9][0-9]* process\(es\)\? could not be read (permission denied); [0-9]* shown\$" npr.err &&
        grep -q "^ *$OLDNOBODY " npr.out && pass "unprivileged --root: the processes whose root it may not see are counted" ||
        fail "unprivileged --root: the processes whose root it may not see are counted" "$(cat npr.out npr.err)"

# ------------------------------------------ SBOMs against their schemas
if sbom_validator "sbom: the documents validate against the official schemas"; then
        # CycloneDX 1.6 (the default) against the schema npm's
        # @cyclonedx/cyclonedx-library ships; 1.5 against shared/'s.
        # Every process this user may read, as well as the test's.
        "$PKGNOTE" ps --format cyclonedx > all.cdx.json 2> /dev/null
        "$PKGNOTE" ps --format cyclonedx --cyclonedx-version 1.5 > all15.cdx.json 2> /dev/null
        "$PKGNOTE" ps --format spdx > all.spdx.json 2> /dev/null
        python3 -c 'import json, sys; sys.exit([json.load(open(f))["specVersion"] for f in sys.argv[1:]] != ["1.6", "1.5", "1.6", "1.5"])' \
                running.cdx.json running15.cdx.json all.cdx.json all15.cdx.json &&
                pass "sbom-schema: the documents validated are of both CycloneDX versions" ||
                fail "sbom-schema: the documents validated are of both CycloneDX versions"
        "$PKGNOTE" ps --format spdx3 > all.spdx3.json 2> /dev/null
        docs="running.cdx.json:cyclonedx running15.cdx.json:cyclonedx running17.cdx.json:cyclonedx running.spdx.json:spdx all.cdx.json:cyclonedx all15.cdx.json:cyclonedx all.spdx.json:spdx"
        docs="$docs running.spdx3.json:spdx3 all.spdx3.json:spdx3"
        [ -f chroot.cdx.json ] && docs="$docs chroot.cdx.json:cyclonedx chroot.spdx.json:spdx chroot.spdx3.json:spdx3"
        [ -f rpm.cdx.json ] && docs="$docs rpm.cdx.json:cyclonedx rpm.spdx.json:spdx rpm.spdx3.json:spdx3"
        for f in $docs; do
                validate_sbom "sbom-schema: ${f%%:*} validates against the ${f#*:} schema" "$AJV" "$SCHEMAS" "${f#*:}" "${f%%:*}"
        done
fi

# SPDX 3.0.1 read by a second reader (JSON-LD, the model's SHACL shapes).
if ! spdx3_reader "${BUILDDIR:-$HOME}"; then
        spdx3_unavailable "sbom-spdx3-model: the documents conform to the SPDX 3.0.1 model"
else
        for f in running chroot rpm; do
                [ -f $f.spdx3.json ] && spdx3_shacl "sbom-spdx3-model: $f.spdx3.json conforms to the SPDX 3.0.1 model" $f.spdx3.json
        done
fi

run ps 0
expect_status 2 "a PID of 0 is refused"
run ps --user no-such-user-here
expect_status 2 "an unknown user is refused"

finish
