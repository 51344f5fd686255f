#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pkgnote deps --verify of unified kernel images: the real UKI of a Debian
# sid root (ukify: the root's kernel, dracut's initrd; dist/
# make-sid-artefacts.sh) has the findings of its own .initrd taken out by
# objcopy, and those of its oracle; its kernel against its initrd (no
# modules finding; exactly one with .uname replaced by another release;
# the release from the bzImage's setup header with .uname removed); and
# PE files made here (fuzz/make-seeds-uki.py): .initrd past the end of
# the file, empty, over the headers, with a huge VirtualSize, garbage,
# twice, absent; a PE with no sections; .uname with control characters
# or 1 MiB long; profiles.
. "$SRCDIR/tests/lib.sh"
require python3 objcopy timeout
PK=$PKGNOTE
ART=${PKGNOTE_TEST_SID_ARTEFACTS:-/var/cache/pkgnote/roots/sid-artefacts}

. "$SRCDIR/tests/check/verify-lib.sh"
# field NAME: the top-level NAME of the first artefact of the JSON in out.
field() {
        python3 -c 'import json, sys; print(json.load(open("out"))[0].get(sys.argv[1]))' "$1"
}
# check NAME STATUS PATTERN: the last verify exited STATUS and its
# stdout and stderr hold PATTERN (grep -E), no escape character.
check() {
        if [ "$STATUS" = "$2" ] && grep -qE -- "$3" out err && ! grep -q "$(printf '\033')" out err; then
                pass "$1"
        else
                fail "$1" "status $STATUS, expected $2 and /$3/: $(cat out err | head -c 600)"
        fi
}

# ------------------------------------------------------ PE files made here
python3 "$SRCDIR/fuzz/make-seeds-uki.py" made || fatal "cannot make the UKIs"
G=6.1.0-1-amd64
O=6.1.0-2-amd64
for c in good good-linux-only good-lib-modules good-uname-newline; do
        verify --json "made/$c.efi"
        [ "$STATUS" = 0 ] && [ -z "$(findings)" ] && [ "$(field kind)" = uki ] && [ "$(field release)" = "$G" ] &&
                pass "made: $c: kind uki, release $G, its modules there: no finding, exit 0" ||
                fail "made: $c: kind uki, release $G, its modules there: no finding, exit 0" "status $STATUS: $(cat out err)"
done
verify made/good.efi
check "made: good: text names the kind UKI and the kernel" 0 "'made/good.efi': UKI \(kernel $G\), 0 ELF objects, 0 findings"
for c in uname-other linux-other; do
        verify --json "made/$c.efi"
        [ "$STATUS" = 1 ] && [ "$(findings)" = "$(printf '.linux\tmodules\t%s\trequired' "$O")" ] && [ "$(field release)" = "$O" ] &&
                pass "made: $c: modules for $G only, the kernel's $O: one finding, exit 1" ||
                fail "made: $c: modules for $G only, the kernel's $O: one finding, exit 1" "status $STATUS: $(cat out err)"
done
verify made/uname-other.efi
[ "$STATUS" = 1 ] && [ "$(cat out)" = "made/uname-other.efi: .linux: modules $O (required): missing" ] &&
        pass "made: uname-other: the finding as text" || fail "made: uname-other: the finding as text" "$(cat out err)"
verify --json made/no-modules.efi
[ "$STATUS" = 0 ] && [ -z "$(findings)" ] && [ "$(field release)" = "$O" ] &&
        pass "made: an initrd without modules: no modules finding" || fail "made: an initrd without modules: no modules finding" "$(cat out err)"
verify made/no-release.efi
check "made: no .uname, .linux no bzImage: modules not checked, said, exit 0" 0 "\.linux: no kernel release .*modules not checked"
verify made/no-linux.efi
check "made: no .linux: said, exit 0" 0 "no \.linux section"
verify made/linux-version-outside.efi
check "made: a version string outside the setup code: said, exit 0" 0 "\.linux: its version string .* lies outside the setup code"
# .uname refused, the bzImage's release used: no finding.
verify --json made/uname-control.efi
if [ "$STATUS" = 0 ] && [ "$(field release)" = "$G" ] && [ -z "$(findings)" ] &&
        python3 -c 'import json; p = json.load(open("out"))[0]["problems"]; assert any(x["path"] == ".uname" and "no kernel release" in x["message"] for x in p)' &&
        ! grep -q "$(printf '\033')" out err; then
        pass "made: .uname with control characters: refused, said, the bzImage's release used"
else
        fail "made: .uname with control characters: refused, said, the bzImage's release used" "status $STATUS: $(cat out err)"
fi
# a release that would name another directory (the check would pass
# on /usr/lib/modules/../../..): refused, the bzImage's used
verify made/uname-dotdot.efi
check "made: .uname ../../..: refused, said" 0 "\.uname: .*no kernel release"
grep -q "UKI (kernel $G)" err && pass "made: .uname ../../..: the bzImage's release used" ||
        fail "made: .uname ../../..: the bzImage's release used" "$(cat err)"
verify made/uname-control.efi
check "made: .uname with control characters: text, escaped" 0 "\.uname: 22 bytes that are no kernel release"
verify made/uname-long.efi
check "made: .uname of 1 MiB: refused, said" 0 "\.uname: 1048576 bytes, longer than a kernel release \(at most 64 bytes\): not used.*"
grep -q "UKI (kernel $G)" err && pass "made: .uname of 1 MiB: the bzImage's release used" ||
        fail "made: .uname of 1 MiB: the bzImage's release used" "$(cat err)"
verify made/uname-past-end.efi
check "made: .uname past the end of the file: said, not used" 0 "\.uname: the \.uname section .* passes the end of the file"
# The .initrd section refused: a clear error each, exit 2, nothing on stdout.
while read -r c want; do
        verify "made/$c.efi"
        [ "$STATUS" = 2 ] && [ ! -s out ] && grep -q -- "made/$c.efi': cannot read the artefact: $want" err &&
                pass "made: $c: an error, exit 2" || fail "made: $c: an error, exit 2" "status $STATUS: $(cat out err)"
done << 'EOF'
initrd-past-end the .initrd section (1420 bytes at file offset 0x10000000) passes the end of the file
initrd-cut the .initrd section (1048576 bytes at file offset 0xe00) passes the end of the file
initrd-size-zero the .initrd section is empty
initrd-huge-vsize the .initrd section's memory (0xfffff000 bytes at 0x3000) passes the end of the image (SizeOfImage
initrd-over-headers the .initrd section at file offset 0x0 overlaps the headers
initrd-garbage the .initrd section: not an initramfs
two-initrd two .initrd sections in the base profile
no-sections a PE file without a .initrd section
no-initrd a PE file without a .initrd section
mz-only an MZ file without a PE header
section-table-outside section table lies outside the file
profile-only-initrd a PE file without a .initrd section in its base profile
EOF
# Profiles: the base profile's .initrd verified; a profile's own said.
verify made/profile-initrd.efi
check "made: a profile with a .initrd of its own: the base one verified, the other said" 0 "\.initrd@0: profile @0 has a \.initrd of its own"
verify --json made/profile-uname.efi
[ "$STATUS" = 0 ] && [ "$(field release)" = "$G" ] && pass "made: a profile's .uname is not the base profile's" ||
        fail "made: a profile's .uname is not the base profile's" "$(cat out err)"
# Several artefacts, a bad UKI among them: the others still verified.
verify --json made/initrd-past-end.efi made/good.efi made/uname-other.efi
[ "$STATUS" = 2 ] && [ "$(python3 -c 'import json; print(len(json.load(open("out"))))')" = 2 ] &&
        pass "made: a bad UKI among others: exit 2, the others' JSON" || fail "made: a bad UKI among others: exit 2, the others' JSON" "$(cat out err)"
# Every truncated prefix of a good UKI: an error or a reading, never a crash.
size=$(wc -c < made/good.efi)
bad=
for n in $(python3 -c 'import sys; s = int(sys.argv[1]); print(*sorted(set(range(0, 700, 7)) | set(range(700, s, 61)) | {s - 1}))' "$size"); do
        head -c "$n" made/good.efi > cut.efi
        verify cut.efi
        case $STATUS in 0 | 2) ;; *) bad="$bad $n:$STATUS" ;; esac
done
[ -z "$bad" ] && pass "made: truncated prefixes of a UKI: exit 0 or 2" || fail "made: truncated prefixes of a UKI: exit 0 or 2" "$bad"

# ------------------------------------------------------ the real UKI
UKI=$ART/uki-dracut.efi
if [ ! -f "$UKI.ORACLE.txt" ] || [ ! -f "$ART/VERSIONS" ]; then
        missing "the sid UKI and its oracle (sh dist/make-sid-artefacts.sh)" "$UKI"
        finish
        exit
fi
if ! with_feature zstd "the sid UKI (its initrd zstd-compressed)"; then
        finish
        exit
fi
kver=$(awk '$1 == "kernel" { print $2 }' "$ART/VERSIONS")
verify --json "$UKI"
findings > got.uki
[ "$STATUS" = 0 ] && [ "$(field kind)" = uki ] && pass "sid UKI: kind uki, exit 0" || fail "sid UKI: kind uki, exit 0" "status $STATUS: $(cat err)"
[ "$(field release)" = "$kver" ] && pass "sid UKI: its release, $kver" || fail "sid UKI: its release, $kver" "got $(field release)"
objects=$(field objects)
objcopy -O binary --only-section=.initrd "$UKI" initrd.img || fatal "objcopy cannot take .initrd out"
verify --json initrd.img
findings > got.initrd
[ "$STATUS" = 0 ] && [ -s got.initrd ] && cmp -s got.initrd got.uki && [ "$(field objects)" = "$objects" ] &&
        pass "sid UKI: the findings of its own .initrd (objcopy), $(wc -l < got.uki) of them" ||
        fail "sid UKI: the findings of its own .initrd (objcopy)" "status $STATUS: $(diff got.initrd got.uki | head -n 20)"
oracle "$UKI.ORACLE.txt" > want.uki
cmp -s want.uki got.uki && pass "sid UKI: the oracle's findings" || fail "sid UKI: the oracle's findings" "$(diff want.uki got.uki | head -n 20)"
elfs=$(awk '$1 == "elf-count" { print $2 }' "$UKI.ORACLE.txt")
[ "$objects" = "$elfs" ] && pass "sid UKI: every ELF object checked ($elfs)" || fail "sid UKI: every ELF object checked ($elfs)" "got $objects"
# The modules check both ways: the initrd holds modules (the oracle counts
# them), for the kernel's release: no finding; .uname another release:
# exactly that finding more.
mods=$(awk '$1 == "segment" { for (i = 4; i <= NF; i++) if ($i ~ /^kernel-modules=/) { sub(/.*=/, "", $i); n += $i } } END { print n + 0 }' "$UKI.ORACLE.txt")
[ "$mods" -gt 0 ] && ! grep -q "	modules	" got.uki && pass "sid UKI: $mods modules in its initrd, for its kernel: no modules finding" ||
        fail "sid UKI: $mods modules in its initrd, for its kernel: no modules finding" "$(grep modules got.uki)"
printf '%s' "6.0.0-0-other" > other.uname
# (--update-section keeps the section's place and VirtualSize: a release
# no longer than the one there.)
objcopy --update-section .uname=other.uname "$UKI" other.efi 2> objcopy.err ||
        fatal "objcopy cannot replace .uname: $(cat objcopy.err)"
verify --json other.efi
findings > got.other
{ cat got.uki; printf '.linux\tmodules\t6.0.0-0-other\trequired\n'; } | LC_ALL=C sort > want.other
[ "$STATUS" = 1 ] && cmp -s want.other got.other && [ "$(field release)" = 6.0.0-0-other ] &&
        pass "sid UKI with .uname 6.0.0-0-other: exactly one finding more, modules, exit 1" ||
        fail "sid UKI with .uname 6.0.0-0-other: exactly one finding more, modules, exit 1" "status $STATUS: $(cat err; diff want.other got.other | head)"
verify other.efi
grep -qx "other.efi: .linux: modules 6.0.0-0-other (required): missing" out &&
        pass "sid UKI with another .uname: the finding as text" || fail "sid UKI with another .uname: the finding as text" "$(head -n 3 out)"
# .uname removed and added again without an address (objcopy puts it at
# no address inside the image): not what a loader maps, said, not used.
objcopy --remove-section=.uname --add-section .uname=other.uname "$UKI" added.efi 2> objcopy.err ||
        fatal "objcopy cannot add .uname: $(cat objcopy.err)"
verify --json added.efi
findings > got.added
if [ "$STATUS" = 0 ] && [ "$(field release)" = "$kver" ] && cmp -s got.uki got.added &&
        python3 -c 'import json; p = json.load(open("out"))[0]["problems"]; assert any(x["path"] == ".uname" and "passes the end of the image" in x["message"] for x in p)'; then
        pass "sid UKI with a .uname outside its image: said, not used, the bzImage's release"
else
        fail "sid UKI with a .uname outside its image: said, not used, the bzImage's release" "status $STATUS: $(cat err)"
fi
# Without .uname: the release of the bzImage's setup header.
objcopy --remove-section=.uname "$UKI" nouname.efi || fatal "objcopy cannot remove .uname"
verify --json nouname.efi
findings > got.nouname
[ "$STATUS" = 0 ] && [ "$(field release)" = "$kver" ] && cmp -s got.uki got.nouname &&
        pass "sid UKI without .uname: the bzImage's release, $kver, no finding more" ||
        fail "sid UKI without .uname: the bzImage's release, $kver, no finding more" "status $STATUS: release $(field release): $(cat err)"
rm -f other.efi added.efi nouname.efi initrd.img
finish
