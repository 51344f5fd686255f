#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Regenerates the seed corpora fuzz/corpus/elf and fuzz/corpus/metadata.
# Usage: fuzz/make-seeds.sh [OUTDIR]   (default: the fuzz/ directory of this script)
#
# ELF seeds are kept small: tiny programs linked without libc, and the first
# pages of real binaries (the notes live right after the headers).  Missing
# cross compilers or linkers only skip their seeds.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here}
elf=$out/corpus/elf
meta=$out/corpus/metadata
mkdir -p "$elf" "$meta"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

have() { command -v "$1" >/dev/null 2>&1; }
say() { printf '  %s\n' "$*"; }

# ------------------------------------------------------------------
# Metadata seeds: one JSON document per file, no trailing newline.
m() { printf '%s' "$2" > "$meta/$1"; }

m deb-systemd.json '{"type":"deb","os":"Debian","name":"systemd","version":"252.38-1~deb12u1","architecture":"amd64","debugInfoUrl":"https://debuginfod.debian.net"}'
m rpm-fedora.json '{"type":"rpm","name":"coreutils","version":"9.4-7.fc40","architecture":"x86_64","osCpe":"cpe:/o:fedoraproject:fedora:40","os":"fedora","osVersion":"40","debugInfoUrl":"https://debuginfod.fedoraproject.org/"}'
m rpm-app-cpe.json '{"type":"rpm","os":"fedora","osVersion":"41","name":"bash","version":"5.2.26-6.fc41","architecture":"aarch64","osCpe":"cpe:2.3:o:fedoraproject:fedora:41","appCpe":"cpe:2.3:a:gnu:bash:5.2.26"}'
m apk-alpine.json '{"type":"apk","os":"alpine","osVersion":"3.20.0","name":"busybox","version":"1.36.1-r29","architecture":"x86_64"}'
m alpm-arch.json '{"type":"alpm","os":"arch","name":"systemd","version":"256.7-1","architecture":"x86_64"}'
m unicode.json '{"type":"deb","name":"paquet-été","version":"1.0","maintainer":"Jürgen Groß","note":"日本語 ✓ 😀"}'
m unknown-types.json '{"type":"rpm","name":"x","extra":{"list":[1,2.5,-3e10,true,false,null],"o":{}},"n":0}'
m empty-object.json '{}'
m whitespace.json ' {
	"type" : "deb" ,
	"name" : "ws"
} '
m escapes-allowed.json '{"name":"a\"quoted\" \\ back/slash","version":"1\/2"}'
m u-escape.json '{"name":"caf\u00e9","version":"\ud83d\ude00"}'
m u-escape-control.json '{"name":"bell\u0007","version":"1"}'
m u-escape-nul.json '{"name":"a\u0000b"}'
m u-escape-lone-surrogate.json '{"name":"\udc00"}'
m duplicate-keys.json '{"name":"a","name":"b"}'
m wrong-types.json '{"type":1,"name":["x"],"version":{"v":1},"os":null,"architecture":""}'
m not-object-array.json '[{"soname":["libfoo.so.1"],"feature":"foo","description":"Support for foo","priority":"recommended"}]'
m not-object-string.json '"deb"'
m not-object-number.json '42'
m trailing-garbage.json '{"name":"x"} {"name":"y"}'
m truncated.json '{"type":"deb","name":"sys'
m empty.json ''
m dlopen-full.json '[{"soname":["libpcre2-8.so.0"],"feature":"pattern","description":"Support for regular expressions","priority":"suggested"},{"soname":["libzstd.so.1","libzstd.so.2"],"feature":"zstd","priority":"recommended"},{"soname":[],"priority":"required"}]'
m dlopen-bad-soname.json '[{"soname":"libfoo.so.1"}]'
m dlopen-empty.json '[]'
m big-numbers.json '{"a":1e308,"b":-0.0,"c":9223372036854775807,"d":4.9e-324,"e":0.1}'
m int-overflow.json '{"a":92233720368547758070}'

# Deep nesting: at the limit (32) and one past it.
deep() {
        i=0 s=''
        while [ $i -lt "$1" ]; do s="$s["; i=$((i + 1)); done
        i=0
        while [ $i -lt "$1" ]; do s="$s]"; i=$((i + 1)); done
        printf '%s' "$s"
}
printf '{"x":%s}' "$(deep 31)" > "$meta/depth-32.json"
printf '{"x":%s}' "$(deep 32)" > "$meta/depth-33.json"
printf '{"x":"%s"}' "$(deep 40)" > "$meta/depth-in-string.json"

# Raw bytes that are not UTF-8, and raw control characters.
printf '{"name":"\377\376"}' > "$meta/invalid-utf8.json"
printf '{"name":"\300\257"}' > "$meta/overlong-utf8.json"
printf '{"name":"\355\240\200"}' > "$meta/surrogate-utf8.json"
printf '{"name":"a\tb"}' > "$meta/raw-tab.json"
printf '{"name":"\302\205"}' > "$meta/c1-control.json"
printf '{"name":"x"}\000' > "$meta/trailing-nul.json"

# ------------------------------------------------------------------
# ELF seeds.

JSON='{"type":"deb","os":"debian","name":"seed","version":"1.0-1","architecture":"amd64"}'
cat > "$work/start.c" <<'EOF'
void _start(void) { for (;;) ; }
EOF

# Emits assembly for one note in section $1 (owner $2, type $3, desc $4;
# $5 = "strlen" stores descsz as strlen+1 the way lld does, else padded).
note_asm() {
        hex=$(printf '%s' "$4" | od -An -v -tx1 | tr -s ' \n' ' ')
        len=$(printf '%s' "$4" | wc -c)
        pad=$(( (len + 1 + 3) / 4 * 4 ))
        if [ "${5:-}" = strlen ]; then descsz=$((len + 1)); else descsz=$pad; fi
        namesz=$(( $(printf '%s' "$2" | wc -c) + 1 ))
        printf '\t.section %s,"a",%%note\n\t.balign 4\n' "$1"
        printf '\t.long %d, %d, %s\n\t.asciz "%s"\n\t.balign 4\n' "$namesz" "$descsz" "$3" "$2"
        printf '\t.byte'
        sep=' '
        for b in $hex; do printf '%s0x%s' "$sep" "$b"; sep=','; done
        printf '\n\t.byte 0\n\t.balign 4\n'
        printf '\t.section .note.GNU-stack,"",%%progbits\n'
}

DLOPEN='[{"soname":["libfoo.so.1"],"feature":"foo","description":"x","priority":"recommended"},{"soname":["libbar.so.2","libbar.so.1"],"feature":"bar","description":"Bar support","priority":"suggested"}]'

# Keeps a seed at most $3 bytes (default 8 KiB).
keep() {
        head -c "${3:-8192}" "$1" > "$elf/$2"
        say "elf/$2 ($(wc -c < "$elf/$2") bytes)"
}

small_ld='-nostdlib -static -Wl,-z,max-page-size=4096 -Wl,-z,noseparate-code -Wl,--build-id -s'

# Native gcc + ld.bfd with --package-metadata (padded descsz).
# shellcheck disable=SC2086
if gcc $small_ld -o "$work/bfd" "$work/start.c" -Xlinker "--package-metadata=$JSON" 2>/dev/null; then
        keep "$work/bfd" x86_64-bfd-static
fi
# shellcheck disable=SC2086
if gcc -static-pie $small_ld -o "$work/pie" "$work/start.c" -Xlinker "--package-metadata=$JSON" 2>/dev/null; then
        keep "$work/pie" x86_64-bfd-static-pie
fi
# gold and mold, and lld 16 (strlen+1 descsz).
for l in gold mold; do
        # shellcheck disable=SC2086
        if gcc -fuse-ld=$l $small_ld -o "$work/$l" "$work/start.c" -Xlinker "--package-metadata=$JSON" 2>/dev/null; then
                keep "$work/$l" "x86_64-$l"
        fi
done
if have clang && have ld.lld-16; then
        # shellcheck disable=SC2086
        if clang -fuse-ld=lld --ld-path=/usr/bin/ld.lld-16 $small_ld -o "$work/lld" "$work/start.c" \
                -Xlinker "--package-metadata=$JSON" 2>/dev/null; then
                keep "$work/lld" x86_64-lld16
        fi
fi

# Cross targets: 32-bit, big-endian 64-bit, aarch64.
for t in i686-linux-gnu s390x-linux-gnu aarch64-linux-gnu powerpc-linux-gnu; do
        have "$t-gcc" || continue
        # shellcheck disable=SC2086
        if "$t-gcc" $small_ld -o "$work/$t" "$work/start.c" -Xlinker "--package-metadata=$JSON" 2>/dev/null; then
                keep "$work/$t" "${t%%-*}-bfd"
        fi
done

# Hand-made notes: a dlopen note, two different package notes, an lld-style
# descsz, all through a linked program, plus the relocatable object itself.
{
        note_asm .note.package FDO 0xcafe1a7e "$JSON"
        note_asm .note.package FDO 0xcafe1a7e '{"type":"rpm","name":"crt","version":"2"}' strlen
        note_asm .note.dlopen FDO 0x407c0c0a "$DLOPEN"
        note_asm .note.odd GNU 0x99 'x'
} > "$work/notes.s"
gcc -c -o "$work/notes.o" "$work/notes.s"
keep "$work/notes.o" x86_64-rel-notes.o
# shellcheck disable=SC2086
gcc $small_ld -o "$work/multi" "$work/start.c" "$work/notes.o"
keep "$work/multi" x86_64-multi-dlopen
if have s390x-linux-gnu-gcc; then
        s390x-linux-gnu-gcc -c -o "$work/notes-be.o" "$work/notes.s"
        keep "$work/notes-be.o" s390x-rel-notes.o
fi

# A relocatable link (-r) of an object that has a note with one that has another.
gcc -c -o "$work/start.o" "$work/start.c"
note_asm .note.package FDO 0xcafe1a7e '{"type":"deb","name":"other"}' > "$work/n2.s"
gcc -c -o "$work/n2.o" "$work/n2.s"
ld -r -o "$work/r.o" "$work/start.o" "$work/notes.o" "$work/n2.o"
keep "$work/r.o" x86_64-ld-r.o

# A copy without section headers: notes only through PT_NOTE.
if [ -f "$elf/x86_64-multi-dlopen" ] && have llvm-objcopy; then
        llvm-objcopy --strip-sections "$work/multi" "$work/nosh"
        keep "$work/nosh" x86_64-no-section-headers
fi

# Real binaries: the first page holds headers and notes; the section
# headers at the end are cut off, which the reader must survive.
for f in /usr/bin/systemctl /usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-*.so; do
        [ -f "$f" ] || continue
        b=$(basename "$f")
        keep "$f" "real-$b-4k" 4096
done
[ -f /usr/bin/systemctl ] && keep /usr/bin/systemctl real-systemctl-8k 8192

# A core dump's first pages: ELF CORE with NT_PRSTATUS/NT_FILE notes.
cat > "$work/crash.c" <<'EOF'
void _start(void) { *(volatile int *)0 = 1; for (;;) ; }
EOF
# shellcheck disable=SC2086
if gcc $small_ld -o "$work/crash" "$work/crash.c" -Xlinker "--package-metadata=$JSON" 2>/dev/null; then
        (cd "$work" && ulimit -c unlimited 2>/dev/null && ./crash) >/dev/null 2>&1 || true
        if [ -f "$work/core" ]; then
                keep "$work/core" x86_64-core-head 8192
        fi
fi

printf 'seeds: %s elf, %s metadata, %s KiB\n' "$(ls "$elf" | wc -l)" "$(ls "$meta" | wc -l)" \
        "$(du -sk "$out/corpus" | cut -f1)"
