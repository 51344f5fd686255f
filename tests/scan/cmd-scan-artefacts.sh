#!/bin/sh
# pkgnote scan of the artefacts people ship, made here by the real tools:
# .deb and .udeb (dpkg-deb, each compression; one from the apt cache when
# the archive is reachable), .rpm (rpmbuild, each payload compression), an
# Alpine-style .apk (tar and gzip segments), a wheel and a .conda (Python's
# zipfile, tar, zstd), a conda .tar.bz2, an ISO image (xorriso), initramfs
# images as dracut and initramfs-tools lay them out (an uncompressed early
# cpio, then compressed ones), a .deb inside a tar.  Every ELF file of each must be reported with
# its note and the chain of archives it is in; truncated, bombed and
# over-nested artefacts end with clear errors.
. "$SRCDIR/tests/lib.sh"
H="$SRCDIR/tests/scan"
require python3 cc dpkg-deb cpio zstd xz gzip bzip2
require_feature archive

. "$H/image-checks.sh"
make_programs
cc -shared -fPIC -o libgamma.so.1 -Wl,-soname,libgamma.so.1 -fuse-ld=bfd \
        -Xlinker '--package-metadata={"type":"pypi","name":"gamma","version":"3.1"}' main.c ||
        fatal "cannot link libgamma"

# Paths of ELF objects with notes and chains: PATH [CHAIN] NAME@VERSION.
inventory() {
        python3 -c 'import json, sys
for line in sys.stdin:
    d = json.loads(line)
    if "path" in d:
        ch = "!".join(d.get("containers", []))
        notes = " ".join("%s@%s" % (n.get("name"), n.get("version")) for n in d["packages"]) or "-"
        print(d["path"], "[" + ch + "]", notes)' < out > inv
}
scan_art() { # FILE [OPTIONS...]
        f=$1
        shift
        "$PKGNOTE" scan --format json "$@" "$f" > out 2> err
        STATUS=$?
        inventory
}
expect_inv() { # WANT NAME
        printf '%s\n' "$1" > want
        if [ "$STATUS" = 0 ] && diff -u want inv > diff.txt; then pass "$2"; else
                fail "$2" "exit status $STATUS: $(head -c 400 err)"; sed 's/^/# /' diff.txt 2>/dev/null; fi
}

# --- Debian packages
mkdir -p deb/DEBIAN deb/usr/bin deb/usr/lib
cp alpha deb/usr/bin/alpha && cp libgamma.so.1 deb/usr/lib/libgamma.so.1 && ln -s libgamma.so.1 deb/usr/lib/libgamma.so
printf 'Package: alpha\nVersion: 1.0-1\nArchitecture: amd64\nMaintainer: t <t@example.org>\nDescription: test\n' > deb/DEBIAN/control
DEB='/usr/bin/alpha [/data.tar.COMP] alpha@1.0-1
/usr/lib/libgamma.so.1 [/data.tar.COMP] gamma@3.1'
for z in xz gzip zstd none; do
        dpkg-deb -Z$z --root-owner-group -b deb alpha_$z.deb > /dev/null 2>&1 || { fail "dpkg-deb -Z$z"; continue; }
        ext=$(ar t alpha_$z.deb | sed -n 's/^data\.tar\.\{0,1\}//p')
        scan_art alpha_$z.deb
        expect_inv "$(printf '%s\n' "$DEB" | sed "s|data.tar.COMP|data.tar${ext:+.$ext}|")" ".deb (dpkg-deb -Z$z): the data tarball's objects"
done
cp alpha_xz.deb alpha.udeb
scan_art alpha.udeb
expect_inv "$(printf '%s\n' "$DEB" | sed 's|data.tar.COMP|data.tar.xz|')" ".udeb: the same format"
# One from the distribution, when its archive is reachable.
if (apt-get download libsystemd0 > apt.log 2>&1); then
        d=$(ls libsystemd0_*.deb)
        scan_art "$d"
        want=$(dpkg-deb --fsys-tarfile "$d" | tar -t | while read -r m; do
                case $m in *.so.*[0-9]) [ -f "x/$m" ] || { mkdir -p x && dpkg-deb -x "$d" x; }
                        [ -L "x/$m" ] || echo "/${m#./}";;
                esac
        done)
        got=$(cut -d' ' -f1 inv)
        v=$(dpkg-deb -f "$d" Version)
        if [ "$STATUS" = 0 ] && [ -n "$want" ] && [ "$got" = "$want" ] && grep -q " systemd@$v\$" inv; then
                pass "a Debian .deb from the archive: its library with the note of systemd $v"
        else
                fail "a Debian .deb from the archive: its library with the note of systemd $v" "want $want got $got: $(cat err)"
        fi
else
        skip "a Debian .deb from the archive" "apt-get download failed: $(tail -n 1 apt.log)"
fi

# --- RPM packages
if command -v rpmbuild > /dev/null; then
        mkdir -p rpm/SOURCES
        cp alpha libgamma.so.1 rpm/SOURCES/
        cat > alpha.spec <<'SPEC'
Name: alpha
Version: 1.0
Release: 1
Summary: test
License: MIT
%description
test
%install
mkdir -p %{buildroot}/usr/bin %{buildroot}/usr/lib64
cp %{_sourcedir}/alpha %{buildroot}/usr/bin/alpha
cp %{_sourcedir}/libgamma.so.1 %{buildroot}/usr/lib64/libgamma.so.1
%files
/usr/bin/alpha
/usr/lib64/libgamma.so.1
SPEC
        for io in w9.gzdio w6.xzdio w19.zstdio w.ufdio; do
                rm -rf rpm/RPMS
                if rpmbuild -bb --define "_topdir $PWD/rpm" --define "_binary_payload $io" --define "__strip /bin/true" \
                        --define "__brp_strip /bin/true" --define "debug_package %{nil}" --define "__os_install_post %{nil}" \
                        alpha.spec > rpmbuild.log 2>&1; then
                        scan_art "$(ls rpm/RPMS/*/*.rpm)"
                        [ $io = w6.xzdio ] && cp rpm/RPMS/*/*.rpm alpha.rpm
                        expect_inv '/usr/bin/alpha [] alpha@1.0-1
/usr/lib64/libgamma.so.1 [] gamma@3.1' ".rpm ($io payload)"
                else
                        fail ".rpm ($io payload)" "rpmbuild: $(tail -n 3 rpmbuild.log)"
                fi
        done
else
        missing ".rpm" rpmbuild
fi

# --- Alpine: three gzip members, the first two tar segments without
# their end blocks (as abuild cuts them), the data last.
mkdir -p apk/usr/lib && cp libgamma.so.1 apk/usr/lib/ && echo sig > .SIGN.RSA.key.rsa.pub && echo 'pkgname = gamma' > .PKGINFO
python3 - <<'PY' || fatal "cannot make the apk"
import gzip, io, tarfile
def seg(build, cut):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode="w", format=tarfile.USTAR_FORMAT) as t:
        build(t)
    data = b.getvalue()
    if cut:
        data = data.rstrip(b"\0")
        data += b"\0" * (-len(data) % 512)
    return gzip.compress(data)
with open("gamma.apk", "wb") as f:
    f.write(seg(lambda t: t.add(".SIGN.RSA.key.rsa.pub"), True))
    f.write(seg(lambda t: t.add(".PKGINFO"), True))
    f.write(seg(lambda t: t.add("apk/usr", arcname="usr"), False))
PY
scan_art gamma.apk
expect_inv '/usr/lib/libgamma.so.1 [] gamma@3.1' ".apk: gzip segments of tar, the data last"

# --- Python wheel, conda packages
python3 - <<'PY' || fatal "cannot make the wheel"
import zipfile
with zipfile.ZipFile("gamma-3.1-cp311-linux_x86_64.whl", "w", zipfile.ZIP_DEFLATED) as z:
    z.write("libgamma.so.1", "gamma/_native.so")
    z.writestr("gamma-3.1.dist-info/METADATA", "Name: gamma\nVersion: 3.1\n")
PY
scan_art gamma-3.1-cp311-linux_x86_64.whl
expect_inv '/gamma/_native.so [] gamma@3.1' "wheel: a zip with a native module"
mkdir -p conda/lib conda/info && cp libgamma.so.1 conda/lib/ && echo '{"name":"gamma"}' > conda/info/index.json
tar -C conda -cf - lib | zstd -q -o pkg-gamma-3.1-0.tar.zst && tar -C conda -cf - info | zstd -q -o info-gamma-3.1-0.tar.zst &&
        python3 -c 'import zipfile
with zipfile.ZipFile("gamma-3.1-0.conda", "w", zipfile.ZIP_STORED) as z:
    z.writestr("metadata.json", "{\"conda_pkg_format_version\": 2}")
    z.write("info-gamma-3.1-0.tar.zst"); z.write("pkg-gamma-3.1-0.tar.zst")' || fatal "cannot make the .conda"
scan_art gamma-3.1-0.conda
expect_inv '/lib/libgamma.so.1 [/pkg-gamma-3.1-0.tar.zst] gamma@3.1' ".conda: a zip of zstd tars"
tar -C conda -cjf gamma-3.1-0.tar.bz2 lib info
scan_art gamma-3.1-0.tar.bz2
expect_inv '/lib/libgamma.so.1 [] gamma@3.1' "conda .tar.bz2"

# --- initramfs: segments as the kernel reads them
mkdir -p early/kernel/x86/microcode main/usr/bin main/usr/lib late/usr/bin
head -c 3000 /dev/urandom > early/kernel/x86/microcode/GenuineIntel.bin
cp alpha main/usr/bin/alpha && cp libgamma.so.1 main/usr/lib/ && cp beta late/usr/bin/late && cp beta main/usr/bin/beta
(cd early && find . | cpio -o -H newc --quiet) > early.cpio
(cd main && find . | cpio -o -H newc --quiet) > main.cpio
(cd late && find . | cpio -o -H newc --quiet) > late.cpio
INITRD='/usr/bin/alpha [] alpha@1.0-1
/usr/bin/beta [] beta@2.0-1.fc40
/usr/lib/libgamma.so.1 [] gamma@3.1'
for z in zstd gzip xz lz4; do
        case $z in lz4) comp="lz4 -l -q -c" ;; xz) comp="xz -c --check=crc32" ;; *) comp="$z -q -c" ;; esac
        { cat early.cpio; $comp main.cpio; } > initrd-$z.img
        scan_art initrd-$z.img
        expect_inv "$INITRD" "initramfs: uncompressed early cpio, then $z"
done
# Two uncompressed segments padded to 512 bytes (as dracut writes the early
# one), then one compressed; later members over earlier ones.
python3 -c 'import sys
d = open("early.cpio", "rb").read(); d += b"\0" * (-len(d) % 512)
open("padded.cpio", "wb").write(d)'
{ cat padded.cpio main.cpio; gzip -c late.cpio; } > initrd-3.img
scan_art initrd-3.img
expect_inv "$(printf '%s\n' "$INITRD" '/usr/bin/late [] beta@2.0-1.fc40' | sort)" \
        "initramfs: three segments, two plain (padded), one gzip"
# From a pipe, as from the file: every segment.
cat initrd-3.img | "$PKGNOTE" scan --format json - > out 2> err
STATUS=$?
inventory
expect_inv "$(printf '%s\n' "$INITRD" '/usr/bin/late [] beta@2.0-1.fc40' | sort)" \
        "initramfs from a pipe: its three segments"
scan_art main.cpio
expect_inv '/usr/bin/alpha [] alpha@1.0-1
/usr/bin/beta [] beta@2.0-1.fc40
/usr/lib/libgamma.so.1 [] gamma@3.1' "a plain cpio archive"

# --- an ISO 9660 image (Rock Ridge names)
if command -v xorriso > /dev/null; then
        mkdir -p iso/usr/bin iso/usr/lib && cp alpha iso/usr/bin/ && cp libgamma.so.1 iso/usr/lib/ &&
                xorriso -as mkisofs -quiet -R -o t.iso iso > xorriso.log 2>&1 || fatal "xorriso: $(cat xorriso.log)"
        scan_art t.iso
        expect_inv '/usr/bin/alpha [] alpha@1.0-1
/usr/lib/libgamma.so.1 [] gamma@3.1' "an ISO 9660 image"
else
        missing "an ISO 9660 image" xorriso
fi

# --- SquashFS: mksquashfs with each compressor, gensquashfs; hard and
# symbolic links; the same objects as the tree it was made from
if ! with_feature squashfs "SquashFS images"; then
        :
elif command -v mksquashfs > /dev/null; then
        mkdir -p sq/usr/bin sq/usr/lib sq/opt/deep/er && cp alpha sq/usr/bin/ && cp libgamma.so.1 sq/usr/lib/ &&
                ln sq/usr/bin/alpha sq/opt/deep/er/alpha-hard && ln -s libgamma.so.1 sq/usr/lib/libgamma.so &&
                cp beta sq/opt/beta || fatal "cannot make the SquashFS tree"
        SQ='/opt/beta [] beta@2.0-1.fc40
/opt/deep/er/alpha-hard [] alpha@1.0-1
/usr/bin/alpha [] alpha@1.0-1
/usr/lib/libgamma.so.1 [] gamma@3.1'
        for comp in gzip xz zstd lz4 lzo; do
                rm -f t.sqfs
                if ! mksquashfs sq t.sqfs -quiet -no-progress -comp $comp > mksq.log 2>&1; then
                        [ $comp = lzo ] && continue # not built into every mksquashfs
                        fail "mksquashfs -comp $comp" "$(cat mksq.log)"
                        continue
                fi
                scan_art t.sqfs
                if [ $comp = lzo ] && [ "$STATUS" = 2 ] && grep -q "compressor (3) is not supported by libsquashfs" err; then
                        pass "a SquashFS image compressed with lzo, which this libsquashfs lacks: a clear error"
                        continue
                fi
                expect_inv "$SQ" "a SquashFS image (mksquashfs -comp $comp): its objects, hard link included"
                [ $comp = zstd ] && cp out sq.out && cp t.sqfs img.sqfs
        done
        cp sq.out out
        if python3 -c 'import json, sys
d = [json.loads(l) for l in open("out")][-1]["summary"]
sys.exit(not (d["symlinks"] == 1 and d["directories"] >= 6))'; then
                pass "a SquashFS image: its symbolic link and directories counted"
        else
                fail "a SquashFS image: its symbolic link and directories counted" "$(tail -n 1 out)"
        fi
        if command -v gensquashfs > /dev/null; then
                rm -f g.sqfs
                if gensquashfs --pack-dir sq -q g.sqfs > gensq.log 2>&1; then
                        scan_art g.sqfs
                        expect_inv "$SQ" "a SquashFS image made by gensquashfs (squashfs-tools-ng)"
                else
                        fail "gensquashfs" "$(cat gensq.log)"
                fi
        else
                missing "a SquashFS image made by gensquashfs" squashfs-tools-ng
        fi
        # A directory that holds its parent (a/b is a again): patched into an
        # image whose metadata is stored uncompressed; unsquashfs -l agrees
        # that it loops.
        mkdir -p lp/a/b && cp alpha lp/a/b/prog &&
                mksquashfs lp lp.sqfs -quiet -no-progress -noI -noD -noF -noX > /dev/null 2>&1 &&
                python3 - <<'PY' || fatal "cannot make the looping image"
import struct
d = bytearray(open("lp.sqfs", "rb").read())
base = struct.unpack_from("<Q", d, 72)[0] + 2           # the directory table's first block
b = d.find(b"\x01\x00\x00\x00b", base) - 4            # a's entry "b": offset, inode offset
a = d.find(b"\x01\x00\x00\x00a", base) - 4            # the root's entry "a"
a_num = struct.unpack_from("<I", d, a - 12 + 8)[0] + struct.unpack_from("<h", d, a + 2)[0]
struct.pack_into("<I", d, b - 12 + 8, a_num)             # b's header: a's inode number
struct.pack_into("<Hh", d, b, struct.unpack_from("<H", d, a)[0], 0)  # and a's inode
open("loop.sqfs", "wb").write(d)
PY
        if command -v unsquashfs > /dev/null && unsquashfs -l loop.sqfs 2>&1 | grep -q "directory loop"; then
                timeout 60 "$PKGNOTE" scan --format json loop.sqfs > out 2> err
                STATUS=$?
                if [ "$STATUS" = 1 ] && grep -q "/a/b': a directory of the SquashFS image met twice (a loop)" err; then
                        pass "a SquashFS image whose directory holds its parent: the loop named, not followed"
                else
                        fail "a SquashFS image whose directory holds its parent" "status $STATUS: $(cat err)"
                fi
        else
                fail "a SquashFS image whose directory holds its parent" "the patched image does not loop for unsquashfs"
        fi
        # An AppImage: the ELF runtime, its SquashFS payload right after it.
        cat alpha img.sqfs > app.AppImage
        scan_art app.AppImage
        expect_inv "$SQ
app.AppImage [] alpha@1.0-1" "an AppImage: its runtime and the objects of its SquashFS payload"
        cat img.sqfs | "$PKGNOTE" scan - > out 2> err
        STATUS=$?
        if [ "$STATUS" = 2 ] && grep -q 'not an archive\|SquashFS' err; then
                pass "a SquashFS image on a pipe: a clear error"
        else
                fail "a SquashFS image on a pipe: a clear error" "status $STATUS: $(cat err)"
        fi
else
        missing "SquashFS images" squashfs-tools
fi

# --- compressed root filesystems read from a file (decompressed ahead by
# a thread) and from a pipe (by libarchive): the same report, also with
# zeros padding the stream and with several streams one after the other
mkdir -p zr/usr/bin zr/usr/lib && cp alpha zr/usr/bin/ && cp libgamma.so.1 zr/usr/lib/ && cp beta zr/usr/bin/ &&
        tar -C zr -cf zr.tar usr || fatal "cannot make the tar"
for z in gzip xz zstd; do
        $z -c zr.tar > zr.tar.$z
        { cat zr.tar.$z; head -c 1024 /dev/zero; } > zr-pad.tar.$z
        scan_art zr.tar.$z
        cp inv inv.file
        cat zr.tar.$z | "$PKGNOTE" scan --format json - > out 2> err
        STATUS=$?
        inventory
        if [ "$STATUS" = 0 ] && [ -s inv ] && diff -u inv.file inv > diff.txt && [ "$(wc -l < inv)" = 3 ]; then
                pass "a $z tar from a file and from a pipe: the same objects"
        else
                fail "a $z tar from a file and from a pipe: the same objects" "status $STATUS: $(cat err)"; sed 's/^/# /' diff.txt
        fi
        scan_art zr-pad.tar.$z
        if [ "$STATUS" = 0 ] && diff -u inv.file inv > diff.txt; then
                pass "a $z tar padded with zeros after its stream: the same objects"
        else
                fail "a $z tar padded with zeros after its stream" "status $STATUS: $(cat err)"; sed 's/^/# /' diff.txt
        fi
done
# Several streams back to back: the second one's members too (gzip -d,
# xz -d and zstd -d read them all).
for z in gzip xz zstd; do
        mkdir -p zr2/opt && cp beta zr2/opt/beta2 && tar -C zr2 -cf zr2.tar opt
        { $z -c zr.tar; $z -c zr2.tar; } > zr-cat.tar.$z
        scan_art zr-cat.tar.$z
        if [ "$STATUS" = 0 ] && grep -q '^/opt/beta2 ' inv && grep -q '^/usr/bin/alpha ' inv; then
                pass "two $z streams back to back: the members of both"
        else
                fail "two $z streams back to back: the members of both" "status $STATUS: $(cat err) $(cat inv)"
        fi
done

# --- nested: a .deb inside a tar inside a tar
mkdir -p n/var/cache/apt/archives && cp alpha_xz.deb n/var/cache/apt/archives/ && tar -C n -cf inner.tar var &&
        mkdir -p n2/srv && cp inner.tar n2/srv/ && tar -C n2 -czf outer.tar.gz srv || fatal "cannot nest"
scan_art outer.tar.gz
expect_inv '/usr/bin/alpha [/srv/inner.tar!/var/cache/apt/archives/alpha_xz.deb!/data.tar.xz] alpha@1.0-1
/usr/lib/libgamma.so.1 [/srv/inner.tar!/var/cache/apt/archives/alpha_xz.deb!/data.tar.xz] gamma@3.1' \
        "a .deb inside a tar inside a tar.gz: the chain of containers"

# --- archives among the files of a directory tree: packages always,
# others with --open-archives; static libraries and compressed texts never
mkdir -p outdir/sub && cp alpha_xz.deb outdir/ && cp outer.tar.gz outdir/sub/ && cp alpha outdir/alpha &&
        gzip -c main.c > outdir/notes.gz && ar rc outdir/libx.a main.c || fatal "cannot make the output directory"
[ -f alpha.rpm ] && cp alpha.rpm outdir/
RPMINV=
[ -f alpha.rpm ] && RPMINV='
/usr/bin/alpha [outdir/alpha.rpm] alpha@1.0-1
/usr/lib64/libgamma.so.1 [outdir/alpha.rpm] gamma@3.1'
scan_art outdir
expect_inv "$(printf '%s\n' "/usr/bin/alpha [outdir/alpha_xz.deb!/data.tar.xz] alpha@1.0-1$RPMINV
/usr/lib/libgamma.so.1 [outdir/alpha_xz.deb!/data.tar.xz] gamma@3.1
outdir/alpha [] alpha@1.0-1" | sort)" "a directory of packages: each .deb and .rpm opened, with its path as the outer container"
scan_art outdir --open-archives
expect_inv "$(printf '%s\n' "/usr/bin/alpha [outdir/alpha_xz.deb!/data.tar.xz] alpha@1.0-1$RPMINV
/usr/bin/alpha [outdir/sub/outer.tar.gz!/srv/inner.tar!/var/cache/apt/archives/alpha_xz.deb!/data.tar.xz] alpha@1.0-1
/usr/lib/libgamma.so.1 [outdir/alpha_xz.deb!/data.tar.xz] gamma@3.1
/usr/lib/libgamma.so.1 [outdir/sub/outer.tar.gz!/srv/inner.tar!/var/cache/apt/archives/alpha_xz.deb!/data.tar.xz] gamma@3.1
outdir/alpha [] alpha@1.0-1" | sort)" "--open-archives: the tar.gz in the tree opened too, to the .deb three levels down"
# A damaged package in a tree: named, the rest reported.
head -c 3000 alpha_xz.deb > outdir/broken.deb
scan_art outdir
if [ "$STATUS" = 1 ] && grep -q "outdir/broken.deb" err && grep -q "^outdir/alpha \[\] alpha@1.0-1" inv; then
        pass "a damaged .deb in a tree: named on standard error, the rest reported"
else
        fail "a damaged .deb in a tree: named on standard error" "status $STATUS: $(cat err)"
fi

# The same path in the tar's own tree and in the .deb inside it: two
# objects, each its own SPDX file with its evidence.
mkdir -p n3/usr/bin && cp alpha n3/usr/bin/alpha && cp alpha_xz.deb n3/ && tar -C n3 -cf twice.tar usr alpha_xz.deb ||
        fatal "cannot make the tar"
scan_art twice.tar
"$PKGNOTE" scan --format spdx twice.tar > twice.spdx 2> err
if [ "$STATUS" = 0 ] && [ "$(grep -c ' alpha@1.0-1$' inv)" = 2 ] && python3 - <<'PY' 2> check.err
import json
d = json.load(open("twice.spdx"))
files = [f["SPDXID"] for f in d["files"]]
evident = [r["relatedSpdxElement"] for r in d["relationships"] if r["relationshipType"] == "OTHER"]
assert len(files) == 3 and sorted(evident) == sorted(files), (files, evident)
PY
then
        pass "one path in the tree and in a .deb inside it: two objects, each with its SPDX evidence"
else
        fail "one path in the tree and in a .deb inside it: two objects, each with its SPDX evidence" "$(cat err check.err)"
fi

# --- a .deb inside an image layer: its objects belong to each image that
# has the layer
if command -v umoci > /dev/null; then
        umoci init --layout lay > /dev/null && umoci new --image lay:one > /dev/null &&
                umoci unpack --image lay:one b1 > /dev/null && mkdir -p b1/rootfs/var/cache/apt/archives &&
                cp alpha_xz.deb b1/rootfs/var/cache/apt/archives/ && umoci repack --image lay:one b1 > /dev/null &&
                umoci tag --image lay:one two > /dev/null && umoci unpack --image lay:two b2 > /dev/null &&
                mkdir -p b2/rootfs/usr/bin && cp beta b2/rootfs/usr/bin/beta && umoci repack --image lay:two b2 > /dev/null ||
                fatal "umoci cannot make the images"
        "$PKGNOTE" scan --format json lay > out 2> err
        STATUS=$?
        python3 -c 'import json, sys
for line in sys.stdin:
    d = json.loads(line)
    if "path" in d:
        print(d["image"]["reference"], d["path"], "!".join(d.get("containers", [])))' < out > inv
        printf '%s\n' 'oci:lay:one /usr/bin/alpha /var/cache/apt/archives/alpha_xz.deb!/data.tar.xz' \
                'oci:lay:one /usr/lib/libgamma.so.1 /var/cache/apt/archives/alpha_xz.deb!/data.tar.xz' \
                'oci:lay:two /usr/bin/alpha /var/cache/apt/archives/alpha_xz.deb!/data.tar.xz' \
                'oci:lay:two /usr/bin/beta ' \
                'oci:lay:two /usr/lib/libgamma.so.1 /var/cache/apt/archives/alpha_xz.deb!/data.tar.xz' > want
        if [ "$STATUS" = 0 ] && diff -u want inv > diff.txt; then
                pass "a .deb inside an image layer: its objects in each image with the layer"
        else
                fail "a .deb inside an image layer: its objects in each image with the layer" "status $STATUS: $(cat err)"
                sed 's/^/# /' diff.txt
        fi
else
        missing "a .deb inside an image layer" umoci
fi

# --- limits and damage
python3 - <<'PY' || fatal "cannot make the bomb"
import gzip, io, tarfile
b = io.BytesIO()
with tarfile.open(fileobj=b, mode="w") as t:
    i = tarfile.TarInfo("zeros"); i.size = 256 << 20
    t.addfile(i, io.BytesIO(bytes(i.size)))
open("bomb.tar.gz", "wb").write(gzip.compress(b.getvalue(), 9))
PY
scan_art bomb.tar.gz --max-bytes 64M
if [ "$STATUS" = 2 ] && grep -qF "decompresses to more than 67108864 bytes, the limit of one input" err; then
        pass "a decompression bomb stops at --max-bytes, named"
else
        fail "a decompression bomb stops at --max-bytes, named" "status $STATUS: $(cat err)"
fi
scan_art bomb.tar.gz
[ "$STATUS" = 0 ] && pass "the same archive within the default limit" || fail "the same archive within the default limit" "$(cat err)"
"$PKGNOTE" scan --max-bytes 12Q main.cpio > /dev/null 2> err
[ $? = 2 ] && grep -qF "not a size" err && pass "--max-bytes: a bad size" || fail "--max-bytes: a bad size" "$(cat err)"
cp alpha_xz.deb l0 && i=1 && while [ $i -le 6 ]; do
        mkdir -p d$i && cp l$((i - 1)) d$i/l$((i - 1)).x && tar -C d$i -cf l$i l$((i - 1)).x && i=$((i + 1))
done
scan_art l6
if [ "$STATUS" = 1 ] && grep -qF "an archive inside archives 4 deep (PKGNOTE_MAX_SCAN_DEPTH), not opened" err; then
        pass "archives nested past the limit: named, not opened"
else
        fail "archives nested past the limit: named, not opened" "status $STATUS: $(cat err)"
fi
# Cut short anywhere: at each member or segment boundary and in between,
# the scan ends with an error or a problem, never a crash or a hang.
bad=
for f in alpha_xz.deb initrd-3.img gamma.apk gamma-3.1-0.conda gamma-3.1-cp311-linux_x86_64.whl img.sqfs \
        zr.tar.gzip zr.tar.xz zr.tar.zstd; do
        [ -f "$f" ] || continue
        size=$(stat -c %s "$f")
        for cut in 8 60 68 132 512 1000 2048 $((size / 3)) $((size / 2)) $((size - 600)) $((size - 1)); do
                [ "$cut" -gt 0 ] && [ "$cut" -lt "$size" ] || continue
                head -c "$cut" "$f" > cut.bin
                timeout 60 "$PKGNOTE" scan --format json cut.bin > out 2> err
                s=$?
                if [ $s -ge 3 ] || { [ $s != 0 ] && ! [ -s err ]; }; then bad="$bad $f@$cut:$s"; fi
        done
done
[ -z "$bad" ] && pass "artefacts cut short: an error or a problem each time, no crash" ||
        fail "artefacts cut short: an error or a problem each time, no crash" "$bad"

finish
