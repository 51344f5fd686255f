#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The routes distributions use to reach every link, linked for real:
# gcc specs file (gcc), clang configuration file (clang), linker response
# file and C header (both) x ld.bfd, gold, lld 16 and mold.  Each note
# read back must equal 'generate --format json' byte for byte; with
# -fcf-protection the output keeps IBT and SHSTK; where a route meets the
# distribution's own --package-metadata flag the binary has one note; the
# dlopen note reaches the binary through --note-object; a Rust program
# (build.rs writing the response file) and a Go program (external
# linking) get their notes and run.
# Environment: PKGNOTE, SRCDIR, LC_ALL=C.  Exit 0, 77 skip, 1 fail.

set -u
: "${PKGNOTE:?PKGNOTE must name the pkgnote binary}"
export LC_ALL=C

T=$(mktemp -d "${TMPDIR:-/tmp}/cmd-routes.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
failed=0 passed=0 skipped=0

ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $1"; shift; for l in "$@"; do printf '#   %s\n' "$l"; done; }
skip() { skipped=$((skipped + 1)); echo "ok - $1 # SKIP $2"; }
have() { command -v "$1" >/dev/null 2>&1; }
missing() {
        if [ "${PKGNOTE_STRICT:-0}" = 1 ]; then not_ok "$1" "required tool missing: $2 (make deps-test installs it)"
        else skip "$1" "$2 is not installed"; fi
}

if ! have readelf || ! have gcc; then
        [ "${PKGNOTE_STRICT:-0}" = 1 ] && { echo "not ok - required tools missing: readelf, gcc"; exit 1; }
        echo "# SKIP: readelf and gcc are needed"
        exit 77
fi

# Characters every route's reader treats specially: blanks, quotes,
# backslash, gcc's % { } | :, a literal %25 (kept by no decoding), UTF-8.
# No '#': a gcc specs file cannot hold one (checked below).
J='{"type":"deb","os":"debian","name":"Ωμέγα-漢字-🎉","version":"1:2.0-1","architecture":"amd64","q":"a\"b\\c'"'"'d $HOME x, y %25 {}|:"}'
D='[{"feature":"zstd","description":"compressed cores","priority":"recommended","soname":["libzstd.so.1"]}]'
G="$PKGNOTE generate --no-os-release --metadata"

# The JSON 'generate --format json' prints: what every route must carry.
want=$($G "$J" -F json) || { echo "# generate --format json failed"; exit 1; }

note_of() { readelf -n "$1" 2>/dev/null | sed -n 's/^.*Packaging Metadata: //p'; }
notes_of() { readelf -n "$1" 2>/dev/null | grep -c 'FDO_PACKAGING_METADATA'; }
props() { readelf -n "$1" 2>/dev/null | sed -n 's/^ *Properties: *//p'; }

printf 'int main(void) { return 0; }\n' >"$T/main.c"
printf '#include "note.h"\nint main(void) { return 0; }\n' >"$T/hdr.c"
printf '#include "note.h"\nint other(void) { return 1; }\n' >"$T/hdr2.c"

LLD=""
for c in ld.lld-16 ld.lld-17 ld.lld-18 ld.lld; do
        if have $c && $c --version | grep -Eq 'LLD (1[5-9]|[2-9][0-9])\.'; then LLD=$(command -v $c); break; fi
done
if [ -n "$LLD" ]; then
        mkdir -p "$T/lldbin"
        ln -s "$LLD" "$T/lldbin/ld.lld"
fi

# check NAME FILE: exactly one package note, equal to want; it runs.
check() {
        problems=""
        got=$(note_of "$2")
        [ "$got" = "$want" ] || problems="${problems}note: '$got'; "
        [ "$(notes_of "$2")" = 1 ] || problems="${problems}$(notes_of "$2") package notes; "
        "$2" >/dev/null 2>&1 || problems="${problems}it does not run; "
        if [ -z "$problems" ]; then ok "$1"; else not_ok "$1" "$problems"; fi
}

cet=""
case $(uname -m) in x86_64) cet=-fcf-protection=full ;; esac
# _start makes the exit system call: nothing linked in but the program.
printf 'void _start(void) { __asm__ volatile("mov $60, %%eax\\n xor %%edi, %%edi\\n syscall"); }\n' >"$T/x64.c"
{ printf '#include "note.h"\n'; cat "$T/x64.c"; } >"$T/x64h.c"

for cc in gcc clang; do
        if ! have $cc; then
                missing "$cc: all routes" $cc
                continue
        fi
        for ld in bfd gold lld mold; do
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
                d="$T/$cc-$ld"
                mkdir -p "$d"
                for route in gcc-specs clang-config response-file c-header; do
                        case $route in
                        gcc-specs) [ $cc = gcc ] || continue; use="-specs=$d/note.specs"; out=note.specs ;;
                        clang-config) [ $cc = clang ] || continue; use="--config $d/note.cfg"; out=note.cfg ;;
                        response-file) use="-Wl,@$d/note.rsp"; out=note.rsp ;;
                        c-header) use="-I$d"; out=note.h ;;
                        esac
                        if ! $G "$J" -F $route --linker $ld --ld "$prog" -o "$d/$out" 2>"$T/err"; then
                                not_ok "$cc + $ld + $route: generate" "$(cat "$T/err")"
                                continue
                        fi
                        src=main.c
                        [ $route = c-header ] && src="hdr.c $T/hdr2.c"
                        # shellcheck disable=SC2086
                        if ! (cd "$T" && $cc $drv $use $src -o "$d/$route") >"$T/err" 2>&1; then
                                not_ok "$cc + $ld + $route: link" "$(cat "$T/err")"
                                continue
                        fi
                        check "$cc + $ld + $route: the note equals --format json" "$d/$route"
                        # The hardening marks: a program of its own, whose
                        # every input has them (Debian's crt files have none).
                        if [ -n "$cet" ]; then
                                x=x64.c
                                [ $route = c-header ] && x=x64h.c
                                # shellcheck disable=SC2086
                                if (cd "$T" && $cc $drv $cet $use -static -nostdlib $x -o "$d/$route-cet") >"$T/err" 2>&1; then
                                        p=$(props "$d/$route-cet")
                                        if [ "$p" = "x86 feature: IBT, SHSTK" ] && [ "$(note_of "$d/$route-cet")" = "$want" ] && "$d/$route-cet"; then
                                                ok "$cc + $ld + $route: -fcf-protection keeps IBT, SHSTK"
                                        else
                                                not_ok "$cc + $ld + $route: -fcf-protection keeps IBT, SHSTK" "properties: '$p'"
                                        fi
                                else
                                        not_ok "$cc + $ld + $route: -fcf-protection keeps IBT, SHSTK" "$(cat "$T/err")"
                                fi
                        fi
                        # The distribution's own flag after the route: the
                        # linker keeps one --package-metadata, the last.
                        if [ $route != c-header ]; then
                                other='{"type":"deb","name":"distro","version":"1"}'
                                if (cd "$T" && $cc $drv $use main.c -Xlinker "--package-metadata=$other" -o "$d/$route-both") >"$T/err" 2>&1 &&
                                        [ "$(notes_of "$d/$route-both")" = 1 ] && [ "$(note_of "$d/$route-both")" = "$other" ]; then
                                        ok "$cc + $ld + $route: with the distribution's flag, one note (the flag's)"
                                else
                                        not_ok "$cc + $ld + $route: with the distribution's flag, one note (the flag's)" \
                                                "$(cat "$T/err")" "$(readelf -n "$d/$route-both" 2>&1 | grep -A2 FDO)"
                                fi
                        fi
                done
                # A relocatable link gets nothing from the specs file: its
                # output is linked again, where the note goes.
                if [ $cc = gcc ] && (cd "$T" && gcc -r -nostdlib -specs="$d/note.specs" main.c -o "$d/partial.o") 2>"$T/err"; then
                        if [ "$(notes_of "$d/partial.o")" = 0 ]; then ok "gcc + $ld + gcc-specs: -r link has no note"
                        else not_ok "gcc + $ld + gcc-specs: -r link has no note" "$(readelf -n "$d/partial.o")"; fi
                fi
        done
done

# dlopen notes through --note-object, and the package note, in each route.
for route in gcc-specs clang-config response-file c-header; do
        case $route in
        gcc-specs) cc=gcc; use="-specs=$T/dl.out" ;;
        clang-config) cc=clang; use="--config $T/dl.out" ;;
        response-file) cc=gcc; use="-Wl,@$T/dl.out" ;;
        c-header) cc=gcc; use="-include $T/dl.out" ;;
        esac
        have $cc || continue
        extra="--note-object $T/dl-$route.o"
        [ $route = c-header ] && extra=""
        # shellcheck disable=SC2086
        if $G "$J" --dlopen "$D" -F $route $extra -o "$T/dl.out" 2>"$T/err" &&
                $cc $use "$T/main.c" -o "$T/dl-$route" 2>>"$T/err"; then
                s=$($PKGNOTE show --json "$T/dl-$route" 2>&1)
                case $s in
                *'"soname":["libzstd.so.1"]'*) ok "$route: --dlopen note in the binary" ;;
                *) not_ok "$route: --dlopen note in the binary" "$s" ;;
                esac
                check "$route: package note beside the dlopen note" "$T/dl-$route"
        else
                not_ok "$route: --dlopen" "$(cat "$T/err")"
        fi
done
# clang-config chained from the system's own configuration, as a
# distribution sets it up: a configuration file of its own options (the
# linker among them) that takes the generated file in with a line
# '@pkgnote.cfg', named relative to itself.  Clang 14 reads it given by
# --config (once only) or by the name clang is called under
# (TRIPLE-clang.cfg beside a TRIPLE-clang, with -no-canonical-prefixes);
# clang 16 and later also read clang.cfg and TRIPLE.cfg by default.
if have clang; then
        cmajor=$(clang -dumpversion | cut -d. -f1)
        triple=$(clang -dumpmachine)
        for ld in bfd lld; do
                case $ld in
                bfd) prog=ld.bfd drv=-fuse-ld=bfd ;;
                lld) prog=$LLD drv="--ld-path=$LLD" ;;
                esac
                if [ -z "$prog" ] || ! have "$prog"; then
                        missing "clang chained + $ld" "the $ld linker (lld >= 15 for lld)"
                        continue
                fi
                d="$T/chain-$ld"
                mkdir -p "$d/etc" "$d/bin"
                if ! $G "$J" -F clang-config --linker $ld --ld "$prog" -o "$d/etc/pkgnote.cfg" 2>"$T/err"; then
                        not_ok "clang chained + $ld: generate" "$(cat "$T/err")"
                        continue
                fi
                printf '# The distribution'"'"'s defaults\n%s\n-Wl,-z,now\n@pkgnote.cfg\n' "$drv" >"$d/etc/system.cfg"
                # From another directory: the include is the file's, not the
                # working directory's.
                if (cd / && clang --config "$d/etc/system.cfg" "$T/main.c" -o "$d/system") >"$T/err" 2>&1; then
                        check "clang $cmajor + $ld: --config system.cfg with @pkgnote.cfg: the note equals --format json" "$d/system"
                        readelf -d "$d/system" | grep -q 'FLAGS.*NOW' && ok "clang $cmajor + $ld: --config system.cfg: its own options apply too" ||
                                not_ok "clang $cmajor + $ld: --config system.cfg: its own options apply too" "$(readelf -d "$d/system")"
                else
                        not_ok "clang $cmajor + $ld: --config system.cfg with @pkgnote.cfg" "$(cat "$T/err")"
                fi
                # The configuration clang reads by the name it is called under.
                ln -sf "$(command -v clang)" "$d/bin/$triple-clang"
                printf '%s\n@../etc/pkgnote.cfg\n' "$drv" >"$d/bin/$triple-clang.cfg"
                if (cd "$T" && "$d/bin/$triple-clang" -no-canonical-prefixes main.c -o "$d/byname") >"$T/err" 2>&1; then
                        check "clang $cmajor + $ld: $triple-clang.cfg with @../etc/pkgnote.cfg: the note equals --format json" "$d/byname"
                else
                        not_ok "clang $cmajor + $ld: $triple-clang.cfg with @../etc/pkgnote.cfg" "$(cat "$T/err")"
                fi
        done
        # clang.cfg beside a clang of no target prefix: read from clang 16
        # on, not before (doc/integration.md says which to use).
        d="$T/chain-bfd"
        if [ -f "$d/etc/pkgnote.cfg" ]; then
                ln -sf "$(command -v clang)" "$d/bin/clang"
                printf -- '-fuse-ld=bfd\n@../etc/pkgnote.cfg\n' >"$d/bin/clang.cfg"
                if (cd "$T" && "$d/bin/clang" -no-canonical-prefixes main.c -o "$d/plain") >"$T/err" 2>&1; then
                        n=$(notes_of "$d/plain")
                        if [ "$cmajor" -ge 16 ] && [ "$n" = 1 ]; then ok "clang $cmajor reads clang.cfg by default"
                        elif [ "$cmajor" -lt 16 ] && [ "$n" = 0 ]; then ok "clang $cmajor does not read clang.cfg by default (16 and later do)"
                        else not_ok "clang $cmajor and clang.cfg by default" "$n package notes"; fi
                else
                        not_ok "clang $cmajor and clang.cfg by default: link" "$(cat "$T/err")"
                fi
                # Clang 14 and 15 take one --config: a second one, for the
                # note beside the system's, is refused, hence the '@' line.
                if [ "$cmajor" -lt 16 ]; then
                        if clang --config "$d/etc/system.cfg" --config "$d/etc/pkgnote.cfg" "$T/main.c" -o "$d/two" >"$T/err" 2>&1; then
                                not_ok "clang $cmajor refuses a second --config" "accepted"
                        else
                                grep -q "config" "$T/err" && ok "clang $cmajor refuses a second --config" ||
                                        not_ok "clang $cmajor refuses a second --config" "$(cat "$T/err")"
                        fi
                fi
        fi
else
        missing "clang-config chained from the system's configuration" clang
fi
if $G "$J" --dlopen "$D" -F response-file -o "$T/x.rsp" 2>"$T/err"; then
        not_ok "response-file: --dlopen without --note-object refused" "it was accepted"
else
        case $(cat "$T/err") in
        *"--note-object"*) ok "response-file: --dlopen without --note-object refused" ;;
        *) not_ok "response-file: --dlopen without --note-object refused" "$(cat "$T/err")" ;;
        esac
fi
# A '#' cannot go into a specs file: refused, not silently cut.
if $G '{"type":"deb","name":"a#b","version":"1"}' -F gcc-specs --linker bfd -o "$T/hash.specs" 2>"$T/err"; then
        not_ok "gcc-specs: '#' refused" "accepted: $(cat "$T/hash.specs")"
else
        case $(cat "$T/err") in
        *"cannot hold '#'"*) ok "gcc-specs: '#' refused" ;;
        *) not_ok "gcc-specs: '#' refused" "$(cat "$T/err")" ;;
        esac
fi

# ---------------------------------------------------------------- Rust
# Debian's rustc and cargo when installed (a rustup toolchain on PATH
# otherwise), offline: the crate has no dependency.
CARGO=cargo RUSTC=rustc
[ -x /usr/bin/cargo ] && [ -x /usr/bin/rustc ] && CARGO=/usr/bin/cargo RUSTC=/usr/bin/rustc
if have $CARGO && have $RUSTC; then
        R="$T/rust"
        mkdir -p "$R/src"
        printf '[package]\nname = "hello-note"\nversion = "0.1.0"\nedition = "2018"\nbuild = "build.rs"\n' >"$R/Cargo.toml"
        printf 'fn main() { println!("hello"); }\n' >"$R/src/main.rs"
        cat >"$R/build.rs" <<'EOF'
use std::process::Command;
fn main() {
    let out = std::env::var("OUT_DIR").unwrap();
    let rsp = format!("{}/note.rsp", out);
    let status = Command::new(std::env::var("PKGNOTE").unwrap())
        .args(["generate", "--no-os-release", "--metadata", &std::env::var("NOTE_JSON").unwrap(),
               "--format", "response-file", "-o", &rsp])
        .status().unwrap();
    assert!(status.success());
    println!("cargo:rustc-link-arg=-Wl,@{}", rsp);
    println!("cargo:rerun-if-env-changed=NOTE_JSON");
}
EOF
        if (cd "$R" && NOTE_JSON="$J" RUSTC=$RUSTC CARGO_HOME="$T/cargo-home" $CARGO build --offline -q) >"$T/err" 2>&1; then
                check "rust: build.rs writes the response file" "$R/target/debug/hello-note"
                [ "$("$R/target/debug/hello-note")" = hello ] && ok "rust: the program runs" || not_ok "rust: the program runs"
        else
                not_ok "rust: cargo build" "$(cat "$T/err")"
        fi
else
        missing "rust: build.rs writes the response file" "rustc and cargo"
fi

# ---------------------------------------------------------------- Go
if have go; then
        W="$T/go"
        mkdir -p "$W"
        printf 'module example.org/hello\n\ngo 1.19\n' >"$W/go.mod"
        printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' >"$W/main.go"
        $G "$J" -F response-file --linker bfd -o "$W/note.rsp"
        if (cd "$W" && GOFLAGS=-mod=mod GOPROXY=off GOCACHE="$T/gocache" GOPATH="$T/gopath" CGO_ENABLED=1 \
                go build -ldflags="-linkmode=external -extldflags=-Wl,@$W/note.rsp" -o hello .) >"$T/err" 2>&1; then
                check "go: external linking with the response file" "$W/hello"
        else
                not_ok "go: external linking with the response file" "$(cat "$T/err")"
        fi
else
        missing "go: external linking with the response file" "golang-go"
fi

echo "# $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
