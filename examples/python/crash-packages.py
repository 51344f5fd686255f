#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What a crash reporter (apport, say) wants to know of a core: the package
of every module that was mapped, and whether that package, at that
version, is what the dpkg database has installed now.

    crash-packages.py CORE

Prints one line per module:

    PATH: NAME VERSION (FROM): installed
    PATH: NAME VERSION (FROM): not installed
    PATH: NAME VERSION (FROM): installed as VERSION2
    PATH: no package

FROM is where the package came from: core-note (the package note in the
core's dumped page), disk-note (the note of the module's file, whose
build-id matched), database (no note: the package database owns the file
that was mapped).  Exits 0 when every module's package is installed at its
version, 1 otherwise, 2 when the core cannot be read.
"""

import subprocess
import sys

import pkgnote


def installed_sources() -> dict[tuple[str, str], set[str]]:
    """(type, source or binary package name) -> versions installed, from
    dpkg: a package note names the source package (Debian's convention),
    and its version."""
    out = subprocess.run(["dpkg-query", "-W", "-f",
                          "${db:Status-Abbrev}\t${Package}\t${Version}\t${source:Package}\t${source:Version}\n"],
                         capture_output=True, text=True, check=True).stdout
    have: dict[tuple[str, str], set[str]] = {}
    for line in out.splitlines():
        status, name, version, source, source_version = line.split("\t")
        if not status.startswith("ii"):
            continue
        for n, v in ((name, version), (source, source_version)):
            have.setdefault(("deb", n), set()).add(v)
    return have


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[3].strip(), file=sys.stderr)
        return 2
    try:
        core = pkgnote.open_core(sys.argv[1], stack=False)
    except pkgnote.Error as e:
        print(f"crash-packages: '{sys.argv[1]}': {e.strerror}", file=sys.stderr)
        return 2
    have = installed_sources()
    ok = True
    with core:
        for m in core.modules:
            if m.vdso:
                continue
            name = version = None
            if m.package is not None:
                kind = m.package.get("type", "deb")
                name, version = m.package.get("name"), m.package.get("version")
            elif m.db_package is not None:
                kind = m.db_package.get("type", "deb")
                name = m.db_package.get("source") or m.db_package.get("name")
                version = m.db_package.get("sourceVersion") or m.db_package.get("version")
            if name is None:
                print(f"{m.path}: no package")
                ok = False
                continue
            versions = have.get((kind, name), set())
            if version in versions:
                state = "installed"
            elif versions:
                state = "installed as " + ", ".join(sorted(versions))
            else:
                state = "not installed"
            ok = ok and state == "installed"
            print(f"{m.path}: {name} {version} ({m.package_from}): {state}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
