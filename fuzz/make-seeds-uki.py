#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Unified kernel images made byte by byte, good and hostile, for deps
--verify (tests/check/cmd-verify-uki.sh) and the initramfs fuzzer's corpus
(fuzz/corpus/initramfs/uki-*).

A PE32+ image (Microsoft "PE Format": DOS header, "PE\\0\\0", COFF header,
optional header with 16 data directories, section table), its sections
laid out at FileAlignment 0x200 and SectionAlignment 0x1000 unless a case
overrides a field; `.linux` a stand-in bzImage whose setup header (x86
boot protocol: "HdrS" at 0x202, version 0x206, kernel_version 0x20e)
points at a version string; `.initrd` a newc cpio archive.

Usage: make-seeds-uki.py DIR [--corpus]
  writes DIR/NAME.efi for every case; --corpus writes DIR/uki-NAME and
  keeps every file under the fuzzer's 1 MiB input cap.
"""
import os
import struct
import sys

GOOD = "6.1.0-1-amd64"
OTHER = "6.1.0-2-amd64"
FILE_ALIGN, SECT_ALIGN = 0x200, 0x1000


def align(n, a):
    return (n + a - 1) // a * a


def cpio(entries):
    """A newc archive of (name, mode, data) entries and its trailer."""
    out = bytearray()
    for ino, (name, mode, data) in enumerate(entries + [("TRAILER!!!", 0, b"")], 1):
        n = name.encode() + b"\0"
        nlink = 2 if mode & 0o170000 == 0o040000 else 1
        out += b"070701" + b"".join(b"%08X" % v for v in (ino, mode, 0, 0, nlink, 0, len(data), 0, 0, 0, 0, len(n), 0))
        out += n + b"\0" * (-(110 + len(n)) % 4)
        out += data + b"\0" * (-len(data) % 4)
    return bytes(out)


def initrd(release=GOOD, where="usr/lib/modules", modules=True):
    """An initrd whose modules (if any) are for RELEASE under WHERE, /lib a
    link to usr/lib when WHERE is below usr."""
    d, f, l = 0o040755, 0o100644, 0o120777
    e = [("usr", d, b""), ("usr/lib", d, b"")]
    e.append(("lib", l, b"usr/lib") if where.startswith("usr/") else ("lib", d, b""))
    if modules:
        e += [(where, d, b""), (f"{where}/{release}", d, b""), (f"{where}/{release}/kernel", d, b""),
              (f"{where}/{release}/kernel/dummy.ko", f, b"\0" * 64),
              (f"{where}/{release}/modules.dep", f, b"kernel/dummy.ko:\n")]
    e.append(("init", f, b"#!/bin/sh\n"))
    return cpio(e)


def bzimage(version=GOOD + " (builder@example) #1 SMP", setup_sects=4, at=0x400):
    """A stand-in bzImage: its setup header and version string only."""
    b = bytearray(align((setup_sects + 1) * 0x200, 0x200))
    b[0x1f1] = setup_sects
    b[0x1fe:0x200] = b"\x55\xaa"
    b[0x202:0x206] = b"HdrS"
    struct.pack_into("<H", b, 0x206, 0x020f)
    struct.pack_into("<H", b, 0x20e, at - 0x200)
    v = version.encode() + b"\0"
    if at + len(v) > len(b):
        b += b"\0" * (at + len(v) - len(b))
    b[at:at + len(v)] = v
    return bytes(b)


def pe(sections, n_sections=None, size_image=None, lfanew=0x80):
    """A PE32+ EFI application of SECTIONS: (name, data, overrides) with
    overrides among raw_off, raw_size, vsize, vaddr."""
    n = len(sections) if n_sections is None else n_sections
    opt_size = 112 + 16 * 8
    table = lfanew + 4 + 20 + opt_size
    headers = align(table + 40 * len(sections), FILE_ALIGN)
    raw, va, rows, body = headers, SECT_ALIGN, [], bytearray()
    for name, data, o in sections:
        rs = align(len(data), FILE_ALIGN)
        row = {"raw_off": raw, "raw_size": rs, "vsize": len(data), "vaddr": va}
        row.update(o)
        rows.append((name, row))
        body += data + b"\0" * (rs - len(data))
        raw += rs
        va += align(max(len(data), 1), SECT_ALIGN)
    image = align(va, SECT_ALIGN) if size_image is None else size_image
    h = bytearray(headers)
    h[0:2] = b"MZ"
    struct.pack_into("<I", h, 0x3c, lfanew)
    h[lfanew:lfanew + 4] = b"PE\0\0"
    struct.pack_into("<HHIIIHH", h, lfanew + 4, 0x8664, n, 0, 0, 0, opt_size, 0x22)
    o = lfanew + 24
    struct.pack_into("<HBBIIIII", h, o, 0x20b, 0, 0, 0, 0, 0, 0x1000, 0x1000)
    struct.pack_into("<QII", h, o + 24, 0x140000000, SECT_ALIGN, FILE_ALIGN)
    struct.pack_into("<III", h, o + 56, image, headers, 0)
    struct.pack_into("<HH", h, o + 68, 10, 0)  # IMAGE_SUBSYSTEM_EFI_APPLICATION
    struct.pack_into("<I", h, o + 108, 16)
    for i, (name, r) in enumerate(rows):
        struct.pack_into("<8sIIIIIIHHI", h, table + 40 * i, name.encode(), r["vsize"], r["vaddr"], r["raw_size"],
                         r["raw_off"], 0, 0, 0, 0, 0x40000040)
    return bytes(h + body)


def garbage(n, seed=1):
    """N bytes of a fixed pseudo-random sequence (no archive, no magic)."""
    out, x = bytearray(), seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7fffffff
        out.append(x >> 16 & 0xff)
    return bytes(out)


def cases(corpus):
    lx, un, ird = (".linux", bzimage(), {}), (".uname", GOOD.encode(), {}), (".initrd", initrd(), {})
    long_uname = b"A" * ((8 << 10) if corpus else (1 << 20))
    return {
        # Good ones: the kernel's modules are there.
        "good": pe([lx, un, ird]),
        "good-linux-only": pe([lx, ird]),
        "good-lib-modules": pe([lx, un, (".initrd", initrd(where="lib/modules"), {})]),
        "good-uname-newline": pe([lx, (".uname", GOOD.encode() + b"\n\0\0", {}), ird]),
        # The modules check: modules for another release than the kernel's.
        "uname-other": pe([lx, (".uname", OTHER.encode(), {}), ird]),
        "linux-other": pe([(".linux", bzimage(OTHER + " (b@e) #2"), {}), ird]),
        "no-modules": pe([lx, (".uname", OTHER.encode(), {}), (".initrd", initrd(modules=False), {})]),
        "no-release": pe([(".linux", garbage(4096), {}), ird]),
        "no-linux": pe([ird]),
        "linux-version-outside": pe([(".linux", bzimage(at=0x200 + 0xfff0 - 0x10), {}), ird]),
        # .uname refused: control characters, too long; .linux's is used.
        "uname-control": pe([lx, (".uname", b"6.1.0\x1b]0;owned\x07\x1b[31m-2", {}), ird]),
        "uname-long": pe([lx, (".uname", long_uname, {}), ird]),
        # names another directory than one below /usr/lib/modules
        "uname-dotdot": pe([lx, (".uname", b"../../..", {}), ird]),
        "uname-past-end": pe([lx, (".uname", GOOD.encode(), {"raw_off": 0x7fff0000}), ird]),
        # The .initrd section refused.
        "initrd-past-end": pe([lx, un, (".initrd", initrd(), {"raw_off": 0x10000000})]),
        "initrd-cut": pe([lx, un, (".initrd", initrd(), {"raw_size": 0x100000, "vsize": 0x100000})]),
        "initrd-size-zero": pe([lx, un, (".initrd", initrd(), {"raw_size": 0, "vsize": 0})]),
        "initrd-huge-vsize": pe([lx, un, (".initrd", initrd(), {"vsize": 0xfffff000})]),
        "initrd-over-headers": pe([lx, un, (".initrd", initrd(), {"raw_off": 0})]),
        "initrd-garbage": pe([lx, un, (".initrd", garbage(3000), {})]),
        "two-initrd": pe([lx, un, ird, ird]),
        "no-sections": pe([], n_sections=0),
        "no-initrd": pe([lx, un]),
        "mz-only": b"MZ" + b"\0" * 254,
        "section-table-outside": pe([lx, un, ird], n_sections=0xfff0 // 40),
        # Profiles: the base profile's .initrd is verified, a profile's own said.
        "profile-initrd": pe([lx, un, ird, (".profile", b"ID=one\n", {}), (".initrd", garbage(512), {})]),
        "profile-only-initrd": pe([lx, un, (".profile", b"ID=one\n", {}), ird]),
        "profile-uname": pe([lx, un, ird, (".profile", b"ID=one\n", {}), (".uname", OTHER.encode(), {})]),
    }


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[-3])
    out, corpus = sys.argv[1], "--corpus" in sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    for name, data in cases(corpus).items():
        if corpus and len(data) > (1 << 20):
            continue
        with open(os.path.join(out, f"uki-{name}" if corpus else f"{name}.efi"), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
