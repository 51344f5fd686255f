#!/bin/sh
# Benchmark of `pkgnote pid` on a process of this host with about twenty
# libraries of the distribution, none with a package note, so every module
# asks the package database: a small program dlopen()s the libraries
# below that are installed and waits.  Timed with and without the
# database (--no-database), beside `dpkg -S` of the same paths (what a
# user would run otherwise); then the instructions each run executes
# (valgrind --tool=callgrind), which do not depend on the machine's load.
#
#   bench/pid.sh [PKGNOTE]      (default: build/pkgnote; writes bench/results-pid.txt)
#
# Goal: the database adds at most 10 ms to `pkgnote pid`: dpkg keeps no
# index by path, so the first call keeps one of its lists in the cache
# ($XDG_CACHE_HOME/pkgnote, here the benchmark's own) and later calls read
# only the lists that may hold a module (timed too: the first call after
# dpkg changed its lists, the cache removed before each run).  Timings are
# the best of RUNS (default 10), warm page cache.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PKGNOTE=$(realpath "${1:-$here/../build/pkgnote}")
runs=${RUNS:-10}
. "$here/lib.sh"
out=$here/results-pid.txt
W=$(mktemp -d)
trap 'kill "$P" 2>/dev/null; rm -rf "$W"' EXIT
P=
export XDG_CACHE_HOME="$W/cache"

cat > "$W/hold.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
        for (int i = 1; i < argc; i++)
                if (!dlopen(argv[i], RTLD_NOW | RTLD_GLOBAL))
                        fprintf(stderr, "%s\n", dlerror());
        pause();
        return 0;
}
C
cc -o "$W/hold" "$W/hold.c" -ldl
libs=
for l in libz.so.1 libssl.so.3 libcrypto.so.3 libsqlite3.so.0 libsystemd.so.0 libzstd.so.1 liblzma.so.5 \
        libbz2.so.1.0 libarchive.so.13 libjansson.so.4 libelf.so.1 libexpat.so.1 libffi.so.8 libreadline.so.8 \
        libgmp.so.10 libuuid.so.1 libblkid.so.1 libmount.so.1 libcap.so.2 liblz4.so.1 libpcre2-8.so.0 libgcrypt.so.20; do
        [ -e "/usr/lib/x86_64-linux-gnu/$l" ] && libs="$libs /usr/lib/x86_64-linux-gnu/$l"
done
# shellcheck disable=SC2086
"$W/hold" $libs 2> "$W/hold.err" &
P=$!
sleep 1
kill -0 "$P"
"$PKGNOTE" pid --json "$P" > "$W/report.json"
modules=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(len([m for m in d["modules"] if not m.get("vdso")]), sum(m["packageFrom"] == "database" for m in d["modules"]))' "$W/report.json")
paths=$(python3 -c 'import json, sys; print(" ".join(m["path"] for m in json.load(open(sys.argv[1]))["modules"] if not m.get("vdso")))' "$W/report.json")
lists=$(cat /var/lib/dpkg/info/*.list | wc -c)
nlists=$(ls /var/lib/dpkg/info/*.list | wc -l)

t_db=$(measure "'$PKGNOTE' pid '$P'")
t_nodb=$(measure "'$PKGNOTE' pid --no-database '$P'")
t_rebuild=$(measure "rm -rf '$W/cache'; '$PKGNOTE' pid '$P'")
# dpkg -S takes the paths as dpkg spells them; it fails on the rest, which
# costs it the same reading of its database.
t_dpkg=$(measure "dpkg -S $paths")
ir() {
        valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "$@" > /dev/null 2> "$W/cg.err"
        sed -n 's/^summary: //p' "$W/cg.out"
}
ir_db=$(ir "$PKGNOTE" pid "$P")
ir_nodb=$(ir "$PKGNOTE" pid --no-database "$P")
rm -rf "$W/cache"
ir_rebuild=$(ir "$PKGNOTE" pid "$P")

{
        echo "pkgnote pid of a process with $(echo "$modules" | cut -d' ' -f1) mapped files (libraries of this host, no notes;"
        echo "$(echo "$modules" | cut -d' ' -f2) given their package by the dpkg database); $nlists dpkg file lists, $lists bytes"
        echo "best of $runs, warm cache; $(date -u +%Y-%m-%d), $(nproc) CPUs, $(uname -r)"
        echo
        printf '%-36s %10s %16s\n' "" "seconds" "instructions"
        printf '%-36s %10s %16s\n' "pkgnote pid" "$t_db" "$ir_db"
        printf '%-36s %10s %16s\n' "pkgnote pid --no-database" "$t_nodb" "$ir_nodb"
        printf '%-36s %10s %16s\n' "pkgnote pid, index rebuilt" "$t_rebuild" "$ir_rebuild"
        printf '%-36s %10s %16s\n' "dpkg -S (the same paths)" "$t_dpkg" "-"
        echo
        echo "the database adds $(echo "$t_db $t_nodb" | awk '{ printf "%.0f ms", ($1 - $2) * 1000 }') ($(echo "$ir_db $ir_nodb" | awk '{ printf "%.1f M", ($1 - $2) / 1e6 }') instructions)"
} | tee "$out"
