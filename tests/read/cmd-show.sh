#!/bin/sh
# pkgnote show: text, JSON and field output, exit codes, hostile notes.
# Fixtures are linked here with gcc and ld.bfd --package-metadata.
. "$SRCDIR/tests/lib.sh"

cat > main.c <<'C'
int main(void) { return 0; }
C
JSON='{"type":"deb","os":"debian","osVersion":"12","name":"hello","version":"1.0-1","architecture":"amd64","appCpe":"cpe:2.3:a:example:hello:1.0:*:*:*:*:*:*:*"}'
BUILDID=--build-id=0x0123456789abcdef0123456789abcdef01234567
cc -o hello main.c -fuse-ld=bfd -Xlinker "--package-metadata=$JSON" -Wl,$BUILDID || fatal "cannot link the fixture"
cc -o plain main.c -fuse-ld=bfd -Wl,$BUILDID || fatal "cannot link the fixture"
printf 'not an elf file at all\n' > text.txt

run show hello
expect_status 0 "show of a noted binary exits 0"
golden show-text.txt "text output"

run show --json hello
expect_status 0 "show --json exits 0"
golden show-json.txt "JSON output"
python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); assert d["packages"][0]["name"]=="hello", d' < out \
        && pass "JSON output parses and holds the note" || fail "JSON output parses and holds the note"

run show --field version hello
expect_out "1.0-1" "--field version"
run show --field buildId hello
expect_out "0123456789abcdef0123456789abcdef01234567" "--field buildId"
run show --field nosuchkey hello
expect_status 1 "--field of an absent key exits 1"

run show plain
expect_status 1 "a binary without a note exits 1"
grep -q "no package note" out && pass "says there is no note" || fail "says there is no note"

run show text.txt
expect_status 2 "a non-ELF file exits 2"
expect_err "pkgnote: 'text.txt': cannot read: not an ELF file" "names the non-ELF file"

run show missing hello
expect_status 2 "a missing file exits 2"
grep -q "^path: hello" out && pass "files after a missing one are still shown" || fail "files after a missing one are still shown"
expect_err "pkgnote: 'missing': cannot read: cannot open: No such file or directory" "names the missing file"

run show hello plain
expect_status 1 "one file without a note makes the exit 1"

run show - < hello
expect_status 0 "reads standard input"
grep -q "name: hello" out && pass "standard input note" || fail "standard input note"

# The same JSON readelf sees, byte for byte.
readelf -nW hello | sed -n 's/.*Packaging Metadata: //p' > readelf.json
run show --json hello
python3 -c 'import json,sys; print(json.dumps(json.loads(open("out").read())["packages"][0],separators=(",",":"),ensure_ascii=False))' > ours.json
cmp -s readelf.json ours.json && pass "JSON agrees with readelf -n" || fail "JSON agrees with readelf -n"

# Stripped section headers: the note is still found through PT_NOTE.
cp hello stripped
python3 - stripped <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(0x28); f.write(struct.pack("<Q", 0))          # e_shoff
    f.seek(0x3c); f.write(struct.pack("<HH", 0, 0))       # e_shnum, e_shstrndx
PY
run show --field name stripped
expect_out "hello" "stripped section headers: found through PT_NOTE"

# A hostile note: control characters must never reach the terminal.
printf '{"name":"\\u001b[31mred\\u0007","version":"1"}' > evil.json
cc -o evil main.c -fuse-ld=bfd -Xlinker "--package-metadata=$(cat evil.json)" 2>/dev/null || fatal "cannot link the hostile fixture"
run show evil
if grep -q "$(printf '[\033\007]')" out; then fail "control characters escaped"; else pass "control characters escaped"; fi
grep -q 'name: \\x1b\[31mred\\x07' out && pass "escaped as \\xNN" || fail "escaped as \\xNN"

# Two different package notes: both shown, the first is the primary.
printf '{"name":"second","version":"2"}' > second.json
python3 - <<'PY'
import struct
j = open("second.json","rb").read() + b"\0"
j += b"\0" * (-len(j) % 4)
open("second.note","wb").write(struct.pack("<III", 4, len(j), 0xcafe1a7e) + b"FDO\0" + j)
PY
objcopy --add-section .note.package.second=second.note --set-section-flags .note.package.second=alloc,readonly \
        --set-section-alignment .note.package.second=4 --change-section-type .note.package.second=SHT_NOTE hello two 2>/dev/null ||
objcopy --add-section .note.package.second=second.note hello two || fatal "objcopy failed"
run show two
grep -q "package (primary)" out && grep -q "name: second" out && pass "two notes shown" || fail "two notes shown"
run show --field name two
expect_out "hello" "--field reads the primary note"

# Regression: mold 1.x puts 4-byte notes into the 8-aligned PT_NOTE of the
# GNU property note; walking it with 8-byte padding loses the package note.
if command -v mold >/dev/null; then
        cc -o moldbin main.c -fuse-ld=mold -Xlinker "--package-metadata=$JSON" || fatal "cannot link with mold"
        run show --field name moldbin
        expect_status 0 "mixed-alignment PT_NOTE (mold): no error"
        expect_out "hello" "mixed-alignment PT_NOTE (mold): note found"
else
        missing "mixed-alignment PT_NOTE (mold)" mold
fi

# Regression: paths that are not UTF-8, or hold C1 controls, keep --json valid.
cp hello "$(printf 'bad\377name\302\205x')"
run show --json "$(printf 'bad\377name\302\205x')"
python3 -c 'import json; d=json.load(open("out")); assert d["path"]=="bad\\xffname\x85x", d["path"]' \
        && pass "--json escapes non-UTF-8 paths" || fail "--json escapes non-UTF-8 paths" "$(cat out)"

# ------------------------------------- extended program header numbering
# Regression: a valid file with more than 65,536 program headers (gABI
# extended numbering: e_phnum PN_XNUM, the count in section 0's sh_info)
# was refused as over a limit, though readelf reads it.  Cores of processes
# with many mappings have that many PT_LOADs.
python3 - xnum.elf "$JSON" <<'PY' || fatal "cannot build the PN_XNUM file"
import struct, sys
n = 70000
j = sys.argv[2].encode() + b"\0"
j += b"\0" * (-len(j) % 4)
note = struct.pack("<III", 4, len(j), 0xcafe1a7e) + b"FDO\0" + j
phoff, noteoff = 64, 64 + 56 * n
shoff = noteoff + len(note)
size = shoff + 64
eh = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
eh += struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0x400000, phoff, shoff, 0, 64, 56, 0xffff, 64, 1, 0)
ph = struct.pack("<IIQQQQQQ", 1, 4, 0, 0x400000, 0x400000, size, size, 0x1000)
ph += struct.pack("<IIQQQQQQ", 4, 4, noteoff, 0x400000 + noteoff, 0x400000 + noteoff, len(note), len(note), 4)
ph += bytes(56) * (n - 2)
sh0 = struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, n, 0, 0)
open(sys.argv[1], "wb").write(eh + ph + note + sh0)
PY
readelf -lW xnum.elf 2> /dev/null | grep -q "There are 70000 program headers" || fatal "readelf does not read xnum.elf's 70000 program headers"
run show --json xnum.elf
expect_status 0 "bug-pn-xnum-over-limit: show reads 70000 program headers (readelf does)"
python3 -c 'import json; d=json.load(open("out")); assert d["packages"][0]["name"] == "hello", d' &&
        pass "bug-pn-xnum-over-limit: the note behind them" || fail "bug-pn-xnum-over-limit: the note behind them" "$(cat out err)"

# ------------------------------------------------ separate debug files
# Regression: debug files keep the stripped file's program headers, so
# their PT_NOTE points at unrelated bytes; show exited 2, lint reported
# malformed-note, scan counted them malformed.  readelf and eu-readelf
# read their note sections; so does pkgnote now, with a warning.
mkdir dbg
cat > lib2.c <<'C'
int twice(int x) { return 2 * x; }
C
cc -g -o dbg/prog main.c -fuse-ld=bfd -Xlinker "--package-metadata=$JSON" || fatal "cannot link prog"
cc -g -shared -fPIC -o dbg/lib.so lib2.c -fuse-ld=bfd -Xlinker "--package-metadata=$JSON" || fatal "cannot link lib.so"
made=0
for f in prog lib.so; do
        if command -v eu-strip > /dev/null; then
                cp dbg/$f $f.s && eu-strip -f dbg/$f.eu.debug $f.s && made=$((made + 1))
        else
                missing "eu-strip -f debug file of $f" eu-strip
        fi
        objcopy --only-keep-debug dbg/$f dbg/$f.objcopy.debug && made=$((made + 1))
done
[ $made -ge 2 ] || fatal "no debug files made"
STALE=0
for d in dbg/*.debug; do
        # The reference view: readelf reads the package note from the sections.
        readelf -nW "$d" 2> /dev/null | grep -q '"name":"hello"' || fatal "readelf does not see the note in $d"
        if command -v eu-readelf > /dev/null; then
                eu-readelf -n "$d" 2> /dev/null | grep -q 'hello' || fatal "eu-readelf does not see the note in $d"
        fi
        # Whether its PT_NOTE describes another file's bytes: no note
        # section at the segment's offset and address.
        if python3 - "$d" <<'PY'
import subprocess, sys
ph = subprocess.run(["readelf", "-lW", sys.argv[1]], capture_output=True, text=True).stdout
sh = subprocess.run(["readelf", "-SW", sys.argv[1]], capture_output=True, text=True).stdout
notes = [(int(l.split()[1], 16), int(l.split()[2], 16)) for l in ph.splitlines() if l.split()[:1] == ["NOTE"]]
secs = set()
for l in sh.splitlines():
    if " NOTE " in l:
        w = l.replace("[ ", "[").split()
        i = w.index("NOTE")
        secs.add((int(w[i + 2], 16), int(w[i + 1], 16)))
sys.exit(0 if notes and any(n not in secs for n in notes) else 1)
PY
        then stale=1; STALE=$((STALE + 1)); else stale=0; fi
        run show --json "$d"
        expect_status 0 "bug-debug-file-malformed: show reads $d"
        python3 -c 'import json,sys; d=json.load(open("out")); assert d["packages"][0]["name"] == "hello", d' &&
                pass "bug-debug-file-malformed: $d holds the package" || fail "bug-debug-file-malformed: $d holds the package" "$(cat out err)"
        if [ $stale = 1 ]; then
                expect_err "warning: PT_NOTE at offset" "bug-debug-file-malformed: show warns about $d"
        else
                [ ! -s err ] && pass "bug-debug-file-malformed: $d's PT_NOTE is its own: no warning" ||
                        fail "bug-debug-file-malformed: $d's PT_NOTE is its own: no warning" "$(cat err)"
        fi
        run lint "$d"
        expect_status 0 "bug-debug-file-malformed: lint passes $d"
        grep -q "malformed-note" out err && fail "bug-debug-file-malformed: no malformed-note for $d" "$(cat out)" ||
                pass "bug-debug-file-malformed: no malformed-note for $d"
        if [ $stale = 1 ]; then
                grep -q "separate-debug-file" out && pass "bug-debug-file-malformed: lint names $d a separate debug file" ||
                        fail "bug-debug-file-malformed: lint names $d a separate debug file" "$(cat out)"
        fi
done
# eu-strip -f moves an executable's notes (its .interp became SHT_NOBITS).
[ $STALE -ge 1 ] && pass "bug-debug-file-malformed: some debug file has another file's PT_NOTE ($STALE)" ||
        fail "bug-debug-file-malformed: some debug file has another file's PT_NOTE" "none: the fixture does not show the case"
run scan --format json dbg
python3 -c '
import json, sys
lines = [json.loads(l) for l in open("out")]
s = [l for l in lines if "summary" in l][0]["summary"]
assert s["malformed"] == 0 and s["withNote"] == s["objects"], s
' && pass "bug-debug-file-malformed: scan counts none malformed" || fail "bug-debug-file-malformed: scan counts none malformed" "$(tail -n 1 out)"

# Regression: older strip and objcopy made a debug file's note sections
# SHT_NOBITS, its PT_NOTE still pointing at their offset, where other
# bytes lie now (elfutils' testfile15.debug; tests/read/cmd-elfutils-corpus.sh
# reads that one).  Made here as they made it: objcopy's debug file of
# prog, the note sections at the PT_NOTE's start turned SHT_NOBITS over
# junk, the package note's section kept.  show exited 2 on the junk;
# readelf -n reads the sections, and so does pkgnote, with a warning.
objcopy --only-keep-debug dbg/prog nobits.debug || fatal "objcopy --only-keep-debug failed"
python3 - nobits.debug .note.package <<'PY' || fatal "cannot make nobits.debug"
import struct, sys
path, keep = sys.argv[1], sys.argv[2]
b = bytearray(open(path, "rb").read())
assert b[4] == 2 and b[5] == 1, "an ELF64 little-endian file is expected"
phoff, shoff = struct.unpack_from("<QQ", b, 32)
phentsize, phnum, shentsize, shnum, shstrndx = struct.unpack_from("<HHHHH", b, 54)
stroff, = struct.unpack_from("<Q", b, shoff + shstrndx * shentsize + 24)
def name(i):
    n, = struct.unpack_from("<I", b, shoff + i * shentsize)
    return bytes(b[stroff + n:b.index(0, stroff + n)]).decode()
pt_note = [struct.unpack_from("<Q", b, phoff + i * phentsize + 16)[0]
           for i in range(phnum) if struct.unpack_from("<I", b, phoff + i * phentsize)[0] == 4]
done = 0
for i in range(shnum):
    o = shoff + i * shentsize
    typ, = struct.unpack_from("<I", b, o + 4)
    addr, off, size = struct.unpack_from("<QQQ", b, o + 16)
    if typ == 7 and name(i) != keep and addr in pt_note:
        struct.pack_into("<I", b, o + 4, 8)  # SHT_NOTE -> SHT_NOBITS
        b[off:off + size] = b"\xa5" * size
        done += 1
assert done, "no note section starts a PT_NOTE"
open(path, "wb").write(b)
PY
readelf -nW nobits.debug 2> /dev/null | grep -q '"name":"hello"' || fatal "readelf does not see the package note in nobits.debug"
run show --json nobits.debug
expect_status 0 "debug-file-nobits-notes: show reads a debug file whose PT_NOTE lies in SHT_NOBITS sections"
python3 -c 'import json; d=json.load(open("out")); assert d["packages"][0]["name"] == "hello", d' &&
        pass "debug-file-nobits-notes: the package note from its section, as readelf -n reads it" ||
        fail "debug-file-nobits-notes: the package note from its section, as readelf -n reads it" "$(cat out err)"
expect_err "which has no bytes in this file (SHT_NOBITS)" "debug-file-nobits-notes: show says why the PT_NOTE was passed over"

finish
