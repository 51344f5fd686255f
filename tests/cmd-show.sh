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

finish
