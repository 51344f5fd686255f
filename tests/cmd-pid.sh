#!/bin/sh
# pkgnote pid: a running process's modules, read from the files as mapped,
# with a library replaced on disk (as an upgrade does) and the executable
# deleted while the process runs.
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

run pid 999999999
expect_status 2 "a missing process exits 2"
run pid notapid
expect_status 2 "a non-numeric PID exits 2"
expect_err "is not a process ID" "says the PID is invalid"
finish
