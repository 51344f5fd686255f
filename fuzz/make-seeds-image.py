#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Regenerates the seed corpora fuzz/corpus/image and fuzz/corpus/archive.

Usage: fuzz/make-seeds-image.py [OUTDIR]   (default: the fuzz/ directory)

image: a first byte (odd: docker, even: OCI), then JSON documents split by
NUL bytes: manifest.json or index.json first, then the blobs asked for in
turn.  archive: small tar and cpio archives: root filesystems with hard
links, docker save and OCI archives with whiteouts and opaque directories,
compressed and nested.  The ELF member is the fuzz/corpus/elf seed
x86_64-no-section-headers (a program with a package note).
"""
import gzip
import hashlib
import io
import json
import os
import sys
import tarfile

here = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1] if len(sys.argv) > 1 else here
img_dir = os.path.join(out, "corpus", "image")
arc_dir = os.path.join(out, "corpus", "archive")
os.makedirs(img_dir, exist_ok=True)
os.makedirs(arc_dir, exist_ok=True)
with open(os.path.join(here, "corpus", "elf", "x86_64-no-section-headers"), "rb") as f:
    ELF = f.read()


def sha(b):
    return hashlib.sha256(b).hexdigest()


def put(d, name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def image(name, docker, *docs):
    parts = [d if isinstance(d, bytes) else json.dumps(d).encode() for d in docs]
    put(img_dir, name, (b"\x01" if docker else b"\x00") + b"\x00".join(parts))


H = ["sha256:" + sha(bytes([i])) for i in range(8)]
layer = lambda i: {"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": H[i], "size": 10}
manifest = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": H[7], "size": 2},
            "layers": [layer(1), layer(2)]}
desc = lambda i, **kw: dict({"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": H[i], "size": 100}, **kw)
index = {"schemaVersion": 2, "manifests": [desc(3, annotations={"org.opencontainers.image.ref.name": "v1"})]}
image("oci-one.bin", False, index, manifest)
image("oci-two-tags.bin", False, {"schemaVersion": 2, "manifests": [
    desc(3, annotations={"org.opencontainers.image.ref.name": "v1"}),
    desc(4, annotations={"org.opencontainers.image.ref.name": "v2"})]}, manifest, manifest)
image("oci-multiarch.bin", False, index, {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
    "manifests": [desc(5, platform={"os": "linux", "architecture": "arm64", "variant": "v8"}),
                  desc(6, platform={"os": "linux", "architecture": "amd64"})]}, manifest, manifest)
image("oci-self-loop.bin", False, index, index, index, index, index, index, index, index)
image("oci-no-layers.bin", False, index, {"schemaVersion": 2})
image("oci-bad-digest.bin", False, {"manifests": [{"digest": "sha256:../../etc/passwd"}]})
image("oci-digest-alg.bin", False, {"manifests": [{"digest": "SHA256+x:" + "a" * 64}]}, manifest)
image("oci-layer-not-object.bin", False, index, {"layers": [1, "x", None, {"digest": 5}]})
image("oci-empty.bin", False, b"")
image("oci-not-json.bin", False, b"{\"manifests\":[", manifest)
docker = [{"Config": "c.json", "RepoTags": ["a:1"], "Layers": ["%s/layer.tar" % H[1][7:], "%s.tar" % H[2][7:]]}]
image("docker-one.bin", True, docker)
image("docker-two.bin", True, docker + [{"Config": "d.json", "RepoTags": ["b:2", "b:latest"], "Layers": ["x/layer.tar"]}])
image("docker-hostile-names.bin", True, [{"Layers": ["../../etc/passwd", "/abs/layer.tar", "./a/./b//layer.tar", "", "."]}])
image("docker-not-array.bin", True, {"Layers": []})
image("docker-empty-array.bin", True, [])


def tar(entries, fmt=tarfile.PAX_FORMAT):
    """entries: (name, data | ('dir',) | ('sym', target) | ('hard', target))"""
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode="w", format=fmt) as t:
        for name, v in entries:
            i = tarfile.TarInfo(name)
            i.mtime = 1700000000
            if isinstance(v, tuple):
                i.type = {"dir": tarfile.DIRTYPE, "sym": tarfile.SYMTYPE, "hard": tarfile.LNKTYPE,
                          "fifo": tarfile.FIFOTYPE}[v[0]]
                if len(v) > 1:
                    i.linkname = v[1]
                t.addfile(i)
            else:
                i.size = len(v)
                t.addfile(i, io.BytesIO(v))
    return b.getvalue()


def cpio(entries):
    """newc ("070701") members: (name, data)."""
    b = b""
    for n, (name, data) in enumerate(entries + [("TRAILER!!!", b"")]):
        nm = name.encode() + b"\0"
        mode = 0o100755 if name != "TRAILER!!!" else 0
        hdr = b"070701" + b"".join(b"%08X" % v for v in (n + 1, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(nm), 0))
        b += hdr + nm
        b += b"\0" * (-len(b) % 4) + data
        b += b"\0" * (-len(b) % 4)
    return b


root = [("usr", ("dir",)), ("usr/bin/prog", ELF), ("usr/bin/hard", ("hard", "usr/bin/prog")),
        ("usr/bin/sym", ("sym", "prog")), ("./usr//lib/./x", ELF), ("usr/bin/prog", b"text now"),
        ("run/fifo", ("fifo",)), ("../escape", ELF), ("usr/bin/.wh.prog", b"")]
put(arc_dir, "rootfs.tar", tar(root))
put(arc_dir, "rootfs-gnu.tar", tar(root, tarfile.GNU_FORMAT))
put(arc_dir, "rootfs.tar.gz", gzip.compress(tar(root), mtime=0))
put(arc_dir, "rootfs.cpio", cpio([("usr/bin/prog", ELF), ("./etc/os-release", b"ID=x\n"), ("/abs/y", ELF)]))

lower = tar([("usr/bin/a", ELF), ("usr/bin/b", ELF), ("opt/x/old", ELF), ("srv/deep/er/f", ELF)])
upper = tar([("usr/bin/.wh.a", b""), ("opt/x/.wh..wh..opq", b""), ("opt/x/new", ELF),
             ("srv/deep", ("sym", "/tmp")), ("usr/bin/c", ("hard", "usr/bin/b")), ("usr/bin/.wh.", b"")])
top = tar([(".wh..wh..opq", b""), ("only", ELF)])
ids = [sha(l) for l in (lower, upper, top)]


def docker_save(layers, order):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode="w", format=tarfile.PAX_FORMAT) as t:
        for i in order:
            d = layers[i]
            ti = tarfile.TarInfo(sha(d) + "/layer.tar")
            ti.size = len(d)
            t.addfile(ti, io.BytesIO(d))
        m = json.dumps([{"Config": "c.json", "RepoTags": ["t:1"],
                         "Layers": [sha(d) + "/layer.tar" for d in layers]}]).encode()
        ti = tarfile.TarInfo("manifest.json")
        ti.size = len(m)
        t.addfile(ti, io.BytesIO(m))
    return b.getvalue()


put(arc_dir, "docker-two-layers.tar", docker_save([lower, upper], [1, 0]))
put(arc_dir, "docker-opaque-root.tar", docker_save([lower, upper, top], [0, 1, 2]))


def oci_tar(layers):
    b = io.BytesIO()
    blobs = {}

    def blob(data, mt):
        blobs[sha(data)] = data
        return {"mediaType": mt, "digest": "sha256:" + sha(data), "size": len(data)}
    ls = [blob(gzip.compress(layers[0], mtime=0), "application/vnd.oci.image.layer.v1.tar+gzip")] + \
        [blob(l, "application/vnd.oci.image.layer.v1.tar") for l in layers[1:]]
    cfg = blob(b'{"architecture":"amd64","os":"linux"}', "application/vnd.oci.image.config.v1+json")
    man = blob(json.dumps({"schemaVersion": 2, "config": cfg, "layers": ls}).encode(),
               "application/vnd.oci.image.manifest.v1+json")
    with tarfile.open(fileobj=b, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, data in [("oci-layout", b'{"imageLayoutVersion":"1.0.0"}'),
                           ("index.json", json.dumps({"schemaVersion": 2, "manifests": [man]}).encode())] + \
                [("blobs/sha256/" + k, v) for k, v in blobs.items()]:
            ti = tarfile.TarInfo(name)
            ti.size = len(data)
            t.addfile(ti, io.BytesIO(data))
    return b.getvalue()


put(arc_dir, "oci-layout.tar", oci_tar([lower, upper]))
put(arc_dir, "oci-opaque-root.tar", oci_tar([lower, upper, top]))


# Artefacts: a .deb (ar of debian-binary, control and data tarballs), an
# Alpine .apk (gzip members of tar, the first cut short of its end), a wheel
# and a .conda (zip, one holding a nested tar), an initramfs of two cpio
# segments (plain, then gzip), and a .deb inside a tar.
def ar(members):
    b = b"!<arch>\n"
    for name, data in members:
        b += b"%-16s%-12d%-6d%-6d%-8s%-10d`\n" % (name.encode(), 0, 0, 0, b"100644", len(data)) + data
        b += b"\n" * (len(data) % 2)
    return b


def zipped(members):
    import zipfile
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            z.writestr(zipfile.ZipInfo(name, (2023, 1, 1, 0, 0, 0)), data)
    return b.getvalue()


deb = ar([("debian-binary", b"2.0\n"), ("control.tar.gz", gzip.compress(tar([("control", b"Package: x\n")]), mtime=0)),
          ("data.tar.gz", gzip.compress(tar([("usr/bin/prog", ELF), ("usr/lib/x", ELF)]), mtime=0))])
put(arc_dir, "package.deb", deb)
cut = tar([(".PKGINFO", b"pkgname = x\n")]).rstrip(b"\0")
put(arc_dir, "package.apk", gzip.compress(cut + b"\0" * (-len(cut) % 512), mtime=0) +
    gzip.compress(tar([("usr/lib/x", ELF)]), mtime=0))
put(arc_dir, "wheel.whl", zipped([("pkg/_native.so", ELF), ("pkg-1.dist-info/METADATA", b"Name: pkg\n")]))
put(arc_dir, "package.conda", zipped([("metadata.json", b"{}"),
                                      ("pkg-x-1-0.tar.gz", gzip.compress(tar([("lib/x.so", ELF)]), mtime=0))]))
early = cpio([("kernel/x86/microcode/GenuineIntel.bin", b"\x01" * 64)])
put(arc_dir, "initramfs.img", early + b"\0" * (-len(early) % 512) +
    gzip.compress(cpio([("usr/bin/prog", ELF), ("init", ELF)]), mtime=0))
put(arc_dir, "nested-deb.tar", tar([("var/cache/apt/archives/x.deb", deb), ("usr/bin/prog", ELF)]))
