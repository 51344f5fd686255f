#!/bin/sh
# pkgnote scan: a synthetic root filesystem as a directory, a compressed
# tar, a two-layer "docker save" archive and an OCI layout (directory and
# tar) with whiteouts; unreadable files; SPDX and CycloneDX checked against
# the official schemas; and this machine's /usr against readelf -n.
. "$SRCDIR/tests/lib.sh"
# Archives and images are read with libarchive; trees without it are
# checked by cmd-features.
require_feature archive
chmod 755 "$T" # the unreadable-file case runs as nobody
H="$SRCDIR/tests/scan"

# ---- fixtures: three packages, objects with and without notes ----
cat > main.c <<'C'
int main(void) { return 0; }
C
cat > lib.c <<'C'
int lib(void) { return 1; }
C
# dlopen_note FILE JSON: an assembler file of a dlopen note (type
# 0x407c0c0a) holding JSON (its quotes escaped), as systemd's
# ELF_NOTE_DLOPEN makes it.
dlopen_note() {
        printf '%s\n' '        .section .note.dlopen,"a"' '        .balign 4' '        .long 4' '        .long 2f - 1f' \
                '        .long 0x407c0c0a' '        .asciz "FDO"' "1:      .asciz \"$2\"" '2:      .balign 4' \
                '        .section .note.GNU-stack,"",@progbits' > "$1"
}
dlopen_note dlopen.s '[{\"feature\":\"zstd\",\"description\":\"compression\",\"priority\":\"recommended\",\"soname\":[\"libzstd.so.1\"]}]'
A='{"type":"deb","os":"debian","osVersion":"12","name":"alpha","version":"1.0-1","architecture":"amd64","appCpe":"cpe:2.3:a:example:alpha:1.0:*:*:*:*:*:*:*"}'
B='{"type":"rpm","os":"fedora","osVersion":"40","name":"beta","version":"2:2.0-1.fc40","architecture":"x86_64","osCpe":"cpe:2.3:o:fedoraproject:fedora:40"}'
G='{"type":"apk","os":"alpine","osVersion":"3.19","name":"libgamma++","version":"3.1-r0","architecture":"x86_64"}'
link() { # OUT JSON [ARGS...]
        out=$1 json=$2
        shift 2
        cc -o "$out" -fuse-ld=bfd -Xlinker "--package-metadata=$json" "$@" || fatal "cannot link $out"
}
R=rootfs
mkdir -p $R/usr/bin $R/usr/sbin $R/usr/lib $R/etc $R/run $R/dev $R/usr/share/doc $R/private
link $R/usr/bin/alpha "$A" main.c
link $R/usr/lib/libalpha.so.1 "$A" -shared -fPIC lib.c dlopen.s
link $R/usr/bin/beta "$B" main.c
link $R/usr/sbin/beta-helper "$B" main.c
link $R/usr/bin/gamma "$G" main.c
cc -o $R/usr/bin/plain main.c || fatal "cannot link plain"
cc -o $R/usr/lib/plain.so -shared -fPIC lib.c || fatal "cannot link plain.so"
# Two package notes: the linker's and one from a linked-in object.
"$PKGNOTE" generate --no-os-release --type deb --os debian --name delta --version 4.0 -F object -o delta.o ||
        fatal "cannot generate the object"
link $R/usr/bin/twonotes "$A" main.c delta.o
# A relocatable object: its note is in a section only, no PT_NOTE.
cp delta.o $R/usr/lib/delta.o
# Stripped section headers: found through PT_NOTE only.
cp $R/usr/bin/alpha $R/usr/bin/stripped
python3 - $R/usr/bin/stripped <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(0x28); f.write(struct.pack("<Q", 0))
    f.seek(0x3c); f.write(struct.pack("<HH", 0, 0))
PY
cp $R/usr/bin/alpha $R/private/secret-alpha
printf 'ID=debian\n' > $R/etc/os-release
printf 'hello\n' > $R/usr/share/doc/readme
: > $R/usr/share/doc/empty
printf '\177EL' > $R/usr/share/doc/almost-elf
ln -s loop2 $R/loop1
ln -s loop1 $R/loop2
ln -s . $R/usr/lib/self
ln -s alpha $R/usr/bin/alpha-link
ln -s /usr/bin/alpha $R/usr/bin/abs-link
mkfifo $R/run/fifo || fatal "mkfifo"
if mknod $R/dev/null2 c 1 3 2>/dev/null; then devices=1; else devices=0; fi
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' $R/run/sock || fatal "socket"
specials=$((2 + devices))

EXPECTED_OBJECTS='/private/secret-alpha executable alpha@1.0-1
/usr/bin/alpha executable alpha@1.0-1
/usr/bin/beta executable beta@2:2.0-1.fc40
/usr/bin/gamma executable libgamma++@3.1-r0
/usr/bin/plain executable -
/usr/bin/stripped executable alpha@1.0-1
/usr/bin/twonotes executable alpha@1.0-1 delta@4.0
/usr/lib/delta.o relocatable delta@4.0
/usr/lib/libalpha.so.1 shared-object alpha@1.0-1 dlopen
/usr/lib/plain.so shared-object -
/usr/sbin/beta-helper executable beta@2:2.0-1.fc40'

# ---- the directory ----
run scan --format json $R
expect_status 0 "directory scan exits 0"
python3 "$H/inventory.py" "$R" objects withNote withoutNote packages symlinks special unreadable < out > inv
printf '%s\nobjects=11\nwithNote=9\nwithoutNote=2\npackages=4\nsymlinks=5\nspecial=%s\nunreadable=0\n' \
        "$EXPECTED_OBJECTS" "$specials" > want
if diff -u want inv > diff.txt; then pass "directory: exact inventory"; else fail "directory: exact inventory"; sed 's/^/# /' diff.txt; fi

run scan $R
expect_status 0 "table output exits 0"
sed -n '1,/^$/p' out > pkgs
cat > want <<'EOF'
TYPE  OS      NAME        VERSION       ARCHITECTURE  OBJECTS
apk   alpine  libgamma++  3.1-r0        x86_64              1
deb   debian  alpha       1.0-1         amd64               5
deb   debian  delta       4.0           -                   2
rpm   fedora  beta        2:2.0-1.fc40  x86_64              2

EOF
if diff -u want pkgs > diff.txt; then pass "table: packages"; else fail "table: packages"; sed 's/^/# /' diff.txt; fi
grep -q '^Objects without a package note (2):$' out && grep -q '^  rootfs/usr/lib/plain.so (shared object, x86-64)$' out &&
        pass "table: objects without a note" || fail "table: objects without a note"
grep -q '^  ELF objects           11$' out && pass "table: totals" || fail "table: totals"

run scan --format json $R/usr/bin/alpha
expect_status 0 "a single file"
python3 "$H/inventory.py" < out | head -n 1 > inv
expect_out_file() { if [ "$(cat inv)" = "$1" ]; then pass "$2"; else fail "$2" "got '$(cat inv)'"; fi; }
expect_out_file "rootfs/usr/bin/alpha executable alpha@1.0-1" "single file: its object"

# A symlink named on the command line is followed (as find -H does) and
# reported under its own name; links inside what it leads to are not.
ln -s $R rootlink
ln -s $R/usr/bin/alpha alpha-link
run scan --format json rootlink
expect_status 0 "a symlink PATH to a directory is followed"
python3 "$H/inventory.py" "rootlink" objects symlinks < out > inv
"$PKGNOTE" scan --format json $R 2>/dev/null | python3 "$H/inventory.py" "$R" objects symlinks > want
if diff -u want inv > diff.txt; then pass "symlink PATH: the tree it names, links inside not followed"; else
        fail "symlink PATH: the tree it names, links inside not followed"; sed 's/^/# /' diff.txt; fi
grep -q '"path":"rootlink/usr/bin/alpha"' out && pass "symlink PATH: reported under the name given" ||
        fail "symlink PATH: reported under the name given"
run scan --format json alpha-link
expect_status 0 "a symlink PATH to a file is followed"
grep -q '"path":"alpha-link",.*"name":"alpha"' out && pass "symlink PATH to a file: its object" ||
        fail "symlink PATH to a file: its object"
run scan $R/loop1
expect_status 2 "a symlink loop as PATH fails"
expect_err "Too many levels of symbolic links" "says why"

# A tree deeper than the descriptors the process may open: the walk
# closes and reopens directories instead of losing what lies below.
# Every level holds a subdirectory with a program and the next level.
d=deep
i=0
while [ $i -lt 300 ]; do
        mkdir -p $d/x && cp $R/usr/bin/alpha $d/x/prog && d=$d/y || fatal "cannot build the deep tree"
        i=$((i + 1))
done
(ulimit -n 24 && exec "$PKGNOTE" scan --format json deep) > out 2> err
STATUS=$?
expect_status 0 "300 levels under ulimit -n 24: exit 0"
python3 "$H/inventory.py" deep objects unreadable < out | tail -n 2 > inv
expect_out_file "$(printf 'objects=300\nunreadable=0')" "300 levels under ulimit -n 24: every object found"

# Deterministic whatever the thread count.
"$PKGNOTE" scan --format json -j 1 $R > one 2>/dev/null
"$PKGNOTE" scan --format json -j 7 $R > seven 2>/dev/null
cmp -s one seven && pass "output independent of the number of threads" || fail "output independent of the number of threads"

# Unreadable files and directories, as a user who cannot read them.
chmod 000 $R/private
if command -v setpriv > /dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
        setpriv --reuid=65534 --regid=65534 --clear-groups "$PKGNOTE" scan --format json $R > out 2> err
        STATUS=$?
        expect_status 1 "unreadable directory: exit 1, the scan goes on"
        expect_err "pkgnote: 'rootfs/private': cannot open directory: Permission denied, ignoring" "unreadable directory named"
        python3 "$H/inventory.py" "$R" objects unreadable < out | tail -n 2 > inv
        expect_out_file "$(printf 'objects=10\nunreadable=1')" "unreadable directory counted, the rest scanned"
        chmod 755 $R/private
        chmod 000 $R/private/secret-alpha
        setpriv --reuid=65534 --regid=65534 --clear-groups "$PKGNOTE" scan --format json $R > out 2> err
        expect_err "pkgnote: 'rootfs/private/secret-alpha': cannot open: Permission denied, ignoring" "unreadable file named"
        python3 "$H/inventory.py" "$R" objects unreadable < out | tail -n 2 > inv
        expect_out_file "$(printf 'objects=10\nunreadable=1')" "unreadable file counted"
        chmod 644 $R/private/secret-alpha
else
        skip "unreadable files and directories" "cannot switch to an unprivileged user (root reads everything)"
fi
chmod 755 $R/private

# ---- a compressed tar of the same tree ----
tar -C $R --exclude=./run/sock -czf rootfs.tar.gz . || fatal "tar"
run scan --format json rootfs.tar.gz
expect_status 0 "compressed tar scan exits 0"
python3 "$H/inventory.py" "" objects withNote packages symlinks special unreadable < out > inv
printf '%s\nobjects=11\nwithNote=9\npackages=4\nsymlinks=5\nspecial=%s\nunreadable=0\n' \
        "$EXPECTED_OBJECTS" $((specials - 1)) > want
if diff -u want inv > diff.txt; then pass "tar.gz: same inventory as the directory"; else fail "tar.gz: same inventory as the directory"; sed 's/^/# /' diff.txt; fi
"$PKGNOTE" scan --format json $R | python3 -c '
import json, sys
for l in sys.stdin:
    d = json.loads(l)
    if "path" in d: print(d["path"][len("rootfs"):], d["buildId"], d["packages"], d["dlopen"])' > dir.notes
python3 -c '
import json, sys
for l in open("out"):
    d = json.loads(l)
    if "path" in d: print(d["path"], d["buildId"], d["packages"], d["dlopen"])' > tar.notes
cmp -s dir.notes tar.notes && pass "tar.gz: build-ids and notes equal the directory's" || fail "tar.gz: build-ids and notes equal the directory's"

# ---- a two-layer docker save archive with whiteouts ----
# The upper layer deletes /usr/bin/gamma, makes /usr/sbin opaque (beta-helper
# goes, new-helper comes) and replaces /usr/bin/plain with a noted binary.
U=upper
mkdir -p $U/usr/bin $U/usr/sbin
: > $U/usr/bin/.wh.gamma
: > $U/usr/sbin/.wh..wh..opq
cp $R/usr/bin/plain $U/usr/sbin/new-helper
cp $R/usr/bin/beta $U/usr/bin/plain
rm -f $R/run/sock
EXPECTED_IMAGE='/private/secret-alpha executable alpha@1.0-1
/usr/bin/alpha executable alpha@1.0-1
/usr/bin/beta executable beta@2:2.0-1.fc40
/usr/bin/plain executable beta@2:2.0-1.fc40
/usr/bin/stripped executable alpha@1.0-1
/usr/bin/twonotes executable alpha@1.0-1 delta@4.0
/usr/lib/delta.o relocatable delta@4.0
/usr/lib/libalpha.so.1 shared-object alpha@1.0-1 dlopen
/usr/lib/plain.so shared-object -
/usr/sbin/new-helper executable -
objects=10
packages=3
whitedOut=2'
python3 "$H/images.py" docker docker.tar $R $U || fatal "cannot build the docker archive"
run scan --format json docker.tar
expect_status 0 "docker save archive scan exits 0"
python3 "$H/inventory.py" "" objects packages whitedOut < out > inv
printf '%s\n' "$EXPECTED_IMAGE" > want
if diff -u want inv > diff.txt; then pass "docker save: merged view, whiteouts honoured"; else fail "docker save: merged view, whiteouts honoured"; sed 's/^/# /' diff.txt; fi
grep -q '"path":"/usr/bin/gamma"' out && fail "docker save: whited-out binary not listed" || pass "docker save: whited-out binary not listed"
cat docker.tar | "$PKGNOTE" scan --format json - > out2 2>&1
python3 "$H/inventory.py" "" objects packages whitedOut < out2 > inv
if diff -u want inv > diff.txt; then pass "docker save from a pipe"; else fail "docker save from a pipe"; sed 's/^/# /' diff.txt; fi

# ---- OCI layout, directory and tar ----
python3 "$H/images.py" oci oci $R $U || fatal "cannot build the OCI layout"
run scan --format json oci
expect_status 0 "OCI layout directory scan exits 0"
python3 "$H/inventory.py" "" objects packages whitedOut < out > inv
if diff -u want inv > diff.txt; then pass "OCI layout: merged view, whiteouts honoured"; else fail "OCI layout: merged view, whiteouts honoured"; sed 's/^/# /' diff.txt; fi
tar -C oci -cf oci.tar . || fatal "tar"
run scan --format json oci.tar
python3 "$H/inventory.py" "" objects packages whitedOut < out > inv
if diff -u want inv > diff.txt; then pass "OCI layout tar: merged view"; else fail "OCI layout tar: merged view"; sed 's/^/# /' diff.txt; fi

# An opaque whiteout at a layer's root hides every lower file: the merged
# image holds only what the upper layer brings (once the empty directory
# name of the root matched nothing, and removed files were listed).
U2=upper-opaque-root
mkdir -p $U2/usr/bin
: > $U2/.wh..wh..opq
cp $R/usr/bin/beta $U2/usr/bin/only
python3 "$H/images.py" docker opaque-root.tar $R $U2 || fatal "cannot build the docker archive"
python3 "$H/images.py" oci opaque-root $R $U2 || fatal "cannot build the OCI layout"
for img in opaque-root.tar opaque-root; do
        run scan --format json $img
        python3 "$H/inventory.py" "" objects packages < out > inv
        printf '/usr/bin/only executable beta@2:2.0-1.fc40\nobjects=1\npackages=1\n' > want
        if diff -u want inv > diff.txt; then pass "opaque whiteout at the root: $img"; else fail "opaque whiteout at the root: $img"; sed 's/^/# /' diff.txt; fi
done
"$PKGNOTE" scan --format spdx opaque-root.tar > opq.spdx.json 2>/dev/null
grep -q '"alpha"' opq.spdx.json && fail "opaque whiteout at the root: removed packages stay out of the SBOM" ||
        pass "opaque whiteout at the root: removed packages stay out of the SBOM"

# Hostile member names never escape: ".." is refused, "/" and "./" stripped.
python3 - <<'PY'
import io, tarfile
with tarfile.open("evil.tar", "w") as t:
    for name in ("../../etc/evil", "/abs/x", "./a/./b//c", "a/../../x"):
        data = b"x"
        i = tarfile.TarInfo(name); i.size = len(data); t.addfile(i, io.BytesIO(data))
    with open("rootfs/usr/bin/alpha", "rb") as f:
        data = f.read()
    i = tarfile.TarInfo("/./usr//bin/../alpha-escape"); i.size = len(data); t.addfile(i, io.BytesIO(data))
    i = tarfile.TarInfo("ok/alpha"); i.size = len(data); t.addfile(i, io.BytesIO(data))
PY
run scan --format json evil.tar
expect_status 1 "hostile names: exit 1"
expect_err "'../../etc/evil': unsafe member name, skipped" "'..' refused"
python3 "$H/inventory.py" "" files unreadable < out > inv
expect_out_file "$(printf '/ok/alpha executable alpha@1.0-1\nfiles=3\nunreadable=3')" "hostile names: normalised paths"

# ---- SBOMs ----
run scan --format spdx -o doc.spdx.json $R
expect_status 0 "SPDX exits 0"
SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format spdx $R > s1.json 2>/dev/null
SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format spdx -j 1 $R > s2.json 2>/dev/null
cmp -s s1.json s2.json && pass "SPDX: reproducible with SOURCE_DATE_EPOCH" || fail "SPDX: reproducible with SOURCE_DATE_EPOCH"
"$PKGNOTE" scan --format spdx $R > s3.json 2>/dev/null
python3 - <<'PY' && pass "SPDX: only creation time and namespace vary" || fail "SPDX: only creation time and namespace vary"
import json
a, b = json.load(open("s1.json")), json.load(open("doc.spdx.json"))
assert a["creationInfo"]["created"] == "2023-11-14T22:13:20Z", a["creationInfo"]
for d in (a, b):
    del d["creationInfo"]["created"], d["documentNamespace"]
assert a == b
PY
python3 - <<'PY' && pass "SPDX: packages, purls, CPEs, files" || fail "SPDX: packages, purls, CPEs, files"
import json
d = json.load(open("s1.json"))
pk = {p["name"]: p for p in d["packages"]}
# libzstd.so.1: what libalpha.so.1's dlopen note recommends.
assert sorted(pk) == ["alpha", "beta", "delta", "libgamma++", "libzstd.so.1"], sorted(pk)
assert {(r["spdxElementId"], r["relationshipType"], r["relatedSpdxElement"]) for r in d["relationships"]
        if r["spdxElementId"] == pk["libzstd.so.1"]["SPDXID"]} == {(pk["libzstd.so.1"]["SPDXID"], "OPTIONAL_DEPENDENCY_OF", pk["alpha"]["SPDXID"])}
refs = lambda p: {(r["referenceType"], r["referenceLocator"]) for r in p.get("externalRefs", [])}
assert refs(pk["alpha"]) == {("purl", "pkg:deb/debian/alpha@1.0-1?arch=amd64&distro=debian-12"),
                             ("cpe23Type", "cpe:2.3:a:example:alpha:1.0:*:*:*:*:*:*:*")}, refs(pk["alpha"])
assert refs(pk["beta"]) == {("purl", "pkg:rpm/fedora/beta@2.0-1.fc40?arch=x86_64&distro=fedora-40&epoch=2"),
                            ("cpe23Type", "cpe:2.3:o:fedoraproject:fedora:40:*:*:*:*:*:*:*")}, refs(pk["beta"])
assert refs(pk["libgamma++"]) == {("purl", "pkg:apk/alpine/libgamma%2B%2B@3.1-r0?arch=x86_64&distro=alpine-3.19")}
assert refs(pk["delta"]) == {("purl", "pkg:deb/debian/delta@4.0?distro=debian")}, refs(pk["delta"])
files = {f["SPDXID"]: f["fileName"] for f in d["files"]}
ev = sorted(files[r["relatedSpdxElement"]] for r in d["relationships"]
            if r["spdxElementId"] == pk["alpha"]["SPDXID"] and r["relationshipType"] == "OTHER")
assert ev == ["./rootfs/private/secret-alpha", "./rootfs/usr/bin/alpha", "./rootfs/usr/bin/stripped",
              "./rootfs/usr/bin/twonotes", "./rootfs/usr/lib/libalpha.so.1"], ev
for f in d["files"]:
    assert [c["algorithm"] for c in f["checksums"]] == ["SHA1", "SHA256"]
PY
sha=$(sha256sum $R/usr/bin/beta | cut -d' ' -f1)
grep -q "$sha" s1.json && pass "SPDX: SHA-256 matches sha256sum" || fail "SPDX: SHA-256 matches sha256sum"
sha=$(sha1sum $R/usr/lib/delta.o | cut -d' ' -f1)
grep -q "$sha" s1.json && pass "SPDX: SHA-1 matches sha1sum" || fail "SPDX: SHA-1 matches sha1sum"
SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format spdx docker.tar > sd.json 2>/dev/null
grep -q "$(sha256sum $R/usr/bin/beta | cut -d' ' -f1)" sd.json && pass "SPDX of an image: member checksums" ||
        fail "SPDX of an image: member checksums"

run scan --format cyclonedx -o doc.cdx.json docker.tar
expect_status 0 "CycloneDX exits 0"
python3 - <<'PY' && pass "CycloneDX: components, purls, evidence" || fail "CycloneDX: components, purls, evidence"
import json
d = json.load(open("doc.cdx.json"))
# The image is a container component holding its packages.
[img] = d["components"]
assert img["type"] == "container" and img["name"] == "docker-archive:docker.tar:test:latest", img
assert img["version"].startswith("sha256:"), img
c = {x["name"]: x for x in img["components"]}
assert sorted(c) == ["alpha", "beta", "delta", "libzstd.so.1"], sorted(c)
assert c["alpha"]["bom-ref"].startswith("pkgnote-image-1-package-"), c["alpha"]
assert c["libzstd.so.1"]["scope"] == "optional"
# alpha's twonotes links delta.o in: a part it contains (delta.o is also
# an object of its own, so delta stays a component of the image).
assert d["dependencies"] == [{"ref": c["alpha"]["bom-ref"], "dependsOn": sorted([c["delta"]["bom-ref"], c["libzstd.so.1"]["bom-ref"]])}], d["dependencies"]
assert c["beta"]["purl"] == "pkg:rpm/fedora/beta@2.0-1.fc40?arch=x86_64&distro=fedora-40&epoch=2"
assert c["beta"]["cpe"] == "cpe:2.3:o:fedoraproject:fedora:40:*:*:*:*:*:*:*"
assert [o["location"] for o in c["beta"]["evidence"]["occurrences"]] == ["/usr/bin/beta", "/usr/bin/plain"]
PY

# ---- CycloneDX versions: 1.6 by default, 1.5 on request ----
v16=$("$PKGNOTE" scan --format cyclonedx $R 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["specVersion"])')
v15=$("$PKGNOTE" scan --format cyclonedx --cyclonedx-version 1.5 $R 2>/dev/null | python3 -c 'import json, sys; print(json.load(sys.stdin)["specVersion"])')
[ "$v16/$v15" = "1.6/1.5" ] && pass "CycloneDX 1.6 by default, 1.5 with --cyclonedx-version 1.5" ||
        fail "CycloneDX 1.6 by default, 1.5 with --cyclonedx-version 1.5" "got $v16/$v15"
run scan --format cyclonedx --cyclonedx-version 1.4 $R
[ "$STATUS" = 2 ] && grep -q "unknown CycloneDX version '1.4'" err && pass "--cyclonedx-version refuses 1.4" ||
        fail "--cyclonedx-version refuses 1.4" "exit status $STATUS: $(cat err)"
SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format cyclonedx --cyclonedx-version 1.7 $R > r17.cdx.json 2>/dev/null
SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format cyclonedx --cyclonedx-version 1.6 $R > r16.cdx.json 2>/dev/null
python3 - <<'PY' && pass "CycloneDX 1.7 with --cyclonedx-version 1.7: the 1.6 document's content" || fail "CycloneDX 1.7 with --cyclonedx-version 1.7: the 1.6 document's content"
import json
a, b = json.load(open("r17.cdx.json")), json.load(open("r16.cdx.json"))
assert a["specVersion"] == "1.7", a["specVersion"]
assert len(a["components"]) > 3, a["components"]
for d in a, b:
    del d["specVersion"], d["serialNumber"]
assert a == b
PY
run scan --format spdx4 $R
[ "$STATUS" = 2 ] && grep -q "unknown format 'spdx4' (table, json, spdx, spdx3, cyclonedx)" err && pass "--format refuses spdx4, naming spdx3" ||
        fail "--format refuses spdx4, naming spdx3" "exit status $STATUS: $(cat err)"

# ---- a static binary with three package notes: one component each ----
# The first note is the binary's own package; the parts linked in are
# components it contains (SPDX CONTAINS; CycloneDX nested components).
mkdir -p static-root/usr/bin
for n in one two three; do
        "$PKGNOTE" generate --no-os-release --type generic --name "part-$n" --version "1.$n" -F object -o "part-$n.o" ||
                fatal "cannot generate part-$n.o"
done
if cc -static -o static-root/usr/bin/static3 main.c part-one.o part-two.o part-three.o 2> static.err; then
        "$PKGNOTE" scan --format json static-root > st.json 2>/dev/null
        "$PKGNOTE" scan --format spdx static-root > st.spdx.json 2>/dev/null
        "$PKGNOTE" scan --format cyclonedx static-root > st.cdx.json 2>/dev/null
        python3 - <<'PY2' && pass "static binary with three notes: three components, two contained parts" || fail "static binary with three notes: three components, two contained parts"
import json
objs = [json.loads(l) for l in open("st.json")]
assert [p["name"] for p in objs[0]["packages"]] == ["part-one", "part-two", "part-three"], objs[0]
assert objs[-1]["summary"]["packages"] == 3, objs[-1]
d = json.load(open("st.spdx.json"))
ids = {p["name"]: p["SPDXID"] for p in d["packages"]}
assert sorted(ids) == ["part-one", "part-three", "part-two"], ids
contains = {(r["spdxElementId"], r["relatedSpdxElement"]) for r in d["relationships"] if r["relationshipType"] == "CONTAINS"}
assert contains == {(ids["part-one"], ids["part-two"]), (ids["part-one"], ids["part-three"])}, contains
c = json.load(open("st.cdx.json"))
[top] = c["components"]
assert top["name"] == "part-one", top
inner = {x["name"]: x["bom-ref"] for x in top["components"]}
assert sorted(inner) == ["part-three", "part-two"], inner
assert c["dependencies"] == [{"ref": top["bom-ref"], "dependsOn": sorted(inner.values())}], c["dependencies"]
PY2
else
        missing "static binary with three notes" "a static libc ($(head -n 1 static.err))"
fi

# ---- library names resolved through the root's directories and links ----
# app asks dlopen() for libfoo.so.1 (a link to libfoo.so.1.2.3, package
# foo), libabs.so.2 (an absolute link, resolved inside the root), libesc.so.1
# (a link climbing out of the root to a real library: never followed) and
# libmissing.so.9; it is linked against libnos.so.1, a link to a library
# without DT_SONAME (package nos).
LR=libroot
TRIPLET=$(cc -print-multiarch 2>/dev/null)
LD=$LR/usr/lib${TRIPLET:+/$TRIPLET}
mkdir -p "$LD" $LR/usr/bin $LR/opt/abs outside nosdir
dlopen_note dlopen2.s '[{\"feature\":\"foo\",\"priority\":\"required\",\"soname\":[\"libfoo.so.1\"]},{\"feature\":\"abs\",\"priority\":\"recommended\",\"soname\":[\"libabs.so.2\"]},{\"feature\":\"esc\",\"priority\":\"suggested\",\"soname\":[\"libesc.so.1\"]},{\"feature\":\"missing\",\"priority\":\"suggested\",\"soname\":[\"libmissing.so.9\"]}]'
lib_with() { # OUT NAME [ARGS...]
        out=$1 name=$2
        shift 2
        link "$out" '{"type":"generic","name":"'"$name"'","version":"1.0"}' -shared -fPIC lib.c "$@"
}
lib_with "$LD/libfoo.so.1.2.3" foo -Wl,-soname,libfoo.so.1
ln -s libfoo.so.1.2.3 "$LD/libfoo.so.1"
lib_with $LR/opt/abs/libabs.so.2.0 abs
ln -s /opt/abs/libabs.so.2.0 "$LD/libabs.so.2"
lib_with outside/libesc.so.1 esc
ln -s "$(echo "$LD" | sed 's|[^/]*|..|g')/../../..$T/outside/libesc.so.1" "$LD/libesc.so.1"
lib_with nosdir/libnos.so.1 nos
cp nosdir/libnos.so.1 "$LD/libnos.so.1.0"
ln -s libnos.so.1.0 "$LD/libnos.so.1"
echo 'int lib(void); int main(void) { return lib(); }' > appmain.c
link $LR/usr/bin/app '{"type":"generic","name":"app","version":"1.0"}' appmain.c dlopen2.s -Lnosdir -l:libnos.so.1
[ -f "$(readlink -f "$LD/libesc.so.1")" ] || fatal "the escaping link does not reach the outside library"
SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format spdx $LR > lr.spdx.json 2>/dev/null
SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format cyclonedx $LR > lr.cdx.json 2>/dev/null
python3 - <<'PY2' && pass "dlopen sonames and DT_NEEDED resolved through the root's links, never out of it" || fail "dlopen sonames and DT_NEEDED resolved through the root's links, never out of it"
import json
d = json.load(open("lr.spdx.json"))
ids = {p["name"]: p["SPDXID"] for p in d["packages"]}
assert sorted(ids) == ["abs", "app", "foo", "libesc.so.1", "libmissing.so.9", "nos"], sorted(ids)
rel = {(r["spdxElementId"], r["relationshipType"], r["relatedSpdxElement"]) for r in d["relationships"]
       if r["relationshipType"] in ("DEPENDS_ON", "OPTIONAL_DEPENDENCY_OF")}
want = {(ids["app"], "DEPENDS_ON", ids["foo"]), (ids["abs"], "OPTIONAL_DEPENDENCY_OF", ids["app"]),
        (ids["libesc.so.1"], "OPTIONAL_DEPENDENCY_OF", ids["app"]),
        (ids["libmissing.so.9"], "OPTIONAL_DEPENDENCY_OF", ids["app"]), (ids["app"], "DEPENDS_ON", ids["nos"])}
assert rel == want, rel ^ want
c = json.load(open("lr.cdx.json"))
refs = {x["name"]: x["bom-ref"] for x in c["components"]}
[dep] = [x for x in c["dependencies"] if x["ref"] == refs["app"]]
assert sorted(dep["dependsOn"]) == sorted(refs[n] for n in ("abs", "foo", "libesc.so.1", "libmissing.so.9", "nos")), dep
PY2

# ---- the same names resolved inside a tar of the root and inside images ----
# A tar of the root: its links are archive members, followed in the
# archive's own tree (the escaping one reaches no file there).  The copy
# adds app2, which dlopen()s libloop.so.1 (a loop of two links) and
# libclimb.so.1 (../ past the top, then /opt/abs: "/" is the archive's
# root, as in a container) and libdir.so.1 (found in /usr/lib64, a link
# to the directory /opt/dir, where it links to libdir.so.1.0), and links
# against libfoo.so.1.
LRT=libroot-tar
cp -a $LR $LRT
ln -s libloop.so.2 "$LRT/${LD#$LR/}/libloop.so.1"
ln -s libloop.so.1 "$LRT/${LD#$LR/}/libloop.so.2"
ln -s ../../../../../../../../opt/abs/libabs.so.2.0 "$LRT/${LD#$LR/}/libclimb.so.1"
mkdir -p $LRT/opt/dir && lib_with $LRT/opt/dir/libdir.so.1.0 dirlib && ln -s libdir.so.1.0 $LRT/opt/dir/libdir.so.1 &&
        ln -s ../opt/dir $LRT/usr/lib64
dlopen_note dlopen3.s '[{\"feature\":\"loop\",\"priority\":\"suggested\",\"soname\":[\"libloop.so.1\"]},{\"feature\":\"climb\",\"priority\":\"recommended\",\"soname\":[\"libclimb.so.1\"]},{\"feature\":\"dir\",\"priority\":\"required\",\"soname\":[\"libdir.so.1\"]}]'
echo 'int lib(void); int main(void) { return lib(); }' > app2main.c
mkdir -p foodir && cp "$LD/libfoo.so.1.2.3" foodir/libfoo.so.1
link $LRT/usr/bin/app2 '{"type":"generic","name":"app2","version":"1.0"}' app2main.c dlopen3.s -Lfoodir -l:libfoo.so.1
tar -C $LRT -cf lrt.tar . || fatal "cannot tar the root"
# The tree itself first: the same names, the same answers.
ARCS="$LRT lrt.tar"
if command -v cpio > /dev/null; then
        (cd $LRT && find . | cpio -o -H newc --quiet) > lrt.cpio || fatal "cannot make the cpio archive of the root"
        ARCS="$ARCS lrt.cpio"
else
        missing "cpio of a root: library names resolved through its links" cpio
fi
if has_feature squashfs && command -v mksquashfs > /dev/null; then
        mksquashfs $LRT lrt.sqfs -quiet -noappend > /dev/null || fatal "cannot make the SquashFS image of the root"
        ARCS="$ARCS lrt.sqfs"
else
        missing "SquashFS of a root: library names resolved through its links" "mksquashfs and libsquashfs"
fi
for arc in $ARCS; do
SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format spdx $arc > $arc.spdx.json 2> $arc.err
SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format cyclonedx $arc > $arc.cdx.json 2>> $arc.err
ARC=$arc python3 - <<'PY2' && pass "$arc (a root): dlopen sonames and DT_NEEDED resolved through its links, loops and climbs kept inside, lib64 a directory link" || fail "$arc (a root): dlopen sonames and DT_NEEDED resolved through its links, loops and climbs kept inside, lib64 a directory link" "$(head -c 300 $arc.err)"
import json, os
arc = os.environ["ARC"]
d = json.load(open(arc + ".spdx.json"))
ids = {p["name"]: p["SPDXID"] for p in d["packages"]}
assert sorted(ids) == ["abs", "app", "app2", "dirlib", "foo", "libesc.so.1", "libloop.so.1", "libmissing.so.9", "nos"], sorted(ids)
rel = {(r["spdxElementId"], r["relationshipType"], r["relatedSpdxElement"]) for r in d["relationships"]
       if r["relationshipType"] in ("DEPENDS_ON", "OPTIONAL_DEPENDENCY_OF")}
want = {(ids["app"], "DEPENDS_ON", ids["foo"]), (ids["abs"], "OPTIONAL_DEPENDENCY_OF", ids["app"]),
        (ids["libesc.so.1"], "OPTIONAL_DEPENDENCY_OF", ids["app"]),
        (ids["libmissing.so.9"], "OPTIONAL_DEPENDENCY_OF", ids["app"]), (ids["app"], "DEPENDS_ON", ids["nos"]),
        (ids["libloop.so.1"], "OPTIONAL_DEPENDENCY_OF", ids["app2"]), (ids["abs"], "OPTIONAL_DEPENDENCY_OF", ids["app2"]),
        (ids["app2"], "DEPENDS_ON", ids["foo"]), (ids["app2"], "DEPENDS_ON", ids["dirlib"])}
assert rel == want, rel ^ want
c = json.load(open(arc + ".cdx.json"))
refs = {x["name"]: x["bom-ref"] for x in c["components"]}
[dep] = [x for x in c["dependencies"] if x["ref"] == refs["app"]]
assert sorted(dep["dependsOn"]) == sorted(refs[n] for n in ("abs", "foo", "libesc.so.1", "libmissing.so.9", "nos")), dep
[dep] = [x for x in c["dependencies"] if x["ref"] == refs["app2"]]
assert sorted(dep["dependsOn"]) == sorted(refs[n] for n in ("abs", "dirlib", "foo", "libloop.so.1")), dep
PY2
done

# An archive inside a tree is a root of its own (the same input, no
# image): its app's DT_NEEDED libnos.so.1 is a link to libnos2.so.1.0
# there (package nos2), while the tree's app finds nos; neither answers
# for the other.
NR=nested-root
NLD=$NR/${LD#$LR/}
mkdir -p "$NLD" $NR/usr/bin
cp $LR/usr/bin/app $NR/usr/bin/app
lib_with "$NLD/libnos2.so.1.0" nos2
ln -s libnos2.so.1.0 "$NLD/libnos.so.1"
cp -a $LR tree-nest && tar -C $NR -cf tree-nest/inner.tar . || fatal "cannot make the tree holding an archive"
SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --open-archives --format spdx tree-nest > tn.spdx.json 2> tn.err
python3 - <<'PY2' && pass "an archive inside a tree: its names resolved in its own links, the tree's in the tree's" || fail "an archive inside a tree: its names resolved in its own links, the tree's in the tree's" "$(head -c 300 tn.err)"
import json
d = json.load(open("tn.spdx.json"))
ids = {p["name"]: p["SPDXID"] for p in d["packages"]}
rel = {(r["spdxElementId"], r["relatedSpdxElement"]) for r in d["relationships"] if r["relationshipType"] == "DEPENDS_ON"}
assert (ids["app"], ids["nos"]) in rel and (ids["app"], ids["nos2"]) in rel, rel
PY2

# Two layers: the lower one the root, the upper one replacing the link
# libfoo.so.1 by one to libfoo2.so.1 (package foo2) and whiting out the
# link libnos.so.1, so that app's DT_NEEDED libnos.so.1 finds no file.
UL=upper-libs
ULD=$UL/${LD#$LR/}
mkdir -p "$ULD"
lib_with "$ULD/libfoo2.so.1" foo2 -Wl,-soname,libfoo2.so.1
ln -s libfoo2.so.1 "$ULD/libfoo.so.1"
: > "$ULD/.wh.libnos.so.1"
python3 "$H/images.py" docker lrd.tar $LR $UL || fatal "cannot build the docker archive of the root"
python3 "$H/images.py" oci lroci $LR $UL || fatal "cannot build the OCI layout of the root"
for img in lrd.tar lroci; do
        SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format spdx $img > $img.spdx.json 2> $img.err
        SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format cyclonedx $img > $img.cdx.json 2>> $img.err
        IMG=$img python3 - <<'PY2' && pass "$img: names resolved in the merged layers, a replaced link followed, a whited-out one not" || fail "$img: names resolved in the merged layers, a replaced link followed, a whited-out one not" "$(head -c 300 $img.err)"
import json, os
img = os.environ["IMG"]
d = json.load(open(img + ".spdx.json"))
ids = {p["name"]: p["SPDXID"] for p in d["packages"] if ":" not in p["name"]}
assert sorted(ids) == ["abs", "app", "foo", "foo2", "libesc.so.1", "libmissing.so.9", "nos"], sorted(ids)
rel = {(r["spdxElementId"], r["relationshipType"], r["relatedSpdxElement"]) for r in d["relationships"]
       if r["relationshipType"] in ("DEPENDS_ON", "OPTIONAL_DEPENDENCY_OF")}
want = {(ids["app"], "DEPENDS_ON", ids["foo2"]), (ids["abs"], "OPTIONAL_DEPENDENCY_OF", ids["app"]),
        (ids["libesc.so.1"], "OPTIONAL_DEPENDENCY_OF", ids["app"]),
        (ids["libmissing.so.9"], "OPTIONAL_DEPENDENCY_OF", ids["app"])}
assert rel == want, rel ^ want
c = json.load(open(img + ".cdx.json"))
[image] = c["components"]
refs = {x["name"]: x["bom-ref"] for x in image["components"]}
[dep] = [x for x in c["dependencies"] if x["ref"] == refs["app"]]
assert sorted(dep["dependsOn"]) == sorted(refs[n] for n in ("abs", "foo2", "libesc.so.1", "libmissing.so.9")), dep
PY2
done

# Two images of one layout: the first with the upper layer (libfoo.so.1
# to foo2, libnos.so.1 whited out), the second the root alone.  Each
# image's names resolve in that image only.
if command -v skopeo > /dev/null; then
        TWOIMG= EMPTY=empty-layer
        mkdir -p $EMPTY
        python3 "$H/images.py" oci lroci2 $LR $EMPTY || fatal "cannot build the second OCI layout"
        skopeo copy -q oci:lroci oci:twoimg:upper > /dev/null 2>&1 && skopeo copy -q oci:lroci2 oci:twoimg:plain > /dev/null 2>&1 ||
                fatal "skopeo cannot copy the two images into one layout"
        SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format cyclonedx twoimg > twoimg.cdx.json 2> twoimg.err
        python3 - <<'PY2' && pass "two images of a layout: each one's names resolved in its own layers" || fail "two images of a layout: each one's names resolved in its own layers" "$(head -c 300 twoimg.err)"
import json
c = json.load(open("twoimg.cdx.json"))
deps = {x["ref"]: x["dependsOn"] for x in c["dependencies"]}
got = {}
for image in c["components"]:
    refs = {x["bom-ref"]: x["name"] for x in image["components"]}
    app = [r for r, n in refs.items() if n == "app"][0]
    got[image["name"]] = sorted(refs[d] for d in deps[app])
want = {"oci:twoimg:upper": ["abs", "foo2", "libesc.so.1", "libmissing.so.9"],
        "oci:twoimg:plain": ["abs", "foo", "libesc.so.1", "libmissing.so.9", "nos"]}
assert got == want, got
PY2
        TWOIMG="twoimg.cdx.json:cyclonedx twoimg.spdx.json:spdx"
        # SPDX has one element of app for both images: it depends on
        # each image's own provider of its dlopen libfoo.so.1, foo2 in
        # the first and foo in the second, never on one for both.
        SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format spdx twoimg > twoimg.spdx.json 2>> twoimg.err
        python3 - <<'PY2' && pass "two images of a layout, SPDX: a shared package's dlopen soname resolved in each image" || fail "two images of a layout, SPDX: a shared package's dlopen soname resolved in each image" "$(head -c 300 twoimg.err)"
import json
d = json.load(open("twoimg.spdx.json"))
ids = {p["name"]: p["SPDXID"] for p in d["packages"] if ":" not in p["name"]}
rel = {(r["spdxElementId"], r["relationshipType"], r["relatedSpdxElement"]) for r in d["relationships"]
       if r["relationshipType"] in ("DEPENDS_ON", "OPTIONAL_DEPENDENCY_OF")}
want = {(ids["app"], "DEPENDS_ON", ids["foo2"]), (ids["app"], "DEPENDS_ON", ids["foo"]), (ids["app"], "DEPENDS_ON", ids["nos"]),
        (ids["abs"], "OPTIONAL_DEPENDENCY_OF", ids["app"]), (ids["libesc.so.1"], "OPTIONAL_DEPENDENCY_OF", ids["app"]),
        (ids["libmissing.so.9"], "OPTIONAL_DEPENDENCY_OF", ids["app"])}
assert rel == want, rel ^ want
PY2
else
        missing "two images of a layout: each one's names resolved in its own layers" skopeo
        missing "two images of a layout, SPDX: a shared package's dlopen soname resolved in each image" skopeo
fi

# Two directories scanned together: the copy's libfoo.so.1 links to
# libfoo2.so.1 (package foo2) and it ships libmissing.so.9 (package
# miss).  app, one package of both, depends on each root's own provider;
# the first root still finds no libmissing.so.9, so its soname element
# stays beside the copy's miss.
LR2=libroot-foo2
LD2=$LR2/${LD#$LR/}
cp -a $LR $LR2
cp "$ULD/libfoo2.so.1" "$LD2/libfoo2.so.1"
ln -sf libfoo2.so.1 "$LD2/libfoo.so.1"
lib_with "$LD2/libmissing.so.9" miss -Wl,-soname,libmissing.so.9
SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format spdx $LR $LR2 > tworoot.spdx.json 2> tworoot.err
SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format cyclonedx $LR $LR2 > tworoot.cdx.json 2>> tworoot.err
python3 - <<'PY2' && pass "two directories scanned together: a shared package's dlopen sonames resolved in each one's own root" || fail "two directories scanned together: a shared package's dlopen sonames resolved in each one's own root" "$(head -c 300 tworoot.err)"
import json
d = json.load(open("tworoot.spdx.json"))
ids = {p["name"]: p["SPDXID"] for p in d["packages"]}
assert sorted(ids) == ["abs", "app", "foo", "foo2", "libesc.so.1", "libmissing.so.9", "miss", "nos"], sorted(ids)
rel = {(r["spdxElementId"], r["relationshipType"], r["relatedSpdxElement"]) for r in d["relationships"]
       if r["relationshipType"] in ("DEPENDS_ON", "OPTIONAL_DEPENDENCY_OF")}
want = {(ids["app"], "DEPENDS_ON", ids["foo"]), (ids["app"], "DEPENDS_ON", ids["foo2"]), (ids["app"], "DEPENDS_ON", ids["nos"]),
        (ids["abs"], "OPTIONAL_DEPENDENCY_OF", ids["app"]), (ids["libesc.so.1"], "OPTIONAL_DEPENDENCY_OF", ids["app"]),
        (ids["libmissing.so.9"], "OPTIONAL_DEPENDENCY_OF", ids["app"]), (ids["miss"], "OPTIONAL_DEPENDENCY_OF", ids["app"])}
assert rel == want, rel ^ want
c = json.load(open("tworoot.cdx.json"))
refs = {x["name"]: x["bom-ref"] for x in c["components"]}
[dep] = [x for x in c["dependencies"] if x["ref"] == refs["app"]]
assert sorted(dep["dependsOn"]) == sorted(refs[n] for n in ("abs", "foo", "foo2", "libesc.so.1", "libmissing.so.9", "miss", "nos")), dep
PY2

# ---- SPDX 3.0.1: what the 2.3 document says, in SPDX 3's vocabulary ----
# A hostile tree: a file name that is no UTF-8 and holds a control
# character, a note whose values hold quotes, backslashes and a LicenseRef-
# look-alike; the documents stay JSON, their ids IRIs, the name shown as
# the text output shows it.
mkdir -p hostile/usr/bin
link "hostile/usr/bin/$(printf 'bad\377\001name')" '{"type":"generic","name":"q\"uo\\te LicenseRef-x","version":"1.0 \"x\""}' main.c
n3=0
for input in "$R" docker.tar static-root "$LR" "$LR $LR2" twoimg hostile; do
        [ -e "${input%% *}" ] || continue
        n3=$((n3 + 1))
        SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format spdx $input > p$n3.spdx.json 2>/dev/null
        if SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format spdx3 -o p$n3.spdx3.json $input 2> cmp3.txt &&
           python3 "$H/spdx3-compare.py" p$n3.spdx.json p$n3.spdx3.json > cmp3.txt 2>&1; then
                pass "SPDX 3 of $input: the 2.3 document's facts ($(cat cmp3.txt))"
        else
                fail "SPDX 3 of $input: the 2.3 document's facts"
                sed 's/^/# /' cmp3.txt | head -n 20
        fi
done
python3 - <<'PY' && pass "SPDX 3 of a root: packages, files, licenses, dlopen and evidence relations present" || fail "SPDX 3 of a root: packages, files, licenses, dlopen and evidence relations present"
import json
g = json.load(open("p1.spdx3.json"))["@graph"]
types = {}
for e in g:
    types.setdefault(e["type"], []).append(e)
rel = {e["relationshipType"] for e in types["Relationship"]}
assert {"hasEvidence", "hasOptionalDependency", "contains"} <= rel, rel
pk = {e["name"]: e for e in types["software_Package"]}
assert pk["alpha"]["software_packageUrl"].startswith("pkg:deb/debian/alpha@1.0-1"), pk["alpha"]
assert pk["alpha"]["externalIdentifier"] == [{"type": "ExternalIdentifier", "externalIdentifierType": "cpe23", "identifier": "cpe:2.3:a:example:alpha:1.0:*:*:*:*:*:*:*"}], pk["alpha"]
assert all(len(f["verifiedUsing"]) == 2 for f in types["software_File"]), types["software_File"]
assert g[0]["created"] == "2023-11-14T22:13:20Z", g[0]
PY
SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" scan --format spdx3 -j 1 $R > p1b.spdx3.json 2>/dev/null
cmp -s p1.spdx3.json p1b.spdx3.json && pass "SPDX 3: reproducible with SOURCE_DATE_EPOCH" || fail "SPDX 3: reproducible with SOURCE_DATE_EPOCH"
"$PKGNOTE" scan --format spdx3 $R > p1c.spdx3.json 2>/dev/null
"$PKGNOTE" scan --format spdx3 $R > p1d.spdx3.json 2>/dev/null
python3 - <<'PY' && pass "SPDX 3: without SOURCE_DATE_EPOCH a namespace of its own each time" || fail "SPDX 3: without SOURCE_DATE_EPOCH a namespace of its own each time"
import json
a, b = (json.load(open(f))["@graph"][1]["spdxId"] for f in ("p1c.spdx3.json", "p1d.spdx3.json"))
assert a != b and a.startswith("https://spdx.org/spdxdocs/pkgnote-scan-") and a.endswith("#SPDXRef-DOCUMENT"), (a, b)
PY

if sbom_validator "SBOMs validate against the official schemas"; then
        # CycloneDX 1.6 (the default) and 1.7 against the schemas
        # npm's @cyclonedx/cyclonedx-library ships; 1.5 against
        # shared/'s, else npm's.
        "$PKGNOTE" scan --format cyclonedx $R > r.cdx.json 2>/dev/null
        "$PKGNOTE" scan --format cyclonedx --cyclonedx-version 1.5 $R > r15.cdx.json 2>/dev/null
        "$PKGNOTE" scan --format cyclonedx --cyclonedx-version 1.5 docker.tar > d15.cdx.json 2>/dev/null
        for f in doc.spdx.json:spdx s1.json:spdx sd.json:spdx doc.cdx.json:cyclonedx st.spdx.json:spdx st.cdx.json:cyclonedx lr.spdx.json:spdx lr.cdx.json:cyclonedx lrt.tar.spdx.json:spdx lrt.tar.cdx.json:cyclonedx lrd.tar.spdx.json:spdx lrd.tar.cdx.json:cyclonedx lroci.spdx.json:spdx lroci.cdx.json:cyclonedx ${TWOIMG:-} tworoot.spdx.json:spdx tworoot.cdx.json:cyclonedx r15.cdx.json:cyclonedx d15.cdx.json:cyclonedx; do
                validate_sbom "${f%%:*} validates against the ${f#*:} schema" "$AJV" "$SCHEMAS" "${f#*:}" "${f%%:*}"
        done
        validate_sbom "CycloneDX of a directory validates" "$AJV" "$SCHEMAS" cyclonedx r.cdx.json
        # CycloneDX 1.7 against the schema npm's library ships, and
        # SPDX 3.0.1 against the official schema in tests/data.
        for f in r17.cdx.json; do
                validate_sbom "$f validates against the CycloneDX 1.7 schema" "$AJV" "$SCHEMAS" cyclonedx $f
        done
        k=1
        while [ $k -le $n3 ]; do
                validate_sbom "p$k.spdx3.json validates against the SPDX 3.0.1 schema" "$AJV" "$SCHEMAS" spdx3 p$k.spdx3.json
                k=$((k + 1))
        done
        # The validators must refuse broken documents: an element
        # without creationInfo (schema), a relationship to nothing,
        # a duplicate spdxId (the document's own checks), a 1.7 BOM
        # with a component type no version has.
        python3 - <<'PY'
import json
d = json.load(open("p1.spdx3.json"))
pkg = next(e for e in d["@graph"] if e["type"] == "software_Package")
del pkg["creationInfo"]
json.dump(d, open("bad3-ci.json", "w"))
d = json.load(open("p1.spdx3.json"))
rel = next(e for e in d["@graph"] if e["type"] == "Relationship")
rel["to"] = [rel["to"][0] + "-nothing"]
json.dump(d, open("bad3-to.json", "w"))
d = json.load(open("p1.spdx3.json"))
pkgs = [e for e in d["@graph"] if e["type"] == "software_Package"]
pkgs[1]["spdxId"] = pkgs[0]["spdxId"]
json.dump(d, open("bad3-dup.json", "w"))
d = json.load(open("r17.cdx.json"))
d["components"][0]["type"] = "gadget"
json.dump(d, open("bad17.json", "w"))
PY
        for b in bad3-ci bad3-to bad3-dup; do
                node "$H/validate.js" "$AJV" "$SCHEMAS" spdx3 $b.json > $b.txt 2>&1 &&
                        fail "the SPDX 3 checks refuse $b.json" || pass "the SPDX 3 checks refuse $b.json ($(grep -m1 -o 'creationInfo\|nothing\|not unique' $b.txt))"
        done
        node "$H/validate.js" "$AJV" "$SCHEMAS" cyclonedx bad17.json > bad17.txt 2>&1
        case $? in
        1) grep -q '"allowedValues"' bad17.txt && pass "the 1.7 schema refuses a component type 'gadget'" ||
                fail "the 1.7 schema refuses a component type 'gadget'" "$(head -c 300 bad17.txt)" ;;
        77) skip "the 1.7 schema refuses a component type 'gadget'" "$(tail -n 1 bad17.txt)" ;;
        *) fail "the 1.7 schema refuses a component type 'gadget'" "$(head -c 300 bad17.txt)" ;;
        esac
        # The validator must tell the versions apart: a 1.6-only
        # field is refused in a 1.5 document.
        python3 -c 'import json; d = json.load(open("r15.cdx.json")); d["metadata"]["lifecycles"] = [{"phase": "post-build"}]; d["components"][0]["omniborId"] = ["gitoid:blob:sha1:0000000000000000000000000000000000000000"]; json.dump(d, open("bad15.json", "w"))'
        node "$H/validate.js" "$AJV" "$SCHEMAS" cyclonedx bad15.json > bad15.txt 2>&1
        case $? in
        1) pass "the validator refuses a 1.6 field in a 1.5 document" ;;
        77) skip "the validator refuses a 1.6 field in a 1.5 document" "$(tail -n 1 bad15.txt)" ;;
        *) fail "the validator refuses a 1.6 field in a 1.5 document" "$(head -c 300 bad15.txt)" ;;
        esac
        echo '{"spdxVersion":"SPDX-2.3"}' > bad.json
        node "$H/validate.js" "$AJV" "$SCHEMAS" spdx bad.json > bad.txt 2>&1
        case $? in
        1) pass "the validator rejects an incomplete document" ;;
        77) skip "the validator rejects an incomplete document" "$(tail -n 1 bad.txt)" ;;
        *) fail "the validator rejects an incomplete document" "$(head -c 300 bad.txt)" ;;
        esac
fi

# ---- SPDX 3.0.1 read by a second reader: JSON-LD to RDF, the model's SHACL shapes ----
if ! spdx3_reader "${BUILDDIR:-$HOME}"; then
        spdx3_unavailable "SPDX 3 documents conform to the SPDX 3.0.1 model (SHACL)"
else
        k=1
        while [ $k -le $n3 ]; do
                spdx3_shacl "p$k.spdx3.json conforms to the SPDX 3.0.1 model (JSON-LD, SHACL)" p$k.spdx3.json
                k=$((k + 1))
        done
        # It must refuse: a relationship type, a hash algorithm and a
        # purpose outside the model's vocabularies, a relationship without
        # its from, and a key the context does not define.
        python3 - <<'PY'
import json
def bad(name, change):
    d = json.load(open("p1.spdx3.json"))
    change(d["@graph"])
    json.dump(d, open(name, "w"))
first = lambda g, t: next(e for e in g if e["type"] == t)
bad("shacl-rel.json", lambda g: first(g, "Relationship").update(relationshipType="isBoguslyRelatedTo"))
bad("shacl-hash.json", lambda g: first(g, "software_File")["verifiedUsing"][0].update(algorithm="sha999"))
bad("shacl-purpose.json", lambda g: first(g, "software_Package").update(software_primaryPurpose="gadget"))
bad("shacl-from.json", lambda g: first(g, "Relationship").pop("from"))
bad("shacl-key.json", lambda g: first(g, "software_Package").update(software_packageVersionX="1"))
PY
        for b in shacl-rel shacl-hash shacl-purpose shacl-from shacl-key; do
                node "$H/spdx3-shacl.js" "$SPDX3_READER" $b.json > $b.txt 2>&1
                [ $? = 1 ] && pass "the SPDX 3 model refuses $b.json ($(head -n 1 $b.txt | sed 's/.*(http:\/\/www.w3.org\/ns\/shacl#\(.*\))$/\1/' | cut -c1-80))" ||
                        fail "the SPDX 3 model refuses $b.json" "$(head -c 300 $b.txt)"
        done
fi

# ---- this machine's /usr against readelf -n ----
if [ -d /usr ] && command -v readelf > /dev/null; then
        python3 "$H/usr-crosscheck.py" "$PKGNOTE" /usr > cross.txt 2>&1
        rc=$?
        # The script itself must run and check something: an error of its
        # own (an import that moved) is a failure, not silence.
        [ $rc -eq 0 ] || grep -q '^not ok - ' cross.txt || fail "/usr: the cross-check runs" "exit status $rc: $(tail -3 cross.txt | tr '\n' ' ')"
        grep -q '^ok - ' cross.txt || fail "/usr: the cross-check checks something" "$(tail -3 cross.txt | tr '\n' ' ')"
        while IFS= read -r line; do
                case $line in
                "ok - "*) pass "/usr: ${line#ok - }" ;;
                "not ok - "*) fail "/usr: ${line#not ok - }" ;;
                *) echo "$line" ;;
                esac
        done < cross.txt
else
        missing "/usr against readelf -n" readelf
fi

finish
