#!/bin/sh
# A crashing process chooses its own /proc/PID/maps, which pid, core and
# the crash handler read while the kernel holds it: tests/read/hostile/
# hostile.c maps a packaged library (decoy/6.6) as files named with a
# newline, named " (deleted)", by a path of 3,600 bytes, deleted and
# replaced (by replacer/9.9) after mapping, and the replacement and its
# copy at 15,000 more places each.  Every name must come out as it is, no file taken for
# deleted by its name, the mappings of one file must not push the others
# (its C library) out of the module limit, in a live process or its core,
# and the handler must identify it quickly and keep a valid entry.
. "$SRCDIR/tests/lib.sh"
HANDLER="$BUILDDIR/pkgnote-coredump"
[ -x "$HANDLER" ] || fatal "no $HANDLER"
require cc python3
H="$SRCDIR/tests/read/hostile"
echo 'int f(void) { return 1; }' > l.c
cc -c "$H/big-note.S" -o big.o && cc -c "$H/decoy-note.S" -o decoy.o || fatal "cannot assemble the notes"
# The package note past the first page (8 KiB of another note before it).
cc -shared -fPIC -o lib.so big.o decoy.o l.c || fatal "cannot build lib.so"
cc -shared -fPIC -o other.so l.c -Xlinker '--package-metadata={"type":"deb","name":"replacer","version":"9.9","architecture":"amd64"}' \
        || fatal "cannot build other.so"
cc -o hostile "$H/hostile.c" -Xlinker '--package-metadata={"type":"deb","name":"hostile","version":"1","architecture":"amd64"}' \
        || fatal "cannot build hostile"
PIDS=
trap 'kill $PIDS 2>/dev/null; umount_below "$T"; rm -rf "$T"' EXIT
start() { # DIR FLAGS: a waiting hostile process, its PID in HPID
        mkdir -p "$1"
        ./hostile "$1" lib.so other.so "$2" > "$1.ready" &
        HPID=$!
        PIDS="$PIDS $HPID"
        n=0
        while [ "$(cat "$1.ready")" != ready ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n + 1)); done
        [ "$(cat "$1.ready")" = ready ] || fatal "hostile $2 did not get ready"
}

# ---- a live process: pid --json ----
start "$T/few" ""
"$PKGNOTE" pid --json $HPID > few.json 2> few.err
[ $? -eq 0 ] && pass "pid: status 0" || fail "pid: status 0" "$(cat few.err)"
python3 - "$T/few" > pyerr 2>&1 << 'PY' && pass "pid: every hostile name as it is, each with what is mapped" || fail "pid: every hostile name as it is, each with what is mapped" "$(cat pyerr)"
import json, os, sys
d = sys.argv[1]
mods = {m["path"]: m for m in json.load(open("few.json"))["modules"]}
def pkgs(m, key="packages"):
    return [(p["name"], p["version"]) for p in m.get(key, [])]
decoy = [("decoy", "6.6")]
deep = [p for p in mods if p.endswith("/lib.so") and len(p) > 3500]
assert len(deep) == 1 and deep[0] == os.path.join(d, *["d" * 255] * 14, "lib.so"), deep
for name in ("evil\nname.so", "trick.so (deleted)"):
    m = mods[os.path.join(d, name)]
    assert pkgs(m) == decoy and not m.get("deleted"), m
assert os.path.join(d, "trick.so") not in mods, "a file named so taken for a deleted one"
assert pkgs(mods[deep[0]]) == decoy, mods[deep[0]]
gone = mods[os.path.join(d, "gone.so")]
assert gone.get("deleted") and pkgs(gone) == decoy, gone
sw = mods[os.path.join(d, "swapped.so")]
assert sw.get("replaced") and pkgs(sw) == decoy and pkgs(sw, "installedPackages") == [("replacer", "9.9")], sw
exe = [m for m in mods.values() if m["path"].endswith("/hostile")]
assert len(exe) == 1 and pkgs(exe[0]) == [("hostile", "1")], exe
PY
# the escaped name in maps is the kernel's: the test means nothing without it
grep -q 'evil\\012name.so' /proc/$HPID/maps && pass "the kernel's maps shows the newline escaped" || fail "the kernel's maps shows the newline escaped" "$(grep evil /proc/$HPID/maps)"

start "$T/many" m
lines=$(wc -l < /proc/$HPID/maps)
[ "$lines" -gt 30000 ] || fatal "only $lines mappings"
"$PKGNOTE" pid --json $HPID > many.json 2> many.err
[ $? -eq 0 ] && pass "pid, $lines mappings: status 0" || fail "pid, $lines mappings: status 0" "$(cat many.err)"
python3 - "$T/many" > pyerr 2>&1 << 'PY' && pass "pid, $lines mappings: one file keeps 16 modules, the C library and loader are not pushed out" || fail "pid: one file keeps 16 modules, libc kept" "$(cat pyerr many.err)"
import json, os, sys
mods = json.load(open("many.json"))["modules"]
sw = [m for m in mods if m["path"] == os.path.join(sys.argv[1], "swapped.so")]
assert len(sw) == 16 + 1, len(sw)  # the first mapping (decoy) and 16 of the replacement
tw = [m for m in mods if m["path"] == os.path.join(sys.argv[1], "twin.so")]
assert len(tw) == 16 and all([p["name"] for p in m["packages"]] == ["replacer"] for m in tw), tw
assert any(m["path"].endswith("/libc.so.6") for m in mods), [m["path"] for m in mods]
assert any("ld-linux" in m["path"] for m in mods), [m["path"] for m in mods]
assert len(mods) < 50, len(mods)
PY
grep -q "swapped.so mapped at more than 16 places: the further ones are left out" many.err \
        && pass "pid: says which file's mappings it left out" || fail "pid: says which file's mappings it left out" "$(cat many.err)"

# ---- the crash handler identifying it (pipe mode; the core fed is
# another program's, the identity is /proc's) ----
ulimit -c unlimited
case $(cat /proc/sys/kernel/core_pattern) in
"|"* | "@"*) CORES=no ;;
*) CORES=yes ;;
esac
printf 'int main(void) { *(volatile int *)0 = 1; return 0; }\n' > seg.c
cc -o seg seg.c || fatal "cannot build seg"
if [ $CORES = yes ]; then
        (ulimit -c unlimited; exec ./seg) 2> /dev/null
        [ -f core ] && mv core seg.core
fi
if [ -f seg.core ]; then
        t0=$(date +%s)
        for t in 1700000000 1700000001; do
                timeout 120 "$HANDLER" -d "$T/store" -l "$T/log" --quota-count 1 --quota-interval 3600 $HPID 0 0 11 $t \
                        18446744073709551615 testhost hostile < seg.core || fail "handler at $t exits 0"
        done
        t1=$(date +%s)
        [ $((t1 - t0)) -lt 60 ] && pass "handler: two crashes of a process of $lines mappings in $((t1 - t0)) s" \
                || fail "handler: two crashes of a process of $lines mappings" "$((t1 - t0)) s"
        python3 - "$T/store" > pyerr 2>&1 << 'PY' && pass "handler: the metadata-only entry names the program and its package, valid JSON" || fail "handler: the metadata-only entry names the program and its package" "$(cat pyerr "$T/log")"
import json, os, sys
rej = os.path.join(sys.argv[1], "rejected")
[name] = os.listdir(rej)
r = json.load(open(os.path.join(rej, name)))
assert r["program"] == os.path.realpath("hostile") and r["programPackage"] == "hostile/1", r
p = r.get("process")
if p is not None:
    assert any(m["path"].endswith("/libc.so.6") for m in p["modules"]), p["modules"]
PY
else
        skip "handler: a process of many mappings" "core_pattern writes no core file here"
fi

# ---- its core: the kernel wrote NT_FILE from the same maps ----
if [ $CORES = yes ]; then
        mkdir -p "$T/crash" "$T/crashd" && cd "$T/crash" || fatal "cd"
        # It crashes in DIR (crashd): the kernel writes the core there.
        (ulimit -c unlimited; exec ../hostile "$T/crashd" ../lib.so ../other.so mc) 2> /dev/null
        mv "$T/crashd/core" "$T/crash/core" 2> /dev/null
        cd "$T" || fatal "cd"
fi
if [ -f "$T/crash/core" ]; then
        "$PKGNOTE" core --json "$T/crash/core" > core.json 2> core.err
        [ $? -eq 0 ] && pass "core: status 0" || fail "core: status 0" "$(cat core.err)"
        python3 - "$T/crashd" > pyerr 2>&1 << 'PY' && pass "core: one file keeps 16 modules; libc kept; a file named \" (deleted)\" read from the disk under its name" || fail "core: 16 per file, libc, the file named so" "$(cat pyerr core.err)"
import json, os, sys
d = sys.argv[1]
mods = json.load(open("core.json"))["modules"]
# NT_FILE has names, no inodes: 16 of each name; the first swapped.so
# (decoy) is "swapped.so (deleted)" there, renamed over
for name in ("swapped.so", "twin.so"):
    n = [m for m in mods if m["path"] == os.path.join(d, name) and not m.get("deleted")]
    assert len(n) == 16, (name, len(n))
assert len([m for m in mods if m["path"] == os.path.join(d, "swapped.so") and m.get("deleted")]) == 1
assert any(m["path"].endswith("/libc.so.6") for m in mods), [m["path"] for m in mods]
by = {m["path"]: m for m in mods}
t = by.get(os.path.join(d, "trick.so (deleted)"))
assert t and not t.get("deleted") and [p["name"] for p in t["packages"]] == ["decoy"], (t, sorted(by)[:12])
g = by[os.path.join(d, "gone.so")]
assert g.get("deleted"), g
PY
        grep -q "twin.so mapped at more than 16 places: the further ones are left out" core.err \
                && pass "core: says which file's mappings it left out" || fail "core: says which file's mappings it left out" "$(cat core.err)"
        # The usual layout: the library's notes in its first page, which the
        # core holds (nothing read from the disk for them); the name
        # " (deleted)" is still checked on the disk, by build-id.
        cc -shared -fPIC -o first.so l.c -Xlinker '--package-metadata={"type":"deb","name":"decoy","version":"6.6","architecture":"amd64"}' \
                || fatal "cannot build first.so"
        mkdir -p "$T/crash2" "$T/crashd2" && cd "$T/crash2" || fatal "cd"
        (ulimit -c unlimited; exec ../hostile "$T/crashd2" ../first.so ../other.so c) 2> /dev/null
        mv "$T/crashd2/core" "$T/crash2/core" 2> /dev/null
        cd "$T" || fatal "cd"
        "$PKGNOTE" core --json "$T/crash2/core" > core2.json 2> core2.err
        python3 - "$T/crashd2" > pyerr 2>&1 << 'PY' && pass "core, notes in the dumped page: a file named \" (deleted)\" keeps its name, a deleted one is deleted" || fail "core, notes in the dumped page: the file named so" "$(cat pyerr core2.err)"
import json, os, sys
d = sys.argv[1]
by = {m["path"]: m for m in json.load(open("core2.json"))["modules"]}
t = by.get(os.path.join(d, "trick.so (deleted)"))
assert t and not t.get("deleted") and t["source"] == "core" and [p["name"] for p in t["packages"]] == ["decoy"], (t, sorted(by))
assert os.path.join(d, "trick.so") not in by, sorted(by)
g = by[os.path.join(d, "gone.so")]
assert g.get("deleted") and [p["name"] for p in g["packages"]] == ["decoy"], g
PY
else
        skip "core of a process of many mappings" "core_pattern writes no core file here"
fi
finish
