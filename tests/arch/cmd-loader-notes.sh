#!/bin/sh
# The dlopen notes of the binaries come from the loader tables in the
# sources (PN_LIB_NOTE(), lib/01-base-loader.h) through lib/01-base-loader-notes.py: the
# built pkgnote carries exactly the notes the tables declare for this
# build's configuration, in order; and the script refuses what would
# silently drop or invent a note.
. "$SRCDIR/tests/lib.sh"
require python3
script="$SRCDIR/lib/01-base-loader-notes.py"
# The order of the build's loader_sources.
sources=$(sed -n "/^loader_sources = files(/,/^)/s|^ *'\(lib/[^']*\)',|$SRCDIR/\1|p" "$SRCDIR/meson.build" | tr '\n' ' ')
[ -n "$sources" ] || fail "loader_sources read from meson.build"

# shellcheck disable=SC2086
python3 "$script" "$BUILDDIR/config.h" $sources --others "$SRCDIR"/lib/*.c > tables.txt 2> err
[ $? -eq 0 ] && [ -s tables.txt ] && pass "the tables of this tree are read" || fail "the tables of this tree are read" "$(cat err)"
run show --json "$PKGNOTE"
python3 - out tables.txt > diff.txt <<'PY'
import json, sys
ours = json.load(open(sys.argv[1]))
# show lists the entries of every note in turn; a table makes a note of one.
built = [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for e in ours.get("dlopen", [])]
tables = [json.dumps(e, ensure_ascii=False, separators=(",", ":")) for l in open(sys.argv[2]) for e in json.loads(l)]
if built != tables:
    print("built:\n  " + "\n  ".join(built) + "\ntables:\n  " + "\n  ".join(tables))
PY
[ -s diff.txt ] && fail "pkgnote carries the notes of the tables, in order" "$(cat diff.txt)" ||
        pass "pkgnote carries the notes of the tables, in order"

# Refusals: a condition config.h lacks, a table outside loader_sources,
# an argument that is not a string literal.
printf '#define HAVE_THING 1\n#define HAVE_OFF 0\n' > config.h
cat > one.c <<'C'
/* PN_LIB_NOTE(HAVE_THING, "in a comment", "x", "y", "z") is no declaration */
#define PN_LIB_NOTE(cond, ...) /* nor is the definition */
static struct pn_lib a = {PN_LIB_NOTE(HAVE_THING, "thing", "suggested", "A \"thing\" (with parentheses)",
                                      "libthing.so.1", "libthing.so.0"), .name = "libthing"};
static struct pn_lib b = {PN_LIB_NOTE(HAVE_OFF, "off", "suggested", "switched off", "liboff.so.1")};
static struct pn_lib c = {PN_LIB_NOTE(ALWAYS, "always", "recommended", "always" " joined", "libalways.so.2")};
C
python3 "$script" config.h one.c > out 2> err
printf '%s\n' '[{"feature":"thing","description":"A \"thing\" (with parentheses)","priority":"suggested","soname":["libthing.so.1","libthing.so.0"]}]' \
        '[{"feature":"always","description":"always joined","priority":"recommended","soname":["libalways.so.2"]}]' > want
cmp -s out want && pass "conditions, escapes, several sonames, joined literals" ||
        fail "conditions, escapes, several sonames, joined literals" "$(diff want out; cat err)"
printf 'static struct pn_lib d = {PN_LIB_NOTE(HAVE_UNKNOWN, "u", "suggested", "u", "libu.so.1")};\n' > two.c
python3 "$script" config.h two.c > out 2> err
[ $? -ne 0 ] && grep -q 'two.c:1: condition HAVE_UNKNOWN is not defined' err && pass "an unknown condition fails" ||
        fail "an unknown condition fails" "$(cat out err)"
python3 "$script" config.h one.c --others one.c two.c > out 2> err
[ $? -ne 0 ] && grep -q 'two.c:1: a loader table in a file missing' err && pass "a table outside loader_sources fails" ||
        fail "a table outside loader_sources fails" "$(cat out err)"
printf 'static struct pn_lib e = {PN_LIB_NOTE(HAVE_THING, FEATURE_NAME, "suggested", "e", "libe.so.1")};\n' > three.c
python3 "$script" config.h three.c > out 2> err
[ $? -ne 0 ] && grep -q 'three.c:1: PN_LIB_NOTE(COND, feature' err && pass "a note that is not literals fails" ||
        fail "a note that is not literals fails" "$(cat out err)"
# The command gets one --dlopen per note, after its own arguments.
python3 "$script" config.h one.c -- sh -c 'printf "%s|" "$@"' sh generate > out 2> err
grep -q '^generate|--dlopen|\[{"feature":"thing",.*|--dlopen|\[{"feature":"always"' out &&
        pass "the command gets one --dlopen per note" || fail "the command gets one --dlopen per note" "$(cat out err)"
finish
