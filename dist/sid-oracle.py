#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# The oracle for the tests of pkgnote deps --verify: what an initrd or a UKI
# holds, told by the tools of the root it was built in (unmkinitramfs,
# objcopy, readelf, systemd-analyze), not by pkgnote. dist/make-sid-artefacts.sh
# runs it inside the sid root:
#   python3 sid-oracle.py ARTEFACT OUTPUT
# OUTPUT is line-based text, one fact a line, first word the kind:
#   artefact NAME SIZE SHA256
#   format pe                          (UKI only)
#   pe-section NAME SIZE               (UKI only: its sections, by objdump -h)
#   segment N OFFSET LENGTH FORMAT     (the initrd's concatenated archives:
#                                       "cpio entries=N kernel-modules=M" for an
#                                       uncompressed one, else the compressor)
#   unpacked DIR FILES BYTES           (unmkinitramfs's directory per segment)
#   elf PATH                           (a regular file starting \x7fELF;
#     needed SONAME                     PATH relative to its segment's root)
#     runpath DIRS
#     dlopen PRIORITY FEATURE SONAME[,SONAME...]   (readelf -n, FDO notes)
#     analyze-dlopen LINE                (systemd-analyze dlopen-metadata, as printed)
#   elf-count N                        (paths; busybox's applets are hard links)
#   elf-inodes N                       (distinct files among them)
#   analyze-unavailable MESSAGE         (instead, when systemd-analyze fails here)
#   missing-needed SONAME PATH...       (DT_NEEDED no file in the artefact provides)
#   missing-dlopen PRIORITY SONAMES in-root=yes|no FEATURE PATH...
#                                       (a note none of whose sonames the
#                                        artefact holds; in-root: whether the
#                                        root the artefact was built from has one)
#   summary ...
# A soname counts as present when a file or symlink of that name anywhere in
# the unpacked tree resolves, inside the tree, to a regular file.
import hashlib
import json
import os
import subprocess
import sys
import tempfile

MAGICS = [
    (b"070701", "cpio"), (b"070702", "cpio"),
    (b"\x28\xb5\x2f\xfd", "zstd"), (b"\x1f\x8b", "gzip"),
    (b"\xfd7zXZ\x00", "xz"), (b"\x02\x21\x4c\x18", "lz4-legacy"),
    (b"\x04\x22\x4d\x18", "lz4"), (b"BZh", "bzip2"), (b"\x5d\x00\x00", "lzma"),
]


def run(*cmd, check=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    if check and p.returncode != 0:
        sys.exit(f"sid-oracle: {' '.join(cmd)} failed: {p.stderr.strip()}")
    return p.stdout


def segments(data):
    """The initrd's concatenated archives: uncompressed cpio archives walked
    entry by entry up to TRAILER!!! and the zero padding after it, then one
    compressed archive to the end, as the kernel reads them."""
    out, off = [], 0
    while off < len(data):
        while off < len(data) and data[off] == 0:
            off += 1
        if off >= len(data):
            break
        fmt = next((n for m, n in MAGICS if data.startswith(m, off)), "unknown")
        if fmt != "cpio":
            out.append((off, len(data) - off, fmt))
            break
        start, entries, modules = off, 0, 0
        while True:
            hdr = data[off:off + 110]
            if len(hdr) < 110 or hdr[:5] != b"07070":
                sys.exit(f"sid-oracle: bad cpio header at {off}")
            namesize, filesize = int(hdr[94:102], 16), int(hdr[54:62], 16)
            name = data[off + 110:off + 110 + namesize - 1]
            off = (off + 110 + namesize + 3) & ~3
            off = (off + filesize + 3) & ~3
            if name == b"TRAILER!!!":
                break
            entries += 1
            modules += name.endswith((b".ko.xz", b".ko.zst", b".ko.gz", b".ko"))
        out.append((start, off - start, f"cpio entries={entries} kernel-modules={modules}"))
    return out


def present(tree):
    """Every name in TREE that resolves, inside TREE, to a regular file."""
    names = {}
    for d, dirs, files in os.walk(tree):
        for n in files + [x for x in dirs if os.path.islink(os.path.join(d, x))]:
            p = os.path.join(d, n)
            seen = 0
            while os.path.islink(p) and seen < 40:
                t = os.readlink(p)
                p = os.path.normpath(os.path.join(tree, t.lstrip("/")) if t.startswith("/") else os.path.join(os.path.dirname(p), t))
                seen += 1
            if os.path.isfile(p) and not os.path.islink(p) and os.path.commonpath([tree, p]) == tree:
                names.setdefault(n, os.path.relpath(os.path.join(d, n), tree))
    return names


def notes(path):
    out = []
    # Without -W: with it, readelf prints all the notes of a section on one line.
    for line in run("readelf", "-n", path).splitlines():
        line = line.strip()
        if line.startswith("Dlopen Metadata:"):
            for e in json.loads(line.split(":", 1)[1]):
                out.append((e.get("priority", "recommended"), e.get("feature", "?"), e.get("soname", [])))
    return out


def dynamic(path):
    needed, runpath = [], []
    for line in run("readelf", "-d", "-W", path, check=False).splitlines():
        if "(NEEDED)" in line:
            needed.append(line.split("[", 1)[1].rstrip("]"))
        elif "(RUNPATH)" in line or "(RPATH)" in line:
            runpath.append(line.split("[", 1)[1].rstrip("]"))
    return needed, runpath


def main():
    artefact, output = sys.argv[1], sys.argv[2]
    lines = []
    with open(artefact, "rb") as f:
        data = f.read()
    lines.append(f"artefact {os.path.basename(artefact)} {len(data)} {hashlib.sha256(data).hexdigest()}")
    work = tempfile.mkdtemp(prefix="sid-oracle.")
    initrd = artefact
    if data[:2] == b"MZ":
        lines.append("format pe")
        for line in run("objdump", "-h", "-w", artefact).splitlines():
            w = line.split()
            if len(w) > 3 and w[0].isdigit():
                lines.append(f"pe-section {w[1]} {int(w[2], 16)}")
        initrd = os.path.join(work, "initrd")
        run("objcopy", "-O", "binary", "--only-section=.initrd", artefact, initrd)
        with open(initrd, "rb") as f:
            data = f.read()
    segs = segments(data)
    for i, (off, length, fmt) in enumerate(segs):
        lines.append(f"segment {i} {off} {length} {fmt}")
    tree = os.path.join(work, "tree")
    run("unmkinitramfs", initrd, tree)
    # The shell unmkinitramfs of old put the segments in early/, early2/...
    # and main/; the one of initramfs-tools 0.150 and later (C, over cpio or
    # 3cpio) unpacks them all into the one directory.
    subdirs = sorted(os.listdir(tree))
    if "main" in subdirs and any(d.startswith("early") for d in subdirs):
        roots = [os.path.join(tree, d) for d in subdirs]
    else:
        roots = [tree]
    for r in roots:
        nfiles = nbytes = 0
        for d, _, files in os.walk(r):
            for n in files:
                p = os.path.join(d, n)
                if not os.path.islink(p):
                    nfiles += 1
                    nbytes += os.path.getsize(p)
        lines.append(f"unpacked {os.path.relpath(r, tree) if r != tree else '.'} {nfiles} {nbytes}")

    missing_needed, missing_dlopen, elfs, analyze = {}, {}, 0, None
    inodes = set()
    for r in roots:
        have = present(r)
        for d, dirs, files in os.walk(r):
            dirs.sort()
            for n in sorted(files):
                p = os.path.join(d, n)
                if os.path.islink(p) or not os.path.isfile(p):
                    continue
                with open(p, "rb") as f:
                    if f.read(4) != b"\x7fELF":
                        continue
                rel = os.path.relpath(p, r)
                elfs += 1
                st = os.stat(p)
                inodes.add((st.st_dev, st.st_ino))
                lines.append(f"elf {rel}")
                needed, runpath = dynamic(p)
                for s in needed:
                    lines.append(f"  needed {s}")
                    if s not in have:
                        missing_needed.setdefault(s, []).append(rel)
                for rp in runpath:
                    lines.append(f"  runpath {rp}")
                ns = notes(p)
                for prio, feat, sonames in ns:
                    lines.append(f"  dlopen {prio} {feat} {','.join(sonames)}")
                    if not any(s in have for s in sonames):
                        missing_dlopen.setdefault((prio, ",".join(sonames), feat), []).append(rel)
                if ns and analyze is None:
                    a = subprocess.run(["systemd-analyze", "dlopen-metadata", p], stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True, errors="replace")
                    if a.returncode != 0:
                        # It parses in a forked sandbox; where that fork is
                        # refused (EPERM in some containers) it never works.
                        analyze = a.stderr.strip().replace(p, rel)
                        continue
                    for line in a.stdout.splitlines():
                        if line.strip():
                            lines.append(f"  analyze-dlopen {line.rstrip()}")
    lines.append(f"elf-count {elfs}")
    lines.append(f"elf-inodes {len(inodes)}")
    if analyze is not None:
        lines.append(f"analyze-unavailable {analyze}")
    in_root = set()
    for line in run("ldconfig", "-p").splitlines()[1:]:
        in_root.add(line.strip().split(" ", 1)[0])
    for s, paths in sorted(missing_needed.items()):
        lines.append(f"missing-needed {s} {' '.join(paths)}")
    order = {"required": 0, "recommended": 1, "suggested": 2}
    counts = {}
    for (prio, sonames, feat), paths in sorted(missing_dlopen.items(), key=lambda kv: (order.get(kv[0][0], 3), kv[0][1])):
        r = "yes" if any(s in in_root for s in sonames.split(",")) else "no"
        lines.append(f"missing-dlopen {prio} {sonames} in-root={r} {feat} {' '.join(paths)}")
        counts[prio] = counts.get(prio, 0) + 1
    lines.append("summary elfs=%d missing-needed=%d missing-dlopen-required=%d missing-dlopen-recommended=%d missing-dlopen-suggested=%d"
                 % (elfs, len(missing_needed), counts.get("required", 0), counts.get("recommended", 0), counts.get("suggested", 0)))
    with open(output + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.rename(output + ".tmp", output)
    subprocess.run(["rm", "-rf", work])


main()
