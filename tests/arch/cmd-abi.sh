#!/bin/sh
# The library's ABI: the functions include/pkgnote.h declares are exactly
# those lib/libpkgnote.sym lists and the built library exports, every one
# under a version node; the ABI (functions and the types they reach)
# equals the baseline tests/arch/abi/libpkgnote.abi, so any change, compatible
# or not, is made on purpose (UPDATE_ABI=1 rewrites the baseline); and the
# API probe, built against the installed library through pkg-config, runs
# clean with it.
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
if command -v abidiff > /dev/null && command -v abidw > /dev/null; then
        if [ "${UPDATE_ABI:-}" = 1 ]; then
                abidw --headers-dir "$SRCDIR/include" --no-corpus-path --no-comp-dir-path "$LIB" \
                        > "$SRCDIR/tests/arch/abi/libpkgnote.abi" || fatal "abidw failed"
        fi
        abidiff --headers-dir2 "$SRCDIR/include" "$SRCDIR/tests/arch/abi/libpkgnote.abi" "$LIB" > abidiff.txt 2>&1
        rc=$?
        if [ $rc -eq 0 ]; then
                pass "the ABI equals the baseline tests/arch/abi/libpkgnote.abi"
        else
                # abidiff: bit 4 an ABI change, bit 8 an incompatible one.
                what="changed"
                [ $((rc & 8)) -ne 0 ] && what="broken incompatibly"
                fail "the ABI equals the baseline tests/arch/abi/libpkgnote.abi" \
                        "ABI $what (abidiff status $rc); if intended, rerun with UPDATE_ABI=1:
$(sed 's/^/# /' abidiff.txt)"
        fi
else
        missing "the ABI equals the baseline tests/arch/abi/libpkgnote.abi" "abidiff (Debian: abigail-tools)"
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
