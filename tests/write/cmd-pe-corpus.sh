#!/bin/sh
# Stamping real PE images (issue 42, items 6-8): wine's modules (64- and
# 32-bit), the mingw-w64 runtimes, systemd-boot 252 and 257, shim,
# syslinux, rEFInd, iPXE, memtest86+ and GRUB, as Debian ships them
# (dist/fetch-pe-corpus.sh, make deps-test).  Each image is stamped and
# checked by tests/write/pe-corpus-check.py (addresses and SizeOfImage kept,
# no gap, the symbol table moved with its pointer), read back with show,
# signed with sbsign and verified by sbverify and osslsigncode, signed
# with osslsigncode and verified by sbverify, and stamp --remove must give
# back the original bytes.  Under make check a fixed selection covering
# every package and layout runs; PKGNOTE_PE_CORPUS_ALL=1 (bench/pe-corpus.sh)
# takes every image.  Prints the counts.
. "$SRCDIR/tests/lib.sh"

require python3 openssl sbsign sbverify cmp
CORPUS=${PKGNOTE_PE_CORPUS:-/var/cache/pkgnote/pe-corpus}
# osslsigncode 2.9 from bookworm-backports, unpacked by
# dist/fetch-pe-corpus.sh: bookworm's 2.5 rejects every signature sbsign
# makes, stamped or not, so it cannot tell a bad stamp from its own limit.
OSSLSIGNCODE=$CORPUS/osslsigncode/usr/bin/osslsigncode
[ -x "$OSSLSIGNCODE" ] || {
        [ "${PKGNOTE_STRICT:-0}" = 1 ] && { echo "not ok - required tool missing: $OSSLSIGNCODE (make deps-test unpacks it)"; exit 1; }
        echo "1..0 # SKIP $OSSLSIGNCODE is not unpacked (make deps-test)"; exit 77
}
M='--no-os-release --type deb --name hello --version 1.0-1'
check() { if eval "$2"; then pass "$1"; else fail "$1" "${3:-}"; fi; }
W64=/usr/lib/x86_64-linux-gnu/wine/x86_64-windows
W32=$CORPUS/libwine-i386/usr/lib/i386-linux-gnu/wine/i386-windows
MG=/usr/lib/gcc/x86_64-w64-mingw32
MG32=/usr/lib/gcc/i686-w64-mingw32
SB=/usr/lib/systemd/boot/efi
SB257=$CORPUS/systemd-boot-efi-257/usr/lib/systemd/boot/efi

for d in shim-unsigned syslinux-efi refind ipxe memtest86+ grub-efi-amd64-bin systemd-boot-efi-257 libwine-i386; do
        [ -f "$CORPUS/$d/.done" ] || { missing "the PE corpus ($CORPUS/$d)" "sh dist/fetch-pe-corpus.sh"; finish; exit; }
done

# hdr FILE EXPR: a value of FILE's headers (python3 over the raw bytes):
# image (SizeOfImage), sym (PointerToSymbolTable), note_va, note_raw
# (.pkgnote's VirtualAddress and PointerToRawData), data_end (where the
# other sections' data ends), checksum, right (whether it is right).
cat > hdr.py <<'PY2'
import struct, sys
b = open(sys.argv[1], 'rb').read()
pe, = struct.unpack_from('<I', b, 0x3c)
n, = struct.unpack_from('<H', b, pe + 6)
sym, = struct.unpack_from('<I', b, pe + 12)
optsz, = struct.unpack_from('<H', b, pe + 20)
opt = pe + 24
image, headers, checksum = struct.unpack_from('<III', b, opt + 56)
note_va = note_raw = 0
data_end = headers
for i in range(n):
    h = opt + optsz + 40 * i
    vsize, va, rsize, roff = struct.unpack_from('<IIII', b, h + 8)
    if b[h:h + 8] == b'.pkgnote':
        note_va, note_raw = va, roff
    elif rsize:
        data_end = max(data_end, roff + rsize)
d = b + (b'\0' if len(b) % 2 else b'')
s = 0
for i in range(0, len(d), 2):
    if not opt + 64 <= i < opt + 68:
        s += d[i] | d[i + 1] << 8
        s = (s & 0xffff) + (s >> 16)
right = int(checksum == ((s & 0xffff) + (s >> 16)) + len(b))
print(eval(sys.argv[2]))
PY2
hdr() { python3 hdr.py "$1" "$2"; }
openssl req -new -x509 -newkey rsa:2048 -nodes -subj /CN=pkgnote-pe-corpus -days 1 \
        -keyout db.key -out db.crt > /dev/null 2>&1 || fatal "cannot make a test key"

# ---------------------------------------------------- named regressions
# syslinux.efi declares 2.3 MB of memory past its one section (its code
# addresses it); stamping cut SizeOfImage to the new section's end.
SL=$CORPUS/syslinux-efi/usr/lib/SYSLINUX.EFI/efi64/syslinux.efi
cp "$SL" sl.efi
"$PKGNOTE" stamp -q $M sl.efi 2> err
check "stamp keeps SizeOfImage of syslinux.efi" '[ "$(hdr sl.efi image)" -ge "$(hdr "$SL" image)" ] && [ "$(hdr sl.efi note_va)" -ge "$(hdr "$SL" image)" ]' "SizeOfImage $(hdr sl.efi 'hex(image)') .pkgnote at $(hdr sl.efi 'hex(note_va)'), original SizeOfImage $(hdr "$SL" 'hex(image)'); $(cat err)"
# systemd-boot 252: SizeOfImage 0x28340 is not a multiple of the
# alignment; the new section was put at 0x28200, over the image's tail.
for f in systemd-bootx64.efi linuxx64.efi.stub; do
        cp "$SB/$f" sd.efi
        "$PKGNOTE" stamp -q $M sd.efi 2> err
        check "stamp places .pkgnote past systemd-boot 252's SizeOfImage ($f)" '[ "$(hdr sd.efi note_va)" -ge "$(hdr "$SB/$f" image)" ]' ".pkgnote at $(hdr sd.efi 'hex(note_va)'), SizeOfImage $(hdr "$SB/$f" 'hex(image)'); $(cat err)"
done
# mingw-w64's runtime DLL ends with its COFF symbol and string tables:
# the note's bytes went after them, leaving them in a gap between the
# sections' data, which sbsign and osslsigncode hash differently.
DLL=$MG/12-win32/libgcc_s_seh-1.dll
cp "$DLL" sym.dll
"$PKGNOTE" stamp -q $M sym.dll 2> err
shift=$(($(hdr sym.dll sym) - $(hdr "$DLL" sym)))
check "stamp moves the COFF symbol table" '[ "$(hdr "$DLL" sym)" -ge "$(hdr "$DLL" data_end)" ] && [ "$(hdr sym.dll note_raw)" -eq "$(hdr "$DLL" data_end)" ] && [ $shift -gt 0 ] && cmp -s sym.dll "$DLL" "$(hdr sym.dll sym)" "$(hdr "$DLL" sym)"' "PointerToSymbolTable $(hdr "$DLL" 'hex(sym)') -> $(hdr sym.dll 'hex(sym)'), .pkgnote data at $(hdr sym.dll 'hex(note_raw)'), sections end $(hdr "$DLL" 'hex(data_end)'); $(cat err)"
sbsign --key db.key --cert db.crt --output sym-signed.dll sym.dll > /dev/null 2>&1
check "stamp moves the COFF symbol table: osslsigncode verifies sbsign's signature" '"$OSSLSIGNCODE" verify -CAfile db.crt -in sym-signed.dll > v.out 2>&1' "$(grep -i mismatch v.out 2> /dev/null)"
# A certificate table whose offset lies inside the last section's data
# (made from systemd-boot signed by sbsign): --drop-signature cut the file
# there, zeroing the section's bytes, and said "note added".
sbsign --key db.key --cert db.crt --output cert.efi "$SB/systemd-bootx64.efi" > /dev/null 2>&1 || fatal "sbsign cannot sign systemd-boot"
python3 - cert.efi <<'PY2'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
pe, = struct.unpack_from('<I', b, 0x3c)
opt = pe + 24
magic, = struct.unpack_from('<H', b, opt)
dirs = opt + (112 if magic == 0x20b else 96)
n, = struct.unpack_from('<H', b, pe + 6)
optsz, = struct.unpack_from('<H', b, pe + 20)
h = opt + optsz + 40 * (n - 1)
roff, = struct.unpack_from('<I', b, h + 20)
off = roff + 0x10               # inside the last section's data
struct.pack_into('<II', b, dirs + 8 * 4, off, len(b) - off)
open(sys.argv[1], 'wb').write(b)
PY2
cp cert.efi cert.before
run stamp $M --drop-signature cert.efi
check "drop-signature refuses a certificate table inside a section" '[ $STATUS -eq 2 ] && grep -q "^pkgnote: '"'"'cert.efi'"'"': .*certificate table at offset 0x[0-9a-f]* starts inside the headers, a section.s data or the symbol table" err && cmp -s cert.efi cert.before' "exit $STATUS: $(cat out err)"
# A wine module with a stale checksum, given an overlay of zeros: the
# zeros were trimmed and the checksum replaced by a right one.
W=$W64/notepad.exe
cp "$W" ov.exe
head -c 4096 /dev/zero >> ov.exe
cp ov.exe ov.orig
check "wine's notepad.exe carries a stale checksum (the check below means something)" '[ "$(hdr ov.orig right)" = 0 ] && [ "$(hdr ov.orig checksum)" != 0 ]'
"$PKGNOTE" stamp -q $M ov.exe && "$PKGNOTE" stamp -q --remove ov.exe
check "stamp then remove is byte-identical with trailing zero overlay / stale checksum" 'cmp -s ov.exe ov.orig' "$(cmp ov.exe ov.orig 2>&1; ls -l ov.exe ov.orig)"
# The same for systemd-boot 252, whose SizeOfImage is unaligned and whose
# checksum is right.
cp "$SB/systemd-bootx64.efi" sd.efi
"$PKGNOTE" stamp -q $M sd.efi && "$PKGNOTE" stamp -q --remove sd.efi
check "stamp then remove gives back systemd-boot 252 (unaligned SizeOfImage, right checksum)" 'cmp -s sd.efi "$SB/systemd-bootx64.efi"'
# An overlay that is not zeros (a zip appended): refused, said why.
cp "$W" zip.exe
printf 'PK\003\004 an archive' >> zip.exe
cp zip.exe zip.before
run stamp $M zip.exe
check "an overlay that is not the symbol table is refused, the file left as it was" '[ $STATUS -eq 2 ] && grep -q "not the COFF symbol table" err && cmp -s zip.exe zip.before' "exit $STATUS: $(cat err)"

# ---------------------------------------------------- the corpus
# The images: every PE file of the corpus, or the named selection: each
# package, each layout (symbol table after the sections, SizeOfImage past
# the last section, stale and zero checksums, PE32 and PE32+, EFI
# applications, drivers, DLLs, programs).
if [ "${PKGNOTE_PE_CORPUS_ALL:-0}" = 1 ]; then
        find "$W64" "$W32" "$MG" "$MG32" /usr/x86_64-w64-mingw32/lib /usr/i686-w64-mingw32 "$SB" "$SB257" \
                "$CORPUS"/shim-unsigned "$CORPUS"/syslinux-efi "$CORPUS"/refind "$CORPUS"/ipxe "$CORPUS"/memtest86+ \
                "$CORPUS"/grub-efi-amd64-bin -type f 2> /dev/null | sort > cand
else
        cat > cand <<LIST
$W64/kernel32.dll
$W64/ntdll.dll
$W64/notepad.exe
$W64/winecfg.exe
$W64/d3dcompiler_47.dll
$W64/zlib1.dll
$W32/kernel32.dll
$W32/ntdll.dll
$W32/msvcrt.dll
$W32/wineboot.exe
$MG/12-win32/libstdc++-6.dll
$MG/12-win32/libgcc_s_seh-1.dll
$MG/12-win32/libgomp-1.dll
/usr/x86_64-w64-mingw32/lib/libwinpthread-1.dll
/usr/i686-w64-mingw32/lib/zlib1.dll
$MG32/12-win32/libgcc_s_dw2-1.dll
$MG32/12-win32/libstdc++-6.dll
$SB/systemd-bootx64.efi
$SB/linuxx64.efi.stub
$SB257/systemd-bootx64.efi
$SB257/linuxx64.efi.stub
$SB257/addonx64.efi.stub
$CORPUS/shim-unsigned/usr/lib/shim/shimx64.efi
$CORPUS/shim-unsigned/usr/lib/shim/mmx64.efi
$CORPUS/shim-unsigned/usr/lib/shim/fbx64.efi
$CORPUS/syslinux-efi/usr/lib/SYSLINUX.EFI/efi64/syslinux.efi
$CORPUS/syslinux-efi/usr/lib/SYSLINUX.EFI/efi32/syslinux.efi
$CORPUS/refind/usr/share/refind/refind/refind_x64.efi
$CORPUS/refind/usr/share/refind/refind/drivers_x64/ext4_x64.efi
$CORPUS/ipxe/boot/ipxe.efi
$CORPUS/ipxe/usr/lib/ipxe/snponly.efi
$CORPUS/memtest86+/boot/memtest86+x64.efi
$CORPUS/memtest86+/boot/memtest86+ia32.efi
$CORPUS/grub-efi-amd64-bin/usr/lib/grub/x86_64-efi/monolithic/grubx64.efi
$CORPUS/grub-efi-amd64-bin/usr/lib/grub/x86_64-efi/monolithic/grubnetx64.efi
LIST
fi
# Only PE images (MZ and a PE signature); a named one that is not is a failure.
python3 - cand > list 2> notpe <<'PY'
import struct, sys
for p in open(sys.argv[1]).read().split('\n'):
    if not p:
        continue
    try:
        b = open(p, 'rb').read(4096)
    except OSError as e:
        print('%s: %s' % (p, e), file=sys.stderr)
        continue
    if len(b) >= 64 and b[:2] == b'MZ':
        pe, = struct.unpack_from('<I', b, 0x3c)
        if len(b) >= pe + 4 and b[pe:pe + 4] == b'PE\0\0':
            print(p)
            continue
    print('%s: not a PE image' % p, file=sys.stderr)
PY
if [ "${PKGNOTE_PE_CORPUS_ALL:-0}" != 1 ]; then
        check "every image of the selection is there and is a PE image" '[ ! -s notpe ]' "$(cat notpe)"
fi

images=0 stamped=0 refused=0 layout=0 shown=0 sb_sb=0 sb_oss=0 oss_sb=0 back=0 bad=
: > refusals
while read -r f; do
        images=$((images + 1))
        cp "$f" orig
        cp orig st
        if ! "$PKGNOTE" stamp -q $M st > out 2> err; then
                refused=$((refused + 1))
                printf '%s: %s\n' "$f" "$(cat err)" >> refusals
                cmp -s st orig || bad="$bad
$f: a refused file was changed"
                continue
        fi
        stamped=$((stamped + 1))
        r=$(python3 "$SRCDIR/tests/write/pe-corpus-check.py" orig st 2>&1)
        if [ -z "$r" ]; then layout=$((layout + 1)); else bad="$bad
$f: $r"; fi
        if [ "$("$PKGNOTE" show --field name st 2>&1)" = hello ]; then shown=$((shown + 1)); else bad="$bad
$f: show does not read the note back"; fi
        if sbsign --key db.key --cert db.crt --output sb st > sign.out 2>&1; then
                if sbverify --cert db.crt sb > v.out 2>&1; then sb_sb=$((sb_sb + 1)); else bad="$bad
$f: sbverify rejects sbsign's signature: $(tail -1 v.out)"; fi
                if "$OSSLSIGNCODE" verify -CAfile db.crt -in sb > v.out 2>&1; then sb_oss=$((sb_oss + 1)); else bad="$bad
$f: osslsigncode rejects sbsign's signature: $(grep -i 'fail\|mismatch' v.out | head -2 | tr '\n' ' ')"; fi
        else
                bad="$bad
$f: sbsign cannot sign it: $(tail -1 sign.out)"
        fi
        rm -f os
        if "$OSSLSIGNCODE" sign -certs db.crt -key db.key -in st -out os > sign.out 2>&1; then
                if sbverify --cert db.crt os > v.out 2>&1; then oss_sb=$((oss_sb + 1)); else bad="$bad
$f: sbverify rejects osslsigncode's signature: $(tail -1 v.out)"; fi
        else
                bad="$bad
$f: osslsigncode cannot sign it: $(tail -1 sign.out)"
        fi
        "$PKGNOTE" stamp -q --remove st > /dev/null 2>&1
        if cmp -s st orig; then back=$((back + 1)); else bad="$bad
$f: stamp then stamp --remove does not give back the original bytes"; fi
done < list

echo "# PE corpus: $images images, $stamped stamped, $refused refused; layout kept $layout, note read back $shown;"
echo "# sbsign then sbverify $sb_sb, sbsign then osslsigncode verify $sb_oss, osslsigncode sign then sbverify $oss_sb; stamp then remove identical $back"
sed 's/^/# refused: /' refusals
check "PE corpus: images found" '[ $images -gt 0 ]'
check "PE corpus: every stamped image keeps its layout, reads back, signs and verifies both ways, and removes to the same bytes" '[ -z "$bad" ]' "$(printf '%s' "$bad" | head -40 | tr '\n' ' ')"
if [ "${PKGNOTE_PE_CORPUS_ALL:-0}" != 1 ]; then
        # iPXE's two images have no room for another section entry: the
        # selection's refusals, and they say why.
        check "PE corpus: the selection's refusals are iPXE's full section tables, said so" '[ $refused -eq 2 ] && [ "$(grep -c "/ipxe/.*no room in the headers for another section entry" refusals)" -eq 2 ]' "$(cat refusals)"
fi
finish
