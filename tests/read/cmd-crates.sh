#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# cargo-auditable's crate lists (lib/03-model-crates.c) in real Rust
# programs: those dist/make-sid-rust-root.sh built with Debian sid's
# cargo-auditable, offline, over Debian's packaged crates (a program with
# crates.io, local and build-time dependencies, as built and after
# strip(1) in the root and here, and the debug file eu-strip -f makes).
# For each, the reader's list equals the section's JSON taken
# out by objcopy and decoded by Python's zlib and json, package by
# package; a program whose section was removed has none; and the real
# program with its section replaced by a zlib bomb, by invalid JSON and by
# a truncated stream fails with the reader's errors.
. "$SRCDIR/tests/lib.sh"
require python3 objcopy strip
CR=$BUILDDIR/tests/test-crates
[ -x "$CR" ] || fatal "$CR is not built"
OUT=${PKGNOTE_TEST_SID_RUST_ROOT:-/var/cache/pkgnote/roots/sid-rust}/build/out
if [ ! -x "$OUT/demo" ]; then
        missing "the Rust programs of the sid root (sh dist/make-sid-rust-root.sh)" "$OUT/demo"
        finish
        exit $?
fi
with_feature zlib "zlib streams" || { finish; exit $?; }

# What strippers do to the section, which is in no segment: binutils'
# strip keeps it (it is no debugging information), eu-strip removes it,
# and with -f moves it into the separate debug file.
cp "$OUT/demo" demo.bstrip && strip --strip-all demo.bstrip
PROGS="$OUT/demo $OUT/demo.stripped demo.bstrip"
if command -v eu-strip > /dev/null; then
        eu-strip -f demo.eu.debug -o demo.eu "$OUT/demo"
        PROGS="$PROGS demo.eu.debug"
        "$CR" demo.eu > got 2> err
        if [ $? -eq 3 ] && grep -q "no crate list" err; then pass "eu-strip removes the section"
        else fail "eu-strip removes the section" "$(cat got err)"; fi
else
        missing "eu-strip removes the section, -f moves it to the debug file" eu-strip
fi

# oracle FILE: the crate list of FILE's .dep-v0 as test-crates prints it,
# from objcopy's copy of the section, Python's zlib and json, and the
# format's defaults (kind "runtime", root false, no dependencies).
oracle() {
        rm -f dep.z
        objcopy --dump-section .dep-v0=dep.z "$1" obj.tmp 2> /dev/null || return 1
        python3 - dep.z << 'PY'
import json, sys, zlib
doc = json.loads(zlib.decompress(open(sys.argv[1], "rb").read()))
print("format %d" % doc.get("format", 0))
for i, p in enumerate(doc["packages"]):
    print("\t".join([str(i), p["name"], p["version"], p["source"], p.get("kind", "runtime"),
                     "root" if p.get("root", False) else "-", ",".join(str(d) for d in p.get("dependencies", []))]))
PY
}

COMPARED=0
CRATES=0
for prog in $PROGS; do
        name=${prog##*/}
        if ! oracle "$prog" > want; then
                fail "$name: the oracle reads its .dep-v0" "objcopy or Python could not decode it"
                continue
        fi
        "$CR" "$prog" > got 2> err
        st=$?
        if [ $st -eq 0 ] && diff -u want got > diff.txt; then
                pass "$name: the crate list equals the section's JSON ($(($(wc -l < want) - 1)) crates)"
                COMPARED=$((COMPARED + 1))
                CRATES=$((CRATES + $(wc -l < want) - 1))
        else
                fail "$name: the crate list equals the section's JSON" "status $st: $(cat err)"
                sed 's/^/# /' diff.txt 2> /dev/null
        fi
done
# What the build was made to hold is there: otherwise the comparison
# above would prove little.
if grep -q '	autocfg	[^	]*	crates.io	build	-	$' want && grep -q '	demo	0.3.1	local	runtime	root	.' want &&
        grep -q '	helper	0.1.0	local	runtime	-	$' want && grep -q '	itoa	[^	]*	crates.io	runtime' want &&
        awk -F '\t' '$2 == "autocfg" { a = $1 } $2 == "num-traits" { d = "," $7 "," }
                END { exit !(a != "" && index(d, "," a ",")) }' want; then
        pass "the list holds the build's crates.io, local and build-time crates, its root and num-traits' edge to autocfg"
else
        fail "the list holds the build's crates.io, local and build-time crates, its root and num-traits' edge to autocfg" "$(cat want)"
fi

"$CR" "$OUT/demo.nosection" > got 2> err
if [ $? -eq 3 ] && grep -q "no crate list" err; then pass "a program without .dep-v0 has no crate list"
else fail "a program without .dep-v0 has no crate list" "$(cat err)"; fi

# hostile SECTION-FILE DESCRIPTION WORDS: the real program with its
# section replaced fails with WORDS.
hostile() {
        if ! objcopy --update-section ".dep-v0=$1" "$OUT/demo" hostile.elf 2> err; then
                fail "$2" "objcopy: $(cat err)"
                return
        fi
        "$CR" hostile.elf > got 2> err
        if [ $? -eq 1 ] && grep -qF "$3" err; then pass "$2"; else fail "$2" "stderr '$(cat err)' lacks '$3'"; fi
}
python3 -c '
import zlib
open("bomb.z", "wb").write(zlib.compress(b"{\"packages\":[]" + b" " * (64 << 20) + b"}", 9))
open("badjson.z", "wb").write(zlib.compress(b"{\"packages\":[{\"name\":\"a\"}", 9))
open("cycle.z", "wb").write(zlib.compress(b"{\"packages\":[{\"name\":\"a\",\"version\":\"1.0.0\",\"source\":\"local\",\"dependencies\":[0]}]}"))
full = open("dep.z", "rb").read()
open("trunc.z", "wb").write(full[: len(full) - 5])
'
hostile bomb.z "a zlib bomb (64 MiB of JSON) stops at the limit" "decompresses to more than 8388608 bytes"
hostile badjson.z "invalid JSON in the section" "invalid JSON"
hostile cycle.z "a package depending on itself" "package 0 depends on itself"
hostile trunc.z "a truncated zlib stream" "the zlib stream is truncated"

echo "# compared $COMPARED programs, $CRATES crates"
[ "$COMPARED" -ge 3 ] || fail "three programs compared" "only $COMPARED"
finish
