#!/usr/bin/env python3
"""Cross-check `pkgnote show --json` against readelf -n and systemd-analyze.

For every ELF file under the given directories: pkgnote and `readelf -nW`
must agree on which files carry a package note and on each note's JSON
(keys, values and order); for files with a note, `systemd-analyze
inspect-elf --json=short` must agree on the package fields and build-id.
Prints ok/not ok lines and exits 1 on any disagreement.
"""
import json
import os
import shutil
import subprocess
import sys

BATCH = 400


def elf_files(roots):
    for root in roots:
        for d, _, names in os.walk(root):
            for n in names:
                p = os.path.join(d, n)
                try:
                    if os.path.islink(p) or not os.path.isfile(p):
                        continue
                    with open(p, "rb") as f:
                        if f.read(4) == b"\x7fELF":
                            yield p
                except OSError:
                    continue


def pe_files(roots):
    """PE images: an MZ header whose e_lfanew points at a "PE\\0\\0" signature."""
    for root in roots:
        for d, _, names in os.walk(root):
            for n in names:
                p = os.path.join(d, n)
                try:
                    if os.path.islink(p) or not os.path.isfile(p):
                        continue
                    with open(p, "rb") as f:
                        head = f.read(64)
                        if len(head) < 64 or head[:2] != b"MZ":
                            continue
                        f.seek(int.from_bytes(head[60:64], "little"))
                        if f.read(4) == b"PE\0\0":
                            yield p
                except (OSError, ValueError, OverflowError):
                    continue


def batches(items):
    for i in range(0, len(items), BATCH):
        yield items[i:i + BATCH]


def ordered(text):
    return json.loads(text, object_pairs_hook=lambda pairs: pairs)


def pkgnote_notes(pkgnote, files):
    notes, errors = {}, 0
    for b in batches(files):
        r = subprocess.run([pkgnote, "show", "--json", *b], capture_output=True)
        errors += r.stderr.count(b"\n")
        for line in r.stdout.splitlines():
            d = json.loads(line, object_pairs_hook=lambda pairs: pairs)
            d = dict(d)
            notes[d["path"]] = (d["packages"], d["buildId"])
    return notes, errors


def readelf_notes(files):
    notes = {}
    for b in batches(files):
        r = subprocess.run(["readelf", "-nW", *b], capture_output=True, env={"LC_ALL": "C", "PATH": os.environ["PATH"]})
        current = b[0] if len(b) == 1 else None
        for line in r.stdout.decode("utf-8", "surrogateescape").splitlines():
            if line.startswith("File: "):
                current = line[6:]
            elif "Packaging Metadata: " in line and current:
                text = line.split("Packaging Metadata: ", 1)[1]
                lst = notes.setdefault(current, [])
                if text not in lst:          # pkgnote reports identical notes once
                    lst.append(text)
    return notes


def main():
    pkgnote, roots = sys.argv[1], sys.argv[2:]
    files = sorted(set(elf_files(roots)))
    ours, errors = pkgnote_notes(pkgnote, files)
    theirs = readelf_notes(files)
    failed = 0

    def check(ok, name, detail=""):
        nonlocal failed
        print(("ok - " if ok else "not ok - ") + name)
        if not ok:
            failed += 1
            print("# " + detail)

    with_notes = {p for p, (pk, _) in ours.items() if pk}
    print(f"# {len(files)} ELF files, {len(with_notes)} with package notes, {errors} pkgnote error lines")
    check(len(files) > 0, "found ELF files to compare")
    check(set(theirs) == with_notes, "pkgnote and readelf -n agree on which files carry a note",
          f"only readelf: {sorted(set(theirs) - with_notes)[:5]} only pkgnote: {sorted(with_notes - set(theirs))[:5]}")
    mismatched = [p for p in with_notes & set(theirs)
                  if [ordered(t) for t in theirs[p]] != ours[p][0]]
    check(not mismatched, "pkgnote and readelf -n agree on every note's JSON", f"differ: {mismatched[:5]}")

    if not shutil.which("systemd-analyze"):
        print("ok - systemd-analyze cross-check # SKIP systemd-analyze not installed")
    else:
        bad = []
        for b in batches(sorted(with_notes)):
            r = subprocess.run(["systemd-analyze", "inspect-elf", "--json=short", *b], capture_output=True)
            for line in r.stdout.decode().splitlines():
                d = json.loads(line)
                for path, fields in d.items():
                    if not isinstance(fields, dict):
                        continue
                    primary = dict(ours[path][0][0])
                    for k, v in fields.items():
                        want = ours[path][1] if k == "buildId" else primary.get(k)
                        if v != want:
                            bad.append(f"{path}: {k}={v!r} vs {want!r}")
        check(with_notes and not bad, "pkgnote and systemd-analyze inspect-elf agree on package fields",
              "; ".join(bad[:5]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
