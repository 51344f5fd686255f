#!/bin/sh
# The library's edge: the pkgnote command is a program of the public API
# and of the helpers of shared/.  Each tools/*.c compiles with include/,
# shared/ and the build's config.h alone; a private header of lib/ does
# not compile there (the controls below prove the check can fail); each
# shared/*.c compiles with shared/ alone; the build gives the tools'
# targets no lib/ include directory; the objects call no private function
# of the library, and the commands link libpkgnote.so.1 rather than a copy
# of it.  Also the output rule's descriptors as the command uses them.
. "$SRCDIR/tests/lib.sh"
: "${BUILDDIR:?BUILDDIR must name the meson build directory}"
CC=${CC:-cc}
command -v "$CC" > /dev/null || { echo "1..0 # SKIP no C compiler"; exit 77; }
FLAGS="-std=c11 -D_GNU_SOURCE -fsyntax-only -Werror=implicit-function-declaration -I$SRCDIR/include -I$SRCDIR/shared -I$BUILDDIR"

# ------------------------------------------------ each source, public only
for f in "$SRCDIR"/tools/*.c; do
        n=${f##*/}
        # -iquote of the tools' own directory is the compiler's default
        # for "..." includes beside the source: nothing more is given.
        if $CC $FLAGS "$f" > cc.log 2>&1; then
                pass "tools/$n compiles with include/, shared/ and config.h alone"
        else
                fail "tools/$n compiles with include/, shared/ and config.h alone" "$(head -5 cc.log | tr '\n' ' ')"
        fi
done

# The helpers of shared/ are below the library: each compiles with
# shared/ alone (and the system's headers).
for f in "$SRCDIR"/shared/*.c; do
        n=${f##*/}
        if $CC -std=c11 -D_GNU_SOURCE -fsyntax-only -Werror=implicit-function-declaration -I"$SRCDIR/shared" "$f" > cc.log 2>&1; then
                pass "shared/$n compiles with shared/ alone"
        else
                fail "shared/$n compiles with shared/ alone" "$(head -5 cc.log | tr '\n' ' ')"
        fi
done

# The control: a private header of lib/ is not found with the same flags,
# and is with lib/ added (else this check could not fail).
printf '#include "01-base.h"\nint f(void);\nint f(void) { return 0; }\n' > private.c
if $CC $FLAGS private.c > cc.log 2>&1; then
        fail "a private header of lib/ does not compile with the tools' flags" "it compiled"
elif ! $CC $FLAGS -I"$SRCDIR/lib" private.c > cc.log 2>&1; then
        fail "a private header of lib/ does not compile with the tools' flags" "the control with lib/ failed too: $(head -3 cc.log | tr '\n' ' ')"
else
        pass "a private header of lib/ does not compile with the tools' flags"
fi
# A private function declared by hand is no escape either: it is undefined
# in the shared library, and the objects below are checked for it.
printf '#include "pkgnote.h"\nint main(void) { char h[3]; pn_hex(h, (const unsigned char *)"", 1); return 0; }\n' > undeclared.c
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
# A pn_ function that the tools call must be one of shared/ (the static
# library libpkgnote-shared.a defines it); lib/'s are private.
objs=$(find "$BUILDDIR" -name 'tools_*.c.o' | sort)
SHARED_A=$(find "$BUILDDIR" -maxdepth 1 -name 'libpkgnote-shared.a' | head -1)
if [ -z "$objs" ] || [ -z "$SHARED_A" ]; then
        fail "the tools' objects call no private function of the library" "no tools object or libpkgnote-shared.a in $BUILDDIR"
else
        nm --defined-only "$SHARED_A" 2> /dev/null | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort -u > shared.syms
        check_priv() {
                for o in "$@"; do nm -u "$o" | awk -v o="${o##*/}" '$2 ~ /^pn_/ {print o " " $2}'; done |
                        while read -r o s; do grep -qx "$s" shared.syms || echo "$o: $s"; done
        }
        # shellcheck disable=SC2086
        priv=$(check_priv $objs)
        # The control: an object calling a function of lib/ is caught.
        printf 'int pn_grow(void *, unsigned long *, unsigned long, unsigned long);\nint f(void);\nint f(void) { return pn_grow(0, 0, 0, 0); }\n' > tools_control.c
        $CC -c -o tools_control.c.o tools_control.c 2> /dev/null
        control=$(check_priv tools_control.c.o)
        if [ -n "$priv" ]; then
                fail "the tools' objects call no private function of the library" "$(echo "$priv" | head -5 | tr '\n' ' ')"
        elif ! grep -qx 'pn_output_open' shared.syms || [ -z "$control" ]; then
                fail "the tools' objects call no private function of the library" "the check cannot fail: shared.syms $(wc -l < shared.syms) names, control '$control'"
        else
                pass "the tools' objects call no private function of the library"
        fi
fi

# The commands link libpkgnote.so.1 and carry no copy of the library: its
# public functions are undefined in them, to be found in the library.
for exe in pkgnote pkgnote-coredump; do
        b="$BUILDDIR/$exe"
        if [ ! -x "$b" ]; then
                fail "$exe links libpkgnote.so.1" "no $b"
                continue
        fi
        needed=$(readelf -d "$b" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
        own=$(nm --defined-only "$b" | awk '$3 ~ /^pkgnote_(object_open|info_read|last_error)$/ {print $3}')
        case " $needed" in
        *" libpkgnote.so.1 "*) [ -z "$own" ] && pass "$exe links libpkgnote.so.1" ||
                fail "$exe links libpkgnote.so.1" "defines $own itself" ;;
        *) fail "$exe links libpkgnote.so.1" "NEEDED: $needed" ;;
        esac
done

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
# output (the output rule's own descriptors are any of the process's).
command -v cc > /dev/null && printf 'int main(void){return 0;}\n' > m.c && cc -o prog m.c && mkdir tree && cp prog tree/
"$PKGNOTE" scan --format json -o /dev/stderr tree > out 2> err
STATUS=$?
[ "$STATUS" -eq 0 ] && [ ! -s out ] && grep -q '"path":"tree/prog"' err &&
        pass "scan -o /dev/stderr writes to standard error only" ||
        fail "scan -o /dev/stderr writes to standard error only" "status $STATUS; stdout: $(head -c 200 out)"
finish
