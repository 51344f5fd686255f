# SPDX-License-Identifier: LGPL-2.1-or-later
"""The Python binding against real files, real cores, the pkgnote command
and pyelftools."""

from __future__ import annotations

import errno
import importlib
import json
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Literal

import pytest

import pkgnote
from conftest import APP_JSON, LIB_JSON, PLAIN_ENV, SRCDIR, need

sys.path.insert(0, str(SRCDIR / "examples" / "python"))


def has_stack(cmd: str) -> bool:
    """Whether this build traces stacks (libdw): pkgnote --version says."""
    out = subprocess.run([cmd, "--version"], capture_output=True, text=True).stdout
    return "+stack" in out


def show_json(cmd: str, *paths: str) -> list[dict[str, Any]]:
    p = subprocess.run([cmd, "show", "--json", *paths], capture_output=True, text=True, env={**os.environ, "LC_ALL": "C"})
    assert p.returncode in (0, 1, 2), p.stderr
    return [json.loads(line) for line in p.stdout.splitlines()]


# ------------------------------------------------------------- read / read_bytes

def test_read_packages_in_note_key_order(programs: dict[str, pathlib.Path]) -> None:
    info = pkgnote.read(programs["lib"])
    assert info.packages == [json.loads(LIB_JSON)]
    # The note's own key order, not the canonical one.
    assert list(info.packages[0]) == ["version", "name", "type", "os", "architecture"]
    assert info.package == json.loads(LIB_JSON)
    assert info.elf_type == "shared object"
    assert info.machine == "x86-64" and info.elf_class == 64 and info.byte_order == "little"
    assert info.build_id is not None and len(info.build_id) == 40
    assert info.problems == [] and info.dlopen == []
    assert info.notes == [LIB_JSON.encode() + b"\0" * (4 - len(LIB_JSON) % 4)]


def test_read_accepts_str_bytes_pathlike(programs: dict[str, pathlib.Path]) -> None:
    p = programs["app"]
    a, b, c = pkgnote.read(str(p)), pkgnote.read(os.fsencode(p)), pkgnote.read(p)
    assert a.packages == b.packages == c.packages == [json.loads(APP_JSON)]
    assert a.elf_type == "executable" and a.path == str(p)


def test_read_bytes_equals_read(programs: dict[str, pathlib.Path]) -> None:
    data = programs["app"].read_bytes()
    for buf in (data, bytearray(data), memoryview(data)):
        info = pkgnote.read_bytes(buf)
        assert info.packages == [json.loads(APP_JSON)]
        assert info.build_id == pkgnote.read(programs["app"]).build_id
        assert info.path is None


def build_features(pkgnote_cmd: str) -> list[str]:
    """The features `pkgnote --version` names as built in (+archive ...)."""
    out = subprocess.run([pkgnote_cmd, "--version"], capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    return [w[1:] for w in (lines[1].split() if len(lines) > 1 else []) if w.startswith("+")]


def test_read_dlopen_notes(pkgnote_cmd: str) -> None:
    # The command carries the dlopen notes of the libraries it loads:
    # libarchive's where it was built with it, SQLite's always.
    info = pkgnote.read(pkgnote_cmd)
    assert any("libsqlite3.so.0" in e["soname"] for e in info.dlopen)
    archive = any("libarchive.so.13" in e["soname"] for e in info.dlopen)
    assert archive == ("archive" in build_features(pkgnote_cmd))


def test_read_embedded_go_modules(pkgnote_cmd: str, tmp_path: pathlib.Path) -> None:
    # A Go program built here from a module that uses another through a
    # replace directive: Info.embedded is show --json's "embedded", and
    # says what go version -m says.
    go = need("go")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "go.mod").write_text("module example.com/Lib\n\ngo 1.19\n")
    (tmp_path / "lib" / "lib.go").write_text('package lib\n\nfunc Name() string { return "lib" }\n')
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "go.mod").write_text("module example.com/app\n\ngo 1.19\n\n"
                                             "require example.com/Lib v0.0.0-20230102030405-abcdefabcdef\n\n"
                                             "replace example.com/Lib => ../lib\n")
    (tmp_path / "app" / "main.go").write_text('package main\n\nimport (\n\t"fmt"\n\n\t"example.com/Lib"\n)\n\n'
                                              "func main() { fmt.Println(lib.Name()) }\n")
    env = {**os.environ, "GOCACHE": str(tmp_path / "cache"), "GOPATH": str(tmp_path / "gopath"),
           "GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOTOOLCHAIN": "local", "CGO_ENABLED": "0",
           "HOME": str(tmp_path)}
    out = tmp_path / "prog"
    subprocess.run([go, "build", "-o", str(out), "."], cwd=tmp_path / "app", env=env, check=True)
    info = pkgnote.read(out)
    (want,) = show_json(pkgnote_cmd, str(out))
    assert info.embedded is not None and info.embedded == want["embedded"]
    assert info.to_dict() == want
    version_m = subprocess.run([go, "version", "-m", str(out)], capture_output=True, text=True, check=True).stdout
    assert info.embedded["toolchain"] == version_m.split(": ", 1)[1].split("\n", 1)[0]
    main, dep = info.embedded["components"]
    assert main["name"] == "example.com/app" and main["main"] is True
    assert dep["name"] == "example.com/Lib" and dep["version"] == "v0.0.0-20230102030405-abcdefabcdef"
    assert dep["purl"] == "pkg:golang/example.com/lib@v0.0.0-20230102030405-abcdefabcdef"
    assert dep["replacement"]["name"] == "../lib" and dep["source"] == "local"
    assert "\tdep\texample.com/Lib\tv0.0.0-20230102030405-abcdefabcdef\n\t=>\t../lib\t" in version_m
    assert {"key": "GOOS", "value": "linux"} in info.embedded["settings"]
    # a scan's object says the same
    s = pkgnote.scan(str(out), threads=1)
    (obj,) = list(s)
    s.close()
    assert obj.embedded == info.embedded
    # a running Go program's module carries the same list
    (tmp_path / "sl").mkdir()
    (tmp_path / "sl" / "go.mod").write_text("module example.com/sleeper\n\ngo 1.19\n")
    (tmp_path / "sl" / "main.go").write_text('package main\n\nimport "time"\n\n'
                                             "func main() { time.Sleep(30 * time.Second) }\n")
    sleeper = tmp_path / "sleeper"
    subprocess.run([go, "build", "-o", str(sleeper), "."], cwd=tmp_path / "sl", env=env, check=True)
    proc = subprocess.Popen([str(sleeper)])
    try:
        # Popen returns once the child is forked: its exec may still come,
        # and in the middle of it /proc/PID/exe already names the program
        # while its new memory maps nothing yet (the kernel maps the
        # program's segments after switching to it): wait for the mapping.
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with open(f"/proc/{proc.pid}/maps") as f:
                    if str(sleeper) in f.read():
                        break
            except OSError:
                pass
            time.sleep(0.01)
        with pkgnote.open_process(proc.pid) as p:
            mods = [m for m in p.modules if m.path == str(sleeper)]
        assert len(mods) == 1 and mods[0].embedded is not None
        assert mods[0].embedded == pkgnote.read(sleeper).embedded
        assert mods[0].embedded["components"][0]["purl"] == "pkg:golang/example.com/sleeper"
    finally:
        proc.kill()
        proc.wait()


def test_read_embedded_rust_crates(pkgnote_cmd: str, tmp_path: pathlib.Path) -> None:
    # A real Rust program built with cargo-auditable (dist/make-sid-rust-root.sh):
    # Info.embedded is show --json's "embedded", and its crates and edges are
    # the .dep-v0 section's JSON, decoded here by objcopy, zlib and json.
    import zlib
    if "zlib" in os.environ.get("PKGNOTE_FEATURES_OFF", "").split():
        pytest.skip("this build reads no zlib stream (a crate list is one)")
    root = pathlib.Path(os.environ.get("PKGNOTE_TEST_SID_RUST_ROOT", "/var/cache/pkgnote/roots/sid-rust"))
    demo = root / "build" / "out" / "demo"
    if not demo.exists():
        if os.environ.get("PKGNOTE_STRICT") == "1":
            pytest.fail(f"{demo} missing (sh dist/make-sid-rust-root.sh)")
        pytest.skip(f"{demo} missing (sh dist/make-sid-rust-root.sh)")
    objcopy = need("objcopy")
    dep = tmp_path / "dep.z"
    subprocess.run([objcopy, "--dump-section", f".dep-v0={dep}", str(demo), str(tmp_path / "o")], check=True)
    doc = json.loads(zlib.decompress(dep.read_bytes()))
    pk = doc["packages"]
    info = pkgnote.read(demo)
    (want,) = show_json(pkgnote_cmd, str(demo))
    assert info.embedded is not None and info.embedded == want["embedded"]
    comps = info.embedded["components"]
    # the root crate first, then the others in the list's order
    root_i = next(i for i, p in enumerate(pk) if p.get("root"))
    order = [root_i] + [i for i in range(len(pk)) if i != root_i]
    assert [(c["name"], c["version"], c["source"], c["kind"], c["main"]) for c in comps] == [
        (pk[i]["name"], pk[i]["version"], pk[i]["source"], pk[i].get("kind", "runtime"), i == root_i) for i in order]
    assert all(c["ecosystem"] == "cargo" and c["purl"] == f"pkg:cargo/{c['name']}@{c['version']}" for c in comps)
    at = {i: k for k, i in enumerate(order)}
    edges = sorted([at[i], at[d]] for i, p in enumerate(pk) for d in p.get("dependencies", []))
    assert sorted(info.embedded["dependencies"]) == edges and len(edges) > 0
    s = pkgnote.scan(str(demo), threads=1)
    (obj,) = list(s)
    s.close()
    assert obj.embedded == info.embedded
    # a C program says nothing
    assert pkgnote.read(pkgnote_cmd).embedded is None
    assert "embedded" not in pkgnote.read(pkgnote_cmd).to_dict()


# ------------------------------------------------------------- errors

def test_errors_are_oserrors(tmp_path: pathlib.Path) -> None:
    with pytest.raises(FileNotFoundError) as nf:
        pkgnote.read(tmp_path / "missing")
    assert isinstance(nf.value, pkgnote.Error) and nf.value.errno == errno.ENOENT
    assert nf.value.filename == str(tmp_path / "missing")
    text = tmp_path / "text"
    text.write_text("not ELF at all\n")
    with pytest.raises(pkgnote.Error) as ne:
        pkgnote.read(text)
    assert ne.value.errno == errno.ENOEXEC and "ELF" in ne.value.strerror
    with pytest.raises(pkgnote.Error) as e2:
        pkgnote.read_bytes(b"\x7fELF" + b"\1" * 8)
    assert e2.value.errno in (errno.EBADMSG, errno.ENOEXEC)
    with pytest.raises(TypeError):
        pkgnote.read(42)  # type: ignore[arg-type]


# The unprivileged child of test_permission_error when the tests run as root:
# it prints its uid and what reading the file raised.
_UNPRIVILEGED_READ = """
import os, sys, pkgnote
try:
    pkgnote.read(sys.argv[1])
    print(os.geteuid(), "read")
except PermissionError as e:
    print(os.geteuid(), "PermissionError", isinstance(e, pkgnote.Error), e.errno)
"""


def test_permission_error(programs: dict[str, pathlib.Path], tmp_path: pathlib.Path) -> None:
    if os.geteuid() != 0:
        p = tmp_path / "secret"
        shutil.copy(programs["lib"], p)
        p.chmod(0)
        with pytest.raises(PermissionError) as e:
            pkgnote.read(p)
        assert isinstance(e.value, pkgnote.Error)
        return
    # Root reads every file: the read is made by a child interpreter that
    # setpriv turned into nobody, of a root-owned mode-0600 file in a
    # directory nobody may enter (tmp_path's parents are root's alone).
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root, and setpriv (util-linux) to drop to an unprivileged user is missing")
    d = pathlib.Path(tempfile.mkdtemp(prefix="pkgnote-perm."))
    try:
        d.chmod(0o755)
        p = d / "secret"
        shutil.copy(programs["lib"], p)
        os.chown(p, 0, 0)
        p.chmod(0o600)
        assert pkgnote.read(p).packages == [json.loads(LIB_JSON)]
        module_dir = pathlib.Path(pkgnote.__file__).resolve().parents[1]
        env = {**os.environ, "PYTHONPATH": str(module_dir)}
        r = subprocess.run([setpriv, "--reuid=65534", "--regid=65534", "--clear-groups",
                            sys.executable, "-c", _UNPRIVILEGED_READ, str(p)],
                           capture_output=True, text=True, env=env, cwd=d)
        assert r.returncode == 0, r.stderr
        assert r.stdout.split() == ["65534", "PermissionError", "True", str(errno.EACCES)], r.stdout + r.stderr
    finally:
        shutil.rmtree(d)


def test_permission_error_as_root_via_process() -> None:
    # pid 1's process is readable by root only; an unused pid is ESRCH/ENOENT.
    with pytest.raises(pkgnote.Error) as e:
        pkgnote.open_process(2 ** 22 + 7)
    assert e.value.errno in (errno.ESRCH, errno.ENOENT)


def test_malformed_note_is_a_problem_or_value_error(programs: dict[str, pathlib.Path], tmp_path: pathlib.Path) -> None:
    data = programs["lib"].read_bytes()
    assert data.count(LIB_JSON.encode()) == 1
    # The note's JSON made an array: same size, no longer a package note.
    bad = data.replace(LIB_JSON.encode(), b"[" + LIB_JSON.encode()[1:-1] + b"]")
    p = tmp_path / "bad.so"
    p.write_bytes(bad)
    info = pkgnote.read(p)
    assert info.packages == [] and info.problems and info.problems[0][0] == errno.EBADMSG
    with pytest.raises(ValueError):
        pkgnote.read(p, strict=True)
    with pytest.raises(ValueError):
        pkgnote.read_bytes(bad, strict=True)
    assert pkgnote.read(programs["lib"], strict=True).packages == [json.loads(LIB_JSON)]


def test_strict_check_raises_value_error() -> None:
    with pytest.raises(ValueError):
        pkgnote.check('{"name": ')
    assert pkgnote.check({"name": "x", "version": "1"}) == []
    assert pkgnote.check({"name": 1}) != []


# ------------------------------------------------------------- hostile input

def corpus_files() -> list[pathlib.Path]:
    files = []
    for d in ("corpus", "regressions"):
        for h in ("elf", "core", "stamp", "metadata"):
            root = SRCDIR / "fuzz" / d / h
            if root.is_dir():
                files += sorted(p for p in root.iterdir() if p.is_file())
    return files


def test_hostile_corpus_never_crashes() -> None:
    files = corpus_files()
    assert len(files) > 100
    outcomes = {"read": 0, "error": 0}
    for f in files:
        data = f.read_bytes()
        for source in (f, data):
            try:
                info = pkgnote.read(source) if isinstance(source, pathlib.Path) else pkgnote.read_bytes(data)
                outcomes["read"] += 1
                for p in info.packages:
                    assert isinstance(p, dict)
                for e, _path, msg in info.problems:
                    assert e >= 0 and isinstance(msg, str)
            except pkgnote.Error as e:
                assert e.errno > 0 and e.strerror
                outcomes["error"] += 1
        try:
            pkgnote.lint(f)
        except pkgnote.Error:
            pass
    assert outcomes["read"] > 0 and outcomes["error"] > 0


def test_hostile_cores_never_crash() -> None:
    root = SRCDIR / "fuzz" / "corpus" / "core"
    files = sorted(root.iterdir())[:60]
    for f in files:
        try:
            with pkgnote.open_core(f.read_bytes(), stack=False, no_disk=True) as c:
                assert isinstance(c.modules, list)
        except pkgnote.Error as e:
            assert e.errno > 0


def test_hostile_archives_scan() -> None:
    files = sorted((SRCDIR / "fuzz" / "corpus" / "archive").iterdir())[:80]
    assert files
    failed = 0
    for f in files:
        s = pkgnote.scan(f, threads=1)
        try:
            for o in s:
                assert isinstance(o.path, str)
            assert s.summary is not None
        except pkgnote.Error as e:
            assert e.errno > 0
            failed += 1
        finally:
            s.close()
    assert failed < len(files)


def test_truncated_prefixes(programs: dict[str, pathlib.Path]) -> None:
    data = programs["lib"].read_bytes()
    for n in list(range(0, 128)) + random.Random(1).sample(range(128, len(data)), 200):
        try:
            pkgnote.read_bytes(data[:n])
        except pkgnote.Error:
            pass


# ------------------------------------------------------------- threads and lifetimes

def test_threads_read_concurrently(programs: dict[str, pathlib.Path]) -> None:
    expected = pkgnote.read(programs["app"]).packages
    failures: list[str] = []

    def work() -> None:
        for _ in range(200):
            if pkgnote.read(programs["app"]).packages != expected:
                failures.append("mismatch")

    ts = [threading.Thread(target=work) for _ in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert failures == []


def test_threads_share_one_scan(programs: dict[str, pathlib.Path]) -> None:
    s = pkgnote.scan(*([programs["dir"]] * 6), threads=1)
    seen: list[str] = []

    def work() -> None:
        for o in s:
            seen.append(o.path)

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len(seen) == 6 * 2 and s.summary is not None and s.summary["inputs"] == 6


def test_objects_valid_after_close(real_core: pathlib.Path, programs: dict[str, pathlib.Path], pkgnote_cmd: str) -> None:
    with pkgnote.open_core(real_core) as c:
        modules = c.modules
        threads = c.threads
    assert c.closed
    assert any(m.package == json.loads(LIB_JSON) for m in modules)
    assert threads and (bool(threads[0].frames) == has_stack(pkgnote_cmd))
    s = pkgnote.scan(programs["dir"])
    objs = list(s)
    s.close()
    s.close()
    assert {o.path for o in objs} == {str(programs["lib"]), str(programs["app"])}
    with pytest.raises(ValueError):
        s.sbom()
    with pytest.raises(ValueError):
        s.packages()


# ------------------------------------------------------------- cross-checks

def elf_sample() -> list[str]:
    root = pathlib.Path("/usr/lib/x86_64-linux-gnu")
    out = []
    for p in sorted(root.glob("*.so*"))[:400]:
        if p.is_file() and not p.is_symlink() and p.read_bytes()[:4] == b"\x7fELF":
            out.append(str(p))
    return out


def test_crosscheck_show_json(pkgnote_cmd: str, programs: dict[str, pathlib.Path]) -> None:
    paths = elf_sample() + [str(programs["app"]), str(programs["lib"]), pkgnote_cmd]
    assert len(paths) > 20
    shown = {d["path"]: d for d in show_json(pkgnote_cmd, *paths)}
    for p in paths:
        assert pkgnote.read(p).to_dict() == shown[p], p


def test_crosscheck_pyelftools_raw_bytes(programs: dict[str, pathlib.Path]) -> None:
    elffile = pytest.importorskip("elftools.elf.elffile")
    compared = 0
    for p in elf_sample()[:150] + [str(programs["app"]), str(programs["lib"])]:
        raw: list[bytes] = []
        with open(p, "rb") as f:
            ef = elffile.ELFFile(f)
            for sec in ef.iter_sections():
                if sec["sh_type"] != "SHT_NOTE":
                    continue
                for n in sec.iter_notes():
                    if n["n_name"] == "FDO" and n["n_type"] == 0xCAFE1A7E:
                        f.seek(n["n_offset"] + 12 + ((n["n_namesz"] + 3) & ~3))
                        raw.append(f.read(n["n_descsz"]))
        mine = pkgnote.read(p).notes
        if raw:
            compared += 1
            # Identical notes are reported once.
            assert mine == list(dict.fromkeys(raw)), p
        else:
            assert mine == [], p
    assert compared >= 2


def test_core_equals_core_json(real_core: pathlib.Path, pkgnote_cmd: str, programs: dict[str, pathlib.Path]) -> None:
    out = subprocess.run([pkgnote_cmd, "core", "--json", str(real_core)], capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    expected = json.loads(out.stdout)
    with pkgnote.open_core(real_core) as c:
        assert c.report == expected and json.loads(c.to_json()) == expected
        assert c.signal_name == "SEGV" and c.fault_address == 16
        assert c.package == json.loads(APP_JSON) and c.executable == str(programs["app"])
        main = c.main_module
        assert main is not None and main.packages == [json.loads(APP_JSON)] and main.source == "core"
        assert main.path == str(programs["app"])
        assert c.threads[0].tid == c.tid and c.threads[0].signal == 11
        lib = [m for m in c.modules if m.path == str(programs["lib"])]
        assert lib and lib[0].package == json.loads(LIB_JSON)
        assert lib[0].build_id == pkgnote.read(programs["lib"]).build_id
        assert lib[0].package_from in ("core-note", "disk-note")
        if not has_stack(pkgnote_cmd):
            assert c.stack_unavailable and c.threads[0].frames == []
            return
        names = [f.function for f in c.threads[0].frames]
        assert "crash_here" in names
        frame = c.threads[0].frames[names.index("crash_here")]
        assert frame.source is not None and frame.source.endswith("app.c") and frame.line == 6
        # the crash signature, as pkgnote core --json carries it
        assert c.signature == expected["signature"] and c.signature_source == "stack"
        assert c.signature is not None and "crash_here" in c.signature
        assert c.signature_hash is not None and len(c.signature_hash) == 16


def test_signature_from_message() -> None:
    text = ("Stack trace of thread 7:\n"
            "#0  0x00007f0000001000 raise (libc.so.6 + 0x1000)\n"
            "#1  0x00007f0000002000 abort (libc.so.6 + 0x2000)\n"
            "#2  0x0000560000001234 parse_header.constprop.0 (tool + 0x1234)\n"
            "#3  0x0000560000001300 main (tool + 0x1300)\n")
    s = pkgnote.signature_from_message(text, {"tool": {"type": "deb", "name": "tools", "version": "1"}})
    assert s["text"] == "tools: parse_header | main" and s["source"] == "message"
    assert s["package"] == "tools" and s["frames"] == ["parse_header", "main"] and len(s["hash"]) == 16
    assert pkgnote.signature_from_message(text)["text"] == "tool: parse_header | main"
    for bad in ("no stack", "Stack trace of thread 1:\n#1  0x1 f (m + 0x1)\n",
                "Stack trace of thread 1:\n#0  0x1 f\x1b[2J (m + 0x1)\n"):
        with pytest.raises(ValueError):
            pkgnote.signature_from_message(bad)


def test_core_from_file_object_and_bytes(real_core: pathlib.Path) -> None:
    with open(real_core, "rb") as f, pkgnote.open_core(f, stack=False) as a:
        pass
    with pkgnote.open_core(real_core.read_bytes(), stack=False) as b:
        pass
    assert [m.path for m in a.modules] == [m.path for m in b.modules]
    assert a.package == b.package and a.threads[0].tid == b.threads[0].tid
    # Without a stack trace the threads are listed, without frames.
    assert a.threads[0].tid == a.tid and a.threads[0].frames == []
    with pytest.raises(FileNotFoundError):
        pkgnote.open_core(real_core.parent / "no-core")


def test_core_debuginfod_dry_run(real_core: pathlib.Path) -> None:
    with pkgnote.open_core(real_core, debuginfod_dry_run=True, debuginfod_urls="http://127.0.0.1:9") as c:
        assert c.threads
    assert isinstance(c.debuginfo, list)


def test_open_process(sleeper: subprocess.Popen[bytes], programs: dict[str, pathlib.Path], pkgnote_cmd: str) -> None:
    with pkgnote.open_process(sleeper.pid) as p:
        assert p.pid == sleeper.pid
        assert p.package == json.loads(APP_JSON)
        lib = [m for m in p.modules if m.path == str(programs["lib"])]
        assert lib and lib[0].source == "mapped" and lib[0].package == json.loads(LIB_JSON)
    out = subprocess.run([pkgnote_cmd, "pid", "--json", str(sleeper.pid)], capture_output=True, text=True)
    assert json.loads(out.stdout)["modules"] == p.report["modules"]


def test_open_process_container_root(programs: dict[str, pathlib.Path], tmp_path: pathlib.Path) -> None:
    """Regression (pid-container-root): a process in another mount
    namespace, whose root holds another file at its library's path, is
    checked against its own root's file, never the host's: nothing
    flagged; and after an upgrade inside it, the installed version is the
    container's new file's."""
    import time
    bwrap = need("bwrap")
    lib = programs["lib"]
    croot = tmp_path / "croot"
    croot.mkdir()
    json2 = LIB_JSON.replace("1.2-3", "2.0-1")
    json3 = LIB_JSON.replace("1.2-3", "3.0-1")
    src = programs["dir"] / "lib.c"
    for out, note in ((croot / lib.name, json2), (tmp_path / "v3.so", json3)):
        subprocess.run(["gcc", "-shared", "-fPIC", "-fuse-ld=bfd", "-o", out, src, "-Xlinker",
                        f"--package-metadata={note}"], check=True)
    # The library's directory is the programs' own: bind the container's
    # over a copy of it, so that the program's rpath finds libpylib there.
    argv = [bwrap, "--bind", "/", "/", "--bind", str(croot), str(programs["dir"]), "--dev", "/dev",
            "--unshare-ipc", "--unshare-uts"]
    probe = subprocess.run(argv + ["true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"bwrap cannot make a mount namespace here: {probe.stderr.strip()}")
    # The program itself lives outside the bound directory.
    app = tmp_path / "pyapp"
    shutil.copy(programs["app"], app)
    proc = subprocess.Popen(argv + [str(app), "sleep"], env=PLAIN_ENV)
    try:
        # bwrap runs the program as its child: its PID is bwrap's child
        # (by /proc's PPid) whose executable is the copy (only bwrap's: another run of this
        # test, on a machine whose PIDs a container shares, has the same
        # path).
        pid = 0
        for _ in range(250):
            kids = []
            for d in pathlib.Path("/proc").iterdir():
                try:
                    if d.name.isdigit() and f"\nPPid:\t{proc.pid}\n" in (d / "status").read_text():
                        kids.append(d.name)
                except OSError:
                    pass
            for d in [pathlib.Path("/proc") / k for k in kids]:
                try:
                    if os.readlink(d / "exe") == str(app) and str(lib) in (d / "maps").read_text():
                        pid = int(d.name)
                except OSError:
                    pass
            if pid:
                break
            time.sleep(0.02)
        assert pid, "the program did not map the library"
        with pkgnote.open_process(pid) as p:
            [m] = [m for m in p.modules if m.path == str(lib)]
            assert m.package == json.loads(json2) and not m.replaced and not m.deleted, m.raw
            assert not any(x.replaced for x in p.modules), [x.path for x in p.modules if x.replaced]
        shutil.copy(tmp_path / "v3.so", croot / ".new")
        os.rename(croot / ".new", croot / lib.name)
        with pkgnote.open_process(pid) as p:
            [m] = [m for m in p.modules if m.path == str(lib)]
            assert m.replaced and m.package == json.loads(json2), m.raw
            assert m.installed_packages == [json.loads(json3)], m.raw
    finally:
        proc.kill()
        proc.wait()


# ------------------------------------------------------------- scan, SBOM

def test_scan_iterates_then_summarises(programs: dict[str, pathlib.Path], tmp_path: pathlib.Path, pkgnote_cmd: str) -> None:
    s = pkgnote.scan(programs["dir"], checksums=True, dependencies=True)
    before = s.summary
    assert before is None
    objs = list(s)
    assert s.summary is not None and s.summary["objects"] == 2 and s.summary["withNote"] == 2
    app = [o for o in objs if o.path.endswith("pyapp")][0]
    assert app.package == json.loads(APP_JSON) and app.sha256 is not None and "libpylib.so" in app.needed
    cmd = subprocess.run([pkgnote_cmd, "scan", "--format", "json", str(programs["dir"])], capture_output=True, text=True)
    lines = [json.loads(l) for l in cmd.stdout.splitlines()]
    assert [o.raw["packages"] for o in objs] == [l["packages"] for l in lines if "path" in l]
    assert s.run() == s.summary
    pk = s.packages()
    assert sorted(m["name"] for m, _ in pk) == ["pyapp", "pylib"]
    fmts: list[Literal["spdx", "spdx3", "cyclonedx", "cyclonedx-1.5", "cyclonedx-1.6", "cyclonedx-1.7"]] = [
        "spdx", "spdx3", "cyclonedx", "cyclonedx-1.5", "cyclonedx-1.6", "cyclonedx-1.7"]
    for fmt in fmts:
        out = tmp_path / f"sbom.{fmt}.json"
        s.write_sbom(out, fmt, reproducible=True, created=0, name="t")
        doc = json.loads(out.read_text())
        assert "pyapp" in json.dumps(doc)
        assert s.sbom(fmt, reproducible=True, created=0, name="t") == out.read_text()
        if fmt == "spdx3":
            assert doc["@context"] == "https://spdx.org/rdf/3.0.1/spdx-context.jsonld", doc
            assert "pyapp" in [e.get("name") for e in doc["@graph"] if e["type"] == "software_Package"]
        elif fmt.startswith("cyclonedx"):
            assert doc["specVersion"] == ("1.6" if fmt == "cyclonedx" else fmt[10:]), (fmt, doc["specVersion"])
    with pytest.raises(ValueError):
        s.sbom("swid")  # type: ignore[arg-type]
    s.close()


def test_scan_errors(tmp_path: pathlib.Path, programs: dict[str, pathlib.Path]) -> None:
    s = pkgnote.scan(tmp_path / "missing", programs["dir"])
    with pytest.raises(FileNotFoundError):
        next(s)
    # The scan goes on with the next input, whose objects name it: a
    # failed input still takes its index among the inputs.
    rest = list(s)
    assert len(rest) == 2 and {o.input for o in rest} == {str(programs["dir"])}
    assert s.summary is not None and s.summary["inputs"] == 1
    with pytest.raises(TypeError):
        pkgnote.scan(tmp_path, bogus=True)  # type: ignore[call-arg]


# ------------------------------------------------------------- generate, stamp, lint, deps

def test_generate_forms(pkgnote_cmd: str, tmp_path: pathlib.Path) -> None:
    j = pkgnote.generate(name="x", version="1.0", type="deb", os="debian", os_release=False)
    assert j == '{"type":"deb","os":"debian","name":"x","version":"1.0"}'
    cmd = subprocess.run([pkgnote_cmd, "generate", "--no-os-release", "--type", "deb", "--os", "debian",
                          "--name", "x", "--version", "1.0"], capture_output=True, text=True)
    assert cmd.stdout.strip() == j
    note = pkgnote.generate({"name": "x"}, format="note", os_release=False)
    assert isinstance(note, bytes) and note[12:16] == b"FDO\0" and b'{"name":"x"}' in note
    obj = pkgnote.generate({"name": "x"}, format="object", os_release=False)
    assert isinstance(obj, bytes)
    o = tmp_path / "n.o"
    o.write_bytes(obj)
    assert pkgnote.read(o).packages == [{"name": "x"}] and pkgnote.read(o).elf_type == "relocatable"
    ld = pkgnote.generate({"name": "x"}, format="ldflags", os_release=False)
    assert ld == "-Xlinker '--package-metadata={\"name\":\"x\"}'"
    dl = pkgnote.generate(format="note", dlopen=[{"soname": ["libz.so.1"], "feature": "z",
                                                   "description": "zlib", "priority": "suggested"}])
    assert isinstance(dl, bytes) and b"libz.so.1" in dl
    with pytest.raises(ValueError):
        pkgnote.generate(format="ldflags", dlopen=[{"soname": ["libz.so.1"]}])
    with pytest.raises(pkgnote.Error) as e:
        pkgnote.generate(name="a\x01b", os_release=False)
    assert e.value.errno == errno.EINVAL


def test_stamp_then_read(programs: dict[str, pathlib.Path], tmp_path: pathlib.Path) -> None:
    need("gcc")
    src = tmp_path / "p.c"
    src.write_text("int main(void) { return 0; }\n")
    exe = tmp_path / "p"
    subprocess.run(["gcc", "-o", exe, src], check=True)
    before = exe.read_bytes()
    r = pkgnote.stamp(exe, {"name": "stamped", "version": "3"}, output=tmp_path / "out")
    assert exe.read_bytes() == before and r["placement"] != "none"
    assert pkgnote.read(tmp_path / "out").packages == [{"name": "stamped", "version": "3"}]
    r = pkgnote.stamp(exe, '{"name":"inplace"}')
    assert pkgnote.read(exe).packages == [{"name": "inplace"}]
    r = pkgnote.stamp(exe, remove=True)
    assert r["placement"] == "removed" and pkgnote.read(exe).packages == []
    with pytest.raises(FileNotFoundError):
        pkgnote.stamp(tmp_path / "none", {"name": "x"})
    with pytest.raises(ValueError):
        pkgnote.stamp(exe)
    with pytest.raises(pkgnote.Error):
        pkgnote.stamp(src, {"name": "x"})


def test_lint(programs: dict[str, pathlib.Path], pkgnote_cmd: str) -> None:
    findings = pkgnote.lint(programs["app"])
    cmd = subprocess.run([pkgnote_cmd, "lint", "--json", str(programs["app"])], capture_output=True, text=True)
    expected = [json.loads(l) for l in cmd.stdout.splitlines()]
    assert [(f.check, f.severity, f.message, f.offset) for f in findings] == \
        [(e["check"], e["severity"], e["message"], e["offset"]) for e in expected]
    bare = pkgnote.lint(pkgnote_cmd)
    assert any(f.check == "no-package-note" and f.severity == "error" for f in bare)


def test_deps(pkgnote_cmd: str) -> None:
    styles: list[Literal["rpm", "json"]] = ["rpm", "json"]
    for style in styles:
        mine = pkgnote.deps([pkgnote_cmd], style)
        cmd = subprocess.run([pkgnote_cmd, "deps", "--format", style, pkgnote_cmd],
                             capture_output=True, text=True)
        assert mine == cmd.stdout, style
    assert "libsqlite3.so.0()(64bit)" in pkgnote.deps(pkgnote_cmd)
    archive = "libarchive.so.13()(64bit)" in pkgnote.deps(pkgnote_cmd)
    assert archive == ("archive" in build_features(pkgnote_cmd))


def test_purl() -> None:
    assert pkgnote.purl(json.loads(APP_JSON)) == "pkg:deb/debian/pyapp@2.0-1?arch=amd64&distro=debian-12"
    assert pkgnote.purl({"type": "deb"}) is None


def test_help_documents_everything() -> None:
    for name in pkgnote.__all__:
        obj = getattr(pkgnote, name)
        assert obj.__doc__, name
    assert "read(path)" in (pkgnote.__doc__ or "")


# ------------------------------------------------------------- the example

def test_apport_example(real_core: pathlib.Path, programs: dict[str, pathlib.Path]) -> None:
    script = SRCDIR / "examples" / "python" / "crash-packages.py"
    p = subprocess.run([sys.executable, str(script), str(real_core)], capture_output=True, text=True)
    assert p.returncode == 1, p.stdout + p.stderr  # pyapp and pylib are not installed packages
    assert f"{programs['app']}: pyapp 2.0-1 (core-note): not installed" in p.stdout
    assert "libc.so.6: " in p.stdout
    libc = [l for l in p.stdout.splitlines() if "/libc.so.6:" in l][0]
    assert libc.endswith(": installed") or "database" in libc, libc


# ------------------------------------------------------------- the GIL

def test_gil_released_while_reading_a_core(real_core: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """open_core() of a FIFO blocks in the library until a writer comes;
    the writer is this thread, which can only run if the reader released
    the GIL.  A watchdog ends the process instead of hanging the suite."""
    import faulthandler
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    result: list[object] = []

    def reader() -> None:
        try:
            result.append(pkgnote.open_core(fifo, stack=False))
        except pkgnote.Error as e:
            result.append(e)

    faulthandler.dump_traceback_later(60, exit=True)
    try:
        t = threading.Thread(target=reader)
        t.start()
        with open(fifo, "wb") as w:
            w.write(real_core.read_bytes())
        t.join()
    finally:
        faulthandler.cancel_dump_traceback_later()
    assert len(result) == 1 and isinstance(result[0], pkgnote.Core)
    assert result[0].package == json.loads(APP_JSON)


# ------------------------------------------------------------- subinterpreters, module state

# Run in a child interpreter process, so that a module that breaks in a
# subinterpreter takes down the child only: imports pkgnote in the main
# interpreter, runs CODE in a subinterpreter made the way HOW names, then
# uses the main interpreter's module again.  Exits 77 when this Python
# has no such way.
SUBINTERPRETER_MAIN = r"""
import importlib, sys
how, code, path = sys.argv[1:4]
try:
    if how == "run_in_subinterp":
        run = importlib.import_module("_testcapi").run_in_subinterp
    else:
        for name in ("concurrent.interpreters", "test.support.interpreters"):
            try:
                interpreters = importlib.import_module(name)
                break
            except ImportError:
                pass
        else:
            raise ImportError("neither concurrent.interpreters nor test.support.interpreters")
except ImportError as e:
    print(f"no {how} in Python {sys.version.split()[0]}: {e}")
    sys.exit(77)
import pkgnote
before = pkgnote.read(path).packages
# The subinterpreter finds pkgnote where this one did.
code = f"import sys; sys.path[:] = {sys.path!r}\n" + code
sys.stdout.flush()
if how == "run_in_subinterp":
    # 0, or -1 after printing the subinterpreter's exception
    if run(code) != 0:
        sys.exit(1)
else:
    # Isolated: from 3.12 on with a GIL of its own, and refusing modules
    # that do not declare they support that.
    interp = interpreters.create()
    (getattr(interp, "exec", None) or interp.run)(code)
    interp.close()
print("main:", pkgnote.read(path).packages == before, flush=True)
"""

# What the subinterpreter does: the module's functions, its exception
# classes and its scan type, each its own.
SUBINTERPRETER_CODE = """
import json, os, sys
import pkgnote
info = pkgnote.read(PATH)
try:
    pkgnote.read(os.path.join(os.path.dirname(PATH), "missing"))
    missing = None
except pkgnote.NotFoundError as e:
    missing = e.errno
with pkgnote.scan(PATH, threads=1) as s:
    scanned = [o.packages for o in s]
print("subinterpreter:", json.dumps({"packages": info.packages, "missing": missing, "scanned": scanned}))
sys.stdout.flush()
"""


@pytest.mark.parametrize("how", ["run_in_subinterp", "interpreters"])
def test_subinterpreter(how: str, programs: dict[str, pathlib.Path]) -> None:
    code = SUBINTERPRETER_CODE.replace("PATH", repr(str(programs["lib"])))
    p = subprocess.run([sys.executable, "-c", SUBINTERPRETER_MAIN, how, code, str(programs["lib"])],
                       capture_output=True, text=True, timeout=120)
    if p.returncode == 77:
        pytest.skip(p.stdout.strip())
    assert p.returncode == 0, p.stdout + p.stderr
    sub = [l for l in p.stdout.splitlines() if l.startswith("subinterpreter: ")]
    assert len(sub) == 1, p.stdout + p.stderr
    assert json.loads(sub[0].split(" ", 1)[1]) == {
        "packages": [json.loads(LIB_JSON)], "missing": errno.ENOENT, "scanned": [[json.loads(LIB_JSON)]]}
    assert p.stdout.splitlines()[-1] == "main: True"


def load_extension_again() -> Any:
    """A new module object of the extension, made from its spec as
    importlib makes one (not the one in sys.modules)."""
    import importlib.util
    spec = importlib.import_module("pkgnote._pkgnote").__spec__
    assert spec is not None and spec.loader is not None
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def test_module_objects_are_independent(programs: dict[str, pathlib.Path], tmp_path: pathlib.Path) -> None:
    import gc
    import weakref
    first = importlib.import_module("pkgnote._pkgnote")
    a, b = load_extension_again(), load_extension_again()
    assert len({id(first), id(a), id(b)}) == 3
    for name in ("_Scan", "Error", "NotFoundError", "PermissionDeniedError"):
        assert len({id(getattr(m, name)) for m in (first, a, b)}) == 3, name
    # Each module raises its own classes.
    with pytest.raises(b.NotFoundError) as e:
        b._read(tmp_path / "missing")
    err: Any = e.value
    assert {b.Error, a.Error, pkgnote.Error} & set(type(err).__mro__) == {b.Error}
    assert err.errno == errno.ENOENT and err.filename == str(tmp_path / "missing")
    assert type(a._Scan(threads=1)) is a._Scan

    # A scan keeps its module (through its type) after the module is
    # gone from everywhere else; the other module is untouched by it.
    scan = a._Scan(threads=1)
    gone = weakref.ref(a)
    del a
    gc.collect()
    assert gone() is not None
    kind, objs = scan.add(programs["lib"])
    assert [o["packages"] for o in objs] == [[json.loads(LIB_JSON)]]
    with pytest.raises(Exception) as e2:
        scan.add(tmp_path / "missing")
    assert type(e2.value).__name__ == "NotFoundError"
    assert {b.Error, pkgnote.Error} & set(type(e2.value).__mro__) == set()
    del e2
    scan.close()
    del scan
    gc.collect()
    # No reference to the module is left behind: its state, its type and
    # its exception classes are collected with it.
    assert gone() is None
    assert b._read(programs["lib"])["packages"] == [json.loads(LIB_JSON)]
    assert pkgnote.read(programs["lib"]).packages == [json.loads(LIB_JSON)]


def test_no_leaks_in_a_loop(programs: dict[str, pathlib.Path], tmp_path: pathlib.Path) -> None:
    """Every path through the module, in a loop: no Python memory is kept
    (tracemalloc) and the module's types and exception classes hold no
    more references after it than before."""
    import gc
    import tracemalloc
    lib, data, missing = programs["lib"], programs["lib"].read_bytes(), tmp_path / "missing"
    native = importlib.import_module("pkgnote._pkgnote")

    def work() -> None:
        pkgnote.read(lib)
        pkgnote.read_bytes(data)
        with pytest.raises(pkgnote.NotFoundError):
            pkgnote.read(missing)
        with pytest.raises(pkgnote.Error):
            pkgnote.read_bytes(b"not an object")
        with pkgnote.scan(missing, lib, threads=1) as s:
            with pytest.raises(pkgnote.NotFoundError):
                next(s)
            assert len(list(s)) == 1 and s.packages()
        closed = native._Scan(threads=1)
        closed.close()
        with pytest.raises(ValueError):
            closed.summary()
        assert pkgnote.purl(LIB_JSON)
        assert pkgnote.check(LIB_JSON) == []
        assert pkgnote.lint(lib) is not None

    def refs() -> list[int]:
        gc.collect()
        return [sys.getrefcount(t) for t in (native._Scan, native.Error, native.NotFoundError)]

    for _ in range(20):
        work()
    before_refs = refs()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(1000):
            work()
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert refs() == before_refs
    # One object kept per round would be 1000 of them, at least 32 KB.
    assert grown < 32 * 1024, grown


# ------------------------------------------------------------- installing

def test_pip_install_in_a_venv(tmp_path: pathlib.Path, programs: dict[str, pathlib.Path]) -> None:
    """The README's recipe: a venv with the system's site packages (for
    Debian's python3-mesonpy: no package index needed) and pip install
    --no-build-isolation of the source tree; the module then works with
    no build tree and no libpkgnote installed."""
    venv = tmp_path / "v"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, env=PLAIN_ENV)
    src = tmp_path / "src"
    # A copy of the tree, without build directories: meson-python writes
    # its native file into the source tree.
    shutil.copytree(SRCDIR, src, ignore=shutil.ignore_patterns("build*", ".git", "__pycache__"))
    p = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation", "--no-index", str(src)],
                       capture_output=True, text=True, cwd=tmp_path, env=PLAIN_ENV)
    assert p.returncode == 0, p.stdout + p.stderr
    code = ("import pkgnote, sys; i = pkgnote.read(sys.argv[1]); "
            "print(pkgnote.__file__); print(i.packages[0]['name'])")
    env = {k: v for k, v in PLAIN_ENV.items() if k not in ("PYTHONPATH", "LD_LIBRARY_PATH")}
    r = subprocess.run([str(venv / "bin" / "python"), "-c", code, str(programs["app"])],
                       capture_output=True, text=True, cwd=tmp_path, env=env)
    assert r.returncode == 0, r.stderr
    where, name = r.stdout.splitlines()
    assert where.startswith(str(venv)) and name == "pyapp"


def _store_report(d: pathlib.Path, pid: int, t: int, fn: str | None, version: str, host: str) -> None:
    frames = [] if fn is None else [
        {"pc": "0x1010", "moduleOffset": "0x10", "function": fn, "module": "app"},
        {"pc": "0x1100", "moduleOffset": "0x100", "function": "main", "module": "app"}]
    report = {"time": t, "pid": pid, "uid": 1000, "signal": 11, "executable": "/usr/bin/app",
              "package": {"name": "app", "version": version}, "hostname": host, "bootId": "b" * 32,
              "machineId": host[-1] * 32,
              "modules": [{"start": "0x1000", "end": "0x2000", "path": "/usr/bin/app",
                           "packages": [{"name": "app", "version": version}]}],
              "threads": [{"frames": frames}]}
    name = f"core.app.1000.{pid}.{t}"
    (d / (name + ".json")).write_text(json.dumps(report))
    # the core beside it, under either name a build gives it
    for suffix in ("", ".zst"):
        (d / (name + suffix)).write_bytes(b"core")


def test_crash_groups(tmp_path: pathlib.Path) -> None:
    _store_report(tmp_path, 10, 1700000000, "parse", "1.0", "h1")
    _store_report(tmp_path, 11, 1700000100, "parse", "1.0", "h2")
    _store_report(tmp_path, 12, 1700000200, "other", "1.0", "h1")
    _store_report(tmp_path, 13, 1700090000, "parse", "1.1", "h1")
    _store_report(tmp_path, 14, 1700000300, None, "1.0", "h3")
    g = pkgnote.crash_groups(stores=["pkgnote"], pkgnote_dir=tmp_path)
    assert (g["groupBy"], g["crashes"], g["groupCount"], g["machineCount"]) == ("signature", 5, 3, 3)
    assert [(x["key"], x["count"]) for x in g["groups"]] == [
        ("app: parse | main", 3), ("app: ?", 1), ("app: other | main", 1)]
    first = g["groups"][0]
    assert [(v["version"], v["count"]) for v in first["versions"]] == [("1.0", 2), ("1.1", 1)]
    assert first["example"]["time"] == 1700090000 and first["example"]["signature"] == "app: parse | main"
    assert g["groups"][2]["notSeenSince"] == "1.1" and "hash" not in g["groups"][1]
    assert g["problems"] == [], g["problems"]
    # a report whose stack is malformed: its crash is counted, and why it
    # has no signature is a problem naming it
    bad = tmp_path / "bad"
    bad.mkdir()
    _store_report(bad, 15, 1700000400, "parse", "1.0", "h1")
    r = json.loads((bad / "core.app.1000.15.1700000400.json").read_text())
    r["threads"][0]["frames"][0]["pc"] = "zz"
    (bad / "core.app.1000.15.1700000400.json").write_text(json.dumps(r))
    b = pkgnote.crash_groups(stores=["pkgnote"], pkgnote_dir=bad)
    assert b["crashes"] == 1 and [x["key"] for x in b["groups"]] == ["app: ?"], b
    assert [(e, p) for (e, p, _m) in b["problems"]] == [(74, "core.app.1000.15.1700000400")], b["problems"]
    assert "no signature from the report's stack trace" in b["problems"][0][2], b["problems"]
    top = pkgnote.crash_groups("package", 1, stores=["pkgnote"], pkgnote_dir=str(tmp_path), since=1700000100)
    assert top["crashes"] == 4 and [(x["key"], x["count"]) for x in top["groups"]] == [("app", 4)]
    with pytest.raises(ValueError):
        pkgnote.crash_groups("bogus", stores=["pkgnote"], pkgnote_dir=tmp_path)
    with pytest.raises(ValueError):
        pkgnote.crash_groups(stores=["apport"], pkgnote_dir=tmp_path)
    with pytest.raises(FileNotFoundError):
        pkgnote.crash_groups(stores=["pkgnote"], pkgnote_dir=tmp_path / "none")


# ------------------------------------------------------- closure and verify

def _command_json(cmd: list[str]) -> Any:
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


def test_closure(pkgnote_cmd: str) -> None:
    mine = pkgnote.closure(pkgnote_cmd, priority="required")
    cmd = _command_json([pkgnote_cmd, "deps", "--closure", "--priority", "required", "--json", pkgnote_cmd])
    assert mine == cmd
    paths = [f["path"] for f in mine["files"]]
    assert os.path.realpath(pkgnote_cmd) in [os.path.realpath(p) for p in paths]
    assert any("/libc.so.6" in p for p in paths), paths
    with pytest.raises(FileNotFoundError):
        pkgnote.closure("/nonexistent/program")
    with pytest.raises(ValueError):
        pkgnote.closure(pkgnote_cmd, priority="optional")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        pkgnote.closure(pkgnote_cmd, features=["a\0b"])
    # a root whose name is no UTF-8 is a path like another
    with pytest.raises(FileNotFoundError):
        pkgnote.closure(pkgnote_cmd, root=os.fsdecode(b"/nonexistent-\xff"))
    with pytest.raises(FileNotFoundError):
        pkgnote.closure(pkgnote_cmd, root=b"/nonexistent-\xff")


def test_verify(pkgnote_cmd: str, tmp_path: pathlib.Path) -> None:
    # an artefact holding one program and nothing it needs
    bindir = tmp_path / "usr" / "bin"
    bindir.mkdir(parents=True)
    shutil.copy(pkgnote_cmd, bindir / "prog")
    selections: list[tuple[dict[str, Any], list[str]]] = [
        ({}, []), ({"priority": "required"}, ["--priority", "required"]),
        ({"features": ["zstd"], "all_features": True}, ["--feature", "zstd", "--all-features"])]
    for sel, args in selections:
        mine = pkgnote.verify(tmp_path, **sel)
        cmd = _command_json([pkgnote_cmd, "deps", "--verify", "--json", *args, str(tmp_path)])
        assert [mine] == cmd, sel
    v = pkgnote.verify(str(tmp_path))
    assert v["kind"] == "directory" and v["objects"] == 1
    kinds = {(f["object"], f["kind"]) for f in v["findings"]}
    assert ("/usr/bin/prog", "interpreter") in kinds and ("/usr/bin/prog", "needed") in kinds, kinds
    assert v["required"] == sum(1 for f in v["findings"] if f["priority"] == "required") > 0
    # the graph: the program, and a missing edge for each library it lacks
    assert v["nodes"] == ["/usr/bin/prog"]
    missing = {e["name"] for e in v["edges"] if "to" not in e}
    assert {f["names"][0] for f in v["findings"] if f["kind"] in ("needed", "interpreter")} <= missing, missing
    with pytest.raises(FileNotFoundError):
        pkgnote.verify(tmp_path / "missing")
    (tmp_path / "not-an-initrd").write_bytes(b"no cpio archive here")
    with pytest.raises(pkgnote.Error) as e:
        pkgnote.verify(tmp_path / "not-an-initrd")
    assert e.value.errno == errno.EBADMSG, e.value
    with pytest.raises(ValueError):
        pkgnote.verify(tmp_path, priority="optional")  # type: ignore[arg-type]


def test_kernel(pkgnote_cmd: str, tmp_path: pathlib.Path) -> None:
    # A sysfs tree: a build-id, a build salt that is no package, one module.
    def note(owner: bytes, ntype: int, desc: bytes) -> bytes:
        name = owner + b"\0"
        head = len(name).to_bytes(4, "little") + len(desc).to_bytes(4, "little") + ntype.to_bytes(4, "little")
        return head + name + b"\0" * (-len(name) % 4) + desc + b"\0" * (-len(desc) % 4)
    bid = "ab" * 20
    (tmp_path / "sys" / "kernel").mkdir(parents=True)
    (tmp_path / "sys" / "kernel" / "notes").write_bytes(
        note(b"GNU", 3, bytes.fromhex(bid)) + note(b"Linux", 0x100, b"6.1.102-1.182.amzn2023.x86_64\0"))
    mod = tmp_path / "sys" / "module" / "my_mod"
    (mod / "notes").mkdir(parents=True)
    (mod / "notes" / ".note.gnu.build-id").write_bytes(note(b"GNU", 3, bytes.fromhex("cd" * 20)))
    (mod / "initstate").write_text("live\n")
    (tmp_path / "osrelease").write_text("6.1.0-test\n")
    (tmp_path / "root").mkdir()
    k = pkgnote.kernel(sysfs=tmp_path / "sys", osrelease=tmp_path / "osrelease", root=tmp_path / "root")
    assert (k["release"], k["buildId"], k["buildSalt"], k["package"]) == \
        ("6.1.0-test", bid, "6.1.102-1.182.amzn2023.x86_64", None), k
    assert [(m["name"], m["buildId"], m["file"]) for m in k["modules"]] == [("my_mod", "cd" * 20, None)]
    assert k["needsReboot"] and [r["reason"] for r in k["reboot"]] == ["image-missing"], k
    cmd = _command_json([pkgnote_cmd, "ps", "--kernel", "--json", "--sysfs", str(tmp_path / "sys"),
                         "--osrelease", str(tmp_path / "osrelease"), "--root", str(tmp_path / "root")])
    assert k == cmd
    # modules=False: the kernel alone, as pid --json gives it
    alone = pkgnote.kernel(sysfs=tmp_path / "sys", osrelease=tmp_path / "osrelease", root=tmp_path / "root",
                           modules=False)
    assert "modules" not in alone and alone == {key: v for key, v in k.items() if key != "modules"}, alone
    # image=False: the kernel's own notes alone, as a crash report has them
    own = pkgnote.kernel(sysfs=tmp_path / "sys", osrelease=tmp_path / "osrelease", root=tmp_path / "root",
                         modules=False, image=False)
    gone = ("modules", "image", "needsReboot", "cannotTell", "reboot")
    assert own == {key: v for key, v in k.items() if key not in gone}, own
    with pytest.raises(FileNotFoundError):
        pkgnote.kernel(sysfs=tmp_path / "missing")
    (tmp_path / "sys" / "kernel" / "notes").write_bytes(note(b"GNU", 3, b""))  # a build-id of 0 bytes
    with pytest.raises(pkgnote.Error) as e:
        pkgnote.kernel(sysfs=tmp_path / "sys", osrelease=tmp_path / "osrelease", root=tmp_path / "root")
    assert e.value.errno == errno.EBADMSG, e.value
