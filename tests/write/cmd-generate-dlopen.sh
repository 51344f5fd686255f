#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pkgnote generate --dlopen: the note is byte for byte what a C struct laid
# out as systemd's ELF_NOTE_DLOPEN makes (little- and big-endian), in
# every form; linked in several times it stays one note, and it survives
# --gc-sections, with ld.bfd, gold, lld and mold; bad input is refused.
# Environment: PKGNOTE, SRCDIR, LC_ALL=C.
. "$SRCDIR/tests/lib.sh"
require gcc objcopy readelf cmp

have() { command -v "$1" > /dev/null 2>&1; }
# C string literal for the text in $1.
c_string() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }
# struct_object CC JSON OUT: compiles the note as a C struct, the layout of
# ELF_NOTE_DLOPEN: 12-byte header, "FDO", the JSON 4-aligned after it.
struct_object() {
        cat > s.c <<EOF
#include <stdint.h>
#define JSON "$(c_string "$2")"
__attribute__((used, section(".note.dlopen"))) _Alignas(4) static const struct {
        struct { uint32_t namesz, descsz, type; } hdr;
        char name[4];
        _Alignas(4) char json[sizeof(JSON)];
} note = { { 4, sizeof(JSON), 0x407c0c0a }, "FDO", JSON };
EOF
        $1 -c s.c -o "$3"
}
# section FILE NAME OUT: the bytes of section NAME.
section() { ${OBJCOPY:-objcopy} --dump-section "$2=$3" "$1" /dev/null 2> /dev/null || ${OBJCOPY:-objcopy} -O binary --only-section="$2" "$1" "$3"; }

J1='[{"feature":"archive","description":"Archives","priority":"recommended","soname":["libarchive.so.13"]}]'
J2='[{"feature":"zstd","description":"Zstandard \"zst\" files","priority":"suggested","soname":["libzstd.so.1"]},{"feature":"x","soname":["libx.so.2","libx.so.1"]}]'
J3='[{"soname":["liba.so.1"]}]'
J4='[{"feature":"ö/ü","priority":"required","soname":["libbé.so.0"]}]'

# 1. The descriptor against the C struct, for JSON lengths of every
# remainder mod 4, in this machine's order and big-endian (s390x).
i=0
for j in "$J1" "$J2" "$J3" "$J4" "[$J3,$J1]"; do
        i=$((i + 1))
        [ "$i" = 5 ] && j='[{"soname":["liba.so.1"]},{"soname":["libb.so.22"]}]'
        if ! struct_object gcc "$j" s.o 2> err; then fail "struct $i compiles" "$(cat err)"; continue; fi
        section s.o .note.dlopen want.bin
        run generate --dlopen "$j" --format note
        if [ "$STATUS" = 0 ] && cmp -s out want.bin; then pass "note $i (len $(printf '%s' "$j" | wc -c)) equals the C struct"
        else fail "note $i equals the C struct" "status $STATUS; $(cmp out want.bin 2>&1)"; fi
        run generate --dlopen "$j" --format object -o obj.o
        section obj.o .note.dlopen got.bin
        if cmp -s got.bin want.bin; then pass "object $i: .note.dlopen equals the C struct"
        else fail "object $i: .note.dlopen equals the C struct" "$(cmp got.bin want.bin 2>&1)"; fi
        run generate --dlopen "$j" --format asm -o a.s
        if gcc -c a.s -o a.o 2> err && section a.o .note.dlopen got.bin && cmp -s got.bin want.bin; then
                pass "asm $i: .note.dlopen equals the C struct"
        else fail "asm $i: .note.dlopen equals the C struct" "$(cat err)"; fi
        if have s390x-linux-gnu-gcc; then
                struct_object s390x-linux-gnu-gcc "$j" sbe.o && OBJCOPY=s390x-linux-gnu-objcopy section sbe.o .note.dlopen want-be.bin
                run generate --dlopen "$j" --format note --target s390x
                if cmp -s out want-be.bin; then pass "note $i, big-endian, equals the s390x C struct"
                else fail "note $i, big-endian, equals the s390x C struct" "$(cmp out want-be.bin 2>&1)"; fi
                run generate --dlopen "$j" --format object --target s390x -o obe.o
                OBJCOPY=s390x-linux-gnu-objcopy section obe.o .note.dlopen got.bin
                if cmp -s got.bin want-be.bin; then pass "object $i, s390x: .note.dlopen equals the C struct"
                else fail "object $i, s390x: .note.dlopen equals the C struct" "$(cmp got.bin want-be.bin 2>&1)"; fi
        else
                missing "note $i, big-endian" s390x-linux-gnu-gcc
        fi
done

# 2. Whitespace outside strings goes; the rest is kept byte for byte.
printf '[\n  { "feature" : "a b",\t"soname" : [ "liba.so.1" ] }\n]\n' > pretty.json
run generate --dlopen @pretty.json
expect_out '[{"feature":"a b","soname":["liba.so.1"]}]' "@FILE: whitespace outside strings removed"
printf '%s' "$J3" | "$PKGNOTE" generate --dlopen @- > out 2> err
expect_out "$J3" "@- reads standard input"

# 3. Package note and dlopen notes in one object; json lists both.
run generate --no-os-release --type deb --name demo --version 1.0 --dlopen "$J1" --dlopen "$J3"
expect_out "$(printf '%s\n%s\n%s' '{"type":"deb","name":"demo","version":"1.0"}' "$J1" "$J3")" "json: the package note, then each dlopen note, a line each"
run generate --no-os-release --type deb --name demo --version 1.0 --dlopen "$J1" --dlopen "$J3" --format object -o both.o
expect_status 0 "object with a package note and two dlopen notes"
n=$(readelf -SW both.o | grep -c ' .note.dlopen ')
g=$(readelf -gW both.o | grep -c 'COMDAT group section')
if [ "$n" = 2 ] && [ "$g" = 3 ]; then pass "each note is its own section in its own COMDAT group"
else fail "each note is its own section in its own COMDAT group" "$n dlopen sections, $g groups"; fi
if [ "$(readelf -SW both.o | grep -E ' \.note\.(dlopen|package) ' | grep -c ' AGR ')" = 3 ]; then
        pass "note sections are SHF_ALLOC|SHF_GROUP|SHF_GNU_RETAIN"
else fail "note sections are SHF_ALLOC|SHF_GROUP|SHF_GNU_RETAIN" "$(readelf -SW both.o)"; fi

# lld 16 if there is one (ld.lld may be Debian's lld 14): gcc finds the
# ld.lld of a -B directory first.
mkdir lldbin
for c in ld.lld-16 ld.lld; do
        if have $c; then ln -s "$(command -v $c)" lldbin/ld.lld; break; fi
done

# 4. Every linker: the object twice, the assembled source and a static
# library member, with and without --gc-sections, give one dlopen note
# and one package note, read back by pkgnote and readelf.
printf 'int main(void) { return 0; }\n' > m.c
gcc -c -ffunction-sections m.c -o m.o || fatal "cannot compile"
run generate --no-os-release --type deb --name demo --version 1.0 --dlopen "$J1" --format asm -o both.s
gcc -c both.s -o both-asm.o || fatal "cannot assemble"
run generate --dlopen "$J1" --format object -o dl1.o
ar rcs libdl1.a dl1.o
for ld in bfd gold lld mold; do
        case $ld in lld) tool=lldbin/ld.lld ;; bfd) tool=ld.bfd ;; gold) tool=ld.gold ;; *) tool=mold ;; esac
        if ! have "$tool"; then missing "$ld: one note each" "$tool"; continue; fi
        for gc in "" -Wl,--gc-sections; do
                what="$ld${gc:+ $gc}"
                if ! gcc -B lldbin/ -fuse-ld=$ld $gc m.o both.o both-asm.o dl1.o both.o -L. -ldl1 -o prog 2> err; then
                        fail "$what: links" "$(cat err)"; continue
                fi
                # readelf -W may print several notes on one line.
                nd=$(readelf -nW prog | grep -o '0x407c0c0a' | wc -l)
                np=$(readelf -nW prog | grep -o 'FDO_PACKAGING_METADATA' | wc -l)
                if [ "$nd" = 2 ] && [ "$np" = 1 ]; then pass "$what: one package note, each dlopen note once"
                else fail "$what: one package note, each dlopen note once" "$nd dlopen, $np package notes"; fi
                run show --json prog
                if grep -q '"soname":\["libarchive.so.13"\]' out && grep -q '"soname":\["liba.so.1"\]' out &&
                   grep -q '"name":"demo"' out; then pass "$what: show lists the package and both dlopen notes"
                else fail "$what: show lists the package and both dlopen notes" "$(cat out err)"; fi
        done
done

# 5. Cross targets: the object links into a program for that machine.
for t in aarch64-linux-gnu s390x-linux-gnu i686-linux-gnu; do
        if ! have $t-gcc; then missing "$t object" $t-gcc; continue; fi
        run generate --dlopen "$J1" --format object --target $t -o x.o
        if $t-gcc m.c x.o -o xprog 2> err; then
                run show --json xprog
                if grep -q '"libarchive.so.13"' out; then pass "$t: linked, the dlopen note reads back"
                else fail "$t: linked, the dlopen note reads back" "$(cat out err)"; fi
        else fail "$t: links" "$(cat err)"; fi
done

# 6. Linker scripts: bfd and lld place both notes.
gcc -c m.c -o m2.o
run generate --no-os-release --type rpm --name demo --version 2 --dlopen "$J2" --format linker-script -o notes.ld
gcc -fuse-ld=bfd -Wl,--build-id -Wl,-dT,notes.ld m2.o -o sprog 2> err
if readelf -nW sprog 2> /dev/null | grep -q 0x407c0c0a && "$PKGNOTE" show --json sprog | grep -q '"libzstd.so.1"'; then
        pass "linker script (bfd): dlopen note placed and read"
else fail "linker script (bfd): dlopen note placed and read" "$(cat err)"; fi
if [ -e lldbin/ld.lld ]; then
        gcc -B lldbin/ -fuse-ld=lld -Wl,--build-id -Wl,-T,notes.ld m2.o -o lprog 2> err
        if "$PKGNOTE" show --json lprog 2> /dev/null | grep -q '"libzstd.so.1"'; then pass "linker script (lld): dlopen note placed and read"
        else fail "linker script (lld): dlopen note placed and read" "$(cat err)"; fi
else missing "linker script (lld)" ld.lld; fi
run deps --format rpm sprog
if grep -qx 'Suggests: libzstd.so.1()(64bit)' out; then pass "deps reads the generated note"
else fail "deps reads the generated note" "$(cat out err)"; fi

# 7. Bad input: exit 2, a reason, and nothing written.
bad() {
        rm -f never.o
        run generate --dlopen "$1" --format object -o never.o
        if [ "$STATUS" = 2 ] && grep -qF -- "$2" err && [ ! -e never.o ]; then pass "refused: $3"
        else fail "refused: $3" "status $STATUS, stderr: $(cat err)"; fi
}
bad '{"soname":["liba.so.1"]}' 'not a JSON array' "an object, not an array"
bad '[]' 'no entry' "an empty array"
bad '[{"soname":[]}]' 'list is empty' "an empty soname list"
bad '[{"soname":["liba.so.1"],"priority":"must"}]' 'priority "must"' "an unknown priority"
bad '[{"soname":["/usr/lib/liba.so.1"]}]' 'does not look like a soname' "a path for a soname"
bad '[{"soname":["liba.so.1","liba.so.1"]}]' 'listed twice' "a soname twice"
bad '[{"soname":["liba.so.1"],' 'dlopen' "truncated JSON"
bad '@no-such-file' 'cannot read' "a missing @FILE"
run generate --dlopen "$J3" --dlopen "$J3" --format note
if [ "$STATUS" = 2 ] && grep -q 'are the same' err; then pass "refused: the same note twice"; else fail "refused: the same note twice" "$(cat err)"; fi
run generate --dlopen "$J3" --format ldflags
if [ "$STATUS" = 2 ] && grep -q 'only the package note' err; then pass "refused: ldflags with --dlopen"; else fail "refused: ldflags with --dlopen" "$(cat err)"; fi
run generate --dlopen "$J3" --format linker-script --linker gold
if [ "$STATUS" = 2 ] && grep -q 'gold' err; then pass "refused: a linker script for gold"; else fail "refused: a linker script for gold" "$(cat err)"; fi
finish
