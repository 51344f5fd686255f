#!/usr/bin/env python3
# installed.py TYPE WANT SPDX CYCLONEDX [JSONREPORT]: the packages of purl
# type TYPE in an SPDX and a CycloneDX document (and the JSON report's
# installedPackage lines) against WANT, one "NAME VERSION ARCH [SOURCE
# SOURCEVERSION [LICENSE...]]" a line, as the package manager lists them
# (LICENSE "-": none; no LICENSE: not checked).  Only the packages of the
# databases are compared, not those of notes.
# Each document must name every wanted package once, with that version
# (the epoch where the purl type keeps it: in the version for deb, the
# epoch= qualifier for rpm) and architecture, and no other package of
# the type.  Prints the differences; exit status 1 when there are any.
import json, sys
from urllib.parse import unquote

ptype, want_f, spdx_f, cdx_f = sys.argv[1:5]
want, extra = {}, {}
for line in open(want_f):
    f = line.rstrip("\n").split(" ", 5)
    if len(f) < 3:
        continue
    want[(f[0], f[1], f[2])] = f[3:] + [""] * (3 - len(f[3:]))

def purl_parts(p):
    """(name, version as the package manager writes it, arch) of a purl."""
    head, _, q = p.partition("?")
    quals = dict(kv.split("=", 1) for kv in q.split("&") if kv)
    path, _, ver = head.partition("@")
    name = unquote(path.rsplit("/", 1)[1])
    ver = unquote(ver)
    if "epoch" in quals:
        ver = quals["epoch"] + ":" + ver
    return name, ver, unquote(quals.get("arch", ""))

bad = []
def check(what, got):
    seen = {}
    for k, comp in got:
        seen[k] = seen.get(k, 0) + 1
    for k in want:
        if seen.get(k, 0) != 1:
            bad.append("%s: %s %s %s appears %d times" % (what, k[0], k[1], k[2], seen.get(k, 0)))
    for k in seen:
        if k not in want:
            bad.append("%s: %s %s %s is not installed" % (what, k[0], k[1], k[2]))

spdx = json.load(open(spdx_f))
got = []
for p in spdx["packages"]:
    purls = [r["referenceLocator"] for r in p.get("externalRefs", []) if r["referenceType"] == "purl"]
    if not purls or not purls[0].startswith("pkg:%s/" % ptype):
        continue
    if not p.get("comment", "").startswith("package database: "):
        continue
    n, v, a = purl_parts(purls[0])
    if (n, v) != (p["name"], p.get("versionInfo")):
        bad.append("SPDX: %s %s: its purl says %s %s" % (p["name"], p.get("versionInfo"), n, v))
    got.append(((n, v, a), p))
    w = want.get((n, v, a))
    lic = {"": None, "-": "NOASSERTION"}.get(w[2], w[2]) if w else None
    if lic and p["licenseDeclared"] != lic:
        bad.append("SPDX: %s: licenseDeclared %r, want %r" % (n, p["licenseDeclared"], lic))
check("SPDX", got)

cdx = json.load(open(cdx_f))
got = []
def components(cs):
    for c in cs:
        yield c
        yield from components(c.get("components", []))
for c in components(cdx["components"]):
    if not c.get("purl", "").startswith("pkg:%s/" % ptype):
        continue
    props = {}
    for p in c.get("properties", []):
        props.setdefault(p["name"], p["value"])
    if "pkgnote:db:type" not in props:
        continue
    n, v, a = purl_parts(c["purl"])
    got.append(((n, v, a), c))
    w = want.get((n, v, a))
    if w and w[0] and (props.get("pkgnote:db:source"), props.get("pkgnote:db:sourceVersion")) != (w[0], w[1]):
        bad.append("CycloneDX: %s: source %s %s, want %s %s" % (n, props.get("pkgnote:db:source"),
                                                               props.get("pkgnote:db:sourceVersion"), w[0], w[1]))
    lic = [l.get("expression") for l in c.get("licenses", [])]
    # A license with a name that is no SPDX identifier (LicenseRef-) is
    # the packager's own text in CycloneDX, which the callers check.
    if w and w[2] and "LicenseRef-" not in w[2] and lic != ([w[2]] if w[2] != "-" else []):
        bad.append("CycloneDX: %s: licenses %r, want %r" % (n, lic, w[2]))
check("CycloneDX", got)

if len(sys.argv) > 5:
    got = []
    for line in open(sys.argv[5]):
        d = json.loads(line)
        if "installedPackage" in d and d["installedPackage"]["type"] == ptype:
            p = d["installedPackage"]
            got.append(((p["name"], p["version"], p["architecture"]), p))
    check("JSON report", got)

for b in bad[:20]:
    print("# " + b)
print("%d wanted, %d differences" % (len(want), len(bad)))
sys.exit(1 if bad else 0)
