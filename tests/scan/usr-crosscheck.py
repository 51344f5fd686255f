#!/usr/bin/env python3
"""`pkgnote scan --format json ROOT` against `readelf -nW` over ROOT.

The set of (file, package note) pairs must be equal: every ELF file under
ROOT (symbolic links not followed) that readelf shows a "Packaging
Metadata" note for, with each note's JSON (keys, values, order), and no
other.  The set of ELF files and PE images must match too.  Prints ok/not ok lines.
Usage: usr-crosscheck.py PKGNOTE ROOT
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "read"))
from crosscheck import elf_files, ordered, pe_files, readelf_notes  # noqa: E402


def main():
    pkgnote, root = sys.argv[1], sys.argv[2]
    r = subprocess.run([pkgnote, "scan", "--format", "json", "--no-progress", root], capture_output=True)
    ours, objects = set(), set()
    for line in r.stdout.decode("utf-8", "surrogateescape").splitlines():
        d = json.loads(line, object_pairs_hook=lambda pairs: pairs)
        d = dict(d)
        if "summary" in d:
            continue
        objects.add(d["path"])
        for n in d["packages"]:
            ours.add((d["path"], json.dumps(n)))
    files = sorted(set(elf_files([root])))
    pe = set(pe_files([root]))
    theirs = set()
    for path, notes in readelf_notes(files).items():
        for text in notes:
            theirs.add((path, json.dumps(ordered(text))))
    failed = 0

    def check(ok, name, detail=""):
        nonlocal failed
        print(("ok - " if ok else "not ok - ") + name)
        if not ok:
            failed += 1
            print("# " + detail)

    print(f"# {root}: {len(files)} ELF files, {len(theirs)} (file, note) pairs from readelf, "
          f"{len(ours)} from pkgnote scan; scan exit {r.returncode}")
    check(len(theirs) > 0, f"readelf finds package notes under {root}")
    walk = set(files) | pe
    check(objects == walk, f"scan and a Python walk agree on the ELF files and PE images ({len(pe)} PE)",
          f"only scan: {sorted(objects - walk)[:5]} only walk: {sorted(walk - objects)[:5]}")
    check(ours == theirs, "scan and readelf -n agree on every (file, note JSON) pair",
          f"only scan: {sorted(ours - theirs)[:3]} only readelf: {sorted(theirs - ours)[:3]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
