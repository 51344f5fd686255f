#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Regenerates fuzz/corpus/gobuild: small ELF objects holding Go build
information in both layouts (inline, Go 1.18 and later; pointers, Go
1.13 to 1.17), both byte orders and word sizes, with a section table or
without, and plain module texts; some also with Go's build-id note in a
PT_NOTE (owner "Go", type 4), which makes pkgnote_info_read() read the
build information into the object's summary.  With GO programs given as arguments,
their real ".go.buildinfo" blobs are wrapped the same way (inline layout).
Usage: fuzz/make-seeds-gobuild.py [GO-PROGRAM...]"""
import os
import struct
import subprocess
import sys
import tempfile

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "gobuild")
BASE, DATA = 0x400000, 0x1000
START = bytes([0x30, 0x77, 0xAF, 0x0C, 0x92, 0x74, 0x08, 0x02, 0x41, 0xE1, 0xC1, 0x07, 0xE6, 0xD6, 0x18, 0xE6])
END = bytes([0xF9, 0x32, 0x43, 0x31, 0x86, 0x18, 0x20, 0x72, 0x00, 0x82, 0x42, 0x10, 0x41, 0x16, 0xD8, 0xF2])
MOD = (b"path\texample.com/app\nmod\texample.com/app\t(devel)\t\ndep\texample.com/lib\tv1.2.3\th1:abc=\n"
       b"dep\texample.com/local\tv0.0.0\n=>\t../local\t\t\nbuild\t-compiler=gc\nbuild\t-ldflags=\"-s -w\"\n"
       b"build\t\"k y\"=`raw`\nbuild\tGOARCH=amd64\n")


def uvarint(v):
    out = bytearray()
    while True:
        out.append((v & 0x7F) | (0x80 if v >= 0x80 else 0))
        v >>= 7
        if not v:
            return bytes(out)


NOTE_AT = 0x200


def elf(blob, is64, be, section, note=False):
    e = ">" if be else "<"
    names = b"\0.go.buildinfo\0.shstrtab\0"
    ph, phsz, shsz = (64, 56, 64) if is64 else (52, 32, 40)
    d = bytearray(DATA) + blob
    stroff = (len(d) + 7) & ~7
    d += bytes(stroff - len(d)) + names
    shoff = (len(d) + 7) & ~7
    d += bytes(shoff - len(d))
    d[0:7] = b"\x7fELF" + bytes([2 if is64 else 1, 2 if be else 1, 1])
    nph = 2 if note else 1
    if note:
        d[NOTE_AT:NOTE_AT + 24] = struct.pack(e + "III", 4, 8, 4) + b"Go\0\0" + b"buildid1"
    struct.pack_into(e + "HHI", d, 16, 2, 62 if is64 else 3, 1)
    if is64:
        struct.pack_into(e + "QQ", d, 32, ph, shoff if section else 0)
        struct.pack_into(e + "HHHHHH", d, 52, 64, phsz, nph, shsz, 3 if section else 0, 2 if section else 0)
        struct.pack_into(e + "IIQQQQQQ", d, ph, 1, 6, DATA, BASE + DATA, BASE + DATA, len(blob), len(blob), 0x1000)
        if note:
            struct.pack_into(e + "IIQQQQQQ", d, ph + phsz, 4, 4, NOTE_AT, BASE + NOTE_AT, BASE + NOTE_AT, 24, 24, 4)
        if section:
            d += bytes(shsz)
            d += struct.pack(e + "IIQQQQIIQQ", 1, 1, 3, BASE + DATA, DATA, len(blob), 0, 0, 16, 0)
            d += struct.pack(e + "IIQQQQIIQQ", 15, 3, 0, 0, stroff, len(names), 0, 0, 1, 0)
    else:
        struct.pack_into(e + "II", d, 28, ph, shoff if section else 0)
        struct.pack_into(e + "HHHHHH", d, 40, 52, phsz, nph, shsz, 3 if section else 0, 2 if section else 0)
        struct.pack_into(e + "IIIIIIII", d, ph, 1, DATA, BASE + DATA, BASE + DATA, len(blob), len(blob), 6, 0x1000)
        if note:
            struct.pack_into(e + "IIIIIIII", d, ph + phsz, 4, NOTE_AT, BASE + NOTE_AT, BASE + NOTE_AT, 24, 24, 4, 4)
        if section:
            d += bytes(shsz)
            d += struct.pack(e + "IIIIIIIIII", 1, 1, 3, BASE + DATA, DATA, len(blob), 0, 0, 16, 0)
            d += struct.pack(e + "IIIIIIIIII", 15, 3, 0, 0, stroff, len(names), 0, 0, 1, 0)
    return bytes(d)


def inline(ptr, be, vers=b"go1.19.8", mod=MOD):
    framed = START + mod + END
    return (b"\xff Go buildinf:" + bytes([ptr, 2 | (1 if be else 0)]) + bytes(16)
            + uvarint(len(vers)) + vers + uvarint(len(framed)) + framed)


def pointers(ptr, be, vers=b"go1.16.15"):
    e = ">" if be else "<"
    p = "Q" if ptr == 8 else "I"
    framed = START + MOD + END
    b = bytearray(b"\xff Go buildinf:" + bytes([ptr, 1 if be else 0]) + bytes(16))
    b += bytes(32)
    h1, h2 = len(b), len(b) + 2 * ptr
    b += bytes(4 * ptr)
    s1 = len(b)
    b += vers
    s2 = len(b)
    b += framed
    struct.pack_into(e + p + p, b, 16, BASE + DATA + h1, BASE + DATA + h2)
    struct.pack_into(e + p + p, b, h1, BASE + DATA + s1, len(vers))
    struct.pack_into(e + p + p, b, h2, BASE + DATA + s2, len(framed))
    return bytes(b)


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    for is64 in (False, True):
        for be in (False, True):
            for section in (False, True):
                tag = "%d%s%s" % (64 if is64 else 32, "be" if be else "le", "-sh" if section else "")
                ptr = 8 if is64 else 4
                write("inline-" + tag, elf(inline(ptr, be), is64, be, section))
                write("pointers-" + tag, elf(pointers(ptr, be), is64, be, section))
    for is64 in (False, True):
        for be in (False, True):
            tag = "%d%s" % (64 if is64 else 32, "be" if be else "le")
            ptr = 8 if is64 else 4
            write("note-inline-" + tag, elf(inline(ptr, be), is64, be, True, note=True))
            write("note-pointers-" + tag, elf(pointers(ptr, be), is64, be, False, note=True))
    write("inline-nomod", elf(b"\xff Go buildinf:" + bytes([8, 2]) + bytes(16) + uvarint(8) + b"go1.20.1" + uvarint(0),
                              True, False, True))
    write("text-mod", MOD)
    for path in sys.argv[1:]:
        with tempfile.TemporaryDirectory() as t:
            out = os.path.join(t, "bi")
            subprocess.run(["objcopy", "-O", "binary", "--only-section=.go.buildinfo", path, out], check=True)
            blob = open(out, "rb").read()[:65536]
        write("real-" + os.path.basename(path), elf(blob, True, False, True))


main()
