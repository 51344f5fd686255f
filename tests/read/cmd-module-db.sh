#!/bin/sh
# Packages from the package database for modules without a package note,
# in `pkgnote pid` and `pkgnote core`, checked against the package
# managers themselves: this Debian host's dpkg (dpkg -S, dpkg-query -W)
# for an ordinary program without notes, alive and in a real kernel core;
# Debian's systemd binaries, which carry notes that must still win; a
# private dpkg root made with dpkg-deb and dpkg --root (a library
# upgraded under a running process, and a note the database contradicts);
# an rpm root made with rpmbuild and rpm --root for `core --root`.  No
# test package ever enters the host's own database.
. "$SRCDIR/tests/lib.sh"

require cc python3
[ -r /var/lib/dpkg/status ] && command -v dpkg-query > /dev/null ||
        { echo "1..0 # SKIP not a dpkg host"; exit 77; }

LIBZ=/lib/x86_64-linux-gnu/libz.so.1
[ -e "$LIBZ" ] || fatal "libz is not installed"
# A program of no package, without notes, using libz and libc.
cat > nonote.c <<'C'
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
const char *zlibVersion(void);
int main(int argc, char **argv) {
        if (!zlibVersion())
                return 1;
        if (argc > 1) {
                FILE *f = fopen(argv[1], "w");
                if (f)
                        fclose(f);
        }
        pause();
        return 0;
}
C
cc -o nonote nonote.c "$LIBZ" || fatal "cannot link the program"
readelf -nW nonote | grep -q FDO && fatal "the test program has a package note"

# start DIR PROGRAM ARGS...: starts PROGRAM in DIR with cores enabled, sets PID
# once it is running.
start() {
        _d=$1
        shift
        mkdir -p "$_d"
        rm -f "$_d/ready"
        (cd "$_d" && ulimit -c unlimited 2>/dev/null; exec "$@" "$T/$_d/ready") > /dev/null 2>&1 &
        PID=$!
        for _i in $(seq 1 250); do
                [ -e "$_d/ready" ] && return 0
                sleep 0.02
        done
        fatal "$1 did not start"
}

# check_host NAME FILE: every module of the report in FILE with a path is
# given what the host's dpkg says of its path (dpkg -S, under the
# merged-/usr alias when dpkg recorded the other spelling, as dpkg -S
# needs), with dpkg-query's version, architecture and source; a module
# dpkg does not know has no database package.
check_host() {
        if python3 - "$2" > pyerr 2>&1 <<'PY'
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
def alias(p):
    for a in ("/bin/", "/sbin/", "/lib/", "/lib32/", "/lib64/", "/libx32/"):
        if p.startswith("/usr" + a):
            return p[4:]
        if p.startswith(a):
            return "/usr" + p
    return None
def dpkg_s(path):
    for p in (path, alias(path)):
        if not p:
            continue
        r = subprocess.run(["dpkg", "-S", p], capture_output=True, text=True)
        lines = [l for l in r.stdout.splitlines() if not l.startswith("diversion ")]
        if r.returncode == 0 and lines:
            return lines[0].rsplit(": ", 1)[0].split(", ")[0]
    return None
checked = 0
for m in d["modules"]:
    if m.get("vdso"):
        continue
    owner = dpkg_s(m["path"])
    db = m.get("dbPackage")
    if owner is None:
        assert db is None, (m["path"], db)
        assert m["dbState"] == "unowned" and m["packageFrom"] == "none", m
        continue
    q = subprocess.run(["dpkg-query", "-W", "-f", "${Package}\t${Version}\t${Architecture}\t${source:Package}\t${source:Version}", owner],
                       capture_output=True, text=True, check=True).stdout.split("\t")
    got = [db["name"], db["version"], db["architecture"], db["source"], db["sourceVersion"]]
    assert got == q, (m["path"], got, q)
    assert db["type"] == "deb", db
    assert m["dbState"] == "owned", m
    want = "database" if not m["packages"] else ("core-note" if m["source"] == "core" else "disk-note")
    assert m["packageFrom"] == want, (m, want)
    checked += 1
assert checked >= 3, checked
PY
        then pass "$1"; else fail "$1" "$(tr '\n' ' ' < pyerr)"; fi
}

# kernel_core DIR PROGRAM: runs PROGRAM in DIR and kills it with SIGSEGV
# once it is ready; CORE is the core the kernel wrote there, empty where
# core_pattern sends cores elsewhere (CORES_HERE false).
CORES_HERE=true
case $(cat /proc/sys/kernel/core_pattern 2>/dev/null) in '|'* | /*) CORES_HERE=false ;; esac
kernel_core() {
        CORE=
        $CORES_HERE || return 0
        start "$1" "$2"
        kill -SEGV $PID
        wait $PID 2>/dev/null
        CORE=$(ls "$1"/core* 2>/dev/null | head -n 1)
}

# jcheck NAME FILE EXPR: EXPR (Python) holds for the JSON in FILE; mod(BASE)
# is the one module of that file name.
jcheck() {
        if python3 - "$2" "$3" > pyerr 2>&1 <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
def mod(base):
    found = [m for m in d["modules"] if os.path.basename(m["path"]) == base]
    assert len(found) == 1, "module %s: %d matches" % (base, len(found))
    return found[0]
ok = eval(sys.argv[2])
if not ok:
    print("false:", sys.argv[2])
    sys.exit(1)
PY
        then pass "$1"; else fail "$1" "$(tr '\n' ' ' < pyerr)"; fi
}

# ------------------------------------------------------------ pid, host
start run1 "$T/nonote"
run pid --json $PID
expect_status 0 "pid of a program without notes exits 0"
cp out pid.json
check_host "pid: database packages equal dpkg -S and dpkg-query -W" pid.json
jcheck "pid: libz and libc from the database, the program from none" pid.json \
        'mod(os.path.basename(os.path.realpath("/lib/x86_64-linux-gnu/libz.so.1")))["dbPackage"]["name"] == "zlib1g" and mod("libc.so.6")["dbPackage"]["name"] == "libc6" and mod("libc.so.6")["packageFrom"] == "database" and mod("nonote")["packageFrom"] == "none" and d["package"] is None and d["packageFrom"] == "none"'
# The kernel names libc /usr/lib/..., dpkg knows it as /lib/... (merged /usr).
LIBC_DPKG=$(dpkg -S /lib/x86_64-linux-gnu/libc.so.6 2>/dev/null | cut -d: -f1)
if ! dpkg -S /usr/lib/x86_64-linux-gnu/libc.so.6 > /dev/null 2>&1 && [ "$LIBC_DPKG" = libc6 ]; then
        jcheck "pid: /usr/lib/.../libc.so.6 found under dpkg's /lib spelling" pid.json \
                '[m["dbPackage"]["name"] for m in d["modules"] if m["path"] == "/usr/lib/x86_64-linux-gnu/libc.so.6"] == ["libc6"]'
else
        skip "pid: /usr/lib/.../libc.so.6 found under dpkg's /lib spelling" "dpkg records libc under /usr here"
fi
run pid $PID
grep -q "^Module /usr/lib/x86_64-linux-gnu/libc.so.6 from deb libc6-.* (package database), build-id" out &&
        pass "pid: the text says the package came from the database" ||
        fail "pid: the text says the package came from the database" "$(cat out)"
run pid --json --no-database $PID
jcheck "pid --no-database: no database asked" out 'all(m["packageFrom"] in ("none",) and "dbState" not in m for m in d["modules"])'
# The lookup of libz and libc (real packages' libraries) and of a program
# of no package opens the lists that may hold them, not every package's
# list (~1,200 on a desktop, on every call): the first call above kept an
# index of the lists in $XDG_CACHE_HOME/pkgnote, the answers are the same.
if ! command -v strace > /dev/null; then
        missing "pid: the database lookup opens a list or two, not every list" strace
else
        strace -f -o trace.txt -e trace=open,openat,openat2 "$PKGNOTE" pid --json $PID > pid2.json 2> err
        lists=$(grep -c '\.list"' trace.txt)
        all=$(ls /var/lib/dpkg/info | grep -c '\.list$')
        cmp -s pid.json pid2.json && [ "$lists" -ge 1 ] && [ "$lists" -le 3 ] &&
                pass "pid: the database lookup opens a list or two, not every list" ||
                fail "pid: the database lookup opens a list or two, not every list" "$lists of $all lists opened; index kept: $(ls "$XDG_CACHE_HOME"/pkgnote 2>&1); $(diff pid.json pid2.json | head -5)"
fi
kill $PID 2>/dev/null
wait $PID 2>/dev/null

# An executable dpkg owns: the Package: line is filled from the database.
sleep 30 &
SPID=$!
sleep 0.2
run pid $SPID
SVER=$(dpkg-query -W -f '${Version}' coreutils)
export SVER
grep -qx "       Package: coreutils/$SVER (package database)" out &&
        pass "pid: the executable's Package: line from the database" ||
        fail "pid: the executable's Package: line from the database" "$(head -n 8 out)"
run pid --json $SPID
jcheck "pid --json: package and packageFrom of the executable" out \
        'd["package"]["name"] == "coreutils" and d["package"]["version"] == os.environ["SVER"] and d["packageFrom"] == "database"'
kill $SPID 2>/dev/null
wait $SPID 2>/dev/null

# ---------------------------------------------------- systemd, with notes
if command -v systemd-socket-activate > /dev/null && readelf -nW "$(command -v systemd-socket-activate)" | grep -q FDO; then
        systemd-socket-activate -l "$T/sock" /bin/true > /dev/null 2>&1 &
        SAPID=$!
        sleep 0.3
        run pid --json $SAPID
        cp out sd.json
        check_host "systemd: every module agrees with dpkg -S" sd.json
        jcheck "systemd: Debian's notes still win, and agree with the database" sd.json \
                'mod("systemd-socket-activate")["packageFrom"] == "disk-note" and mod("systemd-socket-activate")["packages"][0]["name"] == "systemd" and [m for m in d["modules"] if "libsystemd-shared" in m["path"]][0]["packageFrom"] == "disk-note" and not any(m.get("dbMismatch") for m in d["modules"]) and d["packageFrom"] == "disk-note"'
        kill $SAPID 2>/dev/null
        wait $SAPID 2>/dev/null
else
        missing "systemd: Debian's notes still win" "systemd-socket-activate with notes"
fi

# ------------------------------------------------ a real core, host dpkg
kernel_core crash "$T/nonote"
if ! $CORES_HERE; then
        skip "core: a kernel core of the program" "core_pattern does not write into the working directory"
else
        if [ -n "$CORE" ]; then
                run core --json --no-stack "$CORE"
                expect_status 0 "core of a program without notes exits 0"
                cp out core.json
                check_host "core: database packages equal dpkg -S and dpkg-query -W" core.json
                jcheck "core: libc owned by libc6 through the build-id check" core.json \
                        'mod("libc.so.6")["dbState"] == "owned" and mod("libc.so.6")["packageFrom"] == "database"'
                run core --no-stack --no-database --json "$CORE"
                jcheck "core --no-database: no database asked" out 'not any("dbState" in m for m in d["modules"])'
        else
                fail "core: a kernel core of the program" "no core written (ulimit -c: $(ulimit -c))"
        fi
fi

# ----------------------------------------------- a private dpkg root
# The program maps $T/lib/libdemo.so.1, a hard link of the file dpkg put
# at the same path inside the root R, so the two are one inode until an
# upgrade renames a new file over the root's.
if command -v dpkg-deb > /dev/null && command -v dpkg > /dev/null; then
        R=$T/root
        mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/triggers" lib
        : > "$R/var/lib/dpkg/status"
        note() { printf '{"type":"deb","name":"%s","version":"%s","architecture":"amd64"}' "$1" "$2"; }
        # deb NAME VERSION FILE...: builds NAME_VERSION.deb shipping each FILE at $T/lib/.
        deb() {
                _p=$1 _v=$2
                shift 2
                rm -rf pkg && mkdir -p "pkg/DEBIAN" "pkg$T/lib"
                cp "$@" "pkg$T/lib/"
                printf 'Package: %s\nVersion: %s\nArchitecture: amd64\nMaintainer: t <t@example.org>\nDescription: test\nSource: demo (%s)\n' \
                        "$_p" "$_v" "$_v" > pkg/DEBIAN/control
                dpkg-deb --root-owner-group -b pkg "${_p}_$_v.deb" > /dev/null || fatal "dpkg-deb failed"
        }
        dpkgr() { dpkg --root="$R" --force-not-root --force-bad-path --log=/dev/null "$@" > dpkg.log 2>&1 || fatal "dpkg $*: $(cat dpkg.log)"; }
        mkdir -p v1 v2
        echo 'const char *demo_version(void) { return "v1"; }' > v1/demo.c
        echo 'const char *demo_version(void) { return "v2"; }' > v2/demo.c
        echo 'const char *noted_version(void) { return "n"; }' > noted.c
        cc -shared -fPIC -Wl,-soname,libdemo.so.1 -o v1/libdemo.so.1 v1/demo.c || fatal "cannot build libdemo"
        cc -shared -fPIC -Wl,-soname,libdemo.so.1 -o v2/libdemo.so.1 v2/demo.c || fatal "cannot build libdemo v2"
        # A library whose note names another version than its package.
        cc -shared -fPIC -Wl,-soname,libnoted.so -o libnoted.so noted.c -Xlinker "--package-metadata=$(note noted 0.9-1)" ||
                fatal "cannot build libnoted"
        deb demo-lib 1.0-1 v1/libdemo.so.1
        dpkgr -i demo-lib_1.0-1.deb
        deb noted-lib 1.0-1 libnoted.so
        dpkgr -i noted-lib_1.0-1.deb
        ln "$R$T/lib/libdemo.so.1" lib/libdemo.so.1 && ln "$R$T/lib/libnoted.so" lib/libnoted.so || fatal "cannot link into the root"
        [ "$(dpkg --root="$R" -S "$T/lib/libdemo.so.1" | cut -d: -f1)" = demo-lib ] || fatal "dpkg --root does not know libdemo"
        cat > user.c <<'C'
#include <stdio.h>
#include <unistd.h>
const char *demo_version(void), *noted_version(void);
int main(int argc, char **argv) {
        if (!demo_version() || !noted_version())
                return 1;
        FILE *f = fopen(argv[argc - 1], "w");
        if (f)
                fclose(f);
        pause();
        return 0;
}
C
        cc -o user user.c -L"$T/lib" -l:libdemo.so.1 -l:libnoted.so -Wl,-rpath,"$T/lib" || fatal "cannot link the user"
        start users "$T/user"
        run pid --json --root "$R" $PID
        cp out priv.json
        jcheck "private root: libdemo owned by demo-lib 1.0-1, as dpkg --root -S says" priv.json \
                'mod("libdemo.so.1")["dbState"] == "owned" and mod("libdemo.so.1")["dbPackage"]["name"] == "demo-lib" and mod("libdemo.so.1")["dbPackage"]["version"] == "1.0-1" and mod("libdemo.so.1")["packageFrom"] == "database"'
        jcheck "private root: the note wins over the database, and the disagreement shows" priv.json \
                'mod("libnoted.so")["packageFrom"] == "disk-note" and mod("libnoted.so")["packages"][0]["version"] == "0.9-1" and mod("libnoted.so")["dbMismatch"] is True and mod("libnoted.so")["dbPackage"]["name"] == "noted-lib"'
        jcheck "private root: libc is not in it" priv.json 'mod("libc.so.6")["dbPackage"] is None and mod("libc.so.6")["packageFrom"] == "none"'
        run pid --root "$R" $PID
        grep -A1 "^Module $T/lib/libnoted.so " out | grep -q "the package database says deb noted-lib-1.0-1 (amd64); the note is used" &&
                pass "private root: the text shows the disagreement" ||
                fail "private root: the text shows the disagreement" "$(cat out)"
        # An upgrade while the program runs: dpkg renames the new file over
        # the root's path; the program still maps the old one.
        deb demo-lib 2.0-1 v2/libdemo.so.1
        dpkgr -i demo-lib_2.0-1.deb
        run pid --json --root "$R" $PID
        cp out upgraded.json
        jcheck "bug-db-replaced-not-claimed: an upgraded library is flagged, 2.0-1 named as installed now, not claimed" upgraded.json \
                'mod("libdemo.so.1")["dbState"] == "replaced" and mod("libdemo.so.1")["packageFrom"] == "none" and mod("libdemo.so.1")["dbPackage"]["version"] == "2.0-1"'
        run pid --root "$R" $PID
        grep -q "^Module $T/lib/libdemo.so.1 without package note" out &&
                grep -A1 "^Module $T/lib/libdemo.so.1 " out | grep -q "replaced on disk since it was loaded; installed there now: deb demo-lib-2.0-1 (amd64), not claimed for this module" &&
                pass "bug-db-replaced-not-claimed: the text flags it" || fail "bug-db-replaced-not-claimed: the text flags it" "$(cat out)"
        # Removed from the root altogether.
        dpkgr -r demo-lib
        run pid --json --root "$R" $PID
        jcheck "a library removed since it was loaded is flagged deleted" out \
                'mod("libdemo.so.1")["dbState"] == "deleted" and mod("libdemo.so.1")["packageFrom"] == "none" and mod("libdemo.so.1")["dbPackage"] is None'
        kill $PID 2>/dev/null
        wait $PID 2>/dev/null
else
        missing "a private dpkg root" dpkg-deb
fi

# ------------------------------------------------- an rpm root, core --root
if command -v rpm > /dev/null && command -v rpmbuild > /dev/null; then
        mkdir -p rlib rpm/SPECS
        echo 'int rpmdemo(void) { return 7; }' > rpmdemo.c
        cc -shared -fPIC -o rlib/librpmdemo.so rpmdemo.c || fatal "cannot build librpmdemo"
        printf 'int rpmdemo(void);\n#include <stdio.h>\n#include <unistd.h>\nint main(int c, char **v) { FILE *f = fopen(v[c - 1], "w"); if (f) fclose(f); pause(); return rpmdemo() - 7; }\n' > ruser.c
        cc -o ruser ruser.c -L"$T/rlib" -lrpmdemo -Wl,-rpath,"$T/rlib" || fatal "cannot link ruser"
        cat > rpm/SPECS/rpmdemo.spec <<EOF
Name: rpmdemo
Version: 3.1
Release: 4.fc40
Epoch: 1
Summary: test
License: MIT
%description
test
%install
mkdir -p %{buildroot}$T/rlib
cp $T/rlib/librpmdemo.so %{buildroot}$T/rlib/librpmdemo.so
%files
$T/rlib/librpmdemo.so
EOF
        if rpmbuild -bb --define "_topdir $T/rpm" --define "__strip /bin/true" --define "debug_package %{nil}" \
                --define "_build_id_links none" rpm/SPECS/rpmdemo.spec > rpmbuild.log 2>&1; then
                F=$T/rroot
                mkdir -p "$F$T/rlib"
                rpm --root "$F" --dbpath /var/lib/rpm --initdb && rpm --root "$F" --dbpath /var/lib/rpm -i --nodeps --justdb --ignorearch --ignoreos rpm/RPMS/*/rpmdemo-*.rpm > rpm.log 2>&1 ||
                        fatal "rpm -i --justdb: $(cat rpm.log)"
                cp rlib/librpmdemo.so "$F$T/rlib/librpmdemo.so"
                OWNER=$(rpm --root "$F" --dbpath /var/lib/rpm -qf --qf '%{NAME} %{EPOCH}:%{VERSION}-%{RELEASE} %{ARCH}' "$T/rlib/librpmdemo.so")
                export OWNER
                kernel_core rcrash "$T/ruser"
                if ! $CORES_HERE; then
                        skip "rpm root: core --root" "core_pattern does not write into the working directory"
                else
                        run core --json --no-stack --root "$F" "$CORE"
                        cp out rcore.json
                        jcheck "rpm root: core --root names the package rpm -qf names" rcore.json \
                                '" ".join([mod("librpmdemo.so")["dbPackage"]["name"], mod("librpmdemo.so")["dbPackage"]["version"], mod("librpmdemo.so")["dbPackage"]["architecture"]]) == os.environ["OWNER"] and mod("librpmdemo.so")["dbPackage"]["type"] == "rpm" and mod("librpmdemo.so")["dbState"] == "owned" and mod("librpmdemo.so")["packageFrom"] == "database"'
                        jcheck "rpm root: what is not in the root is not claimed" rcore.json 'mod("libc.so.6")["dbState"] == "deleted" and mod("libc.so.6")["packageFrom"] == "none"'
                        # Another build at the path: its build-id differs, nothing is claimed.
                        echo 'int rpmdemo(void) { return 8; }' > rpmdemo2.c
                        cc -shared -fPIC -o "$F$T/rlib/librpmdemo.so" rpmdemo2.c || fatal "cannot rebuild librpmdemo"
                        run core --json --no-stack --root "$F" "$CORE"
                        jcheck "rpm root: a rebuilt library (another build-id) is flagged replaced, not claimed" out \
                                'mod("librpmdemo.so")["dbState"] == "replaced" and mod("librpmdemo.so")["packageFrom"] == "none" and mod("librpmdemo.so")["dbPackage"]["name"] == "rpmdemo"'
                fi
        else
                fail "rpmbuild of the test package" "$(tail -n 5 rpmbuild.log)"
        fi
else
        missing "an rpm root" rpm
fi

# ------------------------------------------------ pid, in a chroot
# pid-own-root: `pkgnote pid` asks, without --root, the database of the
# root the process runs in (/proc/PID/root), and checks the mapped file
# there: a chrooted process mapping a library that only the chroot's own
# dpkg database knows.  /proc/PID/maps names it by the host's path
# ($P/opt/pid/libpiddemo.so.1), the chroot's dpkg as /opt/pid/libpiddemo.so.1.
if command -v dpkg-deb > /dev/null && command -v chroot > /dev/null &&
        cat > mapper.c <<'C' && cc -static -o mapper mapper.c 2> /dev/null; then
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
int main(int argc, char **argv) {
        for (int i = 1; i < argc; i++) {
                int fd = open(argv[i], O_RDONLY);
                if (fd < 0 || mmap(0, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
                        return 1;
                close(fd);
        }
        pause();
        return 0;
}
C
        P=$T/proot
        export T
        mkdir -p "$P/var/lib/dpkg/info" "$P/var/lib/dpkg/updates" "$P/var/lib/dpkg/triggers"
        : > "$P/var/lib/dpkg/status"
        rm -rf pkg && mkdir -p pkg/DEBIAN pkg/opt/pid
        echo 'int piddemo(void) { return 1; }' > piddemo.c
        cc -shared -fPIC -o pkg/opt/pid/libpiddemo.so.1 piddemo.c || fatal "cannot build libpiddemo"
        printf 'Package: pid-demo\nVersion: 7.0-2\nArchitecture: amd64\nMaintainer: t <t@example.org>\nDescription: test\nSource: piddemo (7.0-1)\n' > pkg/DEBIAN/control
        dpkg-deb --root-owner-group -b pkg pid-demo.deb > /dev/null || fatal "dpkg-deb failed"
        dpkg --root="$P" --force-not-root --force-bad-path --log=/dev/null -i pid-demo.deb > dpkg.log 2>&1 || fatal "dpkg: $(cat dpkg.log)"
        dpkg -S /opt/pid/libpiddemo.so.1 > /dev/null 2>&1 && fatal "the host's dpkg knows the test's library"
        cp mapper "$P/mapper"
        chroot "$P" /mapper /opt/pid/libpiddemo.so.1 2> /dev/null &
        MPID=$!
        for _i in $(seq 1 100); do
                grep -q libpiddemo "/proc/$MPID/maps" 2> /dev/null && break
                sleep 0.02
        done
        if [ "$(readlink /proc/$MPID/root)" = "$P" ]; then
                run pid --json $MPID
                expect_status 0 "pid-own-root: pid of a chrooted process exits 0"
                cp out chroot-pid.json
                jcheck "pid-own-root: the chroot's package, from its own database, without --root" chroot-pid.json \
                        'mod("libpiddemo.so.1")["path"] == os.environ["T"] + "/proot/opt/pid/libpiddemo.so.1" and mod("libpiddemo.so.1")["dbState"] == "owned" and mod("libpiddemo.so.1")["packageFrom"] == "database" and mod("libpiddemo.so.1")["dbPackage"]["name"] == "pid-demo" and mod("libpiddemo.so.1")["dbPackage"]["version"] == "7.0-2" and mod("libpiddemo.so.1")["dbPackage"]["source"] == "piddemo" and mod("mapper")["dbState"] == "unowned"'
                run pid $MPID
                grep -q "^Module $P/opt/pid/libpiddemo.so.1 from deb pid-demo-7.0-2 (amd64) (package database)" out &&
                        pass "pid-own-root: the text names the chroot's package" ||
                        fail "pid-own-root: the text names the chroot's package" "$(cat out)"
                # --root still overrides: the host's database has none of it.
                run pid --json --root / $MPID
                jcheck "pid-own-root: --root / asks the host's database instead" out \
                        'mod("libpiddemo.so.1")["packageFrom"] == "none" and mod("libpiddemo.so.1")["dbPackage"] is None'
        else
                missing "pid-own-root: the chroot's package, from its own database" "chroot"
        fi
        kill $MPID 2> /dev/null
        wait $MPID 2> /dev/null
else
        missing "pid-own-root: the chroot's package, from its own database" "dpkg-deb, chroot, static linking"
fi

# --------------------------------------- the crash handler, in a chroot
# pkgnote-coredump asks the database of the crashed process's own root
# (/proc/PID/root): a chrooted process whose root has a dpkg database
# that the host's has nothing of.
HANDLER="$BUILDDIR/pkgnote-coredump"
if command -v dpkg-deb > /dev/null && command -v chroot > /dev/null && [ -x "$HANDLER" ] &&
        printf '#include <unistd.h>\nint main(void) { pause(); return 0; }\n' > sleeper.c && cc -static -o sleeper sleeper.c 2> /dev/null; then
        C=$T/croot
        mkdir -p "$C/var/lib/dpkg/info" "$C/var/lib/dpkg/updates" "$C/var/lib/dpkg/triggers"
        : > "$C/var/lib/dpkg/status"
        rm -rf pkg && mkdir -p pkg/DEBIAN pkg/opt/demo
        cp v1/libdemo.so.1 pkg/opt/demo/libdemo.so.1
        printf 'Package: chroot-demo\nVersion: 5.0-1\nArchitecture: amd64\nMaintainer: t <t@example.org>\nDescription: test\n' > pkg/DEBIAN/control
        dpkg-deb --root-owner-group -b pkg chroot-demo.deb > /dev/null || fatal "dpkg-deb failed"
        dpkg --root="$C" --force-not-root --force-bad-path --log=/dev/null -i chroot-demo.deb > dpkg.log 2>&1 || fatal "dpkg: $(cat dpkg.log)"
        cp sleeper "$C/sleeper"
        chroot "$C" /sleeper 2> /dev/null &
        CPID=$!
        sleep 0.3
        if [ "$(readlink /proc/$CPID/root)" = "$C" ]; then
                cc -O1 -o mkcore "$SRCDIR/tests/read/core/mkcore.c" "$SRCDIR/tests/read/core/corebuild.c" || fatal "cannot build mkcore"
                ./mkcore -o chroot.core -64 -le -m 62 --pid $CPID --comm sleeper \
                        --module 0x7f0000000000:/opt/demo/libdemo.so.1:v1/libdemo.so.1 || fatal "mkcore failed"
                "$HANDLER" -d "$T/store" -l "$T/hlog" $CPID 0 0 11 1700000000 18446744073709551615 testhost sleeper < chroot.core
                jcheck "handler: the package from the database of the process's own root" "$T/store/core.sleeper.0.$CPID.1700000000.json" \
                        'mod("libdemo.so.1")["packageFrom"] == "database" and mod("libdemo.so.1")["dbPackage"]["name"] == "chroot-demo" and mod("libdemo.so.1")["dbPackage"]["version"] == "5.0-1"'
        else
                missing "handler: the package from the database of the process's own root" "chroot"
        fi
        kill $CPID 2> /dev/null
        wait $CPID 2> /dev/null
else
        missing "handler: the package from the database of the process's own root" "dpkg-deb, chroot, static linking"
fi

finish
