#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Regenerates the seed corpus fuzz/corpus/pe: small PE images built with
# mingw-w64 (PE32+ and PE32, a program and a DLL, long section names from
# debug sections), systemd-boot and systemd-stub, a unified kernel image
# assembled with objcopy, each also stamped and signed-looking; the
# layouts of issue 42: a symbol table after the sections (stamped: moved
# after .pkgnote), an overlay of zeros, a SizeOfImage past the sections
# and not aligned (stamped: recorded), a certificate table inside a
# section.
# Usage: fuzz/make-seeds-pe.sh [PKGNOTE] [OUTDIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
pkgnote=${1:-$here/../build/pkgnote}
out=${2:-$here}/corpus/pe
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
have() { command -v "$1" >/dev/null 2>&1; }

cat > "$work/tiny.c" <<'C'
const char greeting[] = "hello";
int entry(void) { return greeting[0]; }
C
for cc in x86_64-w64-mingw32-gcc i686-w64-mingw32-gcc; do
        have $cc || continue
        a=${cc%%-*}
        e=entry; [ "$a" = i686 ] && e=_entry
        $cc -Os -nostdlib -e $e -s -o "$out/tiny-$a.exe" "$work/tiny.c"
        $cc -Os -nostdlib -e $e -shared -s -o "$out/tiny-$a.dll" "$work/tiny.c"
        # Unstripped, with debug sections: names through the string table.
        $cc -g -nostdlib -e $e -o "$out/debug-$a.exe" "$work/tiny.c"
        cp "$out/tiny-$a.exe" "$out/stamped-$a.exe"
        "$pkgnote" stamp -q --type deb --name tiny --version 1 "$out/stamped-$a.exe"
        cp "$out/debug-$a.exe" "$out/debug-stamped-$a.exe"
        "$pkgnote" stamp -q --type deb --name tiny --version 1 "$out/debug-stamped-$a.exe"
done
# Zeros after the sections (an overlay's padding); SizeOfImage 0x3308
# bytes past the aligned end (as syslinux.efi and systemd-boot 252 have),
# stamped so the section carries the record of it.
if [ -f "$out/tiny-x86_64.exe" ]; then
        cp "$out/tiny-x86_64.exe" "$out/overlay-x86_64.exe"
        head -c 1024 /dev/zero >> "$out/overlay-x86_64.exe"
        python3 - "$out/tiny-x86_64.exe" "$out/unaligned-x86_64.exe" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
pe = struct.unpack_from('<I', b, 0x3c)[0]
image, = struct.unpack_from('<I', b, pe + 24 + 56)
struct.pack_into('<I', b, pe + 24 + 56, image + 0x3308)
open(sys.argv[2], 'wb').write(b)
PY
        cp "$out/unaligned-x86_64.exe" "$out/unaligned-stamped-x86_64.exe"
        "$pkgnote" stamp -q --type deb --name tiny --version 1 "$out/unaligned-stamped-x86_64.exe"
fi
efi=/usr/lib/systemd/boot/efi
if [ -f $efi/systemd-bootx64.efi ]; then
        cp $efi/systemd-bootx64.efi "$out/systemd-boot.efi"
        cp $efi/systemd-bootx64.efi "$out/systemd-boot-stamped.efi"
        "$pkgnote" stamp -q --type deb --name systemd --version 252 "$out/systemd-boot-stamped.efi"
fi
if [ -f $efi/linuxx64.efi.stub ]; then
        printf 'ID=debian\nVERSION_ID=12\nPRETTY_NAME="Debian GNU/Linux 12"\n' > "$work/osrel"
        printf '6.1.0-seed' > "$work/uname"
        head -c 512 /dev/zero > "$work/linux"
        objcopy --add-section .osrel="$work/osrel" --change-section-vma .osrel=0x20000 \
                --add-section .uname="$work/uname" --change-section-vma .uname=0x21000 \
                --add-section .linux="$work/linux" --change-section-vma .linux=0x2000000 \
                $efi/linuxx64.efi.stub "$out/uki.efi"
        cp "$out/uki.efi" "$out/uki-stamped.efi"
        "$pkgnote" stamp -q --type deb --name linux --version 6.1 "$out/uki-stamped.efi"
fi
# A certificate table directory entry pointing at the file's end, as a
# signed image has: patched into a copy of a stamped program.
if [ -f "$out/stamped-x86_64.exe" ]; then
        python3 - "$out/stamped-x86_64.exe" "$out/signed-x86_64.exe" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
b += b'\0' * (-len(b) % 8)
pe = struct.unpack_from('<I', b, 0x3c)[0]
opt = pe + 24
dirs = opt + 112
cert = len(b)
b += struct.pack('<IHH', 16, 0x200, 2) + b'\x30' * 8
struct.pack_into('<II', b, dirs + 8 * 4, cert, 16)
open(sys.argv[2], 'wb').write(b)
PY
        # The same entry pointing inside the last section's data.
        python3 - "$out/signed-x86_64.exe" "$out/cert-inside-x86_64.exe" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
pe = struct.unpack_from('<I', b, 0x3c)[0]
n, = struct.unpack_from('<H', b, pe + 6)
optsz, = struct.unpack_from('<H', b, pe + 20)
roff, = struct.unpack_from('<I', b, pe + 24 + optsz + 40 * (n - 1) + 20)
struct.pack_into('<II', b, pe + 24 + 112 + 8 * 4, roff + 8, len(b) - roff - 8)
open(sys.argv[2], 'wb').write(b)
PY
fi
ls -l "$out"
