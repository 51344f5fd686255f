#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pkgnote stamp --dlopen / --remove-dlopen: the dlopen note of linked
# programs and shared objects (ld.bfd, gold, lld, mold) that carry two
# dlopen notes compiled from C structs, as systemd's are, ends up as
# exactly the one asked for, in the first page, with the build-id, the GNU
# property note and the GNU program headers as they were; stamping again
# writes nothing; replacing, removing, both notes at once, a big-endian
# cross program, a relocatable object, --tree, and bad input refused.
# Environment: PKGNOTE, SRCDIR, LC_ALL=C.
. "$SRCDIR/tests/lib.sh"
require gcc readelf python3 cmp

have() { command -v "$1" > /dev/null 2>&1; }
check() { if eval "$2"; then pass "$1"; else fail "$1" "${3:-}"; fi; }
M='--no-os-release --type deb --os debian --os-version 12 --name hello --version 1.0-1 --architecture amd64'
J1='[{"feature":"zstd","description":"Zstandard files","priority":"recommended","soname":["libzstd.so.1"]}]'
JBIG='[{"feature":"f1","description":"first of several","soname":["libf1.so.1"]},{"feature":"f2","description":"second of several","soname":["libf2.so.2"]},{"feature":"f3","description":"third of several","soname":["libf3.so.3"]},{"feature":"f4","description":"fourth of several","soname":["libf4.so.4"]}]'
BIGF=f1,f2,f3,f4
J2='[{"feature":"lz4","priority":"suggested","soname":["liblz4.so.1"]},{"feature":"xz","priority":"required","soname":["liblzma.so.5"]}]'

# elf.py CMD FILE: "dlopen" prints the offset and size of every dlopen note
# that a PT_NOTE segment holds; "keep" prints what stamping must keep:
# PT_GNU_PROPERTY (with its bytes), PT_GNU_STACK and PT_GNU_RELRO.
cat > elf.py <<'PY'
import struct, sys
d = open(sys.argv[2], 'rb').read()
c64, e = d[4] == 2, '>' if d[5] == 2 else '<'
if c64:
    phoff, = struct.unpack_from(e + 'Q', d, 0x20); pe, pn = struct.unpack_from(e + 'HH', d, 0x36)
else:
    phoff, = struct.unpack_from(e + 'I', d, 0x1c); pe, pn = struct.unpack_from(e + 'HH', d, 0x2a)
phs = []
for i in range(pn):
    o = phoff + i * pe
    if c64:
        t, f, off, va, pa, fs, ms, al = struct.unpack_from(e + 'IIQQQQQQ', d, o)
    else:
        t, off, va, pa, fs, ms, f, al = struct.unpack_from(e + 'IIIIIIII', d, o)
    phs.append((t, f, off, va, pa, fs, ms, al))
if sys.argv[1] == 'dlopen':
    seen = set()
    for t, f, off, va, pa, fs, ms, al in phs:
        if t != 4:
            continue
        a = 4  # GNU property notes, 8-aligned, parse the same; mold puts 4-byte notes under align 8
        p, end = off, off + fs
        while p + 12 <= end:
            nz, dz, ty = struct.unpack_from(e + 'III', d, p)
            size = 12 + (nz + a - 1) // a * a + (dz + a - 1) // a * a
            if ty == 0x407c0c0a and d[p + 12:p + 12 + nz] == b'FDO\0':
                seen.add((p, size))
            p += size
    print(' '.join('%d:%d' % x for x in sorted(seen)))
else:
    for t, f, off, va, pa, fs, ms, al in phs:
        if t in (0x6474e553, 0x6474e551, 0x6474e552):
            print('%x' % t, f, off, va, pa, fs, ms, al, d[off:off + fs].hex() if t == 0x6474e553 else '')
PY
notes() { python3 elf.py dlopen "$1"; }
ndl() { n=$(notes "$1"); set -- $n; echo $#; }
keep() { python3 elf.py keep "$1"; }
buildid() { readelf -nW "$1" | sed -n 's/.*Build ID: //p'; }
# The features of the dlopen entries show --json lists, joined by commas.
features() {
        "$PKGNOTE" show --json "$1" | python3 -c 'import json,sys; print(",".join(e.get("feature","") for e in json.load(sys.stdin).get("dlopen",[])))'
}
in_first_page() {
        n=$(notes "$1")
        [ -n "$n" ] || return 1
        for x in $n; do [ $((${x%:*} + ${x#*:})) -le 4096 ] || return 1; done
}
field() { python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline()); print(eval(sys.argv[2]))' "$1" "$2"; }

# Two dlopen notes from C structs, the layout of systemd's ELF_NOTE_DLOPEN.
cat > notes.c <<'EOF'
#include <stdint.h>
#define NOTE(var, json) \
__attribute__((used, section(".note.dlopen"))) _Alignas(4) static const struct { \
        struct { uint32_t namesz, descsz, type; } hdr; \
        char name[4]; \
        _Alignas(4) char json_[sizeof(json)]; \
} var = { { 4, sizeof(json), 0x407c0c0a }, "FDO", json }
NOTE(note_a, "[{\"feature\":\"a\",\"description\":\"A\",\"soname\":[\"liba.so.1\"]}]");
NOTE(note_b, "[{\"feature\":\"b\",\"priority\":\"suggested\",\"soname\":[\"libb.so.2\"]}]");
int lib_value(void) { return 42; }
EOF
cat > main.c <<'EOF'
#include <stdio.h>
int main(int argc, char **argv) { printf("hello %d\n", argc); return 0; }
EOF
cat > user.c <<'EOF'
#include <stdio.h>
int lib_value(void);
int main(void) { printf("value %d\n", lib_value()); return 0; }
EOF
CF="-fcf-protection=full"
gcc $CF -fPIC -O2 -c notes.c -o notes.o || fatal "cannot compile the notes"
gcc $CF -fPIE -O2 -c main.c -o main.o || fatal "cannot compile main"
gcc $CF -fPIE -O2 -c user.c -o user.o || fatal "cannot compile user"

# lld 16 when there is one: gcc finds the ld.lld of a -B directory first.
mkdir lldbin
for c in ld.lld-16 ld.lld; do
        if have $c; then ln -s "$(command -v $c)" lldbin/ld.lld; break; fi
done

# stamp_checks NAME FILE RUN: the whole sequence on FILE; RUN is a command
# line that exercises it and prints what it printed before stamping.
stamp_checks() {
        name=$1 f=$2 runcmd=$3
        cp "$f" "$f.orig"
        want_run=$(eval "$runcmd" 2>&1)
        [ "$(ndl "$f")" = 2 ] && pass "$name: starts with two dlopen notes" || fail "$name: starts with two dlopen notes" "$(notes "$f")"
        run stamp --json --dlopen "$J1" "$f"
        expect_status 0 "$name: stamp --dlopen"
        check "$name: --json says so" '[ "$(field out "d[\"note\"], d[\"firstPage\"], d[\"phdrsFirstPage\"]")" = "(${Q}dlopen${Q}, True, True)" ]' "$(cat out)"
        [ "$(readelf -nW "$f" | grep -o 0x407c0c0a | wc -l)" = 1 ] && pass "$name: readelf shows one dlopen note" ||
                fail "$name: readelf shows one dlopen note" "$(readelf -nW "$f")"
        [ "$(ndl "$f")" = 1 ] && pass "$name: one dlopen note in the segments" || fail "$name: one dlopen note in the segments" "$(notes "$f")"
        in_first_page "$f" && pass "$name: in the first page" || fail "$name: in the first page" "$(notes "$f")"
        [ "$(features "$f")" = zstd ] && pass "$name: show lists its entries" || fail "$name: show lists its entries" "$(features "$f")"
        run deps --format rpm "$f"
        case $f in *s390x*) word="()(64bit)" ;; *) word="()(64bit)" ;; esac
        expect_out "Recommends: libzstd.so.1$word" "$name: deps --format rpm"
        [ "$(eval "$runcmd" 2>&1)" = "$want_run" ] && pass "$name: still runs" || fail "$name: still runs" "$(eval "$runcmd" 2>&1)"
        [ -n "$(buildid "$f")" ] && [ "$(buildid "$f")" = "$(buildid "$f.orig")" ] && pass "$name: build-id kept" || fail "$name: build-id kept"
        keep "$f.orig" > keep.orig; keep "$f" > keep.new
        # ld.bfd keeps the property note of the C library's start files.
        case $name in "bfd PIE") grep -q '^6474e553' keep.orig && pass "$name: has a GNU property note" ||
                fail "$name: has a GNU property note" "$(cat keep.orig)" ;; esac
        cmp -s keep.orig keep.new && pass "$name: GNU property bytes, PT_GNU_PROPERTY, PT_GNU_STACK, PT_GNU_RELRO kept" ||
                fail "$name: GNU property bytes, PT_GNU_PROPERTY, PT_GNU_STACK, PT_GNU_RELRO kept" "$(diff keep.orig keep.new)"
        run lint "$f"
        grep -qi 'first page' out err && fail "$name: lint has nothing to say about the first page" "$(cat out err)" ||
                pass "$name: lint has nothing to say about the first page"

        cp "$f" "$f.1"
        ino=$(stat -c %i "$f")
        run stamp --dlopen "$J1" "$f"
        expect_status 0 "$name: stamping again"
        grep -q "already carries this dlopen note, unchanged" out && cmp -s "$f" "$f.1" && [ "$(stat -c %i "$f")" = "$ino" ] &&
                pass "$name: stamping again writes nothing" || fail "$name: stamping again writes nothing" "$(cat out)"

        run stamp --dlopen "$J2" "$f"
        expect_status 0 "$name: a different array"
        [ "$(ndl "$f")" = 1 ] && [ "$(features "$f")" = lz4,xz ] && pass "$name: replaced" || fail "$name: replaced" "$(notes "$f"); $(features "$f")"
        in_first_page "$f" && pass "$name: replacement in the first page" || fail "$name: replacement in the first page" "$(notes "$f")"
        [ "$(eval "$runcmd" 2>&1)" = "$want_run" ] && pass "$name: runs after replacing" || fail "$name: runs after replacing"
        # Larger than the room of the old notes: they go, the new one is placed anew.
        cp "$f" "$f.j2"
        run stamp --dlopen "$JBIG" "$f"
        expect_status 0 "$name: a larger array"
        # lld and mold lay the tables of dynamic linking out right after
        # the notes, with no room to move them: as the package note, the
        # note then goes into a section, not loaded, with a warning.
        if [ "$(readelf -nW "$f" | grep -o 0x407c0c0a | wc -l)" = 1 ] && [ "$(features "$f")" = "$BIGF" ] &&
                { { [ "$(ndl "$f")" = 1 ] && in_first_page "$f"; } ||
                  { [ "$(ndl "$f")" = 0 ] && grep -q "dlopen note added in section .note.dlopen, not loaded" out &&
                    grep -q "the dlopen note is in a section that is not loaded" err && case $name in bfd*|gold*) false ;; esac; }; }; then
                pass "$name: larger array placed anew (first page, or a section for lld and mold)"
        else fail "$name: larger array placed anew (first page, or a section for lld and mold)" "$(cat out err); $(notes "$f")"; fi
        keep "$f" | cmp -s keep.orig - && [ "$(buildid "$f")" = "$(buildid "$f.orig")" ] &&
                pass "$name: larger: build-id and GNU headers kept" || fail "$name: larger: build-id and GNU headers kept"
        [ "$(eval "$runcmd" 2>&1)" = "$want_run" ] && pass "$name: runs with the larger array" || fail "$name: runs with the larger array"
        mv "$f.j2" "$f"

        run stamp $M "$f"
        expect_status 0 "$name: package note beside it"
        run stamp --json --remove-dlopen "$f"
        expect_status 0 "$name: --remove-dlopen"
        check "$name: --remove-dlopen says removed" '[ "$(field out "d[\"placement\"]")" = removed ]' "$(cat out)"
        [ "$(ndl "$f")" = 0 ] && [ "$(readelf -nW "$f" | grep -c 0x407c0c0a)" = 0 ] && [ -z "$(features "$f")" ] &&
                pass "$name: no dlopen note left" || fail "$name: no dlopen note left" "$(notes "$f")"
        [ "$("$PKGNOTE" show --field name "$f")" = hello ] && pass "$name: the package note stays" || fail "$name: the package note stays"
        [ "$(buildid "$f")" = "$(buildid "$f.orig")" ] && keep "$f" | cmp -s keep.orig - && pass "$name: removal keeps build-id and GNU headers" ||
                fail "$name: removal keeps build-id and GNU headers"
        [ "$(eval "$runcmd" 2>&1)" = "$want_run" ] && pass "$name: runs after removal" || fail "$name: runs after removal"

        # Both notes in one call, on the original.
        cp "$f.orig" "$f.both"
        run stamp $M --dlopen "$J1" "$f.both"
        expect_status 0 "$name: package and dlopen note at once"
        grep -q "package note .*; dlopen note " out && pass "$name: both reported" || fail "$name: both reported" "$(cat out)"
        [ "$(ndl "$f.both")" = 1 ] && [ "$(features "$f.both")" = zstd ] && [ "$("$PKGNOTE" show --field name "$f.both")" = hello ] &&
                pass "$name: both notes read back" || fail "$name: both notes read back"
        in_first_page "$f.both" && pass "$name: both: dlopen note in the first page" || fail "$name: both: dlopen note in the first page"
        keep "$f.both" | cmp -s keep.orig - && [ "$(buildid "$f.both")" = "$(buildid "$f.orig")" ] &&
                pass "$name: both: build-id and GNU headers kept" || fail "$name: both: build-id and GNU headers kept"
        cp "$f.both" "$f.both1"
        run stamp $M --dlopen "$J1" "$f.both"
        grep -q "already carries this package note, unchanged; already carries this dlopen note, unchanged" out && cmp -s "$f.both" "$f.both1" &&
                pass "$name: both again: unchanged" || fail "$name: both again: unchanged" "$(cat out)"
        cp "$f" "$f.run"; mv "$f.both" "$f"
        [ "$(eval "$runcmd" 2>&1)" = "$want_run" ] && pass "$name: both: runs" || fail "$name: both: runs"
        mv "$f.run" "$f"
}
Q="'"

for ld in bfd gold lld mold; do
        case $ld in lld) tool=lldbin/ld.lld ;; bfd) tool=ld.bfd ;; gold) tool=ld.gold ;; *) tool=mold ;; esac
        if [ "$ld" = lld ] && [ ! -e lldbin/ld.lld ]; then missing "$ld" "ld.lld"; continue; fi
        if [ "$ld" != lld ] && ! have "$tool"; then missing "$ld" "$tool"; continue; fi
        B="-B lldbin/ -fuse-ld=$ld -Wl,--build-id"
        if ! gcc $CF $B -pie -o "prog-$ld" main.o notes.o 2> err; then fail "$ld: links a PIE" "$(cat err)"; continue; fi
        stamp_checks "$ld PIE" "prog-$ld" "./prog-$ld a b"
        mkdir -p "lib-$ld"
        if ! gcc $CF $B -shared -o "lib-$ld/libn.so" notes.o 2> err ||
                ! gcc $CF $B -pie -o "user-$ld" user.o -L"lib-$ld" -ln 2> err; then
                fail "$ld: links a shared library" "$(cat err)"; continue
        fi
        stamp_checks "$ld shared library" "lib-$ld/libn.so" "LD_LIBRARY_PATH=lib-$ld ./user-$ld"
done

# ---------------------------------------------------------------- big-endian
if ! have s390x-linux-gnu-gcc; then missing "s390x" "s390x-linux-gnu-gcc"
else
        emu=""; have qemu-s390x-static && emu="qemu-s390x-static -L /usr/s390x-linux-gnu"
        if s390x-linux-gnu-gcc -O2 -Wl,--build-id -o prog-s390x main.c notes.c 2> err; then
                cp prog-s390x prog-s390x.orig
                [ "$(ndl prog-s390x)" = 2 ] && pass "s390x: two dlopen notes" || fail "s390x: two dlopen notes"
                run stamp --dlopen @/dev/stdin prog-s390x <<EOF
$J2
EOF
                expect_status 0 "s390x: stamp --dlopen @FILE"
                [ "$(ndl prog-s390x)" = 1 ] && [ "$(features prog-s390x)" = lz4,xz ] && in_first_page prog-s390x &&
                        pass "s390x: one note, read back, first page" || fail "s390x: one note, read back, first page" "$(notes prog-s390x)"
                [ "$(buildid prog-s390x)" = "$(buildid prog-s390x.orig)" ] && [ "$(keep prog-s390x)" = "$(keep prog-s390x.orig)" ] &&
                        pass "s390x: build-id and GNU headers kept" || fail "s390x: build-id and GNU headers kept"
                run deps --format rpm prog-s390x
                expect_out "Requires: liblzma.so.5()(64bit)
Suggests: liblz4.so.1()(64bit)" "s390x: deps"
                if [ -n "$emu" ]; then
                        [ "$($emu ./prog-s390x a 2>&1)" = "hello 2" ] && pass "s390x: runs" || fail "s390x: runs" "$($emu ./prog-s390x a 2>&1)"
                fi
                cp prog-s390x prog-s390x.1
                run stamp --dlopen "$J2" prog-s390x
                grep -q unchanged out && cmp -s prog-s390x prog-s390x.1 && pass "s390x: again unchanged" || fail "s390x: again unchanged" "$(cat out)"
                run stamp --remove-dlopen prog-s390x
                [ "$STATUS" = 0 ] && [ "$(ndl prog-s390x)" = 0 ] && pass "s390x: removed" || fail "s390x: removed" "$(cat err)"
        else
                missing "s390x" "a s390x C library"
        fi
fi

# ---------------------------------------------------------------- relocatable object
gcc -c -O2 -o mod.o notes.c || fatal "cannot compile the object"
cp mod.o mod.o.orig
run stamp --dlopen "$J1" mod.o
expect_status 0 "object: stamp --dlopen"
grep -q "dlopen note" out && pass "object: reported" || fail "object: reported" "$(cat out)"
[ "$(readelf -nW mod.o | grep -o 0x407c0c0a | wc -l)" = 1 ] && [ "$(features mod.o)" = zstd ] && pass "object: one dlopen note" ||
        fail "object: one dlopen note" "$(readelf -nW mod.o)"
cp mod.o mod.o.1
run stamp --dlopen "$J1" mod.o
grep -q unchanged out && cmp -s mod.o mod.o.1 && pass "object: again unchanged" || fail "object: again unchanged" "$(cat out)"
if gcc -o linked main.o mod.o 2> err && [ "$(ndl linked)" = 1 ] && [ "$(features linked)" = zstd ] && [ "$(./linked)" = "hello 1" ]; then
        pass "object: links with its one note"
else fail "object: links with its one note" "$(cat err)"; fi
run stamp --remove-dlopen mod.o
[ "$STATUS" = 0 ] && [ "$(readelf -nW mod.o | grep -c 0x407c0c0a)" = 0 ] && pass "object: removed" || fail "object: removed" "$(cat err)"

# ---------------------------------------------------------------- --tree
mkdir -p tree/usr/bin
cp prog-bfd.orig tree/usr/bin/p 2> /dev/null || gcc -o tree/usr/bin/p main.o notes.o
run stamp --tree --dlopen "$J1" tree
expect_status 0 "--tree --dlopen"
[ "$(ndl tree/usr/bin/p)" = 1 ] && [ "$(features tree/usr/bin/p)" = zstd ] && pass "--tree: one note" || fail "--tree: one note" "$(cat out err)"
run stamp --tree --remove-dlopen tree
[ "$STATUS" = 0 ] && [ "$(ndl tree/usr/bin/p)" = 0 ] && pass "--tree --remove-dlopen" || fail "--tree --remove-dlopen" "$(cat err)"

# ---------------------------------------------------------------- refusals
gcc -o bad main.o notes.o || fatal "cannot link"
cp bad bad.orig
for j in 'not json' '{}' '[{"feature":1}]' '[{"feature":"x"}]' '[{"soname":["lib x.so"]}]'; do
        run stamp --dlopen "$j" bad
        [ "$STATUS" = 2 ] && grep -q -- "--dlopen" err && cmp -s bad bad.orig && pass "bad JSON refused: $j" ||
                fail "bad JSON refused: $j" "status $STATUS; $(cat err)"
done
run stamp --dlopen "$J1" --remove-dlopen bad
expect_status 2 "--dlopen with --remove-dlopen: usage error"
run stamp --dlopen "$J1" --dlopen "$J2" bad
expect_status 2 "--dlopen twice: usage error"
run stamp --dlopen @missing.json bad
expect_status 2 "--dlopen @missing: error"
cmp -s bad bad.orig && pass "refusals leave the file as it was" || fail "refusals leave the file as it was"
run stamp --dlopen "$J1" bad
[ "$STATUS" = 0 ] && [ -z "$("$PKGNOTE" show --field name bad 2> /dev/null)" ] && pass "--dlopen alone adds no package note" ||
        fail "--dlopen alone adds no package note" "$("$PKGNOTE" show --json bad)"

finish
