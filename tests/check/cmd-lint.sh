#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pkgnote lint over objects built here with the compilers, linkers and
# binutils installed, and over broken notes assembled byte by byte.
# Expected findings come from how each fixture is made (and, for linker
# output, from readelf), never from earlier runs of the tool.
set -u
: "${PKGNOTE:?PKGNOTE must name the pkgnote binary}"

for tool in gcc objcopy readelf od; do
        if ! command -v "$tool" >/dev/null 2>&1; then
                [ "${PKGNOTE_STRICT:-0}" = 1 ] && { echo "not ok - required tool missing: $tool"; exit 1; }
                echo "ok - cmd-lint # SKIP $tool is not installed"
                exit 77
        fi
done

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
failed=0

pass() { echo "ok - $1"; }
fail() {
        echo "not ok - $1"
        shift
        for line in "$@"; do
                echo "#   $line"
        done
        failed=$((failed + 1))
}
skip() { echo "ok - $1 # SKIP $2"; }
# missing NAME TOOL: NAME cannot run without TOOL; under PKGNOTE_STRICT=1
# (make check, which installs every tool used here) that is a failure.
missing() {
        if [ "${PKGNOTE_STRICT:-0}" = 1 ]; then fail "$1" "required tool missing: $2 (make deps-test installs it)"
        else skip "$1" "$2 is not installed"; fi
}

# Runs pkgnote lint; leaves stdout in $T/out, stderr in $T/err, status in $rc.
run_lint() {
        "$PKGNOTE" lint "$@" >"$T/out" 2>"$T/err"
        rc=$?
}

# The check ids found for FILE, sorted, one line.
ids_of() {
        awk -v p="$1: " 'index($0, p) == 1 { split(substr($0, length(p) + 1), f, ": "); print f[2] }' "$T/out" |
                sort -u | tr '\n' ' '
}

# expect NAME STATUS FILE [ID...]: lint FILE, which must exit with STATUS
# and report exactly the check ids ID... (each at least once).
expect() {
        name=$1 want_rc=$2 file=$3
        shift 3
        run_lint "$file"
        got=$(ids_of "$file")
        want=
        if [ $# -gt 0 ]; then
                want=$(printf '%s\n' "$@" | sort -u | tr '\n' ' ')
        fi
        bad_lines=$(grep -v -c -F "$file: " "$T/out")
        if [ "$rc" -ne "$want_rc" ]; then
                fail "$name" "exit status $rc, want $want_rc" "findings: $got" "stderr: $(cat "$T/err")"
        elif [ "$got" != "$want" ]; then
                fail "$name" "findings: '$got'" "want:     '$want'" "output: $(cat "$T/out")"
        elif [ "$bad_lines" -ne 0 ]; then
                fail "$name" "lines not of the form 'FILE: severity: check: message':" "$(cat "$T/out")"
        elif [ -z "$want" ] && [ -s "$T/err" ]; then
                fail "$name" "clean file, but stderr has: $(cat "$T/err")"
        elif [ -n "$want" ] && ! grep -q 'checked' "$T/err"; then
                fail "$name" "no summary line on stderr: $(cat "$T/err")"
        else
                pass "$name"
        fi
}

# Little-endian 32-bit word (octal escapes built into a printf format).
# shellcheck disable=SC2059
le32() {
        printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)))"
}
zeros() { head -c "$1" /dev/zero; }

# note OWNER TYPE DESCFILE [NAMESZ [DESCSZ]]: one little-endian note on
# stdout.  NAMESZ defaults to the owner and its NUL; DESCSZ to the file,
# a NUL and padding to 4 (as ld.bfd writes it).  Name and descriptor are
# NUL-padded to 4 bytes.
note() {
        owner=$1 ntype=$2 desc=$3
        dlen=$(wc -c <"$desc")
        namesz=${4:-$((${#owner} + 1))}
        descsz=${5:-$(((dlen + 4) / 4 * 4))}
        le32 "$namesz"
        le32 "$descsz"
        le32 "$ntype"
        printf '%s' "$owner"
        zeros $(((namesz + 3) / 4 * 4 - ${#owner}))
        cat "$desc"
        if [ "$descsz" -gt "$dlen" ]; then
                zeros $(((descsz + 3) / 4 * 4 - dlen))
        else
                zeros $(((dlen + 3) / 4 * 4 - dlen))
        fi
}

TYPE=3405650558 # 0xcafe1a7e

printf 'int main(void) { return 0; }\n' >"$T/main.c"
gcc -c "$T/main.c" -o "$T/main.o" || { echo "not ok - compile main.c"; exit 1; }

# with_note NAME NOTEFILE: an executable whose .note.package section is
# NOTEFILE, added to the object file as objcopy allows and then linked,
# so the linker puts it into a PT_NOTE in the first page.
with_note() {
        objcopy --add-section .note.package="$2" --set-section-flags .note.package=alloc,readonly \
                "$T/main.o" "$T/$1.tmp.o" &&
                objcopy --set-section-alignment .note.package=4 "$T/$1.tmp.o" "$T/$1.o" &&
                gcc "$T/$1.o" -o "$T/$1"
}

# json_note NAME TEXT: with_note over a package note holding TEXT (printf
# format, so \001 and the like make raw bytes).
json_note() {
        # shellcheck disable=SC2059
        printf "$2" >"$T/$1.json"
        note FDO $TYPE "$T/$1.json" >"$T/$1.note"
        with_note "$1" "$T/$1.note"
}

JSON='{"type":"rpm","os":"fedora","osVersion":"40","name":"coreutils","version":"9.4-7.fc40","architecture":"x86_64","osCpe":"cpe:/o:fedoraproject:fedora:40","appCpe":"cpe:2.3:a:gnu:coreutils:9.4:*:*:*:*:*:*:*","debugInfoUrl":"https://debuginfod.fedoraproject.org/"}'

# ---------------------------------------------------------------------
# Linker output: clean, unless readelf shows the PT_NOTE that covers
# .note.package is 8-byte aligned (4-byte notes walked with 8-byte
# padding), which lint must then flag.

# The alignment of the PT_NOTE that covers .note.package, or "none".
pt_note_align() {
        off=$(readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] *//p' | awk '$1 == ".note.package" { print $4 }')
        [ -n "$off" ] || { echo none; return; }
        readelf -lW "$1" | awk '$1 == "NOTE" { print $2, $5, $NF }' | while read -r poff psz palign; do
                if [ $((0x$off)) -ge $((poff)) ] && [ $((0x$off)) -lt $((poff + psz)) ]; then
                        echo $((palign))
                        return
                fi
        done
}

linked() {
        name=$1 file=$2
        align=$(pt_note_align "$file")
        case $align in
        none | "") fail "$name" "readelf finds no PT_NOTE over .note.package: $(readelf -lW "$file" | grep NOTE)" ;;
        8) expect "$name (PT_NOTE aligned to 8)" 1 "$file" misaligned ;;
        *) expect "$name" 0 "$file" ;;
        esac
}

for ld in bfd gold mold; do
        if gcc -fuse-ld=$ld -Xlinker --package-metadata="$JSON" "$T/main.c" -o "$T/ld-$ld" 2>"$T/ld.err"; then
                linked "ld.$ld executable" "$T/ld-$ld"
        else
                missing "ld.$ld executable" "a working ld.$ld ($(head -n 1 "$T/ld.err"))"
        fi
done
if command -v clang >/dev/null 2>&1 && [ -x /usr/bin/ld.lld-16 ] &&
        clang --ld-path=/usr/bin/ld.lld-16 -Xlinker --package-metadata="$JSON" "$T/main.c" -o "$T/ld-lld" 2>"$T/ld.err"; then
        linked "ld.lld executable" "$T/ld-lld"
else
        missing "ld.lld executable" "clang with ld.lld-16"
fi
if gcc -shared -fPIC -Xlinker --package-metadata="$JSON" "$T/main.c" -o "$T/lib.so" 2>"$T/ld.err"; then
        linked "shared object" "$T/lib.so"
else
        missing "shared object" "a working gcc -shared ($(head -n 1 "$T/ld.err"))"
fi
if gcc -static -Xlinker --package-metadata="$JSON" "$T/main.c" -o "$T/static" 2>/dev/null; then
        linked "static executable" "$T/static"
else
        missing "static executable" "static libc (libc6-dev)"
fi
for cross in i686-linux-gnu-gcc s390x-linux-gnu-gcc aarch64-linux-gnu-gcc; do
        if command -v $cross >/dev/null 2>&1 &&
                $cross -Xlinker --package-metadata="$JSON" "$T/main.c" -o "$T/$cross" 2>/dev/null; then
                linked "$cross executable" "$T/$cross"
        else
                missing "$cross executable" "a working $cross with its libc"
        fi
done

# A relocatable object with the note as a producer should add it.
printf '%s' "$JSON" >"$T/good.json"
note FDO $TYPE "$T/good.json" >"$T/good.note"
if with_note good "$T/good.note"; then
        expect "relocatable object, allocated and aligned" 0 "$T/good.o"
        expect "hand-made note linked in" 0 "$T/good"
else
        fail "hand-made note linked in" "objcopy or gcc failed"
fi

# Stripped section headers: the note is still found through PT_NOTE.
strip_shdrs() {
        if command -v llvm-objcopy >/dev/null 2>&1; then
                llvm-objcopy --strip-sections "$1" "$2"
        else
                # Zero e_shoff, e_shnum and e_shstrndx of an ELF64 file.
                cp "$1" "$2" &&
                        zeros 8 | dd of="$2" bs=1 seek=40 conv=notrunc 2>/dev/null &&
                        zeros 4 | dd of="$2" bs=1 seek=60 conv=notrunc 2>/dev/null
        fi
}
if strip_shdrs "$T/ld-bfd" "$T/noshdr" && [ "$(readelf -hW "$T/noshdr" | awk '/Number of section headers/ { print $NF }')" = 0 ]; then
        expect "stripped section headers" 0 "$T/noshdr"
else
        fail "stripped section headers" "could not strip the section headers"
fi

# ---------------------------------------------------------------------
# Where the note lies.

# objcopy adds the section to a linked file outside every segment.
gcc "$T/main.c" -o "$T/plain"
objcopy --add-section .note.package="$T/good.note" --set-section-flags .note.package=alloc,readonly \
        "$T/plain" "$T/added" 2>/dev/null
expect "note added after linking: not in a PT_NOTE" 1 "$T/added" not-in-pt-note
strip_shdrs "$T/added" "$T/added-noshdr"
expect "note added after linking, section headers stripped" 1 "$T/added-noshdr" no-package-note

expect "file without a package note" 1 "$T/plain" no-package-note

objcopy --add-section .note.package="$T/good.note" "$T/main.o" "$T/noalloc.tmp.o"
objcopy --set-section-alignment .note.package=4 "$T/noalloc.tmp.o" "$T/noalloc.o"
expect "relocatable object, section not allocated" 1 "$T/noalloc.o" not-loaded
objcopy --add-section .note.package="$T/good.note" --set-section-flags .note.package=alloc,readonly \
        "$T/main.o" "$T/align1.o"
expect "relocatable object, section aligned to 1" 1 "$T/align1.o" misaligned

cat >"$T/progbits.s" <<'EOF'
        .section .note.package,"a",@progbits
        .p2align 2
        .long 4, 16, 0xcafe1a7e
        .asciz "FDO"
        .asciz "{\"type\":\"deb\"}"
        .balign 4
EOF
gcc -c "$T/progbits.s" -o "$T/progbits.o"
expect "section .note.package of type PROGBITS" 1 "$T/progbits.o" section-not-note no-package-note

# A 5000-byte description pushes the note's end past the first page.
big=$(head -c 5000 /dev/zero | tr '\0' a)
if gcc -Xlinker --package-metadata="{\"type\":\"deb\",\"name\":\"x\",\"description\":\"$big\"}" "$T/main.c" -o "$T/big"; then
        expect "note ends past the first page" 0 "$T/big" not-in-first-page large-note
else
        fail "note ends past the first page" "cannot link"
fi

# ---------------------------------------------------------------------
# Owner and type.

note XYZ $TYPE "$T/good.json" >"$T/owner.note"
with_note owner "$T/owner.note"
expect "owner XYZ" 1 "$T/owner" bad-owner no-package-note

note FDO $TYPE "$T/good.json" 3 >"$T/owner3.note"
with_note owner3 "$T/owner3.note"
expect "owner FDO without its NUL" 1 "$T/owner3" bad-owner no-package-note

note FDO 3405650559 "$T/good.json" >"$T/type.note"
with_note type "$T/type.note"
expect "owner FDO, other type" 1 "$T/type" bad-type no-package-note

printf '0123456789abcdef0123' >"$T/id.bin"
note GNU 3 "$T/id.bin" 4 20 >"$T/gnu.note"
with_note gnu "$T/gnu.note"
expect ".note.package holding a GNU note" 1 "$T/gnu" unexpected-note no-package-note

printf '{"type":"deb","name":"other"}' >"$T/other.json"
note FDO $TYPE "$T/other.json" >"$T/other.note"
cat "$T/good.note" "$T/other.note" >"$T/two.note"
with_note two "$T/two.note"
expect "two differing notes" 0 "$T/two" multiple-notes
cat "$T/good.note" "$T/good.note" >"$T/same.note"
with_note same "$T/same.note"
expect "two identical notes" 0 "$T/same" duplicate-note

# ---------------------------------------------------------------------
# The descriptor.

json_note badjson '{"type":"deb",}'
expect "invalid JSON" 1 "$T/badjson" bad-json
json_note array '["deb"]'
expect "JSON array" 1 "$T/array" json-not-object
json_note dup '{"name":"a","version":"1","name":"b"}'
expect "duplicate names" 1 "$T/dup" duplicate-key
json_note ctl '{"name":"a\001b"}'
expect "raw control character" 1 "$T/ctl" control-character
json_note uctl '{"name":"a\\u0001b"}'
expect "escaped control character" 1 "$T/uctl" unicode-escape control-character
json_note uesc '{"name":"caf\\u00e9"}'
expect "\\u escape" 1 "$T/uesc" unicode-escape
json_note utf8 '{"name":"caf\351"}'
expect "invalid UTF-8" 1 "$T/utf8" bad-utf8
json_note notstr '{"type":"deb","name":42}'
expect "well-known key not a string" 1 "$T/notstr" not-string
json_note cpe '{"osCpe":"cpe:2.3:o:debian:debian linux:12:*:*:*:*:*:*:*"}'
expect "bad CPE" 1 "$T/cpe" bad-cpe
json_note cpe22 '{"osCpe":"cpe:/o:debian:debian_linux:12:*"}'
expect "bad CPE 2.2 URI" 1 "$T/cpe22" bad-cpe
json_note shortcpe '{"osCpe":"cpe:2.3:o:fedoraproject:fedora:33"}'
expect "CPE 2.3 without trailing components" 0 "$T/shortcpe" short-cpe
json_note empty '{"type":"deb","name":""}'
expect "empty well-known value" 0 "$T/empty" empty-value
json_note typo '{"type":"Deb","os_version":"12","os":"Debian","debugInfoUrl":"debuginfod.debian.net"}'
expect "misspellings" 0 "$T/typo" unknown-type misspelled-key bad-os-release bad-url
printf '{"type":"deb","description":"%s"}' "$(head -c 1500 /dev/zero | tr '\0' x)" >"$T/large.json"
note FDO $TYPE "$T/large.json" >"$T/large.note"
with_note large "$T/large.note"
expect "descriptor over 1 KiB" 0 "$T/large" large-note

printf '{"type":"deb"}' >"$T/nonul.json" # 14 bytes; descsz 14 leaves no NUL
note FDO $TYPE "$T/nonul.json" 4 14 >"$T/nonul.note"
with_note nonul "$T/nonul.note"
expect "descriptor without NUL" 1 "$T/nonul" no-nul

# ---------------------------------------------------------------------
# The command.

run_lint "$T/ld-bfd" "$T/big" "$T/owner"
if [ "$rc" -eq 1 ] && [ "$(ids_of "$T/big")" = "large-note not-in-first-page " ] &&
        [ "$(ids_of "$T/owner")" = "bad-owner no-package-note " ] &&
        grep -q '^pkgnote: lint: 3 files checked, 2 errors, 2 warnings$' "$T/err"; then
        pass "several files, summary"
else
        fail "several files, summary" "status $rc" "$(cat "$T/out" "$T/err")"
fi

# Regression: the message said it twice ("not an ELF file: not an ELF file").
printf 'not an ELF file\n' >"$T/text"
run_lint "$T/text"
if [ "$rc" -eq 2 ] && grep -qx "pkgnote: '$T/text': cannot read: not an ELF file" "$T/err" && [ ! -s "$T/out" ]; then
        pass "bug-lint-not-elf-said-twice: not an ELF file, said once"
else
        fail "bug-lint-not-elf-said-twice: not an ELF file, said once" "status $rc" "$(cat "$T/err")"
fi

run_lint "$T/missing" "$T/owner"
if [ "$rc" -eq 2 ] && grep -q "^pkgnote: '$T/missing': cannot read: .*No such file" "$T/err" &&
        [ "$(ids_of "$T/owner")" = "bad-owner no-package-note " ]; then
        pass "missing file, the next one still checked"
else
        fail "missing file, the next one still checked" "status $rc" "$(cat "$T/out" "$T/err")"
fi

run_lint --quiet "$T/typo" "$T/owner"
if [ "$rc" -eq 1 ] && [ ! -s "$T/err" ] && ! grep -q ': warning: ' "$T/out" &&
        [ "$(ids_of "$T/owner")" = "bad-owner no-package-note " ]; then
        pass "--quiet shows errors only"
else
        fail "--quiet shows errors only" "status $rc" "$(cat "$T/out" "$T/err")"
fi

# A control character in a value and in a path reach the terminal escaped.
json_note del '{"name":"a\177b"}'
esc=$(printf 'x\033y')
cp "$T/del" "$T/$esc"
run_lint "$T/$esc"
if [ "$rc" -eq 1 ] && grep -q -F "$T/x\\x1by: error: control-character: " "$T/out" &&
        grep -q -F 'a\x7fb' "$T/out" && ! od -An -c "$T/out" | grep -q -e '033' -e '177'; then
        pass "control characters escaped"
else
        fail "control characters escaped" "status $rc" "$(od -c "$T/out" | head -n 8)"
fi

run_lint --json "$T/cpe" "$T/$esc" "$T/ld-bfd"
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$T/out")" -eq 2 ] &&
        grep -q -F "{\"path\":\"$T/cpe\",\"severity\":\"error\",\"check\":\"bad-cpe\",\"message\":\"osCpe " "$T/out" &&
        grep -q -F "\"path\":\"$T/x\\u001by\"" "$T/out" && grep -q '"offset":[0-9][0-9]*}$' "$T/out"; then
        if command -v python3 >/dev/null 2>&1; then
                if python3 -c 'import json, sys
for line in open(sys.argv[1]):
    f = json.loads(line)
    assert list(f) == ["path", "severity", "check", "message", "offset"], f
    assert f["check"] != "control-character" or "\x7f" in f["message"], f' "$T/out" 2>"$T/py.err"; then
                        pass "--json"
                else
                        fail "--json" "not valid JSON lines: $(cat "$T/py.err")" "$(cat "$T/out")"
                fi
        else
                pass "--json"
        fi
else
        fail "--json" "status $rc" "$(cat "$T/out")"
fi

run_lint
if [ "$rc" -eq 2 ] && grep -q 'no FILE given' "$T/err"; then
        pass "no FILE"
else
        fail "no FILE" "status $rc" "$(cat "$T/err")"
fi

if "$PKGNOTE" lint --help >"$T/help" && grep -q '^Usage: pkgnote lint' "$T/help"; then
        pass "--help"
else
        fail "--help" "$(cat "$T/help")"
fi

# Every check id this script relies on is listed.
"$PKGNOTE" lint --list-checks >"$T/list"
missing=
for id in malformed-note misaligned not-in-pt-note no-package-note not-loaded section-not-note \
        not-in-first-page large-note bad-owner bad-type unexpected-note multiple-notes duplicate-note \
        bad-json json-not-object duplicate-key control-character unicode-escape bad-utf8 not-string \
        bad-cpe short-cpe empty-value unknown-type misspelled-key bad-os-release bad-url no-nul; do
        grep -q "^$id " "$T/list" || missing="$missing $id"
done
if [ -z "$missing" ]; then
        pass "--list-checks"
else
        fail "--list-checks" "missing:$missing"
fi

# Debian stamps its systemd binaries; they must have no errors.
if [ -r /usr/bin/systemctl ] && readelf -n /usr/bin/systemctl 2>/dev/null | grep -q FDO_PACKAGING_METADATA; then
        run_lint /usr/bin/systemctl
        if [ "$rc" -eq 0 ] && ! grep -q ': error: ' "$T/out"; then
                pass "/usr/bin/systemctl"
        else
                fail "/usr/bin/systemctl" "status $rc" "$(cat "$T/out")"
        fi
else
        skip "/usr/bin/systemctl" "no package note in /usr/bin/systemctl"
fi

# --os-release ROOT: a note naming another distribution than the build
# root's os-release (a bootstrap that kept the old one) is an error; one
# that agrees, or a root that states less, is not.
mkdir -p "$T/osroot/etc" "$T/osroot2/usr/lib"
printf 'ID=newdistro\nVERSION_ID=1\nCPE_NAME="cpe:/o:newdistro:newdistro:1"\n' >"$T/osroot/etc/os-release"
printf 'ID=debian\n' >"$T/osroot2/usr/lib/os-release"
printf 'int main(void) { return 0; }\n' >"$T/osm.c"
if gcc "$T/osm.c" -Wl,--build-id -Xlinker '--package-metadata={"type":"deb","name":"x","version":"1","os":"debian","osVersion":"12","osCpe":"cpe:/o:debian:debian_linux:12"}' -o "$T/osx" 2>"$T/err"; then
        "$PKGNOTE" lint --os-release "$T/osroot" "$T/osx" >"$T/out" 2>&1
        rc=$?
        if [ $rc -eq 1 ] && [ "$(grep -c ': error: os-release-mismatch: ' "$T/out")" -eq 3 ] &&
                grep -q 'osCpe is "cpe:/o:debian:debian_linux:12", but the build root.s os-release has CPE_NAME="cpe:/o:newdistro:newdistro:1"' "$T/out"; then
                pass "--os-release: os, osVersion, osCpe of another distribution flagged"
        else
                fail "--os-release: os, osVersion, osCpe of another distribution flagged" "status $rc" "$(cat "$T/out")"
        fi
        "$PKGNOTE" lint --os-release "$T/osroot2" "$T/osx" >"$T/out" 2>&1
        rc=$?
        if [ $rc -eq 0 ] && ! grep -q os-release-mismatch "$T/out"; then
                pass "--os-release: agreeing ID, nothing else stated: clean"
        else
                fail "--os-release: agreeing ID, nothing else stated: clean" "status $rc" "$(cat "$T/out")"
        fi
        "$PKGNOTE" lint --os-release "$T/nonexistent" "$T/osx" >"$T/out" 2>&1
        rc=$?
        if [ $rc -eq 2 ] && grep -q "cannot read os-release" "$T/out"; then
                pass "--os-release: a root without os-release is an error (exit 2)"
        else
                fail "--os-release: a root without os-release is an error (exit 2)" "status $rc" "$(cat "$T/out")"
        fi
else
        fail "--os-release: link" "$(cat "$T/err")"
fi

if [ "$failed" -ne 0 ]; then
        echo "# $failed failed"
        exit 1
fi
exit 0
