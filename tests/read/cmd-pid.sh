#!/bin/sh
# pkgnote pid: a running process's modules, read from the files as mapped,
# with a library replaced on disk (as an upgrade does) and the executable
# deleted while the process runs; a process in another mount namespace.
. "$SRCDIR/tests/lib.sh"

cat > lib.c <<'C'
const char *lib_version(void) { return "v1"; }
C
cat > main.c <<'C'
#include <unistd.h>
const char *lib_version(void);
int main(void) { lib_version(); pause(); return 0; }
C
note() { printf '{"type":"deb","name":"%s","version":"%s","architecture":"amd64"}' "$1" "$2"; }
cc -shared -fPIC -o libdemo.so lib.c -Xlinker "--package-metadata=$(note libdemo 1.0)" || fatal "cannot build the library"
cc -o prog main.c -L. -ldemo -Wl,-rpath,"$T" -Xlinker "--package-metadata=$(note prog 3.1)" || fatal "cannot build the program"
./prog &
PID=$!
sleep 0.3
kill -0 $PID 2>/dev/null || fatal "the test program did not start"

run pid --json $PID
expect_status 0 "pid of a running process exits 0"
python3 - "$T" <<'PY' && pass "modules with notes as mapped" || fail "modules with notes as mapped"
import json, sys
d = json.load(open("out"))
mods = {m["path"]: m for m in d["modules"]}
t = sys.argv[1]
assert d["package"]["name"] == "prog", d["package"]
assert mods[t + "/libdemo.so"]["packages"][0]["version"] == "1.0"
assert mods[t + "/libdemo.so"]["source"] == "mapped"
assert any(m.get("vdso") for m in d["modules"])
assert not any(m.get("replaced") or m.get("deleted") for m in d["modules"])
PY

# Upgrade: a new build renamed over the old path, as package managers do.
cc -shared -fPIC -o libdemo.so.new lib.c -Xlinker "--package-metadata=$(note libdemo 2.0)" || fatal "cannot rebuild"
mv libdemo.so.new libdemo.so
rm prog
run pid --json $PID
expect_status 0 "pid after upgrade exits 0"
python3 - "$T" <<'PY' && pass "replaced library flagged, old note shown" || fail "replaced library flagged, old note shown"
import json, sys
d = json.load(open("out"))
mods = {m["path"]: m for m in d["modules"]}
t = sys.argv[1]
lib = mods[t + "/libdemo.so"]
assert lib.get("replaced") is True, lib
assert lib["packages"][0]["version"] == "1.0", lib
exe = mods[t + "/prog"]
assert exe.get("deleted") is True, exe
assert exe["packages"][0]["name"] == "prog", exe
PY
run pid $PID
grep -q "libdemo.so (replaced on disk) from deb libdemo-1.0 (amd64)" out && pass "text names the replacement" || fail "text names the replacement" "$(cat out)"
grep -q "prog (deleted) from deb prog-3.1" out && pass "text names the deleted executable" || fail "text names the deleted executable" "$(cat out)"
kill $PID 2>/dev/null
wait $PID 2>/dev/null

# Regression: a mapped file whose name holds a newline was shown with the
# kernel's "\012" escape of /proc/PID/maps instead of the name itself.
nl='
'
cc -shared -fPIC -o "lib${nl}line.so" lib.c -Xlinker "--package-metadata=$(note nlname 1.0)" || fatal "cannot build lib-newline"
cat > dl.c <<'C'
#include <dlfcn.h>
#include <unistd.h>
int main(int argc, char **argv) { if (argc < 2 || !dlopen(argv[1], RTLD_NOW)) return 1; pause(); return 0; }
C
cc -o dlprog dl.c -ldl || fatal "cannot build dlprog"
./dlprog "$T/lib${nl}line.so" &
DPID=$!
sleep 0.3
grep -q 'line.so' /proc/$DPID/maps && grep -q '\\012' /proc/$DPID/maps || fatal "the kernel does not show the escaped name"
run pid --json $DPID
export WANT="$T/lib${nl}line.so"
python3 - <<'PY' && pass "bug-pid-escaped-newline: the name is decoded" || fail "bug-pid-escaped-newline: the name is decoded" "$(cat out)"
import json, os
d = json.load(open("out"))
m = [m for m in d["modules"] if m["path"] == os.environ["WANT"]]
assert len(m) == 1, [x["path"] for x in d["modules"]]
assert m[0]["packages"][0]["name"] == "nlname", m[0]
PY
kill $DPID 2>/dev/null
wait $DPID 2>/dev/null

# Regression (pid-container-root): a process in another mount namespace
# (bubblewrap here, as a container) maps the library its root holds at
# $T/ns/lib, not the host's file at that path.  pid compared it with the
# host's file: "replaced on disk", the host file's note as installed.  It
# must look in the process's root (/proc/PID/root), as ps does.
if ! command -v bwrap > /dev/null; then
        missing "pid-container-root: nothing flagged, the container's file's note" bwrap
else
        mkdir -p ns/lib ns/croot
        cc -shared -fPIC -Wl,-soname,libns.so.1 -o ns/lib/libns.so.1 lib.c -Xlinker "--package-metadata=$(note nslib 1.0)" &&
                cc -shared -fPIC -Wl,-soname,libns.so.1 -o ns/croot/libns.so.1 lib.c -Xlinker "--package-metadata=$(note nslib 2.0)" &&
                cc -shared -fPIC -Wl,-soname,libns.so.1 -o ns/v3.so lib.c -Xlinker "--package-metadata=$(note nslib 3.0)" ||
                fatal "cannot build libns"
        cat > nsmain.c <<'C'
#include <stdio.h>
#include <unistd.h>
const char *lib_version(void);
int main(int argc, char **argv) {
        FILE *f = fopen(argv[1], "w");
        if (!lib_version() || !f)
                return 1;
        fclose(f);
        pause();
        return 0;
}
C
        cc -o ns/nsprog nsmain.c -L"$T/ns/lib" -l:libns.so.1 -Wl,-rpath,"$T/ns/lib" || fatal "cannot build nsprog"
        bwrap_isolate
        # Whether a mount namespace can be made here at all (a container
        # may forbid it): else a skip with bwrap's own reason.
        if ! bwrap --bind / / --bind "$T/ns/croot" "$T/ns/lib" $BWRAP_ISOLATE --dev /dev true 2> bwrap.err; then
                skip "pid-container-root: nothing flagged, the container's file's note" "bwrap cannot make a mount namespace here: $(head -n 1 bwrap.err)"
        else
                bwrap --bind / / --bind "$T/ns/croot" "$T/ns/lib" $BWRAP_ISOLATE --dev /dev "$T/ns/nsprog" "$T/ns/ready" > /dev/null 2>&1 &
                BW=$!
                for _i in $(seq 1 250); do [ -e ns/ready ] && break; sleep 0.02; done
                # The program's PID as the host sees it (bwrap may start a
                # PID namespace): the process whose executable is nsprog.
                NSPID=
                for d in /proc/[0-9]*; do
                        [ "$(readlink "$d/exe" 2> /dev/null)" = "$T/ns/nsprog" ] && NSPID=${d#/proc/} && break
                done
                [ -n "$NSPID" ] || fatal "the program in the namespace did not start"
                grep -q "$T/ns/lib/libns.so.1" /proc/$NSPID/maps || fatal "the program does not map libns"
                cmp -s ns/lib/libns.so.1 "/proc/$NSPID/root$T/ns/lib/libns.so.1" && fatal "the namespace shows the host's libns"
                run pid --json $NSPID
                cp out ns1.json
                python3 - "$T" > pyerr 2>&1 <<'PY2' && pass "pid-container-root: nothing flagged, the container's file's note" || fail "pid-container-root: nothing flagged, the container's file's note" "$(cat pyerr err)"
import json, sys
d = json.load(open("ns1.json"))
[m] = [m for m in d["modules"] if m["path"] == sys.argv[1] + "/ns/lib/libns.so.1"]
assert m["packages"][0]["version"] == "2.0", m
assert "replaced" not in m and "deleted" not in m and "installedPackages" not in m, m
assert not any(x.get("replaced") for x in d["modules"]), [x["path"] for x in d["modules"] if x.get("replaced")]
PY2
                run pid $NSPID
                ! grep -q "replaced on disk" out && pass "pid-container-root: the text flags nothing" ||
                        fail "pid-container-root: the text flags nothing" "$(cat out)"
                # An upgrade inside the container: the installed version is
                # the container's new file's, never the host's.
                cp ns/v3.so ns/croot/.new && mv ns/croot/.new ns/croot/libns.so.1
                run pid --json $NSPID
                cp out ns2.json
                python3 - "$T" > pyerr 2>&1 <<'PY2' && pass "pid-container-root: replaced in the container, its new file's note installed" || fail "pid-container-root: replaced in the container, its new file's note installed" "$(cat pyerr err)"
import json, sys
d = json.load(open("ns2.json"))
[m] = [m for m in d["modules"] if m["path"] == sys.argv[1] + "/ns/lib/libns.so.1"]
assert m.get("replaced") is True and m["packages"][0]["version"] == "2.0", m
assert m["installedPackages"][0]["version"] == "3.0", m
PY2
                kill $NSPID $BW 2> /dev/null
                wait $BW 2> /dev/null
        fi
fi

run pid 999999999
expect_status 2 "a missing process exits 2"
run pid notapid
expect_status 2 "a non-numeric PID exits 2"
expect_err "is not a process ID" "says the PID is invalid"
finish
