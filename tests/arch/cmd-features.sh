#!/bin/sh
# What pkgnote --version says it was built with, and what a build without
# an optional library does with the inputs that need it: a clear error or
# a named problem, never a silent "no notes".  In the full build (make
# check) every feature must be there; the builds of make check-features
# leave some out and list them in PKGNOTE_FEATURES_OFF.
. "$SRCDIR/tests/lib.sh"
require cc python3 dpkg-deb

run --version
expect_status 0 "--version exits 0"
sed -n 1p out | grep -Eq '^pkgnote [0-9]+\.[0-9]+' && pass "--version: first line names the version" ||
        fail "--version: first line names the version" "$(cat out)"
for f in archive squashfs zstd xz lz4 zlib stack; do
        if has_feature $f; then
                pass "--version: +$f"
        elif feature_off $f; then
                pass "--version: -$f, as this build was configured"
        else
                with_feature $f "--version: +$f"
        fi
done

printf 'int main(void) { return 0; }\n' > main.c
cc -o prog main.c -Xlinker '--package-metadata={"type":"deb","name":"prog","version":"1.0"}' 2>/dev/null ||
        cc -o prog main.c -Wl,--build-id || fatal "cannot link"
mkdir -p tree/usr/bin tree/pool
cp prog tree/usr/bin/
mkdir -p debroot/usr/bin debroot/DEBIAN && cp prog debroot/usr/bin/
printf 'Package: prog\nVersion: 1.0\nArchitecture: amd64\nMaintainer: nobody <nobody@example.org>\nDescription: test\n' > debroot/DEBIAN/control
dpkg-deb --root-owner-group -Zgzip --build debroot tree/pool/prog_1.0_amd64.deb > /dev/null || fatal "dpkg-deb"
rm -r debroot/DEBIAN
tar -C debroot -cf root.tar ./usr

# A tree: its ELF files are read with or without libarchive.
run scan --format json tree
grep -q '"path":"tree/usr/bin/prog"' out && pass "tree: the ELF file is read" || fail "tree: the ELF file is read" "$(cat out err)"
if has_feature archive; then
        grep -q '"containers":\["tree/pool/prog_1.0_amd64.deb",' out && pass "tree: the .deb in it is opened" ||
                fail "tree: the .deb in it is opened" "$(cat out)"
else
        grep -q "tree/pool/prog_1.0_amd64.deb.*Debian package.*built without libarchive" err &&
                pass "tree without libarchive: the .deb named as not read" ||
                fail "tree without libarchive: the .deb named as not read" "$(cat err)"
        [ "$STATUS" -eq 1 ] && pass "tree without libarchive: exit 1 (a problem)" ||
                fail "tree without libarchive: exit 1 (a problem)" "status $STATUS"
fi

# Archives named as inputs.
for a in tree/pool/prog_1.0_amd64.deb root.tar; do
        run scan --format json "$a"
        if has_feature archive; then
                [ "$STATUS" -eq 0 ] && grep -q '"name":"prog"' out && pass "$a: read" || fail "$a: read" "status $STATUS: $(cat out err)"
        else
                [ "$STATUS" -eq 2 ] && grep -q "built without libarchive" err && pass "$a: without libarchive, a clear error" ||
                        fail "$a: without libarchive, a clear error" "status $STATUS: $(cat err)"
        fi
done
cat root.tar | "$PKGNOTE" scan --format json - > out 2> err
STATUS=$?
if has_feature archive; then
        [ "$STATUS" -eq 0 ] && grep -q '"name":"prog"' out && pass "a tar from a pipe: read" || fail "a tar from a pipe: read" "$(cat err)"
else
        [ "$STATUS" -eq 2 ] && grep -q "need libarchive" err && pass "a tar from a pipe without libarchive: a clear error" ||
                fail "a tar from a pipe without libarchive: a clear error" "status $STATUS: $(cat err)"
fi

# SquashFS needs libsquashfs only, not libarchive.
if command -v mksquashfs > /dev/null; then
        mksquashfs debroot root.sqfs -quiet -no-progress > /dev/null 2>&1 || fatal "mksquashfs"
        run scan --format json root.sqfs
        if has_feature squashfs; then
                [ "$STATUS" -eq 0 ] && grep -q '"path":"/usr/bin/prog"' out && pass "SquashFS image: read" ||
                        fail "SquashFS image: read" "status $STATUS: $(cat out err)"
        else
                [ "$STATUS" -eq 2 ] && grep -q "built without libsquashfs" err &&
                        pass "SquashFS image without libsquashfs: a clear error" ||
                        fail "SquashFS image without libsquashfs: a clear error" "status $STATUS: $(cat err)"
        fi
else
        missing "SquashFS image" squashfs-tools
fi
finish
