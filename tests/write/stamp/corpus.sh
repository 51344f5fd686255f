#!/bin/sh
# Stamps copies of the system's executables and shared objects and checks
# each against its original: readelf/eu-readelf parse it without new
# warnings and show the note, eu-elflint finds nothing new, executables
# answer --version (or --help) exactly as before, libraries still dlopen()
# and a program linked against them runs.
#
# Usage: corpus.sh WORKDIR        (PKGNOTE names the binary)
# PKGNOTE_STAMP_SAMPLE: files per kind, default 150 (a deterministic
# sample: every Nth file of the sorted list), "all" for every file.
# Prints one "ok"/"not ok" line per check and a summary; details of
# failures as "#" lines.  Programs run as nobody (setpriv), with stdin
# from /dev/null, a scratch HOME, in a scratch directory, under timeout.
set -u
W=$1
: "${PKGNOTE:?}"
SAMPLE=${PKGNOTE_STAMP_SAMPLE:-150}
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
[ "$(id -u)" = 0 ] || NOBODY=""
JSON_ARGS="--no-os-release --type deb --os debian --os-version 12 --name corpus-test --version 1.0-1 --architecture amd64"
# Never run these, even as nobody.
DENY='^(reboot|shutdown|halt|poweroff|init|telinit|runlevel|kexec|.*getty|login|sulogin|su|sudo|passwd|chpasswd|newgrp|sg|swapon|swapoff|mkswap|wipefs|mkfs.*|fsck.*|dd|yes|sleep|watch|top|htop|less|more|vi|vim.*|nano|ed|red|script|cat|tee|xargs|timeout|setsid|nohup|nice|env|stdbuf|chroot|unshare|nsenter|setpriv|capsh|ssh-agent|gpg-agent|dbus-daemon|systemd.*|udevadm|journalctl|loginctl|busctl|networkctl|resolvectl|timedatectl|hostnamectl|localectl|bootctl|kmod|modprobe|insmod|rmmod)$'

mkdir -p "$W/orig" "$W/st" "$W/run" "$W/home" "$W/lib" || exit 99
chmod 755 "$W" "$W/orig" "$W/st" "$W/run" "$W/lib"; chmod 777 "$W/home"
# nobody must be able to reach $W.
d=$W; while [ "$d" != / ]; do d=$(dirname "$d"); chmod o+x "$d" 2>/dev/null; done

is_elf() { [ -f "$1" ] && [ ! -L "$1" ] && [ "$(head -c4 "$1" 2>/dev/null | od -An -c | tr -d ' \n')" = "177ELF" ]; }
# sample LIST: every Nth line for about $SAMPLE lines.
sample() {
        total=$(wc -l < "$1")
        if [ "$SAMPLE" = all ] || [ "$total" -le "$SAMPLE" ]; then cat "$1"; return; fi
        step=$((total / SAMPLE)); [ $step -lt 1 ] && step=1
        awk -v s=$step -v n="$SAMPLE" 'NR % s == 1 % s && c < n { print; c++ }' "$1"
}

for f in /usr/bin/* /usr/sbin/*; do is_elf "$f" && echo "$f"; done | sort -u > "$W/exe.all"
find /usr/lib/x86_64-linux-gnu -name '*.so*' -type f 2>/dev/null | sort | while read -r f; do
        is_elf "$f" && readelf -hW "$f" 2>/dev/null | grep -q 'DYN' && echo "$f"; done > "$W/lib.all"
sample "$W/exe.all" > "$W/exe.list"
sample "$W/lib.all" > "$W/lib.list"

cat > "$W/dl.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
        void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
        if (!h) { printf("%s\n", dlerror()); return 1; }
        return 0;
}
C
cat > "$W/linked.c" <<'C'
#include <stdio.h>
#include <string.h>
/* Exits 0 when the library directory ARGV[1] is mapped into the process. */
int main(int argc, char **argv) {
        char line[4096];
        FILE *f = fopen("/proc/self/maps", "r");
        while (f && fgets(line, sizeof line, f))
                if (strstr(line, argv[1])) return 0;
        return 3;
}
C
cc -o "$W/dl" "$W/dl.c" -ldl 2>/dev/null || cc -o "$W/dl" "$W/dl.c" || exit 99
chmod 755 "$W/dl"

N=0; NFAIL=0; PLACE="$W/placements"; : > "$PLACE"; : > "$W/failures"
failf() { NFAIL=$((NFAIL + 1)); echo "$1: $2" >> "$W/failures"; return 1; }

# run_as DIR NAME ARGS...: runs ./NAME in DIR as nobody; output in $W/out.
run_as() {
        dir=$1; shift
        ( cd "$dir" && $NOBODY env -i HOME="$W/home" PATH=/usr/bin:/bin LC_ALL=C timeout -k 1 5 "$@" < /dev/null > "$W/out" 2>&1 )
}

# strip STRING FILE: FILE without occurrences of STRING (taken literally).
strip() { awk -v p="$1" '{ while (p != "" && (i = index($0, p)) > 0) $0 = substr($0, 1, i - 1) "DIR" substr($0, i + length(p)); print }' "$2"; }

check_common() { # ORIG STAMPED
        readelf -lnW "$1" > /dev/null 2> "$W/w1"; readelf -lnW "$2" > "$W/r2" 2> "$W/w2"
        if [ -s "$W/w2" ] && ! cmp -s "$W/w1" "$W/w2"; then failf "$2" "readelf warnings: $(head -c 300 "$W/w2")"; return; fi
        grep -q 'Packaging Metadata: {"type":"deb","os":"debian","osVersion":"12","name":"corpus-test"' "$W/r2" ||
                { failf "$2" "readelf -n does not show the note"; return; }
        eu-readelf -n "$1" > /dev/null 2> "$W/w1"; eu-readelf -n "$2" > "$W/r2" 2> "$W/w2"
        if [ -s "$W/w2" ] && ! cmp -s "$W/w1" "$W/w2"; then failf "$2" "eu-readelf warnings: $(head -c 300 "$W/w2")"; return; fi
        grep -q 'Packaging Metadata: {"type":"deb"' "$W/r2" || { failf "$2" "eu-readelf -n does not show the note"; return; }
        eu-elflint --gnu-ld "$1" > "$W/l" 2>&1; strip "$1" "$W/l" | sort > "$W/l1"
        eu-elflint --gnu-ld "$2" > "$W/l" 2>&1; strip "$2" "$W/l" | sort > "$W/l2"
        new=$(comm -13 "$W/l1" "$W/l2")
        [ -z "$new" ] || { failf "$2" "eu-elflint: $(echo "$new" | head -3)"; return; }
        return 0
}

stamp_copy() { # SRC DEST
        cp "$1" "$2" && chmod 755 "$2"
        if ! "$PKGNOTE" stamp --json $JSON_ARGS "$2" > "$W/sj" 2> "$W/se"; then
                failf "$1" "stamp failed: $(cat "$W/se")"; return 1
        fi
        echo "$(cat "$W/sj") $1" >> "$PLACE"
}

EXE_OK=0; EXE_RUN=0; EXE_SAME=0
while read -r f; do
        n=$(basename "$f"); N=$((N + 1))
        cp "$f" "$W/orig/$n" && chmod 755 "$W/orig/$n"
        stamp_copy "$f" "$W/st/$n" || continue
        check_common "$W/orig/$n" "$W/st/$n" || { rm -f "$W/orig/$n" "$W/st/$n"; continue; }
        EXE_OK=$((EXE_OK + 1))
        echo "$n" | grep -Eq "$DENY" && continue
        for arg in --version --help; do
                run_as "$W/orig" "./$n" $arg; rc=$?
                [ $rc = 0 ] || continue
                cp "$W/out" "$W/o1"
                # Output that changes from run to run (times, pids) proves nothing.
                run_as "$W/orig" "./$n" $arg && cmp -s "$W/out" "$W/o1" || break
                run_as "$W/st" "./$n" $arg; rc2=$?
                strip "$W/orig" "$W/o1" > "$W/o1n"; strip "$W/st" "$W/out" > "$W/o2n"
                EXE_RUN=$((EXE_RUN + 1))
                if [ $rc2 = 0 ] && cmp -s "$W/o1n" "$W/o2n"; then EXE_SAME=$((EXE_SAME + 1))
                else failf "$f" "'$arg' differs: exit $rc2; $(diff "$W/o1n" "$W/o2n" | head -4 | tr '\n' ' ')"; fi
                break
        done
        rm -f "$W/orig/$n" "$W/st/$n"
done < "$W/exe.list"
echo "# executables: $(wc -l < "$W/exe.list") stamped, $EXE_OK pass readelf/eu-readelf/eu-elflint, $EXE_SAME of $EXE_RUN run identically"

LIB_OK=0; LIB_DL=0; LIB_DLSAME=0; LIB_LINK=0; LIB_LINKOK=0
while read -r f; do
        n=$(basename "$f"); N=$((N + 1))
        cp "$f" "$W/orig/$n"; chmod 755 "$W/orig/$n"
        stamp_copy "$f" "$W/st/$n" || continue
        check_common "$W/orig/$n" "$W/st/$n" || { rm -f "$W/orig/$n" "$W/st/$n"; continue; }
        LIB_OK=$((LIB_OK + 1))
        if run_as "$W" ./dl "$W/orig/$n"; then
                LIB_DL=$((LIB_DL + 1))
                if run_as "$W" ./dl "$W/st/$n"; then LIB_DLSAME=$((LIB_DLSAME + 1)); else failf "$f" "dlopen: $(cat "$W/out")"; fi
        fi
        soname=$(readelf -dW "$f" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
        case $soname in ""|libc.so*|ld-linux*|libpthread*|libdl.so*|librt.so*|libm.so*) ;; *)
                rm -rf "$W/lib"/*; cp "$W/st/$n" "$W/lib/$soname"; chmod 755 "$W/lib/$soname"
                if cc -o "$W/lib/prog" "$W/linked.c" -L"$W/lib" -Wl,--no-as-needed -l:"$soname" 2>/dev/null; then
                        LIB_LINK=$((LIB_LINK + 1))
                        if run_as "$W" env LD_LIBRARY_PATH="$W/lib" "$W/lib/prog" "$W/lib/"; then LIB_LINKOK=$((LIB_LINKOK + 1))
                        else failf "$f" "program linked against it: exit $? $(head -c 200 "$W/out")"; fi
                fi ;;
        esac
        rm -f "$W/orig/$n" "$W/st/$n"
done < "$W/lib.list"
echo "# libraries: $(wc -l < "$W/lib.list") stamped, $LIB_OK pass readelf/eu-readelf/eu-elflint, $LIB_DLSAME of $LIB_DL dlopen, $LIB_LINKOK of $LIB_LINK linked programs run"

python3 - "$PLACE" <<'PY'
import json, sys, collections
c = collections.Counter(); fp = ph = n = 0
for line in open(sys.argv[1]):
    j = line.rsplit(" ", 1)[0]
    try: d = json.loads(j)
    except Exception: continue
    n += 1; c[d["placement"]] += 1; fp += d["firstPage"]; ph += d["phdrsFirstPage"]
print("# placements: " + ", ".join("%s %d" % kv for kv in sorted(c.items())))
if n: print("# note in the first page: %d of %d (%.1f%%); program headers in the first page: %d" % (fp, n, 100.0 * fp / n, ph))
PY
sed 's/^/# /' "$W/failures" | head -40
if [ "$NFAIL" -eq 0 ]; then echo "ok - corpus: $N files stamped and checked"; else echo "not ok - corpus: $NFAIL of $N files failed"; fi
[ "$NFAIL" -eq 0 ]
