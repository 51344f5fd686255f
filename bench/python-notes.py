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
compare:     python-notes.py compare LIST PKGNOTE: the binding's report of
             every file against "pkgnote show --json", and its package
             notes' raw descriptors against those pyelftools reads from
             the note sections; prints the counts and exits 1 on any
             difference
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


def raw_notes(p: str) -> list[bytes] | None:
    """The FDO package notes' descriptors of P's SHT_NOTE sections by
    pyelftools, or None when it cannot read P or P has no section."""
    from elftools.elf.elffile import ELFFile
    out: list[bytes] = []
    try:
        with open(p, "rb") as f:
            e = ELFFile(f)
            if not e.num_sections():
                return None
            for s in e.iter_sections():
                if s["sh_type"] != "SHT_NOTE":
                    continue
                for n in s.iter_notes():
                    if n["n_name"] == "FDO" and n["n_type"] == 0xCAFE1A7E:
                        f.seek(n["n_offset"] + 12 + ((n["n_namesz"] + 3) & ~3))
                        out.append(f.read(n["n_descsz"]))
    except Exception:
        return None
    return out


def compare(files: list[str], cmd: str) -> int:
    import subprocess
    import pkgnote
    shown: dict[str, dict[str, object]] = {}
    for i in range(0, len(files), 500):
        p = subprocess.run([cmd, "show", "--json", *files[i:i + 500]], capture_output=True, text=True)
        for line in p.stdout.splitlines():
            d = json.loads(line)
            shown[d["path"]] = d
    same = differ = raw_same = raw_differ = raw_skipped = 0
    for p in files:
        try:
            info = pkgnote.read(p)
        except OSError:
            if p in shown:
                differ += 1
                print(f"compare: {p}: the binding fails, the command reads it", file=sys.stderr)
            continue
        if info.to_dict() == shown.get(p):
            same += 1
        else:
            differ += 1
            print(f"compare: {p}: differs from pkgnote show --json", file=sys.stderr)
        raw = raw_notes(p)
        if raw is None:
            raw_skipped += 1
        elif info.notes == list(dict.fromkeys(raw)):
            raw_same += 1
        else:
            raw_differ += 1
            print(f"compare: {p}: raw notes differ from pyelftools'", file=sys.stderr)
    print(f"equal to pkgnote show --json: {same} of {same + differ} files; "
          f"raw package notes equal to pyelftools': {raw_same} of {raw_same + raw_differ} "
          f"({raw_skipped} without sections or unreadable by pyelftools)")
    return 1 if differ or raw_differ else 0


def main() -> None:
    what, name = sys.argv[1], sys.argv[2]
    if what == "compare":
        sys.exit(compare(paths(name), sys.argv[3]))
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
