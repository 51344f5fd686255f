#!/bin/sh
# Every installed package of a scanned root, with or without ELF objects,
# in the SBOMs and the JSON report: a Debian 12 root made by mmdebstrap
# against dpkg-query -W (names, versions with their epochs, architectures,
# source packages; licenses from the machine-readable copyright files); a
# small dpkg root whose copyright files exercise the mapping of Debian's
# license names, a note the database lacks and one it contradicts; an rpm
# root of rpmbuild-made packages installed with rpm --root against
# rpm -qa (epoch qualifier, License tag, source rpm); an Alpine root with a
# hand-written lib/apk/db/installed (tests/scan/apk-installed) against its
# own entries, its malformed paragraph named as a problem.
. "$SRCDIR/tests/lib.sh"
H="$SRCDIR/tests/scan"
require python3 cc tar dpkg-query

. "$H/image-checks.sh"
make_programs

# sboms ROOT: ROOT's SPDX 2.3, SPDX 3.0.1 (of one creation time), CycloneDX
# and JSON report in r.spdx, r.spdx3, r.cdx, r.json.  STATUS the highest
# exit status of them (1: problems named).
sboms() {
        STATUS=0
        SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format spdx -o r.spdx "$1" 2> err || STATUS=$?
        SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format spdx3 -o r.spdx3 "$1" 2>> err || { [ $? -gt "$STATUS" ] && STATUS=$?; }
        "$PKGNOTE" scan --format cyclonedx -o r.cdx "$1" 2>> err || { [ $? -gt "$STATUS" ] && STATUS=$?; }
        "$PKGNOTE" scan --format json "$1" > r.json 2>> err || { r=$?; [ $r -gt "$STATUS" ] && STATUS=$r; }
}
# against TYPE NAME: the documents against the packages in want.
against() {
        if [ "$STATUS" -le 1 ] && python3 "$H/installed.py" "$1" want r.spdx r.cdx r.json > cmp.txt 2>&1; then
                pass "$2 ($(tail -n 1 cmp.txt))"
        else
                fail "$2" "exit status $STATUS: $(head -c 300 err)"; sed 's/^/# /' cmp.txt | head -n 22
        fi
}

# --- a Debian 12 root: the fresh-machine check's mmdebstrap tarball, the
# one cmd-stamp-system keeps, or a minbase root made once and kept.
BASE=${PKGNOTE_BASE_TAR:-/var/tmp/fresh-bookworm/base.tar}
[ -f "$BASE" ] || BASE=/var/tmp/pkgnote-test-base/bookworm.tar
if [ ! -f "$BASE" ]; then
        BASE=/var/tmp/pkgnote-test-base/bookworm-minbase.tar
        if [ ! -f "$BASE" ] && command -v mmdebstrap > /dev/null; then
                mkdir -p "${BASE%/*}" &&
                mmdebstrap --variant=minbase bookworm "$BASE.tmp.tar" "deb http://deb.debian.org/debian bookworm main" \
                        > mmdebstrap.log 2>&1 && mv "$BASE.tmp.tar" "$BASE"
                rm -f "$BASE.tmp.tar"
        fi
fi
if [ ! -f "$BASE" ]; then
        missing "a Debian 12 root made by mmdebstrap" "mmdebstrap (or the Debian archive)"
else
        D=$T/deb
        mkdir "$D" && tar -xf "$BASE" -C "$D" --exclude=./dev 2> /dev/null
        [ -f "$D/var/lib/dpkg/status" ] || fatal "no dpkg database in $BASE"
        # Licenses: a package's copyright file, when it is a regular file in
        # the machine-readable format with License: fields, gives one.
        dpkg-query --admindir "$D/var/lib/dpkg" -W -f '${Package} ${Version} ${Architecture} ${source:Package} ${source:Version}\n' |
                while read -r p v a sp sv; do
                        f=$D/usr/share/doc/$p/copyright
                        l=
                        if [ -f "$f" ] && [ ! -L "$f" ] && [ ! -L "${f%/copyright}" ] && head -n 1 "$f" | grep -q '^Format:.*copyright-format/1.0' &&
                           grep -q '^License: *[^ ]' "$f"; then l=DEP5; fi
                        echo "$p $v $a $sp $sv $l"
                done > want.dep5
        sed 's/ DEP5$//' want.dep5 > want
        sboms "$D"
        against deb "Debian 12 root: every package dpkg-query -W lists, with its version (epoch in the version), architecture and source, once in SPDX, CycloneDX and the JSON report"
        n_none=$(grep -vc ' DEP5$' want.dep5)
        n_dep5=$(grep -c ' DEP5$' want.dep5)
        if python3 - "$n_dep5" > lic.txt 2>&1 <<'PY'
import json, sys
want = {l.split()[0]: l.rstrip("\n").endswith(" DEP5") for l in open("want.dep5")}
got = {}
for line in open("r.json"):
    d = json.loads(line)
    if "installedPackage" in d:
        got[d["installedPackage"]["name"]] = d["installedPackage"].get("license")
bad = [p for p in want if bool(got.get(p)) != want[p]]
assert not bad, ["%s: %r" % (p, got.get(p)) for p in bad[:5]]
assert sum(want.values()) == int(sys.argv[1]) and int(sys.argv[1]) > 10
# zlib's copyright says "License: Zlib"; an epoch in its version
assert got["zlib1g"] == "Zlib", got["zlib1g"]
PY
        then pass "Debian 12 root: the $n_dep5 packages with a machine-readable copyright file have a license, the $n_none others none"
        else fail "Debian 12 root: licenses from the copyright files" "$(tail -n 3 lic.txt)"; fi
        grep -q '"purl": "pkg:deb/debian/zlib1g@1:' r.cdx && pass "Debian 12 root: a deb purl keeps the epoch in its version" ||
                fail "Debian 12 root: a deb purl keeps the epoch in its version" "$(grep -m1 'pkg:deb/debian/zlib1g' r.cdx)"
        validate_sboms "Debian 12 root" r.spdx:spdx r.cdx:cyclonedx r.spdx3:spdx3
        spdx3_same "Debian 12 root" r.spdx r.spdx3
fi

# --- a small dpkg root: licenses mapped, notes beside the database
S=$T/small
mkdir -p "$S/var/lib/dpkg/info" "$S/etc" "$S/opt" "$S/usr/bin" "$S/usr/share/doc/mapped" "$S/usr/share/doc/prose"
printf 'ID=debian\nVERSION_ID="12"\n' > "$S/etc/os-release"
cat > "$S/var/lib/dpkg/status" <<'ST'
Package: mapped
Status: install ok installed
Architecture: amd64
Source: mapped-src (1:2.3-4)
Version: 1:2.3-4+b1
Description: copyright in the machine-readable format

Package: prose
Status: install ok installed
Architecture: all
Version: 0.9
Description: a copyright file in prose

Package: nodoc
Status: install ok installed
Architecture: amd64
Version: 5
Description: no copyright file

Package: removed
Status: deinstall ok config-files
Architecture: amd64
Version: 1
Description: not installed
ST
echo /usr/bin/mapped > "$S/var/lib/dpkg/info/mapped.list"
cat > "$S/usr/share/doc/mapped/copyright" <<'CR'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: mapped

Files: *
Copyright: 2020 Someone
License: GPL-2+

Files: lib/*
License: LGPL-2.1+ or BSD-3-clause

Files: contrib/*
License: Expat

Files: java/*
License: Apache-2.0

Files: compat/*
License: public-domain

Files: extra/*
License: Foo-1.0

Files: odd/*
License: MIT or

Files: odder/*
License: GPL-2+ and

License: GPL-2+
 On Debian systems the full text is in /usr/share/common-licenses/GPL-2.
CR
printf 'This package was debianized by someone.\n\nLicense: GPL-2+\n' > "$S/usr/share/doc/prose/copyright"
cp beta "$S/usr/bin/mapped"    # the database's file, with a note naming another package
cp alpha "$S/opt/alpha"        # a note the database lacks
# A License: line ending in "or"/"and" (a dangling operator) is a
# LicenseRef- of its text, never "MIT OR " (which validators reject).
LIC="GPL-2.0-or-later AND (LGPL-2.1-or-later OR BSD-3-Clause) AND MIT AND Apache-2.0 AND LicenseRef-public-domain AND LicenseRef-Foo-1.0 AND LicenseRef-MIT-or AND LicenseRef-GPL-2--and"
printf 'mapped 1:2.3-4+b1 amd64 mapped-src 1:2.3-4 %s\nprose 0.9 all prose 0.9 -\nnodoc 5 amd64 nodoc 5 -\n' "$LIC" > want
sboms "$S"
against deb "small dpkg root: Debian's license names as SPDX (GPL-2+, LGPL-2.1+, BSD-3-clause, Expat, Apache-2.0, public-domain, others as LicenseRef-, a line ending in or/and one LicenseRef-), a prose copyright file none, a removed package absent"
if python3 > notes.txt 2>&1 <<'PY'
import json
c = json.load(open("r.cdx"))
comps = {x["name"]: x for x in c["components"]}
props = lambda x: {p["name"]: p["value"] for p in x.get("properties", [])}
assert props(comps["alpha"])["pkgnote:database"] == "absent", comps["alpha"]
assert props(comps["beta"])["pkgnote:database"] == "mismatch", comps["beta"]
assert props(comps["mapped"])["pkgnote:dbMismatch"].endswith("/usr/bin/mapped"), comps["mapped"]
assert [o["location"] for o in comps["mapped"]["evidence"]["occurrences"]][0].endswith("/usr/bin/mapped")
assert "evidence" not in comps["prose"]
s = json.load(open("r.spdx"))
pk = {p["name"]: p for p in s["packages"]}
assert "not a package of the root's package database" in pk["alpha"]["sourceInfo"], pk["alpha"]
assert "dbMismatch" in pk["beta"]["sourceInfo"], pk["beta"]
refs = {x["licenseId"] for x in s["hasExtractedLicensingInfos"]}
assert refs == {"LicenseRef-public-domain", "LicenseRef-Foo-1.0", "LicenseRef-MIT-or", "LicenseRef-GPL-2--and"}, refs
# Every license expression of both SBOMs is one SPDX expression (SPDX 2.3
# Annex D: no operator without both operands), as validators require.
import re
def spdx(e):
    toks = re.findall(r"\(|\)|[^\s()]+", e)
    pos = [0]
    def peek(): return toks[pos[0]] if pos[0] < len(toks) else None
    def simple():
        t = peek()
        if t is None or t in ("AND", "OR", "WITH", "(", ")") or not re.fullmatch(r"(LicenseRef-[A-Za-z0-9.-]+|[A-Za-z0-9.-]+\+?)", t):
            raise ValueError(e)
        pos[0] += 1
    def primary():
        if peek() == "(":
            pos[0] += 1; compound()
            if peek() != ")": raise ValueError(e)
            pos[0] += 1
        else:
            simple()
            if peek() == "WITH": pos[0] += 1; simple()
    def compound():
        primary()
        while peek() in ("AND", "OR"): pos[0] += 1; primary()
    compound()
    if pos[0] != len(toks) or "  " in e or e != e.strip(): raise ValueError(e)
exprs = [p[k] for p in s["packages"] for k in ("licenseDeclared", "licenseConcluded") if p.get(k) not in (None, "NOASSERTION", "NONE")]
exprs += [l["expression"] for x in c["components"] for l in x.get("licenses", []) if "expression" in l]
assert exprs, "no license expressions"
for e in exprs:
    spdx(e)
PY
then pass "small dpkg root: notes the database lacks or contradicts stay components of their own, marked; the database's package lists its file; LicenseRefs declared; every license expression is valid SPDX"
else fail "small dpkg root: notes beside the database" "$(tail -n 3 notes.txt)"; fi
if "$PKGNOTE" scan "$S" > table 2>&1 && grep -Eq '^  nodoc +5 +amd64$' table && grep -Eq '^  prose +0.9 +all$' table &&
   ! grep -q '^  removed ' table; then
        pass "small dpkg root: the table lists the installed packages that ship no ELF object"
else
        fail "small dpkg root: the table lists the installed packages that ship no ELF object" "$(sed -n '/Installed/,$p' table | head)"
fi
validate_sboms "small dpkg root" r.spdx:spdx r.cdx:cyclonedx r.spdx3:spdx3
spdx3_same "small dpkg root" r.spdx r.spdx3
if with_feature archive "the small dpkg root as a tar"; then
        tar -C "$S" -cf small.tar .
        sboms small.tar
        against deb "the small dpkg root as a tar: the database and the copyright files read from the archive"
fi

# --- an rpm root: rpmbuild-made packages installed with rpm --root
if ! command -v rpmbuild > /dev/null || ! command -v rpm > /dev/null; then
        missing "an rpm root against rpm -qa" rpm
else
        mkdir -p rpm/SPECS
        for spec in "hello 2 1.2 3.fc40 x86_64 MIT AND GPL-2.0-or-later" "hello-data 0 4.5 1.fc40 noarch LGPL-2.1-or-later" "legacy 0 0.1 7 x86_64 GPLv2+" "oldtags 0 1.0 1 x86_64 (GPLv2+ or ASL 2.0) and BSD and Public Domain"; do
                set -- $spec
                name=$1 epoch=$2 ver=$3 rel=$4 arch=$5
                shift 5
                {
                        echo "Name: $name"; echo "Version: $ver"; echo "Release: $rel"
                        [ "$epoch" = 0 ] || echo "Epoch: $epoch"
                        [ "$arch" = noarch ] && echo "BuildArch: noarch"
                        echo "Summary: test"; echo "License: $*"
                        echo "%description"; echo "test"
                        echo "%install"; echo "mkdir -p %{buildroot}/usr/share/$name %{buildroot}/usr/bin"
                        if [ "$name" = hello ]; then echo "cp $T/alpha %{buildroot}/usr/bin/hello"; fi
                        echo "echo data > %{buildroot}/usr/share/$name/data"
                        echo "%files"; echo "/usr/share/$name"
                        if [ "$name" = hello ]; then echo "/usr/bin/hello"; fi
                } > rpm/SPECS/$name.spec
                rpmbuild -bb --define "_topdir $T/rpm" --define "__strip /bin/true" --define "debug_package %{nil}" \
                        --define "_build_id_links none" rpm/SPECS/$name.spec >> rpmbuild.log 2>&1 || fatal "rpmbuild $name: $(tail -n 3 rpmbuild.log)"
        done
        F=$T/rpmroot
        mkdir -p "$F/etc"
        printf 'ID=fedora\nVERSION_ID=40\n' > "$F/etc/os-release"
        # Where Fedora keeps it (Debian's rpm defaults to ~/.rpmdb).
        DBP="--dbpath /usr/lib/sysimage/rpm"
        rpm --root "$F" $DBP --initdb && rpm --root "$F" $DBP -i --nodeps --ignorearch --ignoreos --noscripts rpm/RPMS/*/*.rpm > rpm.log 2>&1 ||
                fatal "rpm --root -i: $(cat rpm.log)"
        rpm --root "$F" $DBP -qa --qf '%{NAME} %|EPOCH?{%{EPOCH}:}:{}|%{VERSION}-%{RELEASE} %{ARCH} %{NAME} %{VERSION}-%{RELEASE} %{LICENSE}\n' > want
        [ "$(wc -l < want)" = 4 ] || fatal "rpm -qa lists $(wc -l < want) packages"
        # License tags in Fedora's old short names are no SPDX expressions:
        # the SPDX documents get them mapped where the SPDX identifier is
        # exact, the other names as LicenseRef-.
        sed -i -e 's/ GPLv2+$/ GPL-2.0-or-later/' \
                -e 's/ (GPLv2+ or ASL 2.0) and BSD and Public Domain$/ (GPL-2.0-or-later OR Apache-2.0) AND LicenseRef-BSD AND LicenseRef-Public-Domain/' want
        sboms "$F"
        against rpm "rpm root: every package rpm --root -qa lists, the epoch as the purl's epoch= qualifier, the License tag as SPDX, the source rpm"
        if python3 - > lic.txt 2>&1 <<'PY'
import json
s = json.load(open("r.spdx"))
[p] = [p for p in s["packages"] if p["name"] == "oldtags"]
assert p["licenseDeclared"] == "(GPL-2.0-or-later OR Apache-2.0) AND LicenseRef-BSD AND LicenseRef-Public-Domain", p
refs = {x["licenseId"]: x for x in s.get("hasExtractedLicensingInfos", [])}
assert {"LicenseRef-BSD", "LicenseRef-Public-Domain"} <= set(refs), refs
[q] = [p for p in s["packages"] if p["name"] == "legacy"]
assert q["licenseDeclared"] == "GPL-2.0-or-later", q
c = json.load(open("r.cdx"))
[o] = [x for x in c["components"] if x["name"] == "oldtags"]
assert o["licenses"] == [{"license": {"name": "(GPLv2+ or ASL 2.0) and BSD and Public Domain"}}], o["licenses"]
[l] = [x for x in c["components"] if x["name"] == "legacy"]
assert l["licenses"] == [{"expression": "GPL-2.0-or-later"}], l["licenses"]
# The JSON report keeps the database's record as it is.
tags = {json.loads(x)["installedPackage"]["name"]: json.loads(x)["installedPackage"].get("license") for x in open("r.json") if "installedPackage" in x}
assert tags["oldtags"] == "(GPLv2+ or ASL 2.0) and BSD and Public Domain", tags
PY
        then
                pass "rpm root: old Fedora License tags mapped to SPDX where exact, else LicenseRef- (SPDX) and the tag's text (CycloneDX)"
        else
                fail "rpm root: old Fedora License tags mapped to SPDX" "$(tail -n 3 lic.txt)"
        fi
        if grep -q '"purl": "pkg:rpm/fedora/hello@1.2-3.fc40?arch=x86_64&distro=fedora-40&epoch=2"' r.cdx; then
                pass "rpm root: the purl of an rpm with an epoch"
        else
                fail "rpm root: the purl of an rpm with an epoch" "$(grep '"purl": "pkg:rpm/fedora/hello@' r.cdx)"
        fi
        validate_sboms "rpm root" r.spdx:spdx r.cdx:cyclonedx r.spdx3:spdx3
        spdx3_same "rpm root" r.spdx r.spdx3
fi

# --- an Alpine root with a hand-written apk database
A=$T/apk
mkdir -p "$A/lib/apk/db" "$A/etc"
printf 'ID=alpine\nVERSION_ID=3.19.1\n' > "$A/etc/os-release"
cp "$H/apk-installed" "$A/lib/apk/db/installed"
mkdir -p "$A/bin" && cp alpha "$A/bin/busybox"
# Its own entries: P, V, A, o (the source, at the same version), L.
python3 - "$A/lib/apk/db/installed" > want <<'PY'
import sys
for para in open(sys.argv[1]).read().split("\n\n"):
    f = {}
    for l in para.splitlines():
        f.setdefault(l[:1], []).append(l[2:])
    if not f or len(f.get("P", [])) != 1:
        continue
    print(f["P"][0], f["V"][0], f["A"][0], f.get("o", f["P"])[0], f["V"][0], f.get("L", ["-"])[0])
PY
[ "$(wc -l < want)" = 4 ] || fatal "the apk database should hold 4 well-formed packages"
sboms "$A"
against apk "Alpine root: every package of lib/apk/db/installed, with its origin and license"
if grep -q "'/lib/apk/db/installed'.*1 packages of the apk database are malformed" err ||
   grep -q "lib/apk/db/installed.*1 packages of the apk database are malformed" err; then
        pass "Alpine root: the malformed paragraph (two P: lines) is left out and named"
else
        fail "Alpine root: the malformed paragraph is left out and named" "$(cat err)"
fi
if python3 -c 'import json, sys
c = json.load(open("r.cdx"))
bb = [x for x in c["components"] if x["name"] == "busybox"][0]
assert bb["purl"] == "pkg:apk/alpine/busybox@1.36.1-r15?arch=x86_64&distro=alpine-3.19.1", bb["purl"]
assert bb["evidence"]["occurrences"][0]["location"].endswith("/bin/busybox"), bb
' 2> apk.txt; then pass "Alpine root: purl, and the file the database lists as the package's evidence"
else fail "Alpine root: purl and evidence" "$(tail -n 2 apk.txt)"; fi
validate_sboms "Alpine root" r.spdx:spdx r.cdx:cyclonedx r.spdx3:spdx3
spdx3_same "Alpine root" r.spdx r.spdx3
# A license that is not UTF-8 (Latin-1) and an origin spanning nothing:
# the package is still reported, the license left out.
B=$T/apk-latin1
mkdir -p "$B/lib/apk/db"
printf 'P:latin\nV:1-r0\nA:x86_64\nL:Copyright \351t\303\n' > "$B/lib/apk/db/installed"
printf 'latin 1-r0 x86_64 latin 1-r0 -\n' > want.latin
cp want want.apk && cp want.latin want
sboms "$B"
against apk "an apk database whose license is not UTF-8: the package reported, without that license"
cp want.apk want
if with_feature archive "the Alpine root as a tar"; then
        tar -C "$A" -cf apk.tar .
        sboms apk.tar
        against apk "the Alpine root as a tar: the apk database read from the archive"
fi

finish
