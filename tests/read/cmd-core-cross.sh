#!/bin/sh
# pkgnote core across ELF classes and byte orders.
#  - i386: a real kernel core of a 32-bit program (built with
#    i686-linux-gnu-gcc, run natively): ELF32, 124-byte NT_PRPSINFO.
#  - s390x (ELF64, big-endian), s390 31-bit (ELF32, big-endian, the compat
#    layout with 16-bit ids) and aarch64 (ELF64, little-endian): qemu-user
#    cores lack NT_FILE, so tests/read/core/mkcore assembles a kernel-shaped
#    core around the first pages of real cross-built programs and libraries
#    and of the cross toolchain's own libc.
. "$SRCDIR/tests/lib.sh"

require cc readelf python3
export T
cc -O1 -Wall -o mkcore "$SRCDIR/tests/read/core/mkcore.c" "$SRCDIR/tests/read/core/corebuild.c" || fatal "cannot build mkcore"

build_id() { readelf -n "$1" | sed -n 's/^ *Build ID: //p' | head -n 1; }
# jcheck NAME FILE EXPR: EXPR (Python) holds for the JSON in FILE; d is the
# object, mods(path) the modules with that path, E the environment.
jcheck() {
        if python3 - "$2" "$3" > pyerr 2>&1 <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
E = os.environ
def mods(path):
    return [m for m in d["modules"] if m["path"] == path]
def one(path):
    found = mods(path)
    assert found, "no module " + path
    return found[0]
ok = eval(sys.argv[2])
if not ok:
    print("false:", sys.argv[2])
    sys.exit(1)
PY
        then pass "$1"; else fail "$1" "$(tr '\n' ' ' < pyerr)"; fi
}

echo 'int lib_value(void) { return 5; }' > lib.c
cat > prog.c <<'C'
int lib_value(void);
__attribute__((noinline)) void crash_here(volatile int *p) { *p = lib_value(); }
int main(void) { crash_here((volatile int *)0x10); return 0; }
C
# For the programs linked without a C library (s390 31-bit).
cat > bare.c <<'C'
int lib_value(void);
void _start(void) { for (;;) *(volatile int *)0x10 = lib_value(); }
C

# ---------------------------------------------------------------- i386
I_JSON='{"type":"deb","os":"debian","name":"prog32","version":"1.0-1","architecture":"i386"}'
IL_JSON='{"type":"deb","os":"debian","name":"lib32","version":"2.0-1","architecture":"i386"}'
export I_JSON IL_JSON
case $(cat /proc/sys/kernel/core_pattern 2>/dev/null) in
'|'* | /*) have_cores= ;;
*) have_cores=1 ;;
esac
if ! command -v i686-linux-gnu-gcc > /dev/null; then
        missing "i386: real core" i686-linux-gnu-gcc
elif [ -n "$have_cores" ] && (ulimit -c unlimited) 2>/dev/null; then
        mkdir i386
        i686-linux-gnu-gcc -shared -fPIC -o i386/liblib32.so lib.c -Xlinker "--package-metadata=$IL_JSON" || fatal "cannot link the i386 library"
        i686-linux-gnu-gcc -g -O0 -o i386/prog32 prog.c -Li386 -llib32 -Wl,-rpath,'$ORIGIN' -Xlinker "--package-metadata=$I_JSON" || fatal "cannot link the i386 program"
        export ID_I=$(build_id i386/prog32) ID_IL=$(build_id i386/liblib32.so)
        can_run_i386
        case $? in
        1) i386_ok=no ;;
        2) i386_ok=tool ;;
        *) i386_ok=yes ;;
        esac
        if [ "$i386_ok" = no ]; then
                i386_skip "i386: real core"
        elif [ "$i386_ok" = tool ]; then
                missing "i386: real core" "a working i686-linux-gnu-gcc -static (libc6-dev-i386-cross)"
        else
                mkdir i386-crash
                (cd i386-crash && ulimit -c unlimited && exec "$T/i386/prog32") > /dev/null 2>&1 &
                export IPID=$!
                { wait $IPID; } 2>/dev/null
                CORE=$(ls i386-crash/core* 2>/dev/null | head -n 1)
                if [ -n "$CORE" ]; then
                        run core --json "$CORE"
                        expect_status 0 "i386: core --json exits 0"
                        cp out i386.json
                        jcheck "i386: ELF32 little-endian i386" i386.json 'd["elfClass"] == 32 and d["byteOrder"] == "little" and d["architecture"] == "i386"'
                        jcheck "i386: pid and signal" i386.json 'd["pid"] == int(E["IPID"]) and d["signal"] == 11 and d["signalName"] == "SEGV"'
                        jcheck "i386: fault address, 32-bit siginfo" i386.json 'd["faultAddress"] == "0x10"'
                        jcheck "i386: 124-byte prpsinfo ids and names" i386.json 'd["uid"] == os.getuid() and d["gid"] == os.getgid() and d["command"] == "prog32" and d["commandLine"] == E["T"] + "/i386/prog32"'
                        jcheck "i386: the program's package" i386.json 'one(E["T"] + "/i386/prog32")["packages"] == [json.loads(E["I_JSON"])] and one(E["T"] + "/i386/prog32")["buildId"] == E["ID_I"] and d["package"]["name"] == "prog32"'
                        jcheck "i386: the library's package" i386.json 'one(E["T"] + "/i386/liblib32.so")["packages"] == [json.loads(E["IL_JSON"])] and one(E["T"] + "/i386/liblib32.so")["buildId"] == E["ID_IL"]'
                        jcheck "i386: every module from the core" i386.json 'all(m["source"] == "core" for m in d["modules"])'
                        jcheck "i386: the 32-bit libc and vDSO" i386.json 'any(os.path.basename(m["path"]) == "libc.so.6" and m["packages"] == [] and len(m["buildId"]) == 40 for m in d["modules"]) and any(m.get("vdso") for m in d["modules"])'
                        jcheck "i386: module addresses fit 32 bits" i386.json 'all(int(m["end"], 16) <= 1 << 32 for m in d["modules"])'
                        run core "$CORE"
                        grep -qxF "  Architecture: i386 (ELF32, little-endian)" out && pass "i386: text architecture" || fail "i386: text architecture" "$(cat out)"
                        grep -qxF "       Package: prog32/1.0-1" out && pass "i386: text package" || fail "i386: text package"
                else
                        fail "i386: the kernel wrote a core"
                fi
        fi
else
        skip "i386: real core" "no core dumps here"
fi

# ------------------------------------------- fixtures: s390x, s390, aarch64
# check_fixture NAME CORE: the facts mkcore was told, and the modules'
# packages and build-ids against readelf of the files.
check_fixture() {
        name=$1
        run core --json "$2"
        expect_status 0 "$name: core --json exits 0"
        cp out $name.json
        jcheck "$name: class, byte order, architecture" $name.json 'd["elfClass"] == int(E["CLASS"]) and d["byteOrder"] == E["ORDER"] and d["architecture"] == E["ARCH"]'
        jcheck "$name: pid, ppid, signal" $name.json 'd["pid"] == 4321 and d["ppid"] == 99 and d["signal"] == 11 and d["signalName"] == "SEGV"'
        jcheck "$name: fault address" $name.json 'd["faultAddress"] == "0x10"'
        jcheck "$name: uid and gid" $name.json 'd["uid"] == int(E["XUID"]) and d["gid"] == int(E["XGID"])'
        jcheck "$name: command, arguments, executable" $name.json 'd["command"] == "xprog" and d["commandLine"] == "xprog --crash now" and d["executable"] == "/opt/x/bin/xprog"'
        jcheck "$name: the program's package and build-id" $name.json 'one("/opt/x/bin/xprog")["packages"] == [json.loads(E["XP_JSON"])] and one("/opt/x/bin/xprog")["buildId"] == E["ID_XP"] and d["package"] == json.loads(E["XP_JSON"])'
        jcheck "$name: the library's package and build-id" $name.json 'one("/opt/x/lib/libx.so")["packages"] == [json.loads(E["XL_JSON"])] and one("/opt/x/lib/libx.so")["buildId"] == E["ID_XL"]'
        if [ -n "$ID_LIBC" ]; then
                jcheck "$name: the toolchain's libc, without note" $name.json 'one(E["LIBC_PATH"])["packages"] == [] and one(E["LIBC_PATH"])["buildId"] == E["ID_LIBC"]'
        fi
        jcheck "$name: everything from the core, nothing from disk" $name.json 'all(m["source"] == "core" for m in d["modules"])'
        jcheck "bug-noseparate-code-module-listed-twice: $name modules once each" $name.json 'len(d["modules"]) == len({m["path"] for m in d["modules"]})'
        run core --no-disk --json "$2"
        # --no-disk leaves the package database unasked (it needs the files
        # on disk for their build-ids): the database's keys aside.
        python3 -c 'import json,sys
def nodb(d):
    d.pop("threads")
    d["modules"] = [{k: v for k, v in m.items() if not k.startswith(("db", "packageFrom"))} for m in d["modules"]]
    return d
sys.exit(nodb(json.load(open(sys.argv[1]))) != nodb(json.load(open(sys.argv[2]))))' $name.json out &&
                pass "$name: --no-disk changes nothing" || fail "$name: --no-disk changes nothing"
        run core "$2"
        grep -qxF "  Architecture: $ARCH (ELF$CLASS, $ORDER-endian)" out && pass "$name: text architecture" || fail "$name: text architecture" "$(grep Architecture out)"
        grep -qxF "Module /opt/x/lib/libx.so from $(python3 -c 'import json,os; p=json.loads(os.environ["XL_JSON"]); print("%s %s-%s (%s)" % (p["type"], p["name"], p["version"], p["architecture"]))'), build-id $ID_XL" out &&
                pass "$name: text library line" || fail "$name: text library line" "$(grep Module out)"
}
XP_JSON='{"type":"rpm","os":"fedora","osVersion":"41","name":"xprog","version":"3.1-2.fc41","architecture":"s390x"}'
XL_JSON='{"type":"rpm","os":"fedora","osVersion":"41","name":"xlib","version":"0.7-1.fc41","architecture":"s390x"}'

# cross NAME GCC GCCFLAGS MKCOREFLAGS LIBC: builds, assembles and checks.
cross() {
        name=$1 gcc=$2 flags=$3 mkflags=$4 libc=$5
        if ! command -v $gcc > /dev/null; then
                missing "$name: fixture core" "$gcc"
                return
        fi
        mkdir $name
        [ -n "$libc" ] || flags="$flags -nostdlib"
        $gcc $flags -shared -fPIC -o $name/libx.so lib.c -Xlinker "--package-metadata=$XL_JSON" || fatal "$name: cannot link the library"
        if [ -n "$libc" ]; then
                $gcc $flags -o $name/xprog prog.c -L$name -lx -Xlinker "--package-metadata=$XP_JSON" || fatal "$name: cannot link the program"
        else
                $gcc $flags -o $name/xprog bare.c -L$name -lx -Wl,--dynamic-linker=/lib/ld.so.1 \
                        -Xlinker "--package-metadata=$XP_JSON" || fatal "$name: cannot link the program"
        fi
        export ID_XP=$(build_id $name/xprog) ID_XL=$(build_id $name/libx.so) ID_LIBC= LIBC_PATH=
        set -- --exe 0x$BASE_EXE:/opt/x/bin/xprog:$name/xprog --module 0x$BASE_LIB:/opt/x/lib/libx.so:$name/libx.so
        if [ -n "$libc" ] && [ -f "$libc" ]; then
                export ID_LIBC=$(build_id "$libc") LIBC_PATH=/lib/$(basename "$libc")
                set -- "$@" --module 0x$BASE_LIBC:$LIBC_PATH:$libc
        fi
        ./mkcore -o $name.core $mkflags --pid 4321 --ppid 99 --uid $XUID --gid $XGID --comm xprog \
                --args "xprog --crash now" --addr 10 --thread 4322 "$@" || fatal "$name: mkcore failed"
        if command -v eu-readelf > /dev/null; then
                # An independent reader must decode the same process facts.
                eu-readelf -n $name.core > eu.txt 2>&1
                grep -q "pid: 4321, ppid: 99" eu.txt && grep -q "uid: $XUID, gid: $XGID" eu.txt && grep -q "fname: xprog" eu.txt &&
                        pass "$name: eu-readelf decodes the fixture's notes" || fail "$name: eu-readelf decodes the fixture's notes" "$(head -c 2000 eu.txt)"
        fi
        check_fixture $name $name.core
}

export XP_JSON XL_JSON
export CLASS=64 ORDER=big ARCH=s390x XUID=70001 XGID=70002
BASE_EXE=2aa00000000 BASE_LIB=3ff80000000 BASE_LIBC=3ff90000000
cross s390x s390x-linux-gnu-gcc "" "-64 -be -m 22 --prpsinfo 136 --prstatus 336" /usr/s390x-linux-gnu/lib/libc.so.6

# 31-bit s390 on a 64-bit kernel: compat_elf_prpsinfo with 16-bit ids
# (124 bytes) and a 216-byte compat prstatus.
export CLASS=32 ORDER=big ARCH=s390 XUID=1234 XGID=4321
BASE_EXE=7f000000 BASE_LIB=7f800000
cross s390 s390x-linux-gnu-gcc "-m31" "-32 -be -m 22 --prpsinfo 124 --prstatus 216" ""

XP_JSON=$(echo "$XP_JSON" | sed 's/s390x/aarch64/')
XL_JSON=$(echo "$XL_JSON" | sed 's/s390x/aarch64/')
export XP_JSON XL_JSON CLASS=64 ORDER=little ARCH=aarch64 XUID=70001 XGID=70002
BASE_EXE=aaaad0000000 BASE_LIB=ffff80000000 BASE_LIBC=ffff90000000
cross aarch64 aarch64-linux-gnu-gcc "" "-64 -le -m 183 --prpsinfo 136 --prstatus 392" /usr/aarch64-linux-gnu/lib/libc.so.6

# The process-note offsets pkgnote uses (tests/read/core/layouts.h, which
# test-core checks the reader against) are the kernel structs' real
# layouts: each row compiles only when the port's own compiler agrees.
rows=$(sed -n 's/^ *LAYOUT(\([0-9]*\), .*/\1/p' "$SRCDIR/tests/read/core/layouts.h")
[ -n "$rows" ] || fail "layouts.h lists ports" "no LAYOUT rows"
for i in $rows; do
        cc=$(sed -n "s/^ *LAYOUT($i, \"\([^\"]*\)\".*/\1/p" "$SRCDIR/tests/read/core/layouts.h")
        what=$(sed -n "s/^ *LAYOUT($i, \"[^\"]*\", \([0-9]*\), \([0-9]*\),.*/machine \1, ELFCLASS\2/p" "$SRCDIR/tests/read/core/layouts.h")
        if ! command -v "${cc%% *}" > /dev/null; then
                missing "process-note layout of $what matches the compiler ($cc)" "${cc%% *}"
        elif $cc -DROW="$i" -fsyntax-only "$SRCDIR/tests/read/core/layouts.c" 2> lerr; then
                pass "process-note layout of $what matches the compiler ($cc)"
        else
                fail "process-note layout of $what matches the compiler ($cc)" "$(grep error lerr | head -n 3)"
        fi
done

# A big-endian core through a compressed stream reads the same.
if [ -f s390x.core ] && command -v zstd > /dev/null && with_feature zstd "s390x: zstd stream reads the same"; then
        zstd -q -c s390x.core > s390x.core.zst
        run core --json s390x.core.zst
        python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); b=json.load(open(sys.argv[2])); a.pop("threads"); b.pop("threads"); sys.exit(a != b)' s390x.json out &&
                pass "s390x: zstd stream reads the same" || fail "s390x: zstd stream reads the same" "$(cat err)"
fi

# The largest core the limits allow, built to be the costliest:
# PKGNOTE_MAX_PHDRS - 1 PT_LOADs and PKGNOTE_MAX_MAPPINGS mappings of one
# file, no page dumped, so the file's header page is looked for in every
# one of its mappings (tests/read/core/hostile-core.c).  Looked up by binary
# search it takes about a second; walking every load for every mapping
# took about half an hour.  The timeout only guards against a hang: the
# time is not what is checked.
cc -O1 -Wall -I"$SRCDIR/include" -o hostile-core "$SRCDIR/tests/read/core/hostile-core.c" || fatal "cannot build hostile-core"
./hostile-core hostile.core || fatal "hostile-core failed"
timeout 60 "$PKGNOTE" core --json --no-stack --no-disk hostile.core > out 2> err
STATUS=$?
if [ "$STATUS" = 0 ] && python3 -c 'import json, sys
m = json.load(open("out"))["modules"]
sys.exit(not (len(m) == 1 and m[0]["path"] == "/x.so" and m[0]["start"] == "0x10000000000" and m[0]["foundBy"] == "nt-file"))'; then
        pass "a core of PKGNOTE_MAX_PHDRS loads and PKGNOTE_MAX_MAPPINGS mappings of one file ends (hang guard)"
else
        fail "a core of PKGNOTE_MAX_PHDRS loads and PKGNOTE_MAX_MAPPINGS mappings of one file ends (hang guard)" \
                "exit status $STATUS (124: killed after 60 s): $(head -c 300 err)"
fi
rm -f hostile.core

finish
