#!/bin/sh
# Benchmark of `pkgnote ps` over every process of the machine, beside
# Debian's needrestart (`needrestart -b -r l`), which answers the nearer
# question "which processes map a file replaced or deleted since": both
# read every process's /proc/PID/maps; pkgnote also reads each mapped
# object's notes and gives each a package from its root's database (read
# once per root).  To load the machine, HOLDERS programs (default 100) each
# map about twenty of the distribution's libraries and wait.
#
#   bench/ps.sh [PKGNOTE]      (default: build/pkgnote; writes bench/results-ps.txt)
#
# Goal: faster than needrestart.  Timings are the best of RUNS (default
# 5), warm page cache, as root.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PKGNOTE=$(realpath "${1:-$here/../build/pkgnote}")
runs=${RUNS:-5}
holders=${HOLDERS:-100}
. "$here/lib.sh"
command -v needrestart > /dev/null || { echo "needrestart is not installed (apt-get install needrestart)" >&2; exit 1; }
out=$here/results-ps.txt
W=$(mktemp -d)
PIDS=
trap 'for p in $PIDS; do kill "$p" 2>/dev/null; done; rm -rf "$W"' EXIT

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
        liblz4.so.1 libarchive.so.13 libjansson.so.4 libelf.so.1 libdw.so.1 libcurl.so.4 libxml2.so.2 \
        libgnutls.so.30 libexpat.so.1 libbz2.so.1.0 libpcre2-8.so.0 libselinux.so.1 libcap.so.2; do
        ldconfig -p | grep -q "^[[:space:]]*$l " && libs="$libs $l"
done
i=0
while [ "$i" -lt "$holders" ]; do
        "$W/hold" $libs &
        PIDS="$PIDS $!"
        i=$((i + 1))
done
sleep 1
nproc=$(ls /proc | grep -c '^[0-9][0-9]*$')
nmaps=$(cat /proc/[0-9]*/maps 2>/dev/null | wc -l)

t_ps=$(measure "'$PKGNOTE' ps")
t_json=$(measure "'$PKGNOTE' ps --json")
t_nodb=$(measure "'$PKGNOTE' ps --no-database")
t_cdx=$(measure "'$PKGNOTE' ps --format cyclonedx")
t_spdx=$(measure "'$PKGNOTE' ps --format spdx")
t_nr=$(measure "needrestart -b -r l")
{
        echo "pkgnote ps over every process: $nproc processes ($holders holders of $(echo $libs | wc -w) libraries each), $nmaps lines of maps"
        echo "best of $runs, warm cache; $(date +%F), $(nproc) CPUs, $(uname -r)"
        echo
        printf '%-40s %8s\n' "" seconds
        printf '%-40s %8s\n' "pkgnote ps" "$t_ps"
        printf '%-40s %8s\n' "pkgnote ps --json" "$t_json"
        printf '%-40s %8s\n' "pkgnote ps --no-database" "$t_nodb"
        printf '%-40s %8s\n' "pkgnote ps --format cyclonedx" "$t_cdx"
        printf '%-40s %8s\n' "pkgnote ps --format spdx" "$t_spdx"
        printf '%-40s %8s\n' "needrestart -b -r l" "$t_nr"
        echo
        echo "pkgnote ps / needrestart: $(echo "$t_ps $t_nr" | awk '{ printf "%.2fx (%.1f times faster)", $1 / $2, $2 / $1 }')"
} | tee "$out"
