#!/bin/sh
# pkgnote scan of an image piped in, the way "docker save IMAGE | pkgnote
# scan -" is used: a docker-save-shaped archive of 320 MiB (one layer tar
# of five ELF programs of 64 MiB each, its manifest.json after the layer)
# is written to pkgnote's standard input as it is generated, never to
# disk.  The scan must find every program's package note, and its peak
# memory (/usr/bin/time's maximum resident set size) must stay under
# 64 MiB: large members are read as far as their notes need, not whole.
# A test of a bound, not of speed.
. "$SRCDIR/tests/lib.sh"
require_feature archive
for t in python3 cc; do
        command -v $t > /dev/null || { skip "a piped image" "$t is not installed (make deps-test)"; finish; }
done
[ -x /usr/bin/time ] || { skip "a piped image" "/usr/bin/time is not installed (make deps-test)"; finish; }

BOUND_KIB=65536
echo 'int main(void) { return 0; }' > main.c
# prog1's first segment is executable (no separate code segment), as
# libclang's is, and its dynamic string table lies past the first page in
# it (after 400 exported symbols).
awk 'BEGIN { for (i = 0; i < 400; i++) printf "int exported_function_%d(void) { return %d; }\n", i, i }' > many.c
for i in 1 2 3 4 5; do
        extra=
        [ "$i" = 1 ] && extra="-Wl,-z,noseparate-code -rdynamic many.c"
        cc -o "prog$i" -fuse-ld=bfd $extra \
                -Xlinker "--package-metadata={\"type\":\"deb\",\"name\":\"big$i\",\"version\":\"1.$i\",\"architecture\":\"amd64\"}" \
                main.c || fatal "cannot link prog$i"
done

# gen.py: the archive on stdout.  Each program is padded to 64 MiB with
# bytes after its own (as a self-extracting payload is), so that the
# member is large while its notes stay in its first page.
cat > gen.py <<'PY'
import hashlib, io, json, sys, tarfile
SIZE = 64 << 20
out = sys.stdout.buffer
progs = [open("prog%d" % i, "rb").read() for i in range(1, 6)]
def pad(n): return b"\0" * (-n % 512)
def members():
    for i, p in enumerate(progs, 1):
        ti = tarfile.TarInfo("usr/bin/big%d" % i)
        ti.size, ti.mode = SIZE, 0o755
        yield ti.tobuf(tarfile.GNU_FORMAT), p, SIZE - len(p)
layer_size = sum(512 + SIZE for _ in progs) + 1024
digest = "ab" * 32  # not verified without --verify-layers
def add(name, data):
    ti = tarfile.TarInfo(name); ti.size = len(data)
    out.write(ti.tobuf(tarfile.GNU_FORMAT) + data + pad(len(data)))
ti = tarfile.TarInfo(digest + ".tar"); ti.size = layer_size
out.write(ti.tobuf(tarfile.GNU_FORMAT))
chunk = b"\xa5" * (1 << 20)
for hdr, prog, rest in members():
    out.write(hdr + prog)
    while rest > 0:
        k = min(rest, len(chunk)); out.write(chunk[:k]); rest -= k
out.write(b"\0" * 1024)
cfg = json.dumps({"architecture": "amd64", "os": "linux",
                  "rootfs": {"type": "layers", "diff_ids": ["sha256:" + digest]}}).encode()
cd = hashlib.sha256(cfg).hexdigest()
add(cd + ".json", cfg)
add("manifest.json", json.dumps([{"Config": cd + ".json", "RepoTags": ["big:1"], "Layers": [digest + ".tar"]}]).encode())
out.write(b"\0" * 1024)
PY

python3 gen.py | /usr/bin/time -f %M -o rss "$PKGNOTE" scan --format json --no-progress - > out 2> err
STATUS=$?
expect_status 0 "piped image: scanned"
python3 -c 'import json, sys
for l in sys.stdin:
    d = json.loads(l)
    if "path" in d:
        print(d["path"], ",".join(p["name"] + "@" + p["version"] for p in d["packages"]), d["image"]["tags"][0])' < out | sort > got
printf '/usr/bin/big%s big%s@1.%s big:1\n' 1 1 1 2 2 2 3 3 3 4 4 4 5 5 5 > want
if cmp -s got want; then pass "piped image: every program's note, the manifest read after the layer"
else fail "piped image: every program's note, the manifest read after the layer" "got: $(cat got)"; fi
# An SBOM reads the dynamic section too: its string table was kept.
python3 gen.py | "$PKGNOTE" scan --format cyclonedx --no-progress - > bom 2> err
STATUS=$?
expect_status 0 "piped image, SBOM: scanned"
if grep -q 'not kept' err; then fail "piped image, SBOM: dynamic string tables kept" "$(cat err)"
else pass "piped image, SBOM: dynamic string tables kept"; fi

# pipe-size: the writer's pipe is read as it is, not grown: reading a
# megabyte at a time from a pipe grown to match cost more CPU per byte and
# came through slower than reading its 64 KiB (bench/stream.sh).  The pipe
# is shared with the writer, which sees its size.
cat > pipesize.py <<'PY'
import fcntl, io, os, subprocess, sys, tarfile
r, w = os.pipe()
before = fcntl.fcntl(w, fcntl.F_GETPIPE_SZ)
p = subprocess.Popen([sys.argv[1], "scan", "--no-progress", "-"], stdin=r,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(r)
f = os.fdopen(w, "wb", buffering=0)
with tarfile.open(fileobj=f, mode="w|", format=tarfile.GNU_FORMAT) as t:
    t.add("prog2", arcname="usr/bin/prog2")
    data = b"\x5a" * (8 << 20)  # more than any pipe holds: the reader has started
    ti = tarfile.TarInfo("usr/share/data"); ti.size = len(data)
    t.addfile(ti, io.BytesIO(data))
after = fcntl.fcntl(w, fcntl.F_GETPIPE_SZ)
f.close()
rc = p.wait()
print("status %d, pipe %d bytes before, %d while read" % (rc, before, after))
sys.exit(0 if rc == 0 and after == before else 1)
PY
if python3 pipesize.py "$PKGNOTE" > ps.out 2>&1; then pass "pipe-size: the piped stream is read without growing the writer's pipe"
else fail "pipe-size: the piped stream is read without growing the writer's pipe" "$(cat ps.out)"; fi
rss=$(tail -n 1 rss)
# AddressSanitizer's shadow memory and quarantine of freed blocks are no
# part of pkgnote's own use: its builds check the results only.
if ldd "$PKGNOTE" 2> /dev/null | grep -q 'libasan'; then
        skip "piped image of 320 MiB: peak memory" "measured without AddressSanitizer only"
        finish
        exit
fi
case $rss in
''|*[!0-9]*) fail "piped image: peak memory measured" "/usr/bin/time said: $(cat rss)" ;;
*) if [ "$rss" -le "$BOUND_KIB" ]; then pass "piped image of 320 MiB: peak memory $rss KiB, at most $BOUND_KIB KiB"
   else fail "piped image of 320 MiB: peak memory $rss KiB, at most $BOUND_KIB KiB"; fi ;;
esac
finish
