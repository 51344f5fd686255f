#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Regenerates fuzz/corpus/kernel: raw note streams as /sys/kernel/notes
holds them (with a build salt, an FDO package note, big-endian), x86
bzImages with gzip, xz, zstd and plain payloads, an ELF vmlinux, module
objects plain and compressed, and a few broken ones (tests/read/kernel_fixture.py).
Usage: fuzz/make-seeds-kernel.py"""
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "read"))
import kernel_fixture as kf  # noqa: E402

OUT = os.path.join(HERE, "corpus", "kernel")
ID = "f8da1e460d1343b62f4a8880ae5ce63634756e7a"
PKG = '{"type":"deb","os":"ubuntu","name":"linux","version":"6.8.0-31.31","architecture":"amd64"}'


def main():
    os.makedirs(OUT, exist_ok=True)
    seeds = {
        "notes-salt": kf.notes(ID, "6.1.102-1.182.amzn2023.x86_64"),
        "notes-package": kf.notes(ID, "6.8.0-31-generic", PKG),
        "notes-be": kf.notes(ID, "x", None, be=True),
        "notes-truncated": kf.notes(ID, "6.1.0")[:-7],
        "vmlinux": kf.vmlinux(kf.notes(ID), 0x2000),
        "module": kf.module(ID),
        "module.gz": kf.compress(kf.module(ID), "gzip"),
        "module.xz": kf.compress(kf.module(ID), "xz"),
    }
    for codec in ("gzip", "xz", "zstd", "none"):
        seeds["bzimage-" + codec] = kf.image(ID, codec, 0x11000)
    v = kf.vmlinux(kf.notes(ID), 0x11000)
    gz = kf.compress(v, "gzip")
    seeds["bzimage-truncated"] = kf.bzimage(gz[: len(gz) // 2], payload_len=len(gz))
    seeds["bzimage-lzma"] = kf.bzimage(b"\x5d\x00\x00\x80\x00" + b"\0" * 64)
    seeds["bzimage-old-protocol"] = kf.bzimage(gz, version=0x206)
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


main()
