#!/bin/sh
# pkgnote-coredump called exactly as the kernel calls a core_pattern pipe
# handler (arguments %P %u %g %s %t %c %h %e, a real core on standard
# input), then pkgnote list and pkgnote core on what it stored.  No
# /proc/sys setting is touched: the cores come from ulimit -c and the
# core_pattern this machine already has.
. "$SRCDIR/tests/lib.sh"
HANDLER="$BUILDDIR/pkgnote-coredump"
[ -x "$HANDLER" ] || fatal "no $HANDLER"
case $(cat /proc/sys/kernel/core_pattern) in
"|"*) echo "1..0 # SKIP core_pattern is a pipe here: cannot make a core file to feed"; exit 77 ;;
esac
ulimit -c unlimited

cat > crash.c <<'C'
#include <stdlib.h>
int main(int argc, char **argv) { if (argc > 1) abort(); *(volatile int *)0 = 1; return 0; }
C
cc -o crasher crash.c -Xlinker '--package-metadata={"type":"deb","name":"crasher","version":"4.2-1","architecture":"amd64"}' \
        || fatal "cannot build"
make_core() { # $1: name for the core file; $2: extra argument
        rm -f core
        sh -c "ulimit -c unlimited; exec ./crasher ${2:-}" 2>/dev/null
        [ -f core ] || fatal "the kernel wrote no core"
        mv core "$1"
}
make_core segv.core
make_core abrt.core x
STATE="$T/state"
# Stored cores are zstd-compressed where the build has zstd.
if has_feature zstd; then Z=.zst; else Z=; fi
feed() { # core pid sig time [options]
        core=$1 pid=$2 sig=$3 t=$4
        shift 4
        "$HANDLER" -d "$STATE" -l "$T/log" "$@" "$pid" 0 0 "$sig" "$t" 18446744073709551615 testhost crasher < "$core"
}
feed segv.core 101 11 1700000000
[ $? -eq 0 ] && pass "handler exits 0" || fail "handler exits 0"
entry="$STATE/core.crasher.0.101.1700000000"
[ -s "$entry.json" ] && pass "report written" || fail "report written"
if [ -z "$Z" ]; then
        cmp -s "$entry" segv.core && pass "stored core is the original" || fail "stored core is the original"
elif command -v zstd >/dev/null; then
        zstd -dc "$entry.zst" | cmp -s - segv.core && pass "stored core decompresses to the original" \
                || fail "stored core decompresses to the original"
fi
python3 - "$entry.json" <<'PY' && pass "report names the package" || fail "report names the package"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["package"]["name"] == "crasher" and d["package"]["version"] == "4.2-1", d["package"]
assert d["signal"] == 11 and d["hostname"] == "testhost" and d["time"] == 1700000000, d
PY
# and the machine, which stays with the report when the store is read on
# another machine (a store copied to a collector)
if [ "$(wc -c < /etc/machine-id 2> /dev/null)" = 33 ]; then
        python3 - "$entry.json" <<'PY' && pass "report names this machine" || fail "report names this machine" "$(cat "$entry.json")"
import json, sys
assert json.load(open(sys.argv[1]))["machineId"] == open("/etc/machine-id").read().strip()
PY
        cp "$entry.json" "$T/other.json"
        python3 - "$T/other.json" <<'PY' || fatal "cannot make another machine's report"
import json, sys
d = json.load(open(sys.argv[1]))
d["machineId"] = "0123456789abcdef0123456789abcdef"
json.dump(d, open(sys.argv[1], "w"))
PY
        mkdir -p "$T/copied" && cp "$entry$Z" "$T/copied/" && cp "$T/other.json" "$T/copied/$(basename "$entry.json")"
        "$PKGNOTE" list --json -d "$T/copied" > copied.out 2>&1
        grep -q '"machineId": *"0123456789abcdef0123456789abcdef"' copied.out &&
                pass "a copied store's report keeps its machine" || fail "a copied store's report keeps its machine" "$(cat copied.out)"
else
        skip "report names this machine" "no /etc/machine-id here"
fi
# and the kernel it ran on: the report is made where the crash is, with
# the kernel's own notes (ps --kernel's object without modules, image,
# database or reboot answer: nothing decompressed at crash time)
if [ -r /sys/kernel/notes ]; then
        "$PKGNOTE" ps --kernel --json --no-database > kernel.json 2> kernel.err || fatal "ps --kernel: $(cat kernel.err)"
        python3 - "$entry.json" > pyerr 2>&1 << 'PY' && pass "report names the running kernel" || fail "report names the running kernel" "$(cat pyerr)"
import json, sys
d = json.load(open(sys.argv[1]))
k = json.load(open("kernel.json"))
for key in ("modules", "image", "needsReboot", "cannotTell", "reboot"):
    k.pop(key, None)
assert d["kernel"] == k, (d.get("kernel"), k)
assert k["release"] == open("/proc/sys/kernel/osrelease").read().strip() and k["buildId"], k
PY
        # the listing and core show it as fields of the crash
        kr=$(python3 -c 'import json; print(json.load(open("kernel.json"))["release"])')
        kb=$(python3 -c 'import json; print(json.load(open("kernel.json"))["buildId"])')
        "$PKGNOTE" list --json -d "$STATE" > klist.out 2>&1
        python3 - "$kr" "$kb" > pyerr 2>&1 << 'PY' && pass "list --json: kernelRelease, kernelBuildId" || fail "list --json: kernelRelease, kernelBuildId" "$(cat pyerr klist.out)"
import json, sys
[r] = [json.loads(l) for l in open("klist.out")]
assert (r["kernelRelease"], r["kernelBuildId"]) == (sys.argv[1], sys.argv[2]), r
PY
        "$PKGNOTE" core -d "$STATE" 101 > kcore.out 2>&1
        grep -qF "Kernel: $kr (build-id $kb)" kcore.out && pass "core: the kernel the crash ran on" || fail "core: the kernel the crash ran on" "$(cat kcore.out)"
        "$PKGNOTE" core --json -d "$STATE" 101 > kcore.json 2>&1
        python3 - "$kr" "$kb" > pyerr 2>&1 << 'PY' && pass "core --json: kernelRelease, kernelBuildId" || fail "core --json: kernelRelease, kernelBuildId" "$(cat pyerr kcore.json)"
import json, sys
d = json.load(open("kcore.json"))
assert (d["kernelRelease"], d["kernelBuildId"]) == (sys.argv[1], sys.argv[2]), d
PY
        # a report's kernel is the store's bytes: other shapes give no field
        for bad in '"kernel": 7' '"kernel": {"release": 7, "buildId": ["x"]}' '"kernel": {}'; do
                mkdir -p "$T/kbad" && rm -f "$T/kbad"/*
                cp "$entry$Z" "$T/kbad/"
                python3 - "$entry.json" "$T/kbad/$(basename "$entry.json")" "{$bad}" << 'PY' || fatal "cannot write the report"
import json, sys
d = json.load(open(sys.argv[1]))
d.update(json.loads(sys.argv[3]))
json.dump(d, open(sys.argv[2], "w"))
PY
                "$PKGNOTE" list --json -d "$T/kbad" > kbad.out 2> kbad.err
                if [ $? -eq 0 ] && [ "$(grep -c . kbad.out)" = 1 ] && ! grep -q kernelRelease kbad.out && ! grep -q kernelBuildId kbad.out; then
                        pass "a report with {$bad}: listed, without kernel fields"
                else
                        fail "a report with {$bad}: listed, without kernel fields" "$(cat kbad.out kbad.err)"
                fi
        done
else
        skip "report names the running kernel" "/sys/kernel/notes cannot be read here"
fi
# A kernel whose own package note is as large (40 KB of non-ASCII, within
# the note's 64 KiB) or as deep (32 levels) as a note may be passes the
# report's limits once inside "kernel": left out, the crash still stored,
# and the crash over quota still recorded.  The handler sees it through a
# bind mount over /sys/kernel/notes in a mount namespace of its own.
if [ "$(id -u)" = 0 ] && unshare -m true 2> /dev/null && [ -r /sys/kernel/notes ]; then
        for shape in large deep; do
                PYTHONPATH="$SRCDIR/tests/read" python3 - "$shape" > "$T/$shape.notes" << 'PY' || fatal "cannot write the notes"
import json, sys
import kernel_fixture as kf
if sys.argv[1] == "large":
    pkg = json.dumps({"type": "deb", "name": "linux", "version": "7.0-1", "x": "\u00e9" * 20000}, ensure_ascii=False)
else:
    inner = "1"
    for _ in range(31):
        inner = "[" + inner + "]"
    pkg = '{"type":"deb","name":"linux","version":"7.0-1","x":' + inner + "}"
sys.stdout.buffer.write(kf.notes("ab" * 20, None, pkg))
PY
                rm -rf "$T/k$shape"
                for t in 1700009000 1700009001; do
                        unshare -m sh -c 'mount --bind "$1" /sys/kernel/notes && shift && exec "$@"' sh "$T/$shape.notes" \
                                "$HANDLER" -d "$T/k$shape" -l "$T/k$shape.log" --quota-count 1 --quota-interval 3600 \
                                $$ 0 0 11 $t 18446744073709551615 testhost crasher < segv.core ||
                                fail "a kernel note too $shape: the handler exits 0" "$(cat "$T/k$shape.log")"
                done
                python3 - "$T/k$shape" > pyerr 2>&1 << 'PY' && pass "a kernel note too $shape for the report: the crash stored and the one over quota recorded, without the kernel" || fail "a kernel note too $shape for the report" "$(cat pyerr "$T/k$shape.log")"
import glob, json, sys
d = sys.argv[1]
[stored] = glob.glob(d + "/core.*.json")
[rejected] = glob.glob(d + "/rejected/*.json")
for p in (stored, rejected):
    r = json.load(open(p))
    assert "kernel" not in r and r["bootId"], (p, sorted(r))
assert json.load(open(stored))["package"]["name"] == "crasher"
PY
        done
        # the control: the same fixture within the limits is in the report
        PYTHONPATH="$SRCDIR/tests/read" python3 -c 'import kernel_fixture as kf, sys; sys.stdout.buffer.write(kf.notes("ab" * 20, None, "{\"type\":\"deb\",\"name\":\"linux\",\"version\":\"7.0-1\"}"))' > "$T/fine.notes"
        unshare -m sh -c 'mount --bind "$1" /sys/kernel/notes && shift && exec "$@"' sh "$T/fine.notes" \
                "$HANDLER" -d "$T/kfine" -l "$T/kfine.log" $$ 0 0 11 1700009000 18446744073709551615 testhost crasher < segv.core
        python3 - "$T/kfine" > pyerr 2>&1 << 'PY' && pass "the same kernel fixture within the limits: in the report, with its package" || fail "the same kernel fixture within the limits: in the report" "$(cat pyerr)"
import glob, json, sys
[p] = glob.glob(sys.argv[1] + "/core.*.json")
k = json.load(open(p))["kernel"]
assert k["buildId"] == "ab" * 20 and k["package"]["name"] == "linux" and k["package"]["version"] == "7.0-1", k
PY
else
        skip "a kernel note too large for the report" "needs root, unshare -m and /sys/kernel/notes"
fi
grep -q "process 101 (crasher) of user 0 crashed with signal 11 (SEGV), package crasher/4.2-1" log \
        && pass "one log line with the package" || fail "one log line with the package" "$(cat log)"
[ "$(wc -l < log)" -eq 1 ] && pass "exactly one log line" || fail "exactly one log line"

feed abrt.core 102 6 1700000100
PKGNOTE_COREDUMP_DIR="$STATE" run list
expect_status 0 "list exits 0"
[ "$(grep -c crasher out)" -eq 2 ] && pass "list shows both crashes" || fail "list shows both crashes" "$(cat out)"
grep -q "ABRT present  pkgnote /.*crasher crasher/4.2-1" out && pass "list: signal, core, store, exe, package" || fail "list: signal, core, store, exe, package" "$(cat out)"
PKGNOTE_COREDUMP_DIR="$STATE" run list --json
python3 -c '
import json
rows = [json.loads(l) for l in open("out")]
assert [r["signal"] for r in rows] == [11, 6], rows
assert rows[1]["package"]["name"] == "crasher"' && pass "list --json, oldest first" || fail "list --json, oldest first"

pid=$(python3 -c 'import json; print(json.loads(open("out").readlines()[1])["pid"])')
PKGNOTE_COREDUMP_DIR="$STATE" run core "$pid"
expect_status 0 "core accepts a PID from the list"
grep -q "Signal: 6 (ABRT)" out && grep -q "Package: crasher/4.2-1" out && pass "core reads the listed entry" \
        || fail "core reads the listed entry" "$(cat out) $(cat err)"

# The store through the library's crash API: a crash's core is the file
# its entry's name gives, never a path its report names; a report that is
# a symbolic link or no JSON is named and skipped; a report alone (its
# core gone) is no entry.
S4="$T/state4"
mkdir -p "$S4"
"$HANDLER" -d "$S4" -l "$T/log4" 301 0 0 11 1700003000 18446744073709551615 testhost crasher < segv.core
E4="$S4/core.crasher.0.301.1700003000"
python3 - "$E4.json" "$T/decoy.core" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["coreFile"] = sys.argv[2]
json.dump(d, open(sys.argv[1], "w"))
PY
cp abrt.core "$T/decoy.core"
PKGNOTE_COREDUMP_DIR="$S4" run core "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$E4.json")"
grep -q "Signal: 11 (SEGV)" out && ! grep -q "ABRT" out && pass "bug-core-trusts-report-path: core PID opens the store's own core" ||
        fail "bug-core-trusts-report-path: core PID opens the store's own core" "$(cat out err)"
PKGNOTE_COREDUMP_DIR="$S4" run list --json
python3 -c 'import json,sys; r=[json.loads(l) for l in open("out")]; sys.exit(not (len(r) == 1 and r[0]["coreFile"] == sys.argv[1]))' "$E4$Z" &&
        pass "list --json: coreFile is the store's own file" || fail "list --json: coreFile is the store's own file" "$(cat out)"
printf 'not json' > "$S4/core.bad.0.302.1700003100.json"
cp segv.core "$S4/core.bad.0.302.1700003100$Z"
ln -s "$E4.json" "$S4/core.link.0.303.1700003200.json"
cp segv.core "$S4/core.link.0.303.1700003200$Z"
cp "$E4.json" "$S4/core.alone.0.304.1700003300.json"
PKGNOTE_COREDUMP_DIR="$S4" run list
[ "$STATUS" -eq 0 ] && [ "$(grep -c 'crasher' out)" -eq 1 ] && pass "list: only whole, readable entries" ||
        fail "list: only whole, readable entries" "status $STATUS: $(cat out)"
grep -q "core.bad.0.302.1700003100.json': unreadable report, ignoring" err && pass "list: a report that is no JSON is named" ||
        fail "list: a report that is no JSON is named" "$(cat err)"
grep -q "core.link.0.303.1700003200.json': .*ignoring" err && pass "list: a report that is a symbolic link is not followed" ||
        fail "list: a report that is a symbolic link is not followed" "$(cat err)"

# Limits: a per-core size cap, and a total cap removing the oldest first.
feed segv.core 103 11 1700000200 --max-core-size 64K
grep -q "process 103 .*(truncated at the size limit)" log && pass "per-core cap reported" || fail "per-core cap reported" "$(tail -1 log)"
size=$(stat -c %s "$STATE/core.crasher.0.103.1700000200$Z")
feed segv.core 104 11 1700000300 --max-use $((size * 3))
[ ! -e "$STATE/core.crasher.0.101.1700000000$Z" ] && [ ! -e "$STATE/core.crasher.0.101.1700000000.json" ] \
        && pass "total cap removes the oldest entry whole" || fail "total cap removes the oldest entry whole" "$(ls "$STATE")"
[ -e "$STATE/core.crasher.0.104.1700000300$Z" ] && pass "the new entry is kept" || fail "the new entry is kept"

# A core that cannot be read still gets an entry: what the kernel told,
# names as raw bytes (a control character, a byte that is not UTF-8).
printf 'not a core at all\n' > junk.core
"$HANDLER" -d "$STATE" -l "$T/log" 105 0 0 11 1700000400 18446744073709551615 "$(printf 'host\001')" \
        "$(printf 'bad\377name')" < junk.core
[ $? -eq 0 ] && pass "handler exits 0 on an unreadable core" || fail "handler exits 0 on an unreadable core"
python3 - "$STATE"/core.*.105.1700000400.json <<'PY' && pass "unreadable core: the kernel's facts, valid JSON" \
        || fail "unreadable core: the kernel's facts, valid JSON" "$(cat "$STATE"/core.*.105.*.json)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["error"] == "the core cannot be read", d
assert (d["pid"], d["uid"], d["signal"], d["signalName"], d["time"]) == (105, 0, 11, "SEGV", 1700000400), d
assert d["command"] == "bad\\xffname" and d["hostname"] == "host\u0001", d
assert d["coreFile"].endswith(".1700000400" + (".zst" if d["coreFile"].endswith(".zst") else "")), d
PY
# and where it crashed, as a readable core's report says it
python3 - "$STATE"/core.*.105.1700000400.json "$STATE/core.crasher.0.104.1700000300.json" > pyerr 2>&1 <<'PY' && pass "unreadable core: this boot, machine and kernel, as a stored core's report" || fail "unreadable core: this boot, machine and kernel" "$(cat pyerr)"
import json, os, sys
d, full = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert d["bootId"] == open("/proc/sys/kernel/random/boot_id").read().strip().replace("-", ""), d.get("bootId")
for key in ("bootId", "machineId", "kernel"):
    assert d.get(key) == full.get(key), (key, d.get(key), full.get(key))
if os.access("/sys/kernel/notes", os.R_OK):
    assert d["kernel"]["release"], d
PY

# RLIMIT_CORE 0 (%c): no core kept, still logged.
"$HANDLER" -d "$STATE" -l "$T/log" 105 0 0 11 1700000400 0 testhost crasher < segv.core
[ ! -e "$STATE/core.crasher.0.105.1700000400$Z" ] && grep -q "process 105 .*RLIMIT_CORE is 0" log \
        && pass "RLIMIT_CORE 0 keeps no core" || fail "RLIMIT_CORE 0 keeps no core"

# A hostile command name cannot escape the directory or forge log lines.
"$HANDLER" -d "$STATE" -l "$T/log" 106 0 0 11 1700000500 18446744073709551615 testhost "../../x$(printf '\nfake')" < segv.core
ls "$STATE" | grep -q "^core\.______x_fake\.0\.106\." && pass "hostile COMM sanitised in the name" || fail "hostile COMM sanitised in the name" "$(ls "$STATE")"
[ "$(grep -c '^fake' log)" -eq 0 ] && pass "hostile COMM cannot forge a log line" || fail "hostile COMM cannot forge a log line"

# The crashed process's own root.  Regression: the handler resolved module
# paths on the host, where a container's file of that name is not the
# process's (or is a device someone left there).  A library whose package
# note lies beyond its first page must come from disk: it exists only in
# the root of a chrooted process, which the handler now reads through
# /proc/PID/root.
cc -O1 -o mkcore "$SRCDIR/tests/read/core/mkcore.c" "$SRCDIR/tests/read/core/corebuild.c" || fatal "cannot build mkcore"
cat > far.ld <<'LD'
SECTIONS {
  .filler : { *(.filler) }
  .note.pkgfar : { *(.note.pkgfar) }
} INSERT AFTER .note.gnu.build-id;
LD
python3 - > far.s <<'PY'
j = b'{"type":"deb","name":"inroot","version":"7.0-1","architecture":"amd64"}\0'
j += b"\0" * (-len(j) % 4)
print('\t.section .filler,"a",@progbits\n\t.fill 6000, 1, 0x41')
print('\t.section .note.pkgfar,"a",@note\n\t.balign 4\n\t.long 4, %d, 0xcafe1a7e\n\t.asciz "FDO"' % len(j))
print('\t.byte ' + ','.join(str(b) for b in j))
print('\t.section .note.GNU-stack,"",@progbits')
PY
echo 'int far_value(void) { return 3; }' > far.c
echo '#include <unistd.h>
int main(void) { pause(); return 0; }' > sleeper.c
mkdir -p croot/opt/inroot
cc -shared -fPIC -fuse-ld=bfd -o croot/opt/inroot/libfar.so far.c far.s -Wl,-T,far.ld || fatal "cannot link libfar"
if cc -static -o croot/sleeper sleeper.c; then
        chroot croot /sleeper 2> /dev/null &
        SPID=$!
        sleep 0.3
        if [ "$(readlink /proc/$SPID/root)" = "$T/croot" ]; then
                ./mkcore -o far.core -64 -le -m 62 --pid $SPID --comm sleeper --module 0x7f0000000000:/opt/inroot/libfar.so:croot/opt/inroot/libfar.so ||
                        fatal "mkcore failed"
                feed far.core $SPID 11 1700000600
                python3 - "$STATE/core.crasher.0.$SPID.1700000600.json" <<'PY' && pass "bug-handler-host-paths: a module read inside the process's root" || fail "bug-handler-host-paths: a module read inside the process's root" "$(cat "$STATE/core.crasher.0.$SPID.1700000600.json")"
import json, sys
d = json.load(open(sys.argv[1]))
m = [m for m in d["modules"] if m["path"] == "/opt/inroot/libfar.so"][0]
assert m["source"] == "disk" and m["packages"][0]["name"] == "inroot", m
PY
        else
                missing "bug-handler-host-paths: a module read inside the process's root" "chroot"
        fi
        kill $SPID 2> /dev/null
        wait $SPID 2> /dev/null
else
        missing "bug-handler-host-paths: a module read inside the process's root" "static linking (libc6-dev)"
fi
# The store follows the output rule: a symbolic link planted at an entry's
# name is never written through, and the entry is refused.
printf 'precious\n' > precious
ln -s "$T/precious" "$STATE/core.crasher.0.107.1700000600$(ls "$STATE" | grep -q '\.zst$' && echo .zst)"
feed segv.core 107 11 1700000600
[ "$(cat precious)" = precious ] && grep -q "process 107 .*cannot write" log \
        && pass "store: a planted symlink is not written through" || fail "store: a planted symlink is not written through" "$(tail -1 log)"

# A killed handler's leftovers: temporaries are never entries and go by
# age; a core whose report never came and a report whose core is gone are
# removed; whole entries stay while the store is under --max-use.
S2="$T/state2"
feed2() { "$HANDLER" -d "$S2" -l "$T/log2" "$@"; }
feed2 201 0 0 11 1700001000 18446744073709551615 testhost crasher < segv.core
entry=$(du -b "$S2/core.crasher.0.201.1700001000$Z" "$S2/core.crasher.0.201.1700001000.json" | awk '{ s += $1 } END { print s }')
head -c 300000 /dev/urandom > "$S2/core.crasher.0.202.1700000900$Z.tmp"
head -c 300000 /dev/urandom > "$S2/.core.crasher.0.203.1700000950$Z.pkgnote-AbCdEf"
cp "$S2/core.crasher.0.201.1700001000$Z" "$S2/core.crasher.0.204.1700000990$Z"
cp "$S2/core.crasher.0.201.1700001000.json" "$S2/core.crasher.0.205.1700000995.json"
touch -d '-2 hours' "$S2"/*.tmp "$S2"/.core.* "$S2/core.crasher.0.204.1700000990$Z"
feed2 --max-use $((entry * 5 / 2)) 206 0 0 11 1700001100 18446744073709551615 testhost crasher < segv.core
left=$(ls -a "$S2" | grep -v '^\.\.\?$' | grep -v '^\.quota' | sort | tr '\n' ' ')
want=$(printf '%s\n' "core.crasher.0.201.1700001000$Z" core.crasher.0.201.1700001000.json "core.crasher.0.206.1700001100$Z" \
        core.crasher.0.206.1700001100.json | sort | tr '\n' ' ')
[ "$left" = "$want" ] && pass "killed handler leftovers removed, whole entries kept under --max-use" \
        || fail "killed handler leftovers removed, whole entries kept under --max-use" "left: $left"

# A report without its core is no entry for list (one being removed).
cp "$S2/core.crasher.0.206.1700001100.json" "$S2/core.crasher.0.207.1700001200.json"
PKGNOTE_COREDUMP_DIR="$S2" run list --json
[ "$(wc -l < out)" -eq 2 ] && ! grep -q '"pid":206.*1700001200\|1700001200' out && pass "list: a report without its core is not an entry" \
        || fail "list: a report without its core is not an entry" "$(cat out)"
rm -f "$S2/core.crasher.0.207.1700001200.json"

# Concurrent crashes: handlers enforce the cap under a lock, and an entry
# is visible (has its report) only with its core.  Every report has its
# core afterwards, every core its report, and pkgnote core reads each.
S3="$T/state3"
round=0
orphans=0
while [ $round -lt 4 ]; do
        i=0
        while [ $i -lt 12 ]; do
                "$HANDLER" -d "$S3" -l "$T/log3" --max-use $((entry * 5)) $((1000 + round * 100 + i)) 0 0 11 \
                        $((1700002000 + round * 100 + i)) 18446744073709551615 testhost crasher < segv.core &
                i=$((i + 1))
        done
        wait
        for j in "$S3"/*.json; do
                [ -e "${j%.json}$Z" ] || orphans=$((orphans + 1))
        done
        for c in "$S3"/core.*"$Z"; do
                case $c in *.json) continue ;; esac
                [ -e "${c%$Z}.json" ] || orphans=$((orphans + 1))
        done
        round=$((round + 1))
done
[ $orphans -eq 0 ] && pass "concurrent crashes: no report without its core, no core without its report" \
        || fail "concurrent crashes: no report without its core, no core without its report" "$orphans orphans: $(ls "$S3")"
bad=0
for pid in $(PKGNOTE_COREDUMP_DIR="$S3" "$PKGNOTE" list --json | python3 -c 'import json, sys; [print(j["pid"]) for j in map(json.loads, sys.stdin) if j["core"] != "rejected"]'); do
        PKGNOTE_COREDUMP_DIR="$S3" "$PKGNOTE" core "$pid" > /dev/null 2>&1 || bad=$((bad + 1))
done
[ $bad -eq 0 ] && [ "$(ls "$S3" | grep -c json)" -ge 2 ] && pass "concurrent crashes: pkgnote core reads every listed entry" \
        || fail "concurrent crashes: pkgnote core reads every listed entry" "$bad failed"

# The disk fills before --max-use: old entries rotate out, each new crash
# is kept.  (A small tmpfs, when this machine lets us mount one.)
mkdir small
if mount -t tmpfs -o size=$((entry * 3 + 65536)) pkgnote-test small 2> /dev/null; then
        ok=0
        i=0
        while [ $i -lt 8 ]; do
                "$HANDLER" -d "$T/small/s" -l "$T/log4" $((300 + i)) 0 0 11 $((1700003000 + i)) 18446744073709551615 testhost crasher < segv.core && ok=$((ok + 1))
                i=$((i + 1))
        done
        last="$T/small/s/core.crasher.0.307.1700003007"
        [ $ok -eq 8 ] && [ -e "$last$Z" ] && [ -e "$last.json" ] && [ ! -e "$T/small/s/core.crasher.0.300.1700003000$Z" ] \
                && pass "disk full before --max-use: oldest entries rotated out, new crashes kept" \
                || fail "disk full before --max-use: oldest entries rotated out, new crashes kept" "$ok of 8 stored: $(ls "$T/small/s"); $(tail -2 "$T/log4")"
        umount small
else
        skip "disk full before --max-use" "cannot mount a tmpfs here"
fi

# The configuration is read line by line, whole (at most 4096 bytes a
# setting's line; a comment whatever its length).  Regressions: it was read
# in 4095-byte pieces, so the tail of a long comment was parsed as a live
# setting, a long line was cut and its tail read as another line, and the
# line numbers of what followed were off.
cfg_feed() { # CONF PID: a crash stored with configuration CONF, its log in cfg.log
        : > "$T/cfg.log"
        "$HANDLER" -d "$T/cfg" -l "$T/cfg.log" -c "$1" "$2" 0 0 11 1700004000 18446744073709551615 testhost crasher < segv.core
}
# A comment of 5000 bytes whose piece after byte 4095 reads "stack = yes".
# First, that "stack = yes" does show in the report, as threads.
printf 'stack = yes\n' > stack.conf
cfg_feed stack.conf 400
python3 -c 'import json, sys; sys.exit("threads" not in json.load(open(sys.argv[1])))' "$T/cfg/core.crasher.0.400.1700004000.json" \
        && pass "config: stack = yes puts a stack trace in the report" \
        || fail "config: stack = yes puts a stack trace in the report" "$(cat "$T/cfg.log")"
# Regression: the unwinder decompressed the stored core into memory
# whatever its size.  Past the bound (lowered to 64 KiB by the test-only
# PKGNOTE_TEST_CORE_IN_MEMORY) the rest goes to an unlinked temporary file
# in $TMPDIR (its O_TMPFILE open seen by strace): the same stack trace,
# nothing left there.
t="bug-decompressed-core-in-memory: the handler's stack trace past the bound, from a temporary file, none left"
if ! has_feature zstd; then
        with_feature zstd "$t"
elif ! has_feature stack; then
        with_feature stack "$t"
elif ! command -v strace > /dev/null; then
        missing "$t" strace
else
        mkdir spill
        : > "$T/cfg.log"
        PKGNOTE_TEST_CORE_IN_MEMORY=65536 TMPDIR="$T/spill" strace -f -qq -e trace=openat -e signal=none -o spill.log \
                "$HANDLER" -d "$T/cfg" -l "$T/cfg.log" -c stack.conf 499 0 0 11 1700004000 18446744073709551615 testhost crasher < segv.core
        grep -q "openat(AT_FDCWD, \"$T/spill\", O_RDWR|O_EXCL|O_CLOEXEC|O_TMPFILE, 0600) = [0-9]" spill.log && [ -z "$(ls -A spill)" ] &&
                python3 -c 'import json, sys; a, b = (json.load(open(f))["threads"] for f in sys.argv[1:]); sys.exit(not (a and a == b))' \
                        "$T/cfg/core.crasher.0.400.1700004000.json" "$T/cfg/core.crasher.0.499.1700004000.json" &&
                pass "$t" || fail "$t" "left: $(ls -A spill); $(grep -c O_TMPFILE spill.log) O_TMPFILE opens; $(cat "$T/cfg.log")"
fi
python3 -c 'import sys; sys.stdout.write("#" + "x" * 4094 + "stack = yes\n")' > longcomment.conf
cfg_feed longcomment.conf 401
python3 - "$T/cfg/core.crasher.0.401.1700004000.json" <<'PY' && ! grep -q "longcomment.conf:" "$T/cfg.log" \
        && pass "config: a 5000-byte comment ending like 'stack = yes' sets nothing" \
        || fail "config: a 5000-byte comment ending like 'stack = yes' sets nothing" "$(cat "$T/cfg.log")"
import json, sys
d = json.load(open(sys.argv[1]))
assert "threads" not in d, "a stack trace was taken: the comment's tail was read as a setting"
PY
# Line 3 is 5000 bytes; line 4 has a bad value, line 6 a setting after a
# long comment.
python3 -c 'import sys
sys.stdout.write("# long lines\n\n" + "debuginfod-urls = " + "http://example.invalid/" * 217 + "\n" +
                 "stack = maybe\n" + "#" * 9000 + "\n" + "debuginfod-timeout = 0\n")' > longline.conf
cfg_feed longline.conf 402
grep -q "longline.conf:3: line longer than 4096 bytes, ignored" "$T/cfg.log" \
        && pass "config: a line over 4096 bytes is an error naming its line (3)" \
        || fail "config: a line over 4096 bytes is an error naming its line (3)" "$(cat "$T/cfg.log")"
grep -q "longline.conf:4: bad value for stack, ignored" "$T/cfg.log" \
        && grep -q "longline.conf:6: bad value for debuginfod-timeout, ignored" "$T/cfg.log" \
        && [ "$(grep -c 'longline.conf:' "$T/cfg.log")" -eq 3 ] \
        && pass "config: settings after long lines are named by their own line numbers (4, 6), nothing else reported" \
        || fail "config: settings after long lines are named by their own line numbers (4, 6), nothing else reported" "$(cat "$T/cfg.log")"
[ -s "$T/cfg/core.crasher.0.402.1700004000.json" ] && pass "config: errors logged, the crash stored all the same" \
        || fail "config: errors logged, the crash stored all the same" "$(ls "$T/cfg")"
printf 'stack = no\nstack\000 = yes\n' > nul.conf
cfg_feed nul.conf 403
grep -q "nul.conf:2: line holds a NUL byte, ignored" "$T/cfg.log" \
        && pass "config: a line holding a NUL byte is an error naming its line" \
        || fail "config: a line holding a NUL byte is an error naming its line" "$(cat "$T/cfg.log")"

"$HANDLER" 1 2 3 > /dev/null 2> err
[ $? -eq 2 ] && grep -q "expected PID UID GID" err && pass "wrong arguments: exit 2 with a message" || fail "wrong arguments: exit 2 with a message"
PKGNOTE_COREDUMP_DIR="$T/nonexistent" run list
expect_status 2 "list of a missing directory exits 2"
finish
