#!/bin/sh
# pkgnote scan containers-storage:, on local container stores made by real
# tools: skopeo copies umoci-built images into a vfs and an overlay store
# (the overlay one with its whiteout character devices and an opaque
# directory marked by an xattr), buildah builds and commits an image into
# a vfs store; a writer holding the store's lock is waited for; hostile
# stores (a layer id that climbs out, a loop of parents, a configuration
# that does not match its id, a driver not supported) end with clear errors.
. "$SRCDIR/tests/lib.sh"
H="$SRCDIR/tests/scan"
require umoci skopeo buildah python3 cc

. "$H/image-checks.sh"
make_programs

# v1: alpha and gone, and opt/d/old; v2 (from v1): gone deleted, beta
# added; v3 (from v2): a layer that makes opt/d opaque and puts new in it.
umoci init --layout lay && umoci new --image lay:v1 && umoci unpack --image lay:v1 b1 > /dev/null &&
        mkdir -p b1/rootfs/usr/bin b1/rootfs/opt/d && cp alpha b1/rootfs/usr/bin/alpha &&
        cp alpha b1/rootfs/usr/bin/gone && cp alpha b1/rootfs/opt/d/old && umoci repack --image lay:v1 b1 &&
        umoci tag --image lay:v1 v2 && umoci unpack --image lay:v2 b2 > /dev/null && rm b2/rootfs/usr/bin/gone &&
        cp beta b2/rootfs/usr/bin/beta && umoci repack --image lay:v2 b2 && umoci tag --image lay:v2 v3 ||
        fatal "umoci cannot make the images"
python3 - <<'PY' || fatal "cannot write the opaque layer"
import tarfile, io
with tarfile.open("opq.tar", "w", format=tarfile.PAX_FORMAT) as t:
    for name, data in (("opt/d/.wh..wh..opq", b""), ("opt/d/new", open("beta", "rb").read())):
        i = tarfile.TarInfo(name)
        i.size, i.mode = len(data), 0o755
        t.addfile(i, io.BytesIO(data))
PY
umoci raw add-layer --image lay:v3 opq.tar || fatal "umoci cannot add the opaque layer"
V1='/opt/d/old executable alpha@1.0-1
/usr/bin/alpha executable alpha@1.0-1
/usr/bin/gone executable alpha@1.0-1'
V2='/opt/d/old executable alpha@1.0-1
/usr/bin/alpha executable alpha@1.0-1
/usr/bin/beta executable beta@2.0-1.fc40'
V3='/opt/d/new executable beta@2.0-1.fc40
/usr/bin/alpha executable alpha@1.0-1
/usr/bin/beta executable beta@2.0-1.fc40'

W=$(pwd)
for d in vfs overlay; do
        for v in v1 v2 v3; do
                skopeo copy -q "oci:lay:$v" "containers-storage:[$d@$W/$d+$W/run-$d]localhost/img:$v" > /dev/null 2> skopeo.err ||
                        { [ $d = overlay ] || fatal "skopeo cannot copy into a $d store: $(cat skopeo.err)"; }
        done
done
OVERLAY=yes
[ -f overlay/overlay-images/images.json ] || { OVERLAY=; skip "overlay store" "skopeo cannot make one here: $(cat skopeo.err)"; }

for d in vfs ${OVERLAY:+overlay}; do
        scan "containers-storage:[$d@$W/$d+$W/run-$d]localhost/img:v1"
        expect_image "$V1" "$d: REGISTRY/NAME:TAG"
        scan "containers-storage:[$d@$W/$d]img:v2"
        expect_image "$V2" "$d: a short name, its whiteout applied"
        scan "containers-storage:[$W/$d]localhost/img:v3"
        expect_image "$V3" "$d: the driver found, an opaque directory applied"
        id=$(python3 -c 'import json, sys
print([i["id"] for i in json.load(open(sys.argv[1])) if "localhost/img:v2" in i["names"]][0])' "$d/$d-images/images.json")
        scan "containers-storage:[$W/$d]$(printf %.12s "$id")"
        expect_image "$V2" "$d: a short id"
        scan "containers-storage:[$W/$d]" --image localhost/img:v1
        expect_image "$V1" "$d: --image with the store alone"
        scan "containers-storage:[$W/$d]img:v9"
        expect_error "no image named 'img:v9' in the store $W/$d (images: " "$d: an unknown name: the names present"
done
if [ -n "$OVERLAY" ]; then
        # What the test relies on: skopeo wrote overlay's own markers.
        python3 - <<'PY' && pass "overlay store: whiteout devices and an opaque xattr, as the kernel's overlayfs reads them" ||
import os, stat, sys
found_dev = found_xattr = False
for root, dirs, files in os.walk("overlay/overlay"):
    for n in files + dirs:
        p = os.path.join(root, n)
        st = os.lstat(p)
        if stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
            found_dev = True
        if stat.S_ISDIR(st.st_mode):
            try:
                found_xattr |= os.getxattr(p, "trusted.overlay.opaque", follow_symlinks=False) == b"y"
            except OSError:
                pass
sys.exit(0 if found_dev and found_xattr else 1)
PY
                fail "overlay store: whiteout devices and an opaque xattr, as the kernel's overlayfs reads them"
fi

# Every image of a store, each labelled; the list of images.
"$PKGNOTE" scan --format json "containers-storage:[$W/vfs]" > out 2> err
STATUS=$?
python3 -c 'import json, sys
for line in sys.stdin:
    d = json.loads(line)
    if "path" in d:
        print(d["image"]["tags"][0], d["path"])' < out | sort > got
printf '%s\n' "$V1" | sed 's|^\([^ ]*\) .*|localhost/img:v1 \1|' > want.lines
printf '%s\n' "$V2" | sed 's|^\([^ ]*\) .*|localhost/img:v2 \1|' >> want.lines
printf '%s\n' "$V3" | sed 's|^\([^ ]*\) .*|localhost/img:v3 \1|' >> want.lines
sort -o want.lines want.lines
if [ "$STATUS" = 0 ] && diff -u want.lines got > diff.txt; then
        pass "a store without a name: every image, each object labelled"
else
        fail "a store without a name: every image, each object labelled" "exit status $STATUS: $(head -c 300 err)"
        sed 's/^/# /' diff.txt
fi
"$PKGNOTE" scan --images --format json "containers-storage:[$W/vfs]" > list 2> err
if [ $? = 0 ] && python3 - "$W" <<'PY' 2> check.err
import json, sys
W = sys.argv[1]
images = json.load(open("vfs/vfs-images/images.json"))
layers = {l["id"]: l for l in json.load(open("vfs/vfs-layers/layers.json"))}
got = {g["tags"][0]: g for g in map(json.loads, open("list"))}
assert len(got) == 3, got
for im in images:
    g = got[im["names"][0]]
    n, cur = 0, im["layer"]
    while cur:
        n, cur = n + 1, layers[cur].get("parent")
    assert g["reference"] == "containers-storage:[%s/vfs]%s" % (W, im["names"][0]), g
    assert g["digest"] == im["digest"] and g["id"] == "sha256:" + im["id"], g
    assert g["layers"] == n and g["platform"].startswith("linux/"), g
PY
then
        pass "scan --images of a store: names, digests, ids, layers"
else
        fail "scan --images of a store: names, digests, ids, layers" "$(cat err check.err)"
fi

# The user's own store, as containers-storage.conf says: root's graphroot,
# and a user's rootless_storage_path (else XDG_DATA_HOME).
printf '[storage]\ndriver = "vfs"\ngraphroot = "%s/vfs"\nrunroot = "%s/run-vfs"\n' "$W" "$W" > storage.conf
CONTAINERS_STORAGE_CONF=$W/storage.conf scan containers-storage:img:v1
expect_image "$V1" "the default store: graphroot of CONTAINERS_STORAGE_CONF (root)"
CONTAINERS_STORAGE_CONF=$W/nothing.conf "$PKGNOTE" scan containers-storage:img:v1 > out 2> err
[ $? = 2 ] && grep -qF "cannot open the container store /var/lib/containers/storage" err &&
        pass "no configuration: root's store is /var/lib/containers/storage" ||
        fail "no configuration: root's store is /var/lib/containers/storage" "$(cat err)"
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
        mkdir -p user/data/containers && cp -a vfs user/data/containers/storage && chmod -R a+rX user &&
                chmod a+x "$W" && chmod -R a+w user/data/containers/storage/vfs-images user/data/containers/storage/vfs-layers
        as_user() { setpriv --reuid 65534 --regid 65534 --clear-groups env -u CONTAINERS_STORAGE_CONF HOME="$W/user" "$@"; }
        as_user XDG_DATA_HOME="$W/user/data" "$PKGNOTE" scan --format json containers-storage:img:v2 > out 2> err
        STATUS=$?
        python3 "$H/inventory.py" "" < out > inv
        expect_image "$V2" "a user's store: XDG_DATA_HOME/containers/storage"
        mkdir -p user/.config/containers && chmod -R a+rX user/.config &&
                printf '[storage]\nrootless_storage_path = "%s/ustore"\n' "$W" > user/.config/containers/storage.conf
        if [ -n "$OVERLAY" ] && command -v setfattr > /dev/null; then
                # A rootless overlay store: the user's own, its opaque
                # directories marked in the user namespace of xattrs.
                cp -a overlay ustore && find ustore/overlay -type d | while read -r d; do
                        if [ "$(getfattr --only-values -n trusted.overlay.opaque "$d" 2>/dev/null)" = y ]; then
                                setfattr -x trusted.overlay.opaque "$d" && setfattr -n user.overlay.opaque -v y "$d"
                        fi
                done && chown -R 65534:65534 ustore || fatal "cannot make a rootless store"
                as_user "$PKGNOTE" scan --format json containers-storage:img:v3 > out 2> err
                STATUS=$?
                python3 "$H/inventory.py" "" < out > inv
                expect_image "$V3" "a user's overlay store (rootless_storage_path), user.overlay.opaque honoured"
                # Root's store read by a user: the trusted xattrs are out of
                # sight, which is said.
                chmod -R a+rX overlay && chmod a+x overlay/overlay
                as_user CONTAINERS_STORAGE_CONF=/dev/null "$PKGNOTE" scan --format json \
                        "containers-storage:[$W/overlay]img:v3" > out 2> err
                STATUS=$?
                [ "$STATUS" = 1 ] && grep -qF "root's overlay store read without privileges" err &&
                        pass "root's overlay store read by a user: the hidden opaque markers are told" ||
                        fail "root's overlay store read by a user: the hidden opaque markers are told" "status $STATUS: $(cat err)"
        fi
else
        skip "a user's store" "needs root and setpriv to run as another user"
fi

# An image built and committed by buildah.
B="buildah --root $W/bst --runroot $W/brun --storage-driver vfs"
c=$($B from scratch 2> buildah.err) && $B copy "$c" beta /usr/bin/beta > /dev/null 2>> buildah.err &&
        $B copy "$c" alpha /usr/lib/alpha.so > /dev/null 2>> buildah.err &&
        $B commit -q "$c" localhost/built:1 > /dev/null 2>> buildah.err || fatal "buildah cannot build: $(cat buildah.err)"
scan "containers-storage:[vfs@$W/bst]built:1"
expect_image '/usr/bin/beta executable beta@2.0-1.fc40
/usr/lib/alpha.so executable alpha@1.0-1' "buildah: an image built and committed into a vfs store"

# An image of more layers than the reader first makes room for (eight).
if [ -n "$OVERLAY" ]; then
        umoci tag --image lay:v1 many && i=1 &&
                while [ $i -le 10 ]; do
                        umoci unpack --image lay:many m > /dev/null && cp alpha m/rootfs/usr/bin/f$i &&
                                umoci repack --image lay:many m > /dev/null && rm -rf m || break
                        i=$((i + 1))
                done
        skopeo copy -q oci:lay:many "containers-storage:[overlay@$W/overlay+$W/run-overlay]localhost/img:many" > /dev/null 2>&1 ||
                fatal "skopeo cannot copy the image of many layers"
        scan "containers-storage:[$W/overlay]img:many"
        want_many=$({ printf '%s\n' "$V1"; for i in $(seq 1 10); do echo "/usr/bin/f$i executable alpha@1.0-1"; done; } | sort)
        expect_image "$want_many" "overlay: an image of eleven layers"
fi

# buildah on an overlay store: a layer of its own over skopeo's.
if [ -n "$OVERLAY" ]; then
        BO="buildah --root $W/overlay --runroot $W/run-overlay --storage-driver overlay"
        if c=$($BO from localhost/img:v2 2> buildah.err) && $BO copy "$c" alpha /usr/bin/extra > /dev/null 2>> buildah.err &&
                $BO commit -q "$c" localhost/built-ov:1 > /dev/null 2>> buildah.err; then
                scan "containers-storage:[overlay@$W/overlay]built-ov:1"
                expect_image "$V2
/usr/bin/extra executable alpha@1.0-1" "buildah: an image built on an overlay store, its layer over skopeo's"
        else
                skip "buildah on an overlay store" "buildah cannot mount overlay here: $(tail -n 1 buildah.err)"
        fi
fi

# A writer holding the images lock: the scan waits for it.
python3 - "$W/vfs/vfs-images/images.lock" <<'PY' &
import fcntl, sys, time
f = open(sys.argv[1], "r+")
fcntl.lockf(f, fcntl.LOCK_EX)
open("held", "w").close()
time.sleep(2)
open("released", "w").write("%.3f" % time.time())
f.close()
PY
writer=$!
while [ ! -f held ]; do sleep 0.05; done
scan "containers-storage:[$W/vfs]localhost/img:v1"
done_at=$(python3 -c 'import time; print("%.3f" % time.time())')
wait $writer
if [ "$STATUS" = 0 ] && [ -f released ] && python3 -c "import sys; sys.exit(not $done_at >= $(cat released))"; then
        pass "a store locked by a writer is read after it lets go"
else
        fail "a store locked by a writer is read after it lets go" "status $STATUS, done $done_at, released $(cat released 2>/dev/null)"
fi

# Hostile or unsupported stores.
cp -a vfs bad
python3 - <<'PY' || fatal "cannot damage the store"
import json
p = "bad/vfs-images/images.json"
im = json.load(open(p))
[x for x in im if "localhost/img:v2" in x["names"]][0]["layer"] = "../../../../etc"
json.dump(im, open(p, "w"))
PY
scan "containers-storage:[$W/bad]localhost/img:v2"
expect_error "is not a layer id" "a top layer that is no id"
cp -a vfs loop
python3 - <<'PY' || fatal "cannot damage the store"
import json
p = "loop/vfs-layers/layers.json"
ls = json.load(open(p))
for l in ls:
    if "parent" not in l:
        l["parent"] = ls[-1]["id"] if ls[-1]["id"] != l["id"] else l["id"]
json.dump(ls, open(p, "w"))
PY
scan "containers-storage:[$W/loop]localhost/img:v2"
expect_error "a loop of parents" "layers whose parents loop"
cp -a vfs cfg
python3 - <<'PY' || fatal "cannot damage the store"
import base64, json, os
im = json.load(open("cfg/vfs-images/images.json"))
i = [x for x in im if "localhost/img:v1" in x["names"]][0]
p = "cfg/vfs-images/%s/=%s" % (i["id"], base64.b64encode(("sha256:" + i["id"]).encode()).decode())
c = json.load(open(p))
c["architecture"] = "s390x"
json.dump(c, open(p, "w"))
PY
scan "containers-storage:[$W/cfg]localhost/img:v1"
expect_error "does not match its digest" "a configuration that does not match its id"
mkdir -p two/btrfs-images && echo '[]' > two/btrfs-images/images.json
scan "containers-storage:[$W/two]x"
expect_error "the btrfs storage driver is not supported (vfs and overlay are)" "an unsupported driver"
cp -a vfs/vfs-images vfs/vfs-layers two/ && rm -r two/btrfs-images &&
        mkdir -p two/overlay-images && echo '[]' > two/overlay-images/images.json
scan "containers-storage:[$W/two]localhost/img:v1"
expect_error "holds images of several drivers (overlay, vfs)" "a store of two drivers: asked to name one"
scan "containers-storage:[vfs@$W/two]localhost/img:v1"
expect_error "cannot open $W/two/vfs/dir/" "the driver named, its layer directory missing"
mkdir -p notlist/vfs-images && echo '{"images": []}' > notlist/vfs-images/images.json
scan "containers-storage:[$W/notlist]x"
expect_error "notlist/vfs-images/images.json: not a JSON array" "an image list that is no list"
scan "containers-storage:[$W/nowhere]x"
expect_error "cannot open the container store $W/nowhere" "a store that does not exist"
scan "containers-storage:[relative]x"
expect_error "is not absolute" "a relative store path"
scan "containers-storage:[$W/vfs]@0"
expect_error "a store names its images by NAME[:TAG], ID or @DIGEST" "@N in a store"

finish
