#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Shrinks a core file to what a module reader needs, for fuzz seeds:

    shrink-core.py IN OUT

Keeps the ELF header, the program headers and the PT_NOTE segments; of
each PT_LOAD keeps only a dumped page that starts with an ELF header (a
module's first page) and the page holding the AT_EXECFN string; every
other PT_LOAD is kept as a header with p_filesz 0 (nothing dumped).  The
data is laid out again right after the notes, page-aligned as the kernel
does.  Either ELF class and byte order.
"""
import struct
import sys

PT_LOAD, PT_NOTE = 1, 4
AT_EXECFN = 31


def main():
    data = open(sys.argv[1], "rb").read()
    if data[:4] != b"\x7fELF":
        sys.exit("not ELF")
    is64 = data[4] == 2
    e = ">" if data[5] == 2 else "<"
    if is64:
        phoff, = struct.unpack_from(e + "Q", data, 32)
        phent, phnum = struct.unpack_from(e + "HH", data, 54)
        fmt = e + "IIQQQQQQ"  # type flags offset vaddr paddr filesz memsz align
    else:
        phoff, = struct.unpack_from(e + "I", data, 28)
        phent, phnum = struct.unpack_from(e + "HH", data, 42)
        fmt = e + "IIIIIIII"  # type offset vaddr paddr filesz memsz flags align
    phdrs = []
    for i in range(phnum):
        f = list(struct.unpack_from(fmt, data, phoff + i * phent))
        if is64:
            typ, flags, off, vaddr, paddr, filesz, memsz, align = f
        else:
            typ, off, vaddr, paddr, filesz, memsz, flags, align = f
        phdrs.append(dict(type=typ, flags=flags, off=off, vaddr=vaddr, paddr=paddr,
                          filesz=filesz, memsz=memsz, align=align))

    # AT_EXECFN from NT_AUXV, to keep the page holding the path.
    execfn = None
    w = 8 if is64 else 4
    for p in phdrs:
        if p["type"] != PT_NOTE:
            continue
        pos, end = p["off"], p["off"] + p["filesz"]
        while pos + 12 <= end:
            namesz, descsz, typ = struct.unpack_from(e + "III", data, pos)
            desc = pos + 12 + ((namesz + 3) & ~3)
            if typ == 6:
                for k in range(desc, desc + descsz - 2 * w + 1, 2 * w):
                    a, v = struct.unpack_from(e + ("QQ" if is64 else "II"), data, k)
                    if a == AT_EXECFN:
                        execfn = v
            pos = desc + ((descsz + 3) & ~3)

    page = 4096
    notes_end = max([phoff + phnum * phent] +
                    [p["off"] + p["filesz"] for p in phdrs if p["type"] == PT_NOTE])
    out = bytearray(data[:notes_end])
    cursor = (notes_end + page - 1) // page * page
    out += b"\0" * (cursor - len(out))
    for p in phdrs:
        if p["type"] != PT_LOAD:
            continue
        keep = b""
        body = data[p["off"]:p["off"] + p["filesz"]]
        if body[:4] == b"\x7fELF":
            keep = body[:page]
        elif execfn is not None and p["vaddr"] <= execfn < p["vaddr"] + p["filesz"]:
            start = (execfn - p["vaddr"]) // page * page
            keep = body[start:start + page]
            p["vaddr"] += start
            p["memsz"] = max(p["memsz"] - start, len(keep))
        p["off"], p["filesz"] = (cursor if keep else 0), len(keep)
        out += keep
        cursor += len(keep)
    for i, p in enumerate(phdrs):
        if is64:
            f = (p["type"], p["flags"], p["off"], p["vaddr"], p["paddr"], p["filesz"], p["memsz"], p["align"])
        else:
            f = (p["type"], p["off"], p["vaddr"], p["paddr"], p["filesz"], p["memsz"], p["flags"], p["align"])
        struct.pack_into(fmt, out, phoff + i * phent, *f)
    open(sys.argv[2], "wb").write(out)


if __name__ == "__main__":
    main()
