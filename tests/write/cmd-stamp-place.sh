#!/bin/sh
# pkgnote stamp: where the note goes must never change what a program
# does or what its core dumps carry.  Existing notes (the GNU property
# note too) keep their bytes and places, since a program may read them
# by address; the program headers never leave the first page; tables of
# dynamic linking move only where nothing but DT_ entries addresses them.
. "$SRCDIR/tests/lib.sh"

command -v cc > /dev/null || { echo "1..0 # SKIP no C compiler"; exit 77; }
M='--no-os-release --type deb --os debian --os-version 12 --name hello --version 1.0-1 --architecture amd64'
field() { python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline()); print(eval(sys.argv[2]))' "$1" "$2"; }
# The notes and the GNU property segment of a file: offset, owner, type, bytes.
notes_of() {
        python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
phoff, = struct.unpack_from("<Q", d, 32); phnum, = struct.unpack_from("<H", d, 56)
for i in range(phnum):
    t, fl, off, va, pa, fs, ms, al = struct.unpack_from("<IIQQQQQQ", d, phoff + 56 * i)
    if t == 0x6474e553:
        print("property segment", off, va, fs)
    if t != 4:
        continue
    o = off
    while o + 12 <= off + fs:
        nsz, dsz, ty = struct.unpack_from("<III", d, o)
        a = max(al, 4)
        size = 12 + (nsz + 3) // 4 * 4 + (dsz + a - 1) // a * a
        name = d[o + 12:o + 12 + nsz]
        if not (name == b"FDO\0" and ty == 0xcafe1a7e):
            print(o, name, ty, d[o:o + size].hex())
        o += size
PY
}

# A static-pie program that prints bytes of a note it carries, read by
# address.  FILL pads the note so that the first page is full or not.
cat > selfnote.c <<'C'
#include <stdio.h>
struct note { unsigned namesz, descsz, type; char name[4]; char desc[FILL]; };
__attribute__((section(".note.selfnote"), aligned(4), used))
static const struct note self = {4, FILL, 0x53454c46, "SLF", "self-read"};
int main(void) { fwrite(self.desc, 1, 9, stdout); putchar('\n'); return 0; }
C
for fill in 16 3200; do
        if ! cc -O1 -static-pie -DFILL=$fill -o sp$fill selfnote.c 2> /dev/null; then
                skip "static-pie $fill" "cannot link static-pie"; continue
        fi
        [ "$(./sp$fill)" = self-read ] || fatal "the static-pie fixture does not run"
        cp sp$fill s$fill
        notes_of sp$fill > before.$fill
        "$PKGNOTE" stamp --json $M s$fill > out 2> err
        [ $? -eq 0 ] && pass "static-pie $fill: stamped" || fail "static-pie $fill: stamped" "$(cat err)"
        [ "$(./s$fill)" = self-read ] && pass "static-pie $fill: reads its own note as before" || fail "static-pie $fill: reads its own note as before" "$(./s$fill | od -c | head -2)"
        notes_of s$fill > after.$fill
        cmp -s before.$fill after.$fill && pass "static-pie $fill: notes and property segment where they were" ||
                fail "static-pie $fill: notes and property segment where they were" "$(diff before.$fill after.$fill | head -4)"
        [ "$(field out 'd["phdrsFirstPage"]')" = True ] && pass "static-pie $fill: program headers still in the first page" ||
                fail "static-pie $fill: program headers still in the first page" "$(cat out)"
        [ "$("$PKGNOTE" show --field name s$fill)" = hello ] && pass "static-pie $fill: note reads back" || fail "static-pie $fill: note reads back"
        if [ "$(field out 'd["firstPage"]')" = False ]; then
                grep -q "will not carry it" err && pass "static-pie $fill: says cores will not carry it" || fail "static-pie $fill: says cores will not carry it" "$(cat err)"
                cp sp$fill r$fill
                "$PKGNOTE" stamp --require-first-page $M r$fill > out 2> err
                [ $? -eq 2 ] && cmp -s sp$fill r$fill && grep -q "no room for the note in the first page" err &&
                        pass "static-pie $fill: --require-first-page refuses, file untouched" ||
                        fail "static-pie $fill: --require-first-page refuses, file untouched" "$(cat err)"
        fi
        "$PKGNOTE" stamp -q --remove s$fill
        [ "$(./s$fill)" = self-read ] && pass "static-pie $fill: removed, still reads its note" || fail "static-pie $fill: removed, still reads its note"
done

# Existing notes and the GNU property segment stay put over real files.
moved=0; count=0
for f in /usr/bin/ls /usr/bin/bash /usr/bin/perl /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libm.so.6 \
         /usr/lib/x86_64-linux-gnu/libstdc++.so.6 /usr/lib/x86_64-linux-gnu/libcrypto.so.3 /usr/lib/systemd/systemd; do
        [ -f "$f" ] || continue
        cp -L "$f" t.elf; notes_of t.elf > nb
        "$PKGNOTE" stamp -q $M t.elf 2> /dev/null || { moved=$((moved + 1)); echo "# cannot stamp $f"; continue; }
        notes_of t.elf > na
        cmp -s nb na || { moved=$((moved + 1)); echo "# notes moved in $f"; }
        count=$((count + 1))
done
[ $count -gt 0 ] && [ $moved -eq 0 ] && pass "notes and property segments unchanged in $count system files" ||
        fail "notes and property segments unchanged in $count system files" "$moved changed"

# A library whose first page is all tables: they move within their
# segment (DT_ entries, sections and symbols follow), the note goes into
# the first page, and the program using it runs with every symbol bound.
python3 - <<'PY'
n = 120
with open("many.c", "w") as f:
    for i in range(n):
        f.write("int function_number_%d_with_a_long_name(int x) { return x + %d; }\n" % (i, i))
with open("use.c", "w") as f:
    f.write("#include <stdio.h>\n")
    for i in range(n):
        f.write("int function_number_%d_with_a_long_name(int x);\n" % i)
    f.write("int main(void) { long s = 0;\n")
    for i in range(n):
        f.write("  s += function_number_%d_with_a_long_name(%d);\n" % (i, i))
    f.write('  printf("sum %ld\\n", s); return 0; }\n')
PY
cc -shared -fPIC -O1 -Wl,--build-id -o libmany.so many.c && cc -o use use.c -L. -lmany -Wl,-rpath,'$ORIGIN' || fatal "cannot link the library fixture"
want=$(./use)
"$PKGNOTE" stamp --json $M libmany.so > out 2> err
[ "$(field out 'd["firstPage"], d["tablesMoved"]')" = "(True, True)" ] && pass "full first page: tables moved, note in the first page" ||
        fail "full first page: tables moved, note in the first page" "$(cat out err)"
[ "$(LD_BIND_NOW=1 ./use)" = "$want" ] && pass "full first page: the program runs the same" || fail "full first page: the program runs the same"
if command -v eu-elflint > /dev/null; then
        eu-elflint --gnu-ld libmany.so > lint 2>&1 && pass "full first page: eu-elflint finds nothing" || fail "full first page: eu-elflint finds nothing" "$(head -3 lint)"
fi

# A file without a usable section name table whose program headers are
# past the first page: the note goes into a new segment at the end, and
# the section header table, cut off to make room, is written again.
python3 - <<'PY'
import struct
b = bytearray(0x1000)
phoff, shoff = 0x1000, 0x1000 + 56
b[0:16] = b"\x7fELF\x02\x01\x01" + bytes(9)
# e_shstrndx 7 names no section of the two.
struct.pack_into("<HHIQQQIHHHHHH", b, 16, 2, 62, 1, 0x401000, phoff, shoff, 0, 64, 56, 1, 64, 2, 7)
b[64:] = b"\x90" * (0x1000 - 64)
b += struct.pack("<IIQQQQQQ", 1, 5, 0, 0x400000, 0x400000, 0x1000, 0x1000, 0x1000)
b += bytes(64) + struct.pack("<IIQQQQIIQQ", 1, 1, 6, 0x400040, 0x40, 0x1000 - 0x40, 0, 0, 16, 0)
open("nonames", "wb").write(b)
PY
"$PKGNOTE" stamp $M nonames > out 2> err
[ $? -eq 0 ] && pass "no section names, headers past the first page: stamped" || fail "no section names, headers past the first page: stamped" "$(cat err)"
[ "$("$PKGNOTE" show --field name nonames 2> /dev/null)" = hello ] && pass "no section names: note reads back" || fail "no section names: note reads back"
[ "$(readelf -h nonames 2> /dev/null | sed -n 's/^ *Number of section headers: *//p')" = 2 ] &&
        readelf -S nonames 2> /dev/null | grep -q PROGBITS && pass "no section names: section header table written again" ||
        fail "no section names: section header table written again" "$(readelf -hS nonames 2>&1 | tail -8)"
"$PKGNOTE" stamp -q $M nonames && pass "no section names: stamping again succeeds" || fail "no section names: stamping again succeeds"

# This machine's C library and loader, stamped, run programs.
mkdir -p sys
for f in /lib64/ld-linux-x86-64.so.2 /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/lib/x86_64-linux-gnu/libm.so.6 \
         /usr/lib/x86_64-linux-gnu/libselinux.so.1 /usr/lib/x86_64-linux-gnu/libpcre2-8.so.0; do
        [ -f "$f" ] && cp -L "$f" sys/
done
if [ -f sys/ld-linux-x86-64.so.2 ] && [ -f sys/libc.so.6 ]; then
        "$PKGNOTE" stamp --json $M sys/* > out 2> err
        [ "$(python3 -c 'import json,sys; print(all(json.loads(l)["firstPage"] and json.loads(l)["phdrsFirstPage"] for l in open("out")))')" = True ] &&
                pass "system libraries: note in the first page, headers kept" || fail "system libraries: note in the first page, headers kept" "$(cat out err)"
        got=$(LD_BIND_NOW=1 sys/ld-linux-x86-64.so.2 --library-path sys /usr/bin/ls -d / 2>&1)
        [ "$got" = / ] && pass "system libraries: ls runs on the stamped C library" || fail "system libraries: ls runs on the stamped C library" "$got"
        got=$(sys/ld-linux-x86-64.so.2 --library-path sys /usr/bin/awk 'BEGIN { print sqrt(16) }' 2>&1)
        [ "$got" = 4 ] && pass "system libraries: awk runs on the stamped libm" || fail "system libraries: awk runs on the stamped libm" "$got"
else
        skip "system libraries" "no x86-64 glibc here"
fi

finish
