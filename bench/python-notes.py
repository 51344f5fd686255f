# SPDX-License-Identifier: LGPL-2.1-or-later
"""Package notes of every file named in a NUL-separated list, by the
binding or by pyelftools, for bench/python.sh.

    python-notes.py binding|pyelftools|list LIST

binding:     pkgnote.read(path).packages for each file
pyelftools:  every SHT_NOTE section's notes, and where a file has no
             section headers every PT_NOTE segment's, FDO/0xcafe1a7e
             descriptors parsed as JSON: what callers do by hand today
list:        writes the ELF files of LIST (by magic) to standard output,
             NUL-separated
Prints the number of files read and of package notes found to stderr."""

import json
import sys


def paths(name: str) -> list[str]:
    with open(name, "rb") as f:
        return [p.decode("utf-8", "surrogateescape") for p in f.read().split(b"\0") if p]


def by_binding(files: list[str]) -> tuple[int, int]:
    import pkgnote
    n = found = 0
    for p in files:
        try:
            found += len(pkgnote.read(p).packages)
            n += 1
        except OSError:
            pass
    return n, found


def by_pyelftools(files: list[str]) -> tuple[int, int]:
    from elftools.common.exceptions import ELFError
    from elftools.elf.elffile import ELFFile
    n = found = 0
    for p in files:
        try:
            with open(p, "rb") as f:
                e = ELFFile(f)
                notes = []
                if e.num_sections():
                    for s in e.iter_sections():
                        if s["sh_type"] == "SHT_NOTE":
                            notes += list(s.iter_notes())
                else:
                    for seg in e.iter_segments():
                        if seg["p_type"] == "PT_NOTE":
                            notes += list(seg.iter_notes())
                for note in notes:
                    if note["n_name"] == "FDO" and note["n_type"] == 0xCAFE1A7E:
                        desc = note["n_desc"]
                        raw = desc.encode("latin-1") if isinstance(desc, str) else bytes(desc)
                        json.loads(raw.split(b"\0", 1)[0])
                        found += 1
                n += 1
        except (ELFError, OSError, ValueError, KeyError, UnicodeError, AssertionError, TypeError):
            pass
    return n, found


def main() -> None:
    what, name = sys.argv[1], sys.argv[2]
    if what == "list":
        out = sys.stdout.buffer
        for p in paths(name):
            try:
                with open(p, "rb") as f:
                    if f.read(4) == b"\x7fELF":
                        out.write(p.encode("utf-8", "surrogateescape") + b"\0")
            except OSError:
                pass
        return
    n, found = (by_binding if what == "binding" else by_pyelftools)(paths(name))
    print(f"{what}: {n} files, {found} package notes", file=sys.stderr)


if __name__ == "__main__":
    main()
