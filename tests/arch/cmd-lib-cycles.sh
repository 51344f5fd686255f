#!/bin/sh
# No cycle between the files of lib/: the graph of which object file uses
# a symbol another defines (tests/arch/lib-cycles.py over the objects of the
# library's static archive) has no strongly connected component; the
# control, three small objects that call each other in a ring, shows the
# check finds one.
# The layers: each file of lib/ is named NN-AREA-NAME, NN its layer (01
# base ... 11 crash stores, README "Layout"), and no object uses a symbol
# that a file of a later layer defines (lib-cycles.py --layers); the
# control, a low file calling up into a higher one, shows the check
# finds that edge and names it.  There are no exceptions.
. "$SRCDIR/tests/lib.sh"
: "${BUILDDIR:?BUILDDIR must name the meson build directory}"
require cc nm python3
objs=$(ls "$BUILDDIR"/libpkgnote-internal.a.p/*.o 2> /dev/null)
[ -n "$objs" ] || fatal "no objects below $BUILDDIR/libpkgnote-internal.a.p"
# shellcheck disable=SC2086
python3 "$SRCDIR/tests/arch/lib-cycles.py" $objs > graph.txt 2>&1
rc=$?
[ $rc -eq 0 ] && grep -qx '0 cycles' graph.txt && pass "no cycle between the files of lib/ ($(echo "$objs" | wc -l) objects)" \
        || fail "no cycle between the files of lib/" "$(cat graph.txt)"

printf 'int b(void);\nint a(void) { return b(); }\n' > a.c
printf 'int c(void);\nint b(void) { return c(); }\n' > b.c
printf 'int a(void);\nint c(void) { return a(); }\nint d(void) { return 1; }\n' > c.c
printf 'int d(void);\nint e(void) { return d(); }\n' > e.c
for f in a b c e; do cc -c -o lib_$f.c.o $f.c || fatal "cannot build the control"; done
python3 "$SRCDIR/tests/arch/lib-cycles.py" lib_a.c.o lib_b.c.o lib_c.c.o lib_e.c.o > ring.txt 2>&1
rc=$?
[ $rc -eq 1 ] && grep -qx 'cycle: a.c b.c c.c' ring.txt && grep -qx '1 cycles' ring.txt \
        && pass "the control: a ring of three files is found, the file outside it is not" \
        || fail "the control: a ring of three files is found" "$(cat ring.txt)"

# shellcheck disable=SC2086
python3 "$SRCDIR/tests/arch/lib-cycles.py" --layers $objs > layers.txt 2>&1
rc=$?
[ $rc -eq 0 ] && grep -qx '0 layer violations' layers.txt \
        && pass "no file of lib/ uses a symbol of a later layer ($(echo "$objs" | wc -l) objects)" \
        || fail "no file of lib/ uses a symbol of a later layer" "$(cat layers.txt)"

printf 'int top(void);\nint low(void) { return top(); }\nint base(void) { return 0; }\n' > low.c
printf 'int base(void);\nint top(void) { return base(); }\n' > top.c
printf 'int base(void);\nint peer(void) { return base(); }\n' > peer.c
cc -c -o lib_01-base-low.c.o low.c && cc -c -o lib_09-scan-top.c.o top.c && cc -c -o lib_01-base-peer.c.o peer.c \
        || fatal "cannot build the control"
python3 "$SRCDIR/tests/arch/lib-cycles.py" --layers lib_01-base-low.c.o lib_09-scan-top.c.o lib_01-base-peer.c.o > up.txt 2>&1
rc=$?
[ $rc -eq 1 ] && grep -qx 'up: 01-base-low.c -> 09-scan-top.c: top' up.txt && grep -qx '1 layer violations' up.txt \
        && pass "the control: a file of layer 01 calling into layer 09 is found, the calls down are not" \
        || fail "the control: a file of layer 01 calling into layer 09 is found" "$(cat up.txt)"

# One out-of-memory path: the message for an allocation failure is
# written once (shared/message.c: pn_oom(), pn_out_of_memory), for the
# library, the helpers of shared/ and the commands (tool_oom()) alike;
# every other place returns through it.
oom=$(grep -rn --include='*.c' --include='*.h' 'out of memory"' "$SRCDIR/lib" "$SRCDIR/shared" "$SRCDIR/tools")
[ "$(printf '%s\n' "$oom" | grep -c .)" -eq 1 ] && printf '%s\n' "$oom" | grep -q 'shared/message.c:' \
        && pass "\"out of memory\" is written once, in shared/message.c" \
        || fail "\"out of memory\" is written once, in shared/message.c" "$oom"
finish
