#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The running kernel (pkgnote ps --kernel, --needs-reboot; lib/08-core-kernel.c):
# fixture sysfs trees, osrelease files and roots with a dpkg database,
# written by tests/read/kernel_fixture.py, cover a kernel with its own
# package note, an installed image with another build-id, no image, a
# newer package of the same kernel line (and a newer one of another line,
# which does not count), loaded modules whose files' build-ids agree or not;
# hostile note streams and images fail with their reasons.  On the host,
# the real /sys/kernel/notes is read and compared with Python's reading
# of it: its build salt (another distribution's here) is never a package.
# Debian sid's real bzImage and modules (the sid root) give the build-ids
# that Python's decompression of the payload and readelf -n find.
. "$SRCDIR/tests/lib.sh"
require python3 readelf
# The fixtures' images are gzip, xz and zstd bzImages, sid's is zstd.
require_feature zlib xz zstd
export PYTHONPATH="$SRCDIR/tests/read${PYTHONPATH:+:$PYTHONPATH}"
ID1=1111111111111111111111111111111111111111
ID2=2222222222222222222222222222222222222222
ID3=3333333333333333333333333333333333333333
ID4=4444444444444444444444444444444444444444
ID5=5555555555555555555555555555555555555555
ID6=6666666666666666666666666666666666666666

# ---- fixtures ----
python3 - << 'PY' || fatal "cannot write the fixtures"
import os, struct
import kernel_fixture as kf

def put(path, data, mode="wb"):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, mode) as f:
        f.write(data)

def dpkg(root, pkgs):
    """PKGS: (binary, source, version, [paths])."""
    st = ""
    for name, src, ver, paths in pkgs:
        st += "Package: %s\nStatus: install ok installed\nArchitecture: amd64\nSource: %s\nVersion: %s\n\n" % (name, src, ver)
        put("%s/var/lib/dpkg/info/%s.list" % (root, name), "".join(p + "\n" for p in paths).encode())
    put(root + "/var/lib/dpkg/status", st.encode())

def kernel(d, release, build_id, salt="6.1.102-1.182.amzn2023.x86_64", package=None):
    put(d + "/osrelease", (release + "\n").encode())
    put(d + "/sys/kernel/notes", kf.notes(build_id, salt, package))
    os.makedirs(d + "/root", exist_ok=True)

ID1, ID2, ID3, ID4, ID5, ID6 = (str(i) * 40 for i in range(1, 7))
PKG = '{"type":"deb","os":"ubuntu","name":"linux","version":"6.8.0-31.31","architecture":"amd64"}'

# A kernel with its own package note, and its image.
R = "6.8.0-31-generic"
kernel("noted", R, ID1, salt=R, package=PKG)
put("noted/root/boot/vmlinuz-" + R, kf.image(ID1, "gzip"))

# The installed image of the release has another build-id.
R = "6.1.0-1-amd64"
kernel("mismatch", R, ID1)
put("mismatch/root/boot/vmlinuz-" + R, kf.image(ID2, "xz"))
dpkg("mismatch/root", [("linux-image-" + R, "linux-signed-amd64 (6.1.4+1)", "6.1.4-1", ["/boot/vmlinuz-" + R])])

# No image of the release at all.
kernel("missing", "6.1.0-9-amd64", ID1)

# An image that cannot be decoded: whether it is the running kernel cannot be told.
R = "6.1.0-4-amd64"
kernel("opaque", R, ID1)
put("opaque/root/boot/vmlinuz-" + R, b"\0" * 8192)

# Two images of the release: the first unreadable, the second another kernel.
R = "6.1.0-5-amd64"
kernel("second", R, ID1)
put("second/root/boot/vmlinuz-" + R, b"\0" * 8192)
put("second/root/usr/lib/modules/%s/vmlinuz" % R, kf.image(ID2, "gzip"))

# A newer package of the same line (6.1.10 > 6.1.7 > 6.1.4: not text order),
# one of another line (rt) and an older one; modules.
R = "6.1.0-1-amd64"
kernel("newer", R, ID1)
put("newer/root/usr/lib/modules/%s/vmlinuz" % R, kf.image(ID1, "zstd"))
put("newer/root/boot/vmlinuz-6.1.0-2-amd64", kf.image(ID3, "gzip"))
put("newer/root/boot/vmlinuz-6.1.0-3-rt-amd64", kf.image(ID3, "gzip"))
put("newer/root/usr/lib/modules/6.1.0-0-amd64/vmlinuz", kf.image(ID3, "gzip"))
M = "/usr/lib/modules/%s/kernel/fs/" % R
put("newer/root" + M + "my-mod.ko.gz", kf.compress(kf.module(ID4), "gzip"))
put("newer/root" + M + "other_mod.ko.xz", kf.compress(kf.module(ID6), "xz"))
put("newer/root" + M + "plain.ko", kf.module(ID5))
dpkg("newer/root", [
    ("linux-image-" + R, "linux-signed-amd64 (6.1.4+1)", "6.1.4-1",
     ["/usr/lib/modules/%s/vmlinuz" % R, M + "my-mod.ko.gz", M + "other_mod.ko.xz", M + "plain.ko"]),
    ("linux-image-6.1.0-2-amd64", "linux-signed-amd64 (6.1.10+1)", "6.1.10-1", ["/boot/vmlinuz-6.1.0-2-amd64"]),
    ("linux-image-6.1.0-3-rt-amd64", "linux-signed-amd64 (6.1.12+1)", "6.1.12-1", ["/boot/vmlinuz-6.1.0-3-rt-amd64"]),
    ("linux-image-6.1.0-0-amd64", "linux-signed-amd64 (6.1.1+1)", "6.1.1-1", ["/usr/lib/modules/6.1.0-0-amd64/vmlinuz"]),
])
for name, bid in (("my_mod", ID4), ("other_mod", ID5), ("plain", ID5), ("gone_mod", ID6)):
    put("newer/sys/module/%s/notes/.note.gnu.build-id" % name, kf.note("GNU", 3, bytes.fromhex(bid)))
    put("newer/sys/module/%s/initstate" % name, b"live\n")
os.makedirs("newer/sys/module/builtin_one/parameters", exist_ok=True)
PY

# kernel DIR ARGS...: pkgnote ps on the fixture DIR.
kernel() {
        _d=$1
        shift
        run ps --sysfs "$_d/sys" --osrelease "$_d/osrelease" --root "$_d/root" "$@"
}
# jq_py EXPR: EXPR evaluated by Python over the JSON in out (as d).
jq_py() {
        python3 -c 'import json,sys; d=json.load(open("out")); print(eval(sys.argv[1]))' "$1" 2> /dev/null
}

kernel noted --kernel --json
expect_status 0 "noted: ps --kernel --json"
[ "$(jq_py 'd["package"]["from"], d["package"]["name"], d["package"]["version"], d["buildId"], d["image"]["buildId"], d["needsReboot"]')" = "('note', 'linux', '6.8.0-31.31', '$ID1', '$ID1', False)" ] &&
        pass "noted: the package comes from the kernel's own note, the image's build-id from inside its gzip bzImage" ||
        fail "noted: the package comes from the kernel's own note" "$(cat out err)"
kernel noted --needs-reboot
[ "$STATUS" -eq 0 ] && grep -qx "no reboot needed" out && pass "noted: --needs-reboot says no, status 0" ||
        fail "noted: --needs-reboot says no, status 0" "status $STATUS: $(cat out err)"

kernel mismatch --needs-reboot
[ "$STATUS" -eq 1 ] && grep -q "^  image-differs: the running kernel's build-id $ID1 is not that of the installed image /boot/vmlinuz-6.1.0-1-amd64 ($ID2)" out &&
        [ "$(grep -c ': ' out)" -eq 1 ] && pass "mismatch: --needs-reboot says yes (status 1), the one reason named with both build-ids" ||
        fail "mismatch: --needs-reboot names image-differs" "status $STATUS: $(cat out err)"
kernel mismatch --kernel --json
[ "$(jq_py 'd["package"], d["image"]["buildId"], [r["reason"] for r in d["reboot"]]')" = "(None, '$ID2', ['image-differs'])" ] &&
        pass "mismatch: the database's package of an image with another build-id is not taken" ||
        fail "mismatch: the database's package is not taken" "$(cat out err)"

kernel missing --needs-reboot
[ "$STATUS" -eq 1 ] && grep -q "^  image-missing: no image of the running release 6.1.0-9-amd64 is installed" out &&
        pass "missing: no image installed is a reason" || fail "missing: no image installed is a reason" "status $STATUS: $(cat out err)"

kernel opaque --needs-reboot
[ "$STATUS" -eq 2 ] && grep -qx "cannot tell whether a reboot is needed" out &&
        grep -q "^  cannot tell: the build-id of the installed image /boot/vmlinuz-6.1.0-4-amd64 cannot be read" out &&
        pass "opaque: an image that cannot be decoded is 'cannot tell', status 2, not 'no reboot needed'" ||
        fail "opaque: an image that cannot be decoded is 'cannot tell'" "status $STATUS: $(cat out err)"
kernel opaque --kernel --json
[ "$(jq_py 'd["needsReboot"], d["cannotTell"][:40]')" = "(None, 'the build-id of the installed image /boo')" ] &&
        pass "opaque: needsReboot null, cannotTell says why" || fail "opaque: needsReboot null" "$(cat out err)"
kernel second --needs-reboot
[ "$STATUS" -eq 1 ] && grep -q "^  image-differs: .* the installed image /usr/lib/modules/6.1.0-5-amd64/vmlinuz ($ID2)" out &&
        pass "second: an image whose build-id can be read is compared though the first candidate cannot be" ||
        fail "second: the readable candidate is compared" "status $STATUS: $(cat out err)"

kernel newer --kernel --json
[ "$(jq_py '[r["reason"] for r in d["reboot"]], d["package"]["binary"], d["package"]["version"], d["image"]["path"]')" = "(['newer-package'], 'linux-image-6.1.0-1-amd64:amd64', '6.1.4+1', '/usr/lib/modules/6.1.0-1-amd64/vmlinuz')" ] &&
        pass "newer: the running image's package is taken (same build-id, zstd payload); a newer package is the one reason" ||
        fail "newer: package and reasons" "$(cat out err)"
[ "$(jq_py 'd["reboot"][0]["text"]')" = "a newer kernel package is installed: linux-image-6.1.0-2-amd64:amd64 6.1.10-1 (/boot/vmlinuz-6.1.0-2-amd64), running linux-image-6.1.0-1-amd64:amd64 6.1.4-1" ] &&
        pass "newer: 6.1.10-1 of the same line is named (by dpkg's order, not text), not the rt line's 6.1.12-1" ||
        fail "newer: the newer package named" "$(jq_py 'd["reboot"]')"
[ "$(jq_py '[(m["name"], m["buildId"] == m["fileBuildId"], (m["package"] or {}).get("binary"), m["file"]) for m in d["modules"]]')" = "[('gone_mod', False, None, None), ('my_mod', True, 'linux-image-6.1.0-1-amd64:amd64', '/usr/lib/modules/6.1.0-1-amd64/kernel/fs/my-mod.ko.gz'), ('other_mod', False, None, '/usr/lib/modules/6.1.0-1-amd64/kernel/fs/other_mod.ko.xz'), ('plain', True, 'linux-image-6.1.0-1-amd64:amd64', '/usr/lib/modules/6.1.0-1-amd64/kernel/fs/plain.ko')]" ] &&
        pass "newer: modules: built-ins left out, my-mod.ko.gz found for my_mod, a file with another build-id gets no package" ||
        fail "newer: modules" "$(jq_py 'd["modules"]')"
kernel newer --kernel
grep -q "^  other_mod  *$ID5 - (/usr/lib/modules/6.1.0-1-amd64/kernel/fs/other_mod.ko.xz has build-id $ID6)" out &&
        grep -q "^  gone_mod  *$ID6 - (no module file)" out && grep -q "^    newer-package: " out &&
        pass "newer: the table names the module file's other build-id and the missing file" ||
        fail "newer: the table" "$(cat out err)"
kernel newer --kernel --no-database --json
[ "$(jq_py 'd["package"], d["reboot"]')" = "(None, [])" ] && pass "--no-database: no package, no package reason" ||
        fail "--no-database: no package, no package reason" "$(cat out err)"

# ---- the version order against the package managers' own ----
TK=$BUILDDIR/tests/test-kernel
PAIRS="6.1.10-1 6.1.7-1 1:1.0-1 2.0-1 1.0~rc1-1 1.0-1 1.0-1 1.0-1 1.0a-1 1.0+-1 1.0.1-1 1.0a-1 7.2.13+1 7.2.13-1
6.8.0-31.31 6.8.0-100.100 2.0-1~bpo12+1 2.0-1 1.0^git1-1 1.0-1 0:5-1 5-1 1.01-1 1.1-1 10-1 9a-1 a-1 b-1 1.0-1a 1.0-1"
if command -v dpkg > /dev/null; then
        set -- $PAIRS
        "$TK" vercmp deb "$@" > deb.got
        : > deb.want
        while [ $# -ge 2 ]; do
                if dpkg --compare-versions "$1" lt "$2" 2> /dev/null; then echo -1
                elif dpkg --compare-versions "$1" eq "$2" 2> /dev/null; then echo 0
                else echo 1; fi >> deb.want
                shift 2
        done
        diff -u deb.want deb.got > diff.txt && pass "dpkg's order: $(wc -l < deb.want) pairs as dpkg --compare-versions orders them" ||
                fail "dpkg's order" "$(cat diff.txt)"
else
        missing "dpkg's order against dpkg --compare-versions" dpkg
fi
if command -v rpm > /dev/null; then
        set -- $PAIRS
        "$TK" vercmp rpm "$@" > rpm.got
        : > rpm.want
        while [ $# -ge 2 ]; do
                rpm --eval "%{lua: print(rpm.vercmp('$1', '$2'))}" >> rpm.want
                shift 2
        done
        diff -u rpm.want rpm.got > diff.txt && pass "rpm's order: $(wc -l < rpm.want) pairs as rpm.vercmp() orders them" ||
                fail "rpm's order" "$(cat diff.txt)"
else
        missing "rpm's order against rpm.vercmp()" rpm
fi

# ---- hostile note streams ----
mkdir -p bad/sys/kernel bad/root
echo 6.1.0-1-amd64 > bad/osrelease
cp noted/sys/kernel/notes full.notes
LEN=$(wc -c < full.notes)
OK_CUTS=0 BAD=0 i=1
while [ $i -lt "$LEN" ]; do
        head -c $i full.notes > bad/sys/kernel/notes
        kernel bad --kernel
        if [ "$STATUS" -eq 0 ]; then OK_CUTS=$((OK_CUTS + 1))
        elif [ "$STATUS" -ne 2 ] || ! grep -q "kernel/notes: note [0-9]* at offset [0-9]* runs past the end\|kernel/notes: [0-9]* stray bytes" err; then
                BAD=$((BAD + 1)); echo "# cut at $i: status $STATUS: $(cat err)"
        fi
        i=$((i + 1))
done
# Cuts at the end of a note (4 notes before the last) and before a last
# descriptor's padding read whole; every other cut is refused.
[ $BAD -eq 0 ] && [ $OK_CUTS -ge 4 ] && [ $OK_CUTS -le 8 ] &&
        pass "every truncated prefix of the notes ($LEN bytes) reads whole or fails with its reason ($OK_CUTS read)" ||
        fail "truncated prefixes of the notes" "$BAD bad, $OK_CUTS read"
python3 -c 'import kernel_fixture as kf, sys; sys.stdout.buffer.write(kf.note("GNU", 3, b""))' > bad/sys/kernel/notes
kernel bad --kernel
[ "$STATUS" -eq 2 ] && grep -q "kernel/notes: a build-id of 0 bytes" err && pass "an empty build-id is refused" ||
        fail "an empty build-id is refused" "status $STATUS: $(cat err)"
head -c 2000000 /dev/zero > bad/sys/kernel/notes
kernel bad --kernel
[ "$STATUS" -eq 2 ] && grep -q "more than 1048576" err && pass "a note stream past its limit is refused" ||
        fail "a note stream past its limit is refused" "status $STATUS: $(cat err)"
printf '6.1\n0\n' > bad/osrelease
cp full.notes bad/sys/kernel/notes
kernel bad --kernel
[ "$STATUS" -eq 2 ] && grep -q "the kernel release holds a character" err && pass "a release with a line break is refused" ||
        fail "a release with a line break is refused" "status $STATUS: $(cat err)"

# ---- hostile images: the build-id unknown, the reason told, no image-differs ----
echo 6.1.0-1-amd64 > bad/osrelease
python3 - << 'PY'
import struct, kernel_fixture as kf
ID = "1" * 40
v = kf.vmlinux(kf.notes(ID), 0x30000)
gz = kf.compress(v, "gzip")
cases = {
    "outside": kf.bzimage(gz, payload_len=len(gz) + 4096),
    "damaged": kf.bzimage(gz[:100] + bytes(b ^ 0x55 for b in gz[100:200]) + gz[200:]),
    "truncated": kf.bzimage(gz[: len(gz) // 2]),
    "far-notes": kf.bzimage(kf.compress(kf.vmlinux(kf.notes(ID), 0x30000)[:64] +
                                         struct.pack("<IIQQQQQQ", 4, 4, 3 << 30, 0, 0, 64, 64, 4) +
                                         b"\0" * 0x1000, "gzip")),
    "short": kf.bzimage(kf.compress(kf.vmlinux(kf.notes(ID), 0x30000)[:0x2000], "xz")),
    "lzma": kf.bzimage(b"\x5d\x00\x00\x80\x00" + b"\0" * 64),
    "not-kernel": b"\x7fELG" + b"\0" * 4096,
}
for k, d in cases.items():
    open("img-" + k, "wb").write(d)
PY
for c in "outside:lies outside its" "damaged:payload is damaged" "truncated:payload is truncated" \
         "far-notes:lies past the limits" "short:ends after 8192 bytes, before its notes" \
         "lzma:compressed with lzma, which pkgnote does not decode" "not-kernel:neither an x86 bzImage"; do
        name=${c%%:*} want=${c#*:}
        mkdir -p bad/root/boot
        cp "img-$name" bad/root/boot/vmlinuz-6.1.0-1-amd64
        kernel bad --kernel --json
        got=$(jq_py 'd["image"].get("error", ""), d["image"]["buildId"], [r["reason"] for r in d["reboot"]]')
        case "$got" in
        *"$want"*", None, [])") pass "hostile image ($name): '$want', no build-id, no reason made up" ;;
        *) fail "hostile image ($name)" "status $STATUS: $got $(cat err)" ;;
        esac
done

# ---- usage ----
run ps --kernel 1
[ "$STATUS" -eq 2 ] && grep -q "take no process IDs" err && pass "--kernel with a PID is refused" || fail "--kernel with a PID is refused" "status $STATUS: $(cat err)"
run ps --needs-reboot --format cyclonedx
[ "$STATUS" -eq 2 ] && grep -q "a table or JSON layout of their own" err && pass "--needs-reboot with an SBOM format is refused" ||
        fail "--needs-reboot with an SBOM format is refused" "status $STATUS: $(cat err)"
run ps --kernel --sysfs nonexistent
[ "$STATUS" -eq 2 ] && grep -q "'nonexistent': cannot read the running kernel: nonexistent: cannot open: No such file or directory" err &&
        pass "a missing sysfs tree is named" || fail "a missing sysfs tree is named" "status $STATUS: $(cat err)"

# ---- the host's own kernel ----
if [ -r /sys/kernel/notes ]; then
        run ps --kernel --json --no-database
        python3 - > host.want << 'PY'
import struct
d = open("/sys/kernel/notes", "rb").read()
off, bid, salt, fdo = 0, None, None, False
while off + 12 <= len(d):
    n, s, t = struct.unpack_from("<III", d, off)
    name = d[off + 12: off + 12 + n].rstrip(b"\0")
    desc = d[off + 12 + (n + 3) // 4 * 4: off + 12 + (n + 3) // 4 * 4 + s]
    if name == b"GNU" and t == 3 and bid is None:
        bid = desc.hex()
    if name == b"Linux" and t == 0x100 and salt is None:
        salt = desc.rstrip(b"\0").decode("ascii", "replace")
    if name == b"FDO" and t == 0xcafe1a7e:
        fdo = True
    off += 12 + (n + 3) // 4 * 4 + (s + 3) // 4 * 4
print((bid, salt, fdo))
PY
        got=$(jq_py 'd["buildId"], d["buildSalt"], d["note"] is not None')
        if [ "$STATUS" -eq 0 ] && [ "$got" = "$(cat host.want)" ]; then
                pass "host: /sys/kernel/notes read as Python reads it: $got"
        else
                fail "host: /sys/kernel/notes read as Python reads it" "pkgnote $got, python $(cat host.want); $(cat err)"
        fi
        if grep -q "True)$" host.want || [ "$(jq_py 'd["package"]')" = None ]; then
                pass "host: the build salt is not taken for a package"
        else
                fail "host: the build salt is not taken for a package" "$(cat out)"
        fi
        [ "$(jq_py 'd["release"]')" = "$(uname -r)" ] && pass "host: the release is uname's" || fail "host: the release is uname's" "$(cat out)"
else
        skip "host: /sys/kernel/notes" "not readable here"
fi

# ---- Debian sid's real bzImage and modules ----
SID=${PKGNOTE_TEST_SID_ROOT:-/var/cache/pkgnote/roots/sid}
IMG=$(ls "$SID"/boot/vmlinuz-* 2> /dev/null | head -n 1)
if [ -z "$IMG" ]; then
        missing "sid's bzImage (the sid root)" "$SID/boot/vmlinuz-*"
elif ! command -v zstd > /dev/null || ! command -v xz > /dev/null; then
        missing "sid's bzImage: the oracle decompresses with zstd and xz" "zstd xz"
else
        REL=${IMG##*/vmlinuz-}
        # The oracle: scripts/extract-vmlinux's way (find a compression magic,
        # decompress from there, keep what is ELF), then readelf -n.
        python3 - "$IMG" > vmlinux << 'PY'
import lzma, subprocess, sys, zlib
data = open(sys.argv[1], "rb").read()
for magic, kind in ((b"\x28\xb5\x2f\xfd", "zstd"), (b"\xfd7zXZ\x00", "xz"), (b"\x1f\x8b\x08", "gzip")):
    pos = data.find(magic)
    while pos >= 0:
        try:
            if kind == "zstd":
                out = subprocess.run(["zstd", "-dcq"], input=data[pos:], capture_output=True).stdout
            elif kind == "xz":
                out = lzma.LZMADecompressor().decompress(data[pos:])
            else:
                out = zlib.decompressobj(31).decompress(data[pos:])
        except Exception:
            out = b""
        if out[:4] == b"\x7fELF":
            sys.stdout.buffer.write(out)
            sys.exit(0)
        pos = data.find(magic, pos + 1)
sys.exit(1)
PY
        WANT=$(readelf -n vmlinux 2> /dev/null | sed -n 's/^ *Build ID: //p' | head -n 1)
        MODS=$(find "$SID/usr/lib/modules/$REL" -name '*.ko.xz' 2> /dev/null | sort | head -n 3)
        python3 - "$REL" "$WANT" $MODS << 'PY'
import os, subprocess, sys, kernel_fixture as kf
rel, want, mods = sys.argv[1], sys.argv[2], sys.argv[3:]
os.makedirs("sid/sys/kernel", exist_ok=True)
os.makedirs("sid/sys/module", exist_ok=True)
open("sid/osrelease", "w").write(rel + "\n")
open("sid/sys/kernel/notes", "wb").write(kf.notes(want, rel))
with open("sid/mods.want", "w") as w:
    for m in mods:
        ko = subprocess.run(["xz", "-dc", m], capture_output=True, check=True).stdout
        open("ko.tmp", "wb").write(ko)
        out = subprocess.run(["readelf", "-n", "ko.tmp"], capture_output=True, text=True).stdout
        bid = [l.split(":", 1)[1].strip() for l in out.splitlines() if "Build ID:" in l][0]
        name = os.path.basename(m)[: -len(".ko.xz")].replace("-", "_")
        os.makedirs("sid/sys/module/%s/notes" % name, exist_ok=True)
        open("sid/sys/module/%s/notes/.note.gnu.build-id" % name, "wb").write(kf.note("GNU", 3, bytes.fromhex(bid)))
        open("sid/sys/module/%s/initstate" % name, "w").write("live\n")
        w.write("%s %s %s\n" % (name, bid, m[len(sys.argv[0]) and m.index("/usr/lib/modules"):]))
PY
        run ps --kernel --json --sysfs sid/sys --osrelease sid/osrelease --root "$SID"
        got=$(jq_py 'd["image"]["buildId"]')
        if [ -n "$WANT" ] && [ "$got" = "$WANT" ]; then
                pass "sid: the build-id of $IMG is the one readelf finds in its extracted vmlinux ($WANT)"
        else
                fail "sid: the bzImage's build-id" "pkgnote $got, readelf '$WANT'; $(cat err)"
        fi
        [ "$(jq_py 'd["package"]["type"], d["package"]["binary"].split(":")[0].startswith(("linux-image-", "linux-binary-")), d["needsReboot"]')" = "('deb', True, False)" ] &&
                pass "sid: the image's package is the database's (build-ids equal), no reboot needed" ||
                fail "sid: the image's package" "$(cat out err)"
        jq_py '"\n".join("%s %s %s" % (m["name"], m["fileBuildId"], m["file"]) for m in d["modules"] if m["package"] and m["package"]["name"] == "linux")' > sid.got
        if [ -s sid/mods.want ] && diff -u sid/mods.want sid.got > diff.txt; then
                pass "sid: $(wc -l < sid.got) real .ko.xz modules: their build-ids are readelf's, their package linux"
        else
                fail "sid: the real modules" "$(cat diff.txt)"
        fi
fi
finish
