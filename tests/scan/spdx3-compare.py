#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Usage: spdx3-compare.py SPDX23.json SPDX3.json
# Checks that the SPDX 3.0.1 document says everything the SPDX 2.3
# document of the same input says (pkgnote writes both of one scan or
# process list): every package with its name, version, purpose, purl,
# CPEs, sourceInfo, comment, declared license (and the text of each
# LicenseRef- it names) and annotations; every file with its hashes;
# every relationship in SPDX 3's vocabulary; what the document describes
# as the SBOM's root elements.  Prints what it compared; exit 1 with the
# differences.
import json
import re
import sys

d2 = json.load(open(sys.argv[1]))
d3 = json.load(open(sys.argv[2]))
graph = d3["@graph"]
bad = []


def local(iri):
    return iri.rsplit("#", 1)[1]


byid = {local(e["spdxId"]): e for e in graph if "spdxId" in e}
[doc] = [e for e in graph if e["type"] == "SpdxDocument"]
[sbom] = [e for e in graph if e["type"] == "software_Sbom"]
ns = doc["spdxId"].rsplit("#", 1)[0]
if not all(e["spdxId"].startswith(ns + "#") for e in graph if "spdxId" in e):
    bad.append("element ids outside the document's namespace " + ns)

PURPOSE = {"APPLICATION": "application", "LIBRARY": "library", "CONTAINER": "container", "FRAMEWORK": "framework",
           "OPERATING-SYSTEM": "operatingSystem", "OPERATING_SYSTEM": "operatingSystem", "FILE": "file", "OTHER": "other"}
rels3 = {}
for e in graph:
    if e["type"] == "Relationship":
        for t in e["to"]:
            rels3.setdefault((local(e["from"]), e["relationshipType"], local(t)), []).append(e.get("comment"))
licenses = {e["simplelicensing_licenseExpression"]: e for e in graph if e["type"] == "simplelicensing_LicenseExpression"}
extracted = {x["licenseId"]: x for x in d2.get("hasExtractedLicensingInfos", [])}
annotations = {}
for e in graph:
    if e["type"] == "Annotation":
        annotations.setdefault(local(e["subject"]), []).append(e["statement"])


def check(cond, what):
    if not cond:
        bad.append(what)


n_pkg = n_file = n_rel = n_lic = 0
for p in d2.get("packages", []):
    n_pkg += 1
    i = p["SPDXID"]
    e = byid.get(i)
    if not e or e["type"] != "software_Package":
        bad.append("package %s missing" % i)
        continue
    check(e.get("name") == p["name"], "%s name %r, 2.3 %r" % (i, e.get("name"), p["name"]))
    check(e.get("software_packageVersion") == p.get("versionInfo"), "%s version" % i)
    check(e.get("software_primaryPurpose") == PURPOSE.get(p.get("primaryPackagePurpose")), "%s purpose" % i)
    refs = p.get("externalRefs", [])
    purl = [r["referenceLocator"] for r in refs if r["referenceType"] == "purl"]
    check(e.get("software_packageUrl") == (purl[0] if purl else None), "%s purl" % i)
    cpes = sorted((r["referenceType"][:5], r["referenceLocator"]) for r in refs if r["referenceType"].startswith("cpe"))
    got = sorted((x["externalIdentifierType"], x["identifier"]) for x in e.get("externalIdentifier", []))
    check(cpes == got, "%s CPEs %s, 2.3 %s" % (i, got, cpes))
    check(e.get("software_sourceInfo") == p.get("sourceInfo"), "%s sourceInfo" % i)
    check(e.get("comment") == p.get("comment"), "%s comment" % i)
    decl = p.get("licenseDeclared", "NOASSERTION")
    if decl not in ("NOASSERTION", "NONE"):
        n_lic += 1
        l = licenses.get(decl)
        check(l is not None and (i, "hasDeclaredLicense", local(l["spdxId"])) in rels3, "%s license %s" % (i, decl))
        for ref in sorted(set(re.findall(r"LicenseRef-[A-Za-z0-9.-]+", decl))):
            check(ref in extracted, "%s %s not declared in 2.3" % (i, ref))
            m = {x["key"]: x["value"] for x in (l or {}).get("simplelicensing_customIdToUri", [])}
            c = byid.get(local(m[ref])) if ref in m else None
            check(c is not None and c["type"] == "expandedlicensing_CustomLicense" and
                  c.get("simplelicensing_licenseText") == extracted.get(ref, {}).get("extractedText") and
                  c.get("name") == extracted.get(ref, {}).get("name"), "%s %s text" % (i, ref))
    want = sorted(a["comment"] for a in p.get("annotations", []))
    check(sorted(annotations.get(i, [])) == want, "%s annotations %s, 2.3 %s" % (i, annotations.get(i), want))
for f in d2.get("files", []):
    n_file += 1
    e = byid.get(f["SPDXID"])
    if not e or e["type"] != "software_File":
        bad.append("file %s missing" % f["SPDXID"])
        continue
    check(e.get("name") == f["fileName"], "%s name" % f["SPDXID"])
    want = sorted((c["algorithm"].lower(), c["checksumValue"]) for c in f["checksums"])
    got = sorted((h["algorithm"], h["hashValue"]) for h in e.get("verifiedUsing", []))
    check(want == got, "%s hashes %s, 2.3 %s" % (f["SPDXID"], got, want))
roots = set()
want = {}
for r in d2.get("relationships", []):
    a, t, b, c = r["spdxElementId"], r["relationshipType"], r["relatedSpdxElement"], r.get("comment")
    if t == "DESCRIBES":
        roots.add(b)
        continue
    n_rel += 1
    if t == "OPTIONAL_DEPENDENCY_OF":
        key = (b, "hasOptionalDependency", a)
    elif t == "DEPENDS_ON":
        key = (a, "hasDynamicLink" if (c or "").startswith("DT_NEEDED ") else "dependsOn", b)
    elif t == "OTHER" and (c or "").startswith("evident-by"):
        key = (a, "hasEvidence", b)
    else:
        key = (a, t.lower(), b)
    want.setdefault(key, []).append(c)
got = {k: v for k, v in rels3.items() if k[1] != "hasDeclaredLicense"}
for k in set(want) | set(got):
    if sorted(map(str, want.get(k, []))) != sorted(map(str, got.get(k, []))):
        bad.append("relationship %s: SPDX 3 %s, 2.3 %s" % (k, got.get(k), want.get(k)))
check(roots == {local(x) for x in sbom.get("rootElement", [])}, "root elements %s, described %s" %
      (sorted(local(x) for x in sbom.get("rootElement", [])), sorted(roots)))
check(doc["name"] == d2["name"], "document name")
check(graph[0]["created"] == d2["creationInfo"]["created"], "creation time")
if bad:
    print("\n".join(bad[:30]))
    sys.exit(1)
print("%d packages, %d files, %d relationships, %d licenses (%d LicenseRefs), %d roots compared" %
      (n_pkg, n_file, n_rel, n_lic, len(extracted), len(roots)))
