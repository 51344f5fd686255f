#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pkgnote deps: dlopen notes compiled the way systemd's ELF_NOTE_DLOPEN
# emits them, in programs built for x86-64, i386 and s390x, turned into
# rpm dependencies and Debian substvars; Debian packages found in this
# machine's dpkg database are checked against dpkg-query -S.
. "$SRCDIR/tests/lib.sh"
require cc readelf

# note.c: one dlopen note per DL_n macro, laid out as ELF_NOTE_DLOPEN does.
mknote() {
        {
                echo '#define NOTE(id, text) __attribute__((section(".note.dlopen"), used, aligned(4))) static const struct { unsigned namesz, descsz, type; char name[4]; char desc[(sizeof(text) + 3) & ~3]; } id = {4, sizeof(text), 0x407c0c0a, "FDO", text};'
                n=0
                for j; do
                        n=$((n + 1))
                        printf 'NOTE(note%d, "%s")\n' $n "$(printf '%s' "$j" | sed 's/"/\\"/g')"
                done
                echo 'int main(void) { return 0; }'
        } > note.c
}
Z='[{"feature":"zstd","description":"zstd compression","priority":"recommended","soname":["libzstd.so.1"]}]'
L='[{"feature":"lz4","priority":"suggested","soname":["liblz4.so.1","liblz4.so.2"]},{"feature":"none","priority":"required","soname":["libnosuchlib.so.7"]}]'
Z2='[{"feature":"zstd-required","priority":"required","soname":["libzstd.so.1"]}]'
mknote "$Z" "$L"
cc -o prog note.c || fatal "cannot build prog"
mknote "$Z2"
cc -o prog2 note.c || fatal "cannot build prog2"

# Text: every entry's details in one pair of parentheses, whichever it has.
mknote '[{"priority":"recommended","description":"no feature","soname":["liba.so.1"]},{"description":"only a description","soname":["libb.so.1"]},{"soname":["libc.so.9"]}]'
cc -o showprog note.c || fatal "cannot build showprog"
run show showprog
grep '^  dlopen:' out > dl.txt
printf '%s\n' "  dlopen: liba.so.1 (priority: recommended, description: no feature)" \
        "  dlopen: libb.so.1 (description: only a description)" "  dlopen: libc.so.9" > dl.want
cmp -s dl.txt dl.want && pass "show: dlopen details in balanced parentheses" ||
        fail "show: dlopen details in balanced parentheses" "$(cat dl.txt)"

run show --json prog
grep -qF '"dlopen":[{"feature":"zstd","description":"zstd compression","priority":"recommended","soname":["libzstd.so.1"]},{"feature":"lz4"' out && pass "show reads the compiled notes" || fail "show reads the compiled notes" "$(cat out)"

run deps prog
expect_status 0 "rpm: exit 0"
expect_out "Requires: libnosuchlib.so.7()(64bit)
Recommends: libzstd.so.1()(64bit)
Suggests: (liblz4.so.1()(64bit) or liblz4.so.2()(64bit))" "rpm: one line per entry, by priority, alternatives as a rich dependency"

run deps --format rpm prog prog2
expect_out "Requires: libzstd.so.1()(64bit)
Requires: libnosuchlib.so.7()(64bit)
Suggests: (liblz4.so.1()(64bit) or liblz4.so.2()(64bit))" "rpm: the same soname from two files merged, the strongest priority wins"

for t in i686-linux-gnu:"" s390x-linux-gnu:"()(64bit)"; do
        triplet=${t%%:*} suffix=${t#*:}
        if ! command -v $triplet-gcc > /dev/null; then missing "rpm: $triplet ABI marker" $triplet-gcc; continue; fi
        mknote "$Z"
        $triplet-gcc -o prog-$triplet note.c || { fail "rpm: $triplet ABI marker" "cannot link"; continue; }
        run deps prog-$triplet
        expect_out "Recommends: libzstd.so.1$suffix" "rpm: $triplet ABI marker"
done

# Debian: the packages that ship the sonames here, as dpkg itself says.
owner() { dpkg-query -S "*/x86_64-linux-gnu/$1" 2>/dev/null | sed 's/[:,].*//' | head -n 1; }
zpkg=$(owner libzstd.so.1) lpkg=$(owner liblz4.so.1)
if [ -n "$zpkg" ] && [ -n "$lpkg" ]; then
        run deps --format deb prog
        expect_status 1 "deb: a soname no package ships: exit 1"
        expect_err "no installed package ships libnosuchlib.so.7 (required)" "deb: the missing soname is named"
        expect_out "dlopen:Depends=
dlopen:Recommends=$zpkg
dlopen:Suggests=$lpkg" "deb: substvars name the packages dpkg-query -S names ($zpkg, $lpkg)"
        run deps --format json prog2
        expect_status 0 "json: exit 0"
        expect_out '[{"priority":"required","soname":["libzstd.so.1"],"features":["zstd-required"],"files":["prog2"],"rpm":"libzstd.so.1()(64bit)","deb":"'"$zpkg"'"}]' "json: merged and resolved"
else
        missing "deb: packages from this machine's dpkg database" "libzstd1, liblz4-1 and dpkg"
fi

# A root of its own: only its database is read.
mkdir -p root/var/lib/dpkg/info
printf '/usr/lib/x86_64-linux-gnu/libzstd.so.1\n' > 'root/var/lib/dpkg/info/libzstd-test1:amd64.list'
printf '/usr/lib/i386-linux-gnu/liblz4.so.2\n' > 'root/var/lib/dpkg/info/liblz4-test:i386.list'
printf '/lib/liblz4.so.2\n' > 'root/var/lib/dpkg/info/liblz4-plain.list'
run deps --format deb --root root prog
expect_out "dlopen:Depends=
dlopen:Recommends=libzstd-test1
dlopen:Suggests=liblz4-plain" "deb --root: the root's packages, of the program's architecture"
rm -rf root/var && ln -s / root/var
run deps --format deb --root root prog
expect_status 2 "deb --root: a database behind a symlink out of the root is not read"
expect_err "cannot read the dpkg database" "deb --root: says why"
[ ! -s out ] && pass "deb --root: nothing printed on failure" || fail "deb --root: nothing printed on failure" "$(cat out)"

# rpm's file attribute generator protocol.
printf 'prog\n\nprog2\n' | "$PKGNOTE" deps --rpm-generator requires --rpm-multifile > out 2> err
STATUS=$?
expect_status 0 "rpm generator: exit 0"
expect_out ";prog
libnosuchlib.so.7()(64bit)
;prog2
libzstd.so.1()(64bit)" "rpm generator, multifile: ;FILE then its Requires"
echo prog | "$PKGNOTE" deps --rpm-generator suggests > out 2> err
expect_out "(liblz4.so.1()(64bit) or liblz4.so.2()(64bit))" "rpm generator: one file's Suggests, bare"

# A staging tree: ELF files only, symlinks and debug files skipped.
mkdir -p stage/usr/bin stage/usr/lib/debug/usr/bin stage/usr/share/doc
cp prog stage/usr/bin/ && cp prog2 stage/usr/lib/debug/usr/bin/prog2.debug && ln -s ../../../prog2 stage/usr/bin/link
echo text > stage/usr/share/doc/README
run deps --tree stage
expect_status 0 "--tree: exit 0"
expect_out "Requires: libnosuchlib.so.7()(64bit)
Recommends: libzstd.so.1()(64bit)
Suggests: (liblz4.so.1()(64bit) or liblz4.so.2()(64bit))" "--tree: the tree's programs only"
run deps --tree stage/usr/share/doc/README
expect_status 2 "--tree of a file: exit 2"

# rpmbuild with dist/rpm/pkgnote_dlopen.attr beside rpm's own attributes.
if command -v rpmbuild > /dev/null && command -v rpm > /dev/null; then
        mkdir -p attrs
        cp "$(rpm --eval '%{_fileattrsdir}')"/*.attr attrs/ && cp "$SRCDIR/dist/rpm/pkgnote_dlopen.attr" attrs/
        # rpm reads the macros of /usr/lib/rpm/fileattrs at start; --load
        # stands in for installing the file there.
        if rpmbuild --load "$SRCDIR/dist/rpm/pkgnote_dlopen.attr" --define "_topdir $T/rpmtop" --define "_fileattrsdir $T/attrs" --define "__pkgnote $PKGNOTE" \
                --define "prog $T/prog" -bb "$SRCDIR/tests/write/rpm/dlopen.spec" > rpmbuild.log 2>&1; then
                rpmfile=$(ls rpmtop/RPMS/*/dlopen-test-1.0-1.*.rpm | head -n 1)
                rpm -qp --requires "$rpmfile" > req 2>/dev/null
                grep -qxF 'libnosuchlib.so.7()(64bit)' req && ! grep -qF 'libzstd' req &&
                        pass "rpmbuild: Requires from the notes" || fail "rpmbuild: Requires from the notes" "$(cat req)"
                [ "$(rpm -qp --suggests "$rpmfile")" = "(liblz4.so.1()(64bit) or liblz4.so.2()(64bit))" ] &&
                        pass "rpmbuild: Suggests as a rich dependency" || fail "rpmbuild: Suggests as a rich dependency" "$(rpm -qp --suggests "$rpmfile")"
                [ "$(rpm -qp --recommends "$rpmfile")" = "libzstd.so.1()(64bit)" ] && pass "rpmbuild: Recommends from the notes" ||
                        fail "rpmbuild: Recommends from the notes" "$(rpm -qp --recommends "$rpmfile")"
        else
                fail "rpmbuild with the dlopen attribute" "$(tail -n 5 rpmbuild.log)"
        fi
else
        missing "rpmbuild with the dlopen attribute" "rpmbuild (rpm)"
fi

# dpkg-buildpackage with dist/debian/dh_pkgnote_dlopen after dh_shlibdeps.
if [ -n "$zpkg" ] && [ -n "$lpkg" ] && command -v dpkg-buildpackage > /dev/null && command -v dh > /dev/null; then
        mkdir -p debpkg/debian/source debpkg/bin
        cp prog debpkg/dlprog
        ln -s "$PKGNOTE" debpkg/bin/pkgnote
        ln -s "$SRCDIR/dist/debian/dh_pkgnote_dlopen" debpkg/bin/dh_pkgnote_dlopen
        echo '3.0 (native)' > debpkg/debian/source/format
        cat > debpkg/debian/changelog <<'EOC'
dltest (1.0) unstable; urgency=medium

  * Test package.

 -- Test <test@example.org>  Thu, 03 Dec 2026 12:00:00 +0000
EOC
        cat > debpkg/debian/control <<'EOC'
Source: dltest
Section: misc
Priority: optional
Maintainer: Test <test@example.org>
Build-Depends: debhelper-compat (= 13)
Standards-Version: 4.6.2

Package: dltest
Architecture: any
Depends: ${shlibs:Depends}, ${misc:Depends}, ${dlopen:Depends}
Recommends: ${dlopen:Recommends}
Suggests: ${dlopen:Suggests}
Description: dlopen note test
 A program with dlopen notes.
EOC
        printf '#!/usr/bin/make -f\n%%:\n\tdh $@\noverride_dh_auto_install:\n\tinstall -D -m 0755 dlprog debian/dltest/usr/bin/dlprog\noverride_dh_strip:\noverride_dh_dwz:\nexecute_after_dh_shlibdeps:\n\tdh_pkgnote_dlopen\n' > debpkg/debian/rules
        chmod +x debpkg/debian/rules
        if (cd debpkg && PATH="$T/debpkg/bin:$PATH" dpkg-buildpackage -b -us -uc -d) > dpkg.log 2>&1; then
                deb=$(ls dltest_1.0_*.deb | head -n 1)
                [ "$(dpkg-deb -f "$deb" Recommends)" = "$zpkg" ] && pass "dpkg-buildpackage: Recommends from the notes ($zpkg)" ||
                        fail "dpkg-buildpackage: Recommends from the notes" "$(dpkg-deb -f "$deb")"
                [ "$(dpkg-deb -f "$deb" Suggests)" = "$lpkg" ] && pass "dpkg-buildpackage: Suggests from the notes ($lpkg)" ||
                        fail "dpkg-buildpackage: Suggests from the notes" "$(dpkg-deb -f "$deb")"
                grep -q "dh_pkgnote_dlopen: dltest: warning: some dlopen sonames are shipped by no installed package" dpkg.log &&
                        pass "dpkg-buildpackage: the unshipped required soname is a warning" ||
                        fail "dpkg-buildpackage: the unshipped required soname is a warning" "$(grep dh_pkgnote dpkg.log)"
        else
                fail "dpkg-buildpackage with dh_pkgnote_dlopen" "$(tail -n 8 dpkg.log)"
        fi
else
        missing "dpkg-buildpackage with dh_pkgnote_dlopen" "dpkg-buildpackage, dh (dpkg-dev, debhelper), libzstd1, liblz4-1"
fi

# SBOMs: what the dlopen notes of a scanned package ask for.  prog (its
# own package) asks for libzstd.so.1 (shipped by a scanned package),
# libnosuchlib.so.7 (required) and liblz4.so.1 or .2 (suggested).
mkdir -p sbom/usr/bin sbom/usr/lib
echo 'int f(void) { return 1; }' > lib.c
cc -shared -fPIC -o sbom/usr/lib/libzstd.so.1 lib.c -Xlinker '--package-metadata={"type":"deb","os":"debian","name":"libzstd","version":"1.5-1"}' ||
        fatal "cannot build the library"
mknote "$Z" "$L"
cc -o sbom/usr/bin/prog note.c -Xlinker '--package-metadata={"type":"deb","os":"debian","name":"prog","version":"2.0-1"}' ||
        fatal "cannot build the program"
"$PKGNOTE" scan --format cyclonedx sbom > sbom.cdx.json && "$PKGNOTE" scan --format spdx sbom > sbom.spdx.json ||
        fail "scan writes the SBOMs"
if python3 - sbom.cdx.json sbom.spdx.json > py.out 2>&1 <<'PY'
import json, sys
cdx = json.load(open(sys.argv[1]))
comp = {c["bom-ref"]: c for c in cdx["components"]}
names = {c["name"]: c["bom-ref"] for c in cdx["components"]}
prog = comp[names["prog"]]
props = [(p["name"], p["value"]) for p in prog["properties"] if p["name"].startswith("pkgnote:dlopen:")]
assert props == [("pkgnote:dlopen:recommended", "libzstd.so.1"), ("pkgnote:dlopen:suggested", "liblz4.so.1 or liblz4.so.2"),
                 ("pkgnote:dlopen:required", "libnosuchlib.so.7")], props
deps = {d["ref"]: d["dependsOn"] for d in cdx["dependencies"]}
assert deps == {names["prog"]: [names["libzstd"], names["liblz4.so.1"], names["liblz4.so.2"], names["libnosuchlib.so.7"]]}, deps
assert comp[names["libnosuchlib.so.7"]]["scope"] == "required" and comp[names["liblz4.so.2"]]["scope"] == "optional"
assert "libzstd.so.1" not in names  # shipped by a scanned package: no component of its own
spdx = json.load(open(sys.argv[2]))
ids = {p["name"]: p["SPDXID"] for p in spdx["packages"]}
rels = {(r["spdxElementId"], r["relationshipType"], r["relatedSpdxElement"]) for r in spdx["relationships"]}
assert (ids["prog"], "DEPENDS_ON", ids["libnosuchlib.so.7"]) in rels
assert (ids["libzstd"], "OPTIONAL_DEPENDENCY_OF", ids["prog"]) in rels
assert (ids["liblz4.so.2"], "OPTIONAL_DEPENDENCY_OF", ids["prog"]) in rels
assert "libzstd.so.1" not in ids
c = [r["comment"] for r in spdx["relationships"] if r["relatedSpdxElement"] == ids["prog"] and r["spdxElementId"] == ids["liblz4.so.1"]]
assert c == ["dlopen(), priority suggested, feature lz4; alternatives: liblz4.so.1 or liblz4.so.2"], c
PY
then pass "SBOMs: dlopen dependencies as CycloneDX dependencies and SPDX relationships"
else fail "SBOMs: dlopen dependencies as CycloneDX dependencies and SPDX relationships" "$(cat py.out)"; fi
schemas="$SRCDIR/../shared/schemas"
if [ ! -f "$schemas/spdx-2.3.schema.json" ]; then
        skip "SBOMs with dlopen dependencies validate" "schemas not found in $schemas (CI puts shared/ beside the checkout)"
elif sbom_validator "SBOMs with dlopen dependencies validate"; then
        for f in sbom.spdx.json:spdx sbom.cdx.json:cyclonedx; do
                validate_sbom "${f%%:*} with dlopen dependencies validates" "$AJV" "$SCHEMAS" "${f#*:}" "${f%%:*}"
        done
fi

# Bad input: nothing printed, exit 2.
mknote '[{"soname":["libok.so.1"]},{"soname":["libz.so.1"],"priority":"sometimes"}]'
cc -o badprio note.c || fatal "cannot build badprio"
run lint badprio
expect_status 1 "lint: a bad priority is an error"
off=$(readelf -SW badprio | sed -n 's/.* \.note\.dlopen *NOTE *[0-9a-f]* \([0-9a-f]*\) .*/\1/p')
expect_out "badprio: error: bad-dlopen: dlopen note at $(printf '0x%x' "0x$off"): dlopen entry 1: priority \"sometimes\" is not \"required\", \"recommended\" or \"suggested\"
badprio: error: no-package-note: no package note (owner \"FDO\", type 0xcafe1a7e)" "lint: bad-dlopen names the note, the entry and the value"
run lint prog
grep -q "bad-dlopen" out && fail "lint: good dlopen notes pass" "$(cat out)" || pass "lint: good dlopen notes pass"
run deps badprio prog
expect_status 2 "bad priority: exit 2"
expect_err "priority is not" "bad priority: says why"
[ ! -s out ] && pass "bad priority: no partial output" || fail "bad priority: no partial output" "$(cat out)"
mknote '[{"soname":["/usr/lib/libz.so.1"]}]'
cc -o badname note.c || fatal "cannot build badname"
run lint badname
grep -qF 'bad-dlopen: dlopen note at' out && grep -qF 'dlopen entry 0: "/usr/lib/libz.so.1" does not look like a soname' out &&
        pass "lint: a path for a soname" || fail "lint: a path for a soname" "$(cat out)"
run deps badname
expect_status 2 "a path for a soname: exit 2"
expect_err "does not look like a soname" "a path for a soname: says why"
mknote '{"soname":["libz.so.1"]}'
cc -o notarray note.c || fatal "cannot build notarray"
run lint notarray
grep -qF 'dlopen metadata is not a JSON array' out && pass "lint: a note that is not an array" || fail "lint: a note that is not an array" "$(cat out)"
run deps notarray
expect_status 2 "a note that is not an array: exit 2"
expect_err "malformed dlopen note" "a note that is not an array: says why"
printf 'not elf' > text
run deps text
expect_status 2 "not ELF: exit 2"
run deps --format spdx prog
expect_status 2 "unknown format: exit 2"
run deps
expect_status 2 "no file: exit 2"
run deps --rpm-generator provides
expect_status 2 "unknown generator kind: exit 2"
cc -o plain -x c - <<'EOC'
int main(void) { return 0; }
EOC
run deps plain
expect_status 0 "no dlopen note: exit 0"
expect_out "" "no dlopen note: no dependency"
finish
