#!/bin/sh
# No cycle between the files of lib/: the graph of which object file uses
# a symbol another defines (tests/lib-cycles.py over the objects of the
# library's static archive) has no strongly connected component; the
# control, three small objects that call each other in a ring, shows the
# check finds one.
. "$SRCDIR/tests/lib.sh"
: "${BUILDDIR:?BUILDDIR must name the meson build directory}"
require cc nm python3
objs=$(ls "$BUILDDIR"/libpkgnote-internal.a.p/*.o 2> /dev/null)
[ -n "$objs" ] || fatal "no objects below $BUILDDIR/libpkgnote-internal.a.p"
# shellcheck disable=SC2086
python3 "$SRCDIR/tests/lib-cycles.py" $objs > graph.txt 2>&1
rc=$?
[ $rc -eq 0 ] && grep -qx '0 cycles' graph.txt && pass "no cycle between the files of lib/ ($(echo "$objs" | wc -l) objects)" \
        || fail "no cycle between the files of lib/" "$(cat graph.txt)"

printf 'int b(void);\nint a(void) { return b(); }\n' > a.c
printf 'int c(void);\nint b(void) { return c(); }\n' > b.c
printf 'int a(void);\nint c(void) { return a(); }\nint d(void) { return 1; }\n' > c.c
printf 'int d(void);\nint e(void) { return d(); }\n' > e.c
for f in a b c e; do cc -c -o lib_$f.c.o $f.c || fatal "cannot build the control"; done
python3 "$SRCDIR/tests/lib-cycles.py" lib_a.c.o lib_b.c.o lib_c.c.o lib_e.c.o > ring.txt 2>&1
rc=$?
[ $rc -eq 1 ] && grep -qx 'cycle: a.c b.c c.c' ring.txt && grep -qx '1 cycles' ring.txt \
        && pass "the control: a ring of three files is found, the file outside it is not" \
        || fail "the control: a ring of three files is found" "$(cat ring.txt)"

# One out-of-memory path: the message for an allocation failure is
# written once (shared/message.c: pn_oom(), pn_out_of_memory), for the
# library, the helpers of shared/ and the commands (tool_oom()) alike;
# every other place returns through it.
oom=$(grep -rn --include='*.c' --include='*.h' 'out of memory"' "$SRCDIR/lib" "$SRCDIR/shared" "$SRCDIR/tools")
[ "$(printf '%s
' "$oom" | grep -c .)" -eq 1 ] && printf '%s
' "$oom" | grep -q 'shared/message.c:' \
        && pass "\"out of memory\" is written once, in shared/message.c" \
        || fail "\"out of memory\" is written once, in shared/message.c" "$oom"
finish
