#!/bin/sh
# The library's edge: the pkgnote command is a program of the public API.
# Each tools/*.c compiles with include/ and the build's config.h alone;
# a private header of lib/ does not compile there (the control below
# proves the check can fail); the build gives the tools' targets no lib/
# include directory; the objects call no private function of the
# library.  Also the output rule's descriptors as the command uses them.
. "$SRCDIR/tests/lib.sh"
: "${BUILDDIR:?BUILDDIR must name the meson build directory}"
CC=${CC:-cc}
command -v "$CC" > /dev/null || { echo "1..0 # SKIP no C compiler"; exit 77; }
FLAGS="-std=c11 -D_GNU_SOURCE -fsyntax-only -Werror=implicit-function-declaration -I$SRCDIR/include -I$BUILDDIR"

# ------------------------------------------------ each source, public only
for f in "$SRCDIR"/tools/*.c; do
        n=${f##*/}
        # -iquote of the tools' own directory is the compiler's default
        # for "..." includes beside the source: nothing more is given.
        if $CC $FLAGS "$f" > cc.log 2>&1; then
                pass "tools/$n compiles with include/ and config.h alone"
        else
                fail "tools/$n compiles with include/ and config.h alone" "$(head -5 cc.log | tr '\n' ' ')"
        fi
done

# The control: a private header is not found with the same flags.
printf '#include "base-output.h"\n#include "pkgnote.h"\nint f(void);\nint f(void) { return 0; }\n' > private.c
if $CC $FLAGS private.c > cc.log 2>&1; then
        fail "a private header of lib/ does not compile with the tools' flags" "it compiled"
else
        pass "a private header of lib/ does not compile with the tools' flags"
fi
# A private function declared by hand is no escape either: it is undefined
# in the shared library, and the objects below are checked for it.
printf '#include "pkgnote.h"\nint main(void) { return pn_write_full(1, "", 0); }\n' > undeclared.c
if $CC $FLAGS undeclared.c > cc.log 2>&1; then
        fail "a private function without its header does not compile" "it compiled"
else
        pass "a private function without its header does not compile"
fi

# ------------------------------------------------ the build's own flags
CDB="$BUILDDIR/compile_commands.json"
if [ -r "$CDB" ]; then
        python3 - "$CDB" "$SRCDIR" > cdb.log 2>&1 << 'PY'
import json, os, shlex, sys
cdb, src = sys.argv[1], os.path.realpath(sys.argv[2])
bad, seen = [], 0
for e in json.load(open(cdb)):
    f = os.path.realpath(os.path.join(e["directory"], e["file"]))
    if not f.startswith(os.path.join(src, "tools") + os.sep):
        continue
    seen += 1
    args = shlex.split(e["command"]) if "command" in e else e["arguments"]
    for i, a in enumerate(args):
        d = a[2:] if a.startswith("-I") and len(a) > 2 else (args[i + 1] if a in ("-I", "-iquote", "-isystem") else None)
        if d is None:
            continue
        d = os.path.realpath(os.path.join(e["directory"], d))
        if d == src or d.startswith(os.path.join(src, "lib")):
            bad.append("%s: %s" % (os.path.relpath(f, src), d))
if not seen:
    print("no tools/ source in the compilation database"); sys.exit(1)
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
        if [ $? -eq 0 ]; then
                pass "the build gives the tools' targets no lib/ or source-root include directory"
        else
                fail "the build gives the tools' targets no lib/ or source-root include directory" "$(head -5 cdb.log | tr '\n' ' ')"
        fi
else
        skip "the build gives the tools' targets no lib/ or source-root include directory" "no compile_commands.json"
fi

# ------------------------------------------------ the objects
objs=$(find "$BUILDDIR" -name 'tools_*.c.o' | sort)
if [ -z "$objs" ]; then
        fail "the tools' objects call no private function of the library" "no tools object in $BUILDDIR"
else
        priv=$(for o in $objs; do nm -u "$o" | awk -v o="${o##*/}" '$2 ~ /^pn_/ {print o ": " $2}'; done)
        [ -z "$priv" ] && pass "the tools' objects call no private function of the library" ||
                fail "the tools' objects call no private function of the library" "$(echo "$priv" | head -5 | tr '\n' ' ')"
fi

# ------------------------------------------------ the library never prints
# (DESIGN.md): it reaches neither standard stream; progress goes to the
# caller's callback (pkgnote_stack_options.progress).
LIB="$BUILDDIR/libpkgnote.so"
if [ -e "$LIB" ]; then
        io=$(nm -D -u "$LIB" | awk '{print $2}' | sed 's/@.*//' | grep -xE 'stdout|stderr|printf|vprintf|puts|putchar|perror|psignal')
        [ -z "$io" ] && pass "the library reaches neither standard output nor standard error" ||
                fail "the library reaches neither standard output nor standard error" "$(echo $io)"
else
        fail "the library reaches neither standard output nor standard error" "no $LIB"
fi

# ------------------------------------------------ output descriptors
# scan -o /dev/stderr: the report goes to standard error, not standard
# output (pkgnote_output_kind() OWN is any of the process's descriptors).
command -v cc > /dev/null && printf 'int main(void){return 0;}\n' > m.c && cc -o prog m.c && mkdir tree && cp prog tree/
"$PKGNOTE" scan --format json -o /dev/stderr tree > out 2> err
STATUS=$?
[ "$STATUS" -eq 0 ] && [ ! -s out ] && grep -q '"path":"tree/prog"' err &&
        pass "scan -o /dev/stderr writes to standard error only" ||
        fail "scan -o /dev/stderr writes to standard error only" "status $STATUS; stdout: $(head -c 200 out)"
finish
