#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every way pkgnote generate hands a note to a real toolchain, linked for
# real: compilers gcc and clang x linkers ld.bfd, gold, lld (16) and mold x
# forms --package-metadata (ldflags output), linker script and object, for
# an executable and a shared library; then cross builds for aarch64, s390x
# and i686.  Each result must carry exactly the input JSON, seen by readelf,
# eu-readelf and pkgnote show, inside a PT_NOTE segment.
# Environment: PKGNOTE, SRCDIR, LC_ALL=C.  Exit 0, 77 skip, 1 fail.

set -u
: "${PKGNOTE:?PKGNOTE must name the pkgnote binary}"
export LC_ALL=C

T=$(mktemp -d "${TMPDIR:-/tmp}/cmd-linkers.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
failed=0 passed=0 skipped=0

ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $1"; shift; for l in "$@"; do printf '#   %s\n' "$l"; done; }
skip() { skipped=$((skipped + 1)); echo "ok - $1 # SKIP $2"; }
have() { command -v "$1" >/dev/null 2>&1; }
# missing NAME TOOL: NAME cannot run without TOOL; under PKGNOTE_STRICT=1
# (make check, which installs every tool used here) that is a failure.
missing() {
        if [ "${PKGNOTE_STRICT:-0}" = 1 ]; then not_ok "$1" "required tool missing: $2 (make deps-test installs it)"
        else skip "$1" "$2 is not installed"; fi
}

if ! have readelf || ! have gcc; then
        [ "${PKGNOTE_STRICT:-0}" = 1 ] && { echo "not ok - required tools missing: readelf, gcc"; exit 1; }
        echo "# SKIP: readelf and gcc are needed"
        exit 77
fi

# The JSON: several scripts, characters that shells, make, gcc's -Wl,
# comma splitting and assembler strings all care about.
J='{"type":"deb","os":"debian","name":"Ωμέγα-漢字-🎉","version":"1:2.0-1","architecture":"amd64","q":"a\"b\\c'"'"'d $HOME #x, y"}'
G="$PKGNOTE generate --no-os-release --metadata"

# JSON of the package note as readelf / eu-readelf show it.
note_readelf() { readelf -n "$1" 2>/dev/null | sed -n 's/^.*Packaging Metadata: //p'; }
note_eu() { eu-readelf -n "$1" 2>/dev/null | sed -n 's/^.*Packaging Metadata: //p'; }

# Succeeds when .note.package is mapped into a PT_NOTE segment.
in_pt_note() {
        readelf -lW "$1" 2>/dev/null | awk '
                /^Program Headers:/ { ph = 1; next }
                ph && /^ +[A-Za-z_0-9]+ +0x/ { if ($1 == "NOTE") note[n] = 1; n++; next }
                /Section to Segment mapping/ { ph = 0; map = 1; next }
                map && /^ +[0-9]+/ { idx = $1 + 0; if (idx in note) for (i = 2; i <= NF; i++) if ($i == ".note.package") found = 1 }
                END { exit !found }'
}

# check NAME FILE [RUNNER...]: every reader sees exactly J, in a PT_NOTE;
# an executable also runs (through RUNNER for foreign ones).
check() {
        name=$1 file=$2
        shift 2
        problems=""
        r=$(note_readelf "$file")
        [ "$r" = "$J" ] || problems="${problems}readelf -n: '$r'; "
        [ "$(readelf -n "$file" | grep -c 'FDO_PACKAGING_METADATA')" -eq 1 ] || problems="${problems}not exactly one package note; "
        if have eu-readelf; then
                e=$(note_eu "$file")
                [ "$e" = "$J" ] || problems="${problems}eu-readelf -n: '$e'; "
        fi
        s=$($PKGNOTE show --json "$file" 2>&1)
        case $s in
        *"\"packages\":[$J],"*) ;;
        *) problems="${problems}pkgnote show --json: $s; " ;;
        esac
        in_pt_note "$file" || problems="${problems}.note.package is not inside a PT_NOTE; "
        case $file in
        *.so) ;;
        *)
                if [ "$#" -gt 0 ] || [ -z "${foreign:-}" ]; then
                        "$@" "$file" >"$T/run.out" 2>&1 || problems="${problems}running it failed: $(cat "$T/run.out"); "
                fi
                ;;
        esac
        if [ -z "$problems" ]; then ok "$name"; else not_ok "$name" "$problems"; fi
}

printf 'int main(void) { return 0; }\n' >"$T/main.c"
printf 'int answer(void) { return 42; }\n' >"$T/lib.c"

# One note per form, generated once.
$G "$J" -F object -o "$T/note.o" || { echo "# cannot generate the object"; exit 1; }
$G "$J" -F linker-script -o "$T/note.ld" || { echo "# cannot generate the linker script"; exit 1; }
$G "$J" -F asm -o "$T/note.s" || { echo "# cannot generate the assembler source"; exit 1; }

# gcc finds ld.lld through -B; point it at lld 16 (the unversioned ld.lld
# here may be lld 14, which has no --package-metadata).
LLD=""
for c in ld.lld-16 ld.lld-17 ld.lld-18 ld.lld; do
        if have $c && $c --version | grep -Eq 'LLD (1[5-9]|[2-9][0-9])\.'; then LLD=$(command -v $c); break; fi
done
if [ -n "$LLD" ]; then
        mkdir -p "$T/lldbin"
        ln -s "$LLD" "$T/lldbin/ld.lld"
fi

for cc in gcc clang; do
        if ! have $cc; then
                missing "$cc: all linkers" $cc
                continue
        fi
        for ld in bfd gold lld mold; do
                # How the driver is told to use the linker, and which
                # program pkgnote asks for its version.
                case $ld in
                bfd) drv="-fuse-ld=bfd" prog=ld.bfd ;;
                gold) drv="-fuse-ld=gold" prog=ld.gold ;;
                lld)
                        prog=$LLD
                        if [ $cc = clang ]; then drv="--ld-path=$LLD"; else drv="-fuse-ld=lld -B$T/lldbin"; fi
                        ;;
                mold) drv="-fuse-ld=mold" prog=mold ;;
                esac
                if [ -z "$prog" ] || ! have "$prog"; then
                        missing "$cc + $ld" "the $ld linker (lld >= 15 for lld)"
                        continue
                fi
                for form in flag script object; do
                        case $form in
                        flag)
                                extra=$($G "$J" -F ldflags --linker $ld --ld "$prog" 2>"$T/err")
                                if [ -z "$extra" ]; then
                                        not_ok "$cc + $ld + $form: ldflags" "$(cat "$T/err")"
                                        continue
                                fi
                                ;;
                        script)
                                case $ld in
                                # gold's script parser has no INSERT, so a
                                # script can only replace the whole layout.
                                gold) skip "$cc + $ld + $form" "gold has no INSERT in linker scripts"; continue ;;
                                # mold reads no SECTIONS scripts at all.
                                mold) skip "$cc + $ld + $form" "mold does not support SECTIONS linker scripts"; continue ;;
                                bfd) extra="-Wl,-dT,$T/note.ld" ;;
                                lld) extra="-Wl,-T,$T/note.ld" ;;
                                esac
                                ;;
                        object) extra="$T/note.o" ;;
                        esac
                        for out in exe so; do
                                f="$T/$cc-$ld-$form.$out"
                                if [ $out = exe ]; then
                                        cmd="$cc $drv \"\$T/main.c\" -o \"\$f\" $extra"
                                else
                                        cmd="$cc $drv -shared -fPIC \"\$T/lib.c\" -o \"\$f\" $extra"
                                fi
                                if ! eval "$cmd" >"$T/err" 2>&1; then
                                        not_ok "$cc + $ld + $form ($out)" "link failed: $cmd" "$(cat "$T/err")"
                                        continue
                                fi
                                # No warnings either (executable stack, RWX segments).
                                if [ -s "$T/err" ]; then
                                        not_ok "$cc + $ld + $form ($out): quiet link" "$(cat "$T/err")"
                                fi
                                foreign="" check "$cc + $ld + $form ($out)" "$f"
                        done
                done
        done
done

# The asm form through both compilers' assemblers.
for cc in gcc clang; do
        have $cc || continue
        if $cc -c "$T/note.s" -o "$T/asm-$cc.o" 2>"$T/err" && $cc "$T/main.c" "$T/asm-$cc.o" -o "$T/asm-$cc" 2>>"$T/err"; then
                foreign="" check "$cc + asm" "$T/asm-$cc"
        else
                not_ok "$cc + asm" "$(cat "$T/err")"
        fi
done

# ---------------------------------------------------------------- cross
for triple in aarch64-linux-gnu s390x-linux-gnu i686-linux-gnu; do
        cc=$triple-gcc
        if ! have $cc; then
                missing "$triple: cross builds" $cc
                continue
        fi
        case $triple in
        aarch64*) qemu=qemu-aarch64-static ;;
        s390x*) qemu=qemu-s390x-static ;;
        i686*) qemu=qemu-i386-static ;;
        esac
        run=""
        if have $qemu && [ -d "/usr/$triple" ]; then run="$qemu -L /usr/$triple"; fi
        $G "$J" -F object -t $triple -o "$T/$triple.o"
        $cc -c "$T/note.s" -o "$T/$triple-asm.o"
        for form in object asm script flag; do
                case $form in
                object) extra="$T/$triple.o" ;;
                asm) extra="$T/$triple-asm.o" ;;
                # The script's header LONG()s take the output's byte order.
                script) extra="-Wl,-dT,$T/note.ld" ;;
                flag)
                        if ! extra=$($G "$J" -F ldflags --linker bfd --ld $triple-ld 2>"$T/err"); then
                                not_ok "$triple + $form: ldflags" "$(cat "$T/err")"
                                continue
                        fi
                        ;;
                esac
                f="$T/$triple-$form"
                if ! eval "$cc \"\$T/main.c\" -o \"\$f\" $extra" >"$T/err" 2>&1; then
                        not_ok "$triple + $form" "link failed" "$(cat "$T/err")"
                        continue
                fi
                if [ -n "$run" ]; then
                        # shellcheck disable=SC2086
                        foreign=1 check "$triple + $form (run under $qemu)" "$f" $run
                else
                        foreign=1 check "$triple + $form (not run: no $qemu)" "$f"
                fi
        done
done

echo "# $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
