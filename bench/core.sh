#!/bin/sh
# Benchmark of `pkgnote core` on a real 1 GiB core with many modules:
# Debian's python3 importing its extension modules and holding a 1 GiB
# bytearray of non-zero bytes (so the pages are really dumped), killed with
# SIGSEGV.  Timed beside systemd-analyze inspect-elf and eu-unstrip -n
# --core on the plain core, and beside zstd -dc on a zstd-compressed copy.
# Bytes read come from `pkgnote core --stats`.  Then a symbolized report:
# a stripped program's core whose debug file a real debuginfod on
# 127.0.0.1 serves, with a cold cache (downloaded) and a warm one, beside
# eu-stack doing the same with elfutils' own debuginfod client.
#
#   bench/core.sh [PKGNOTE]      (default: build/pkgnote; writes bench/results-core.txt)
#   bench/core.sh --hostile [PKGNOTE]   only the hostile cores below (rewrites
#                                their section of bench/results-core.txt)
#
# Hostile cores (tests/read/core/hostile-core.c): N PT_LOAD headers and an
# NT_FILE note of N mappings of one file, no page dumped, up to the limits
# (PKGNOTE_MAX_PHDRS, PKGNOTE_MAX_MAPPINGS).  Bound: n log n in N (the
# loads are indexed once, each mapping a binary search).  OLD_PKGNOTE, when
# set, names a build to time beside it (one that walked every load for each
# mapping; OLD_LABEL its column's title), each run cut off after
# HOSTILE_CAP seconds (default 300).
#
# Goals: >= 10x faster than systemd-analyze (without the stack: the same
# job), the package database fallback adding <= 10 ms to it (its index of
# dpkg's lists kept; the first call after dpkg changed them is timed too),
# < 1 MiB read from the core, compressed <= 1.2x the time of zstd -dc,
# a stack trace (and a symbolized one, cold or warm) within 1.1x of
# eu-stack, a stack trace of the compressed core within the time of
# zstd -dc plus that of the plain core (it is decompressed once).  Source lines cost what decompressing the local debug files
# costs (libc6-dbg's compressed DWARF here), for eu-stack as for pkgnote.  Timings are the best of RUNS
# (default 5) with a warm page cache.  The cores are deleted at the end.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
hostile_only=false
if [ "${1:-}" = --hostile ]; then
        hostile_only=true
        shift
fi
PKGNOTE=$(realpath "${1:-$here/../build/pkgnote}")

# hostile_cores: the table of the hostile cores, on standard output.
hostile_cores() {
        cc -O2 -I"$here/../include" -o hostile-core "$here/../tests/read/core/hostile-core.c"
        max=$(sed -n 's/^#define PKGNOTE_MAX_MAPPINGS (1u << \([0-9]*\)).*/\1/p' "$here/../include/pkgnote.h")
        echo "hostile cores: N PT_LOADs, NT_FILE with N mappings of one file, nothing dumped (tests/read/core/hostile-core.c);"
        echo "pkgnote core --json --no-stack, wall time of one run; bound: n log n in N"
        echo
        printf '%-10s %10s %14s %20s\n' N "core MiB" pkgnote "${OLD_PKGNOTE:+${OLD_LABEL:-old (walk)}}"
        for n in 10000 100000 262144 $(((1 << max) - 1)); do
                ./hostile-core hostile.core "$n" "$n"
                mib=$(($(stat -c %s hostile.core) >> 20))
                t_new=$(timed "$PKGNOTE" 0)
                t_old=
                [ -z "${OLD_PKGNOTE:-}" ] || t_old=$(timed "$OLD_PKGNOTE" "${HOSTILE_CAP:-300}")
                printf '%-10s %10s %14s %20s\n' "$n" "$mib" "$t_new" "$t_old"
                rm -f hostile.core
        done
}
# timed PKGNOTE CAP: the wall time of one run on hostile.core, "> CAP s"
# when cut off (CAP 0: never).
timed() {
        t0=$(date +%s.%N)
        rc=0
        if [ "$2" = 0 ]; then "$1" core --json --no-stack hostile.core > /dev/null 2>&1 || rc=$?
        else timeout "$2" "$1" core --json --no-stack hostile.core > /dev/null 2>&1 || rc=$?; fi
        t1=$(date +%s.%N)
        if [ "$rc" = 124 ]; then echo "> $2 s"; else echo "$t0 $t1" | awk '{ printf "%.3f s\n", $2 - $1 }'; fi
}
RUNS=${RUNS:-5}
SIZE_MIB=${SIZE_MIB:-1024}
PY=/usr/bin/python3
[ -x "$PKGNOTE" ] || { echo "no pkgnote binary at $PKGNOTE" >&2; exit 2; }
[ -x $PY ] || PY=$(command -v python3)
W=$(mktemp -d "${TMPDIR:-/var/tmp}/pkgnote-bench-core.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W"
# The index of dpkg's lists that the database fallback keeps: a cache of
# the benchmark's own, built by the warm-up run (and timed rebuilt too).
export XDG_CACHE_HOME="$W/cache"

if $hostile_only; then
        hostile_cores > hostile.txt
        cat hostile.txt
        # The rest of the results stay; the hostile section is replaced.
        $PY - "$here/results-core.txt" hostile.txt <<'PY'
import sys
r = open(sys.argv[1]).read()
i = r.find("hostile cores:")
r = (r[:i] if i >= 0 else r).rstrip("\n") + "\n\n" + open(sys.argv[2]).read()
open(sys.argv[1], "w").write(r)
PY
        exit 0
fi
case $(cat /proc/sys/kernel/core_pattern) in
'|'* | /*) echo "core_pattern does not write cores into the working directory" >&2; exit 77 ;;
esac
ulimit -c unlimited

# ------------------------------------------------------------ the core
cat > victim.py <<'PY'
import importlib, os, sys, time
names = """ssl sqlite3 ctypes decimal json hashlib lzma bz2 zlib socket select array
math _datetime csv pyexpat unicodedata mmap readline curses _asyncio
_multiprocessing _posixsubprocess binascii _struct _uuid _queue _lsprof audioop
_dbm _bisect _heapq _random _pickle _elementtree _contextvars _hashlib termios
fcntl grp resource _opcode _json _zoneinfo _statistics _crypt _curses_panel
apt_pkg yaml _cffi_backend dbus""".split()
for n in names:
    try:
        importlib.import_module(n)
    except Exception:
        pass
big = bytearray(b"\x5a") * (int(sys.argv[1]) << 20)
open("ready", "w").write(str(sum(1 for l in open("/proc/self/maps") if ".so" in l and " 00000000 " in l)))
while True:
    time.sleep(1)
PY
$PY victim.py "$SIZE_MIB" &
pid=$!
while [ ! -s ready ]; do sleep 0.1; done
libs=$(cat ready)
kill -SEGV $pid
wait $pid 2>/dev/null || true
core=$(ls core* | head -n 1)
core_bytes=$(stat -c %s "$core")
modules=$("$PKGNOTE" core --json "$core" 2>/dev/null | $PY -c 'import json,sys; print(len(json.load(sys.stdin)["modules"]))')
echo "core: $core_bytes bytes, $libs shared objects mapped, $modules modules reported"
zstd -q -T0 -c "$core" > core.zst
zst_bytes=$(stat -c %s core.zst)

# ------------------------------------------------------------ timing
# best CMD...: "WALL CPU", the best wall time and the best CPU time (user +
# system, of the command and its children) of RUNS runs after one warm-up,
# in seconds.  CPU time is the fairer measure on a loaded machine.
best() {
        $PY - "$RUNS" "$@" <<'PY'
import resource, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
def once():
    c0 = cpu()
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - t
    return wall, cpu() - c0
once()
res = [once() for _ in range(runs)]
print("%.4f %.4f" % (min(w for w, _ in res), min(c for _, c in res)))
PY
}
# The library alone (open, read, free; no stack trace, no printing), when
# the internal static library lies beside the binary.
lib=$(dirname "$PKGNOTE")/libpkgnote-internal.a
cat > libtime.c <<'C'
#include <stdio.h>
#include <time.h>
#include "pkgnote.h"
int main(int argc, char **argv) {
        pkgnote_core_options o = {0};
        double best = 1e9;
        for (int i = 0; i < 6; i++) {
                struct timespec a, b;
                pkgnote_core *c;
                clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
                if (pkgnote_core_open(argv[1], &o, &c) < 0)
                        return 1;
                pkgnote_core_free(c);
                clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
                double t = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
                if (i && t < best) /* the first run warms up */
                        best = t;
        }
        printf("%.6f\n", best);
        return 0;
}
C
t_lib=nan
t_lib_zst=nan
if [ -f "$lib" ] && cc -O2 -I"$here/../include" libtime.c "$lib" $(pkg-config --libs jansson libzstd liblzma liblz4 zlib) -o libtime 2>/dev/null; then
        t_lib=$(./libtime "$core")
        t_lib_zst=$(./libtime core.zst)
fi
t_pn=$(best "$PKGNOTE" core --json "$core")
t_pn_nodisk=$(best "$PKGNOTE" core --json --no-stack "$core")
t_pn_nodb=$(best "$PKGNOTE" core --json --no-stack --no-database "$core")
t_sa=$(best systemd-analyze inspect-elf --json=short "$core")
t_eu=$(best eu-unstrip -n --core "$core")
t_eus=$(best eu-stack -s -i --core "$core")
t_pn_zst=$(best "$PKGNOTE" core --json --no-stack core.zst)
t_pn_zst_stack=$(best "$PKGNOTE" core --json core.zst)
t_zstd=$(best sh -c 'zstd -q -dc core.zst > /dev/null')
# The bound for a stack trace of the compressed core: decompressing it
# once, then the stack trace of the plain core.
t_zstd_pn=$(best sh -c 'zstd -q -dc core.zst > /dev/null && "$0" core --json "$1" > /dev/null' "$PKGNOTE" "$core")
read_plain=$("$PKGNOTE" core --stats "$core" 2>&1 > /dev/null | sed -n 's/^bytes read from core: //p')
read_zst=$("$PKGNOTE" core --stats core.zst 2>&1 > /dev/null | sed -n 's/^bytes read from core: //p')

# Agreement: every module systemd reports a package for, pkgnote reports too.
"$PKGNOTE" core --json "$core" > pn.json 2>/dev/null
systemd-analyze inspect-elf --json=short "$core" > sa.json 2>/dev/null || echo '{}' > sa.json
agree=$($PY - <<'PY'
import json, os
ours = json.load(open("pn.json"))
theirs = json.load(open("sa.json"))
n = bad = 0
for k, v in theirs.items():
    if not isinstance(v, dict):
        continue
    n += 1
    # systemd keys the executable by path and libraries by soname, which
    # may differ from the file name: match by build-id too.
    m = [m for m in ours["modules"] if m["path"] == k or os.path.basename(m["path"]) == k
         or (v.get("buildId") and m["buildId"] == v.get("buildId"))]
    if not m or not m[0]["packages"] or m[0]["packages"][0].get("version") != v.get("version"):
        bad += 1
print("%d/%d" % (n - bad, n))
PY
)

# ------------------------------------------------------------ symbolized
# best_cold CACHE CMD...: like best, with CACHE removed before every run.
best_cold() {
        $PY - "$RUNS" "$@" <<'PY'
import resource, shutil, subprocess, sys, time
runs, cache, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
res = []
for _ in range(runs + 1):
    shutil.rmtree(cache, ignore_errors=True)
    c0 = cpu()
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    res.append((time.perf_counter() - t, cpu() - c0))
res = res[1:]
print("%.4f %.4f" % (min(w for w, _ in res), min(c for _, c in res)))
PY
}
# The first call after dpkg changed its lists reads them all and keeps
# the index: the cache removed before every run.
t_pn_index=$(best_cold "$XDG_CACHE_HOME" "$PKGNOTE" core --json --no-stack "$core")
sym="nan nan"
sym_warm="nan nan"
eu_cold="nan nan"
eu_warm="nan nan"
sym_check="not run (debuginfod or eu-stack missing)"
if command -v debuginfod > /dev/null && command -v eu-stack > /dev/null; then
        mkdir srv sym
        cc -g -O1 -o sym/prog "$here/../tests/read/debuginfod/symbolize.c"
        objcopy --only-keep-debug sym/prog srv/prog.debug
        strip --strip-all sym/prog
        (cd sym && ulimit -c unlimited && exec ./prog) > /dev/null 2>&1 || true
        port=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        url="http://127.0.0.1:$port"
        debuginfod -F "$W/srv" -p "$port" -d "$W/db.sqlite" > debuginfod.log 2>&1 &
        dpid=$!
        id=$(readelf -nW sym/prog | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p')
        for _i in $(seq 1 300); do
                [ "$(curl -s -o /dev/null -w '%{http_code}' "$url/buildid/$id/debuginfo")" = 200 ] && break
                sleep 0.1
        done
        export DEBUGINFOD_CACHE_PATH="$W/dcache"
        sym=$(best_cold "$W/dcache" "$PKGNOTE" core --json --debuginfod="$url" sym/core)
        sym_warm=$(best "$PKGNOTE" core --json --debuginfod="$url" sym/core)
        eu_cold=$(best_cold "$W/dcache" env DEBUGINFOD_URLS="$url" eu-stack -s -i --core sym/core)
        eu_warm=$(best env DEBUGINFOD_URLS="$url" eu-stack -s -i --core sym/core)
        # The same answer: the crashing frame's function and line.
        "$PKGNOTE" core --json --debuginfod="$url" sym/core > sym.json
        sym_check=$($PY -c 'import json; f=json.load(open("sym.json"))["threads"][0]["frames"]; print("%s at line %s, then %s at line %s" % (f[0]["function"], f[0].get("line"), f[1]["function"], f[1].get("line")))')
        kill $dpid 2>/dev/null || true
fi

$PY - "$t_pn" "$t_pn_nodisk" "$t_sa" "$t_eu" "$t_pn_zst" "$t_zstd" "$read_plain" "$read_zst" \
        "$core_bytes" "$zst_bytes" "$modules" "$libs" "$agree" "$RUNS" "$t_lib" "$t_lib_zst" \
        "$t_pn_zst_stack" "$sym" "$sym_warm" "$eu_cold" "$eu_warm" "$sym_check" "$t_eus" "$t_zstd_pn" \
        "$t_pn_nodb" "$t_pn_index" > report.txt <<'PY'
import sys
def pair(s):
    w, c = s.split()
    return float(w), float(c)
(t_pn, t_nd, t_sa, t_eu, t_z, t_zstd) = map(pair, sys.argv[1:7])
read_plain, read_zst, core_bytes, zst_bytes, modules, libs = map(int, sys.argv[7:13])
agree, runs = sys.argv[13], sys.argv[14]
t_lib, t_lib_z = float(sys.argv[15]), float(sys.argv[16])
ms = lambda t: "%8.1f ms" % (t * 1000)
print("pkgnote core benchmark: %.2f GiB core, %d modules (%d shared objects), best of %s warm runs"
      % (core_bytes / 2**30, modules, libs, runs))
print()
print("%-48s %11s %11s %12s" % ("command", "wall", "cpu", "cpu ratio"))
def row(name, t, base):
    print("%-48s %11s %11s %12s" % (name, ms(t[0]), ms(t[1]), "%.2fx" % (t[1] / base[1]) if base[1] else "-"))
row("pkgnote core --json CORE (with stack trace)", t_pn, t_pn)
row("pkgnote core --json --no-stack CORE", t_nd, t_pn)
t_ndb, t_idx = pair(sys.argv[25]), pair(sys.argv[26])
row("  the same, --no-database", t_ndb, t_pn)
row("  the same, dpkg's index rebuilt every run", t_idx, t_pn)
print("%-48s %11s %11s %12s" % ("libpkgnote alone: open, read, free", "", ms(t_lib), "%.3fx" % (t_lib / t_pn[1])))
row("systemd-analyze inspect-elf --json=short CORE", t_sa, t_pn)
row("eu-unstrip -n --core CORE", t_eu, t_pn)
t_eus = pair(sys.argv[23])
row("eu-stack -s -i --core CORE (stack, lines, inlines)", t_eus, t_pn)
print()
row("pkgnote core --json --no-stack CORE.zst", t_z, t_z)
print("%-48s %11s %11s %12s" % ("libpkgnote alone on CORE.zst", "", ms(t_lib_z), "%.2fx" % (t_lib_z / t_z[1])))
row("zstd -dc CORE.zst > /dev/null", t_zstd, t_z)
t_zs = pair(sys.argv[17])
t_zpn = pair(sys.argv[24])
print()
print("stack trace of the compressed core, beside the plain one:")
row("pkgnote core --json CORE (plain, with stack)", t_pn, t_pn)
row("pkgnote core --json CORE.zst (decompressed once)", t_zs, t_pn)
row("zstd -dc CORE.zst, then pkgnote core --json CORE", t_zpn, t_pn)
print()
sym, sym_warm, eu_cold, eu_warm = map(pair, sys.argv[18:22])
print("symbolized report of a stripped program, debug file from a local debuginfod (%s):" % sys.argv[22])
row("pkgnote core --json --debuginfod=URL, cold cache", sym, sym)
row("pkgnote core --json --debuginfod=URL, warm cache", sym_warm, sym)
row("eu-stack -s -i --core (DEBUGINFOD_URLS), cold", eu_cold, sym)
row("eu-stack -s -i --core (DEBUGINFOD_URLS), warm", eu_warm, sym)
print()
print("bytes read, plain core: %d (%.1f KiB of %d MiB)" % (read_plain, read_plain / 1024, core_bytes >> 20))
print("bytes read, zstd core:  %d of %d (all of it: a stream must be decompressed to its last module page)"
      % (read_zst, zst_bytes))
print("packages agreeing with systemd-analyze: %s" % agree)
print()
goals = [
    # systemd-analyze reads notes and does not unwind: --no-stack is the
    # same job.  The full report, stack trace included, is shown too.
    ("CLI (--no-stack) >= 10x faster than systemd-analyze (wall)", t_sa[0] >= 10 * t_nd[0], "%.1fx" % (t_sa[0] / t_nd[0])),
    ("CLI (--no-stack) >= 10x faster than systemd-analyze (cpu)", t_sa[1] >= 10 * t_nd[1], "%.1fx" % (t_sa[1] / t_nd[1])),
    ("the package database adds <= 10 ms to --no-stack (wall)", t_nd[0] - t_ndb[0] <= 0.010, "%.1f ms" % ((t_nd[0] - t_ndb[0]) * 1000)),
    ("CLI with stack trace within 1.1x of eu-stack -s -i (wall)", t_pn[0] <= 1.1 * t_eus[0], "%.2fx" % (t_pn[0] / t_eus[0])),
    ("library >= 10x faster than systemd-analyze", t_sa[1] >= 10 * t_lib, "%.0fx" % (t_sa[1] / t_lib)),
    ("bytes read < 1 MiB", read_plain < 2**20, "%d" % read_plain),
    ("zstd core <= 1.2x zstd -dc (cpu)", t_z[1] <= 1.2 * t_zstd[1], "%.2fx" % (t_z[1] / t_zstd[1])),
    ("zstd core <= 1.2x zstd -dc (wall)", t_z[0] <= 1.2 * t_zstd[0], "%.2fx" % (t_z[0] / t_zstd[0])),
    ("stack of CORE.zst <= zstd -dc + stack of CORE (wall)", t_zs[0] <= t_zpn[0], "%.2fx" % (t_zs[0] / t_zpn[0])),
    ("stack of CORE.zst <= zstd -dc + stack of CORE (cpu)", t_zs[1] <= t_zpn[1], "%.2fx" % (t_zs[1] / t_zpn[1])),
    ("symbolized, warm cache, within 1.1x of eu-stack (wall)", sym_warm[0] <= 1.1 * eu_warm[0], "%.2fx" % (sym_warm[0] / eu_warm[0])),
    ("symbolized, cold cache, within 1.1x of eu-stack (wall)", sym[0] <= 1.1 * eu_cold[0], "%.2fx" % (sym[0] / eu_cold[0])),
]
for name, ok, val in goals:
    print("goal %-58s %-6s (%s)" % (name, "met" if ok else "MISSED", val))
PY
echo >> report.txt
hostile_cores >> report.txt
cat report.txt
cp report.txt "$here/results-core.txt"
