#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The loader's search (lib/07-check-resolve.c), shared by deps --closure and
# scan's dependency edges: bounded against hostile DT_RPATH x missing
# names by counting the system calls (strace -c), never by timing; and
# the same provider named by both commands in roots of several ABIs.
. "$SRCDIR/tests/lib.sh"
require cc readelf strace timeout python3
PK=$PKGNOTE

# traced FILE CMD...: CMD under strace -f -c (summary into FILE) and a
# hang guard; LeakSanitizer cannot run under ptrace, so a sanitizer
# build's leak check is left to the untraced runs.
traced() {
        _f=$1
        shift
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 120 strace -f -c -o "$_f" "$@"
}
# syscalls FILE: the total of strace -c's summary in FILE.
syscalls() {
        awk '$NF == "total" { print $4; found = 1 } END { if (!found) print 0 }' "$1"
}

# hostile NAMES ENTRIES EXISTING OUT: a program OUT needing NAMES
# libraries that the root lacks, with a DT_RPATH of ENTRIES directories,
# EXISTING of them present in the root (root/); each library a copy of
# one stub without a soname, linked by file name (-l:).
hostile() {
        mkdir -p stubs root
        [ -f stubs/stub.so ] || printf 'int stub(void) { return 0; }\n' > stub.c &&
                cc -shared -o stubs/stub.so stub.c || return 1
        : > needed.rsp
        i=0
        while [ $i -lt "$1" ]; do
                [ -f "stubs/libmiss$i.so" ] || cp stubs/stub.so "stubs/libmiss$i.so"
                echo "-l:libmiss$i.so" >> needed.rsp
                i=$((i + 1))
        done
        python3 -c '
import sys
n, e = int(sys.argv[1]), int(sys.argv[2])
dirs = ["/rp/d%d" % i for i in range(n)]
print("-Wl,--disable-new-dtags,-rpath," + ":".join(dirs))
' "$2" "$3" > rpath.rsp
        i=0
        while [ $i -lt "$3" ]; do mkdir -p "root/rp/d$i"; i=$((i + 1)); done
        printf 'int main(void) { return 0; }\n' > main.c
        cc -o "$4" main.c -Lstubs -Wl,--no-as-needed @needed.rsp @rpath.rsp
}

# ------------------------------------------------------------ item 2
# 1,000 missing names (the most DT_NEEDED entries read) x 1,000 DT_RPATH
# entries (100 of them present):
# each directory is looked at once and listed once, so the work is a few
# system calls per directory, not per name and directory (before: four
# walks per name and entry, about 4 million, 83 s).
if hostile 1000 1000 100 root/prog; then
        readelf -d root/prog | grep -q 'Library rpath: \[/rp/d0:/rp/d1:' &&
                [ "$(readelf -d root/prog | grep -c NEEDED)" -ge 1000 ] || fail "hostile program built" "$(readelf -d root/prog | head)"
        traced st.txt "$PK" deps --closure --root root /prog > out 2> err
        rc=$?
        n=$(syscalls st.txt)
        miss=$(grep -c 'not found' err)
        # 1,000 directories and a dozen system ones: a few calls each at most.
        [ $rc -eq 1 ] && [ "$miss" -ge 1000 ] && [ "$n" -gt 0 ] && [ "$n" -le 6000 ] &&
                pass "deps --closure: 1,000 missing names x 1,000 RPATH entries cost $n system calls" ||
                fail "deps --closure: 1,000 missing names x 1,000 RPATH entries bounded" "status $rc, $miss missing, $n system calls; $(tail -3 err)"
else
        fail "hostile program built"
fi

# A program with 20,000 DT_RPATH entries and a few missing names: at most
# one look at each distinct directory (those below a directory listed
# without them need none), not one per name and entry.
if hostile 4 20000 0 root/prog2; then
        traced st2.txt "$PK" deps --closure --root root /prog2 > out 2> err
        rc=$?
        n=$(syscalls st2.txt)
        [ $rc -eq 1 ] && [ "$n" -gt 0 ] && [ "$n" -le 25000 ] &&
                pass "deps --closure: 20,000 RPATH entries cost $n system calls" ||
                fail "deps --closure: 20,000 RPATH entries bounded" "status $rc, $n system calls; $(tail -3 err)"
else
        fail "hostile program with 20,000 entries built"
fi

# The same entries many times over, and under other spellings ("/rp/d1/",
# "/rp//d1", $ORIGIN/rp/d1 with the program at the top): one look each.
python3 -c '
dirs = []
for k in range(500):
    dirs += ["/rp/d1", "/rp/d1/", "/rp//d1", "$ORIGIN/rp/d1", "/rp/../rp/d1"]
print("-Wl,--disable-new-dtags,-rpath," + ":".join(dirs))
' > rpath.rsp
if cc -o root/prog3 main.c -Lstubs -Wl,--no-as-needed -l:libmiss1.so -l:libmiss2.so @rpath.rsp; then
        traced st3.txt "$PK" deps --closure --root root /prog3 > out 2> err
        rc=$?
        n=$(syscalls st3.txt)
        [ $rc -eq 1 ] && [ "$n" -gt 0 ] && [ "$n" -le 3000 ] &&
                pass "deps --closure: 2,500 RPATH entries naming one directory cost $n system calls" ||
                fail "deps --closure: RPATH entries naming one directory looked at once" "status $rc, $n system calls"
else
        fail "program with repeated RPATH entries built"
fi

# ld.so.conf naming its include directory 50 times: the directory is
# opened and listed once (before: once per include line).
mkdir -p confroot/etc/ld.so.conf.d
i=0
while [ $i -lt 50 ]; do echo 'include /etc/ld.so.conf.d/*.conf'; i=$((i + 1)); done > confroot/etc/ld.so.conf
echo /opt/lib > confroot/etc/ld.so.conf.d/one.conf
cp root/prog3 confroot/prog
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 120 strace -f -e trace=open,openat,openat2 -o st5.txt \
        "$PK" deps --closure --root confroot /prog > out 2> err
n=$(grep -c 'ld\.so\.conf\.d"' st5.txt)
[ "$n" -eq 1 ] && pass "deps --closure: an include directory named 50 times is opened once" ||
        fail "deps --closure: an include directory named 50 times is opened once" "opened $n times; $(head -3 err)"

# scan resolves the same names by the same rules (each program's own
# DT_RPATH): the three hostile programs together, bounded the same way.
traced st4.txt "$PK" scan --format cyclonedx --no-progress root > sbom.json 2> err
rc=$?
n=$(syscalls st4.txt)
[ $rc -eq 0 ] && [ "$n" -gt 0 ] && [ "$n" -le 60000 ] &&
        pass "scan: the hostile programs' names resolved in $n system calls" ||
        fail "scan: the hostile programs' names resolved, bounded" "status $rc, $n system calls; $(tail -3 err)"

# Regression: deep DT_RPATH entries.  A program of 300 entries
# /aN/b/b/.../b, 2,000 components each (1.2 MB of RPATH), in a root that
# holds /a0/b/b and no other /aN: the walk down each entry stops at its
# first component that is not there, and records nothing below it
# (before: every ancestor of every entry was kept with its whole path,
# 2.4 GB and 18 s).  Peak memory under a generous bound (/usr/bin/time
# %M, sanitizer builds included), system calls counted.
if [ -x /usr/bin/time ]; then
        mkdir -p deeproot/a0/b/b
        python3 -c '
b = "/b" * 1999
print("-Wl,--disable-new-dtags,-rpath," + ":".join("/a%d%s" % (i, b) for i in range(300)))' > deep.rsp
        if cc -o deeproot/prog main.c -Lstubs -Wl,--no-as-needed -l:libmiss1.so @deep.rsp &&
                [ "$(stat -c %s deeproot/prog)" -gt 1000000 ]; then
                for cmd in "deps --closure --root deeproot /prog" "scan --format cyclonedx --no-progress deeproot"; do
                        # shellcheck disable=SC2086
                        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 120 /usr/bin/time -f %M -o rss.txt \
                                "$PK" $cmd > out 2> err
                        rc=$?
                        kb=$(tail -1 rss.txt)
                        # shellcheck disable=SC2086
                        traced st6.txt "$PK" $cmd > /dev/null 2>&1
                        n=$(syscalls st6.txt)
                        [ "$rc" -le 1 ] && [ "$kb" -gt 0 ] && [ "$kb" -lt 200000 ] && [ "$n" -gt 0 ] && [ "$n" -le 3000 ] &&
                                pass "${cmd%% -*}: 300 RPATH entries 2,000 components deep in $kb KB and $n system calls" ||
                                fail "${cmd%% -*}: 300 RPATH entries 2,000 components deep, bounded" "status $rc, $kb KB, $n system calls; $(tail -3 err)"
                done
        else
                fail "a program with 1.2 MB of DT_RPATH built"
        fi
else
        missing /usr/bin/time "deep DT_RPATH entries in bounded memory"
fi

# ------------------------------------------------------------ item 10
# scan's SBOM edges and deps --closure name the same provider: roots of
# several ABIs (built with the cross compilers; ppc64 and ARM objects are
# made from s390x, aarch64 and i686 ones by rewriting e_machine and
# e_flags, which is all the loader's choice looks at), and one root per
# rule where scan used to differ.  Every root also holds a decoy: a
# library answering to the same soname, of the same ABI, where the loader
# does not look (scan used to link the program to it too).
printf 'int f(void) { return 1; }\n' > l.c
printf 'int f(void);\nint main(void) { return f(); }\n' > m.c
meta() { printf '%s' "--package-metadata={\"type\":\"deb\",\"name\":\"$1\",\"version\":\"1.0\"}"; }
# mklib CC OUT PKG: libfoo.so.1 of package PKG.
mklib() {
        mkdir -p "$(dirname "$2")"
        $1 -shared -fPIC -o "$2" l.c -Wl,-soname,libfoo.so.1 -Xlinker "$(meta "$3")"
}
# mkprog CC OUT LIB [FLAGS...]: a program of package "prog" needing LIB.
mkprog() {
        _cc=$1 _out=$2 _lib=$3
        shift 3
        mkdir -p "$(dirname "$_out")"
        $_cc -o "$_out" m.c "$_lib" -Xlinker "$(meta prog)" "$@"
}
# patch FILE MACHINE [EFLAGS]: e_machine (and e_flags, 32-bit objects)
# rewritten in the object's own byte order.
patch() {
        python3 - "$@" << 'PY'
import struct, sys
path, machine = sys.argv[1], int(sys.argv[2])
b = bytearray(open(path, "rb").read())
e = "<" if b[5] == 1 else ">"
struct.pack_into(e + "H", b, 18, machine)
if len(sys.argv) > 3:
    struct.pack_into(e + "I", b, 36 if b[4] == 1 else 48, int(sys.argv[3], 0))
open(path, "wb").write(b)
PY
}
# scan_deps ROOT: the packages "prog" depends on in scan's CycloneDX SBOM
# of ROOT (a directory or an archive), sorted, space-separated.
scan_deps() {
        "$PK" scan --format cyclonedx "$1" > sbom.json 2> scan.err
        python3 - sbom.json << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = {}
def walk(cs):
    for c in cs:
        names[c["bom-ref"]] = c["name"]
        walk(c.get("components", []))
walk(d.get("components", []))
out = set()
for dep in d.get("dependencies", []):
    if names.get(dep["ref"]) == "prog":
        out |= {names[x] for x in dep.get("dependsOn", [])}
print(" ".join(sorted(out)))
PY
}
# agree NAME ROOT PROG PKG FILE: scan's provider of libfoo.so.1 for PROG
# (in ROOT as a tree and as a tar archive) is package PKG, and the
# closure of PROG lists FILE and no other libfoo.so.1.
agree() {
        _name=$1 _root=$2 _prog=$3 _pkg=$4 _file=$5
        tree=$(scan_deps "$_root")
        # A build without libarchive reads no tar archive: the tree alone
        # (the archive half is said to be left out, or failed under make
        # check unless the feature is off on purpose).
        if has_feature archive; then
                tar -C "$_root" -cf "$_root.tar" .
                arch=$(scan_deps "$_root.tar")
        else
                with_feature archive "$_name: as a tar archive"
                arch=$_pkg
        fi
        timeout 60 "$PK" deps --closure --root "$_root" "$_prog" > out 2> err
        cl=$(grep 'libfoo\.so\.1$' out | while read -r p; do [ -L "$_root$p" ] || echo "$p"; done | tr '\n' ' ')
        [ "$tree" = "$_pkg" ] && [ "$arch" = "$_pkg" ] && [ "$cl" = "$_file " ] &&
                pass "$_name" || fail "$_name" "scan: '$tree', archive: '$arch', closure: '$cl' (want $_pkg, $_file); $(head -3 err)"
}

cross() {
        # cross ARCH-TRIPLET DIR-TRIPLET: a root of that ABI.
        _cc=$1-gcc _t=$2 R=root-$2
        mklib "$_cc" "$R/usr/lib/$_t/libfoo.so.1" "foo-$_t" &&
                mklib "$_cc" "$R/opt/decoy/libfoo.so.1" foo-decoy &&
                mkprog "$_cc" "$R/usr/bin/prog" "$R/usr/lib/$_t/libfoo.so.1"
}
for t in aarch64-linux-gnu:aarch64-linux-gnu s390x-linux-gnu:s390x-linux-gnu i686-linux-gnu:i386-linux-gnu x86_64-linux-gnu:x86_64-linux-gnu; do
        c=${t%%:*} d=${t#*:}
        if [ "$c" = x86_64-linux-gnu ] && ! command -v "$c-gcc" > /dev/null; then c=x86_64-linux-gnu; fi
        if ! command -v "$c-gcc" > /dev/null; then
                missing "$c-gcc" "scan and --closure agree in a $d root"
                continue
        fi
        cross "$c" "$d" || { fail "a $d root built"; continue; }
        agree "scan and --closure agree in a $d root" "root-$d" /usr/bin/prog "foo-$d" "/usr/lib/$d/libfoo.so.1"
done

# ppc64: big- and little-endian libraries side by side, each program
# takes its own byte order's (made from s390x and aarch64 objects).
if command -v s390x-linux-gnu-gcc > /dev/null && command -v aarch64-linux-gnu-gcc > /dev/null; then
        R=root-ppc
        mklib s390x-linux-gnu-gcc $R/usr/lib/powerpc64-linux-gnu/libfoo.so.1 foo-ppc64 &&
                mklib aarch64-linux-gnu-gcc $R/usr/lib/powerpc64le-linux-gnu/libfoo.so.1 foo-ppc64el &&
                mkprog s390x-linux-gnu-gcc $R/usr/bin/prog $R/usr/lib/powerpc64-linux-gnu/libfoo.so.1 &&
                mkprog aarch64-linux-gnu-gcc root-ppcle/usr/bin/prog $R/usr/lib/powerpc64le-linux-gnu/libfoo.so.1 &&
                patch $R/usr/lib/powerpc64-linux-gnu/libfoo.so.1 21 && patch $R/usr/lib/powerpc64le-linux-gnu/libfoo.so.1 21 &&
                patch $R/usr/bin/prog 21 && patch root-ppcle/usr/bin/prog 21 && cp -a $R/usr/lib root-ppcle/usr/ ||
                fail "a ppc64 root built"
        agree "scan: big-endian ppc64 object not resolved to a ppc64le library" $R /usr/bin/prog foo-ppc64 \
                /usr/lib/powerpc64-linux-gnu/libfoo.so.1
        R=root-ppcle
        agree "scan: ppc64le object resolved to the ppc64le library" $R /usr/bin/prog foo-ppc64el \
                /usr/lib/powerpc64le-linux-gnu/libfoo.so.1
else
        missing "s390x-linux-gnu-gcc aarch64-linux-gnu-gcc" "ppc64 byte orders"
fi

# ARM: armel and armhf told apart by e_flags (EABI 5, float ABI soft or
# hard; made from i686 objects), as glibc's VALID_FLOAT_ABI tells them.
if command -v i686-linux-gnu-gcc > /dev/null; then
        R=root-arm
        mklib i686-linux-gnu-gcc $R/usr/lib/arm-linux-gnueabi/libfoo.so.1 foo-armel &&
                mklib i686-linux-gnu-gcc $R/usr/lib/arm-linux-gnueabihf/libfoo.so.1 foo-armhf &&
                mklib i686-linux-gnu-gcc $R/usr/lib/libfoo.so.1 foo-hf-in-lib &&
                mkprog i686-linux-gnu-gcc $R/usr/bin/prog $R/usr/lib/arm-linux-gnueabi/libfoo.so.1 &&
                patch $R/usr/lib/arm-linux-gnueabi/libfoo.so.1 40 0x05000200 &&
                patch $R/usr/lib/arm-linux-gnueabihf/libfoo.so.1 40 0x05000400 &&
                patch $R/usr/lib/libfoo.so.1 40 0x05000400 &&
                patch $R/usr/bin/prog 40 0x05000200 || fail "an ARM root built"
        agree "scan: armel object not resolved to an armhf library" $R /usr/bin/prog foo-armel \
                /usr/lib/arm-linux-gnueabi/libfoo.so.1
        # Without the armel one, the hard-float ones are passed over.
        rm $R/usr/lib/arm-linux-gnueabi/libfoo.so.1
        "$PK" deps --closure --root $R /usr/bin/prog > out 2> err
        [ "$(scan_deps $R)" = "" ] && ! grep -q libfoo out && grep -q 'libfoo.so.1' err &&
                pass "scan and --closure: no hard-float library for a soft-float program" ||
                fail "scan and --closure: no hard-float library for a soft-float program" "$(scan_deps $R); $(cat out)"
else
        missing i686-linux-gnu-gcc "armel and armhf"
fi

# The rules, one root each, on this machine's ABI.
if cc -dumpmachine | grep -q '^x86_64'; then
        T=x86_64-linux-gnu
        R=root-conf
        mklib cc $R/opt/foo/lib/libfoo.so.1 foo-conf && mklib cc $R/srv/decoy/libfoo.so.1 foo-decoy &&
                mkprog cc $R/usr/bin/prog $R/opt/foo/lib/libfoo.so.1 || fail "an ld.so.conf root built"
        mkdir -p $R/etc/ld.so.conf.d
        printf 'include /etc/ld.so.conf.d/*.conf\n' > $R/etc/ld.so.conf
        printf '# foo\n/opt/foo/lib\n' > $R/etc/ld.so.conf.d/foo.conf
        agree "scan follows the root's ld.so.conf" $R /usr/bin/prog foo-conf /opt/foo/lib/libfoo.so.1

        R=root-hwcaps
        mklib cc $R/usr/lib/$T/glibc-hwcaps/x86-64-v3/libfoo.so.1 foo-v3 && mklib cc $R/srv/decoy/libfoo.so.1 foo-decoy &&
                mkprog cc $R/usr/bin/prog $R/srv/decoy/libfoo.so.1 || fail "a glibc-hwcaps root built"
        agree "scan honours glibc-hwcaps like --closure" $R /usr/bin/prog foo-v3 \
                /usr/lib/$T/glibc-hwcaps/x86-64-v3/libfoo.so.1

        R=root-rpath
        mklib cc $R/opt/app/lib/libfoo.so.1 foo-app && mklib cc $R/usr/lib/$T/libfoo.so.1 foo-system &&
                mkprog cc $R/opt/app/bin/prog $R/opt/app/lib/libfoo.so.1 '-Wl,-rpath,$ORIGIN/../lib' ||
                fail "an RPATH root built"
        agree "scan follows the program's RPATH with \$ORIGIN like --closure" $R /opt/app/bin/prog foo-app \
                /opt/app/lib/libfoo.so.1

        # Merged /usr: /lib a link to usr/lib, the library found through it.
        R=root-merged
        mklib cc $R/usr/lib/$T/libfoo.so.1 foo-merged && mklib cc $R/srv/decoy/libfoo.so.1 foo-decoy &&
                mkprog cc $R/usr/bin/prog $R/usr/lib/$T/libfoo.so.1 && ln -s usr/lib $R/lib || fail "a merged-/usr root built"
        agree "scan and --closure agree through merged-/usr links" $R /usr/bin/prog foo-merged /usr/lib/$T/libfoo.so.1

        # dlopen notes: two programs of one root ask for libbar.so.1, one
        # with a DT_RPATH of its own; each gets its own provider, in scan's
        # SBOM as in its closure (the provider is not shared per root).
        R=root-dlopen
        printf '%s\n' '        .section .note.dlopen,"a"' '        .balign 4' '        .long 4' '        .long 2f - 1f' \
                '        .long 0x407c0c0a' '        .asciz "FDO"' \
                '1:      .asciz "[{\"feature\":\"bar\",\"priority\":\"required\",\"soname\":[\"libbar.so.1\"]}]"' \
                '2:      .balign 4' '        .section .note.GNU-stack,"",@progbits' > dlopen.s
        mkdir -p $R/opt/a/bin $R/opt/a/lib $R/usr/lib/$T $R/usr/bin
        cc -shared -fPIC -o $R/opt/a/lib/libbar.so.1 l.c -Wl,-soname,libbar.so.1 -Xlinker "$(meta bar-rpath)" &&
                cc -shared -fPIC -o $R/usr/lib/$T/libbar.so.1 l.c -Wl,-soname,libbar.so.1 -Xlinker "$(meta bar-system)" &&
                cc -o $R/usr/bin/b m.c dlopen.s $R/opt/a/lib/libbar.so.1 -Wl,--as-needed -Xlinker "$(meta prog-b)" &&
                cc -o $R/opt/a/bin/a m.c dlopen.s $R/opt/a/lib/libbar.so.1 -Wl,--as-needed '-Wl,-rpath,$ORIGIN/../lib' \
                        -Xlinker "$(meta prog-a)" || fail "a dlopen root built"
        "$PK" scan --format cyclonedx $R > sbom.json 2> scan.err
        got=$(python3 - sbom.json << 'PY'
import json, sys
d = json.load(open(sys.argv[1]))
names = {c["bom-ref"]: c["name"] for c in d.get("components", [])}
print(" ".join(sorted("%s>%s" % (names[x["ref"]], names[y]) for x in d.get("dependencies", []) for y in x.get("dependsOn", []))))
PY
)
        "$PK" deps --closure --all-features --root $R /opt/a/bin/a > out.a 2> /dev/null
        "$PK" deps --closure --all-features --root $R /usr/bin/b > out.b 2> /dev/null
        [ "$got" = "prog-a>bar-rpath prog-b>bar-system" ] && grep -qx /opt/a/lib/libbar.so.1 out.a &&
                ! grep -q /usr/lib/$T/libbar out.a && grep -qx /usr/lib/$T/libbar.so.1 out.b && ! grep -q /opt/a out.b &&
                pass "scan: each program's dlopen provider found by its own search, as its closure" ||
                fail "scan: each program's dlopen provider found by its own search, as its closure" "sbom: $got; a: $(cat out.a); b: $(cat out.b)"
else
        skip "the rules' roots" "not an x86_64 machine"
fi

finish
