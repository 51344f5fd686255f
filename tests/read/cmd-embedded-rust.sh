#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Rust crate lists (cargo-auditable's .dep-v0) wherever Go modules are
# reported: the real programs dist/make-sid-rust-root.sh built in the sid
# root through show (text and JSON), scan's JSON, the scan and ps SBOMs
# (CycloneDX 1.6 and 1.5, SPDX 2.3: crates nested under the program's own
# component, the list's dependencies as CycloneDX dependencies and SPDX
# DEPENDS_ON), each compared with the section's JSON decoded here by
# objcopy, Python's zlib and json.  A Go program given the crate list too
# (as a cgo program linking a Rust static library carries both) reports
# Go's modules and then the crates, Go's toolchain and settings, nothing
# twice.  The same tree scanned as a tarball read as a stream, as an OCI
# layout and as a docker-archive gives the same objects: the capture of a
# streamed member keeps what Go's build information and the crate list
# need, also when a member's debugging information is more than is kept
# of it.  Damaged sections (invalid JSON, a zlib bomb, a cycle, a
# truncated stream) are clear problems in show and scan, never a crash,
# and a damaged crate list leaves a Go program's modules.
. "$SRCDIR/tests/lib.sh"
require python3 objcopy tar
OUT=${PKGNOTE_TEST_SID_RUST_ROOT:-/var/cache/pkgnote/roots/sid-rust}/build/out
if [ ! -x "$OUT/demo" ]; then
        missing "the Rust programs of the sid root (sh dist/make-sid-rust-root.sh)" "$OUT/demo"
        finish
        exit $?
fi
with_feature zlib "zlib streams" || { finish; exit $?; }

mkdir -p tree/bin
cp "$OUT/demo" "$OUT/demo.stripped" tree/bin/
objcopy --dump-section .dep-v0=dep.z "$OUT/demo" obj.tmp || fatal "objcopy cannot take the section out"
# and with 24 MB of debugging information after the section, more than a
# streamed member keeps: its end is dropped, not the section table
head -c 24000000 /dev/urandom > junk.bin &&
        objcopy --add-section .debug_junk=junk.bin "$OUT/demo" tree/bin/demo-debug || fatal "objcopy cannot add a section"

# Go programs: one of Debian's (large enough to be read from a stream in
# part; built outside a module, it has a toolchain and settings only), and
# one built here in a module, as it is and with the Rust program's crate
# list added as the same non-allocated section.
for g in /usr/bin/skopeo /usr/bin/umoci /usr/bin/buildah; do
        [ -f "$g" ] && cp "$g" tree/bin/go-debian && break
done
GO=
if command -v go > /dev/null; then
        mkdir -p gosrc && printf 'module example.com/hello\n\ngo 1.19\n' > gosrc/go.mod &&
                printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello") }\n' > gosrc/main.go &&
                (cd gosrc && GOCACHE=$T/gocache GOPATH=$T/gopath GOPROXY=off GOFLAGS=-mod=mod HOME=$T CGO_ENABLED=0 \
                        go build -o ../tree/bin/go-prog .) || fatal "go cannot build a program"
        GO=tree/bin/go-prog
        objcopy --add-section .dep-v0=dep.z --set-section-flags .dep-v0=readonly,contents $GO tree/bin/go-rust ||
                fatal "objcopy cannot add the section to a Go program"
else
        missing "a Go program with a crate list" go
fi

# want.py MODE FILE...: the "embedded" member show --json must give,
# computed from the section (objcopy, zlib, json) and, for a Go program,
# from its own report without the section: the root crate first, then
# the others in the list's order, purls pkg:cargo/NAME@VERSION, edges as
# [from, to] indices after Go's components.
cat > want.py << 'PYEOF'
import json, os, subprocess, sys, zlib

def crates(path):
    subprocess.run(["objcopy", "--dump-section", ".dep-v0=sec.z", path, "sec.tmp"], check=True,
                   stderr=subprocess.DEVNULL)
    doc = json.loads(zlib.decompress(open("sec.z", "rb").read()))
    return doc["packages"]

def want(path, go=None):
    e = dict(go) if go else {"components": [], "dependencies": [], "settings": []}
    e["components"] = list(e["components"])
    e["dependencies"] = list(e["dependencies"])
    base = len(e["components"])
    pk = crates(path)
    root = [i for i, p in enumerate(pk) if p.get("root")]
    order = root + [i for i in range(len(pk)) if i not in root]
    at = {i: base + k for k, i in enumerate(order)}
    for i in order:
        p = pk[i]
        e["components"].append({"ecosystem": "cargo", "name": p["name"], "version": p["version"],
                                "source": p["source"], "kind": p.get("kind", "runtime"),
                                "purl": "pkg:cargo/%s@%s" % (p["name"], p["version"]),
                                "main": bool(p.get("root", False))})
    e["dependencies"] += sorted([at[i], at[d]] for i, p in enumerate(pk) for d in p.get("dependencies", []))
    return e

mode, rest = sys.argv[1], sys.argv[2:]
if mode == "rust":
    print(json.dumps(want(rest[0]), sort_keys=True))
else:  # go-rust FILE GO_REPORT: the Go program's list, then the crates
    go = json.loads(open(rest[1]).readline())["embedded"]
    print(json.dumps(want(rest[0], go), sort_keys=True))
PYEOF
got_embedded() {
        python3 -c 'import json, sys; print(json.dumps(json.loads(sys.stdin.readline()).get("embedded"), sort_keys=True))'
}

COMPARED=0
for p in demo demo.stripped demo-debug; do
        python3 want.py rust "tree/bin/$p" > want.txt || fatal "cannot decode $p's section"
        "$PKGNOTE" show --json "tree/bin/$p" | got_embedded > got.txt
        if cmp -s want.txt got.txt; then
                pass "$p: show --json's crates and edges are the section's ($(grep -o '"cargo"' want.txt | wc -l) crates)"
                COMPARED=$((COMPARED + 1))
        else
                fail "$p: show --json's crates and edges are the section's" "want $(cat want.txt) got $(cat got.txt)"
        fi
done
if [ -n "$GO" ]; then
        "$PKGNOTE" show --json tree/bin/go-prog > go.json
        python3 want.py go-rust tree/bin/go-rust go.json > want.txt || fatal "cannot decode the section"
        "$PKGNOTE" show --json tree/bin/go-rust | got_embedded > got.txt
        if cmp -s want.txt got.txt && grep -q '"toolchain": "go' got.txt && grep -q '"golang"' got.txt; then
                pass "a Go program with a crate list: Go's modules, then the crates, once each"
        else
                fail "a Go program with a crate list: Go's modules, then the crates, once each" \
                        "want $(head -c 600 want.txt) got $(head -c 600 got.txt)"
        fi
fi
# the text layout: the crates with source and kind, the edges by name
"$PKGNOTE" show tree/bin/demo > show.txt
if grep -q '^    main: demo 0.3.1 (pkg:cargo/demo@0.3.1) \[local, runtime\]$' show.txt &&
        grep -q '^    dependency: autocfg [^ ]* (pkg:cargo/autocfg@[^)]*) \[crates.io, build\]$' show.txt &&
        grep -q '^    depends: num-traits [^ ]* -> autocfg ' show.txt; then
        pass "show prints the crates with their source and kind, and the edges by name"
else
        fail "show prints the crates with their source and kind, and the edges by name" "$(cat show.txt)"
fi

# scan: each object's line carries what show says of it, read from the
# tree, from a tarball read as a stream, from an OCI layout and from a
# docker-archive.  objects FILE: the objects' lines, their path from the
# root, "input" left out, sorted.
objects() {
        python3 - "$1" << 'PYEOF'
import json, sys
rows = []
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "path" not in d or "summary" in d:
        continue
    d.pop("input", None)
    d.pop("image", None)
    d["path"] = "/" + d["path"].split("/bin/", 1)[-1] if "/bin/" in d["path"] else d["path"]
    rows.append(json.dumps(d, sort_keys=True))
print("\n".join(sorted(rows)))
PYEOF
}
"$PKGNOTE" scan --format json tree > tree.json 2> tree.err || fail "scan of the tree" "$(cat tree.err)"
objects tree.json > tree.obj
n=$(grep -c '"embedded"' tree.obj)
for p in demo demo.stripped; do
        python3 want.py rust "tree/bin/$p" > want.txt
        grep "\"path\": \"/$p\"" tree.obj | got_embedded > got.txt
        cmp -s want.txt got.txt && pass "scan: $p's crates are the section's" ||
                fail "scan: $p's crates are the section's" "$(head -c 400 got.txt)"
done
tar -cf tree.tar -C tree .
if with_feature archive "the tree as a tarball read as a stream gives the same objects"; then
        "$PKGNOTE" scan --format json - < tree.tar > tar.json 2> tar.err
        objects tar.json > tar.obj
        if [ "$n" -ge 2 ] && cmp -s tree.obj tar.obj; then
                pass "the tree as a tarball read as a stream gives the same objects ($n with components)"
        else
                fail "the tree as a tarball read as a stream gives the same objects" "$(diff tree.obj tar.obj | head -c 1500)"
        fi
fi
if ! command -v umoci > /dev/null || ! command -v skopeo > /dev/null; then
        missing "the tree as an OCI layout and a docker-archive gives the same objects" "umoci and skopeo"
elif with_feature archive "the tree as an OCI layout gives the same objects"; then
        umoci init --layout lay > /dev/null && umoci new --image lay:one > /dev/null &&
                umoci unpack --rootless --image lay:one b1 > /dev/null 2>&1 && cp -a tree/. b1/rootfs/ &&
                umoci repack --image lay:one b1 > /dev/null || fatal "umoci cannot make the layout"
        skopeo copy -q oci:lay:one docker-archive:docker.tar:test/one:1 > /dev/null 2>&1 ||
                fatal "skopeo cannot make a docker-archive"
        for img in oci:lay:one docker-archive:docker.tar; do
                "$PKGNOTE" scan --format json "$img" > img.json 2> img.err
                objects img.json > img.obj
                if cmp -s tree.obj img.obj; then
                        pass "the tree as $img gives the same objects"
                else
                        fail "the tree as $img gives the same objects" "$(cat img.err; diff tree.obj img.obj | head -c 1500)"
                fi
        done
fi

# The SBOMs: the crates nested under the program's own component (its root
# crate: the program has no package), the list's edges between them.
"$PKGNOTE" scan --format cyclonedx -o r.cdx.json tree/bin/demo 2> /dev/null
"$PKGNOTE" scan --format cyclonedx --cyclonedx-version 1.5 -o r15.cdx.json tree/bin/demo 2> /dev/null
"$PKGNOTE" scan --format spdx -o r.spdx.json tree/bin/demo 2> /dev/null
# the whole tree (Go programs, one with crates too), for the schemas
"$PKGNOTE" scan --format spdx -o t.spdx.json tree 2> /dev/null
"$PKGNOTE" scan --format cyclonedx -o t.cdx.json tree 2> /dev/null
# sbom.py KIND FILE: checks FILE's crates and edges against the section's.
cat > sbom.py << 'PYEOF'
import json, subprocess, sys, zlib
kind, path, prog = sys.argv[1], sys.argv[2], sys.argv[3]
subprocess.run(["objcopy", "--dump-section", ".dep-v0=sec.z", prog, "sec.tmp"], check=True)
pk = json.loads(zlib.decompress(open("sec.z", "rb").read()))["packages"]
want_edges = sorted((pk[i]["name"], pk[d]["name"]) for i, p in enumerate(pk) for d in p.get("dependencies", []))
root = [p["name"] for p in pk if p.get("root")][0]
doc = json.load(open(path))
bad = []
if kind == "cyclonedx":
    names = {}
    def walk(cs, parent):
        for c in cs:
            names[c["bom-ref"]] = (c["name"], c.get("purl"), parent)
            walk(c.get("components", []), c["name"])
    walk(doc.get("components", []), None)
    nested = sorted(n for n, purl, parent in names.values() if parent == root)
    if nested != sorted(p["name"] for p in pk if not p.get("root")):
        bad.append("nested %s" % nested)
    for ref, (n, purl, parent) in names.items():
        if purl and purl.startswith("pkg:cargo/") and not any(purl == "pkg:cargo/%s@%s" % (p["name"], p["version"]) for p in pk):
            bad.append("purl " + purl)
    got = sorted((names[d["ref"]][0], names[t][0]) for d in doc.get("dependencies", []) if d["ref"] in names
                 for t in d.get("dependsOn", []) if names.get(t, ("",))[0] in [p["name"] for p in pk])
else:
    ids = {p["SPDXID"]: p["name"] for p in doc["packages"]}
    rels = doc["relationships"]
    owner = [r["relatedSpdxElement"] for r in rels if r["relationshipType"] == "DESCRIBES" and ids.get(r["relatedSpdxElement"]) == root]
    held = sorted(ids[r["relatedSpdxElement"]] for r in rels if r["relationshipType"] == "CONTAINS" and r["spdxElementId"] in owner)
    if not owner or held != sorted(p["name"] for p in pk if not p.get("root")):
        bad.append("contains %s" % held)
    got = sorted((ids[r["spdxElementId"]], ids[r["relatedSpdxElement"]]) for r in rels
                 if r["relationshipType"] == "DEPENDS_ON" and r["spdxElementId"] in ids and ids[r["spdxElementId"]] in [p["name"] for p in pk])
if got != want_edges:
    bad.append("edges %s, want %s" % (got, want_edges))
print("; ".join(bad))
sys.exit(1 if bad else 0)
PYEOF
for f in r.cdx.json:cyclonedx r15.cdx.json:cyclonedx r.spdx.json:spdx; do
        python3 sbom.py "${f#*:}" "${f%%:*}" tree/bin/demo > sbom.txt 2>&1 &&
                pass "${f%%:*}: the crates under the program, the list's edges between them" ||
                fail "${f%%:*}: the crates under the program, the list's edges between them" "$(cat sbom.txt)"
done

# A running Rust program (stopped by ptrace at its exec, before it runs):
# pid's module and the ps SBOMs carry its crates and edges.
cat > stopped.py << 'PYEOF'
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
pid = os.fork()
if pid == 0:
    libc.ptrace(0, 0, 0, 0)  # PTRACE_TRACEME: stopped at the exec
    os.execv(sys.argv[1], [sys.argv[1]])
os.waitpid(pid, os.WUNTRACED)
print(pid, flush=True)
sys.stdin.read()  # until the test closes it
os.kill(pid, 9)
PYEOF
mkfifo hold
python3 stopped.py "$PWD/tree/bin/demo" < hold > pid.txt &
exec 9> hold
i=0
while [ ! -s pid.txt ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
PID=$(cat pid.txt)
if [ -n "$PID" ]; then
        "$PKGNOTE" pid --json "$PID" > pid.json 2> pid.err
        python3 want.py rust tree/bin/demo > want.txt
        python3 -c '
import json, sys
d = json.load(open("pid.json"))
m = [m for m in d["modules"] if m["path"].endswith("/demo")]
print(json.dumps(m[0].get("embedded") if m else None, sort_keys=True))' > got.txt 2>&1
        cmp -s want.txt got.txt && pass "pid: the running program's module carries its crates" ||
                fail "pid: the running program's module carries its crates" "$(cat pid.err got.txt | head -c 600)"
        "$PKGNOTE" ps --format cyclonedx "$PID" > ps.cdx.json 2> /dev/null
        "$PKGNOTE" ps --format spdx "$PID" > ps.spdx.json 2> /dev/null
        python3 - "$PID" << 'PYEOF' > ps.txt 2>&1 && pass "ps's SBOMs: the process holds the crates, with the list's edges" ||
import json, subprocess, sys, zlib
pk = json.loads(zlib.decompress(open("dep.z", "rb").read()))["packages"]
want = sorted((pk[i]["name"], pk[d]["name"]) for i, p in enumerate(pk) for d in p.get("dependencies", []))
cdx = json.load(open("ps.cdx.json"))
proc = [c for c in cdx["components"] if c.get("bom-ref") == "pkgnote-process-" + sys.argv[1]][0]
names = {c["bom-ref"]: c["name"] for c in proc.get("components", [])}
assert sorted(names.values()) == sorted(p["name"] for p in pk), names
got = sorted((names[d["ref"]], names[t]) for d in cdx["dependencies"] if d["ref"] in names for t in d["dependsOn"])
assert got == want, (got, want)
spdx = json.load(open("ps.spdx.json"))
ids = {p["SPDXID"]: p["name"] for p in spdx["packages"]}
pid = "SPDXRef-Process-" + sys.argv[1]
held = sorted(ids[r["relatedSpdxElement"]] for r in spdx["relationships"]
              if r["relationshipType"] == "CONTAINS" and r["spdxElementId"] == pid)
assert held == sorted(p["name"] for p in pk), held
got = sorted((ids[r["spdxElementId"]], ids[r["relatedSpdxElement"]]) for r in spdx["relationships"]
             if r["relationshipType"] == "DEPENDS_ON" and r["spdxElementId"] != pid)
assert got == want, (got, want)
PYEOF
                fail "ps's SBOMs: the process holds the crates, with the list's edges" "$(cat ps.txt)"
else
        fail "a Rust program stopped at its exec" "no PID"
fi
exec 9>&-
wait

# The SBOMs against their official schemas, as cmd-embedded does.
schemas="$SRCDIR/../shared/schemas"
if [ ! -f "$schemas/spdx-2.3.schema.json" ] || [ ! -f "$schemas/bom-1.5.SNAPSHOT.schema.json" ]; then
        skip "the SBOMs with crates validate" "schemas not found in $schemas (CI puts shared/ beside the checkout)"
elif sbom_validator "the SBOMs with crates validate"; then
        validate_sbom "SPDX 2.3 with crates validates" "$AJV" "$SCHEMAS" spdx r.spdx.json
        validate_sbom "CycloneDX 1.6 with crates validates" "$AJV" "$SCHEMAS" cyclonedx r.cdx.json
        validate_sbom "CycloneDX 1.5 with crates validates" "$AJV" "$SCHEMAS" cyclonedx r15.cdx.json
        validate_sbom "SPDX 2.3 of Go and Rust programs validates" "$AJV" "$SCHEMAS" spdx t.spdx.json
        validate_sbom "CycloneDX 1.6 of Go and Rust programs validates" "$AJV" "$SCHEMAS" cyclonedx t.cdx.json
        [ -s ps.cdx.json ] && validate_sbom "ps's CycloneDX with crates validates" "$AJV" "$SCHEMAS" cyclonedx ps.cdx.json
        [ -s ps.spdx.json ] && validate_sbom "ps's SPDX with crates validates" "$AJV" "$SCHEMAS" spdx ps.spdx.json
fi

# Damaged sections: show and scan report a clear problem, exit with a
# status, and never crash; a Go program keeps its modules.
python3 - << 'PYEOF' || fatal "cannot make the damaged sections"
import json, zlib
ok = {"packages": [{"name": "a", "version": "1.0.0", "source": "crates.io", "dependencies": [1]},
                   {"name": "b", "version": "1.0.0", "source": "crates.io", "dependencies": [0]}]}
open("bad-cycle.z", "wb").write(zlib.compress(json.dumps(ok).encode()))
open("bad-json.z", "wb").write(zlib.compress(b'{"packages":[{"name":"a",'))
open("bad-bomb.z", "wb").write(zlib.compress(b" " * (64 << 20), 9))
open("bad-trunc.z", "wb").write(open("dep.z", "rb").read()[:-9])
PYEOF
for b in cycle:cycle json:'invalid JSON' bomb:'more than 8388608 bytes' trunc:truncated; do
        kind=${b%%:*} msg=${b#*:}
        objcopy --update-section .dep-v0=bad-$kind.z "$OUT/demo" bad-$kind 2> /dev/null || fatal "objcopy cannot replace the section"
        "$PKGNOTE" show --json bad-$kind > bad.json 2> bad.err
        st=$?
        if [ $st -lt 128 ] && [ $st -ne 0 ] && grep -q "^pkgnote: 'bad-$kind': Rust crate list (.dep-v0): .*$msg" bad.err &&
                ! grep -q '"embedded"' bad.json; then
                pass "show: a section with a $kind is a problem (exit $st), no crates"
        else
                fail "show: a section with a $kind is a problem" "exit $st: $(head -c 400 bad.json) $(cat bad.err)"
        fi
        "$PKGNOTE" scan --format json bad-$kind > bad.json 2> bad.err
        st=$?
        if [ $st -lt 128 ] && grep -q '"problems":\[.*Rust crate list (.dep-v0)' bad.json; then
                pass "scan: a section with a $kind is the object's problem (exit $st)"
        else
                fail "scan: a section with a $kind is the object's problem" "exit $st: $(head -c 400 bad.json) $(cat bad.err)"
        fi
done
if [ -n "$GO" ]; then
        objcopy --add-section .dep-v0=bad-json.z --set-section-flags .dep-v0=readonly,contents $GO go-bad
        "$PKGNOTE" show --json go-bad > bad.json 2> bad.err
        if grep -q '"golang"' bad.json && ! grep -q '"cargo"' bad.json && grep -q 'Rust crate list (.dep-v0): invalid JSON' bad.err; then
                pass "a Go program with a damaged crate list keeps its modules, the problem said"
        else
                fail "a Go program with a damaged crate list keeps its modules" "$(head -c 600 bad.json) $(cat bad.err)"
        fi
fi
[ "$COMPARED" -ge 3 ] && pass "programs compared with their sections: $COMPARED" ||
        fail "programs compared with their sections: $COMPARED"
finish
