#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pkgnote deps --verify: whether a built artefact holds what its programs
# need, on the real initrds of a Debian sid root (dracut's and
# initramfs-tools', dist/make-sid-artefacts.sh): exactly the findings the
# oracle (readelf in that root, dist/sid-oracle.py) lists; a copy with one
# library taken out (one finding more, exit 1) and put back (none); every
# DT_NEEDED answer checked against glibc's own loader, each program of the
# unpacked initrd run with LD_TRACE_LOADED_OBJECTS=1 under bubblewrap;
# and archives made here: names leading out, loops of links, links out of
# the artefact, a truncated compressed stream.
. "$SRCDIR/tests/lib.sh"
require python3 cpio zstd bwrap timeout readelf cc ldd
PK=$PKGNOTE
ART=${PKGNOTE_TEST_SID_ARTEFACTS:-/var/cache/pkgnote/roots/sid-artefacts}

. "$SRCDIR/tests/check/verify-lib.sh"
# segment FILE N: the offset of the oracle's segment N of FILE.
segment() {
        awk -v n="$2" '$1 == "segment" && $2 == n { print $3 }' "$1"
}
# unpack IMG DIR: the initrd IMG unpacked into DIR as the kernel unpacks
# it (the early uncompressed archive, then the zstd one), by cpio and zstd.
unpack() {
        _off=$(segment "$1.ORACLE.txt" 1)
        mkdir -p "$2"
        head -c "$_off" "$1" | (cd "$2" && cpio -id --quiet --no-absolute-filenames 2> /dev/null)
        tail -c +$((_off + 1)) "$1" | zstd -dq | (cd "$2" && cpio -id --quiet --no-absolute-filenames 2> /dev/null)
}
# repack IMG DIR OUT: IMG's early archive, then DIR as a zstd cpio.
repack() {
        _off=$(segment "$1.ORACLE.txt" 1)
        head -c "$_off" "$1" > "$3"
        (cd "$2" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | zstd -q -c) >> "$3"
}
# ldtrace DIR: glibc's loader asked, inside DIR under bubblewrap, with
# LD_TRACE_LOADED_OBJECTS=1: each program (an ELF file whose PT_INTERP is
# glibc's ld-linux, one name per file), then each other shared object no
# program mapped, given to DIR's own ld.so as ldd does.  The names the
# loader does not find, OBJECT<TAB>SONAME a line, in ldtrace.out; what
# could not be run in ldtrace.err.
bwrap_isolate
ldtrace() {
        python3 - "$1" "$BWRAP_ISOLATE" > ldtrace.out 2> ldtrace.err << 'PYEOF'
import os, re, struct, subprocess, sys
root, iso = sys.argv[1], sys.argv[2].split()

def inroot(path, depth=0):
    """PATH (absolute in ROOT) with its links resolved inside ROOT, or None."""
    done, todo, links = [], [c for c in path.split("/") if c], 0
    while todo:
        c = todo.pop(0)
        if c == "..":
            done = done[:-1]
            continue
        if c == ".":
            continue
        full = os.path.join(root, *done, c)
        if os.path.islink(full):
            links += 1
            if links > 40:
                return None
            t = os.readlink(full)
            if t.startswith("/"):
                done = []
            todo = [x for x in t.split("/") if x] + todo
        elif os.path.lexists(full):
            done.append(c)
        else:
            return None
    return "/" + "/".join(done)

def elf(path):
    """(e_type, PT_INTERP, whether PT_DYNAMIC) of the 64-bit little-endian ELF file, or None."""
    with open(path, "rb") as f:
        b = f.read(1 << 16)
    if b[:4] != b"\x7fELF" or b[4] != 2 or b[5] != 1:
        return None
    et, = struct.unpack_from("<H", b, 16)
    phoff, = struct.unpack_from("<Q", b, 32)
    phentsize, phnum = struct.unpack_from("<HH", b, 54)
    interp, dynamic = None, False
    for i in range(phnum):
        o = phoff + i * phentsize
        if o + 56 > len(b):
            break
        pt, = struct.unpack_from("<I", b, o)
        dynamic = dynamic or pt == 2
        if pt == 3:
            off, = struct.unpack_from("<Q", b, o + 8)
            sz, = struct.unpack_from("<Q", b, o + 32)
            with open(path, "rb") as f:
                f.seek(off)
                interp = f.read(sz).rstrip(b"\0").decode()
    return et, interp, dynamic

def trace(argv):
    p = subprocess.run(["bwrap", "--bind", root, "/"] + iso + ["--dev", "/dev", "--chdir", "/",
                        "--setenv", "LD_TRACE_LOADED_OBJECTS", "1"] + argv,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", timeout=60)
    missing, mapped = [], []
    for line in p.stdout.splitlines():
        m = re.match(r"\s*(\S+) => not found", line)
        if m:
            missing.append(m.group(1))
            continue
        m = re.match(r"\s*(?:\S+ => )?(/\S+) \(0x", line)
        if m:
            mapped.append(m.group(1))
    if p.returncode != 0 and not missing:
        print(" ".join(argv) + ": " + p.stdout.strip()[:200], file=sys.stderr)
    return missing, mapped

objs, seen = [], set()
for d, dirs, files in os.walk(root):
    dirs.sort()
    for f in sorted(files):
        full = os.path.join(d, f)
        if os.path.islink(full) or not os.path.isfile(full):
            continue
        st = os.stat(full)
        if st.st_ino in seen:
            continue
        seen.add(st.st_ino)
        try:
            e = elf(full)
        except OSError:
            e = None
        # an object without PT_DYNAMIC (klibc's own) needs nothing
        if e and e[0] in (2, 3) and e[2]:
            objs.append(("/" + os.path.relpath(full, root), e[1], st.st_ino))
mapped = set()
ldso = None
for path, interp, ino in objs:
    if interp and "/ld-linux" in interp:
        ldso = ldso or interp
        miss, got = trace([path])
        for n in miss:
            print(path + "\t" + n)
        for g in got:
            r = inroot(g)
            if r:
                mapped.add(os.stat(root + r).st_ino)
for path, interp, ino in objs:
    # programs of another loader (klibc's) are not glibc's to trace
    if interp or ino in mapped or not ldso:
        continue
    # a shared object no program maps: as ldd asks about it
    miss, got = trace([ldso, path])
    for n in miss:
        print(path + "\t" + n)
PYEOF
}
# needed_sonames: the names of the "needed" findings in out, sorted, each once.
needed_sonames() {
        findings | awk -F '\t' '$2 == "needed" { print $3 }' | LC_ALL=C sort -u
}

# ---------------------------------------------------- archives made here
# mkcpio OUT SPEC...: a newc archive of SPEC entries: d:NAME, f:NAME:FILE
# (the file's bytes), l:NAME:TARGET, r:NAME (a raw name, kept as given).
mkcpio() {
        python3 - "$@" << 'PYEOF'
import sys
out = open(sys.argv[1], "wb")
ino = 1
def entry(name, mode, data, nlink=1):
    global ino
    n = name.encode() + b"\0"
    h = b"070701" + b"".join(b"%08X" % v for v in (ino, mode, 0, 0, nlink, 0, len(data), 0, 0, 0, 0, len(n), 0))
    ino += 1
    out.write(h + n + b"\0" * ((4 - (110 + len(n)) % 4) % 4))
    out.write(data + b"\0" * ((4 - len(data) % 4) % 4))
for spec in sys.argv[2:]:
    kind, rest = spec.split(":", 1)
    if kind == "d":
        entry(rest, 0o40755, b"", 2)
    elif kind == "f":
        name, path = rest.split(":", 1)
        entry(name, 0o100755, open(path, "rb").read())
    elif kind == "l":
        name, target = rest.split(":", 1)
        entry(name, 0o120777, target.encode())
entry("TRAILER!!!", 0, b"")
out.close()
PYEOF
}

prog=/usr/bin/true
[ -f "$prog" ] || prog=/bin/true
readelf -hW "$prog" 2> /dev/null | grep -q 'Machine:.*X86-64' || prog=
if [ -n "$prog" ]; then
        # Names leading out (left out, said), a loop of links for libc.so.6,
        # the interpreter a link out of the artefact to the host's.
        interp=$(readelf -lW "$prog" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
        mkcpio hostile.img d:usr d:usr/bin d:usr/lib d:usr/lib/x86_64-linux-gnu l:lib:usr/lib l:lib64:usr/lib \
                "f:usr/bin/true:$prog" "l:usr/lib/x86_64-linux-gnu/libc.so.6:/lib/x86_64-linux-gnu/libc.so.6" \
                "l:usr/lib/ld-linux-x86-64.so.2:../../../../../../../..$interp" \
                "f:../../../tmp/evil:$prog" "f:usr/../../etc/evil:$prog"
        verify hostile.img
        if [ "$STATUS" = 1 ] && grep -q "/usr/bin/true: needed libc.so.6 (required): missing" out &&
                grep -q "/usr/bin/true: interpreter $interp (required): missing" out; then
                pass "crafted: a loop of links and a link out of the artefact are findings, exit 1"
        else
                fail "crafted: a loop of links and a link out of the artefact are findings, exit 1" "status $STATUS: $(cat out err)"
        fi
        [ "$(grep -c 'leading out of the archive' err)" = 2 ] && ! grep -q evil out &&
                pass "crafted: names leading out are left out and said" ||
                fail "crafted: names leading out are left out and said" "$(cat err)"
        # A name with control characters: escaped in the findings.
        esc=$(printf 'usr/bin/t\033]0;title\007\033[31mred')
        mkcpio names.img d:usr d:usr/bin "f:$esc:$prog"
        verify names.img
        [ "$STATUS" = 1 ] && grep -q 'needed libc.so.6' out && ! grep -q "$(printf '\033')" out err &&
                pass "crafted: control characters of names are escaped" ||
                fail "crafted: control characters of names are escaped" "status $STATUS: $(od -c out | head -n 5)"
        # The same with the libraries there: nothing missing.
        libc=$(ldd "$prog" | awk '$1 == "libc.so.6" { print $3 }')
        mkcpio good.img d:usr d:usr/bin d:usr/lib d:usr/lib/x86_64-linux-gnu d:usr/lib64 l:lib:usr/lib l:lib64:usr/lib64 \
                "f:usr/bin/true:$prog" "f:usr/lib/x86_64-linux-gnu/libc.so.6:$libc" "f:usr${interp#/usr}:$interp"
        verify good.img
        [ "$STATUS" = 0 ] && [ ! -s out ] && pass "crafted: a complete archive has no finding, exit 0" ||
                fail "crafted: a complete archive has no finding, exit 0" "status $STATUS: $(cat out err)"
        # Compressed, then cut short: a clear error, exit 2.
        zstd -q -c good.img > good.img.zst
        head -c $(($(wc -c < good.img.zst) / 2)) good.img.zst > cut.img
        verify good.img.zst
        if has_feature zstd; then
                [ "$STATUS" = 0 ] && pass "crafted: a zstd-compressed archive is read" || fail "crafted: a zstd-compressed archive is read" "status $STATUS: $(cat out err)"
                verify cut.img
                [ "$STATUS" = 2 ] && grep -q "truncated" err && pass "crafted: a truncated zstd stream is an error, exit 2" ||
                        fail "crafted: a truncated zstd stream is an error, exit 2" "status $STATUS: $(cat out err)"
        else
                [ "$STATUS" = 2 ] && grep -q "cannot decode zstd" err && pass "crafted: without zstd, a zstd archive is an error, exit 2" ||
                        fail "crafted: without zstd, a zstd archive is an error, exit 2" "status $STATUS: $(cat out err)"
        fi
        # A compression the kernel reads and pkgnote does not: said, exit 2.
        if command -v bzip2 > /dev/null; then
                bzip2 -c good.img > good.img.bz2
                verify good.img.bz2
                [ "$STATUS" = 2 ] && grep -q "a bzip2 compressed archive at offset 0: not read" err &&
                        pass "crafted: a bzip2 archive is said to be unread, exit 2" ||
                        fail "crafted: a bzip2 archive is said to be unread, exit 2" "status $STATUS: $(cat out err)"
        fi
        # A directory: the same answers.
        mkdir dir && (cd dir && cpio -id --quiet < ../good.img 2> /dev/null)
        verify dir
        [ "$STATUS" = 0 ] && [ ! -s out ] && pass "crafted: a directory artefact" || fail "crafted: a directory artefact" "status $STATUS: $(cat out err)"
        rm dir/usr/lib/x86_64-linux-gnu/libc.so.6
        verify --json dir
        [ "$STATUS" = 1 ] && [ "$(findings)" = "$(printf '/usr/bin/true\tneeded\tlibc.so.6\trequired')" ] &&
                pass "crafted: a directory artefact without libc.so.6, --json" ||
                fail "crafted: a directory artefact without libc.so.6, --json" "status $STATUS: $(cat out err)"
        # dlopen notes: a required entry missing is exit 1, named with its
        # alternatives, feature and priority; suggested ones only when asked;
        # one alternative present is enough.
        if command -v cc > /dev/null && printf 'int main(void) { return 0; }\n' > dl.c &&
                "$PK" generate --format object -o dl.o --dlopen '[{"feature":"foo","priority":"required","soname":["libfoo.so.1","libfoo.so.2"]},{"feature":"bar","priority":"suggested","soname":["libbar.so.1"]}]' &&
                cc -o dlprog dl.c dl.o; then
                mkcpio dl.img d:usr d:usr/bin d:usr/lib d:usr/lib/x86_64-linux-gnu d:usr/lib64 l:lib:usr/lib l:lib64:usr/lib64 \
                        "f:usr/bin/dlprog:dlprog" "f:usr/lib/x86_64-linux-gnu/libc.so.6:$libc" "f:usr${interp#/usr}:$interp"
                verify dl.img
                [ "$STATUS" = 1 ] && [ "$(cat out)" = "dl.img: /usr/bin/dlprog: dlopen libfoo.so.1 or libfoo.so.2 (feature foo, required): missing" ] &&
                        pass "crafted: a required dlopen entry missing, exit 1" ||
                        fail "crafted: a required dlopen entry missing, exit 1" "status $STATUS: $(cat out err)"
                verify --priority suggested dl.img
                [ "$STATUS" = 1 ] && [ "$(wc -l < out)" = 2 ] && grep -q "dlopen libbar.so.1 (feature bar, suggested): missing" out &&
                        pass "crafted: --priority suggested adds the suggested entry" ||
                        fail "crafted: --priority suggested adds the suggested entry" "status $STATUS: $(cat out err)"
                verify --feature bar dl.img
                [ "$STATUS" = 0 ] && [ "$(wc -l < out)" = 1 ] && grep -q "libbar.so.1" out &&
                        pass "crafted: --feature bar alone, nothing required missing, exit 0" ||
                        fail "crafted: --feature bar alone, nothing required missing, exit 0" "status $STATUS: $(cat out err)"
                mkcpio dl2.img d:usr d:usr/bin d:usr/lib d:usr/lib/x86_64-linux-gnu d:usr/lib64 l:lib:usr/lib l:lib64:usr/lib64 \
                        "f:usr/bin/dlprog:dlprog" "f:usr/lib/x86_64-linux-gnu/libc.so.6:$libc" "f:usr${interp#/usr}:$interp" \
                        "f:usr/lib/x86_64-linux-gnu/libfoo.so.2:$libc"
                verify dl2.img
                [ "$STATUS" = 0 ] && [ ! -s out ] && pass "crafted: the second alternative of a dlopen entry is enough" ||
                        fail "crafted: the second alternative of a dlopen entry is enough" "status $STATUS: $(cat out err)"
        else
                fail "crafted: a program with dlopen notes" "cannot build it: $(cat err 2> /dev/null)"
        fi
else
        skip "crafted archives" "needs an x86-64 $prog"
fi

# ------------------------------------------------------ the real initrds
if [ ! -f "$ART/initrd-dracut.img.ORACLE.txt" ] || [ ! -f "$ART/initrd-initramfs-tools.img.ORACLE.txt" ]; then
        missing "the sid initrds and their oracles (sh dist/make-sid-artefacts.sh)" "$ART"
        echo "1..$((PASSED + FAILED))"
        [ "$FAILED" = 0 ]
        exit
fi
# Their main archives are zstd-compressed.
if ! with_feature zstd "the sid initrds (zstd-compressed)"; then
        echo "1..$((PASSED + FAILED))"
        [ "$FAILED" = 0 ]
        exit
fi

for n in dracut initramfs-tools; do
        img=$ART/initrd-$n.img
        verify --json "$img"
        findings > got.$n
        oracle "$img.ORACLE.txt" > want.$n
        [ "$STATUS" = 0 ] && cmp -s want.$n got.$n && pass "$n initrd: the oracle's findings, exit 0" ||
                fail "$n initrd: the oracle's findings, exit 0" "status $STATUS: $(diff want.$n got.$n | head -n 20)"
        elfs=$(awk '$1 == "elf-count" { print $2 }' "$img.ORACLE.txt")
        got=$(python3 -c 'import json; print(json.load(open("out"))[0]["objects"])')
        [ "$got" = "$elfs" ] && pass "$n initrd: every ELF object checked ($elfs)" || fail "$n initrd: every ELF object checked ($elfs)" "got $got"
        verify "$img"
        [ "$STATUS" = 0 ] && [ "$(wc -l < out)" = "$(wc -l < want.$n)" ] && grep -q "dlopen" out &&
                pass "$n initrd: text, a line a finding" || fail "$n initrd: text, a line a finding" "$(cat out err)"
done
# The main archive of dracut's initrd compressed with gzip, xz and lz4
# (its legacy format, the kernel's) instead of zstd, as other
# distributions do: the same findings.
off=$(segment "$ART/initrd-dracut.img.ORACLE.txt" 1)
for c in "gzip -1" "xz -0 --check=crc32" "lz4 -l -q -c"; do
        name=${c%% *}
        command -v "$name" > /dev/null || { missing "dracut initrd recompressed with $name" "$name"; continue; }
        { head -c "$off" "$ART/initrd-dracut.img"; tail -c +$((off + 1)) "$ART/initrd-dracut.img" | zstd -dq | $c; } > "dracut.$name.img"
        case $name in gzip) f=zlib ;; *) f=$name ;; esac
        if with_feature "$f" "dracut initrd recompressed with $name"; then
                verify --json "dracut.$name.img"
                findings > "got.$name"
                [ "$STATUS" = 0 ] && cmp -s want.dracut "got.$name" && pass "dracut initrd recompressed with $name: the same findings" ||
                        fail "dracut initrd recompressed with $name: the same findings" "status $STATUS: $(cat err; diff want.dracut "got.$name" | head)"
        fi
        rm -f "dracut.$name.img"
done
# Several artefacts, one unreadable: the others still in one JSON array, exit 2.
verify --json "$T/no-such-artefact" "$ART/initrd-dracut.img"
[ "$STATUS" = 2 ] && [ "$(python3 -c 'import json; print(len(json.load(open("out"))))')" = 1 ] && grep -q "no-such-artefact" err &&
        pass "an unreadable artefact among others: exit 2, the others' JSON" ||
        fail "an unreadable artefact among others: exit 2, the others' JSON" "status $STATUS: $(cat err)"
# --priority and --feature as --closure takes them.
verify --json --priority suggested "$ART/initrd-dracut.img"
findings > got.s
python3 -c '
import sys
for line in open(sys.argv[1]):
    w = line.split()
    if w and w[0] == "missing-dlopen":
        for p in w[5:]:
            print("\t".join(["/" + p, "dlopen", w[2], w[1]]))
' "$ART/initrd-dracut.img.ORACLE.txt" | LC_ALL=C sort > want.s
cmp -s want.s got.s && pass "dracut initrd: --priority suggested, the oracle's findings" ||
        fail "dracut initrd: --priority suggested, the oracle's findings" "$(diff want.s got.s | head -n 20)"
verify --json --feature pam "$ART/initrd-dracut.img"
[ "$STATUS" = 0 ] && [ "$(findings | cut -f 1-3 | tr '\n' ' ')" = "$(printf '/usr/lib/systemd/systemd-executor\tdlopen\tlibpam.so.0 /usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-262.so\tdlopen\tlibpam.so.0 ')" ] &&
        pass "dracut initrd: --feature pam alone" || fail "dracut initrd: --feature pam alone" "$(findings)"

# One library taken out of an initrd: a DT_NEEDED name of one object
# only, that no dlopen note names, the library no finding of its own
# (initramfs-tools' has none such: each is dlopen()ed by udevadm too).
picked=0
for n in dracut initramfs-tools; do
img=$ART/initrd-$n.img
rm -rf root out-lib
unpack "$img" root
pick=$(python3 - "$img.ORACLE.txt" root << 'PYEOF'
import os, sys
users, path, findings, dlopened = {}, None, set(), set()
for line in open(sys.argv[1]):
    w = line.split()
    if not w:
        continue
    if w[0] == "elf":
        path = w[1]
    elif w[0] == "needed" and line.startswith("  "):
        users.setdefault(w[1], set()).add(path)
    elif w[0] == "missing-dlopen":
        findings.update(w[5:])
    elif w[0] == "dlopen" and line.startswith("  "):
        # a soname some dlopen note names: its absence would be a finding too
        dlopened.update(w[3].split(","))
# a program's own DT_NEEDED first: the loader's trace of it names it
for so in sorted(users, key=lambda so: ("bin/" not in next(iter(users[so])), so)):
    if len(users[so]) != 1 or so in dlopened:
        continue
    for d in ("usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu"):
        f = os.path.join(sys.argv[2], d, so)
        if os.path.lexists(f):
            real = os.path.relpath(os.path.realpath(f), os.path.realpath(sys.argv[2]))
            if real not in findings and not any(real == u for u in users[so]):
                print(so, next(iter(users[so])), os.path.join(d, so), real)
                sys.exit(0)
PYEOF
)
if [ -z "$pick" ]; then
        echo "# $n initrd: no library is needed by one object only and dlopen()ed by none"
else
        picked=$((picked + 1))
        set -- $pick
        so=$1 user=$2 link=$3 real=$4
        echo "# taking out $so ($real), needed by /$user alone"
        mkdir out-lib
        cp -a "root/$real" out-lib/
        rm -f "root/$link" "root/$real"
        repack "$img" root less.img
        verify --json less.img
        findings > got.less
        { cat want.$n; printf '/%s\tneeded\t%s\trequired\n' "$user" "$so"; } | LC_ALL=C sort > want.less
        [ "$STATUS" = 1 ] && cmp -s want.less got.less && pass "$n initrd without $so: exactly one finding more, exit 1" ||
                fail "$n initrd without $so: exactly one finding more, exit 1" "status $STATUS: $(diff want.less got.less | head -n 20)"
        # glibc's loader in the unpacked copy: the same names not found.
        ldtrace root
        cut -f 2 ldtrace.out | LC_ALL=C sort -u > ld.names
        needed_sonames > pk.names
        [ -s ld.names ] && cmp -s ld.names pk.names && [ ! -s ldtrace.err ] &&
                grep -qx "/$user	$so" ldtrace.out &&
                pass "$n initrd without $so: the loader (LD_TRACE_LOADED_OBJECTS) misses the same names" ||
                fail "$n initrd without $so: the loader (LD_TRACE_LOADED_OBJECTS) misses the same names" \
                        "loader: $(tr '\n' ' ' < ld.names); pkgnote: $(tr '\n' ' ' < pk.names); $(head -n 5 ldtrace.err)"
        cp -a "out-lib/$(basename "$real")" "root/$real"
        [ "$link" = "$real" ] || ln -s "$(basename "$real")" "root/$link"
        repack "$img" root back.img
        verify --json back.img
        findings > got.back
        [ "$STATUS" = 0 ] && cmp -s want.$n got.back && pass "$n initrd with $so put back: no finding more, exit 0" ||
                fail "$n initrd with $so put back: no finding more, exit 0" "status $STATUS: $(diff want.$n got.back | head -n 20)"
fi
done
[ "$picked" -gt 0 ] && pass "a library taken out of an initrd, of one at least" || fail "a library taken out of an initrd, of one at least" "no initrd has a library needed by one object only"

# Both real initrds unpacked: every program's DT_NEEDED found by the
# loader, as pkgnote says.
for n in dracut initramfs-tools; do
        rm -rf "u.$n"
        unpack "$ART/initrd-$n.img" "u.$n"
        ldtrace "u.$n"
        verify --json "$ART/initrd-$n.img"
        needed_sonames > pk.names
        cut -f 2 ldtrace.out | LC_ALL=C sort -u > ld.names
        runs=$(find "u.$n" -type f -perm -u+x | wc -l)
        [ ! -s ld.names ] && [ ! -s pk.names ] && [ ! -s ldtrace.err ] &&
                pass "$n initrd: the loader finds every DT_NEEDED, as pkgnote says" ||
                fail "$n initrd: the loader finds every DT_NEEDED, as pkgnote says" \
                        "loader: $(tr '\n' ' ' < ld.names); pkgnote: $(tr '\n' ' ' < pk.names); $(head -n 5 ldtrace.err)"
        rm -rf "u.$n"
done

echo "1..$((PASSED + FAILED))"
[ "$FAILED" = 0 ]
