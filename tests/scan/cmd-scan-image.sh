#!/bin/sh
# pkgnote scan with image references, on images made by real tools: an OCI
# layout with two tags made by umoci (the second deletes a file), copied by
# skopeo into docker-archive and oci-archive form; a multi-platform index
# written here and checked by skopeo; hostile layouts (a digest mismatch, a
# tag naming a missing blob, indexes nested without end).
. "$SRCDIR/tests/lib.sh"
# Archives and images are read with libarchive; trees without it are
# checked by cmd-features.
require_feature archive
H="$SRCDIR/tests/scan"
for t in umoci skopeo python3 cc; do
        command -v $t > /dev/null || { skip "image references" "$t is not installed (make deps-test)"; finish; }
done

. "$H/image-checks.sh"
make_programs

# v1: alpha and gone; v2 (from v1): gone deleted, beta added.
umoci init --layout lay && umoci new --image lay:v1 && umoci unpack --image lay:v1 b1 > /dev/null ||
        fatal "umoci cannot make the layout"
mkdir -p b1/rootfs/usr/bin && cp alpha b1/rootfs/usr/bin/alpha && cp alpha b1/rootfs/usr/bin/gone &&
        umoci repack --image lay:v1 b1 && umoci tag --image lay:v1 v2 && umoci unpack --image lay:v2 b2 > /dev/null &&
        rm b2/rootfs/usr/bin/gone && cp beta b2/rootfs/usr/bin/beta && umoci repack --image lay:v2 b2 ||
        fatal "umoci cannot make the images"
V1='/usr/bin/alpha executable alpha@1.0-1
/usr/bin/gone executable alpha@1.0-1'
V2='/usr/bin/alpha executable alpha@1.0-1
/usr/bin/beta executable beta@2.0-1.fc40'

scan oci:lay:v1
expect_image "$V1" "oci:DIR:TAG: the first tag"
scan oci:lay:v2
expect_image "$V2" "oci:DIR:TAG: the second tag, its whiteout applied"
scan lay --image v2
expect_image "$V2" "--image TAG on a layout"
d2=$(python3 -c 'import json, sys
for m in json.load(open("lay/index.json"))["manifests"]:
    if m["annotations"]["org.opencontainers.image.ref.name"] == "v2": print(m["digest"])')
scan "oci:lay@$d2"
expect_image "$V2" "oci:DIR@DIGEST"
scan lay --image "@$d2"
expect_image "$V2" "--image @DIGEST"
# Without a tag: every image, each object labelled with its image.
scan lay
python3 - > want <<'PY'
import json
for m in json.load(open("lay/index.json"))["manifests"]:
    print(m["annotations"]["org.opencontainers.image.ref.name"], m["digest"])
PY
python3 -c 'import json, sys
for line in sys.stdin:
    d = json.loads(line)
    if "path" in d:
        i = d["image"]
        print(i["reference"], i["digest"], ",".join(i["tags"]), d["path"], d["packages"][0]["name"])' < out > got
printf '%s\n' "oci:lay:v1 $(awk '$1=="v1"{print $2}' want) v1 /usr/bin/alpha alpha" \
        "oci:lay:v1 $(awk '$1=="v1"{print $2}' want) v1 /usr/bin/gone alpha" \
        "oci:lay:v2 $(awk '$1=="v2"{print $2}' want) v2 /usr/bin/alpha alpha" \
        "oci:lay:v2 $(awk '$1=="v2"{print $2}' want) v2 /usr/bin/beta beta" > want.lines
if [ "$STATUS" = 0 ] && diff -u want.lines got > diff.txt; then
        pass "a layout of two images without a tag: both, each object with its image's reference, digest and tags"
else
        fail "a layout of two images without a tag: both, each object with its image's reference, digest and tags" \
                "exit status $STATUS: $(head -c 300 err)"; sed 's/^/# /' diff.txt
fi
"$PKGNOTE" scan lay > table 2> err
if awk '/^Image oci:lay:v1 \(tags: v1; linux\//{a=NR} /^Image oci:lay:v2 \(tags: v2; linux\//{b=NR} /^rpm .*beta/{r=NR}
        END{exit !(a && b && a < b && r > b)}' table; then
        pass "table: one part per image, beta only under v2"
else
        fail "table: one part per image, beta only under v2" "$(cat table)"
fi

# The images listed: reference, digest, tags, platform, size, layers, id,
# each checked against the layout itself.
"$PKGNOTE" scan --images --format json lay > list 2> err
STATUS=$?
if [ "$STATUS" = 0 ] && python3 - <<'PY' 2> check.err
import json, os
idx = json.load(open("lay/index.json"))
got = [json.loads(l) for l in open("list")]
assert len(got) == 2, got
for m, g in zip(idx["manifests"], got):
    tag = m["annotations"]["org.opencontainers.image.ref.name"]
    man = json.load(open("lay/blobs/sha256/" + m["digest"][7:]))
    cfg = json.load(open("lay/blobs/sha256/" + man["config"]["digest"][7:]))
    size = man["config"]["size"] + sum(l["size"] for l in man["layers"])
    want = {"reference": "oci:lay:" + tag, "digest": m["digest"], "id": man["config"]["digest"], "tags": [tag],
            "input": "lay", "platform": cfg["os"] + "/" + cfg["architecture"], "size": size,
            "layers": len(man["layers"])}
    assert g == want, (g, want)
PY
then
        pass "scan --images: every image with its digest, id, tags, platform, size and layers"
else
        fail "scan --images: every image with its digest, id, tags, platform, size and layers" "$(cat err check.err)"
fi
cp -r lay dup && umoci tag --image dup:v1 stable || fatal "umoci cannot tag"
"$PKGNOTE" scan --images --format json dup > list 2> err
python3 -c 'import json, sys
print(" ".join(",".join(json.loads(l)["tags"]) for l in open("list")))' > got 2>&1
[ "$(cat got)" = "v1,stable v2" ] && pass "two tags of one image: one image with both tags" ||
        fail "two tags of one image: one image with both tags" "$(cat got err)"
scan oci:dup:stable
expect_image "$V1" "oci:DIR:TAG by its second tag"
"$PKGNOTE" scan --images main.c > list 2> err
[ $? = 2 ] && grep -qF "'main.c': holds no image" err && pass "scan --images on a file that is no image: an error" ||
        fail "scan --images on a file that is no image: an error" "$(cat err)"

# SBOMs: each image a component holding its packages.
"$PKGNOTE" scan --format cyclonedx lay > lay.cdx.json 2> err &&
        "$PKGNOTE" scan --format spdx lay > lay.spdx.json 2>> err
STATUS=$?
if [ "$STATUS" = 0 ] && python3 - <<'PY' 2> check.err
import json
d = json.load(open("lay.cdx.json"))
imgs = [(c["type"], c["name"], sorted(x["name"] for x in c["components"])) for c in d["components"]]
assert imgs == [("container", "oci:lay:v1", ["alpha"]), ("container", "oci:lay:v2", ["alpha", "beta"])], imgs
refs = [x["bom-ref"] for c in d["components"] for x in c["components"]] + [c["bom-ref"] for c in d["components"]]
assert len(refs) == len(set(refs)), refs
s = json.load(open("lay.spdx.json"))
name = {p["SPDXID"]: p["name"] for p in s["packages"]}
contains = sorted((name[r["spdxElementId"]], name[r["relatedSpdxElement"]]) for r in s["relationships"]
                  if r["relationshipType"] == "CONTAINS")
assert contains == [("oci:lay:v1", "alpha"), ("oci:lay:v2", "alpha"), ("oci:lay:v2", "beta")], contains
described = sorted(name[r["relatedSpdxElement"]] for r in s["relationships"] if r["relationshipType"] == "DESCRIBES")
assert described == ["oci:lay:v1", "oci:lay:v2"], described
PY
then
        pass "SBOMs of two images: each image a component (CycloneDX) or package (SPDX) holding its own"
else
        fail "SBOMs of two images: each image a component (CycloneDX) or package (SPDX) holding its own" "$(cat err check.err)"
fi
validate_sboms "two images" lay.spdx.json:spdx lay.cdx.json:cyclonedx

scan oci:lay:v9
expect_error "no image tagged 'v9' (tags: v1, v2)" "unknown tag: the tags present named"
scan oci:lay:v1 --image v2
expect_error "the image is named twice" "a tag in the reference and --image"
scan oci:main.c
expect_error "not a directory" "oci: on a file"

# skopeo's copies.
skopeo copy -q oci:lay:v2 docker-archive:d.tar:test/img:v2 > /dev/null 2>&1 &&
        skopeo copy -q oci:lay:v1 oci-archive:o.tar:v1 > /dev/null 2>&1 || fatal "skopeo cannot copy"
scan docker-archive:d.tar
expect_image "$V2" "docker-archive:FILE"
scan docker-archive:d.tar:test/img:v2
expect_image "$V2" "docker-archive:FILE:REPO:TAG (the archive says docker.io/test/img:v2)"
scan docker-archive:d.tar:@0
expect_image "$V2" "docker-archive:FILE:@N"
scan d.tar --image test/img:v2
expect_image "$V2" "--image REPO:TAG on a docker archive"
# A manifest with tags without end: bounded, each tag being compared with
# those before it.
python3 - <<'PY' || fatal "cannot write the archive of many tags"
import io, json, tarfile
with tarfile.open("d.tar") as src, tarfile.open("tags.tar", "w") as dst:
    for m in src.getmembers():
        data = src.extractfile(m).read() if m.isfile() else None
        if m.name == "manifest.json":
            man = json.loads(data)
            man[0]["RepoTags"] = ["t:%d" % i for i in range(5000)]
            data = json.dumps(man).encode()
            m.size = len(data)
        dst.addfile(m, io.BytesIO(data) if data is not None else None)
PY
scan docker-archive:tags.tar
expect_error "more than 1024 tags" "an image of 5000 tags: over the bound, named"
scan docker-archive:d.tar:@1
expect_error "no image @1: the archive holds 1" "docker-archive:FILE:@N out of range"
scan docker-archive:d.tar:test/img:v3
expect_error "no image tagged 'test/img:v3' (tags: docker.io/test/img:v2)" "docker-archive: unknown tag named"
scan oci-archive:o.tar:v1
expect_image "$V1" "oci-archive:FILE:TAG"
# Two images copied by skopeo into one layout, as a tar.
skopeo copy -q oci:lay:v1 oci:two:first > /dev/null 2>&1 && skopeo copy -q oci:lay:v2 oci:two:second > /dev/null 2>&1 &&
        tar -C two -cf two.tar . || fatal "skopeo cannot copy into one layout"
"$PKGNOTE" scan --format json oci-archive:two.tar > out 2> err
STATUS=$?
python3 -c 'import json, sys
for line in sys.stdin:
    d = json.loads(line)
    if "path" in d:
        print(d["image"]["reference"], d["path"])' < out > got
printf '%s
' "oci-archive:two.tar:first /usr/bin/alpha" "oci-archive:two.tar:first /usr/bin/gone"         "oci-archive:two.tar:second /usr/bin/alpha" "oci-archive:two.tar:second /usr/bin/beta" > want.lines
if [ "$STATUS" = 0 ] && diff -u want.lines got > diff.txt; then
        pass "oci-archive: of two images without a tag: both, labelled"
else
        fail "oci-archive: of two images without a tag: both, labelled" "exit status $STATUS: $(head -c 300 err)"
        sed 's/^/# /' diff.txt
fi
scan oci-archive:two.tar:second
expect_image "$V2" "oci-archive:FILE:TAG of two"
scan oci-archive:o.tar:v2
expect_error "no image tagged 'v2' (tags: v1)" "oci-archive: unknown tag"
scan docker-archive:o.tar
expect_error "not a docker archive" "docker-archive: on an OCI archive"
scan oci-archive:d.tar
expect_error "not an OCI image layout archive" "oci-archive: on a docker archive"

# A multi-platform index: v1 for linux/arm64/v8, v2 for linux/amd64.
python3 - <<'PY' || fatal "cannot write the index"
import hashlib, json
idx = json.load(open("lay/index.json"))
by = {m["annotations"]["org.opencontainers.image.ref.name"]: m for m in idx["manifests"]}
def plat(m, **p):
    m = {k: v for k, v in m.items() if k != "annotations"}
    m["platform"] = p
    return m
multi = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
                    "manifests": [plat(by["v1"], os="linux", architecture="arm64", variant="v8"),
                                  plat(by["v2"], os="linux", architecture="amd64")]}).encode()
d = hashlib.sha256(multi).hexdigest()
open("lay/blobs/sha256/" + d, "wb").write(multi)
idx["manifests"].append({"mediaType": "application/vnd.oci.image.index.v1+json", "digest": "sha256:" + d,
                         "size": len(multi), "annotations": {"org.opencontainers.image.ref.name": "multi"}})
json.dump(idx, open("lay/index.json", "w"))
PY
if skopeo copy -q --all oci:lay:multi oci:checked:multi > /dev/null 2> skopeo.err; then
        pass "skopeo accepts the multi-platform index"
else
        fail "skopeo accepts the multi-platform index" "$(cat skopeo.err)"
fi
scan oci:lay:multi --platform linux/amd64
expect_image "$V2" "--platform linux/amd64"
scan oci:lay:multi --platform linux/arm64/v8
expect_image "$V1" "--platform linux/arm64/v8"
scan oci:lay:multi --platform linux/arm64
expect_image "$V1" "--platform without a variant matches any"
scan oci:lay:multi --platform linux/s390x
expect_error "no image for platform linux/s390x (platforms: linux/arm64/v8, linux/amd64)" "no matching platform: the platforms named"
case $(uname -m) in
x86_64) scan oci:lay:multi; expect_image "$V2" "default platform: this machine's (amd64)" ;;
aarch64) scan oci:lay:multi; expect_image "$V1" "default platform: this machine's (arm64)" ;;
*) skip "default platform" "no image of this machine's platform in the test index" ;;
esac
scan oci:lay:multi --platform linux
expect_error "not OS/ARCH[/VARIANT]" "--platform without an architecture"

# Layers checked against their digests, on request.
scan oci:lay:v2 --verify-layers
expect_image "$V2" "--verify-layers: a layout whose layers match"
scan docker-archive:d.tar --verify-layers
expect_image "$V2" "--verify-layers: a docker archive (HEX.tar layers)"
scan oci-archive:o.tar:v1 --verify-layers
expect_image "$V1" "--verify-layers: an OCI archive"
cp -r lay swapped
python3 - <<'PY' || fatal "cannot swap the layer"
import json, shutil
idx = json.load(open("swapped/index.json"))
man = {m["annotations"]["org.opencontainers.image.ref.name"]: json.load(open("swapped/blobs/sha256/" + m["digest"][7:]))
       for m in idx["manifests"] if "annotations" in m and m["annotations"].get("org.opencontainers.image.ref.name") in ("v1", "v2")}
top = man["v2"]["layers"][-1]["digest"][7:]
shutil.copy("swapped/blobs/sha256/" + man["v1"]["layers"][0]["digest"][7:], "swapped/blobs/sha256/" + top)
PY
scan oci:swapped:v2
[ "$STATUS" = 0 ] && pass "a layer swapped for another: unseen without --verify-layers" ||
        fail "a layer swapped for another: unseen without --verify-layers" "$(cat err)"
scan oci:swapped:v2 --verify-layers
expect_error "content does not match its digest" "--verify-layers: a layer swapped for another"

# Hostile layouts.
cp -r lay bad
python3 - <<'PY' || fatal "cannot damage the layout"
import json
idx = json.load(open("bad/index.json"))
v2 = [m for m in idx["manifests"] if m["annotations"]["org.opencontainers.image.ref.name"] == "v2"][0]
p = "bad/blobs/sha256/" + v2["digest"][7:]
open(p, "ab").write(b" ")
missing = dict(v2, digest="sha256:" + "0" * 64)
missing["annotations"] = {"org.opencontainers.image.ref.name": "missing"}
idx["manifests"].append(missing)
json.dump(idx, open("bad/index.json", "w"))
PY
scan oci:bad:v2
expect_error "content does not match its digest" "a manifest that does not match its digest"
scan oci:bad:missing
expect_error "cannot open" "a tag naming a missing blob"
python3 - <<'PY' || fatal "cannot write the nested indexes"
import hashlib, json, os
idx = json.load(open("lay/index.json"))
cur = [m for m in idx["manifests"] if m["annotations"]["org.opencontainers.image.ref.name"] == "v1"][0]
cur = {k: v for k, v in cur.items() if k != "annotations"}
for i in range(6):
    b = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": [cur]}).encode()
    d = hashlib.sha256(b).hexdigest()
    open("lay/blobs/sha256/" + d, "wb").write(b)
    cur = {"mediaType": "application/vnd.oci.image.index.v1+json", "digest": "sha256:" + d, "size": len(b)}
cur["annotations"] = {"org.opencontainers.image.ref.name": "deep"}
idx["manifests"].append(cur)
json.dump(idx, open("lay/index.json", "w"))
PY
scan oci:lay:deep
expect_error "image indexes nested deeper than 4" "indexes nested without end"
python3 - <<'PY' || fatal "cannot write the index naming itself"
import json
idx = json.load(open("lay/index.json"))
d = "sha256:" + "ab" * 32
self_ = {"schemaVersion": 2, "manifests": [{"mediaType": "application/vnd.oci.image.index.v1+json", "digest": d, "size": 10}]}
open("lay/blobs/sha256/" + "ab" * 32, "w").write(json.dumps(self_))
idx["manifests"].append(dict(self_["manifests"][0], annotations={"org.opencontainers.image.ref.name": "self"}))
json.dump(idx, open("lay/index.json", "w"))
PY
scan oci:lay:self
expect_error "content does not match its digest" "an index that names itself: its digest cannot match"
scan oci:lay
[ "$STATUS" = 1 ] && grep -qF "image oci:lay:self: " err && grep -q '"path":"/usr/bin/beta"' out &&
        pass "every image: one that cannot be read is named, the others reported" ||
        fail "every image: one that cannot be read is named, the others reported" "status $STATUS: $(cat err)"

finish
