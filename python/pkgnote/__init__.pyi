# SPDX-License-Identifier: LGPL-2.1-or-later
"""Type hints of the pkgnote package (see help(pkgnote))."""

import os
from typing import Any, BinaryIO, Iterator, Literal, Protocol, Sequence, Union

_Path = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]
_Json = dict[str, Any]
Problem = tuple[int, Union[str, None], str]

__all__: list[str]

class Error(OSError): ...
class NotFoundError(Error, FileNotFoundError): ...
class PermissionDeniedError(Error, PermissionError): ...

class Info:
    path: str | None
    packages: list[_Json]
    dlopen: list[_Json]
    build_id: str | None
    elf_type: str | None
    elf_class: int | None
    byte_order: str | None
    machine: str | None
    machine_number: int | None
    notes: list[bytes]
    problems: list[Problem]
    warning: str | None
    embedded: _Json | None
    @property
    def package(self) -> _Json | None: ...
    def to_dict(self) -> _Json: ...

def read(path: _Path, *, strict: bool = ...) -> Info: ...
def read_bytes(data: bytes | bytearray | memoryview, *, strict: bool = ...) -> Info: ...

class Frame:
    pc: int
    function: str | None
    module: str | None
    module_offset: int
    source: str | None
    line: int
    column: int
    inlined: bool

class Thread:
    tid: int
    signal: int
    frames: list[Frame]

class Module:
    path: str | None
    start: int
    end: int
    build_id: str | None
    packages: list[_Json]
    source: str | None
    package_from: str | None
    found_by: str | None
    deleted: bool
    replaced: bool
    vdso: bool
    reason: str | None
    db_state: str | None
    db_package: _Json | None
    db_mismatch: bool
    installed_packages: list[_Json] | None
    embedded: _Json | None
    raw: _Json
    @property
    def package(self) -> _Json | None: ...

class Core:
    pid: int | None
    tid: int | None
    ppid: int | None
    uid: int | None
    gid: int | None
    signal: int | None
    signal_name: str | None
    fault_address: int | None
    command: str | None
    command_line: str | None
    executable: str | None
    machine: str | None
    elf_class: int | None
    byte_order: str | None
    package: _Json | None
    package_from: str | None
    modules: list[Module]
    threads: list[Thread]
    stack_unavailable: str | None
    signature: str | None
    signature_hash: str | None
    signature_source: str | None
    debuginfo: list[dict[str, str | None]]
    problems: list[Problem]
    report: _Json
    @property
    def main_module(self) -> Module | None: ...
    @property
    def closed(self) -> bool: ...
    def close(self) -> None: ...
    def __enter__(self) -> Core: ...
    def __exit__(self, *exc: object) -> bool: ...
    def to_json(self) -> str: ...

class _FileNo(Protocol):
    def fileno(self) -> int: ...

def open_core(source: _Path | bytes | bytearray | memoryview | _FileNo | BinaryIO, *, root: _Path | None = ...,
              no_disk: bool = ..., no_database: bool = ..., stack: bool = ..., all_threads: bool = ...,
              debuginfod: bool = ..., debuginfod_dry_run: bool = ..., debuginfod_urls: str | None = ...,
              debuginfod_allow: str | None = ..., debuginfod_cache: str | None = ...,
              debuginfod_timeout: float = ...) -> Core: ...
def open_process(pid: int, *, root: _Path | None = ..., no_disk: bool = ..., no_database: bool = ...,
                 stack: bool = ..., all_threads: bool = ..., debuginfod: bool = ...,
                 debuginfod_dry_run: bool = ..., debuginfod_urls: str | None = ...,
                 debuginfod_allow: str | None = ..., debuginfod_cache: str | None = ...,
                 debuginfod_timeout: float = ...) -> Core: ...

class ScanObject:
    path: str
    input: str | None
    elf_type: str | None
    elf_class: int | None
    byte_order: str | None
    machine: str | None
    machine_number: int | None
    build_id: str | None
    packages: list[_Json]
    dlopen: list[_Json]
    problems: list[str]
    embedded: _Json | None
    size: int
    sha1: str | None
    sha256: str | None
    soname: str | None
    needed: list[str]
    image: str | None
    containers: list[str]
    db_type: str | None
    db_name: str | None
    db_version: str | None
    db_architecture: str | None
    db_source: str | None
    db_source_version: str | None
    db_mismatch: bool
    raw: _Json
    @property
    def package(self) -> _Json | None: ...

class Scan(Iterator[ScanObject]):
    summary: dict[str, int] | None
    problems: list[Problem]
    kinds: list[int]
    def __iter__(self) -> Scan: ...
    def __next__(self) -> ScanObject: ...
    def run(self) -> dict[str, int]: ...
    def packages(self) -> list[tuple[_Json, list[str]]]: ...
    def sbom(self, format: Literal["spdx", "spdx3", "cyclonedx", "cyclonedx-1.5", "cyclonedx-1.6", "cyclonedx-1.7"] = ..., *, name: str | None = ...,
             created: int | None = ..., reproducible: bool = ...) -> str: ...
    def write_sbom(self, path: _Path, format: Literal["spdx", "spdx3", "cyclonedx", "cyclonedx-1.5", "cyclonedx-1.6", "cyclonedx-1.7"] = ..., *, name: str | None = ...,
                   created: int | None = ..., reproducible: bool = ...) -> None: ...
    def close(self) -> None: ...
    def __enter__(self) -> Scan: ...
    def __exit__(self, *exc: object) -> bool: ...

def scan(*paths: _Path | tuple[_Path, str], threads: int = ..., max_member: int = ..., max_bytes: int = ...,
         platform: str | None = ..., one_file_system: bool = ..., checksums: bool = ..., list_images: bool = ...,
         verify_layers: bool = ..., dependencies: bool = ..., open_archives: bool = ...) -> Scan: ...

_Meta = Union[str, _Json]

def generate(metadata: _Meta | list[_Meta] | None = ..., *,
             format: Literal["json", "note", "object", "asm", "linker-script", "ldflags"] = ...,
             dlopen: str | list[Any] | None = ..., rpm: str | None = ..., target: str | None = ...,
             os_release: bool = ..., root: str | None = ..., os_release_file: _Path | None = ...,
             ldflags_style: Literal["shell", "make"] = ..., **keys: str) -> str | bytes: ...
def stamp(path: _Path, metadata: _Meta | None = ..., *, dlopen: str | list[_Json] | None = ...,
          output: _Path | None = ..., remove: bool = ..., remove_dlopen: bool = ..., force: bool = ...,
          require_first_page: bool = ...) -> _Json: ...

class LintFinding:
    check: str
    severity: str
    message: str
    summary: str
    offset: int | None
    path: str

def lint(path: _Path) -> list[LintFinding]: ...
def deps(paths: _Path | Sequence[_Path], style: Literal["rpm", "deb", "json"] = ..., *,
         root: _Path | None = ...) -> str: ...
def purl(metadata: _Meta) -> str | None: ...
def check(metadata: _Meta) -> list[str]: ...
def signature_from_message(text: str, packages: str | _Json | None = ...) -> _Json: ...
def crash_groups(by: str = ..., top: int = ..., *, stores: Sequence[str] | None = ..., pkgnote_dir: str | os.PathLike[str] | None = ...,
                 systemd_dir: str | os.PathLike[str] | None = ..., journal_dir: str | os.PathLike[str] | None = ...,
                 journal_files: Sequence[str | os.PathLike[str]] | None = ..., match: str | None = ...,
                 since: int = ..., until: int = ...) -> _Json: ...
def closure(paths: _Path | Sequence[_Path], *, root: _Path | None = ..., features: str | Sequence[str] | None = ...,
            priority: Literal["required", "recommended", "suggested"] | None = ...,
            all_features: bool = ...) -> _Json: ...
def verify(artefact: _Path, *, features: str | Sequence[str] | None = ...,
           priority: Literal["required", "recommended", "suggested"] | None = ...,
           all_features: bool = ...) -> _Json: ...
def kernel(*, sysfs: _Path | None = ..., osrelease: _Path | None = ..., root: _Path | None = ...,
           database: bool = ..., modules: bool = ..., image: bool = ...) -> _Json: ...
