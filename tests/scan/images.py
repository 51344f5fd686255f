#!/usr/bin/env python3
"""Builds image archives from directories, as the scan tests need them.

  images.py docker OUT.tar LOWER_DIR UPPER_DIR
      a "docker save" archive: ID/layer.tar, ID/json, ID/VERSION, the
      config, manifest.json (last, as docker writes it) and repositories;
      the upper layer is stored before the lower one, so only the manifest
      gives the order.
  images.py oci OUT_DIR LOWER_DIR UPPER_DIR
      an OCI image layout: oci-layout, index.json, blobs/sha256/...; the
      lower layer gzip-compressed, the upper one a plain tar.

Layers are tars of the directories' contents; whiteouts are ordinary
files named .wh.NAME (and .wh..wh..opq) in the directories.  Sockets are
left out (tar cannot hold them).
"""
import gzip
import hashlib
import io
import json
import os
import stat
import sys
import tarfile


def layer_tar(root):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for d, dirs, files in os.walk(root):
            dirs.sort()
            for n in sorted(dirs) + sorted(files):
                p = os.path.join(d, n)
                if stat.S_ISSOCK(os.lstat(p).st_mode):
                    continue
                info = t.gettarinfo(p, arcname=os.path.relpath(p, root))
                if info.isreg():
                    with open(p, "rb") as f:
                        t.addfile(info, f)
                else:
                    t.addfile(info)
    return buf.getvalue()


def sha(b):
    return hashlib.sha256(b).hexdigest()


def add(t, name, data):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = 1700000000
    t.addfile(info, io.BytesIO(data))


def docker(out, lower, upper):
    layers = [layer_tar(lower), layer_tar(upper)]
    ids = [sha(l) for l in layers]
    config = json.dumps({"architecture": "amd64", "os": "linux",
                         "rootfs": {"type": "layers", "diff_ids": ["sha256:" + i for i in ids]}}).encode()
    cid = sha(config)
    with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as t:
        for i in (1, 0):
            add(t, ids[i] + "/VERSION", b"1.0")
            add(t, ids[i] + "/json", json.dumps({"id": ids[i]}).encode())
            add(t, ids[i] + "/layer.tar", layers[i])
        add(t, cid + ".json", config)
        add(t, "manifest.json", json.dumps([{"Config": cid + ".json", "RepoTags": ["test:latest"],
                                             "Layers": [i + "/layer.tar" for i in ids]}]).encode())
        add(t, "repositories", json.dumps({"test": {"latest": ids[1]}}).encode())


def oci(out, lower, upper):
    blobs = os.path.join(out, "blobs", "sha256")
    os.makedirs(blobs, exist_ok=True)

    def put(data):
        d = sha(data)
        with open(os.path.join(blobs, d), "wb") as f:
            f.write(data)
        return {"digest": "sha256:" + d, "size": len(data)}

    raw = [layer_tar(lower), layer_tar(upper)]
    l1 = put(gzip.compress(raw[0], mtime=0))
    l1["mediaType"] = "application/vnd.oci.image.layer.v1.tar+gzip"
    l2 = put(raw[1])
    l2["mediaType"] = "application/vnd.oci.image.layer.v1.tar"
    config = put(json.dumps({"architecture": "amd64", "os": "linux",
                             "rootfs": {"type": "layers", "diff_ids": ["sha256:" + sha(r) for r in raw]}}).encode())
    config["mediaType"] = "application/vnd.oci.image.config.v1+json"
    manifest = put(json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                               "config": config, "layers": [l1, l2]}).encode())
    manifest["mediaType"] = "application/vnd.oci.image.manifest.v1+json"
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"schemaVersion": 2, "manifests": [manifest]}, f)
    with open(os.path.join(out, "oci-layout"), "w") as f:
        json.dump({"imageLayoutVersion": "1.0.0"}, f)


if __name__ == "__main__":
    {"docker": docker, "oci": oci}[sys.argv[1]](*sys.argv[2:])
