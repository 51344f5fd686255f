#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pkgnote deps --closure: what the dynamic loader maps, checked against the
# loader itself (ldd on this machine's programs; LD_TRACE_LOADED_OBJECTS=1
# in roots under bubblewrap), dlopen'ed libraries chosen by feature and
# priority from systemd's real notes (a Debian root made by mmdebstrap,
# dist/make-test-root.sh), closures copied into empty roots and run
# there, 32- and 64-bit libraries side by side, $ORIGIN, loops of every
# kind; and lint's undeclared-dlopen check.
. "$SRCDIR/tests/lib.sh"
require cc readelf ldd bwrap python3 tar timeout
PK=$PKGNOTE
TROOT=${PKGNOTE_TEST_ROOT:-/var/cache/pkgnote/roots/trixie}

# closure ARGS...: pkgnote deps --closure under a time limit (a loop must
# end), output in out, stderr in err, status in STATUS.
closure() {
        timeout 60 "$PK" deps --closure "$@" > out 2> err
        STATUS=$?
}
# regular ROOT: the regular files of the list in out, resolved, sorted.
regular() {
        while read -r p; do [ -L "$1$p" ] || printf '%s\n' "$p"; done < out | sort -u
}
# resolve ROOT: each path on standard input (absolute, as inside ROOT)
# with its symbolic links resolved as a chroot into ROOT would.
resolve() {
        python3 -c '
import os, sys
root = sys.argv[1]
def walk(path, depth=0):
    done = []
    todo = [c for c in path.split("/") if c]
    while todo:
        c = todo.pop(0)
        if c == "..":
            done = done[:-1]
            continue
        if c == ".":
            continue
        full = os.path.join(root, *done, c)
        if os.path.islink(full):
            t = os.readlink(full)
            if t.startswith("/"):
                done = []
            todo = [x for x in t.split("/") if x] + todo
        else:
            done.append(c)
    return "/" + "/".join(done)
for line in sys.stdin:
    print(walk(line.strip()))
' "$1"
}
# run_in ROOT CMD...: CMD inside ROOT, nothing else visible.
bwrap_isolate
run_in() {
        _r=$1
        shift
        # shellcheck disable=SC2086
        bwrap --bind "$_r" / $BWRAP_ISOLATE --dev /dev "$@"
}

# ---------------------------------------------------------------- host
# Every dynamic program of a sample of /usr/bin: the closure's regular
# files are what ldd says the loader maps (resolved), and the program.
n=0
bad=
for p in $(ls /usr/bin | sort | awk 'NR % 7 == 1' | head -80) ssh bash; do
        f=/usr/bin/$p
        [ -f "$f" ] && [ ! -L "$f" ] && readelf -l "$f" 2>/dev/null | grep -q 'INTERP' || continue
        ldd "$f" > ldd.out 2>/dev/null || continue
        grep -q 'not found' ldd.out && continue
        { echo "$f"; sed -n 's/.*=> \(\/[^ ]*\) (0x.*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p' ldd.out; } |
                xargs realpath | sort -u > want
        closure "$f"
        regular / > got
        n=$((n + 1))
        cmp -s want got || bad="$bad $p"
done
[ "$n" -ge 10 ] && [ -z "$bad" ] && pass "host: the closure of $n programs of /usr/bin is what ldd maps" ||
        fail "host: the closure of $n programs of /usr/bin is what ldd maps" "differ:$bad"

# Symbolic links the loader follows are listed, with the file they lead to.
closure /usr/bin/bash
lib=$(ldd /usr/bin/bash | sed -n 's/.*libc.so.6 => \(\/[^ ]*\) .*/\1/p')
interp=$(readelf -l /usr/bin/bash | sed -n 's/.*interpreter: \(.*\)]/\1/p')
links_ok=1
# Each link on the way to the interpreter, and its target.
p=
for c in $(echo "$interp" | tr / ' '); do
        p=$p/$c
        if [ -L "$p" ]; then grep -qx "$p" out || links_ok=0; p=$(realpath "$p"); fi
done
[ "$links_ok" = 1 ] && grep -qx "$(realpath "$lib")" out && grep -qx "$(realpath "$interp")" out &&
        pass "host: the interpreter by its PT_INTERP path and libc resolved are listed" ||
        fail "host: the interpreter by its PT_INTERP path and libc resolved are listed" "$(cat out)"

# Package names: those dpkg -S gives for the closure's files.
# curl is among the test dependencies; ssh is not on every machine.
pkgprog=/usr/bin/curl
[ -x "$pkgprog" ] || pkgprog=/usr/bin/ssh
if command -v dpkg-query > /dev/null; then
        closure "$pkgprog"
        # The regular files, as dpkg lists them (before or after /usr
        # was merged).
        regular / | while read -r f; do
                dpkg-query -S "$f" 2>/dev/null || dpkg-query -S "${f#/usr}" 2>/dev/null
        done | sed 's/:.*//' | sort -u > want
        closure --packages "$pkgprog"
        sort -u out > got
        grep -q . got && cmp -s want got && pass "host: --packages names the dpkg packages of the files" ||
                fail "host: --packages names the dpkg packages of the files" "$(diff want got)"
fi

# ------------------------------------------------------ built programs
cat > foo.c << 'EOF'
int foo(void) { return 42; }
EOF
cat > prog.c << 'EOF'
int foo(void);
int main(void) { return foo() == 42 ? 0 : 1; }
EOF
mkdir -p app/bin app/lib
cc -shared -fPIC -Wl,-soname,libfoo.so.1 -o app/lib/libfoo.so.1.0 foo.c && ln -s libfoo.so.1.0 app/lib/libfoo.so.1 &&
        cc -o app/bin/prog prog.c app/lib/libfoo.so.1 -Wl,-rpath,'$ORIGIN/../lib' || fatal "cannot build the \$ORIGIN program"
# $ORIGIN: where the loader finds it, by ldd; the link and its target.
closure "$T/app/bin/prog"
ldd app/bin/prog | grep -q "libfoo.so.1 => $T/app/bin/../lib/libfoo.so.1" &&
        grep -qx "$T/app/lib/libfoo.so.1" out && grep -qx "$T/app/lib/libfoo.so.1.0" out && [ "$STATUS" = 0 ] &&
        pass "\$ORIGIN in DT_RUNPATH: the link the loader opens and its target" ||
        fail "\$ORIGIN in DT_RUNPATH: the link the loader opens and its target" "$(cat out err)"

# Missing: the same program in a root without libc: named, exit 1; with
# --ignore-missing exit 0 and the rest listed.
mkdir -p r1/opt && cp -a app r1/opt/
closure --root r1 /opt/app/bin/prog
[ "$STATUS" = 1 ] && grep -q "'/opt/app/bin/prog': libc.so.6: not found in the root" err && grep -qx /opt/app/lib/libfoo.so.1.0 out &&
        pass "missing: libc.so.6 named, exit 1, the rest listed" ||
        fail "missing: libc.so.6 named, exit 1, the rest listed" "status $STATUS: $(cat out err)"
closure --root r1 --ignore-missing /opt/app/bin/prog
[ "$STATUS" = 0 ] && grep -q "libc.so.6: not found in the root, ignoring" err && grep -qx /opt/app/lib/libfoo.so.1.0 out &&
        pass "--ignore-missing: exit 0" || fail "--ignore-missing: exit 0" "status $STATUS: $(cat err)"
closure --root r1 --json --ignore-missing /opt/app/bin/prog
python3 - out << 'EOF' && pass "--json: why each file is there, what is missing" || fail "--json: why each file is there, what is missing" "$(cat out)"
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["path"]: x for x in d["files"]}
assert f["/opt/app/bin/prog"]["why"] == [{"kind": "program"}], f["/opt/app/bin/prog"]
assert f["/opt/app/lib/libfoo.so.1"]["type"] == "symlink" and f["/opt/app/lib/libfoo.so.1"]["target"] == "libfoo.so.1.0"
assert f["/opt/app/lib/libfoo.so.1.0"]["why"] == [{"kind": "needed", "by": "/opt/app/bin/prog", "name": "libfoo.so.1"}]
names = sorted(m["name"] for m in d["missing"])
assert "libc.so.6" in names and any(n.startswith("/lib") for n in names), names
EOF
closure --root r1 /opt/app/bin/nothere
[ "$STATUS" = 2 ] && expect_err "'/opt/app/bin/nothere'" "a program not in the root: exit 2, named" ||
        fail "a program not in the root: exit 2" "status $STATUS"
# A program that is a link leading out of the root is looked for inside
# it (as in a chroot), where there is none.
ln -s /usr/bin/true r1/esc
closure --root r1 /esc
[ "$STATUS" = 2 ] && [ ! -s out ] && pass "a program linked out of the root: not followed, exit 2" ||
        fail "a program linked out of the root: not followed, exit 2" "status $STATUS: $(cat out err)"
closure --root r1 /opt/app/lib
[ "$STATUS" = 2 ] && grep -q "'/opt/app/lib': cannot read in the root: not a regular file" err &&
        pass "a directory as program: exit 2, said" || fail "a directory as program: exit 2, said" "status $STATUS: $(cat err)"

# Loops of DT_NEEDED: liba needs libb, libb needs liba; the loader copes,
# and so must the closure: each once, as ldd maps them.
mkdir -p loop
printf 'int b(void){return 1;}\n' > b0.c
printf 'int b(void); int a(void){return b();}\n' > a.c
printf 'int a(void); int b(void){return 1;} int c(void){return a();}\n' > b.c
printf 'int a(void); int main(void){return a() - 1;}\n' > m.c
cc -shared -fPIC -Wl,-soname,libb.so.1 -o loop/libb.so.1 b0.c &&
        cc -shared -fPIC -Wl,-soname,liba.so.1 -o loop/liba.so.1 a.c loop/libb.so.1 -Wl,-rpath,'$ORIGIN' &&
        cc -shared -fPIC -Wl,-soname,libb.so.1 -o loop/libb.so.1 b.c loop/liba.so.1 -Wl,-rpath,'$ORIGIN' &&
        cc -o loop/main m.c loop/liba.so.1 -Wl,-rpath,'$ORIGIN' || fatal "cannot build the loop"
readelf -d loop/libb.so.1 | grep -q 'liba.so.1' || fatal "libb does not need liba"
closure "$T/loop/main"
ldd loop/main | grep -q "libb.so.1 => $T/loop/libb.so.1" && [ "$STATUS" = 0 ] &&
        [ "$(grep -c "^$T/loop/lib" out)" = 2 ] && pass "a loop of DT_NEEDED: both once" ||
        fail "a loop of DT_NEEDED: both once" "status $STATUS: $(cat out err)"

# ld.so.conf: include loops (itself, two files naming each other, a glob
# matching its own file) end, with a warning; its directories are used.
mkdir -p r2/etc/ld.so.conf.d r2/opt/x r2/opt/a r2/opt/b r2/bin
printf 'int foo(void); int main(void){return foo();}\n' > x.c
printf '/opt/a\ninclude /etc/ld.so.conf\ninclude ld.so.conf.d/*.conf\n# comment\n' > r2/etc/ld.so.conf
printf 'include /etc/ld.so.conf.d/b.conf\n/opt/x = libc6\n' > r2/etc/ld.so.conf.d/a.conf
printf 'include a.conf\ninclude /etc/ld.so.conf.d/*.conf\n\t/opt/b/  \n' > r2/etc/ld.so.conf.d/b.conf
# A link that loops, before the real library; and one that leads to the
# host's libc, were it followed out of the root.
ln -s libloop.so.1 r2/opt/a/libloop.so.1
ln -s ../../../../../../../../../../usr/lib/x86_64-linux-gnu/libc.so.6 r2/opt/a/libout.so.1
cc -shared -fPIC -Wl,-soname,libx.so.1 -o r2/opt/x/libx.so.1 foo.c &&
        cc -shared -fPIC -Wl,-soname,libloop.so.1 -o r2/opt/b/libloop.so.1 foo.c &&
        cc -shared -fPIC -Wl,-soname,libout.so.1 -o libout.so foo.c &&
        cc -o r2/bin/x x.c -Wl,--no-as-needed r2/opt/x/libx.so.1 r2/opt/b/libloop.so.1 ./libout.so ||
        fatal "cannot build the ld.so.conf program"
closure --root r2 --ignore-missing /bin/x
[ "$STATUS" = 0 ] && grep -qx /opt/x/libx.so.1 out && grep -qx /opt/b/libloop.so.1 out && ! grep -q 'libout\|libc.so' out &&
        grep -q "a loop of includes" err && grep -q "too many symbolic links" err && grep -q "libout.so.1: not found" err &&
        pass "ld.so.conf include loops and symbolic link loops end; nothing followed out of the root" ||
        fail "ld.so.conf include loops and symbolic link loops end; nothing followed out of the root" "status $STATUS: $(cat out err)"

# 32- and 64-bit side by side: both programs search /opt/m32 then /opt/m64
# (DT_RUNPATH); each takes the library of its own class, as the loader
# does (LD_TRACE_LOADED_OBJECTS=1 in the root, both loaders present).
# The i386 program runs natively: only where the kernel runs 32-bit x86
# programs (can_run_i386), else each check is a skip with the reason.
i386_ok=2
if command -v i686-linux-gnu-gcc > /dev/null && [ -f /usr/i686-linux-gnu/lib/libc.so.6 ]; then
        can_run_i386
        i386_ok=$?
fi
if [ "$i386_ok" != 2 ]; then
        r=r3
        mkdir -p $r
        # The root's C libraries: this machine's closure of a program, and
        # the i386 cross libc.
        "$PK" deps --closure --relative /usr/bin/true | tar -C / -cf - -T - | tar -C $r -xf -
        mkdir -p $r/opt/m32 $r/opt/m64 $r/usr/bin $r/lib/i386-linux-gnu
        cp /usr/i686-linux-gnu/lib/libc.so.6 $r/lib/i386-linux-gnu/ && cp /usr/i686-linux-gnu/lib/ld-linux.so.2 $r/lib/
        i686-linux-gnu-gcc -shared -fPIC -Wl,-soname,libside.so.1 -o $r/opt/m32/libside.so.1 foo.c &&
                cc -shared -fPIC -Wl,-soname,libside.so.1 -o $r/opt/m64/libside.so.1 foo.c &&
                i686-linux-gnu-gcc -o $r/usr/bin/p32 prog.c $r/opt/m32/libside.so.1 -Wl,-rpath,/opt/m32:/opt/m64 &&
                cc -o $r/usr/bin/p64 prog.c $r/opt/m64/libside.so.1 -Wl,-rpath,/opt/m32:/opt/m64 || fatal "cannot build the side-by-side programs"
        for p in p32 p64; do
                if [ $p = p32 ] && [ "$i386_ok" = 1 ]; then
                        i386_skip "side by side: p32 takes the libside.so.1 of its class, as its loader does"
                        continue
                fi
                closure --root $r /usr/bin/$p
                run_in "$T/$r" --setenv LD_TRACE_LOADED_OBJECTS 1 /usr/bin/$p > trace 2>&1
                # Each path the loader opened is listed (a link or a file),
                # and there are as many files as objects it mapped.
                sed -n 's/.*=> \(\/[^ ]*\) (0x.*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p' trace | resolve $r | sort -u > want
                regular $r | grep -v "^/usr/bin/$p\$" > got
                cmp -s want got && grep -qx "/opt/m${p#p}/libside.so.1" want && [ "$STATUS" = 0 ] &&
                        pass "side by side: $p takes the libside.so.1 of its class, as its loader does" ||
                        fail "side by side: $p takes the libside.so.1 of its class, as its loader does" "$(cat want out trace err)"
        done
else
        missing "32- and 64-bit side by side" i686-linux-gnu-gcc
fi

# glibc-hwcaps: in each directory of the search the loader tries
# glibc-hwcaps/x86-64-v4, -v3, -v2 before the directory itself, taking
# the best the CPU supports.  The closure cannot know the CPU: it lists
# every variant present (its reason says which) and the library of the
# directory itself, for a CPU of the baseline.
if [ "$(uname -m)" = x86_64 ]; then
        r=hw
        mkdir -p $r/opt/l/glibc-hwcaps/x86-64-v2 $r/opt/l/glibc-hwcaps/x86-64-v3 $r/opt/o/glibc-hwcaps/x86-64-v2 $r/usr/bin
        "$PK" deps --closure --relative /usr/bin/true | tar -C / -cf - -T - | tar -C $r -xf -
        printf 'int foo(void){return 42;}\n' > hw.c
        cc -shared -fPIC -Wl,-soname,libhw.so.1 -o $r/opt/l/libhw.so.1 hw.c &&
                cc -shared -fPIC -Wl,-soname,libhw.so.1 -o $r/opt/l/glibc-hwcaps/x86-64-v2/libhw.so.1 hw.c &&
                cc -shared -fPIC -Wl,-soname,libhw.so.1 -o $r/opt/l/glibc-hwcaps/x86-64-v3/libhw.so.1 hw.c &&
                cc -o $r/usr/bin/hw prog.c $r/opt/l/libhw.so.1 -Wl,-rpath,/opt/l || fatal "cannot build the glibc-hwcaps program"
        closure --root $r --json /usr/bin/hw
        cp out hw.json
        closure --root $r /usr/bin/hw
        run_in "$T/$r" --setenv LD_TRACE_LOADED_OBJECTS 1 /usr/bin/hw > trace 2>&1
        # What this machine's loader maps is in the closure, whichever
        # level its CPU has; and so is every other variant.
        sed -n 's/.*=> \(\/[^ ]*\) (0x.*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p' trace | resolve $r | sort -u > want
        regular $r | sort > got
        [ "$STATUS" = 0 ] && grep -q libhw want && [ -z "$(comm -23 want got)" ] &&
                grep -qx /opt/l/libhw.so.1 got && grep -qx /opt/l/glibc-hwcaps/x86-64-v2/libhw.so.1 got &&
                grep -qx /opt/l/glibc-hwcaps/x86-64-v3/libhw.so.1 got && [ "$(grep -c libhw got)" = 3 ] &&
                pass "glibc-hwcaps: every variant and the baseline library listed, the loader's among them" ||
                fail "glibc-hwcaps: every variant and the baseline library listed, the loader's among them" "$(cat want trace out err)"
        python3 - hw.json << 'EOF2' && pass "glibc-hwcaps --json: the variants' reasons name their level" ||
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["path"]: x for x in d["files"]}
for lvl in ("x86-64-v2", "x86-64-v3"):
    assert f["/opt/l/glibc-hwcaps/%s/libhw.so.1" % lvl]["why"] == [{"kind": "needed", "by": "/usr/bin/hw", "name": "libhw.so.1", "hwcaps": lvl}], f
assert f["/opt/l/libhw.so.1"]["why"] == [{"kind": "needed", "by": "/usr/bin/hw", "name": "libhw.so.1"}], f
EOF2
                fail "glibc-hwcaps --json: the variants' reasons name their level" "$(cat hw.json)"
        # Only in a variant (/opt/o holds no library of its own): listed,
        # and a CPU below the level is said to find none.
        mv $r/opt/l/glibc-hwcaps/x86-64-v2/libhw.so.1 $r/opt/o/glibc-hwcaps/x86-64-v2/
        rm -r $r/opt/l
        cc -o $r/usr/bin/hwonly prog.c $r/opt/o/glibc-hwcaps/x86-64-v2/libhw.so.1 -Wl,-rpath,/opt/o || fatal "cannot build hwonly"
        closure --root $r /usr/bin/hwonly
        run_in "$T/$r" --setenv LD_TRACE_LOADED_OBJECTS 1 /usr/bin/hwonly > trace 2>&1
        grep -q "=> /opt/o/glibc-hwcaps/x86-64-v2/libhw.so.1" trace && [ "$STATUS" = 0 ] &&
                grep -qx /opt/o/glibc-hwcaps/x86-64-v2/libhw.so.1 out &&
                grep -q "libhw.so.1: only in glibc-hwcaps subdirectories (x86-64-v2)" err &&
                pass "glibc-hwcaps: a library only in a variant is listed, with a warning" ||
                fail "glibc-hwcaps: a library only in a variant is listed, with a warning" "$(cat trace out err)"
fi

# Regression: the DT_RPATH chain and DT_RPATH's tokens, against the
# loader.  chain (DT_RPATH /opt/lib) loads /opt/lib/libA.so (DT_RUNPATH
# /x), which loads /x/libB.so (no search path), which needs libC.so: libB
# has no DT_RUNPATH, so the loader goes up the chain, past libA (whose
# DT_RUNPATH leaves it no DT_RPATH) to the program's /opt/lib (before:
# the closure stopped at libA, libC.so missing).  tok's DT_RPATH
# /opt/$BAD: a '$' that starts no token stays, the directory is
# "/opt/$BAD".  empty's DT_RPATH ":/nothing": the empty entry is the
# working directory, taken as the root's top (where the loader of a
# program started in / finds the library), with a warning.
r=rp
mkdir -p $r/opt/lib $r/x $r/usr/bin "$r/opt/\$BAD"
"$PK" deps --closure --relative /usr/bin/true | tar -C / -cf - -T - | tar -C $r -xf -
printf 'int c(void){return 42;}\n' > c.c
printf 'int c(void); int b(void){return c();}\n' > b2.c
printf 'int b(void); int a(void){return b();}\n' > a2.c
printf 'int a(void); int main(void){return a() == 42 ? 0 : 1;}\n' > pa.c
printf 'int c(void); int main(void){return c() == 42 ? 0 : 1;}\n' > pc.c
cc -shared -fPIC -Wl,-soname,libC.so -o $r/opt/lib/libC.so c.c &&
        cc -shared -fPIC -Wl,-soname,libB.so -o $r/x/libB.so b2.c $r/opt/lib/libC.so &&
        cc -shared -fPIC -Wl,-soname,libA.so -o $r/opt/lib/libA.so a2.c $r/x/libB.so -Wl,--enable-new-dtags,-rpath,/x &&
        cc -o $r/usr/bin/chain pa.c $r/opt/lib/libA.so -Wl,-rpath-link,$r/x:$r/opt/lib -Wl,--disable-new-dtags,-rpath,/opt/lib &&
        cc -shared -fPIC -Wl,-soname,libtok.so -o "$r/opt/\$BAD/libtok.so" c.c &&
        cc -o $r/usr/bin/tok pc.c "$r/opt/\$BAD/libtok.so" -Wl,--disable-new-dtags,-rpath,'/opt/$BAD' &&
        cc -shared -fPIC -Wl,-soname,libempty.so -o $r/libempty.so c.c &&
        cc -o $r/usr/bin/empty pc.c $r/libempty.so -Wl,--disable-new-dtags,-rpath,':/nothing' ||
        fatal "cannot build the DT_RPATH chain programs"
readelf -d $r/opt/lib/libA.so | grep -q 'RUNPATH.*\[/x\]' && readelf -d $r/usr/bin/chain | grep -q 'RPATH.*\[/opt/lib\]' &&
        readelf -d $r/usr/bin/empty | grep -q 'RPATH.*\[:/nothing\]' || fatal "the DT_RPATH chain programs lack their search paths"
for p in chain tok; do
        closure --root $r /usr/bin/$p
        run_in "$T/$r" --chdir / --setenv LD_TRACE_LOADED_OBJECTS 1 /usr/bin/$p > trace 2>&1
        sed -n 's/.*=> \(\/[^ ]*\) (0x.*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p' trace | resolve $r | sort -u > want
        regular $r | grep -v "^/usr/bin/$p\$" > got
        [ "$STATUS" = 0 ] && cmp -s want got && grep -q 'libC\|libtok' want && run_in "$T/$r" /usr/bin/$p &&
                pass "DT_RPATH $p: the closure is what the loader maps" ||
                fail "DT_RPATH $p: the closure is what the loader maps" "$(cat trace out err)"
done
# The loader finds libempty.so in the working directory: from / it runs,
# from /usr it does not.
closure --root $r /usr/bin/empty
run_in "$T/$r" --chdir / --setenv LD_TRACE_LOADED_OBJECTS 1 /usr/bin/empty > trace 2>&1
[ "$STATUS" = 0 ] && grep -q '^[[:space:]]*libempty.so (0x' trace && run_in "$T/$r" --chdir / /usr/bin/empty &&
        ! run_in "$T/$r" --chdir /usr /usr/bin/empty 2> /dev/null && grep -qx /libempty.so out &&
        grep -q "'/usr/bin/empty': DT_RPATH or DT_RUNPATH entries relative to the working directory at run time (1, the first ''; " err &&
        pass "DT_RPATH empty entry: the working directory, taken as the root's top, with a warning" ||
        fail "DT_RPATH empty entry: the working directory, taken as the root's top, with a warning" "$(cat trace out err)"

# DF_1_NODEFLIB (-z nodefaultlib): the object's own DT_NEEDED are not
# looked for in the system directories, nor taken from an ld.so.cache
# entry in one (even when ld.so.conf names it); the other directories of
# ld.so.conf still answer.  The flag is the object's: a library it loads
# without the flag gets its own from the system directories.  Checked
# against the loader, with the cache ldconfig makes in the root.
if [ -x /sbin/ldconfig ] && file -L /sbin/ldconfig | grep -q 'static'; then
        r=ndl
        mkdir -p $r/opt/c $r/opt/conf $r/usr/bin $r/etc $r/sbin
        "$PK" deps --closure --relative /usr/bin/true | tar -C / -cf - -T - | tar -C $r -xf -
        cp /sbin/ldconfig $r/sbin/
        multi=$(cc -print-multiarch)
        libdir=/usr/lib/$multi
        cp "$r$libdir/libc.so.6" $r/opt/c/
        printf '/opt/conf\n%s\n' "$libdir" > $r/etc/ld.so.conf
        printf 'int d(void){return 42;}\n' > def.c
        printf 'int d(void); int foo(void){return d();}\n' > conf.c
        printf 'int d(void); int main(void){return d() == 42 ? 0 : 1;}\n' > pd.c
        cc -shared -fPIC -Wl,-soname,libdef.so.1 -o $r$libdir/libdef.so.1 def.c &&
                cc -shared -fPIC -Wl,-soname,libconf.so.1 -o $r/opt/conf/libconf.so.1 conf.c $r$libdir/libdef.so.1 &&
                cc -o $r/usr/bin/viaconf prog.c $r/opt/conf/libconf.so.1 -Wl,-rpath-link,$r$libdir -Wl,-z,nodefaultlib,-rpath,/opt/c -Wl,--disable-new-dtags &&
                cc -o $r/usr/bin/direct pd.c $r$libdir/libdef.so.1 -Wl,-z,nodefaultlib,-rpath,/opt/c &&
                cc -o $r/usr/bin/plain pd.c $r$libdir/libdef.so.1 || fatal "cannot build the nodefaultlib programs"
        readelf -d $r/usr/bin/direct | grep -q 'Flags:.*NODEFLIB' || fatal "-z nodefaultlib gave no DF_1_NODEFLIB"
        run_in "$T/$r" /sbin/ldconfig || fatal "ldconfig in the root failed"
        # viaconf: libconf by ld.so.conf (the cache), libc by DT_RPATH,
        # libdef by libconf (no flag) from the system directory.
        for p in viaconf plain; do
                closure --root $r /usr/bin/$p
                run_in "$T/$r" --setenv LD_TRACE_LOADED_OBJECTS 1 /usr/bin/$p > trace 2>&1
                sed -n 's/.*=> \(\/[^ ]*\) (0x.*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p' trace | resolve $r | sort -u > want
                regular $r | grep -v "^/usr/bin/$p\$" > got
                [ "$STATUS" = 0 ] && grep -q libdef want && cmp -s want got &&
                        { [ $p = plain ] || grep -qx /opt/c/libc.so.6 want; } &&
                        pass "DF_1_NODEFLIB: $p's closure is what its loader maps" ||
                        fail "DF_1_NODEFLIB: $p's closure is what its loader maps" "$(cat trace out err)"
        done
        # direct: libdef.so.1 only in the system directory (which
        # ld.so.conf names too): the loader does not find it, nor the
        # closure.
        closure --root $r /usr/bin/direct
        run_in "$T/$r" --setenv LD_TRACE_LOADED_OBJECTS 1 /usr/bin/direct > trace 2>&1
        grep -q "libdef.so.1 => not found" trace && [ "$STATUS" = 1 ] &&
                grep -q "'/usr/bin/direct': libdef.so.1: not found in the root" err && ! grep -q libdef out &&
                grep -qx /opt/c/libc.so.6 out &&
                pass "DF_1_NODEFLIB: nothing from the system directories, by search or cache, as the loader" ||
                fail "DF_1_NODEFLIB: nothing from the system directories, by search or cache, as the loader" "$(cat trace out err)"
else
        missing "DF_1_NODEFLIB against the loader" "a static /sbin/ldconfig"
fi

# A dlopen'ed library by feature: a program that dlopen()s libz.so.1 and
# says so in a dlopen note.  Only its closure copied into an empty root,
# it runs there and uses the library with --feature zlib, and fails to
# load it without.
cat > dl.c << 'EOF'
#include <dlfcn.h>
#include <stdio.h>
__attribute__((section(".note.dlopen"), used, aligned(4))) static const struct {
        unsigned namesz, descsz, type;
        char name[4];
        char desc[(sizeof(NOTE) + 3) & ~3];
} note = {4, sizeof(NOTE), 0x407c0c0a, "FDO", NOTE};
int main(void) {
        void *h = dlopen("libz.so.1", RTLD_NOW);
        const char *(*v)(void) = h ? (const char *(*)(void))dlsym(h, "zlibVersion") : NULL;
        if (!v) { puts("no zlib"); return 1; }
        printf("zlib %s\n", v());
        return 0;
}
EOF
cc -o dlprog dl.c -DNOTE='"[{\"feature\":\"zlib\",\"priority\":\"suggested\",\"soname\":[\"libz.so.0\",\"libz.so.1\"]}]"' ||
        fatal "cannot build the dlopen program"
for sel in "--feature zlib" "--all-features" "--priority suggested" ""; do
        rm -rf empty && mkdir empty
        # shellcheck disable=SC2086
        closure --relative $sel "$T/dlprog"
        tar -C / -cf - -T out | tar -C empty -xf -
        run_in "$T/empty" "$T/dlprog" > ran 2>&1
        got=$(sed 's/zlib [0-9.]*/zlib V/' ran)
        if [ -n "$sel" ]; then
                [ "$got" = "zlib V" ] && grep -q 'libz.so.1' out &&
                        pass "dlopen ${sel}: the closure alone runs the program, zlib loaded" ||
                        fail "dlopen ${sel}: the closure alone runs the program, zlib loaded" "$(cat ran out err)"
        else
                [ "$got" = "no zlib" ] && ! grep -q 'libz' out &&
                        pass "dlopen, nothing selected: no zlib in the closure, and the program finds none" ||
                        fail "dlopen, nothing selected: no zlib in the closure" "$(cat ran out)"
        fi
done
closure --priority recommended "$T/dlprog"
[ "$STATUS" = 0 ] && grep -qx "$T/dlprog" out && ! grep -q libz out && pass "--priority recommended leaves out a suggested entry" || fail "--priority recommended leaves out a suggested entry" "$(cat out)"
closure --feature nosuch "$T/dlprog"
! grep -q libz out && [ "$STATUS" = 0 ] && pass "--feature of another name selects nothing" || fail "--feature of another name selects nothing" "$(cat out)"

# Bad usage.
run deps --priority urgent --closure /bin/true
expect_err "--priority: 'urgent' is not required, recommended or suggested" "--priority: an unknown name is refused"
run deps --feature x /bin/true
expect_err "go with --closure" "--feature without --closure is refused"

# ------------------------------------------------------------- lint
# undeclared-dlopen: the dlopen program without its note is reported with
# libz.so.1 as evidence; with the note it is not; linked with -lz (libz
# in DT_NEEDED) neither.
sed '/section(".note.dlopen")/,/} note =/d' dl.c > nonote.c
cc -o nonote nonote.c && cc -o linked nonote.c -Wl,--no-as-needed -lz || fatal "cannot build the lint programs"
run lint nonote
grep -q "warning: undeclared-dlopen: .*libz.so.1" out && pass "lint: undeclared dlopen reported with its evidence" ||
        fail "lint: undeclared dlopen reported with its evidence" "$(cat out err)"
for p in dlprog linked; do
        run lint $p
        ! grep -q undeclared-dlopen out && pass "lint: no undeclared-dlopen for $p" || fail "lint: no undeclared-dlopen for $p" "$(cat out)"
done
run lint --json nonote
grep -q '"undeclared-dlopen"' out && pass "lint --json: the check's id" || fail "lint --json: the check's id" "$(cat out)"

# --------------------------------------------------- the Debian root
if [ ! -x "$TROOT/usr/lib/systemd/systemd" ]; then
        missing "a Debian root with systemd (sh dist/make-test-root.sh)" "$TROOT"
        echo "1..$((PASSED + FAILED))"
        [ "$FAILED" = 0 ]
        exit
fi
shared=$(cd "$TROOT" && ls usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-*.so | head -1)

# The loader, inside the root, maps what the closure lists.
for p in /usr/lib/systemd/systemd /usr/bin/systemctl /usr/bin/journalctl /usr/bin/bash /usr/bin/apt; do
        run_in "$TROOT" sh -c "LD_TRACE_LOADED_OBJECTS=1 $p | sed -n 's/.*=> \(\/[^ ]*\) (0x.*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (0x.*/\1/p' | xargs realpath" |
                sort -u > want
        closure --root "$TROOT" "$p"
        regular "$TROOT" | grep -v "^$p\$" > got
        [ "$STATUS" = 0 ] && grep -q . want && cmp -s want got &&
                pass "Debian root: $p's closure is what its loader maps there" ||
                fail "Debian root: $p's closure is what its loader maps there" "$(diff want got; cat err)"
done

# systemd's dlopen notes, read here apart from pkgnote: each feature's
# entries give the first soname that exists in the root, and nothing of
# other features comes in.
python3 - "$TROOT" "$shared" > features << 'EOF'
import json, os, struct, subprocess, sys, tempfile
root, lib = sys.argv[1], sys.argv[2]
with tempfile.NamedTemporaryFile() as t:
    subprocess.run(["objcopy", "-O", "binary", "--only-section=.note.dlopen", os.path.join(root, lib), t.name], check=True)
    data = open(t.name, "rb").read()
entries, off = [], 0
while off + 12 <= len(data):
    namesz, descsz, typ = struct.unpack_from("<III", data, off)
    off += 12 + (namesz + 3 & ~3)
    desc = data[off:off + descsz].rstrip(b"\0")
    off += descsz + 3 & ~3
    if typ == 0x407c0c0a:
        entries += json.loads(desc)
dirs = ["usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu"]
for e in entries:
    found = next((s for s in e["soname"] if any(os.path.exists(os.path.join(root, d, s)) for d in dirs)), "-")
    print(e["feature"], e.get("priority", "recommended"), found, "|".join(e["soname"]))
EOF
[ -s features ] || fatal "no dlopen notes read from $shared"
closure --root "$TROOT" /usr/bin/systemctl
cp out base
checked=0
allok=1
for feature in $(cut -d' ' -f1 features | sort -u); do
        closure --root "$TROOT" --ignore-missing --feature "$feature" /usr/bin/systemctl
        ok=1
        while read -r f prio found names; do
                if [ "$f" = "$feature" ]; then
                        if [ "$found" = - ]; then
                                grep -q "${names%%|*}.*(dlopen, feature $feature, $prio): not found" err || ok=0
                        else
                                grep -qx "/usr/lib/x86_64-linux-gnu/$found" out || ok=0
                        fi
                elif [ "$found" != - ] && ! grep -qx "/usr/lib/x86_64-linux-gnu/$found" base &&
                        ! grep -q "^$feature .* $found " features; then
                        grep -qx "/usr/lib/x86_64-linux-gnu/$found" out && ok=0
                fi
        done < features
        checked=$((checked + 1))
        [ "$ok" = 1 ] || { allok=0; fail "systemd feature $feature: its libraries, no others" "$(cat out err)"; }
done
[ "$checked" -ge 10 ] && [ "$allok" = 1 ] && pass "systemd: each of $checked features gives its first soname present, or names it missing" ||
        fail "systemd: features checked" "$checked"
# By priority: the recommended entries (kmod, zstd) come in, no file
# because of a suggested one (liblzma comes in, as libkmod needs it).
closure --root "$TROOT" --ignore-missing --priority recommended --json /usr/bin/systemctl
python3 - out features << 'EOF' && pass "systemd --priority recommended: recommended entries in, suggested ones out" ||
import json, sys
d = json.load(open(sys.argv[1]))
files = {f["path"]: f for f in d["files"]}
for line in open(sys.argv[2]):
    feature, prio, found, names = line.split()
    path = "/usr/lib/x86_64-linux-gnu/" + found
    if prio == "recommended" and found != "-":
        assert any(w["kind"] == "dlopen" and w["feature"] == feature for w in files[path]["why"]), path
for f in d["files"]:
    for w in f["why"]:
        assert w["kind"] != "dlopen" or w["priority"] != "suggested", f
assert "/usr/lib/x86_64-linux-gnu/libkmod.so.2" in files
EOF
        fail "systemd --priority recommended: recommended entries in, suggested ones out" "$(cat out)"

# Only systemctl's closure (with its recommended libraries) in an empty
# root: it runs there.
closure --root "$TROOT" --relative --ignore-missing --priority recommended /usr/bin/systemctl
rm -rf sroot && mkdir sroot && tar -C "$TROOT" -cf - -T out | tar -C sroot -xf -
run_in "$T/sroot" /usr/bin/systemctl --version > ran 2>&1
grep -q '^systemd [0-9]' ran && grep -q '+KMOD' ran && pass "Debian root: systemctl runs from its closure alone" ||
        fail "Debian root: systemctl runs from its closure alone" "$(cat ran)"

# Package names by the root's dpkg database, as dpkg-query answers.
closure --root "$TROOT" --packages /usr/bin/systemctl
sort -u out > got
closure --root "$TROOT" /usr/bin/systemctl
regular "$TROOT" | while read -r f; do dpkg-query --admindir="$TROOT/var/lib/dpkg" -S "$f" 2>/dev/null | sed 's/:.*//'; done | sort -u > want
grep -qx libsystemd-shared got && cmp -s want got && pass "Debian root: --packages as dpkg-query -S" || fail "Debian root: --packages as dpkg-query -S" "$(diff want got)"

# lint: systemd declares what it dlopen()s: no undeclared-dlopen there.
found=
for f in "$TROOT/$shared" "$TROOT"/usr/lib/x86_64-linux-gnu/systemd/libsystemd-core-*.so "$TROOT"/usr/lib/systemd/systemd* \
        "$TROOT"/usr/bin/systemctl "$TROOT"/usr/bin/journalctl; do
        [ -f "$f" ] && [ ! -L "$f" ] || continue
        "$PK" lint "$f" 2> /dev/null | grep -q undeclared-dlopen && found="$found $f"
done
[ -z "$found" ] && pass "lint: no undeclared-dlopen on systemd's binaries" || fail "lint: no undeclared-dlopen on systemd's binaries" "$found"

echo "1..$((PASSED + FAILED))"
[ "$FAILED" = 0 ]
