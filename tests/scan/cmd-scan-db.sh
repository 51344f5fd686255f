#!/bin/sh
# pkgnote scan beside the package databases of the roots it reads: a root
# with this machine's own dpkg database (status and info lists copied,
# programs hard-linked or copied from /usr/bin), checked object by object
# against dpkg -S; the same root as a tar and as an OCI image whose upper
# layer replaces the database; a root with an rpm database made by
# rpm --initdb and rpm -i --justdb (rpmdb.sqlite), checked against
# rpm -qf, in rpm's old and new places; mismatches, the coverage table,
# --fail-on-missing, and damaged databases.
. "$SRCDIR/tests/lib.sh"
H="$SRCDIR/tests/scan"
require python3 cc dpkg dpkg-query tar

. "$H/image-checks.sh"
make_programs

# dbinv: PATH OWNER@VERSION MISMATCH NOTE per object of the JSON report.
dbinv() { # PREFIX
        python3 -c 'import json, sys
pre = sys.argv[1]
for line in open("out"):
    d = json.loads(line)
    if "path" not in d:
        continue
    p = d["path"][len(pre):] if d["path"].startswith(pre) else d["path"]
    db = d.get("dbPackage", "absent")
    own = "absent" if db == "absent" else "-" if db is None else "%s:%s@%s/%s@%s" % (db["type"], db["name"], db["version"], db["source"], db["sourceVersion"])
    notes = ",".join("%s@%s" % (n["name"], n["version"]) for n in d["packages"]) or "-"
    print(p, own, d.get("dbMismatch", "n/a"), notes)' "$1" > inv
}
expect_inv() { # WANT NAME
        printf '%s\n' "$1" > want
        if [ "$STATUS" = 0 ] && diff -u want inv > diff.txt; then pass "$2"; else
                fail "$2" "exit status $STATUS: $(head -c 300 err)"; sed 's/^/# /' diff.txt 2>/dev/null; fi
}

# --- a root with this machine's dpkg database
R=$T/root
mkdir -p "$R/var/lib/dpkg/info" "$R/usr/bin" "$R/usr/lib/x86_64-linux-gnu" "$R/etc" "$R/opt"
cp /var/lib/dpkg/status "$R/var/lib/dpkg/status"
cp /var/lib/dpkg/info/*.list "$R/var/lib/dpkg/info/"
cp /etc/os-release "$R/etc/os-release"
LIBSD=$(dpkg -L libsystemd0 | grep '/libsystemd\.so\.0\.' | head -n 1)
[ -f "$LIBSD" ] || fatal "libsystemd0's library not found"
SDV=$(dpkg-query -W -f '${Version}' libsystemd0)
LIBDIR=$(dirname "$LIBSD")
mkdir -p "$R$LIBDIR"
cp "$LIBSD" "$R$LIBSD"
cp /usr/bin/ls "$R/usr/bin/ls"
CUV=$(dpkg-query -W -f '${Version}' coreutils)
cp alpha "$R/opt/alpha"                 # a foreign program: no package owns it
cp beta "$R/usr/bin/dpkg"               # a replaced one: owned by dpkg, noted as beta
DPV=$(dpkg-query -W -f '${Version}' dpkg)
scan "$R"
dbinv "$R"
expect_inv "/opt/alpha - n/a alpha@1.0-1
/usr/bin/dpkg deb:dpkg@$DPV/dpkg@$DPV True beta@2.0-1.fc40
/usr/bin/ls deb:coreutils@$CUV/coreutils@$CUV n/a -
$LIBSD deb:libsystemd0@$SDV/systemd@$SDV False systemd@$SDV" \
        "a root with this machine's dpkg database: owners, versions, source packages, a replaced and a foreign file"
if python3 -c 'import json, sys
s = [json.loads(l) for l in open("out")][-1]["summary"]
sys.exit(not (s["dbObjects"] == 4 and s["dbOwned"] == 3 and s["dbMismatch"] == 1 and s["dbMissingNote"] == 1))'; then
        pass "the summary counts the objects the database owns, its mismatches and missing notes"
else
        fail "the summary counts the objects the database owns" "$(tail -n 1 out)"
fi

# Every program of /usr/bin in such a root, owner by owner, against dpkg -S.
B=$T/broot
mkdir -p "$B/var/lib/dpkg" "$B/usr"
cp -a /var/lib/dpkg/status /var/lib/dpkg/info "$B/var/lib/dpkg/" 2> /dev/null
cp -al /usr/bin "$B/usr/bin" 2> /dev/null || cp -a /usr/bin "$B/usr/bin"
"$PKGNOTE" scan --format json "$B" > out 2> err
STATUS=$?
python3 -c 'import json, sys
pre = sys.argv[1]
for line in open("out"):
    d = json.loads(line)
    if "path" in d:
        db = d.get("dbPackage")
        print(d["path"][len(pre):], db["name"] if db else "-")' "$B" > got
# One dpkg -S for every path and its merged-/usr alias (dpkg knows
# /bin/bash, not /usr/bin/bash).
cut -d' ' -f1 got | sed 'p;s|^/usr/bin/|/bin/|' | xargs dpkg -S > dpkgS 2> /dev/null
python3 -c 'import sys
owner = {}
for line in open("dpkgS"):
    pkgs, _, path = line.rstrip("\n").partition(": ")
    if "diversion" in pkgs:
        continue
    owner[path] = pkgs.split(",")[0].strip().split(":")[0]
n = bad = 0
for line in open("got"):
    p, got = line.split()
    want = owner.get(p) or owner.get(p.replace("/usr/bin/", "/bin/", 1)) or "-"
    n += 1
    if want != got:
        bad += 1
        if bad <= 5:
            print("# %s: dpkg -S says %s, the scan %s" % (p, want, got))
print(n, bad)' > cmp
sed -n '/^#/p' cmp
n=$(sed -n '$s/ .*//p' cmp)
bad=$(sed -n '$s/.* //p' cmp)
if [ "$STATUS" -le 1 ] && [ "$n" -gt 50 ] && [ "$bad" = 0 ]; then
        pass "the owners of all $n ELF programs of /usr/bin are those dpkg -S gives"
else
        fail "the owners of the programs of /usr/bin are those dpkg -S gives" "$bad of $n differ, exit status $STATUS"
fi

if with_feature archive "a root file system as a .tar.gz"; then
# The same root as a tar: the same owners, paths now in the root.
tar -C "$R" -czf root.tar.gz .
cp out out.tree 2> /dev/null
scan root.tar.gz
dbinv ""
expect_inv "/opt/alpha - n/a alpha@1.0-1
/usr/bin/dpkg deb:dpkg@$DPV/dpkg@$DPV True beta@2.0-1.fc40
/usr/bin/ls deb:coreutils@$CUV/coreutils@$CUV n/a -
$LIBSD deb:libsystemd0@$SDV/systemd@$SDV False systemd@$SDV" \
        "a root file system as a .tar.gz: the database read from the archive"
fi

# And as a SquashFS image.
if ! with_feature squashfs "a root file system as a SquashFS image"; then
        :
elif command -v mksquashfs > /dev/null; then
        mksquashfs "$R" root.sqfs -quiet -no-progress -comp zstd > /dev/null 2>&1 || fatal "mksquashfs failed"
        scan root.sqfs
        dbinv ""
        expect_inv "/opt/alpha - n/a alpha@1.0-1
/usr/bin/dpkg deb:dpkg@$DPV/dpkg@$DPV True beta@2.0-1.fc40
/usr/bin/ls deb:coreutils@$CUV/coreutils@$CUV n/a -
$LIBSD deb:libsystemd0@$SDV/systemd@$SDV False systemd@$SDV" \
                "a root file system as a SquashFS image: the database read from it"
else
        missing "a root file system as a SquashFS image" squashfs-tools
fi

# --- the coverage table and --fail-on-missing
"$PKGNOTE" scan "$R" > table 2> err
STATUS=$?
if [ "$STATUS" = 0 ] && grep -Eq "^  coreutils +$CUV +0 +1\$" table && grep -Eq "^  libsystemd0 +$SDV +1 +1\$" table &&
   grep -Eq '^  \(owned by no package\) +1 +1$' table && grep -q "/usr/bin/ls (executable, x86-64; package coreutils)" table &&
   grep -q "/usr/bin/dpkg: note beta 2.0-1.fc40, database dpkg $DPV" table; then
        pass "the table: coverage per package, the objects without a note with their package, the disagreeing notes"
else
        fail "the table: coverage per package" "exit status $STATUS: $(cat table err | head -c 1500)"
fi
"$PKGNOTE" scan --fail-on-missing "$R" > table 2> err
STATUS=$?
if [ "$STATUS" = 1 ] && grep -q "/usr/bin/ls': no package note (package coreutils)" err && ! grep -q alpha err; then
        pass "--fail-on-missing: status 1, naming the package whose object lacks a note"
else
        fail "--fail-on-missing: status 1, naming the package" "exit status $STATUS: $(cat err)"
fi
rm "$R/usr/bin/ls"
cp alpha "$R/opt/plain"  # unowned objects without a note do not count
strip -R .note.package "$R/opt/plain" 2> /dev/null || objcopy -R .note.package "$R/opt/plain"
"$PKGNOTE" scan --fail-on-missing "$R" > table 2> err
STATUS=$?
if [ "$STATUS" = 0 ] && grep -q 'opt/plain (executable, x86-64; no package owns it)' table; then
        pass "--fail-on-missing: status 0 when only files no package owns lack a note"
else
        fail "--fail-on-missing: status 0 when only unowned files lack a note" "exit status $STATUS: $(cat err)"
fi
mkdir nodb && cp alpha nodb/ && cp "$R/opt/plain" nodb/
"$PKGNOTE" scan --fail-on-missing nodb > table 2> err
STATUS=$?
if [ "$STATUS" = 1 ] && grep -q "nodb/plain': no package note\$" err; then
        pass "--fail-on-missing without a database: every program counts"
else
        fail "--fail-on-missing without a database" "exit status $STATUS: $(cat err)"
fi
cp "$LIBSD" "$R/usr/bin/ls"

if with_feature archive "images and container stores: the database as their layers leave it"; then
# --- an image whose upper layer changes the database
L=$T/lower U=$T/upper
mkdir -p "$L" "$U/var/lib/dpkg/info"
cp -a "$R/." "$L/"
grep -v . /dev/null > "$U/var/lib/dpkg/info/.wh.coreutils.list"  # coreutils' list deleted
awk -v v="$SDV" '/^Package: /{p=$2} p=="libsystemd0" && /^Version: /{print "Version: 1.0-1"; next} {print}' \
        "$R/var/lib/dpkg/status" > "$U/var/lib/dpkg/status"  # libsystemd0 now claims to be 1.0-1
python3 "$H/images.py" oci img "$L" "$U" || fatal "cannot build the image"
scan oci:img
dbinv ""
expect_inv "/opt/alpha - n/a alpha@1.0-1
/opt/plain - n/a -
/usr/bin/dpkg deb:dpkg@$DPV/dpkg@$DPV True beta@2.0-1.fc40
/usr/bin/ls - n/a systemd@$SDV
$LIBSD deb:libsystemd0@1.0-1/systemd@1.0-1 True systemd@$SDV" \
        "an OCI image: the database as its layers leave it (a list whited out, the status file replaced)"

# The same image in podman's stores: the database read from the vfs
# layer's tree, and through the overlay layers' whiteouts.
IMG_INV=$(cat inv)
if command -v skopeo > /dev/null; then
        for d in vfs overlay; do
                if ! skopeo copy -q oci:img "containers-storage:[$d@$T/st-$d+$T/run-$d]localhost/db:1" > /dev/null 2> skopeo.err; then
                        if [ $d = overlay ]; then skip "the image in an overlay store" "skopeo cannot make one here: $(cat skopeo.err)"; continue; fi
                        fatal "skopeo cannot copy into a $d store: $(cat skopeo.err)"
                fi
                scan "containers-storage:[$d@$T/st-$d]localhost/db:1"
                dbinv ""
                expect_inv "$IMG_INV" "the image in the $d container store: the same owners as its layout"
        done
else
        missing "the image in container stores" skopeo
fi
fi

# --- SBOMs: objects without a note appear as their database package's
cp /usr/bin/ls "$R/usr/bin/dir"   # owned by coreutils, without a note
. /etc/os-release
"$PKGNOTE" scan --format cyclonedx -o root.cdx.json "$R" 2> err && "$PKGNOTE" scan --format spdx -o root.spdx.json "$R" 2>> err
STATUS=$?
SUM1=$(sha1sum < "$R/usr/bin/dir" | cut -d' ' -f1)
if [ "$STATUS" = 0 ] && python3 - "$CUV" "$ID" "$VERSION_ID" "$SUM1" > check.err 2>&1 <<'PY'
import json, sys
cuv, osid, osv, sum1 = sys.argv[1:]
purl = "pkg:deb/%s/coreutils@%s?arch=amd64&distro=%s-%s" % (osid, cuv.replace(":", "%3A").replace("+", "%2B"), osid, osv)
c = json.load(open("root.cdx.json"))
comp = [x for x in c["components"] if x["name"] == "coreutils"]
assert len(comp) == 1, c["components"]
comp = comp[0]
assert comp["version"] == cuv and comp["purl"] == purl, comp
# /usr/bin/ls carries systemd's note but is coreutils' file: evidence of
# coreutils flagged as a disagreement, and systemd's note a component of
# its own, marked as disagreeing with the database.
locs = sorted(o["location"] for o in comp["evidence"]["occurrences"])
assert len(locs) == 2 and locs[0].endswith("/usr/bin/dir") and locs[1].endswith("/usr/bin/ls"), locs
props = {p["name"]: p["value"] for p in comp["properties"]}
assert props["pkgnote:db:type"] == "deb" and props["pkgnote:db:name"] == "coreutils", props
assert props["pkgnote:dbMismatch"].endswith("/usr/bin/ls"), props
sd = [x for x in c["components"] if x["name"] == "systemd" and "pkgnote:note:name" in {p["name"] for p in x["properties"]}]
assert len(sd) == 1 and {p["name"]: p["value"] for p in sd[0]["properties"]}["pkgnote:database"] == "mismatch", sd
s = json.load(open("root.spdx.json"))
pk = [p for p in s["packages"] if p["name"] == "coreutils"]
assert len(pk) == 1 and pk[0]["versionInfo"] == cuv, pk
assert any(r["referenceLocator"] == purl for r in pk[0]["externalRefs"]), pk[0]
files = {f["SPDXID"]: f for f in s["files"]}
ev = [r for r in s["relationships"] if r["spdxElementId"] == pk[0]["SPDXID"] and r["relationshipType"] == "OTHER"]
dir_ev = [r for r in ev if files[r["relatedSpdxElement"]]["fileName"].endswith("/usr/bin/dir")]
ls_ev = [r for r in ev if files[r["relatedSpdxElement"]]["fileName"].endswith("/usr/bin/ls")]
assert len(ev) == 2 and len(dir_ev) == 1 and len(ls_ev) == 1 and "dbMismatch" in ls_ev[0]["comment"], ev
assert {x["algorithm"]: x["checksumValue"] for x in files[dir_ev[0]["relatedSpdxElement"]]["checksums"]}["SHA1"] == sum1
PY
then
        pass "SBOMs: a file without a note is attributed to the package the database names (purl, evidence, checksum)"
else
        fail "SBOMs: a file without a note is attributed to its database package" "exit status $STATUS: $(cat err check.err | tail -n 5)"
fi
validate_sboms "with database packages" root.spdx.json:spdx root.cdx.json:cyclonedx

# --- SBOMs: one distro qualifier per root.  A note of the root's own OS
# that names no version of it (Debian's carry no osVersion) gets the
# version of the root's os-release, as the database packages have it; a
# foreign binary stays its own component, marked as no package of the
# database; a note of another OS keeps its own; a disagreeing note is flagged.
G='{"type":"deb","os":"'"$ID"'","name":"gamma","version":"3.0-1","architecture":"amd64"}'
cc -o "$R/opt/gamma" -fuse-ld=bfd -Xlinker "--package-metadata=$G" main.c || fatal "cannot link gamma"
"$PKGNOTE" scan --format cyclonedx -o distro.cdx.json "$R" 2> err && "$PKGNOTE" scan --format spdx -o distro.spdx.json "$R" 2>> err
STATUS=$?
rm -f "$R/opt/gamma"
if [ "$STATUS" = 0 ] && python3 - "$ID" "$VERSION_ID" > check.err 2>&1 <<'PY2'
import json, sys
osid, osv = sys.argv[1:]
c = json.load(open("distro.cdx.json"))
comp = {x["name"]: x for x in c["components"]}
props = lambda x: {p["name"]: p["value"] for p in x.get("properties", [])}
g = comp["gamma"]
assert g["purl"] == "pkg:deb/%s/gamma@3.0-1?arch=amd64&distro=%s-%s" % (osid, osid, osv), g["purl"]
assert props(g)["pkgnote:database"] == "absent", props(g)
# every deb component of the root: one distro
distros = {x["purl"].split("distro=")[1].split("&")[0] for x in c["components"] if x.get("purl", "").startswith("pkg:deb/")}
assert distros == {"%s-%s" % (osid, osv)}, distros
b = comp["beta"]   # /usr/bin/dpkg replaced: its note names fedora 40
assert b["purl"] == "pkg:rpm/fedora/beta@2.0-1.fc40?arch=x86_64&distro=fedora-40", b["purl"]
assert props(b)["pkgnote:database"] == "mismatch", props(b)
dp = [x for x in c["components"] if x["name"] == "dpkg"]
assert len(dp) == 1 and props(dp[0])["pkgnote:dbMismatch"].endswith("/usr/bin/dpkg"), dp
s = json.load(open("distro.spdx.json"))
pk = {p["name"]: p for p in s["packages"]}
refs = [r["referenceLocator"] for r in pk["gamma"]["externalRefs"] if r["referenceType"] == "purl"]
assert refs == [g["purl"]], refs
assert "not a package of the root's package database" in pk["gamma"]["sourceInfo"], pk["gamma"]
assert "dbMismatch" in pk["beta"]["sourceInfo"], pk["beta"]
PY2
then
        pass "SBOMs: a note without osVersion gets the root's distro version; foreign and disagreeing notes marked"
else
        fail "SBOMs: a note without osVersion gets the root's distro version" "exit status $STATUS: $(cat err check.err | tail -n 5)"
fi

# --- SBOMs: a packaged binary that links a part with a note of its own.
# Its first note agrees with the database (dpkg's /usr/bin/dpkg), the
# part's note is a component the database package contains, not a
# disagreement with the database.
"$PKGNOTE" generate --no-os-release --type generic --name vendored --version 0.9 -F object -o vendored.o ||
        fatal "cannot generate vendored.o"
cp "$R/usr/bin/dpkg" dpkg.saved
cc -o "$R/usr/bin/dpkg" -fuse-ld=bfd \
        -Xlinker "--package-metadata={\"type\":\"deb\",\"os\":\"$ID\",\"name\":\"dpkg\",\"version\":\"$DPV\",\"architecture\":\"amd64\"}" \
        main.c vendored.o || fatal "cannot link the vendoring dpkg"
"$PKGNOTE" scan --format spdx -o vend.spdx.json "$R" 2> err && "$PKGNOTE" scan --format cyclonedx -o vend.cdx.json "$R" 2>> err &&
        "$PKGNOTE" scan --format json "$R" > vend.json 2>> err
STATUS=$?
cp dpkg.saved "$R/usr/bin/dpkg"
if [ "$STATUS" = 0 ] && python3 > check.err 2>&1 <<'PY2'
import json
objs = [json.loads(l) for l in open("vend.json")]
[o] = [o for o in objs if o.get("path", "").endswith("/usr/bin/dpkg")]
assert o["dbMismatch"] is False and [p["name"] for p in o["packages"]] == ["dpkg", "vendored"], o
s = json.load(open("vend.spdx.json"))
ids = {}
for p in s["packages"]:
    ids.setdefault(p["name"], []).append(p)
[dp] = [p for p in ids["dpkg"] if p["comment"].startswith("package database: ")]
[ve] = ids["vendored"]
assert "dbMismatch" not in ve["sourceInfo"], ve
rels = {(r["spdxElementId"], r["relationshipType"], r["relatedSpdxElement"]) for r in s["relationships"]}
assert (dp["SPDXID"], "CONTAINS", ve["SPDXID"]) in rels, [r for r in rels if r[1] == "CONTAINS"]
c = json.load(open("vend.cdx.json"))
[dc] = [x for x in c["components"] if x["name"] == "dpkg"]
props = lambda x: {p["name"]: p["value"] for p in x.get("properties", [])}
assert "pkgnote:dbMismatch" not in props(dc), props(dc)
[vc] = dc["components"]
assert vc["name"] == "vendored" and "pkgnote:database" not in props(vc), vc
PY2
then
        pass "SBOMs: a packaged binary's linked-in part is a component its database package contains, not a mismatch"
else
        fail "SBOMs: a packaged binary's linked-in part is a component its database package contains" "exit status $STATUS: $(cat err check.err | tail -n 5)"
fi

# --- SBOM dependencies: DT_NEEDED resolved within the root
N=$T/needroot
mkdir -p "$N/var/lib/dpkg" "$N/usr/bin"
cp -a /var/lib/dpkg/status /var/lib/dpkg/info "$N/var/lib/dpkg/"
cp /usr/bin/ls /usr/bin/systemctl "$N/usr/bin/"
for lib in libc.so.6 libselinux.so.1 libpcre2-8.so.0 libsystemd.so.0; do
        f=$(ls /usr/lib/x86_64-linux-gnu/$lib 2> /dev/null) || continue
        mkdir -p "$N/usr/lib/x86_64-linux-gnu"
        cp "$f" "$N/usr/lib/x86_64-linux-gnu/$lib"
done
# a 32-bit libc of the same name: never what a 64-bit program links
if [ -f /usr/i686-linux-gnu/lib/libc.so.6 ]; then
        mkdir -p "$N/usr/i686-linux-gnu/lib" && cp /usr/i686-linux-gnu/lib/libc.so.6 "$N/usr/i686-linux-gnu/lib/"
fi
# The edges as readelf and dpkg -S give them: PKG(X) -> PKG(LIB) for each
# DT_NEEDED LIB of X that the root holds, in the same class; the package
# of a file is its owner's (dpkg -S) when its note (readelf -n) names that
# package or its source or it has none, else its note's.
for f in $(find "$N/usr" -type f); do
        rel=${f#"$N"}
        c=$(od -An -tu1 -j4 -N1 "$f" | tr -d ' ')
        note=$(readelf -n "$f" 2> /dev/null | sed -n 's/.*Packaging Metadata: .*"name":"\([^"]*\)".*/\1/p' | head -n 1)
        # dpkg knows /lib/x/libc.so.6, not its merged-/usr alias
        owner=$( (dpkg -S "$rel" || dpkg -S "${rel#/usr}") 2> /dev/null | sed -n '1s/^\([^:, ]*\).*/\1/p')
        src=$( [ -n "$owner" ] && dpkg-query -W -f '${source:Package}' "$owner" 2> /dev/null)
        if [ -n "$owner" ] && { [ -z "$note" ] || [ "$note" = "$owner" ] || [ "$note" = "$src" ]; }; then pkg=$owner; else pkg=$note; fi
        echo "$rel $c $pkg"
done > owners
for f in $(find "$N/usr" -type f); do
        rel=${f#"$N"}
        readelf -d "$f" 2> /dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | while read -r lib; do
                echo "$rel $lib"
        done
done > needs
python3 - > want.edges <<'PY'
own = {}
cls = {}
for l in open("owners"):
    p, c, o = (l.split() + ["-"])[:3]
    own[p], cls[p] = (o or "-"), c
edges = set()
for l in open("needs"):
    x, lib = l.split()
    for p in own:
        if p.rsplit("/", 1)[1] == lib and cls[p] == cls[x] and own[p] != own[x] and own[x] not in ("-",) and own[p] != "-":
            edges.add((own[x], own[p]))
for a, b in sorted(edges):
    print(a, b)
PY
"$PKGNOTE" scan --format cyclonedx -o need.cdx.json "$N" 2> err && "$PKGNOTE" scan --format spdx -o need.spdx.json "$N" 2>> err
STATUS=$?
python3 - > got.cdx <<'PY'
import json
c = json.load(open("need.cdx.json"))
name = {x["bom-ref"]: x["name"] for x in c["components"]}
for d in c.get("dependencies", []):
    for t in d["dependsOn"]:
        print(name[d["ref"]], name[t])
PY
python3 - > got.spdx <<'PY'
import json
s = json.load(open("need.spdx.json"))
name = {x["SPDXID"]: x["name"] for x in s["packages"]}
for r in s["relationships"]:
    if r["relationshipType"] == "DEPENDS_ON" and r.get("comment", "").startswith("DT_NEEDED "):
        print(name[r["spdxElementId"]], name[r["relatedSpdxElement"]])
PY
sort -u got.cdx -o got.cdx
sort -u got.spdx -o got.spdx
if [ "$STATUS" = 0 ] && [ -s want.edges ] && diff -u want.edges got.cdx > diff.txt && diff -u want.edges got.spdx >> diff.txt; then
        pass "SBOMs: DT_NEEDED edges between packages, resolved in the root, as readelf -d and dpkg -S give them ($(wc -l < want.edges) edges)"
else
        fail "SBOMs: DT_NEEDED edges between packages" "exit status $STATUS: $(cat err)"; sed 's/^/# /' diff.txt
fi
if ! [ -f "$N/usr/i686-linux-gnu/lib/libc.so.6" ]; then
        missing "a 32-bit library of the same name is no 64-bit program's dependency" libc6-i386-cross
elif grep -q 'libc6-i386' got.cdx got.spdx; then
        fail "a 32-bit library of the same name is no 64-bit program's dependency"
else
        pass "a 32-bit library of the same name is no 64-bit program's dependency"
fi
validate_sboms "with DT_NEEDED dependencies" need.spdx.json:spdx need.cdx.json:cyclonedx

# --- rpm databases
if command -v rpm > /dev/null && command -v rpmbuild > /dev/null; then
        M='{"type":"rpm","os":"fedora","osVersion":"40","name":"hello","version":"1.2-3.fc40","architecture":"x86_64"}'
        cc -o hello -fuse-ld=bfd -Xlinker "--package-metadata=$M" main.c || fatal "cannot link hello"
        cc -shared -fPIC -o libhello.so.1 main.c || fatal "cannot link libhello"
        mkdir -p rpm/SPECS
        cat > rpm/SPECS/hello.spec <<EOF
Name: hello
Version: 1.2
Release: 3.fc40
Epoch: 2
Summary: test
License: MIT
%description
test
%install
mkdir -p %{buildroot}/usr/bin %{buildroot}/usr/lib64
cp $T/hello %{buildroot}/usr/bin/hello
cp $T/libhello.so.1 %{buildroot}/usr/lib64/libhello.so.1
%files
/usr/bin/hello
/usr/lib64/libhello.so.1
EOF
        if rpmbuild -bb --define "_topdir $T/rpm" --define "__strip /bin/true" --define "debug_package %{nil}" \
                --define "_build_id_links none" rpm/SPECS/hello.spec > rpmbuild.log 2>&1; then
                RPMF=$(ls rpm/RPMS/*/hello-*.rpm)
                for place in var/lib/rpm usr/lib/sysimage/rpm; do
                        F=$T/f-$(echo $place | tr / _)
                        mkdir -p "$F/usr/bin" "$F/usr/lib64"
                        rpm --root "$F" --dbpath "/$place" --initdb &&
                                rpm --root "$F" --dbpath "/$place" -i --nodeps --justdb --ignorearch --ignoreos "$RPMF" > rpm.log 2>&1 ||
                                { fail "rpm -i --justdb into /$place" "$(cat rpm.log)"; continue; }
                        if [ "$place" = usr/lib/sysimage/rpm ]; then
                                mkdir -p "$F/var/lib" && ln -s ../../usr/lib/sysimage/rpm "$F/var/lib/rpm"
                        fi
                        cp hello "$F/usr/bin/hello"
                        cp libhello.so.1 "$F/usr/lib64/libhello.so.1"
                        cp beta "$F/usr/bin/beta"
                        owner=$(rpm --root "$F" --dbpath "/$place" -qf --qf '%{NAME}@%{EPOCH}:%{VERSION}-%{RELEASE}' /usr/bin/hello)
                        scan "$F"
                        dbinv "$F"
                        expect_inv "/usr/bin/beta - n/a beta@2.0-1.fc40
/usr/bin/hello rpm:hello@2:1.2-3.fc40/hello@1.2-3.fc40 False hello@1.2-3.fc40
/usr/lib64/libhello.so.1 rpm:hello@2:1.2-3.fc40/hello@1.2-3.fc40 n/a -" \
                                "an rpm database in /$place (rpmdb.sqlite, read without rpm): owners, epoch, source rpm"
                        if [ "$owner" = "hello@2:1.2-3.fc40" ]; then pass "rpm -qf agrees (/$place)"; else
                                fail "rpm -qf agrees (/$place)" "rpm says $owner"; fi
                        with_feature archive "the same rpm root as a tar (/$place)" || continue
                        tar -C "$F" -cf rpmroot.tar .
                        scan rpmroot.tar
                        dbinv ""
                        expect_inv "/usr/bin/beta - n/a beta@2.0-1.fc40
/usr/bin/hello rpm:hello@2:1.2-3.fc40/hello@1.2-3.fc40 False hello@1.2-3.fc40
/usr/lib64/libhello.so.1 rpm:hello@2:1.2-3.fc40/hello@1.2-3.fc40 n/a -" \
                                "the same rpm root as a tar (/$place)"
                done
                # Damaged databases: named as problems, the scan goes on.
                D=$T/damaged
                cp -a "$T/f-var_lib_rpm" "$D"
                head -c 8192 "$T/f-var_lib_rpm/var/lib/rpm/rpmdb.sqlite" > "$D/var/lib/rpm/rpmdb.sqlite"
                scan "$D"
                if [ "$STATUS" = 1 ] && grep -q 'var/lib/rpm/rpmdb.sqlite' err && grep -q '"path":"[^"]*/usr/bin/hello"' out; then
                        pass "a truncated rpm database: a problem named, the objects still reported"
                else
                        fail "a truncated rpm database: a problem named" "exit status $STATUS: $(head -c 400 err)"
                fi
                python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read())
for i in range(4096, len(d), 7): d[i] ^= 0x5a
open(sys.argv[1], "wb").write(d)' "$D/var/lib/rpm/rpmdb.sqlite"
                cp "$T/f-var_lib_rpm/var/lib/rpm/rpmdb.sqlite" "$D/var/lib/rpm/rpmdb.sqlite.orig"
                scan "$D"
                if [ "$STATUS" -le 1 ] && grep -q '"path":"[^"]*/usr/bin/hello"' out; then
                        pass "a scrambled rpm database: no crash, the objects still reported"
                else
                        fail "a scrambled rpm database" "exit status $STATUS: $(head -c 400 err)"
                fi
        else
                fail "rpmbuild of the test package" "$(tail -n 5 rpmbuild.log)"
        fi
else
        missing "rpm databases" rpm
fi

# Hostile rpm databases, read without rpm: SQLite runs the SQL of the
# schema, so a Packages view over a recursive query that never ends would
# keep the scan at full CPU for ever; a table of more rows than
# PKGNOTE_MAX_DB_PACKAGES is refused.  Each is named as a problem and the
# rest of the scan is reported; timeout guards against a hang (a scan that
# ends at all ends in well under a second here).
hostile_rpmdb() { # REF MESSAGE NAME
        timeout 60 "$PKGNOTE" scan --format json "$1" > out 2> err
        STATUS=$?
        if [ "$STATUS" = 1 ] && grep -qF "rpmdb.sqlite': $2" err && grep -q '"path":"[^"]*/usr/bin/alpha"' out; then
                pass "$3"
        else
                fail "$3" "exit status $STATUS (124: killed by timeout): $(head -c 400 err)"
        fi
}
HR=$T/hostile-rpm
mkdir -p "$HR/usr/lib/sysimage/rpm" "$HR/usr/bin"
cp alpha "$HR/usr/bin/alpha"
python3 "$H/hostile-rpmdb.py" view "$HR/usr/lib/sysimage/rpm/rpmdb.sqlite" || fatal "hostile-rpmdb.py view"
VIEW_MSG="not an rpm database: Packages is a view or a virtual table, not a plain table, ignoring"
hostile_rpmdb "$HR" "$VIEW_MSG" "rpm database whose Packages is a view over an endless recursive query, in a tree: refused, the scan ends"
if with_feature archive "the same database in a tar archive: refused, the scan ends"; then
        tar -C "$HR" -cf hostile-rpm.tar .
        hostile_rpmdb hostile-rpm.tar "$VIEW_MSG" "the same database in a tar archive: refused, the scan ends"
fi
MAXPKG=$(python3 -c 'import re, sys
m = re.search(r"#define PKGNOTE_MAX_DB_PACKAGES \(1u << (\d+)\)", open(sys.argv[1]).read())
print(1 << int(m.group(1)))' "$SRCDIR/include/pkgnote.h") || fatal "PKGNOTE_MAX_DB_PACKAGES not found in pkgnote.h"
python3 "$H/hostile-rpmdb.py" rows $((MAXPKG + 1)) "$HR/usr/lib/sysimage/rpm/rpmdb.sqlite" || fatal "hostile-rpmdb.py rows"
hostile_rpmdb "$HR" "the rpm database has more than $MAXPKG packages (PKGNOTE_MAX_DB_PACKAGES), not read, ignoring" \
        "rpm database of PKGNOTE_MAX_DB_PACKAGES + 1 rows: refused, the scan ends"
python3 "$H/hostile-rpmdb.py" rows "$MAXPKG" "$HR/usr/lib/sysimage/rpm/rpmdb.sqlite" || fatal "hostile-rpmdb.py rows"
hostile_rpmdb "$HR" "$MAXPKG packages of the rpm database are not readable headers, left out, ignoring" \
        "rpm database of exactly PKGNOTE_MAX_DB_PACKAGES rows: read to the end"

# A status file that is not one: no packages, every object unowned.
G=$T/garbage
mkdir -p "$G/var/lib/dpkg" "$G/usr/bin"
head -c 20000 /dev/urandom > "$G/var/lib/dpkg/status"
cp alpha "$G/usr/bin/alpha"
scan "$G"
dbinv "$G"
expect_inv "/usr/bin/alpha - n/a alpha@1.0-1" "a dpkg status file of random bytes: no owner, no crash"

finish
