# SPDX-License-Identifier: LGPL-2.1-or-later
"""Read and write the ELF package note (FDO_PACKAGING_METADATA) with libpkgnote.

The package note names the package a binary belongs to: an ELF note of
owner "FDO", type 0xcafe1a7e, holding one JSON object (UAPI.8).

    >>> import pkgnote
    >>> info = pkgnote.read("/usr/bin/ls")
    >>> info.packages          # one dict per package note, keys in the note's order
    >>> info.build_id, info.elf_type, info.machine

Entry points:
    read(path), read_bytes(data)     notes of a file or of ELF bytes -> Info
    open_core(path_or_file), open_process(pid)
                                     a core dump or running process -> Core
                                     (a context manager: modules, packages, threads)
    scan(*paths, **options)          objects of trees, archives and images, as found;
                                     then .summary, .packages, .write_sbom()
    generate(...), stamp(path, ...), lint(path), deps(paths, style=...)
                                     what the pkgnote command does
    closure(paths, root=...), verify(artefact)
                                     what programs need inside a root; whether
                                     a built image or initrd holds it
    purl(metadata), check(metadata)  a note's package URL; its problems

Failures raise pkgnote.Error, an OSError carrying errno and libpkgnote's
message (NotFoundError and PermissionDeniedError are also FileNotFoundError
and PermissionError).  Every object returned is a plain copy: it stays
valid after the core, process, file or scan it came from is closed.  The
GIL is released while the library reads files, cores and trees.
"""

from __future__ import annotations

import json as _json
import os as _os
import threading as _threading

from . import _pkgnote
from ._pkgnote import Error, NotFoundError, PermissionDeniedError

__all__ = [
    "Error", "NotFoundError", "PermissionDeniedError",
    "Info", "read", "read_bytes",
    "Core", "Module", "Thread", "Frame", "open_core", "open_process",
    "Scan", "ScanObject", "scan",
    "generate", "stamp", "lint", "LintFinding", "deps", "purl", "check",
    "signature_from_message",
    "crash_groups", "closure", "verify",
    "kernel",
]

def _problems(raw):
    return [(int(e), p, m) for (e, p, m) in raw]


class Info:
    """The notes of one ELF file, as `pkgnote show --json` reports them.

    Attributes: path, packages (list of dicts, one per distinct package
    note, primary first, keys in the note's own order), package (the
    first or None), dlopen (the entries of every dlopen note), build_id
    (hex str or None), elf_type ("executable", "shared object",
    "relocatable", "core", "unknown"), elf_class (32, 64), byte_order
    ("little", "big"), machine (name such as "x86-64"), machine_number
    (e_machine), notes (each package note's raw descriptor bytes),
    problems (list of (errno, path, message)), warning (str or None),
    embedded (what the program says is inside it: a Go program's
    toolchain, path, modules and settings, a Rust program's crates from
    its cargo-auditable list with their dependency edges, as components
    with their purls, "dependencies" ([from, to] index pairs) and
    "settings", in one dict; None for any other object)."""

    __slots__ = ("path", "packages", "dlopen", "build_id", "elf_type", "elf_class",
                 "byte_order", "machine", "machine_number", "notes", "problems", "warning",
                 "embedded")

    def __init__(self, d, path):
        self.path = path
        self.packages = d.get("packages", [])
        self.dlopen = d.get("dlopen", [])
        self.build_id = d.get("buildId")
        self.elf_type = d.get("elfType")
        self.elf_class = d.get("elfClass")
        self.byte_order = d.get("byteOrder")
        self.machine = d.get("architecture")
        self.machine_number = d.get("machine")
        self.notes = d["_notes"]
        self.problems = _problems(d["_problems"])
        self.warning = d["_warning"]
        self.embedded = d.get("embedded")

    @property
    def package(self):
        """The primary package note (the first in file order), or None."""
        return self.packages[0] if self.packages else None

    def to_dict(self):
        """The report as `pkgnote show --json` prints it."""
        d = {"path": self.path, "elfType": self.elf_type, "elfClass": self.elf_class,
             "byteOrder": self.byte_order, "architecture": self.machine,
             "machine": self.machine_number, "buildId": self.build_id,
             "packages": self.packages, "dlopen": self.dlopen}
        if self.embedded is not None:
            d["embedded"] = self.embedded
        if self.path is None:
            del d["path"]
        return d

    def __repr__(self):
        return f"<pkgnote.Info {self.path!r} packages={len(self.packages)} build_id={self.build_id!r}>"


def _strict(info, strict):
    if strict and info.problems:
        raise ValueError("; ".join(m for (_e, _p, m) in info.problems))
    return info


def read(path, *, strict=False):
    """Reads the notes of the ELF file PATH (str, bytes or os.PathLike).

    Raises NotFoundError, PermissionDeniedError, or Error (errno ENOEXEC:
    not ELF; EBADMSG: malformed headers).  Malformed notes do not raise:
    they are listed in .problems, unless strict=True, which raises
    ValueError for them."""
    return _strict(Info(_pkgnote._read(path), _os.fsdecode(_os.fspath(path))), strict)


def read_bytes(data, *, strict=False):
    """Reads the notes of the ELF object in DATA (bytes-like); see read()."""
    return _strict(Info(_pkgnote._read_bytes(data), None), strict)


class Frame:
    """One frame of a thread's stack, innermost first: pc, function,
    module (file name), module_offset, source file, line, column (0 when
    unknown), inlined."""

    __slots__ = ("pc", "function", "module", "module_offset", "source", "line", "column", "inlined")

    def __init__(self, d):
        for k in self.__slots__:
            setattr(self, k, d[k])

    def __repr__(self):
        return f"<pkgnote.Frame {self.pc:#x} {self.function or '??'} in {self.module}>"


class Thread:
    """A thread of a core: tid, signal (pending, 0 when none) and frames."""

    __slots__ = ("tid", "signal", "frames")

    def __init__(self, tid, signal, frames):
        self.tid = tid
        self.signal = signal
        self.frames = frames

    def __repr__(self):
        return f"<pkgnote.Thread {self.tid} frames={len(self.frames)}>"


class Module:
    """A module (executable, library, vDSO) mapped in a core or process.

    path, start, end, build_id, packages (dicts), package (first or
    None), source (where the notes were read: "core", "disk",
    "disk-mismatch", "mapped", "none"), package_from (where its package
    came from: "core-note", "disk-note", "database", "none"), found_by,
    deleted, replaced, vdso, reason, db_state, db_package (dict or None),
    db_mismatch, installed_packages (a replaced module's), embedded (what
    a Go or Rust program says is inside it, as Info.embedded; else None), raw (the
    module's object of `pkgnote core --json`)."""

    __slots__ = ("path", "start", "end", "build_id", "packages", "source", "package_from",
                 "found_by", "deleted", "replaced", "vdso", "reason", "db_state",
                 "db_package", "db_mismatch", "installed_packages", "embedded", "raw")

    def __init__(self, d):
        self.raw = d
        self.path = d.get("path")
        self.start = int(d["start"], 16)
        self.end = int(d["end"], 16)
        self.build_id = d.get("buildId")
        self.packages = d.get("packages", [])
        self.source = d.get("source")
        self.package_from = d.get("packageFrom")
        self.found_by = d.get("foundBy")
        self.deleted = bool(d.get("deleted", False))
        self.replaced = bool(d.get("replaced", False))
        self.vdso = bool(d.get("vdso", False))
        self.reason = d.get("reason")
        self.db_state = d.get("dbState")
        self.db_package = d.get("dbPackage")
        self.db_mismatch = bool(d.get("dbMismatch", False))
        self.installed_packages = d.get("installedPackages")
        self.embedded = d.get("embedded")

    @property
    def package(self):
        """The module's first package note, or None."""
        return self.packages[0] if self.packages else None

    def __repr__(self):
        return f"<pkgnote.Module {self.path!r} build_id={self.build_id!r} source={self.source!r}>"


class Core:
    """A core dump or running process, read whole when opened.

    A context manager; every attribute stays valid after close():
    pid, tid, ppid, uid, gid, signal, signal_name, fault_address,
    command, command_line, executable, machine, elf_class, byte_order,
    package (the executable's first package note, or None), package_from,
    modules, main_module, threads (every thread the core lists, the
    crashing one first, with the frames the stack trace has for it),
    stack_unavailable (why no stack trace, or None), debuginfo (what
    became of each module's debug info with debuginfod), problems,
    signature, signature_hash and signature_source (the crash signature's
    text, its 16-digit hash and "stack", or None without a stack trace;
    see pkgnote-core(1)), and report (the dict `pkgnote core --json`
    prints)."""

    def __init__(self, d):
        self._closed = False
        self.problems = _problems(d.pop("_problems"))
        stack = d.pop("_stack")
        self.stack_unavailable = d.pop("_stack_unavailable")
        self.debuginfo = d.pop("_debuginfo")
        listed = d.pop("_process_threads")
        self.report = d
        self.pid = d.get("pid")
        self.tid = d.get("tid")
        self.ppid = d.get("ppid")
        self.uid = d.get("uid")
        self.gid = d.get("gid")
        self.signal = d.get("signal")
        self.signal_name = d.get("signalName")
        fa = d.get("faultAddress")
        self.fault_address = int(fa, 16) if fa is not None else None
        self.command = d.get("command")
        self.command_line = d.get("commandLine")
        self.executable = d.get("executable")
        self.machine = d.get("architecture")
        self.elf_class = d.get("elfClass")
        self.byte_order = d.get("byteOrder")
        self.package = d.get("package")
        self.package_from = d.get("packageFrom")
        self.signature = d.get("signature")
        self.signature_hash = d.get("signatureHash")
        self.signature_source = d.get("signatureSource")
        self.modules = [Module(m) for m in d.get("modules", [])]
        main = d.pop("_main")
        self._main = self.modules[main] if 0 <= main < len(self.modules) else None
        # Every thread the core lists (the crashing one first), each with
        # the frames the stack trace has for it (none when not traced).
        frames = {t["tid"]: [Frame(f) for f in t["frames"]] for t in (stack or [])}
        self.threads = [Thread(tid, sig, frames.pop(tid, [])) for (tid, sig) in listed]
        self.threads += [Thread(tid, 0, f) for tid, f in frames.items()]

    @property
    def main_module(self):
        """The executable's module, or None."""
        return self._main

    @property
    def closed(self):
        return self._closed

    def close(self):
        """Marks the core closed; the library's core was already freed
        when it was read, and every attribute stays valid."""
        self._closed = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def to_json(self):
        """The report as `pkgnote core --json` prints it (compact)."""
        return _json.dumps(self.report, separators=(",", ":"), ensure_ascii=False)

    def __repr__(self):
        return f"<pkgnote.Core pid={self.pid} executable={self.executable!r} modules={len(self.modules)}>"


def _core_args(root, no_disk, no_database, stack, all_threads, debuginfod, debuginfod_dry_run,
               debuginfod_urls, debuginfod_allow, debuginfod_cache, debuginfod_timeout):
    return (root, bool(no_disk), bool(no_database), bool(stack), bool(all_threads),
            bool(debuginfod), bool(debuginfod_dry_run), debuginfod_urls, debuginfod_allow,
            debuginfod_cache, int(debuginfod_timeout * 1000))


def open_core(source, *, root=None, no_disk=False, no_database=False, stack=True, all_threads=False,
              debuginfod=False, debuginfod_dry_run=False, debuginfod_urls=None, debuginfod_allow=None,
              debuginfod_cache=None, debuginfod_timeout=0.0):
    """Opens a core dump: SOURCE is a path (plain or compressed with zstd,
    xz, lz4), an open binary file (anything with fileno()), or bytes.

    Options as `pkgnote core` has them: root (where module files are
    looked up), no_disk, no_database, stack (read the crashing thread's
    stack, as the command does; all_threads for every thread), and the
    opt-in debuginfod arguments (debuginfod, debuginfod_dry_run,
    debuginfod_urls, debuginfod_allow, debuginfod_cache,
    debuginfod_timeout in seconds per module).  Returns a Core."""
    args = _core_args(root, no_disk, no_database, stack, all_threads, debuginfod, debuginfod_dry_run,
                      debuginfod_urls, debuginfod_allow, debuginfod_cache, debuginfod_timeout)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return Core(_pkgnote._core("bytes", source, *args))
    if hasattr(source, "fileno"):
        return Core(_pkgnote._core("fd", source.fileno(), *args))
    return Core(_pkgnote._core("path", source, *args))


def open_process(pid, *, root=None, no_disk=False, no_database=False, stack=False, all_threads=False,
                 debuginfod=False, debuginfod_dry_run=False, debuginfod_urls=None, debuginfod_allow=None,
                 debuginfod_cache=None, debuginfod_timeout=0.0):
    """Opens the running process PID as `pkgnote pid` does: its modules
    and their packages from the mapped files.  stack=True reads its
    threads' stacks with ptrace (which stops them during the call).
    Returns a Core."""
    args = _core_args(root, no_disk, no_database, stack, all_threads, debuginfod, debuginfod_dry_run,
                      debuginfod_urls, debuginfod_allow, debuginfod_cache, debuginfod_timeout)
    return Core(_pkgnote._core("pid", int(pid), *args))


class ScanObject:
    """An ELF object found by scan(): the facts of one line of
    `pkgnote scan --format json` (path, input, elf_type, elf_class,
    byte_order, machine, machine_number, build_id, packages, dlopen,
    problems) and size, sha1, sha256 (with checksums=True), soname,
    needed (with dependencies=True), image, containers, and the package
    database's owner (db_type, db_name, db_version, db_architecture,
    db_source, db_source_version, db_mismatch), and embedded (what a
    Go or Rust program says is inside it, as Info.embedded; else None)."""

    __slots__ = ("path", "input", "elf_type", "elf_class", "byte_order", "machine",
                 "machine_number", "build_id", "packages", "dlopen", "problems", "size",
                 "sha1", "sha256", "soname", "needed", "image", "containers", "db_type",
                 "db_name", "db_version", "db_architecture", "db_source",
                 "db_source_version", "db_mismatch", "raw", "embedded")

    def __init__(self, d):
        self.raw = d
        self.path = d["path"]
        self.input = d.get("input")
        self.elf_type = d.get("elfType")
        self.elf_class = d.get("elfClass")
        self.byte_order = d.get("byteOrder")
        self.machine = d.get("architecture")
        self.machine_number = d.get("machine")
        self.build_id = d.get("buildId")
        self.packages = d.get("packages", [])
        self.dlopen = d.get("dlopen", [])
        self.problems = d.get("problems", [])
        self.embedded = d.get("embedded")
        for k in ("size", "sha1", "sha256", "soname", "needed", "image", "containers", "db_type",
                  "db_name", "db_version", "db_architecture", "db_source", "db_source_version",
                  "db_mismatch"):
            setattr(self, k, d[k])

    @property
    def package(self):
        """The object's primary package note, or None."""
        return self.packages[0] if self.packages else None

    def __repr__(self):
        return f"<pkgnote.ScanObject {self.path!r} packages={len(self.packages)}>"


class Scan:
    """An iterator over the ELF objects of the inputs, each input scanned
    when iteration reaches it (its objects sorted by path).  When it is
    exhausted, summary holds the counts (`pkgnote scan`'s last line) and
    problems the scan's problems; packages() and write_sbom() describe
    everything scanned.  A context manager; close() frees the library's
    scan (objects already yielded stay valid)."""

    def __init__(self, paths, native):
        self._paths = list(paths)
        self._native = native
        self._pending = []
        self._lock = _threading.Lock()
        self.summary = None
        self.problems = []
        self.kinds = []

    def __iter__(self):
        return self

    def __next__(self):
        with self._lock:
            while not self._pending:
                if not self._paths:
                    if self.summary is None and self._native is not None:
                        s = self._native.summary()
                        self.problems = _problems(s.pop("_problems"))
                        self.summary = s["summary"]
                    raise StopIteration
                if self._native is None:
                    raise ValueError("the scan is closed")
                path = self._paths.pop(0)
                image = None
                if isinstance(path, tuple):
                    path, image = path
                kind, objs = self._native.add(path, image)
                self.kinds.append(kind)
                self._pending = [ScanObject(o) for o in objs]
            return self._pending.pop(0)

    def run(self):
        """Scans whatever is left and returns the summary."""
        for _ in self:
            pass
        assert self.summary is not None
        return self.summary

    def packages(self):
        """The distinct package notes found: (metadata dict, [paths of the
        objects carrying it])."""
        self._check()
        return self._native.packages()

    def sbom(self, format="spdx", *, name=None, created=None, reproducible=False):
        """The SBOM of what was scanned as a str: format "spdx" (SPDX 2.3
        JSON), "spdx3" (SPDX 3.0.1 JSON-LD), "cyclonedx" (CycloneDX 1.6
        JSON) or "cyclonedx-1.5", "cyclonedx-1.6", "cyclonedx-1.7".
        created: seconds since the epoch (None: now)."""
        self._check()
        return self._native.sbom(format, name, -1 if created is None else int(created), bool(reproducible))

    def write_sbom(self, path, format="spdx", **kw):
        """Writes sbom(format, **kw) to PATH: a temporary beside it, then
        renamed over it, so a reader never sees half a document."""
        text = self.sbom(format, **kw)
        path = _os.fspath(path)
        tmp = f"{_os.fsdecode(path)}.tmp{_os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            _os.fsync(f.fileno())
        _os.replace(tmp, path)

    def _check(self):
        if self._native is None:
            raise ValueError("the scan is closed")

    def close(self):
        """Frees the library's scan."""
        with self._lock:
            if self._native is not None:
                self._native.close()
                self._native = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


_SCAN_FLAGS = {
    "one_file_system": _pkgnote.SCAN_ONE_FILE_SYSTEM,
    "checksums": _pkgnote.SCAN_CHECKSUMS,
    "list_images": _pkgnote.SCAN_LIST_IMAGES,
    "verify_layers": _pkgnote.SCAN_VERIFY_LAYERS,
    "dependencies": _pkgnote.SCAN_DEPENDENCIES,
    "open_archives": _pkgnote.SCAN_OPEN_ARCHIVES,
}


def scan(*paths, threads=0, max_member=0, max_bytes=0, platform=None, **flags):
    """Scans PATHS (directories, files, archives, images as skopeo names
    them: "oci:DIR:TAG", "docker-archive:FILE", ...; a (path, image)
    tuple chooses one image) as `pkgnote scan` does, and returns a Scan
    iterating over the objects found.  Boolean options: one_file_system,
    checksums, list_images, verify_layers, dependencies, open_archives.
    threads: workers (0: one per CPU)."""
    mask = 0
    for k, v in flags.items():
        if k not in _SCAN_FLAGS:
            raise TypeError(f"scan() got an unexpected keyword argument '{k}'")
        if v:
            mask |= _SCAN_FLAGS[k]
    native = _pkgnote._Scan(flags=mask, threads=threads, max_member=max_member, max_bytes=max_bytes,
                            platform=platform)
    return Scan(paths, native)


def _json_text(v):
    if v is None or isinstance(v, str):
        return v
    return _json.dumps(v, separators=(",", ":"), ensure_ascii=False)


def generate(metadata=None, *, format="json", dlopen=None, rpm=None, target=None, os_release=True,
             root=None, os_release_file=None, ldflags_style="shell", **keys):
    """Makes a package note as `pkgnote generate` does.

    metadata: a dict or JSON text (or a list of them, later ones winning);
    keys: well-known keys given one by one (name="x", version="1",
    type="deb", os=..., osVersion or os_version=..., architecture=...,
    osCpe="auto", appCpe, debugInfoUrl); rpm: a NEVRA; dlopen: a dlopen
    note's array (or a list of arrays); os_release / root /
    os_release_file: which os-release gives defaults.  format: "json"
    (str), "note" (the raw notes, bytes), "object" (a relocatable ELF
    object, bytes), "asm", "linker-script", "ldflags" (str).  target: an
    architecture, triplet or BFD name (None: this machine)."""
    docs = []
    if metadata is not None:
        for m in (metadata if isinstance(metadata, list) else [metadata]):
            docs.append(_json_text(m))
    names = {"os_version": "osVersion", "os_cpe": "osCpe", "app_cpe": "appCpe",
             "debug_info_url": "debugInfoUrl"}
    keys = {names.get(k, k): v for k, v in keys.items()}
    dl = []
    if dlopen is not None:
        if isinstance(dlopen, list) and dlopen and isinstance(dlopen[0], (list, str)):
            dl = [_json_text(d) for d in dlopen]
        else:
            dl = [_json_text(dlopen)]
    return _pkgnote._generate(format, keys, docs, rpm, bool(os_release), root,
                              None if os_release_file is None else _os.fsdecode(os_release_file),
                              dl, target, ldflags_style)


def stamp(path, metadata=None, *, dlopen=None, output=None, remove=False, remove_dlopen=False,
          force=False, require_first_page=False):
    """Stamps the linked binary or object PATH with the package note
    METADATA (dict or JSON text) and/or the dlopen note DLOPEN, as
    `pkgnote stamp` does: atomically in place, or into OUTPUT.  remove /
    remove_dlopen take the notes out.  Returns what `pkgnote stamp
    --json` prints (placement, firstPage, noteOffset, size, ...)."""
    if metadata is None and dlopen is None and not remove and not remove_dlopen:
        raise ValueError("stamp() needs metadata, dlopen, remove or remove_dlopen")
    flags = (_pkgnote.STAMP_FORCE if force else 0) | (_pkgnote.STAMP_REQUIRE_FIRST_PAGE if require_first_page else 0)
    return _pkgnote._stamp(path, output, _json_text(metadata), _json_text(dlopen), bool(remove),
                           bool(remove_dlopen), flags)


class LintFinding:
    """A finding of lint(): check (its stable id), severity ("warning",
    "error"), message, summary (of the check), offset (the note's file
    offset, or None), path."""

    __slots__ = ("check", "severity", "message", "summary", "offset", "path")

    def __init__(self, d):
        self.check = d["check"]
        self.severity = d["severity"]
        self.message = d["message"]
        self.summary = d["summary"]
        self.offset = d.get("offset")
        self.path = d["path"]

    def __repr__(self):
        return f"<pkgnote.LintFinding {self.severity} {self.check}: {self.message}>"


def lint(path):
    """Checks the package notes of PATH against the spec and what readers
    need, as `pkgnote lint` does; returns the findings (a file without
    findings gives [])."""
    return [LintFinding(d) for d in _pkgnote._lint(path)]


def deps(paths, style="rpm", *, root=None):
    """The dlopen notes of PATHS as package dependencies, the text
    `pkgnote deps` prints: style "rpm" (Requires: lines), "deb"
    (substvars; resolved against the dpkg database of ROOT) or "json"."""
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    text, _unresolved = _pkgnote._deps(list(paths), style, None if root is None else _os.fsdecode(root),
                                       style != "rpm" and (root is not None or _os.path.exists("/var/lib/dpkg/info")))
    return text


def purl(metadata):
    """The package URL of a package note (dict or JSON text), or None
    when it names no package."""
    return _pkgnote._purl(_json_text(metadata))


def check(metadata):
    """The spec's rules that reading tolerates, checked on a package note
    (dict or JSON text): a list of problems ([] when none).  Raises
    ValueError when the text is no valid package note at all."""
    return _pkgnote._check(_json_text(metadata))


def signature_from_message(text, packages=None):
    """The crash signature of systemd-coredump's stack text (a crash's
    journal MESSAGE, or `coredumpctl info`'s), with packages its
    COREDUMP_PACKAGE_JSON (dict or JSON text) or None: a dict of text,
    hash, package, frames and source ("message").  Raises ValueError when
    the text holds no stack, is refused as hostile, or is over its limits
    (see pkgnote-core(1), CRASH SIGNATURE)."""
    if packages is not None and not isinstance(packages, str):
        packages = _json.dumps(packages)
    return _pkgnote._signature_from_message(text, packages)


_CRASH_STORES = {"pkgnote": 1, "systemd": 2, "journal": 4}


def crash_groups(by="signature", top=0, *, stores=None, pkgnote_dir=None, systemd_dir=None, journal_dir=None,
                 journal_files=None, match=None, since=0, until=0):
    """The crashes of the machine's crash stores (as `pkgnote list` reads
    them: stores, a list of "pkgnote", "systemd" and "journal" (None:
    every store), pkgnote_dir, systemd_dir, journal_dir or journal_files,
    match, since and until in seconds since the epoch, 0 unbounded) counted by
    group: by "signature", "package" or "executable"; top keeps the
    largest groups (0: all).  A dict as `pkgnote list --group --json`
    prints it (pkgnote-list(1), GROUPS): groupBy, crashes, groupCount,
    machineCount, first, last and groups, each with key, hash, package,
    count, first, last, boots, machines, versions, notSeenSince, days and
    example; and problems, what could not be read (an entry, a journal
    file cut short, a stack that gives no signature), each (errno, path,
    message), as the command prints them.  Raises ValueError for another
    "by", pkgnote.Error (or FileNotFoundError) when a store named cannot
    be read."""
    bits = 0
    for name in stores or ():
        if name not in _CRASH_STORES:
            raise ValueError(f"no crash store {name!r}: pkgnote, systemd or journal")
        bits |= _CRASH_STORES[name]
    if journal_files is not None:
        journal_files = [_os.fspath(f) for f in journal_files]

    def path(p):
        return None if p is None else _os.fsdecode(_os.fspath(p))
    d = _pkgnote._crash_groups(by, top, bits, path(pkgnote_dir), path(systemd_dir), path(journal_dir), journal_files,
                               match, int(since), int(until))
    d["problems"] = _problems(d.pop("_problems"))
    return d


_PRIORITIES = {None: 0, "suggested": 1, "recommended": 2, "required": 3}


def _selection(features, priority, all_features):
    if priority not in _PRIORITIES:
        raise ValueError(f"no dlopen priority {priority!r}: required, recommended or suggested")
    if isinstance(features, str):
        features = [features]
    return list(features or ()), _PRIORITIES[priority], bool(all_features)


def closure(paths, *, root=None, features=None, priority=None, all_features=False):
    """Every file the programs or libraries PATHS (in ROOT; None: "/")
    need, as `pkgnote deps --closure --json` prints it: a dict of root,
    files (each with path, type, target, why it is needed and, where the
    root has a dpkg or rpm database, its package), missing, problems, and
    the graph walked (nodes and edges: from, to, name, kind, and for a
    dlopen edge its feature and priority).  The dlopen entries followed are those of FEATURES (a name
    or a list), of PRIORITY ("required", "recommended", "suggested") or
    stronger, or all with ALL_FEATURES; none by default.  Raises
    pkgnote.Error (or FileNotFoundError) when the root or a path cannot be
    read or is no ELF program or library, ValueError for another
    priority."""
    if isinstance(paths, (str, bytes)) or hasattr(paths, "__fspath__"):
        paths = [paths]
    f, p, a = _selection(features, priority, all_features)
    return _pkgnote._closure(list(paths), root, f, p, a)


def verify(artefact, *, features=None, priority=None, all_features=False):
    """Whether the built ARTEFACT (a directory, an initramfs or a unified
    kernel image) holds everything its programs need, as `pkgnote deps
    --verify --json` prints it for one artefact: a dict of artefact, kind,
    objects, findings (each with object, kind, names, feature and
    priority), required (how many findings are required: 0 when it will
    load), problems, the graph walked (nodes and edges) and, for a UKI,
    its kernel release.  The dlopen
    entries checked: those at "recommended" or stronger by default, else
    as closure() selects them.  Raises pkgnote.Error (or
    FileNotFoundError) when the artefact cannot be read, ValueError for
    another priority."""
    f, p, a = _selection(features, priority, all_features)
    return _pkgnote._verify(_os.fspath(artefact), f, p, a)


def kernel(*, sysfs=None, osrelease=None, root=None, database=True, modules=True, image=True):
    """The running kernel as pkgnote ps --kernel --json reports it: a dict
    with release, buildId, buildSalt (never a package), note (its own
    package note or None), image (path, buildId, error), package (the
    note's, else the database owner of the installed image whose build-id
    is the running one, or None), modules (name, buildId, file,
    fileBuildId, fileError, package), needsReboot and reboot (each reason
    and its text).  SYSFS (default /sys) and OSRELEASE (a file holding the
    release; default uname) read another tree, ROOT (default /) is where
    the installed image, modules and package database are.  With
    modules=False the loaded modules are not read and the dict has no
    "modules" (the kernel as pkgnote pid --json reports it).  With
    image=False no installed file is looked at (nor the database): the
    kernel's own notes alone, without image, needsReboot, cannotTell and
    reboot (the kernel of a crash report, with modules=False)."""
    return _pkgnote._kernel(None if sysfs is None else _os.fspath(sysfs),
                            None if osrelease is None else _os.fspath(osrelease),
                            None if root is None else _os.fspath(root), not database, not modules, not image)
