#!/bin/sh
# The library's ABI: the functions include/pkgnote.h declares are exactly
# those lib/libpkgnote.sym lists and the built library exports, every one
# under a version node; the ABI of each release (its functions and the
# types they reach) equals its baseline in tests/arch/abi, which stays the
# release's: libpkgnote.abi for 1.0, libpkgnote-1.N.abi for 1.N.  A
# function added after a release passes only in a node after the
# release's (LIBPKGNOTE_1.1, ...), and any change to a function or type of
# a baseline fails (UPDATE_ABI=1 rewrites the 1.0 baseline, for a new
# soname only); and the API probe, built against the installed library
# through pkg-config, runs clean with it.
. "$SRCDIR/tests/lib.sh"
: "${BUILDDIR:?BUILDDIR must name the meson build directory}"
LIB="$BUILDDIR/libpkgnote.so"
[ -e "$LIB" ] || fatal "no $LIB"

# ---------------------------------------------------------------- symbols
grep -o 'PKGNOTE_PUBLIC [^;]*(' "$SRCDIR/include/pkgnote.h" | sed -n 's/.*[ *]\(pkgnote_[a-z0-9_]*\)($/\1/p' | sort > header.txt
sed -n 's/^ *\(pkgnote_[a-z0-9_]*\);$/\1/p' "$SRCDIR/lib/libpkgnote.sym" | sort > map.txt
nm -D --defined-only "$LIB" | awk '$2 == "T" {print $3}' | sed 's/@.*//' | sort > exported.txt
nm -D --defined-only "$LIB" | awk '$2 == "T" && $3 !~ /@@?LIBPKGNOTE_/ {print $3}' > unversioned.txt
[ -s header.txt ] || fatal "no function found in the header"
diff -u header.txt map.txt > d1.txt && pass "the symbol map lists every function of the header, and no other" ||
        fail "the symbol map lists every function of the header, and no other" "$(sed 's/^/# /' d1.txt)"
diff -u header.txt exported.txt > d2.txt && pass "the library exports exactly the header's functions" ||
        fail "the library exports exactly the header's functions" "$(sed 's/^/# /' d2.txt)"
# A pattern among the global names would export whatever matches it.
wild=$(sed -e 's|/\*.*\*/||' "$SRCDIR/lib/libpkgnote.sym" | awk '/global:/ {g = 1; next} /local:/ {g = 0} g && /[*?[]/')
[ -z "$wild" ] && pass "no wildcard among the exported names" || fail "no wildcard among the exported names" "$wild"
[ ! -s unversioned.txt ] && pass "every export carries a version" ||
        fail "every export carries a version" "$(cat unversioned.txt)"

# ---------------------------------------------------------------- ABI
# The baseline's functions, and the library's with their nodes
# (NAME@@NODE).  Every function of the baseline is still exported in the
# node it had; every function not in it is in a node after 1.0.
sed -n "s/.*<elf-symbol name='\(pkgnote_[a-z0-9_]*\)' version='\([A-Z0-9_.]*\)'.*type='func-type'.*/\1@@\2/p" \
        "$SRCDIR/tests/arch/abi/libpkgnote.abi" | sort -u > baseline-syms.txt
nm -D --defined-only "$LIB" | awk '$2 == "T" {print $3}' | sort -u > versioned.txt
nodes_check() { # BASELINE VERSIONED: prints what is wrong, nothing when all is right
        sed 's/@@.*//' "$1" > nodes-base.txt
        sed 's/.*@@//' "$1" | sort -u > nodes-names.txt
        # a baseline function gone or moved to another node
        comm -23 "$1" "$2" | sed 's/^/gone or moved: /'
        # an added function in one of the baseline's nodes
        sed 's/@@.*//' "$2" | sort | comm -13 nodes-base.txt - | while read -r f; do
                grep "^$f@@" "$2" | while read -r fv; do
                        grep -qxF "${fv#*@@}" nodes-names.txt && echo "added to ${fv#*@@LIBPKGNOTE_}: $f"
                done
        done
}
[ -s baseline-syms.txt ] || fatal "no function in the baseline"
nodes_check baseline-syms.txt versioned.txt > nodes.txt
[ ! -s nodes.txt ] && pass "the baseline's functions keep their nodes, and added functions are in later nodes" ||
        fail "the baseline's functions keep their nodes, and added functions are in later nodes" "$(sed 's/^/# /' nodes.txt)"
# Each later release's baseline: its functions keep their nodes, and no
# function was added to one of them since.
for base in "$SRCDIR"/tests/arch/abi/libpkgnote-1.*.abi; do
        [ -e "$base" ] || continue
        rel=${base##*/libpkgnote-}
        rel=${rel%.abi}
        sed -n "s/.*<elf-symbol name='\(pkgnote_[a-z0-9_]*\)' version='\([A-Z0-9_.]*\)'.*type='func-type'.*/\1@@\2/p" \
                "$base" | sort -u > "baseline-$rel-syms.txt"
        grep -q "@@LIBPKGNOTE_$rel\$" "baseline-$rel-syms.txt" || fatal "no function of node $rel in $base"
        nodes_check "baseline-$rel-syms.txt" versioned.txt > "nodes-$rel.txt"
        [ ! -s "nodes-$rel.txt" ] && pass "the $rel release's functions keep their nodes, and none was added to them" ||
                fail "the $rel release's functions keep their nodes, and none was added to them" "$(sed 's/^/# /' "nodes-$rel.txt")"
done
# Control: a function of a later node put into 1.1 fails the 1.1 check.
if [ -s baseline-1.1-syms.txt ]; then
        later=$(grep -m 1 '@@LIBPKGNOTE_1\.[2-9]' versioned.txt | sed 's/@@.*//')
        if [ -n "$later" ]; then
                sed "s/^$later@@.*/$later@@LIBPKGNOTE_1.1/" versioned.txt > bad11.txt
                nodes_check baseline-1.1-syms.txt bad11.txt | grep -q "added to 1.1: $later" &&
                        pass "control: a later function put into the 1.1 node fails the 1.1 check" ||
                        fail "control: a later function put into the 1.1 node fails the 1.1 check"
        fi
fi
# Control: the check fails for a function added to 1.0 and for one moved.
echo "pkgnote_signature_text@@LIBPKGNOTE_1.0" | sort -u - versioned.txt | grep -v '^pkgnote_signature_text@@LIBPKGNOTE_1\.[1-9]' > bad1.txt
sed 's/^pkgnote_core_open@@LIBPKGNOTE_1\.0$/pkgnote_core_open@@LIBPKGNOTE_1.1/' versioned.txt > bad2.txt
if nodes_check baseline-syms.txt bad1.txt | grep -q "added to 1.0: pkgnote_signature_text" &&
        nodes_check baseline-syms.txt bad2.txt | grep -q "gone or moved: pkgnote_core_open@@LIBPKGNOTE_1.0"; then
        pass "control: a function added to 1.0, or a 1.0 function moved, fails the node check"
else
        fail "control: a function added to 1.0, or a 1.0 function moved, fails the node check"
fi

if command -v abidiff > /dev/null && command -v abidw > /dev/null; then
        if [ "${UPDATE_ABI:-}" = 1 ]; then
                abidw --headers-dir "$SRCDIR/include" --no-corpus-path --no-comp-dir-path "$LIB" \
                        > "$SRCDIR/tests/arch/abi/libpkgnote.abi" || fatal "abidw failed"
        fi
        # A growable struct (its first member size_t size) may gain members
        # at its end: the library reads a caller's older, shorter struct by
        # its size.  Such a struct is left out of abidiff's report when every
        # member the baseline BASE has keeps its name and offset here and it
        # only grew; any other change of it is reported.
        abidw --headers-dir "$SRCDIR/include" --no-corpus-path --no-comp-dir-path "$LIB" > current.abi ||
                fatal "abidw failed"
        growable_supp() {
                python3 - "$SRCDIR/include/pkgnote.h" "$1" current.abi <<'PY'
import re, sys
import xml.etree.ElementTree as ET
names = re.findall(r"typedef struct (\w+) \{\s*size_t size;", open(sys.argv[1]).read())
assert "pkgnote_crash_options" in names, names
def layouts(path):
    out = {}
    for c in ET.parse(path).iter("class-decl"):
        if c.get("name") in names and c.get("is-declaration-only") != "yes" and c.get("size-in-bits"):
            members = [(v.get("name"), m.get("layout-offset-in-bits")) for m in c.iter("data-member") for v in m.iter("var-decl")]
            out[c.get("name")] = (int(c.get("size-in-bits")), members)
    return out
base, cur = layouts(sys.argv[2]), layouts(sys.argv[3])
for name in names:
    if name in base and name in cur and cur[name][0] >= base[name][0] and cur[name][1][:len(base[name][1])] == base[name][1]:
        print("[suppress_type]\n  type_kind = struct\n  name = %s\n" % name)
PY
        }
        # Functions added since a baseline are not changes of it (their
        # nodes are checked above); anything else abidiff sees is: a
        # function removed or changed, or a type a function reaches.
        abi_check() { # RELEASE BASELINE
                growable_supp "$2" > "growable-$1.supp" || fatal "cannot list the growable structs"
                abidiff --no-added-syms --suppressions "growable-$1.supp" --headers-dir2 "$SRCDIR/include" \
                        "$2" "$LIB" > "abidiff-$1.txt" 2>&1
                rc=$?
                if [ $rc -eq 0 ]; then
                        pass "the $1 ABI equals the baseline tests/arch/abi/${2##*/}"
                else
                        # abidiff: bit 4 an ABI change, bit 8 an incompatible one.
                        what="changed"
                        [ $((rc & 8)) -ne 0 ] && what="broken incompatibly"
                        fail "the $1 ABI equals the baseline tests/arch/abi/${2##*/}" \
                                "ABI $what (abidiff status $rc); a released function or type must not change:
$(sed 's/^/# /' "abidiff-$1.txt")"
                fi
        }
        abi_check 1.0 "$SRCDIR/tests/arch/abi/libpkgnote.abi"
        # Each later release's ABI against its own baseline.
        for base in "$SRCDIR"/tests/arch/abi/libpkgnote-1.*.abi; do
                [ -e "$base" ] || continue
                rel=${base##*/libpkgnote-}
                abi_check "${rel%.abi}" "$base"
        done
        # Control: the same comparison fails when a 1.0 type differs (the
        # baseline's pkgnote_process_info with has_fault_address moved) and
        # when a 1.0 function is gone from the library (one more in the
        # baseline).
        python3 - "$SRCDIR/tests/arch/abi/libpkgnote.abi" type.abi gone.abi <<'PY' || fatal "cannot make the control baselines"
import re, sys
s = open(sys.argv[1]).read()
i = s.index("<var-decl name='has_fault_address'")
j = s.rindex("layout-offset-in-bits='", 0, i)
k = s.index("'", j + len("layout-offset-in-bits='"))
open(sys.argv[2], "w").write(s[:j] + "layout-offset-in-bits='232" + s[k:])
m = re.search(r"<elf-symbol name='pkgnote_core_open' [^>]*/>", s)
open(sys.argv[3], "w").write(s[:m.end()] + "\n    " + m.group(0).replace("pkgnote_core_open", "pkgnote_core_reopen") + s[m.end():])
PY
        growable_supp type.abi > growable-type.supp || fatal "cannot list the growable structs"
        abidiff --no-added-syms --suppressions growable-type.supp --headers-dir2 "$SRCDIR/include" type.abi "$LIB" > control1.txt 2>&1
        rc1=$?
        abidiff --no-added-syms --suppressions growable-1.0.supp --headers-dir2 "$SRCDIR/include" gone.abi "$LIB" > control2.txt 2>&1
        rc2=$?
        if [ $rc1 -ne 0 ] && grep -q has_fault_address control1.txt && [ $rc2 -ne 0 ] && grep -q pkgnote_core_reopen control2.txt; then
                pass "control: a changed 1.0 type and a removed 1.0 function fail the comparison (status $rc1, $rc2)"
        else
                fail "control: a changed 1.0 type and a removed 1.0 function fail the comparison" \
                        "status $rc1, $rc2: $(sed 's/^/# /' control1.txt control2.txt)"
        fi
else
        missing "the 1.0 ABI equals the baseline tests/arch/abi/libpkgnote.abi" "abidiff (Debian: abigail-tools)"
fi

# ---------------------------------------------------------------- installed
meson install -C "$BUILDDIR" --destdir "$T/root" --no-rebuild --quiet > install.log 2>&1 ||
        fatal "meson install failed: $(cat install.log)"
opt() { meson introspect "$BUILDDIR" --buildoptions | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]==sys.argv[1]][0])' "$1"; }
prefix=$(opt prefix)
libdir=$(opt libdir)
sanitize=$(opt b_sanitize)
SANFLAGS=
[ "$sanitize" != none ] && SANFLAGS="-fsanitize=$sanitize"
R="$T/root$prefix"
sed "s|^prefix=.*|prefix=$R|" "$R/$libdir/pkgconfig/libpkgnote.pc" > libpkgnote.pc
if cc $SANFLAGS -O1 -g -o probe "$SRCDIR/tests/api/api-probe.c" -I"$SRCDIR/fuzz" \
        -Xlinker '--package-metadata={"type":"test","name":"regress-uaf","version":"1"}' \
        $(PKG_CONFIG_PATH=. pkg-config --cflags --libs libpkgnote) $(pkg-config --cflags --libs jansson) 2> cc.log; then
        pass "the API probe builds against the installed header and library"
else
        fail "the API probe builds against the installed header and library" "$(sed 's/^/# /' cc.log)"
fi
loaded=$(LD_TRACE_LOADED_OBJECTS=1 LD_LIBRARY_PATH="$R/$libdir" ./probe 2>/dev/null | grep libpkgnote)
case $loaded in
*"$R/$libdir/libpkgnote.so"*) pass "the probe loads the installed library" ;;
*) fail "the probe loads the installed library" "$loaded" ;;
esac
if LD_LIBRARY_PATH="$R/$libdir" ./probe > probe.out 2>&1; then
        pass "the API probe runs clean with the installed library"
else
        fail "the API probe runs clean with the installed library" "$(sed 's/^/# /' probe.out)"
fi
finish
