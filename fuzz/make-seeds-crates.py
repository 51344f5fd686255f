#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Regenerates fuzz/corpus/crates: crate lists as cargo-auditable writes
them (JSON, its zlib stream, and small ELF objects of both classes and
byte orders with the stream in a ".dep-v0" section), and a few broken
ones.  With Rust programs given as arguments, their own ".dep-v0"
sections are added (the stream, and its JSON).
Usage: fuzz/make-seeds-crates.py [RUST-PROGRAM...]"""
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "crates")

LIST = {"packages": [
    {"name": "autocfg", "version": "1.5.1", "source": "crates.io", "kind": "build"},
    {"name": "cfg-if", "version": "1.0.5", "source": "crates.io"},
    {"name": "demo", "version": "0.3.1", "source": "local", "dependencies": [0, 1, 3, 4], "root": True},
    {"name": "helper", "version": "0.1.0-rc.1+x", "source": "git"},
    {"name": "itoa", "version": "1.0.18", "source": "registry", "dependencies": [1]}], "format": 1}


def elf(stream, is64, be):
    """An ET_EXEC with no segments and three sections: null, .dep-v0, .shstrtab."""
    o = ">" if be else "<"
    names = b"\0.dep-v0\0.shstrtab\0"
    eh = 64 if is64 else 52
    data_off = eh
    names_off = data_off + len(stream)
    sh_off = (names_off + len(names) + 7) & ~7
    shsz = 64 if is64 else 40
    ident = b"\x7fELF" + bytes([2 if is64 else 1, 2 if be else 1, 1]) + bytes(9)
    if is64:
        hdr = ident + struct.pack(o + "HHIQQQIHHHHHH", 2, 62, 1, 0, 0, sh_off, 0, eh, 56, 0, shsz, 3, 2)
    else:
        hdr = ident + struct.pack(o + "HHIIIIIHHHHHH", 2, 3, 1, 0, 0, sh_off, 0, eh, 32, 0, shsz, 3, 2)
    body = bytearray(hdr + stream + names)
    body += bytes(sh_off - len(body))

    def sh(name, typ, off, size):
        if is64:
            return struct.pack(o + "IIQQQQIIQQ", name, typ, 0, 0, off, size, 0, 0, 1, 0)
        return struct.pack(o + "IIIIIIIIII", name, typ, 0, 0, off, size, 0, 0, 1, 0)

    body += bytes(shsz) + sh(1, 1, data_off, len(stream)) + sh(9, 3, names_off, len(names))
    return bytes(body)


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    text = json.dumps(LIST, separators=(",", ":")).encode()
    stream = zlib.compress(text, 7)
    write("list.json", text)
    write("list.zlib", stream)
    for is64 in (False, True):
        for be in (False, True):
            write("elf%d%s" % (64 if is64 else 32, "be" if be else "le"), elf(stream, is64, be))
    write("cycle.json", b'{"packages":[{"name":"a","version":"1.0.0","source":"local","dependencies":[1]},'
          b'{"name":"b","version":"1.0.0","source":"local","dependencies":[0]}]}')
    write("two-roots.json", b'{"packages":[{"name":"a","version":"1.0.0","source":"local","root":true},'
          b'{"name":"b","version":"1.0.0","source":"local","root":true}]}')
    write("range.json", b'{"packages":[{"name":"a","version":"1.0.0","source":"local","dependencies":[7]}]}')
    write("truncated.zlib", stream[: len(stream) // 2])
    write("elf64le-truncated", elf(stream[:-3], True, False))
    write("bomb.zlib", zlib.compress(b'{"packages":[]' + b" " * (9 << 20) + b"}", 9))
    for i, prog in enumerate(sys.argv[1:]):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "s")
            subprocess.run(["objcopy", "--dump-section", ".dep-v0=" + out, prog, os.path.join(d, "x")], check=True)
            with open(out, "rb") as f:
                raw = f.read()
        write("real%d.zlib" % i, raw)
        write("real%d.json" % i, zlib.decompress(raw))


if __name__ == "__main__":
    main()
