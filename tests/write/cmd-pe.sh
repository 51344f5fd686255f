#!/bin/sh
# PE/COFF: the .pkgnote section of Windows programs and DLLs (mingw-w64),
# EFI binaries (systemd-boot, systemd-stub, an EFI application) and unified
# kernel images.  generate's COFF object linked in; stamp adds, replaces and
# removes the section, every result checked by an independent reader of the
# headers (pecheck below), by mingw-w64's objdump and by running it under
# wine; the object linked by lld-link too; an EFI application built with
# gnu-efi; UKIs made by systemd's ukify in a Debian root
# (dist/make-ukify-root.sh); sbsign/sbverify after stamping; signed files
# refused; show, lint and scan; every truncated prefix of the headers read
# and stamped without harm.
. "$SRCDIR/tests/lib.sh"

require x86_64-w64-mingw32-gcc i686-w64-mingw32-gcc x86_64-w64-mingw32-objdump objcopy python3
JSON='{"type":"deb","os":"debian","osVersion":"12","name":"hello","version":"1.0-1","architecture":"amd64"}'
M='--no-os-release --type deb --os debian --os-version 12 --name hello --version 1.0-1 --architecture amd64'
check() { if eval "$2"; then pass "$1"; else fail "$1" "${3:-}"; fi; }
field() { python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline()); print(eval(sys.argv[2]))' "$1" "$2"; }

# pecheck FILE: the headers as the PE format wants them after an edit, read
# here independently of pkgnote: sections inside the file and the image,
# in ascending, non-overlapping virtual addresses; SizeOfImage the aligned
# end of the last section; SizeOfHeaders covering the section table, a
# multiple of FileAlignment and below every section's data; the checksum,
# when there is one, the CheckSumMappedFile sum.  Prints what is wrong.
cat > pecheck.py <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
pe = struct.unpack_from('<I', b, 0x3c)[0]
assert b[pe:pe + 4] == b'PE\0\0', 'no PE signature'
nsec, = struct.unpack_from('<H', b, pe + 6)
optsz, = struct.unpack_from('<H', b, pe + 20)
opt = pe + 24
magic, = struct.unpack_from('<H', b, opt)
salign, falign = struct.unpack_from('<II', b, opt + 32)
image, headers, csum = struct.unpack_from('<III', b, opt + 56)
table = opt + optsz
end = 0
err = []
prev = 0
for i in range(nsec):
    h = table + 40 * i
    name = b[h:h + 8].rstrip(b'\0').decode('latin-1')
    vsize, va, rsize, roff = struct.unpack_from('<IIII', b, h + 8)
    if va < prev:
        err.append('section %s at 0x%x below the one before it' % (name, va))
    prev = va + max(vsize, 1)
    if rsize and roff + rsize > len(b):
        err.append('section %s data past the end of the file' % name)
    if rsize and roff < headers:
        err.append('section %s data inside the headers' % name)
    end = max(end, va + (vsize or rsize))
want = (end + salign - 1) // salign * salign
if image != want:
    err.append('SizeOfImage 0x%x, want 0x%x' % (image, want))
if headers < table + 40 * nsec or headers % falign:
    err.append('SizeOfHeaders 0x%x does not cover the table or is not aligned' % headers)
if csum:
    s = 0
    data = b + (b'\0' if len(b) % 2 else b'')
    for i in range(0, len(data), 2):
        if opt + 64 <= i < opt + 68:
            continue
        s += data[i] | data[i + 1] << 8
        s = (s & 0xffff) + (s >> 16)
    s = (s & 0xffff) + (s >> 16)
    if s + len(b) != csum:
        err.append('checksum 0x%x, want 0x%x' % (csum, s + len(b)))
print('\n'.join(err))
PY
pecheck() { r=$(python3 pecheck.py "$1" 2>&1) && [ -z "$r" ] || { echo "# $1: $r"; return 1; }; }
# flags FILE: the flag line mingw-w64's objdump -h gives .pkgnote.
flags() { x86_64-w64-mingw32-objdump -h "$1" | grep -A1 ' \.pkgnote ' | sed -n 2p | sed 's/^ *//'; }
WANT_FLAGS='CONTENTS, ALLOC, LOAD, READONLY, DATA'

# ---------------------------------------------------------------- wine
# Wine runs programs here when it can start at all; when it cannot (no
# display is needed, but some sandboxes forbid what wineserver does), each
# run-check is a skip that says so, never a pass.
export WINEDEBUG=-all WINEPREFIX="$T/wineprefix" WINEDLLOVERRIDES='mscoree,mshtml='
WINE=
if command -v wine > /dev/null 2>&1; then
        WINE=wine
elif command -v wine64 > /dev/null 2>&1; then
        WINE=wine64
elif [ -x /usr/lib/wine/wine64 ]; then
        WINE=/usr/lib/wine/wine64 # Debian's wine64 without the wine package
fi
WINE_WHY="wine is not installed"
cat > hello.c <<'C'
#include <stdio.h>
int main(void) {
        puts("hello from windows");
        return 0;
}
C
cat > lib.c <<'C'
__declspec(dllexport) int answer(void) { return 42; }
C
cat > uselib.c <<'C'
#include <stdio.h>
#include <windows.h>
int main(int argc, char **argv) {
        HMODULE h = LoadLibraryA(argc > 1 ? argv[1] : "lib.dll");
        if (!h)
                return 3;
        int (*f)(void) = (int (*)(void))GetProcAddress(h, "answer");
        printf("answer %d\n", f ? f() : -1);
        return f ? 0 : 4;
}
C
x86_64-w64-mingw32-gcc -O2 -o hello.exe hello.c || fatal "cannot build the mingw-w64 program"
x86_64-w64-mingw32-gcc -O2 -shared -o lib.dll lib.c || fatal "cannot build the mingw-w64 DLL"
x86_64-w64-mingw32-gcc -O2 -o uselib.exe uselib.c || fatal "cannot build the DLL's caller"
if [ -n "$WINE" ]; then
        if out=$(timeout 300 $WINE ./hello.exe 2>&1) && [ "$(printf '%s' "$out" | tr -d '\r' | tail -1)" = "hello from windows" ]; then
                WINE_WHY=
        else
                WINE_WHY="wine cannot run even the unstamped program here: $(printf '%s' "$out" | tr -d '\r' | tail -1)"
        fi
fi
# runs NAME EXPECTED PROGRAM ARGS...: PROGRAM prints EXPECTED as its last line under wine.
runs() {
        _n=$1 _e=$2
        shift 2
        if [ -z "$WINE" ]; then
                missing "$_n" wine
                return
        fi
        if [ -n "$WINE_WHY" ]; then
                skip "$_n" "$WINE_WHY"
                return
        fi
        _o=$(timeout 300 $WINE "$@" 2>&1 | tr -d '\r' | tail -1)
        [ "$_o" = "$_e" ] && pass "$_n" || fail "$_n" "wine printed '$_o', expected '$_e'"
}

# ------------------------------------------------------ generate coff-object
run generate $M --format coff-object -o note.o
expect_status 0 "generate coff-object"
x86_64-w64-mingw32-objdump -h note.o > objdump.out 2>&1
check "the COFF object is pe-x86-64 with .pkgnote" 'grep -q "file format pe-x86-64" objdump.out && grep -A1 " \.pkgnote " objdump.out | grep -q "CONTENTS, ALLOC, LOAD, READONLY, DATA"' "$(cat objdump.out)"
run generate $M --format coff-object --target i686 -o note32.o
expect_status 0 "generate coff-object for i686"
run generate $M --format coff-object --target s390x -o bad.o
expect_status 2 "generate coff-object refuses a target without a PE machine"
run generate $M --format coff-object --dlopen '[{"soname":["libx.so.1"]}]'
expect_status 2 "generate coff-object refuses dlopen notes"

x86_64-w64-mingw32-gcc -O2 -o linked.exe hello.c note.o || fatal "mingw-w64 gcc cannot link the COFF object"
x86_64-w64-mingw32-gcc -O2 -shared -o linked.dll lib.c note.o || fatal "mingw-w64 gcc cannot link the COFF object into a DLL"
i686-w64-mingw32-gcc -O2 -o linked32.exe hello.c note32.o || fatal "i686 mingw-w64 gcc cannot link the COFF object"
for f in linked.exe linked.dll linked32.exe; do
        run show --json $f
        check "$f: the linked-in note reads back" '[ "$(field out "json.dumps(d[\"packages\"][0], separators=(\",\",\":\"))")" = "$JSON" ]' "$(cat out err)"
        check "$f: objdump -h shows .pkgnote with the right flags" '[ "$(flags $f)" = "$WANT_FLAGS" ]' "$(flags $f)"
        run lint $f
        expect_status 0 "$f: lint is clean"
done
run show linked.exe
check "show: PE32+ console program" 'grep -q "^  peType: PE executable$" out && grep -q "^  architecture: x86-64 (PE32+)$" out && grep -q "^  subsystem: Windows console$" out' "$(cat out)"
run show linked32.exe
check "show: PE32 i386 program" 'grep -q "^  architecture: i386 (PE32)$" out' "$(cat out)"
run show --field peType linked.dll
expect_out "DLL" "show --field peType: DLL"
runs "the program with the linked-in note runs under wine" "hello from windows" ./linked.exe

# A linked-in section lies between others: replaced in place, never removed
# (that would leave a gap in the image).
cp linked.exe lk.exe
run stamp --name other --version 2 lk.exe
expect_status 0 "linked-in note replaced"
check "linked-in note replaced in its place" 'grep -q "note replaced in its place" out' "$(cat out)"
check "replaced linked-in note: headers right" 'pecheck lk.exe'
run show --field name lk.exe
expect_out "other" "replaced linked-in note reads back"
runs "program with a replaced note runs" "hello from windows" ./lk.exe
cp lk.exe lk.before
run stamp --remove lk.exe
expect_status 2 "removing a note between sections is refused"
check "the refusal says why" 'grep -q "between other sections" err' "$(cat err)"
check "a refused file is left as it was" 'cmp -s lk.exe lk.before'

# ------------------------------------------------------ stamp: add, replace, remove
for f in hello.exe lib.dll; do
        cp $f s-$f
        run stamp $M s-$f
        expect_status 0 "$f: stamp adds the section"
        check "$f: added as a new last section" 'grep -q "note added in a new section .pkgnote" out' "$(cat out)"
        check "$f: headers right after adding" 'pecheck s-$f'
        check "$f: objdump -h flags after adding" '[ "$(flags s-$f)" = "$WANT_FLAGS" ]' "$(flags s-$f)"
        run show --json s-$f
        check "$f: stamped note reads back" '[ "$(field out "json.dumps(d[\"packages\"][0], separators=(\",\",\":\"))")" = "$JSON" ]'
        cp s-$f again
        run stamp $M again
        check "$f: stamping again changes nothing" '[ $STATUS -eq 0 ] && grep -q "unchanged" out && cmp -s again s-$f' "$(cat out err)"
        run stamp --name short s-$f
        check "$f: a shorter note replaces it in place" '[ $STATUS -eq 0 ] && grep -q "replaced in its place" out && pecheck s-$f' "$(cat out err)"
        long=$(python3 -c 'print("x" * 900)')
        run stamp --name "$long" s-$f
        check "$f: a note larger than the section's room goes to a new section" '[ $STATUS -eq 0 ] && grep -q "new section" out && pecheck s-$f' "$(cat out err)"
        run show --field name s-$f
        expect_out "$long" "$f: the larger note reads back"
        check "$f: still one .pkgnote section" '[ "$(x86_64-w64-mingw32-objdump -h s-$f | grep -c " \.pkgnote ")" = 1 ]'
        run stamp --remove s-$f
        check "$f: removed" '[ $STATUS -eq 0 ] && grep -q "note removed" out && pecheck s-$f' "$(cat out err)"
        run show s-$f
        expect_status 1 "$f: no note after removal"
        check "$f: no .pkgnote section after removal" '! x86_64-w64-mingw32-objdump -h s-$f | grep -q " \.pkgnote "'
        cp $f rt-$f
        "$PKGNOTE" stamp -q $M rt-$f && "$PKGNOTE" stamp -q --remove rt-$f
        check "$f: stamp then remove gives back the same bytes" 'cmp -s rt-$f $f'
done
cp hello.exe w.exe
"$PKGNOTE" stamp -q $M w.exe
runs "stamped program runs under wine" "hello from windows" ./w.exe
"$PKGNOTE" stamp -q --name "$long" w.exe
runs "program with a replaced (moved) note runs" "hello from windows" ./w.exe
"$PKGNOTE" stamp -q --remove w.exe
runs "program with the note removed runs" "hello from windows" ./w.exe
cp lib.dll w.dll
"$PKGNOTE" stamp -q $M w.dll
runs "stamped DLL loads under wine" "answer 42" ./uselib.exe w.dll
"$PKGNOTE" stamp -q --name short w.dll
runs "DLL with a replaced note loads" "answer 42" ./uselib.exe w.dll
"$PKGNOTE" stamp -q --remove w.dll
runs "DLL with the note removed loads" "answer 42" ./uselib.exe w.dll

run stamp --dlopen '[{"soname":["libx.so.1"]}]' s-hello.exe
expect_status 2 "PE files take no dlopen note"

# The checksum: mingw-w64's ld writes one; stamping keeps it right.
check "mingw-w64's program has a checksum (the check below means something)" \
        '[ "$(python3 -c "import struct,sys; b=open(sys.argv[1],\"rb\").read(); p=struct.unpack_from(\"<I\",b,0x3c)[0]; print(struct.unpack_from(\"<I\",b,p+24+64)[0] != 0)" hello.exe)" = True ]'

# No room in the headers for another entry: refused, file unchanged.
python3 - hello.exe full.exe <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
pe = struct.unpack_from('<I', b, 0x3c)[0]
n, = struct.unpack_from('<H', b, pe + 6)
opt, = struct.unpack_from('<H', b, pe + 20)
slot = pe + 24 + opt + 40 * n
b[slot:slot + 40] = b'\xa5' * 40   # the bytes after the table, in use
open(sys.argv[2], 'wb').write(b)
PY
cp full.exe full.before
run stamp $M full.exe
check "no room in the headers: refused with exit 2" '[ $STATUS -eq 2 ] && grep -q "no room in the headers" err' "$(cat err)"
check "no room: the file is left as it was" 'cmp -s full.exe full.before'

# Regression: removal moved an overlay appended after stamping (here a zip's
# end record) back over the note, though stamping never moves such data
# (its offsets are unknown).  The note's bytes become zeros in place; the
# file keeps its length and the overlay its offset (and the checksum,
# stale since the overlay was appended, stays as it is).
cp hello.exe ov.exe
"$PKGNOTE" stamp -q $M ov.exe
ovat=$(wc -c < ov.exe)
printf 'PK\005\006\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' >> ov.exe
run stamp --remove ov.exe
check "regression: removal keeps an overlay appended after stamping where it was" '[ $STATUS -eq 0 ] && [ "$(wc -c < ov.exe)" = $((ovat + 22)) ] && [ "$(python3 -c "import sys; print(open(sys.argv[1],\"rb\").read().rfind(b\"PK\x05\x06\"))" ov.exe)" = $ovat ] && ! x86_64-w64-mingw32-objdump -h ov.exe | grep -q " \.pkgnote "' "$(cat out err)"
runs "program with the note removed before its overlay runs" "hello from windows" ./ov.exe

# Regression: a file stamped by the previous release, its .pkgnote after
# the COFF symbol table at the end of the file (made here from hello.exe
# and stamp's own section), could not take a larger note ("internal: the
# stamped image changes byte ...").  A larger note goes directly after the
# sections, the symbol table moved after it; a smaller one replaces the
# old in place; removal takes the note off the end.
cp hello.exe old-st.exe
"$PKGNOTE" stamp -q $M old-st.exe
python3 - hello.exe old-st.exe old.exe <<'PY'
import struct, sys
orig = open(sys.argv[1], 'rb').read()
st = open(sys.argv[2], 'rb').read()
pe = struct.unpack_from('<I', orig, 0x3c)[0]
n, = struct.unpack_from('<H', orig, pe + 6)
opt, = struct.unpack_from('<H', orig, pe + 20)
fa, = struct.unpack_from('<I', orig, pe + 24 + 36)
ent = pe + 24 + opt + 40 * n
rsize, roff = struct.unpack_from('<II', st, ent + 16)
b = bytearray(orig + b'\0' * (-len(orig) % fa))
at = len(b)
b += st[roff:roff + rsize]
b[ent:ent + 40] = st[ent:ent + 40]
struct.pack_into('<I', b, ent + 20, at)
struct.pack_into('<H', b, pe + 6, n + 1)
b[pe + 24 + 56:pe + 24 + 64] = st[pe + 24 + 56:pe + 24 + 64]   # SizeOfImage, SizeOfHeaders
c = pe + 24 + 64
s = 0
d = bytes(b) + (b'\0' if len(b) % 2 else b'')
for i in range(0, len(d), 2):
    if c <= i < c + 4:
        continue
    s += d[i] | d[i + 1] << 8
    s = (s & 0xffff) + (s >> 16)
s = (s & 0xffff) + (s >> 16)
struct.pack_into('<I', b, c, s + len(b))
open(sys.argv[3], 'wb').write(b)
PY
# symafter FILE: 1 when PointerToSymbolTable is the end of .pkgnote's raw data.
symafter() { python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
pe = struct.unpack_from("<I", b, 0x3c)[0]
n, = struct.unpack_from("<H", b, pe + 6)
opt, = struct.unpack_from("<H", b, pe + 20)
sym, = struct.unpack_from("<I", b, pe + 12)
for i in range(n):
    h = pe + 24 + opt + 40 * i
    if b[h:h + 8] == b".pkgnote":
        rs, ro = struct.unpack_from("<II", b, h + 16)
        print(1 if ro + rs == sym else 0)' "$1"; }
run show --field name old.exe
check "the old layout (note after the symbol table) reads" '[ $STATUS -eq 0 ] && [ "$(cat out)" = hello ] && [ "$(symafter old.exe)" = 0 ]' "$(cat out err)"
cp old.exe old-big.exe
run stamp --name "$long" old-big.exe
check "regression: the old layout takes a larger note: new layout, symbol table right after it" '[ $STATUS -eq 0 ] && grep -q "new section" out && pecheck old-big.exe && [ "$(symafter old-big.exe)" = 1 ] && [ "$("$PKGNOTE" show --field name old-big.exe)" = "$long" ]' "$(cat out err)"
runs "the old layout restamped with a larger note runs" "hello from windows" ./old-big.exe
cp old.exe old-small.exe
run stamp --name short old-small.exe
check "the old layout takes a smaller note in place" '[ $STATUS -eq 0 ] && grep -q "replaced in its place" out && pecheck old-small.exe && [ "$("$PKGNOTE" show --field name old-small.exe)" = short ]' "$(cat out err)"
cp old.exe old-rm.exe
run stamp --remove old-rm.exe
# Back to hello.exe's bytes (its checksum aside: the file is longer by the
# old padding, zeros after the symbol table, which stay).
check "the old layout's note removed: hello.exe's bytes, the symbol table where it was" '[ $STATUS -eq 0 ] && pecheck old-rm.exe && python3 -c "
import struct, sys
a = open(sys.argv[1], \"rb\").read(); b = open(sys.argv[2], \"rb\").read()
c = struct.unpack_from(\"<I\", b, 0x3c)[0] + 24 + 64
sys.exit(0 if a[:c] == b[:c] and a[c + 4:len(b)] == b[c + 4:] and not a[len(b):].strip(b\"\\0\") else 1)" old-rm.exe hello.exe' "$(cat out err)"

# Regression (found by fuzz-pe): a FileAlignment of 2 GiB sized a 4 GiB
# buffer before anything was checked.
python3 - hello.exe align.exe <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
pe = struct.unpack_from('<I', b, 0x3c)[0]
struct.pack_into('<I', b, pe + 24 + 36, 0x80000000)
open(sys.argv[2], 'wb').write(b)
PY
"$PKGNOTE" stamp $M align.exe > out 2> err
STATUS=$?
check "regression: a huge FileAlignment is refused before anything is sized" '[ $STATUS -eq 2 ] && grep -q "file alignment" err' "$(cat err)"

# ------------------------------------------------------------- lint
cp linked.exe bad.exe
objcopy --set-section-flags .pkgnote=code,alloc,load bad.exe 2>/dev/null
run lint bad.exe
check "lint: executable .pkgnote flagged" '[ $STATUS -eq 1 ] && grep -q "pe-section-flags" out' "$(cat out err)"
run lint hello.exe
check "lint: no .pkgnote section" '[ $STATUS -eq 1 ] && grep -q "no-package-note" out' "$(cat out err)"
python3 - linked.exe nonul.exe <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
i = b.index(b'{"type":"deb"')
j = b.index(b'\0', i)
b[j:j + 4] = b'    '   # the NUL and padding: spaces
open(sys.argv[2], 'wb').write(b)
PY
run lint nonul.exe
check "lint: JSON without its NUL" '[ $STATUS -eq 1 ] && grep -q "no-nul\|trailing-data" out' "$(cat out err)"

# Two .pkgnote sections (a second one made by renaming .rdata of a
# stamped program): lint says so, stamp refuses.
cp hello.exe two.exe
"$PKGNOTE" stamp -q $M two.exe
python3 - two.exe <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
pe = struct.unpack_from('<I', b, 0x3c)[0]
n, = struct.unpack_from('<H', b, pe + 6)
opt, = struct.unpack_from('<H', b, pe + 20)
t = pe + 24 + opt
for i in range(n):
    if b[t + 40 * i:t + 40 * i + 8].rstrip(b'\0') == b'.rdata':
        b[t + 40 * i:t + 40 * i + 8] = b'.pkgnote'
open(sys.argv[1], 'wb').write(b)
PY
run lint two.exe
check "lint: two .pkgnote sections" '[ $STATUS -eq 1 ] && grep -q "pe-multiple-sections" out' "$(cat out err)"
run stamp $M two.exe
check "stamp refuses a file with two .pkgnote sections" '[ $STATUS -eq 2 ] && grep -q "sections: stamp only files with one" err' "$(cat err)"

# ------------------------------------------------ objcopy --add-section recipe
run generate $M --format coff-section -o section.bin
expect_status 0 "generate coff-section"
vma=$(x86_64-w64-mingw32-objdump -p hello.exe | sed -n 's/^ImageBase[[:space:]]*\([0-9a-f]*\)/\1/p;s/^SizeOfImage[[:space:]]*\([0-9a-f]*\)/\1/p' |
        { read -r base; read -r size; printf '0x%x' $((0x$base + 0x$size)); })
objcopy --add-section .pkgnote=section.bin --set-section-flags .pkgnote=contents,alloc,load,readonly,data \
        --change-section-vma .pkgnote="$vma" hello.exe recipe.exe || fatal "the objcopy recipe fails"
run show --json recipe.exe
check "objcopy recipe: note reads back" '[ "$(field out "json.dumps(d[\"packages\"][0], separators=(\",\",\":\"))")" = "$JSON" ]' "$(cat out err)"
run lint recipe.exe
expect_status 0 "objcopy recipe: lint is clean"
runs "objcopy recipe: program runs" "hello from windows" ./recipe.exe

# ------------------------------------------------------------- EFI
EFI=/usr/lib/systemd/boot/efi
if [ -f $EFI/systemd-bootx64.efi ] && [ -f $EFI/linuxx64.efi.stub ]; then
        for f in systemd-bootx64.efi linuxx64.efi.stub; do
                cp $EFI/$f e-$f
                run stamp $M e-$f
                expect_status 0 "$f: stamped"
                check "$f: headers right" 'pecheck e-$f'
                run show --json e-$f
                check "$f: note reads back, EFI application" '[ "$(field out "json.dumps(d[\"packages\"][0], separators=(\",\",\":\"))")" = "$JSON" ] && [ "$(field out "d[\"elfType\"]")" = "EFI application" ]' "$(cat out)"
                check "$f: the original sections are all there" '[ "$(x86_64-w64-mingw32-objdump -h $EFI/$f | grep -c "^ *[0-9]")" -eq "$(($(x86_64-w64-mingw32-objdump -h e-$f | grep -c "^ *[0-9]") - 1))" ]'
        done
        # A UKI assembled as ukify does: the stub plus .osrel, .uname, .linux.
        printf 'ID=debian\nVERSION_ID=12\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n' > osrel
        printf '6.1.0-28-amd64' > uname
        head -c 300000 /dev/urandom > vmlinuz
        objcopy --add-section .osrel=osrel --change-section-vma .osrel=0x20000 \
                --add-section .uname=uname --change-section-vma .uname=0x21000 \
                --add-section .linux=vmlinuz --change-section-vma .linux=0x2000000 \
                $EFI/linuxx64.efi.stub uki.efi || fatal "cannot assemble the UKI"
        run stamp $M uki.efi
        expect_status 0 "UKI stamped"
        check "UKI: headers right" 'pecheck uki.efi'
        run show uki.efi
        check "UKI: show names the note, the kernel and the OS" 'grep -q "^  package: section .pkgnote$" out && grep -q "^  kernel: section .linux, 300000 bytes, release 6.1.0-28-amd64$" out && grep -q "^  osRelease: section .osrel, Debian GNU/Linux 12 (bookworm)$" out' "$(cat out)"
        run show --json uki.efi
        check "UKI: JSON names the kernel and os-release" '[ "$(field out "d[\"pe\"][\"uki\"][\"osRelease\"][\"ID\"], d[\"pe\"][\"uki\"][\"uname\"], d[\"pe\"][\"uki\"][\"linuxSize\"]")" = "('"'"'debian'"'"', '"'"'6.1.0-28-amd64'"'"', 300000)" ]' "$(cat out)"

        # An EFI application built with mingw-w64.
        cat > app.c <<'C'
typedef unsigned long long UINTN;
UINTN efi_main(void *image, void *systab) { (void)image; (void)systab; return 0; }
C
        x86_64-w64-mingw32-gcc -O2 -nostdlib -shared -Wl,--subsystem,10 -e efi_main -o app.efi app.c note.o ||
                fatal "cannot build the EFI application"
        run show app.efi
        check "EFI application built with the COFF object: note and subsystem" 'grep -q "^  subsystem: EFI application$" out && grep -q "^    name: hello$" out' "$(cat out)"

        # Stamp, then sign; signed files are refused, unless the signature goes.
        if command -v sbsign > /dev/null && command -v sbverify > /dev/null && command -v openssl > /dev/null; then
                openssl req -new -x509 -newkey rsa:2048 -nodes -subj /CN=pkgnote-test -days 1 \
                        -keyout db.key -out db.crt > /dev/null 2>&1 || fatal "cannot make a test key"
                sbsign --key db.key --cert db.crt --output signed.efi e-systemd-bootx64.efi > sb.out 2>&1
                check "sbsign signs the stamped file" '[ -f signed.efi ]' "$(cat sb.out)"
                check "sbverify verifies it" 'sbverify --cert db.crt signed.efi > sv.out 2>&1' "$(cat sv.out)"
                run show signed.efi
                check "the signed file's note still reads, signed shown" 'grep -q "^    name: hello$" out && grep -q "^  signed: yes" out' "$(cat out)"
                cp signed.efi signed.before
                run stamp --name other signed.efi
                check "a signed file is refused" '[ $STATUS -eq 2 ] && grep -q "Authenticode" err && cmp -s signed.efi signed.before' "$(cat err)"
                run stamp --name other --drop-signature signed.efi
                check "--drop-signature stamps and says the signature went" '[ $STATUS -eq 0 ] && grep -q "signature was dropped" err && pecheck signed.efi' "$(cat out err)"
                check "the dropped signature no longer verifies" '! sbverify --cert db.crt signed.efi > /dev/null 2>&1'
                sbsign --key db.key --cert db.crt --output resigned.efi signed.efi > /dev/null 2>&1
                check "signed again, it verifies" 'sbverify --cert db.crt resigned.efi > /dev/null 2>&1'
                run show --field name resigned.efi
                expect_out "other" "the re-signed file carries the new note"
        else
                missing "sbsign after stamping" sbsigntool
        fi
else
        missing "EFI binaries stamped" systemd-boot-efi
fi

# ------------------------------------------------------------- lld-link
# LLVM's linker called directly with mingw-w64's start files and import
# libraries, as clang's mingw driver would.  It needs /lldmingw (the GNU
# conventions: auto-import, pseudo-relocations) and __image_base__, GNU
# ld's name for the image base that mingw-w64's crt2.o and libmingw32.a
# refer to, mapped onto __ImageBase, which lld-link defines.  (clang 14's
# own mingw driver finds no -lgcc here: it looks for a gcc directory named
# by a bare version, and Debian names it 12-win32 or 12-posix.)
# secbytes FILE: the .pkgnote section's VirtualSize bytes, read at its
# PointerToRawData independently of pkgnote.
cat > secbytes.py <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
pe = struct.unpack_from('<I', b, 0x3c)[0]
n, opt = struct.unpack_from('<H', b, pe + 6)[0], struct.unpack_from('<H', b, pe + 20)[0]
t = pe + 24 + opt
for i in range(n):
    h = t + 40 * i
    if b[h:h + 8] == b'.pkgnote':
        vsize, va, rsize, roff = struct.unpack_from('<IIII', b, h + 8)
        sys.stdout.buffer.write(b[roff:roff + vsize])
        break
PY
LLD_LINK=
for l in lld-link-16 lld-link; do command -v $l > /dev/null 2>&1 && { LLD_LINK=$l; break; }; done
MINGW_GCC_DIR=$(dirname "$(x86_64-w64-mingw32-gcc -print-libgcc-file-name)")
MINGW_LIB=$(dirname "$(x86_64-w64-mingw32-gcc -print-file-name=crt2.o)")
if [ -n "$LLD_LINK" ]; then
        x86_64-w64-mingw32-gcc -O2 -c -o hello.o hello.c || fatal "cannot compile the mingw-w64 object"
        $LLD_LINK /out:lld.exe /entry:mainCRTStartup /subsystem:console /lldmingw \
                /alternatename:__image_base__=__ImageBase \
                "$MINGW_LIB/crt2.o" "$MINGW_GCC_DIR/crtbegin.o" hello.o note.o \
                /libpath:"$MINGW_GCC_DIR" /libpath:"$MINGW_LIB" libmingw32.a libgcc.a libgcc_eh.a \
                libmoldname.a libmingwex.a libmsvcrt.a libkernel32.a libadvapi32.a libshell32.a \
                libuser32.a "$MINGW_GCC_DIR/crtend.o" > lld.out 2>&1
        check "lld-link links mingw-w64's start files and import libraries with the COFF object" '[ -f lld.exe ]' "$(cat lld.out)"
        check "lld-link: headers right" 'pecheck lld.exe'
        check "lld-link: objdump -h shows .pkgnote with the right flags" '[ "$(flags lld.exe)" = "$WANT_FLAGS" ]' "$(flags lld.exe)"
        "$PKGNOTE" generate $M --format json -o lld.json
        "$PKGNOTE" generate $M --format coff-section -o lld.bin
        python3 secbytes.py lld.exe > lld.sec
        check "lld-link: the section is generate's coff-section byte for byte" 'cmp -s lld.sec lld.bin' "$(od -c lld.sec | head -3)"
        check "lld-link: up to its NUL the section is generate --format json byte for byte" '[ "$(tr -d "\0" < lld.sec)" = "$(cat lld.json)" ] && [ "$(tr -d "\0" < lld.sec | wc -c)" -eq "$(($(wc -c < lld.json) - 1))" ]' "$(od -c lld.sec | head -3)"
        run show --json lld.exe
        check "lld-link: show reads the note" '[ "$(field out "json.dumps(d[\"packages\"][0], separators=(\",\",\":\"))")" = "$JSON" ]' "$(cat out err)"
        run lint lld.exe
        expect_status 0 "lld-link: lint is clean"
        runs "lld-link: the program runs under wine" "hello from windows" ./lld.exe
else
        missing "lld-link links the COFF object" lld-16
fi

# ------------------------------------------------------------- gnu-efi
# An EFI application as gnu-efi builds it: an ELF shared object linked with
# gnu-efi's crt0 and linker script, converted by objcopy --target
# efi-app-x86_64, which keeps only the sections it is given with -j.  Two
# routes to the note: the coff-section added during the conversion (at a
# VMA past the ELF's last segment), or stamp after it.
GNUEFI_LDS=/usr/lib/elf_x86_64_efi.lds
GNUEFI_CRT0=/usr/lib/crt0-efi-x86_64.o
if [ -f $GNUEFI_LDS ] && [ -f $GNUEFI_CRT0 ] && [ -f /usr/include/efi/efi.h ] && command -v gcc > /dev/null && command -v ld > /dev/null; then
        cat > efiapp.c <<'C'
#include <efi.h>
#include <efilib.h>
EFI_STATUS efi_main(EFI_HANDLE image, EFI_SYSTEM_TABLE *systab)
{
        InitializeLib(image, systab);
        Print(L"hello from efi\n");
        return EFI_SUCCESS;
}
C
        gcc -O2 -fpic -fshort-wchar -mno-red-zone -ffreestanding -fno-stack-protector -fno-strict-aliasing \
                -maccumulate-outgoing-args -DGNU_EFI_USE_MS_ABI -I/usr/include/efi -I/usr/include/efi/x86_64 \
                -c -o efiapp.o efiapp.c &&
                ld -nostdlib -znocombreloc -T $GNUEFI_LDS -shared -Bsymbolic -L/usr/lib $GNUEFI_CRT0 efiapp.o \
                        -o efiapp.so -lefi -lgnuefi ||
                fatal "cannot build the gnu-efi application"
        EFI_J='-j .text -j .sdata -j .data -j .dynamic -j .dynsym -j .rel -j .rela -j .reloc'
        objcopy $EFI_J --target efi-app-x86_64 efiapp.so gnuefi.efi || fatal "objcopy cannot convert the gnu-efi application"
        # Route 1: the section added while converting.
        end=$(readelf -lW efiapp.so | awk '$1 == "LOAD" { print $3, $6 }' |
                { m=0; while read -r a s; do e=$((a + s)); [ $e -gt $m ] && m=$e; done; printf '0x%x' $(((m + 4095) / 4096 * 4096)); })
        run generate $M --format coff-section -o efi.bin
        objcopy $EFI_J --add-section .pkgnote=efi.bin --set-section-flags .pkgnote=contents,alloc,load,readonly,data \
                --change-section-vma .pkgnote="$end" --target efi-app-x86_64 efiapp.so gnuefi-conv.efi > conv.out 2>&1
        check "gnu-efi: objcopy adds the coff-section while converting" '[ -f gnuefi-conv.efi ]' "$(cat conv.out)"
        check "gnu-efi, added while converting: headers right" 'pecheck gnuefi-conv.efi'
        check "gnu-efi, added while converting: the section is generate's byte for byte, with the right flags" 'python3 secbytes.py gnuefi-conv.efi | cmp -s - efi.bin && [ "$(flags gnuefi-conv.efi)" = "$WANT_FLAGS" ]' "$(flags gnuefi-conv.efi)"
        run show gnuefi-conv.efi
        check "gnu-efi, added while converting: show reads the note of an EFI application" '[ $STATUS -eq 0 ] && grep -q "^  subsystem: EFI application$" out && grep -q "^  package: section .pkgnote$" out && grep -q "^    name: hello$" out' "$(cat out err)"
        run lint gnuefi-conv.efi
        expect_status 0 "gnu-efi, added while converting: lint is clean"
        # Route 2: stamp the converted file.
        run lint gnuefi.efi
        check "gnu-efi: the plain conversion carries no note" '[ $STATUS -eq 1 ] && grep -q "no-package-note" out' "$(cat out err)"
        cp gnuefi.efi gnuefi-st.efi
        run stamp $M gnuefi-st.efi
        check "gnu-efi, stamped after converting: added as a new last section" '[ $STATUS -eq 0 ] && grep -q "note added in a new section .pkgnote" out' "$(cat out err)"
        check "gnu-efi, stamped after converting: headers right" 'pecheck gnuefi-st.efi'
        run show --json gnuefi-st.efi
        check "gnu-efi, stamped after converting: the note reads back, EFI application" '[ "$(field out "json.dumps(d[\"packages\"][0], separators=(\",\",\":\"))")" = "$JSON" ] && [ "$(field out "d[\"elfType\"]")" = "EFI application" ]' "$(cat out err)"
        run show gnuefi-st.efi
        check "gnu-efi, stamped after converting: subsystem EFI application" 'grep -q "^  subsystem: EFI application$" out' "$(cat out)"
        run lint gnuefi-st.efi
        expect_status 0 "gnu-efi, stamped after converting: lint is clean"
else
        missing "a gnu-efi application carries the note" gnu-efi
fi

# ------------------------------------------------------------- ukify
# A UKI made by systemd's ukify itself, run in a Debian trixie root with
# systemd-ukify and systemd-boot-efi (dist/make-ukify-root.sh; make
# deps-test makes it) under bubblewrap.  Two orders that keep a signature
# good: stamp ukify's UKI, then sign it (sbsign); or give ukify the
# coff-section as a section of its own (--section .pkgnote:@FILE), which
# it adds before it signs.
UKROOT=${PKGNOTE_UKIFY_ROOT:-/var/cache/pkgnote/roots/ukify}
if [ ! -x "$UKROOT/usr/bin/ukify" ] || [ ! -f "$UKROOT/usr/lib/systemd/boot/efi/linuxx64.efi.stub" ]; then
        missing "a UKI made by ukify (sh dist/make-ukify-root.sh)" "$UKROOT"
elif ! command -v bwrap > /dev/null; then
        missing "a UKI made by ukify" bubblewrap
else
        mkdir -p uk
        # The kernel: the root's own when it has one, else any small EFI image.
        k=$(ls "$UKROOT"/boot/vmlinuz-* 2> /dev/null | tail -1)
        cp "${k:-$UKROOT/usr/lib/systemd/boot/efi/systemd-bootx64.efi}" uk/vmlinuz
        ksize=$(wc -c < uk/vmlinuz)
        printf 'ID=debian\nVERSION_ID=13\nPRETTY_NAME="Debian GNU/Linux 13 (trixie)"\n' > uk/os-release
        "$PKGNOTE" generate $M --format coff-section -o uk/pkgnote.bin
        bwrap_isolate
        ukify() {
                # shellcheck disable=SC2086
                bwrap --ro-bind "$UKROOT" / --dev /dev $BWRAP_ISOLATE --tmpfs /tmp --bind "$T/uk" /tmp/uk \
                        --die-with-parent /usr/bin/ukify build --linux=/tmp/uk/vmlinuz \
                        --os-release=@/tmp/uk/os-release --uname=6.12.0-1-amd64 "$@" > uk/ukify.out 2>&1
        }
        ukify --output=/tmp/uk/uki.efi
        check "ukify builds a UKI" '[ -f uk/uki.efi ]' "$(cat uk/ukify.out)"
        run show uk/uki.efi
        check "ukify's UKI: no note yet, kernel and os-release named" '[ $STATUS -eq 1 ] && grep -q "^  kernel: section .linux, $ksize bytes, release 6.12.0-1-amd64$" out && grep -q "^  osRelease: section .osrel, Debian GNU/Linux 13 (trixie)$" out' "$(cat out err)"
        cp uk/uki.efi ukify-st.efi
        run stamp $M ukify-st.efi
        check "ukify's UKI stamped: added as a new last section" '[ $STATUS -eq 0 ] && grep -q "note added in a new section .pkgnote" out' "$(cat out err)"
        check "ukify's UKI stamped: headers right" 'pecheck ukify-st.efi'
        run show ukify-st.efi
        check "ukify's UKI stamped: show names the note, the kernel and the os-release" 'grep -q "^  package: section .pkgnote$" out && grep -q "^    name: hello$" out && grep -q "^  kernel: section .linux, $ksize bytes, release 6.12.0-1-amd64$" out && grep -q "^  osRelease: section .osrel, Debian GNU/Linux 13 (trixie)$" out' "$(cat out)"
        run lint ukify-st.efi
        expect_status 0 "ukify's UKI stamped: lint is clean"
        run stamp --remove ukify-st.efi
        check "ukify's UKI: stamp then remove gives back ukify's bytes" '[ $STATUS -eq 0 ] && cmp -s ukify-st.efi uk/uki.efi' "$(cat out err)"
        "$PKGNOTE" stamp -q $M ukify-st.efi
        if command -v sbsign > /dev/null && command -v sbverify > /dev/null && command -v openssl > /dev/null; then
                openssl req -new -x509 -newkey rsa:2048 -nodes -subj /CN=pkgnote-ukify -days 1 \
                        -keyout uk.key -out uk.crt > /dev/null 2>&1 || fatal "cannot make a test key"
                sbsign --key uk.key --cert uk.crt --output ukify-signed.efi ukify-st.efi > uksb.out 2>&1
                check "ukify's UKI stamped, then signed: sbverify accepts it" 'sbverify --cert uk.crt ukify-signed.efi > uksv.out 2>&1' "$(cat uksb.out uksv.out 2>/dev/null)"
                run show ukify-signed.efi
                check "ukify's UKI stamped, then signed: note, kernel and signature shown" 'grep -q "^    name: hello$" out && grep -q "^  signed: yes" out && grep -q "^  kernel: section .linux" out' "$(cat out)"
        else
                missing "ukify's UKI stamped, then signed" sbsigntool
        fi
        ukify --section=.pkgnote:@/tmp/uk/pkgnote.bin --output=/tmp/uk/uki-note.efi
        check "ukify builds a UKI with the coff-section as --section .pkgnote" '[ -f uk/uki-note.efi ]' "$(cat uk/ukify.out)"
        check "ukify's --section: the section is generate's byte for byte, with the right flags" 'python3 secbytes.py uk/uki-note.efi | cmp -s - uk/pkgnote.bin && [ "$(flags uk/uki-note.efi)" = "$WANT_FLAGS" ]' "$(flags uk/uki-note.efi)"
        run show uk/uki-note.efi
        check "ukify's --section: show names the note, the kernel and the os-release" 'grep -q "^  package: section .pkgnote$" out && grep -q "^    name: hello$" out && grep -q "^  kernel: section .linux, $ksize bytes, release 6.12.0-1-amd64$" out && grep -q "^  osRelease: section .osrel, Debian GNU/Linux 13 (trixie)$" out' "$(cat out)"
        run lint uk/uki-note.efi
        expect_status 0 "ukify's --section: lint is clean"
        # Why the stub is not what gets stamped: ukify copies its sections as
        # they are, so the UKI would name the stub's package.
        cp "$UKROOT/usr/lib/systemd/boot/efi/linuxx64.efi.stub" uk/stub.efi
        "$PKGNOTE" stamp -q --no-os-release --type deb --name systemd-boot-efi --version 257 uk/stub.efi
        ukify --stub=/tmp/uk/stub.efi --output=/tmp/uk/uki-stub.efi
        run show --field name uk/uki-stub.efi
        check "ukify keeps a stamped stub's note: the UKI would claim the stub's package" '[ "$(cat out)" = systemd-boot-efi ]' "$(cat out err uk/ukify.out)"
fi

# ------------------------------------------------------------- stamp --tree
# A cross build's staging tree: a mingw-w64 program and DLL beside an ELF
# program.  Every object gets the note, the PE images their .pkgnote
# section, with the same metadata (options or map) as the ELF files; a
# signed image is refused by name, never passed over in silence, unless
# the signature may go.
if command -v cc > /dev/null; then
        mkdir -p tree/bin tree/lib
        cp hello.exe tree/bin/hello.exe
        cp lib.dll tree/lib/lib.dll
        printf 'int main(void){return 0;}\n' > prog.c
        cc -o tree/bin/prog prog.c || fatal "cannot build the ELF program"
        run stamp --tree $M tree
        check "stamp --tree: the mingw program, the DLL and the ELF program all stamped" '[ $STATUS -eq 0 ] && (for f in bin/hello.exe lib/lib.dll bin/prog; do [ "$("$PKGNOTE" show --field name tree/$f)" = hello ] || exit 1; done)' "$(cat out err)"
        check "stamp --tree: PE headers right after the tree stamp" 'pecheck tree/bin/hello.exe && pecheck tree/lib/lib.dll'
        check "stamp --tree: summary counts ELF files and PE images" 'grep -q "1 ELF files and 2 PE images carry the note, 0 skipped" err' "$(cat err)"
        runs "stamp --tree: the stamped program runs" "hello from windows" ./tree/bin/hello.exe
        run stamp --tree --remove tree
        check "stamp --tree --remove: the .pkgnote sections go, the PE images as they were" '[ $STATUS -eq 0 ] && cmp -s tree/bin/hello.exe hello.exe && cmp -s tree/lib/lib.dll lib.dll' "$(cat out err)"
        # The metadata map's rules apply to PE images as to ELF files.
        printf 'bin/hello.exe\t{"type":"deb","name":"winhello","version":"2"}\nbin/prog\t{"type":"deb","name":"elfprog","version":"2"}\n' > tree.map
        run stamp --tree --no-os-release --metadata-map tree.map tree
        check "stamp --tree --metadata-map: each file its line's metadata, a PE image without a line left alone" '[ "$("$PKGNOTE" show --field name tree/bin/hello.exe)" = winhello ] && [ "$("$PKGNOTE" show --field name tree/bin/prog)" = elfprog ] && cmp -s tree/lib/lib.dll lib.dll && grep -q "lib.dll.*not in the metadata map" err' "$(cat out err)"
        # A dlopen note is ELF's alone: the PE image is named as skipped.
        run stamp --tree $M --dlopen '[{"soname":["libz.so.1"],"feature":"z","priority":"suggested"}]' tree
        check "stamp --tree with a dlopen note: PE images named as skipped, ELF files stamped" 'grep -q "hello.exe.*package note only" err && [ "$("$PKGNOTE" show --field name tree/bin/prog)" = hello ]' "$(cat out err)"
        if command -v sbsign > /dev/null && command -v openssl > /dev/null; then
                openssl req -new -x509 -newkey rsa:2048 -nodes -subj /CN=pkgnote-tree -days 1 \
                        -keyout tree.key -out tree.crt > /dev/null 2>&1 || fatal "cannot make a test key"
                mkdir -p stree
                sbsign --key tree.key --cert tree.crt --output stree/signed.exe hello.exe > /dev/null 2>&1 ||
                        fatal "sbsign cannot sign the mingw program"
                cp stree/signed.exe signed-tree.before
                cp lib.dll stree/lib.dll
                run stamp --tree $M stree
                check "stamp --tree: a signed PE image is refused by name, exit 2, left as it was" '[ $STATUS -eq 2 ] && grep -q "signed.exe.*Authenticode" err && cmp -s stree/signed.exe signed-tree.before' "$(cat out err)"
                check "stamp --tree: the refusal does not stop the rest of the tree" '[ "$("$PKGNOTE" show --field name stree/lib.dll)" = hello ]' "$(cat err)"
                run stamp --tree --drop-signature $M stree
                check "stamp --tree --drop-signature: the signed image stamped, the dropped signature named" '[ $STATUS -eq 0 ] && [ "$("$PKGNOTE" show --field name stree/signed.exe)" = hello ] && grep -q "signed.exe.*signature was dropped" err && pecheck stree/signed.exe' "$(cat out err)"
        else
                missing "stamp --tree refuses signed PE images" sbsigntool
        fi
else
        missing "stamp --tree over PE images" gcc
fi

# ------------------------------------------------------------- scan
mkdir -p esp/EFI/BOOT esp/win
cp s-lib.dll esp/win/ 2>/dev/null
cp linked.exe linked.dll esp/win/
[ -f uki.efi ] && cp uki.efi esp/EFI/BOOT/BOOTX64.EFI
printf 'MZ but not a program\n' > esp/dos.txt
run scan --format json esp
check "scan: PE objects listed with their kind" 'grep -q "\"elfType\":\"PE executable\"" out && grep -q "\"elfType\":\"DLL\"" out' "$(cat out err)"
check "scan: a file starting with MZ that is no PE image is no object, no problem" '! grep -q "dos.txt" out && [ ! -s err ]' "$(cat err)"
tar cf esp.tar -C esp .
if with_feature archive "scan: PE members of an archive"; then
        run scan --format json esp.tar
        check "scan: PE members of an archive" 'grep -q "linked.exe" out && grep -q "\"name\":\"hello\"" out' "$(cat out err)"
fi
run scan --format spdx esp
check "SBOM lists the PE files' package" 'grep -q "hello" out' "$(cat out err)"

# The totals and the JSON summary name PE images as what they are: a tree
# of a mingw program, a DLL and an ELF program is 3 objects, 1 ELF and 2
# PE images, never "3 ELF objects"; an ELF-only tree keeps its old line.
mkdir -p mix elfonly
cp linked.exe linked.dll mix/
cp /bin/true mix/true
cp /bin/true elfonly/true
run scan mix
check "scan table: totals count PE images apart from ELF objects" '[ $STATUS -eq 0 ] && grep -q "^  objects               3 (1 ELF, 2 PE images)$" out && ! grep -q "ELF objects" out' "$(cat out err)"
run scan --format json mix
check "scan JSON summary: objects 3, peImages 2" '[ "$(python3 -c "import json,sys; d=[json.loads(l) for l in open(sys.argv[1])][-1][\"summary\"]; print(d[\"objects\"], d[\"peImages\"])" out)" = "3 2" ]' "$(tail -1 out)"
run scan elfonly
check "scan table: an ELF-only tree still says ELF objects" 'grep -q "^  ELF objects           1$" out' "$(cat out)"
run scan --format json elfonly
check "scan JSON summary: peImages 0 without PE images" '[ "$(python3 -c "import json,sys; print([json.loads(l) for l in open(sys.argv[1])][-1][\"summary\"][\"peImages\"])" out)" = 0 ]' "$(tail -1 out)"

# ------------------------------------------------------ deps, pid, ps
# The object view opens PE images, so the commands made for ELF meet them:
# deps says a PE image has no ELF dependencies and exits as for any
# non-ELF file; pid and ps show a mapped PE image with its .pkgnote
# package and nothing ELF-only (no build-id), and do not fall over.
cp linked.exe dep.exe
run deps dep.exe
check "deps: a PE image named is refused as not ELF, exit 2, saying why" '[ $STATUS -eq 2 ] && [ ! -s out ] && grep -q "^pkgnote: '"'"'dep.exe'"'"': not ELF: a PE image has no ELF dependencies" err' "$(cat out err)"
run deps --format json dep.exe
check "deps --format json: a PE image refused, nothing printed" '[ $STATUS -eq 2 ] && [ ! -s out ] && grep -q "PE image has no ELF dependencies" err' "$(cat out err)"
printf '%s\n' "$T/dep.exe" | "$PKGNOTE" deps --rpm-generator requires > out 2> err
STATUS=$?
check "deps --rpm-generator: a PE image refused as not ELF" '[ $STATUS -eq 2 ] && grep -q "PE image has no ELF dependencies" err' "$(cat out err)"
mkdir -p depstree
cp dep.exe /bin/true depstree/
run deps --tree depstree
check "deps --tree: a PE image in the tree passed over like other non-ELF files" '[ $STATUS -eq 0 ] && [ ! -s err ]' "$(cat out err)"
run deps --closure "$T/dep.exe"
check "deps --closure: a PE image is not an ELF program, exit 2" '[ $STATUS -eq 2 ] && grep -q "not an ELF program or shared object" err' "$(cat out err)"

# A process that maps a stamped PE image (as wine does, here with mmap).
python3 -c '
import mmap, sys, time
f = open(sys.argv[1], "rb")
m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
print("mapped", flush=True)
time.sleep(120)
' "$T/linked.exe" > mapper.out &
mapper=$!
i=0
while [ $i -lt 100 ] && ! grep -q mapped mapper.out 2> /dev/null; do sleep 0.1; i=$((i + 1)); done
if grep -q "linked.exe" /proc/$mapper/maps 2> /dev/null; then
        run pid $mapper
        check "pid: a mapped PE image is a module with its package, no build-id" '[ $STATUS -eq 0 ] && grep -q "^Module .*/linked.exe from deb hello-1.0-1 (amd64)$" out' "$(grep linked.exe out) $(cat err)"
        run pid --json $mapper
        check "pid --json: the PE module: package from its .pkgnote, buildId null" '[ $STATUS -eq 0 ] && [ "$(python3 -c "import json,sys; m=[m for m in json.load(open(sys.argv[1]))[\"modules\"] if m[\"path\"].endswith(\"/linked.exe\")][0]; print(m[\"buildId\"], m[\"packages\"][0][\"name\"])" out)" = "None hello" ]' "$(cat out err)"
        run ps $mapper
        check "ps: the PE module listed with its package from the note" '[ $STATUS -eq 0 ] && grep -q "/linked.exe  *hello 1.0-1  *note" out' "$(cat out err)"
        run ps --by-package $mapper
        check "ps --by-package: the PE image's package listed" '[ $STATUS -eq 0 ] && grep -q "hello" out' "$(cat out err)"
else
        fail "a process maps the PE image" "$(cat mapper.out)"
fi
kill $mapper 2> /dev/null
wait $mapper 2> /dev/null

# ---------------------------------------------------- every truncated header
# Each prefix through the end of the section table, then one in 97 bytes:
# read and stamped, never a crash, an error is a clean exit 2 with the
# file's name, and no stamping of a truncated file leaves anything behind.
cp linked.exe t.exe
hdr=$(python3 -c 'import struct,sys; b=open(sys.argv[1],"rb").read(); p=struct.unpack_from("<I",b,0x3c)[0]; print(p+24+struct.unpack_from("<H",b,p+20)[0]+40*struct.unpack_from("<H",b,p+6)[0]+8)' t.exe)
size=$(wc -c < t.exe)
bad=
n=0
while [ $n -le "$size" ]; do
        head -c $n t.exe > cut.exe
        "$PKGNOTE" show cut.exe > /dev/null 2> cut.err
        s=$?
        if [ $s -gt 2 ] || { [ $s -eq 2 ] && ! grep -q "^pkgnote: 'cut.exe': " cut.err; }; then
                bad="$bad show:$n:$s"
        fi
        if [ $n -le "$hdr" ] && [ $((n % 8)) -eq 0 ] || [ $n -gt "$hdr" ] && [ $((n % 997)) -eq 0 ]; then
                "$PKGNOTE" stamp -q $M cut.exe > /dev/null 2> cut.err
                s=$?
                [ $s -gt 2 ] && bad="$bad stamp:$n:$s"
                ls -a | grep -q '^\.cut\.exe\.pkgnote-' && bad="$bad leftover:$n"
        fi
        if [ $n -lt "$hdr" ]; then n=$((n + 1)); else n=$((n + 97)); fi
done
check "every truncated header: show and stamp fail cleanly" '[ -z "$bad" ]' "$bad"

finish
