# SPDX-License-Identifier: LGPL-2.1-or-later
"""Kernel fixtures for tests/read/cmd-kernel.sh and fuzz/make-seeds-kernel.py,
written with struct: raw note streams as /sys/kernel/notes holds them, ELF
vmlinux files with a PT_NOTE, x86 bzImages around them (boot protocol 2.15
setup header, payload compressed with gzip, xz or zstd, its size appended
as the kernel's build appends it), and module objects with a
.note.gnu.build-id section."""
import gzip
import lzma
import struct
import subprocess


def note(owner, ntype, desc, be=False):
    o = ">" if be else "<"
    name = owner.encode() + b"\0"
    pad = lambda b: b + b"\0" * (-len(b) % 4)
    return struct.pack(o + "III", len(name), len(desc), ntype) + pad(name) + pad(desc)


def notes(build_id=None, salt=None, package=None, be=False):
    out = b""
    if build_id is not None:
        out += note("GNU", 3, bytes.fromhex(build_id), be)
    out += note("Linux", 0x101, b"\0\0\0\0", be)
    if salt is not None:
        out += note("Linux", 0x100, salt.encode() + b"\0", be)
    if package is not None:
        out += note("FDO", 0xcafe1a7e, package.encode() + b"\0", be)
    out += note("Xen", 6, b"linux\0", be)
    return out


def vmlinux(stream, note_off=0x30000, total=None):
    """An ELF64 x86-64 executable whose one PT_NOTE at NOTE_OFF holds STREAM."""
    eh = struct.pack("<4sBBBBB7sHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0, 0, b"\0" * 7, 2, 62, 1,
                     0xffffffff81000000, 64, 0, 0, 64, 56, 1, 64, 0, 0)
    ph = struct.pack("<IIQQQQQQ", 4, 4, note_off, 0xffffffff82000000 + note_off, 0, len(stream), len(stream), 4)
    body = eh + ph
    body += b"\xcc" * (note_off - len(body)) + stream
    if total and total > len(body):
        body += b"\0" * (total - len(body))
    return body


def compress(data, codec):
    if codec == "gzip":
        return gzip.compress(data, 9, mtime=0)
    if codec == "xz":
        return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC32)
    if codec == "zstd":
        return subprocess.run(["zstd", "-q", "-c", "-19"], input=data, capture_output=True, check=True).stdout
    if codec == "none":
        return data
    raise ValueError(codec)


def bzimage(payload, setup_sects=3, version=0x20f, payload_len=None):
    """An x86 bzImage: boot sector and SETUP_SECTS setup sectors, then the
    payload (already compressed, with its size appended)."""
    setup = bytearray(512 * (setup_sects + 1))
    setup[0x1f1] = setup_sects
    struct.pack_into("<H", setup, 0x1fe, 0xaa55)
    setup[0x202:0x206] = b"HdrS"
    struct.pack_into("<H", setup, 0x206, version)
    struct.pack_into("<II", setup, 0x248, 0, len(payload) if payload_len is None else payload_len)
    return bytes(setup) + payload


def image(build_id, codec="gzip", note_off=0x30000, salt="6.1.0-test"):
    v = vmlinux(notes(build_id, salt), note_off)
    return bzimage(compress(v, codec) + struct.pack("<I", len(v)))


def module(build_id):
    """An ELF64 relocatable object: null, .note.gnu.build-id, .shstrtab."""
    n = note("GNU", 3, bytes.fromhex(build_id))
    names = b"\0.note.gnu.build-id\0.shstrtab\0"
    off_note = 64
    off_str = off_note + len(n)
    off_sh = (off_str + len(names) + 7) & ~7
    eh = struct.pack("<4sBBBBB7sHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0, 0, b"\0" * 7, 1, 62, 1, 0, 0, off_sh, 0,
                     64, 0, 0, 64, 3, 2)
    sh = struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    sh += struct.pack("<IIQQQQIIQQ", 1, 7, 2, 0, off_note, len(n), 0, 0, 4, 0)
    sh += struct.pack("<IIQQQQIIQQ", 20, 3, 0, 0, off_str, len(names), 0, 0, 1, 0)
    body = eh + n + names
    body += b"\0" * (off_sh - len(body))
    return body + sh
