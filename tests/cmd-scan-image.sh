#!/bin/sh
# pkgnote scan with image references, on images made by real tools: an OCI
# layout with two tags made by umoci (the second deletes a file), copied by
# skopeo into docker-archive and oci-archive form; a multi-platform index
# written here and checked by skopeo; hostile layouts (a digest mismatch, a
# tag naming a missing blob, indexes nested without end).
. "$SRCDIR/tests/lib.sh"
H="$SRCDIR/tests/scan"
for t in umoci skopeo python3 cc; do
        command -v $t > /dev/null || { skip "image references" "$t is not installed (make deps-test)"; finish; }
done

cat > main.c <<'C'
int main(void) { return 0; }
C
A='{"type":"deb","os":"debian","osVersion":"12","name":"alpha","version":"1.0-1","architecture":"amd64"}'
B='{"type":"rpm","os":"fedora","osVersion":"40","name":"beta","version":"2.0-1.fc40","architecture":"x86_64"}'
cc -o alpha -fuse-ld=bfd -Xlinker "--package-metadata=$A" main.c || fatal "cannot link alpha"
cc -o beta -fuse-ld=bfd -Xlinker "--package-metadata=$B" main.c || fatal "cannot link beta"

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

# scan REF [OPTIONS...]: JSON report in out, inventory in inv.
scan() {
        ref=$1
        shift
        "$PKGNOTE" scan --format json "$@" "$ref" > out 2> err
        STATUS=$?
        python3 "$H/inventory.py" "" < out > inv
}
expect_image() { # WANT NAME
        printf '%s\n' "$1" > want
        if [ "$STATUS" = 0 ] && diff -u want inv > diff.txt; then pass "$2"; else
                fail "$2" "exit status $STATUS: $(head -c 300 err)"; sed 's/^/# /' diff.txt 2>/dev/null; fi
}
expect_error() { # MESSAGE NAME
        if [ "$STATUS" = 2 ] && grep -qF -- "$1" err && ! grep -q '"path"' out; then pass "$2"; else
                fail "$2" "exit status $STATUS: $(head -c 300 err)"; fi
}

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
scan lay
[ "$STATUS" = 1 ] && grep -qF "'lay': holds 2 images (tags: v1, v2); reporting the first" err &&
        pass "a layout of two images without a tag: the first, the tags named" ||
        fail "a layout of two images without a tag: the first, the tags named" "$(cat err)"
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
scan docker-archive:d.tar:@1
expect_error "no image @1: the archive holds 1" "docker-archive:FILE:@N out of range"
scan docker-archive:d.tar:test/img:v3
expect_error "no image tagged 'test/img:v3' (tags: docker.io/test/img:v2)" "docker-archive: unknown tag named"
scan oci-archive:o.tar:v1
expect_image "$V1" "oci-archive:FILE:TAG"
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

finish
