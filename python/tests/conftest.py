# SPDX-License-Identifier: LGPL-2.1-or-later
"""Fixtures of the binding's tests: real programs linked with package
notes by the real toolchain, and real kernel cores of them."""

from __future__ import annotations

import os
import pathlib
import resource
import shutil
import signal
import subprocess
from typing import Iterator

import pytest

SRCDIR = pathlib.Path(os.environ.get("SRCDIR", pathlib.Path(__file__).resolve().parents[2]))
PKGNOTE = os.environ.get("PKGNOTE", "")

APP_JSON = '{"type":"deb","os":"debian","osVersion":"12","name":"pyapp","version":"2.0-1","architecture":"amd64"}'
LIB_JSON = '{"version":"1.2-3","name":"pylib","type":"deb","os":"debian","architecture":"amd64"}'


def need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        if os.environ.get("PKGNOTE_STRICT") == "1":
            pytest.fail(f"{tool} missing")
        pytest.skip(f"{tool} missing")
    return path


@pytest.fixture(scope="session")
def pkgnote_cmd() -> str:
    if not PKGNOTE:
        pytest.skip("PKGNOTE (the command) not given")
    return PKGNOTE


@pytest.fixture(scope="session")
def programs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pathlib.Path]:
    """A shared library and a program that crashes on request, each with
    its own package note (ld --package-metadata)."""
    need("gcc")
    d = tmp_path_factory.mktemp("programs")
    (d / "lib.c").write_text("int pylib_value(void) { return 42; }\n")
    (d / "app.c").write_text(
        '#include <signal.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n'
        "int pylib_value(void);\n"
        "__attribute__((noinline)) void crash_here(volatile int *p) { *p = pylib_value(); }\n"
        "int main(int argc, char **argv) {\n"
        '  if (argc > 1 && !strcmp(argv[1], "segv")) crash_here((int *)16);\n'
        '  if (argc > 1 && !strcmp(argv[1], "sleep")) { write(1, "ready\\n", 6); pause(); }\n'
        "  return pylib_value() == 42 ? 0 : 1;\n}\n")
    subprocess.run(["gcc", "-g", "-O0", "-shared", "-fPIC", "-fuse-ld=bfd", "-o", d / "libpylib.so", d / "lib.c",
                    "-Xlinker", f"--package-metadata={LIB_JSON}"], check=True)
    subprocess.run(["gcc", "-g", "-O0", "-fuse-ld=bfd", "-o", d / "pyapp", d / "app.c", f"-L{d}", "-lpylib",
                    f"-Wl,-rpath,{d}", "-Xlinker", f"--package-metadata={APP_JSON}"], check=True)
    return {"lib": d / "libpylib.so", "app": d / "pyapp", "dir": d}


# The test programs run without the sanitizer runtime that an ASan run of
# the suite preloads into the interpreter (its children inherit it).
PLAIN_ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def _core_limit() -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))


@pytest.fixture(scope="session")
def real_core(programs: dict[str, pathlib.Path], tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A kernel core of pyapp crashing with SIGSEGV, written into the
    working directory as tests/read/cmd-core.sh has the kernel write them."""
    pattern = pathlib.Path("/proc/sys/kernel/core_pattern").read_text().strip()
    if pattern.startswith("|") or pattern.startswith("/"):
        pytest.skip("core_pattern does not write a core into the working directory")
    d = tmp_path_factory.mktemp("core")
    p = subprocess.run([programs["app"], "segv"], cwd=d, preexec_fn=_core_limit, env=PLAIN_ENV)
    assert p.returncode == -signal.SIGSEGV
    cores = sorted(d.glob("core*"))
    if not cores:
        pytest.skip("the kernel wrote no core")
    return cores[0]


@pytest.fixture
def sleeper(programs: dict[str, pathlib.Path]) -> Iterator[subprocess.Popen[bytes]]:
    # It says when main runs: every library it links is mapped then (the
    # loader maps them one by one; a look at the maps before sees some).
    p = subprocess.Popen([programs["app"], "sleep"], env=PLAIN_ENV, stdout=subprocess.PIPE)
    try:
        assert p.stdout is not None and p.stdout.readline() == b"ready\n"
        yield p
    finally:
        p.kill()
        p.wait()
