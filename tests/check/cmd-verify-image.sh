#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pkgnote deps --verify of tar archives, images and SquashFS images: the
# real dracut initrd of a Debian sid root (dist/make-sid-artefacts.sh),
# unpacked by cpio and zstd, made by real tools into a tar, a tar.zst, a
# SquashFS image (mksquashfs), an OCI layout of two layers (umoci), its
# oci-archive and docker-archive copies (skopeo) and a docker-save archive
# (tests/scan/images.py): each gives exactly the findings of the
# directory.  A top layer whose whiteout deletes a library one program
# needs gives that one finding more, as the directory without it does; an
# opaque directory the same; the layer without the whiteout none.  Hard
# links stay links (a library behind one is found).
# Hostile: names leading out, links out of the artefact, a loop of links,
# a zstd layer cut short, a SquashFS image cut short.
. "$SRCDIR/tests/lib.sh"
require_feature archive
require python3 cpio zstd tar mksquashfs umoci skopeo readelf timeout
PK=$PKGNOTE
H="$SRCDIR/tests/scan"
ART=${PKGNOTE_TEST_SID_ARTEFACTS:-/var/cache/pkgnote/roots/sid-artefacts}
IMG=$ART/initrd-dracut.img
if [ ! -f "$IMG.ORACLE.txt" ]; then
        missing "the sid initrds and their oracles (sh dist/make-sid-artefacts.sh)" "$ART"
        finish
        exit
fi

. "$SRCDIR/tests/check/verify-lib.sh"
# findings FILE: the findings of the JSON in FILE (one artefact), a line
# each, sorted; its kind into FILE.kind.
findings() {
        python3 - "$1" << 'PY'
import json, sys
a = json.load(open(sys.argv[1]))
assert len(a) == 1, a
open(sys.argv[1] + ".kind", "w").write(a[0]["kind"] + " %d\n" % a[0]["objects"])
for f in sorted(a[0]["findings"], key=lambda f: (f["object"], f["kind"], f["names"])):
    print("\t".join([f["object"], f["kind"], ",".join(f["names"]), f["priority"]]))
PY
}
# same NAME ARTEFACT KIND: the findings of ARTEFACT are those of the
# directory, its kind KIND, as many objects.
same() {
        verify --json "$2"
        cp out "$1.json"
        if [ $STATUS -gt 1 ]; then
                fail "$1: read like the directory" "status $STATUS: $(cat err)"
                return
        fi
        findings "$1.json" > "$1.f"
        if [ "$(cat "$1.json.kind")" = "$3 $(cut -d' ' -f2 dir.json.kind)" ] && cmp -s dir.f "$1.f" && [ $STATUS = "$DSTATUS" ]; then
                pass "$1: the directory's $(wc -l < dir.f) findings, $(cut -d' ' -f2 dir.json.kind) objects, kind $3"
        else
                fail "$1: the directory's findings" "kind $(cat "$1.json.kind") status $STATUS/$DSTATUS; $(diff dir.f "$1.f" | head -20)"
        fi
}

# The initrd unpacked as the kernel does: the early archive (microcode)
# skipped, the zstd one by cpio.
off=$(awk '$1 == "segment" && $2 == 1 { print $3 }' "$IMG.ORACLE.txt")
[ -n "$off" ] || fatal "no segment 1 in the oracle"
mkdir root
tail -c +$((off + 1)) "$IMG" | zstd -dq | (cd root && cpio -idm --quiet --no-absolute-filenames 2> /dev/null)
[ -x root/usr/bin/udevadm ] || fatal "the initrd did not unpack"
verify --json root
DSTATUS=$STATUS
cp out dir.json
findings dir.json > dir.f
[ "$(cut -d' ' -f1 dir.json.kind)" = directory ] && [ "$(cut -d' ' -f2 dir.json.kind)" -gt 20 ] ||
        fatal "the directory: $(cat dir.json.kind) $(cat err)"

(cd root && tar -cf ../root.tar .) || fatal "tar failed"
zstd -q root.tar -o root.tar.zst || fatal "zstd failed"
(cd root && tar -cJf ../root.tar.xz .) || fatal "tar -J failed"
mksquashfs root root.sqfs -quiet -noappend -comp zstd > /dev/null 2>&1 || fatal "mksquashfs failed"
same tar root.tar tar
same tar.zst root.tar.zst tar
same tar.xz root.tar.xz tar
SQ=0
with_feature squashfs "SquashFS artefacts" && SQ=1
[ $SQ = 1 ] && same squashfs root.sqfs squashfs
# A compressed cpio is still an initramfs, not a tar.
(cd root && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -c) > root.cpio.gz || fatal "cpio failed"
same cpio.gz root.cpio.gz initramfs
if command -v bzip2 > /dev/null; then
        bzip2 -kc root.tar > root.tar.bz2 && bzip2 -kc root.cpio.gz > /dev/null || fatal "bzip2 failed"
        same tar.bz2 root.tar.bz2 tar
        (cd root && find . | cpio -o -H newc --quiet | bzip2 -c) > root.cpio.bz2
        verify root.cpio.bz2
        [ $STATUS = 2 ] && grep -q "bzip2 compressed archive at offset 0: not read" err &&
                pass "a bzip2 cpio: the initramfs reader says it is not read" ||
                fail "a bzip2 cpio: the initramfs reader says it is not read" "status $STATUS: $(cat err)"
else
        missing "tar.bz2" bzip2
fi

# An OCI layout of two layers: the initrd, then a layer adding a file.
umoci init --layout lay > /dev/null && umoci new --image lay:one > /dev/null &&
        umoci unpack --rootless --image lay:one b1 > /dev/null 2>&1 && cp -a root/. b1/rootfs/ &&
        umoci repack --image lay:one b1 > /dev/null && umoci unpack --rootless --image lay:one b2 > /dev/null 2>&1 &&
        echo extra > b2/rootfs/etc/extra && umoci repack --image lay:one b2 > /dev/null ||
        fatal "umoci cannot make the layout"
n=$(python3 -c 'import json; m = json.load(open("lay/index.json"))["manifests"][0]["digest"].split(":")[1]
print(len(json.load(open("lay/blobs/sha256/" + m))["layers"]))')
[ "$n" = 2 ] || fatal "the layout has $n layers, not 2"
same oci-dir lay image
same oci-ref oci:lay:one image
skopeo copy -q oci:lay:one oci-archive:lay.tar:one > /dev/null 2>&1 || fatal "skopeo cannot make an oci-archive"
skopeo copy -q oci:lay:one docker-archive:docker.tar:test/one:1 > /dev/null 2>&1 || fatal "skopeo cannot make a docker-archive"
same oci-archive lay.tar image
umoci tag --image lay:one two > /dev/null || fatal "umoci tag failed"
same two-names lay image
same docker-archive docker.tar image

# A library needed by exactly one object, and that object.
python3 - root > victim << 'PY' || fatal "no library needed by one object"
import os, subprocess, sys
root = sys.argv[1]
need = {}
for d, _, fs in os.walk(root):
    for n in fs:
        p = os.path.join(d, n)
        if os.path.islink(p) or not os.path.isfile(p):
            continue
        with open(p, "rb") as f:
            if f.read(4) != b"\x7fELF":
                continue
        out = subprocess.run(["readelf", "-dW", p], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if "(NEEDED)" in line:
                need.setdefault(line.split("[")[1].rstrip("]"), set()).add("/" + os.path.relpath(p, root))
for name in sorted(need):
    lib = os.path.join(root, "usr/lib/x86_64-linux-gnu", name)
    if len(need[name]) == 1 and os.path.lexists(lib) and not name.startswith(("libc.", "libm.", "ld-")):
        print(name, next(iter(need[name])))
        break
PY
read -r LIB USER < victim
LIBDIR=usr/lib/x86_64-linux-gnu
[ -n "$LIB" ] || fatal "no library needed by one object"
# What the directory without it says: one finding more.
cp -a root gone && rm "gone/$LIBDIR/$LIB"
verify --json gone
findings out > gone.f
printf '%s\tneeded\t%s\trequired\n' "$USER" "$LIB" | cat - dir.f | LC_ALL=C sort > want.f
LC_ALL=C sort gone.f > gone.s
if cmp -s want.f gone.s && [ $STATUS = 1 ]; then
        pass "the directory without $LIB: one finding more ($USER)"
else
        fail "the directory without $LIB: one finding more" "$(diff want.f gone.s | head)"
fi
# whiteout NAME UPPER: images of ROOT and the layer UPPER, by
# tests/scan/images.py (docker-save and OCI), give the findings of gone.f
# (WANT) or of the directory.
image_pair() {
        python3 "$H/images.py" docker "$1.docker.tar" root "$2" && python3 "$H/images.py" oci "$1.oci" root "$2" ||
                fatal "images.py cannot make the $1 images"
}
mkdir -p up1/$LIBDIR && : > "up1/$LIBDIR/.wh.$LIB"
image_pair whiteout up1
for f in whiteout.docker.tar whiteout.oci; do
        verify --json "$f"
        findings out | LC_ALL=C sort > got.f
        if cmp -s want.f got.f && [ $STATUS = 1 ]; then
                pass "$f: the whiteout of $LIB gives exactly one finding more"
        else
                fail "$f: the whiteout of $LIB gives one finding more" "status $STATUS $(cat err) $(diff want.f got.f | head)"
        fi
done
# An opaque directory: the library directory again without the library.
mkdir -p up2/$LIBDIR && cp -a "root/$LIBDIR/." "up2/$LIBDIR/" && rm "up2/$LIBDIR/$LIB" && : > "up2/$LIBDIR/.wh..wh..opq"
# and something below it that the lower layer has and the upper lacks.
image_pair opaque up2
for f in opaque.docker.tar opaque.oci; do
        verify --json "$f"
        findings out | LC_ALL=C sort > got.f
        if cmp -s want.f got.f && [ $STATUS = 1 ]; then
                pass "$f: an opaque directory without $LIB gives exactly one finding more"
        else
                fail "$f: an opaque directory without $LIB" "status $STATUS $(cat err) $(diff want.f got.f | head)"
        fi
done
# The same top layer without the whiteout: nothing more.
mkdir -p up3/etc && echo x > up3/etc/extra
image_pair none up3
for f in none.docker.tar none.oci; do
        same "$f" "$f" image
done
# A whiteout by umoci itself (the library removed in a new layer).
umoci unpack --rootless --image lay:one b3 > /dev/null 2>&1 && rm "b3/rootfs/$LIBDIR/$LIB" &&
        umoci repack --image lay:one b3 > /dev/null || fatal "umoci cannot remove the library"
verify --json oci:lay:one
findings out | LC_ALL=C sort > got.f
if cmp -s want.f got.f && [ $STATUS = 1 ]; then
        pass "umoci's whiteout of $LIB: one finding more"
else
        fail "umoci's whiteout of $LIB" "status $STATUS $(cat err) $(diff want.f got.f | head)"
fi

# The layout now holds two images (one with the whiteout, two without):
# one must be named.
verify --json lay
if [ $STATUS = 2 ] && grep -q "holds 2 images" err && grep -q "oci:lay:one" err && grep -q "oci:lay:two" err; then
        pass "a layout of two images: an error naming both"
else
        fail "a layout of two images: an error naming both" "status $STATUS: $(cat err)"
fi
same oci-tag oci:lay:two image
# A multi-platform index as scan reads it: "one" (the library whited
# out) for linux/arm64/v8, "two" for linux/amd64; this machine's taken.
python3 - << 'PY' || fatal "cannot write the index"
import hashlib, json
idx = json.load(open("lay/index.json"))
by = {m["annotations"]["org.opencontainers.image.ref.name"]: m for m in idx["manifests"]}
def plat(m, **p):
    m = {k: v for k, v in m.items() if k != "annotations"}
    m["platform"] = p
    return m
multi = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
                    "manifests": [plat(by["one"], os="linux", architecture="arm64", variant="v8"),
                                  plat(by["two"], os="linux", architecture="amd64")]}).encode()
d = hashlib.sha256(multi).hexdigest()
open("lay/blobs/sha256/" + d, "wb").write(multi)
idx["manifests"].append({"mediaType": "application/vnd.oci.image.index.v1+json", "digest": "sha256:" + d,
                         "size": len(multi), "annotations": {"org.opencontainers.image.ref.name": "multi"}})
json.dump(idx, open("lay/index.json", "w"))
PY
case $(uname -m) in
x86_64) same multi-platform oci:lay:multi image ;;
aarch64)
        verify --json oci:lay:multi
        findings out | LC_ALL=C sort > got.f
        cmp -s want.f got.f && pass "multi-platform: this machine's image (arm64)" || fail "multi-platform: arm64" "$(cat err)" ;;
*) skip "multi-platform" "no image of this machine's platform in the test index" ;;
esac
# Hard links: the library a hard link to a copy of it under another name
# (in a tar, and in a SquashFS image made from the same tree): nothing
# more; a hard link to a file the archive lacks: an empty file, the one
# finding more, and the problem said.
cp -a root hard && rm "hard/$LIBDIR/$LIB" && cp -L "root/$LIBDIR/$LIB" "hard/$LIBDIR/libcopy.so.9" &&
        ln "hard/$LIBDIR/libcopy.so.9" "hard/$LIBDIR/$LIB" || fatal "cannot make the hard link"
(cd hard && tar -cf ../hard.tar .) && mksquashfs hard hard.sqfs -quiet -noappend > /dev/null 2>&1 ||
        fatal "cannot pack the hard links"
# (which name tar stores first, and which as the link, is the order the
# file system lists the directory in)
tar -tvf hard.tar | grep -qE "/($LIB|libcopy\.so\.9) link to \./$LIBDIR/(libcopy\.so\.9|$LIB)\$" ||
        fatal "tar stored no hard link"
verify --json hard
findings out > hard.f
hobj=$(cut -d' ' -f2 out.kind)
sqh=; [ $SQ = 1 ] && sqh=hard.sqfs
for f in hard.tar $sqh; do
        verify --json $f
        findings out > got.f
        if cmp -s dir.f got.f && cmp -s hard.f got.f && [ "$(cut -d' ' -f2 out.kind)" = "$hobj" ] && [ $STATUS = "$DSTATUS" ]; then
                pass "$f: a library behind a hard link is found ($hobj objects, as the directory)"
        else
                fail "$f: a library behind a hard link" "status $STATUS $(cat out.kind) $hobj $(cat err) $(diff hard.f got.f | head)"
        fi
done
python3 - "$LIBDIR" "$LIB" << 'PY' || fatal "cannot make the tar"
import sys, tarfile
libdir, lib = sys.argv[1:]
src = tarfile.open("root.tar")
with tarfile.open("hardgone.tar", "w", format=tarfile.GNU_FORMAT) as t:
    for m in src.getmembers():
        if m.name.lstrip("./") == libdir + "/" + lib:
            continue
        t.addfile(m, src.extractfile(m) if m.isreg() else None)
    x = tarfile.TarInfo("./" + libdir + "/" + lib)
    x.type, x.linkname = tarfile.LNKTYPE, "./" + libdir + "/no-such-file"
    t.addfile(x)
PY
verify --json hardgone.tar
findings out | LC_ALL=C sort > got.f
if cmp -s want.f got.f && [ $STATUS = 1 ] && grep -q "hard link to a missing file" err; then
        pass "a hard link to a file not there: an empty file, one finding more, said"
else
        fail "a hard link to a file not there" "status $STATUS $(cat err) $(diff want.f got.f | head)"
fi

# ---- hostile archives ----
# Names leading out ("../x"), a name too long for a directory, the library replaced by an
# absolute link out of the artefact to a real file of this machine, a
# program's library through a loop of links.
mkdir host && cp "root/$LIBDIR/$LIB" host/ 2> /dev/null || cp -L "root/$LIBDIR/$LIB" host/
python3 - "$LIBDIR" "$LIB" "$PWD/host/$LIB" << 'PY' || fatal "cannot make the hostile tar"
import io, sys, tarfile
libdir, lib, host = sys.argv[1:]
src = tarfile.open("root.tar")
with tarfile.open("hostile.tar", "w", format=tarfile.GNU_FORMAT) as t:
    for m in src.getmembers():
        if m.name.lstrip("./") == libdir + "/" + lib:
            continue
        t.addfile(m, src.extractfile(m) if m.isreg() else None)
    evil = tarfile.TarInfo("../../escaped")
    evil.size = 4
    t.addfile(evil, io.BytesIO(b"evil"))
    l = tarfile.TarInfo("./" + libdir + "/" + lib)
    l.type, l.linkname = tarfile.SYMTYPE, "/../../.." + host
    t.addfile(l)
    for a, b in (("loop-a.so", "loop-b.so"), ("loop-b.so", "loop-a.so")):
        x = tarfile.TarInfo("./" + libdir + "/" + a)
        x.type, x.linkname = tarfile.SYMTYPE, b
        t.addfile(x)
    # A name no directory holds (300 bytes), a link text longer than a path.
    x = tarfile.TarInfo("./opt/" + "n" * 300 + "/f")
    x.size = 1
    t.addfile(x, io.BytesIO(b"x"))
    x = tarfile.TarInfo("./opt/long-link")
    x.type, x.linkname = tarfile.SYMTYPE, "l/" * 3000
    t.addfile(x)
PY
verify --json hostile.tar
findings out | LC_ALL=C sort > got.f
if cmp -s want.f got.f && [ $STATUS = 1 ] && grep -q "escaped" err && [ ! -e ../escaped ] && [ ! -e escaped ] &&
        grep -q "nnnn" err; then
        pass "a tar with names leading out and a link out of it: the host's file is not taken, the name is told"
else
        fail "a tar with names leading out and a link out" "status $STATUS $(cat err) $(diff want.f got.f | head)"
fi
# The library a link into the loop.
python3 - "$LIBDIR" "$LIB" << 'PY' || fatal "cannot make the loop tar"
import sys, tarfile
libdir, lib = sys.argv[1:]
src = tarfile.open("root.tar")
with tarfile.open("loop.tar", "w", format=tarfile.GNU_FORMAT) as t:
    for m in src.getmembers():
        if m.name.lstrip("./") == libdir + "/" + lib:
            continue
        t.addfile(m, src.extractfile(m) if m.isreg() else None)
    for a, b in ((lib, "loop-a.so"), ("loop-a.so", "loop-b.so"), ("loop-b.so", "loop-a.so")):
        x = tarfile.TarInfo("./" + libdir + "/" + a)
        x.type, x.linkname = tarfile.SYMTYPE, b
        t.addfile(x)
PY
verify --json loop.tar
findings out | LC_ALL=C sort > got.f
if cmp -s want.f got.f && [ $STATUS = 1 ]; then
        pass "a library behind a loop of links: missing, in bounded time"
else
        fail "a library behind a loop of links" "status $STATUS $(cat err) $(diff want.f got.f | head)"
fi
# An OCI layout whose top layer is zstd, cut short.
python3 - "$H" up3 << 'PY' || fatal "cannot make the cut layout"
import io, json, os, subprocess, sys, tarfile
sys.path.insert(0, sys.argv[1])
import images
images.oci("cut.oci", "root", sys.argv[2])
blobs = "cut.oci/blobs/sha256/"
idx = json.load(open("cut.oci/index.json"))
mf = json.load(open(blobs + idx["manifests"][0]["digest"].split(":")[1]))
# The top layer: a tar of 1 MiB that does not compress, zstd, its first half.
big = io.BytesIO()
with tarfile.open(fileobj=big, mode="w") as t:
    i = tarfile.TarInfo("usr/bin/big")
    data = os.urandom(1 << 20)
    i.size = len(data)
    t.addfile(i, io.BytesIO(data))
z = subprocess.run(["zstd", "-q", "-c"], input=big.getvalue(), capture_output=True, check=True).stdout
z = z[: len(z) // 2]
d = images.sha(z)
open(blobs + d, "wb").write(z)
mf["layers"][1] = {"mediaType": "application/vnd.oci.image.layer.v1.tar+zstd", "digest": "sha256:" + d, "size": len(z)}
m = json.dumps(mf).encode()
md = images.sha(m)
open(blobs + md, "wb").write(m)
idx["manifests"][0].update({"digest": "sha256:" + md, "size": len(m)})
json.dump(idx, open("cut.oci/index.json", "w"))
PY
verify --json cut.oci
if [ $STATUS = 2 ] && grep -q "cannot read the artefact" err && grep -qi "layer" err; then
        pass "a zstd layer cut short: an error naming the layer ($(head -c 200 err))"
else
        fail "a zstd layer cut short: an error" "status $STATUS: $(cat err)"
fi
# A SquashFS image cut short, at several places.
size=$(wc -c < root.sqfs)
ok=$SQ
[ $SQ = 1 ] && for cut in 96 4096 $((size / 3)) $((size / 2)) $((size - 4096)); do
        head -c "$cut" root.sqfs > cut.sqfs
        verify --json cut.sqfs
        if [ $STATUS != 2 ] || ! grep -q "cannot read the artefact" err; then
                ok=0
                fail "a SquashFS image cut at $cut bytes: an error" "status $STATUS: $(head -c 300 err)"
        fi
done
[ $ok = 1 ] && pass "a SquashFS image cut short: an error each time"
# A tar cut short (plain and zstd), and bytes that are nothing: errors.
for f in root.tar root.tar.zst; do
        head -c $(($(wc -c < $f) / 2)) $f > cut.$f
done
head -c 4096 /dev/urandom > junk.tar
for f in cut.root.tar:"Truncated tar archive" cut.root.tar.zst:"zstd data ends early" \
        junk.tar:"neither a tar archive, an image, a SquashFS image nor an initramfs"; do
        verify "${f%%:*}"
        if [ $STATUS = 2 ] && grep -q "cannot read the artefact: ${f#*:}" err; then
                pass "${f%%:*}: an error ($(cat err))"
        else
                fail "${f%%:*}: an error" "status $STATUS: $(cat err)"
        fi
done
# Text output names the kind.
verify root.tar.zst
grep -q "tar archive, $(cut -d' ' -f2 dir.json.kind) ELF objects" err && pass "the text names a tar archive" ||
        fail "the text names a tar archive" "$(cat err)"
if [ $SQ = 1 ]; then
        verify root.sqfs
        grep -q "SquashFS image," err && pass "the text names a SquashFS image" || fail "the text names a SquashFS image" "$(cat err)"
fi
verify docker.tar
grep -q "': image," err && pass "the text names an image" || fail "the text names an image" "$(cat err)"
finish
