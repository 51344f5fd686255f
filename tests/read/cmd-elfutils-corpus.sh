#!/bin/sh
# pkgnote against elfutils' own tools on elfutils' own test files: cores of
# old kernels (no NT_FILE), i386 and ppc processes, a ppc64 PIE, and a
# separate debug file made by an old strip.  The files come from Debian's
# elfutils source package (tests/read/elfutils-corpus.sh downloads it once into
# the build directory); each check compares pkgnote with eu-stack,
# eu-unstrip or (eu-)readelf run on the same file, not with frames or
# modules written down here.
. "$SRCDIR/tests/lib.sh"

require eu-stack eu-unstrip eu-readelf readelf python3

CORES_STACK="backtrace.i386.core backtrace.i386.fp.core testcore-rtlib testcore-rtlib-ppc testfile_i686_core"
CORES_MODULES="testcore-rtlib testcore-rtlib-ppc testfile66.core testfile69.core testfile70.core"
FILES="$CORES_STACK backtrace.i386.exec backtrace.i386.fp.exec testfile66.core testfile69.core testfile70.core testfile15.debug"
CORPUS=${PKGNOTE_ELFUTILS_CORPUS:-${BUILDDIR:-$T}/elfutils-corpus}
# shellcheck disable=SC2086 # a list of names
if ! sh "$SRCDIR/tests/read/elfutils-corpus.sh" "$CORPUS" $FILES 2> fetch.err; then
        if [ "${PKGNOTE_STRICT:-0}" = 1 ]; then
                echo "not ok - elfutils' test files could not be fetched: $(tr '\n' ' ' < fetch.err)"
                exit 1
        fi
        echo "1..0 # SKIP elfutils' test files could not be fetched: $(tr '\n' ' ' < fetch.err)"
        exit 77
fi
C=$CORPUS

# frames_eu [eu-stack args...]: eu-stack's threads, one line each: "TID pc
# pc ..." (with WITH_NAMES=1, "pc=function" for each frame).  eu-stack runs
# in an empty directory: what it finds besides the core is what libdwfl
# finds by build-id and at the paths the core names (none of these files
# is there with the right build-id), which is what --no-disk allows.
frames_eu() {
        mkdir -p empty
        (cd empty && eu-stack "$@" 2> /dev/null) > eu.raw
        python3 - eu.raw "${WITH_NAMES:-0}" <<'PY'
import re, sys
line = None
for l in open(sys.argv[1]):
    m = re.match(r"TID (\d+):", l)
    if m:
        if line:
            print(" ".join(line))
        line = [m.group(1)]
        continue
    m = re.match(r"#\d+\s+(0x[0-9a-f]+)\s*(\S*)", l)
    if m and line is not None:
        pc = "0x%x" % int(m.group(1), 16)
        line.append(pc + "=" + m.group(2) if sys.argv[2] == "1" else pc)
if line:
    print(" ".join(line))
PY
}
# frames_pn FILE: pkgnote's threads from its JSON, in the same form.
frames_pn() {
        python3 - "$1" "${WITH_NAMES:-0}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for t in d.get("threads", []):
    pcs = []
    for f in t["frames"]:
        if f.get("inlined"):
            continue
        pc = "0x%x" % int(f["pc"], 16)
        pcs.append(pc + "=" + (f.get("function") or "") if sys.argv[2] == "1" else pc)
    print(" ".join([str(t["tid"])] + pcs))
PY
}
# unstrip_eu CORE: eu-unstrip -n's modules, one line each: "start build-id name".
unstrip_eu() {
        eu-unstrip -n --core="$1" 2> /dev/null | python3 -c '
import sys
for l in sys.stdin:
    w = l.split()
    if len(w) >= 5:
        print("0x%x" % int(w[0].split("+")[0], 16), w[1].split("@")[0], w[-1])'
}

# compare NAME A B: the files hold the same lines, order aside.
compare() {
        sort "$2" > "$2.s"
        sort "$3" > "$3.s"
        if [ -s "$2.s" ] && diff -u "$2.s" "$3.s" > diff.txt; then pass "$1"; else
                fail "$1" "differs ($2 = eu-tool, $3 = pkgnote):"
                sed 's/^/# /' diff.txt
        fi
}

# ---------------------------------------------- (a) stacks without module files
# Regression: without module files the unwinder gave libdwfl no ELF for a
# module, nor for the vDSO, so it had no CFI and fell back to the frame
# pointer: raise() under __kernel_vsyscall was lost, and traces stopped
# where the core's own copy of the text held the CFI eu-stack used.
for f in $CORES_STACK; do
        with_feature stack "core-stack-no-disk: $f: the frames eu-stack finds without the executable" || continue
        frames_eu --core="$C/$f" > eu.$f
        "$PKGNOTE" core --all-threads --no-disk --json "$C/$f" > pn.$f.json 2> err || fail "core-stack-no-disk: $f" "$(cat err)"
        frames_pn pn.$f.json > pn.$f
        compare "core-stack-no-disk: $f: the frames eu-stack finds without the executable" eu.$f pn.$f
done

# The same with the executable, which eu-stack is given with -e and
# pkgnote finds at the path the core names, inside --root: function names
# too, from its symbol table.
for f in backtrace.i386 backtrace.i386.fp; do
        with_feature stack "core-stack-with-exec: $f.core: eu-stack -e's frames and functions" || continue
        "$PKGNOTE" core -S --json "$C/$f.core" > mods.json 2> /dev/null
        path=$(python3 -c 'import json,sys; print([m["path"] for m in json.load(open("mods.json"))["modules"] if not m.get("vdso")][0])')
        case $path in /*) ;; *) path=/$path ;; esac
        mkdir -p "root.$f${path%/*}" && cp "$C/$f.exec" "root.$f$path"
        WITH_NAMES=1 frames_eu -e "$C/$f.exec" --core="$C/$f.core" > eu.$f.e
        "$PKGNOTE" core --all-threads --root "root.$f" --json "$C/$f.core" > pn.$f.e.json 2> err
        WITH_NAMES=1 frames_pn pn.$f.e.json > pn.$f.e
        compare "core-stack-with-exec: $f.core: eu-stack -e's frames and functions" eu.$f.e pn.$f.e
done

# ---------------------------------------------- (b) modules of cores without NT_FILE
# Regression: each dumped ELF header was a module, so a data segment that
# shares the file's first page with the text made the program (or librt)
# a second module; and link_map entries named modules by l_addr, which is
# 0 for every prelinked library (testcore-rtlib-ppc had libc and
# libpthread swapped).  eu-unstrip -n is the reference: start and
# build-id of each module, and for those the link_map names, the name.
for f in $CORES_MODULES; do
        unstrip_eu "$C/$f" > eu.$f.unstrip
        cut -d' ' -f1,2 eu.$f.unstrip > eu.$f.mods
        "$PKGNOTE" core -S --no-disk --json "$C/$f" > pn.$f.mods.json 2> err
        python3 - pn.$f.mods.json > pn.$f.mods <<'PY'
import json, sys
for m in json.load(open(sys.argv[1]))["modules"]:
    print("0x%x" % int(m["start"], 16), m["buildId"] or "-")
PY
        compare "core-modules-no-nt-file: $f: the modules eu-unstrip lists" eu.$f.mods pn.$f.mods
        python3 - pn.$f.mods.json eu.$f.unstrip > names.diff <<'PY'
import json, sys
eu = {w[0]: w[2] for w in (l.split() for l in open(sys.argv[2]))}
for m in json.load(open(sys.argv[1]))["modules"]:
    if m["foundBy"] != "link-map":
        continue
    start = "0x%x" % int(m["start"], 16)
    base = m["path"].rsplit("/", 1)[-1]
    if eu.get(start) != base:
        print("%s: pkgnote %s, eu-unstrip %s" % (start, m["path"], eu.get(start)))
PY
        [ ! -s names.diff ] && pass "core-modules-no-nt-file: $f: link_map names as eu-unstrip's" ||
                fail "core-modules-no-nt-file: $f: link_map names as eu-unstrip's" "$(tr '\n' ';' < names.diff)"
done

# ---------------------------------------------- (c) a debug file of an old strip
# testfile15.debug keeps the stripped file's program headers; its note
# sections became SHT_NOBITS, so its PT_NOTE (0x128) points at .stab bytes.
# show exited 2 and scan counted it malformed.  eu-readelf -n reads the
# note sections (none has bytes) and lists no note; pkgnote reads the
# sections too, and says why it passed over the PT_NOTE.
d=$C/testfile15.debug
readelf -SW "$d" | grep -q '\.note\.ABI-tag *NOBITS' || fatal "testfile15.debug: .note.ABI-tag is not SHT_NOBITS here"
eu_notes=$(eu-readelf -n "$d" 2> /dev/null | grep -c '^ *Owner')
run show --json "$d"
expect_status 1 "debug-file-nobits-notes: show reads testfile15.debug (no package note: 1, not 2)"
expect_err "warning: PT_NOTE at offset 0x128 lies in section .note.ABI-tag" "debug-file-nobits-notes: show says why the PT_NOTE was passed over"
python3 -c 'import json,sys; d=json.load(open("out")); assert d["packages"] == [] and d["buildId"] is None, d' &&
        [ "$eu_notes" = 0 ] && pass "debug-file-nobits-notes: no notes, as eu-readelf -n lists" ||
        fail "debug-file-nobits-notes: no notes, as eu-readelf -n lists" "eu-readelf: $eu_notes notes; $(cat out)"
run scan --format json "$d"
python3 -c '
import json
s = [json.loads(l) for l in open("out") if "summary" in l][0]["summary"]
assert s["malformed"] == 0 and s["objects"] == 1, s
' && pass "debug-file-nobits-notes: scan counts it not malformed" || fail "debug-file-nobits-notes: scan counts it not malformed" "$(tail -n 1 out)"
run lint "$d"
grep -q "malformed-note" out err && fail "debug-file-nobits-notes: lint finds no malformed note" "$(cat out)" ||
        pass "debug-file-nobits-notes: lint finds no malformed note"
grep -q "separate-debug-file" out && pass "debug-file-nobits-notes: lint names it a separate debug file" ||
        fail "debug-file-nobits-notes: lint names it a separate debug file" "$(cat out)"

finish
