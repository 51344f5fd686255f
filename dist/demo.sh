#!/bin/sh
# The story of the package note in one run: build a program and a library
# that each carry their package's note, crash the program for real, and
# tell from the kernel's core dump alone which packages were involved.
set -eu
PKGNOTE=$(realpath "${1:-build/pkgnote}")
D=$(mktemp -d "${TMPDIR:-/tmp}/pkgnote-demo.XXXXXX")
trap 'rm -rf "$D"' EXIT
cd "$D"
if [ -t 1 ]; then B=$(printf '\033[1m') N=$(printf '\033[0m'); else B= N=; fi
say() { printf '\n%s== %s%s\n' "$B" "$*" "$N"; }
echo_run() { printf '$ %s\n' "$*"; "$@"; }

cat > greet.c <<'C'
#include <stdio.h>
void greet(const char *who) {
        printf("hello, %s\n", who);
        fflush(stdout);
        if (who[0] == '!')
                *(volatile int *)0 = 1; /* the bug */
}
C
cat > hello.c <<'C'
void greet(const char *who);
int main(int argc, char **argv) { greet(argc > 1 ? argv[1] : "world"); return 0; }
C

say "1. Generate the notes: an object file for the program, linker flags for the library"
echo_run "$PKGNOTE" generate --no-os-release --type deb --os debian --os-version 12 --name hello \
        --version 1.0-1 --architecture amd64 --format object -o hello-note.o
echo_run "$PKGNOTE" generate --no-os-release --type deb --os debian --os-version 12 --name libgreet \
        --version 2.1-3 --architecture amd64 --format json
LIBNOTE=$("$PKGNOTE" generate --no-os-release --type deb --os debian --os-version 12 --name libgreet \
        --version 2.1-3 --architecture amd64 --format json)

say "2. Build them"
echo_run cc -g -shared -fPIC -o libgreet.so greet.c -Xlinker "--package-metadata=$LIBNOTE"
echo_run cc -g -o hello hello.c hello-note.o -L. -lgreet -Wl,-rpath,"$D"

say "3. Read the notes back"
echo_run "$PKGNOTE" show hello libgreet.so
echo_run "$PKGNOTE" lint hello libgreet.so

say "4. Crash the program for real (the kernel writes ./core)"
ulimit -c unlimited
printf '$ ./hello !\n'
./hello '!' || true
[ -f core ] || { echo "no core was written (is core_pattern '|...'? see 'cat /proc/sys/kernel/core_pattern')"; exit 1; }
ls -l core

say "5. Which packages crashed? From the core dump alone"
echo_run "$PKGNOTE" core core

say "6. Even with the binaries gone and disk reading off, the core still names them"
echo_run rm hello libgreet.so
printf '$ pkgnote core --no-disk --json core | (summary)\n'
"$PKGNOTE" core --no-disk --json core | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("executable package:", d["package"]["name"], d["package"]["version"])
for m in d["modules"]:
    p = m["packages"][0] if m["packages"] else None
    print("  %-55s %s" % (m["path"], "%s %s (from the %s)" % (p["name"], p["version"], m["source"]) if p else "-"))
'
