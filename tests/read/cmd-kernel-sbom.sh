#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The running kernel in the running system's SBOM (pkgnote ps --format
# spdx|spdx3|cyclonedx; pkgnote_process_sbom_add_kernel(),
# lib/10-write-sbom-core.c) and in pid --json.  Fixture sysfs trees and
# roots (tests/read/kernel_fixture.py, as tests/read/cmd-kernel.sh makes
# them) give a kernel with its own package note, one whose package comes
# from the database (same build-id) with loaded modules and a newer
# package installed, and one whose installed image has another build-id;
# each SBOM is compared with what ps --kernel --json says of the same
# tree, validated against the official schemas, and its SPDX 3 document
# must say what the 2.3 one says.  On the host, the real kernel is in the
# SBOM of the processes and in pid --json, its foreign build salt never a
# package.
. "$SRCDIR/tests/lib.sh"
require python3
require_feature zlib xz zstd
export PYTHONPATH="$SRCDIR/tests/read${PYTHONPATH:+:$PYTHONPATH}"

python3 - << 'PY' || fatal "cannot write the fixtures"
import os
import kernel_fixture as kf

def put(path, data):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)

def dpkg(root, pkgs):
    st = ""
    for name, src, ver, paths in pkgs:
        st += "Package: %s\nStatus: install ok installed\nArchitecture: amd64\nSource: %s\nVersion: %s\n\n" % (name, src, ver)
        put("%s/var/lib/dpkg/info/%s.list" % (root, name), "".join(p + "\n" for p in paths).encode())
    put(root + "/var/lib/dpkg/status", st.encode())

def kernel(d, release, build_id, salt="6.1.102-1.182.amzn2023.x86_64", package=None, os_id=None, os_version=None):
    put(d + "/osrelease", (release + "\n").encode())
    put(d + "/sys/kernel/notes", kf.notes(build_id, salt, package))
    os.makedirs(d + "/root", exist_ok=True)
    if os_id:
        put(d + "/root/etc/os-release", ('ID=%s\nVERSION_ID="%s"\n' % (os_id, os_version)).encode())

ID1, ID2, ID3, ID4, ID5, ID6 = (str(i) * 40 for i in range(1, 7))

# Its own package note (Ubuntu's), the image installed, one module without a file.
R = "6.8.0-31-generic"
kernel("noted", R, ID1, salt=R, os_id="ubuntu", os_version="24.04",
       package='{"type":"deb","os":"ubuntu","osVersion":"24.04","name":"linux","version":"6.8.0-31.31","architecture":"amd64"}')
put("noted/root/boot/vmlinuz-" + R, kf.image(ID1, "gzip"))
put("noted/sys/module/loop/notes/.note.gnu.build-id", kf.note("GNU", 3, bytes.fromhex(ID4)))
put("noted/sys/module/loop/initstate", b"live\n")

# The database's package (the image's build-id is the running one),
# modules of that package and of none, a newer package of the line.
R = "6.1.0-1-amd64"
kernel("newer", R, ID1, os_id="debian", os_version="12")
put("newer/root/usr/lib/modules/%s/vmlinuz" % R, kf.image(ID1, "zstd"))
put("newer/root/boot/vmlinuz-6.1.0-2-amd64", kf.image(ID3, "gzip"))
M = "/usr/lib/modules/%s/kernel/fs/" % R
put("newer/root" + M + "my-mod.ko.gz", kf.compress(kf.module(ID4), "gzip"))
put("newer/root" + M + "other_mod.ko.xz", kf.compress(kf.module(ID6), "xz"))
put("newer/root" + M + "plain.ko", kf.module(ID5))
dpkg("newer/root", [
    ("linux-image-" + R, "linux-signed-amd64 (6.1.4+1)", "6.1.4-1",
     ["/usr/lib/modules/%s/vmlinuz" % R, M + "my-mod.ko.gz", M + "other_mod.ko.xz", M + "plain.ko"]),
    ("linux-image-6.1.0-2-amd64", "linux-signed-amd64 (6.1.10+1)", "6.1.10-1", ["/boot/vmlinuz-6.1.0-2-amd64"]),
])
for name, bid in (("my_mod", ID4), ("other_mod", ID5), ("plain", ID5), ("gone_mod", ID6)):
    put("newer/sys/module/%s/notes/.note.gnu.build-id" % name, kf.note("GNU", 3, bytes.fromhex(bid)))
    put("newer/sys/module/%s/initstate" % name, b"live\n")
os.makedirs("newer/sys/module/builtin_one/parameters", exist_ok=True)

# The installed image of the release has another build-id: no package.
R = "6.1.0-1-amd64"
kernel("mismatch", R, ID1)
put("mismatch/root/boot/vmlinuz-" + R, kf.image(ID2, "xz"))
dpkg("mismatch/root", [("linux-image-" + R, "linux-signed-amd64 (6.1.4+1)", "6.1.4-1", ["/boot/vmlinuz-" + R])])
PY

# sbom DIR NAME ARGS...: ps's SBOM of the fixture DIR into NAME (its
# --root is the fixture's root, which no process has: the kernel alone),
# and the kernel row's JSON of the same tree into DIR.kernel.json.
sbom() {
        _d=$1 _n=$2
        shift 2
        SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" ps --sysfs "$_d/sys" --osrelease "$_d/osrelease" --root "$_d/root" "$@" \
                > "$_n" 2> "$_n.err"
        _s=$?
        [ -s "$_d.kernel.json" ] ||
                "$PKGNOTE" ps --kernel --json --sysfs "$_d/sys" --osrelease "$_d/osrelease" --root "$_d/root" > "$_d.kernel.json"
        return $_s
}

for d in noted newer mismatch; do
        ok=true
        sbom $d $d.cdx.json --format cyclonedx || ok=false
        sbom $d $d.cdx15.json --format cyclonedx --cyclonedx-version 1.5 || ok=false
        sbom $d $d.cdx17.json --format cyclonedx --cyclonedx-version 1.7 || ok=false
        sbom $d $d.spdx.json --format spdx || ok=false
        sbom $d $d.spdx3.json --format spdx3 || ok=false
        $ok && pass "$d: ps writes the SBOMs of a fixture kernel" || fail "$d: ps writes the SBOMs of a fixture kernel" "$(cat $d.*.err)"
done

# check NAME FIXTURE: the CycloneDX and SPDX documents of FIXTURE say what
# its ps --kernel --json says: package (name, version), build-id, image,
# reboot reasons, and each module with its build-id, file and package.
check() {
        python3 - "$2" > pyerr 2>&1 << 'PY' && pass "$1" || fail "$1" "$(cat pyerr)"
import json, sys
d = sys.argv[1]
k = json.load(open(d + ".kernel.json"))
cdx = json.load(open(d + ".cdx.json"))
props = lambda c: [(p["name"], p["value"]) for p in c.get("properties", [])]
prop = lambda c, n: [v for k_, v in props(c) if k_ == n]
[kc] = [c for c in cdx["components"] if c["type"] == "operating-system"]
pkg = k["package"]
if k["note"]:
    assert (kc["name"], kc["version"]) == (k["note"]["name"], k["note"]["version"]), kc
    assert prop(kc, "pkgnote:origin") == ["note"] and json.loads(prop(kc, "pkgnote:note")[0]) == k["note"], props(kc)
elif pkg:
    assert (kc["name"], kc["version"]) == (pkg["name"], pkg["version"]), kc
    assert prop(kc, "pkgnote:origin") == ["database"] and prop(kc, "pkgnote:kernel:package:binary") == [pkg["binary"]], props(kc)
else:
    assert (kc["name"], kc["version"]) == ("linux", k["release"]) and "purl" not in kc, kc
    assert prop(kc, "pkgnote:origin") == ["none"], props(kc)
assert prop(kc, "pkgnote:kernel:release") == [k["release"]], props(kc)
assert prop(kc, "pkgnote:kernel:buildId") == ([k["buildId"]] if k["buildId"] else []), props(kc)
assert prop(kc, "pkgnote:kernel:buildSalt") == ([k["buildSalt"]] if k["buildSalt"] else []), props(kc)
assert prop(kc, "pkgnote:kernel:image") == ([k["image"]["path"]] if k["image"]["path"] else []), props(kc)
assert prop(kc, "pkgnote:kernel:imageBuildId") == ([k["image"]["buildId"]] if k["image"]["buildId"] else []), props(kc)
assert prop(kc, "pkgnote:needsReboot") == [{True: "true", False: "false", None: "unknown"}[k["needsReboot"]]], props(kc)
assert prop(kc, "pkgnote:rebootCannotTell") == ([k["cannotTell"]] if k.get("cannotTell") else []), props(kc)
reasons = ["%s: %s" % (r["reason"], r["text"]) for r in k["reboot"]]
assert prop(kc, "pkgnote:rebootReason") == reasons, (props(kc), reasons)
mods = kc.get("components", [])
assert [m["name"] for m in mods] == [m["name"] for m in k["modules"]], (mods, k["modules"])
assert all(m["type"] == "library" for m in mods), mods
for m, km in zip(mods, k["modules"]):
    assert prop(m, "pkgnote:kernel:buildId") == ([km["buildId"]] if km["buildId"] else []), (m, km)
    assert prop(m, "pkgnote:kernel:file") == ([km["file"]] if km["file"] else []), (m, km)
    assert prop(m, "pkgnote:kernel:fileBuildId") == ([km["fileBuildId"]] if km["fileBuildId"] else []), (m, km)
    p = km["package"]
    assert prop(m, "pkgnote:kernel:package:binary") == ([p["binary"]] if p else []), (m, km)
    assert prop(m, "pkgnote:origin") == (["database"] if p else ["none"]), (m, km)
    assert "purl" not in m, m  # the package's purl is a property: one package, many modules
    if p:
        assert prop(m, "pkgnote:kernel:package:purl") == ([kc["purl"]] if pkg and p["binary"] == pkg["binary"] else prop(m, "pkgnote:kernel:package:purl")), (m, kc)
refs = [c["bom-ref"] for c in cdx["components"]] + [m["bom-ref"] for m in mods]
assert len(refs) == len(set(refs)), refs
# The same in the other CycloneDX versions.
for v, f in (("1.5", ".cdx15.json"), ("1.7", ".cdx17.json")):
    o = json.load(open(d + f))
    assert o["specVersion"] == v and [c for c in o["components"] if c["type"] == "operating-system"] == [kc], v

spdx = json.load(open(d + ".spdx.json"))
pk = {p["SPDXID"]: p for p in spdx["packages"]}
ks = pk["SPDXRef-Kernel"]
rels = [(r["spdxElementId"], r["relationshipType"], r["relatedSpdxElement"]) for r in spdx["relationships"]]
assert ("SPDXRef-DOCUMENT", "DESCRIBES", "SPDXRef-Kernel") in rels, rels
assert ks["primaryPackagePurpose"] == "OPERATING_SYSTEM" and (ks["name"], ks.get("versionInfo")) == (kc["name"], kc["version"]), ks
purl = [r["referenceLocator"] for r in ks.get("externalRefs", []) if r["referenceType"] == "purl"]
assert purl == ([kc["purl"]] if "purl" in kc else []), (purl, kc)
assert ("pkgnote:kernel:buildId: %s" % k["buildId"]) in ks["comment"], ks["comment"]
ann = sorted(a["comment"] for a in ks.get("annotations", []))
assert ann == sorted("pkgnote:needsReboot: " + r for r in reasons), ann
held = [pk[b]["name"] for a, t, b in rels if a == "SPDXRef-Kernel" and t == "CONTAINS"]
assert held == [m["name"] for m in k["modules"]], held
assert all(pk[b]["primaryPackagePurpose"] == "LIBRARY" for a, t, b in rels if a == "SPDXRef-Kernel"), rels
PY
}
check "noted: the kernel named by its own note, with its purl (distro from the note), the image's build-id, one module" noted
check "newer: the database's package of the image (same build-id), the newer-package reason, modules with their files' packages" newer
check "mismatch: an image of another build-id gives no package: linux and the release, the image-differs reason" mismatch

# Debian sid's real kernel (the sid root that cmd-kernel reads): a tree
# whose notes carry the build-ids pkgnote reads from its bzImage and three
# of its .ko.xz files (cmd-kernel checks them against readelf).
SID=${PKGNOTE_TEST_SID_ROOT:-/var/cache/pkgnote/roots/sid}
IMG=$(ls "$SID"/boot/vmlinuz-* 2> /dev/null | head -n 1)
if [ -z "$IMG" ]; then
        missing "sid: the real kernel's SBOM" "$SID/boot/vmlinuz-* (the sid root)"
else
        REL=${IMG##*/vmlinuz-}
        MODS=$(find "$SID/usr/lib/modules/$REL" -name '*.ko.xz' 2> /dev/null | sort | head -n 3)
        # sidtree ID MODULE-IDS...: the tree, first with placeholders
        sidtree() {
                python3 - "$REL" "$@" << 'PY'
import os, shutil, sys, kernel_fixture as kf
rel, kid, mods = sys.argv[1], sys.argv[2], sys.argv[3:]
shutil.rmtree("sid", ignore_errors=True)
os.makedirs("sid/sys/kernel")
open("sid/osrelease", "w").write(rel + "\n")
open("sid/sys/kernel/notes", "wb").write(kf.notes(kid, rel))
for m in mods:
    name, bid = m.split("=")
    os.makedirs("sid/sys/module/%s/notes" % name)
    open("sid/sys/module/%s/notes/.note.gnu.build-id" % name, "wb").write(kf.note("GNU", 3, bytes.fromhex(bid)))
    open("sid/sys/module/%s/initstate" % name, "w").write("live\n")
PY
        }
        set --
        for m in $MODS; do
                n=${m##*/}
                n=$(echo "${n%.ko.xz}" | tr - _)
                set -- "$@" "$n=0000000000000000000000000000000000000000"
        done
        sidtree 0000000000000000000000000000000000000000 "$@"
        "$PKGNOTE" ps --kernel --json --sysfs sid/sys --osrelease sid/osrelease --root "$SID" > sid0.json 2> sid.err
        ARGS=$(python3 -c 'import json; d = json.load(open("sid0.json")); print(d["image"]["buildId"], *["%s=%s" % (m["name"], m["fileBuildId"]) for m in d["modules"]])')
        sidtree $ARGS
        ln -s "$SID" sid/root
        sbom sid sid.cdx.json --format cyclonedx && sbom sid sid.spdx.json --format spdx && sbom sid sid.spdx3.json --format spdx3 &&
                pass "sid: ps writes the SBOMs of Debian sid's real kernel and $(echo $MODS | wc -w) modules" ||
                fail "sid: ps writes the SBOMs of Debian sid's real kernel" "$(cat sid.*.err sid.err)"
        SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" ps --sysfs sid/sys --osrelease sid/osrelease --root "$SID" --format cyclonedx \
                --cyclonedx-version 1.5 > sid.cdx15.json 2> /dev/null
        SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" ps --sysfs sid/sys --osrelease sid/osrelease --root "$SID" --format cyclonedx \
                --cyclonedx-version 1.7 > sid.cdx17.json 2> /dev/null
        python3 -c 'import json, sys; d = json.load(open("sid.kernel.json")); sys.exit(not (d["package"] and d["image"]["buildId"] == d["buildId"] and d["needsReboot"] is False and all(m["package"] for m in d["modules"])))' &&
                pass "sid: the image's and the modules' packages are the database's (build-ids equal)" ||
                fail "sid: the image's and the modules' packages" "$(cat sid.kernel.json)"
        check "sid: the real kernel's SBOMs say what ps --kernel --json says (package, purl, modules and their packages)" sid
        SIDDOCS="sid.cdx.json:cyclonedx sid.spdx.json:spdx sid.spdx3.json:spdx3"
        python3 "$SRCDIR/tests/scan/spdx3-compare.py" sid.spdx.json sid.spdx3.json > sid.cmp 2>&1 &&
                pass "sid: SPDX 3.0.1 says what 2.3 says ($(cat sid.cmp))" || fail "sid: SPDX 3.0.1 says what 2.3 says" "$(cat sid.cmp)"
fi

python3 - > pyerr 2>&1 << 'PY' && pass "purls: the note's distro, the root's for a database package; modules carry their package's purl as a property" || fail "purls" "$(cat pyerr)"
import json
n = [c for c in json.load(open("noted.cdx.json"))["components"] if c["type"] == "operating-system"][0]
assert n["purl"] == "pkg:deb/ubuntu/linux@6.8.0-31.31?arch=amd64&distro=ubuntu-24.04", n["purl"]
w = [c for c in json.load(open("newer.cdx.json"))["components"] if c["type"] == "operating-system"][0]
assert w["purl"] == "pkg:deb/debian/linux-signed-amd64@6.1.4%2B1?arch=amd64&distro=debian-12", w["purl"]
[my] = [m for m in w["components"] if m["name"] == "my_mod"]
assert [p["value"] for p in my["properties"] if p["name"] == "pkgnote:kernel:package:purl"] == [w["purl"]], my
PY

# SPDX 3.0.1 says what 2.3 says; the kernel is a root of the runtime SBOM.
for d in noted newer mismatch; do
        python3 "$SRCDIR/tests/scan/spdx3-compare.py" $d.spdx.json $d.spdx3.json > $d.cmp 2>&1 &&
                pass "$d: SPDX 3.0.1 says what 2.3 says ($(cat $d.cmp))" || fail "$d: SPDX 3.0.1 says what 2.3 says" "$(cat $d.cmp)"
done
python3 - > pyerr 2>&1 << 'PY' && pass "spdx3: the kernel is an operatingSystem root element; its modules it contains" || fail "spdx3: the kernel" "$(cat pyerr)"
import json
g = json.load(open("newer.spdx3.json"))["@graph"]
byid = {e["spdxId"].rsplit("#", 1)[1]: e for e in g if "spdxId" in e}
[sbom] = [e for e in g if e["type"] == "software_Sbom"]
roots = [r.rsplit("#", 1)[1] for r in sbom["rootElement"]]
assert roots == ["SPDXRef-Kernel"] and byid["SPDXRef-Kernel"]["software_primaryPurpose"] == "operatingSystem", roots
c = [e for e in g if e["type"] == "Relationship" and e["relationshipType"] == "contains" and e["from"].endswith("#SPDXRef-Kernel")]
assert len(c) == 4, c
PY

# --no-kernel; a fixture that is not there; options that contradict.
run ps --format cyclonedx $$
cp out withkernel.json
run ps --format cyclonedx --no-kernel $$
if [ -r /sys/kernel/notes ]; then
        python3 -c 'import json, sys; sys.exit([len([c for c in json.load(open(f))["components"] if c["type"] == "operating-system"]) for f in sys.argv[1:]] != [1, 0])' withkernel.json out &&
                pass "--no-kernel: the process's SBOM without the kernel component it has by default" ||
                fail "--no-kernel: the process's SBOM without the kernel component" "$(cat err)"
else
        skip "--no-kernel: the process's SBOM without the kernel component it has by default" "/sys/kernel/notes cannot be read here"
fi
run ps --format spdx --sysfs "$T/no-such-sysfs" --root newer/root
[ "$STATUS" -eq 2 ] && grep -q "no-such-sysfs': cannot read the running kernel" err && [ ! -s out ] &&
        pass "a --sysfs tree that cannot be read: exit 2, named, no document" ||
        fail "a --sysfs tree that cannot be read: exit 2, named, no document" "status $STATUS: $(cat err)"
run ps --format cyclonedx --no-kernel --sysfs newer/sys
expect_status 2 "--no-kernel with --sysfs is refused"

# ---- the official schemas and the SPDX 3 model ----
if sbom_validator "the kernel's SBOMs validate against the official schemas"; then
        "$PKGNOTE" ps --format cyclonedx > host.cdx.json 2> /dev/null
        "$PKGNOTE" ps --format spdx > host.spdx.json 2> /dev/null
        for d in noted newer mismatch; do
                for f in $d.cdx.json:cyclonedx $d.cdx15.json:cyclonedx $d.cdx17.json:cyclonedx $d.spdx.json:spdx $d.spdx3.json:spdx3; do
                        validate_sbom "schema: ${f%%:*} validates against the ${f#*:} schema" "$AJV" "$SCHEMAS" "${f#*:}" "${f%%:*}"
                done
        done
        for f in ${SIDDOCS:-}; do
                validate_sbom "schema: ${f%%:*} validates against the ${f#*:} schema" "$AJV" "$SCHEMAS" "${f#*:}" "${f%%:*}"
        done
        validate_sbom "schema: the host's processes and kernel (CycloneDX) validate" "$AJV" "$SCHEMAS" cyclonedx host.cdx.json
        validate_sbom "schema: the host's processes and kernel (SPDX 2.3) validate" "$AJV" "$SCHEMAS" spdx host.spdx.json
fi
if ! spdx3_reader "${BUILDDIR:-$HOME}"; then
        spdx3_unavailable "spdx3-model: the kernel's SPDX 3 documents conform to the SPDX 3.0.1 model"
else
        for d in noted newer; do
                spdx3_shacl "spdx3-model: $d.spdx3.json conforms to the SPDX 3.0.1 model" $d.spdx3.json
        done
fi

# ---- the host ----
# The real /sys/kernel/notes: the kernel of ps's SBOM is ps --kernel's;
# a build salt (another distribution's on some hosts) is a property,
# never the name, version or purl.
if [ -r /sys/kernel/notes ]; then
        "$PKGNOTE" ps --kernel --json > host.kernel.json 2> host.err || fail "host: ps --kernel --json" "$(cat host.err)"
        SOURCE_DATE_EPOCH=1700000000 "$PKGNOTE" ps --format cyclonedx $$ > host1.cdx.json 2> host.err
        python3 - > pyerr 2>&1 << 'PY' && pass "host: the running kernel in the SBOM of a process, as ps --kernel reads it; its salt no package" || fail "host: the running kernel in the SBOM" "$(cat pyerr host.err)"
import json
k = json.load(open("host.kernel.json"))
[kc] = [c for c in json.load(open("host1.cdx.json"))["components"] if c["type"] == "operating-system"]
p = {x["name"]: x["value"] for x in kc["properties"]}
assert p["pkgnote:kernel:release"] == k["release"] and p.get("pkgnote:kernel:buildId") == k["buildId"], (p, k)
assert len(kc.get("components", [])) == len(k["modules"]), (kc.get("components"), k["modules"])
if k["buildSalt"]:
    assert p["pkgnote:kernel:buildSalt"] == k["buildSalt"], p
    if not k["package"] and not k["note"]:
        assert kc["name"] == "linux" and kc["version"] == k["release"] and "purl" not in kc, kc
        assert k["buildSalt"] not in (kc["name"], kc["version"]), kc
PY
        # pid --json: the report of a live process is made on its machine.
        sleep 30 &
        SPID=$!
        # Read once exec'd and linked (libc mapped): during its exec a
        # process's maps is the new program's, still empty or half made.
        n=0
        until grep -q 'libc\.so' /proc/$SPID/maps 2> /dev/null || [ $n -ge 200 ]; do sleep 0.05; n=$((n + 1)); done
        "$PKGNOTE" pid --json $SPID > pid.json 2> pid.err
        kill $SPID 2> /dev/null
        wait $SPID 2> /dev/null
        python3 - > pyerr 2>&1 << 'PY' && pass "host: pid --json carries the kernel: ps --kernel --json's object without the modules" || fail "host: pid --json carries the kernel" "$(cat pyerr pid.err)"
import json
k = json.load(open("host.kernel.json"))
d = json.load(open("pid.json"))
k.pop("modules")
assert d["kernel"] == k, (d.get("kernel"), k)
assert list(d)[-1] == "kernel" and d["modules"], list(d)
PY
else
        skip "host: the running kernel in the SBOM and in pid --json" "/sys/kernel/notes cannot be read here"
fi

finish
