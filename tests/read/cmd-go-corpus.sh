#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Every Go program of a corpus of real Debian packages (bookworm and sid,
# amd64, and sid's s390x and arm64 builds: dist/fetch-go-corpus.sh) read
# by pkgnote and by Go's own `go version -m`, line by line: the path, the
# main module, every dependency with its version and checksum, each
# replacement and every build setting.  Each program is compared twice:
# test-gobuild's print (lib/02-elf-gobuild.c, in Go's own layout) with
# sid's Go (dist/make-sid-go-root.sh, run in its root), and `pkgnote show
# --json` (the public route, pkgnote_embedded) with the same reading; and
# once more with the machine's Go (1.19 in bookworm) where it reads the
# program (it reads all of this corpus: the layout has not changed since
# Go 1.18).  Fails on any difference; prints how many programs and
# module lines were compared.
. "$SRCDIR/tests/lib.sh"
require bwrap python3
GB=$BUILDDIR/tests/test-gobuild
[ -x "$GB" ] || fatal "$GB is not built"
CORPUS=${PKGNOTE_TEST_GO_CORPUS:-/var/cache/pkgnote/go-corpus}
ROOT=${PKGNOTE_TEST_SID_GO_ROOT:-/var/cache/pkgnote/roots/sid-go}
# needs THING HOW: the whole script needs THING, which HOW makes (a skip
# saying so, or a failure under PKGNOTE_STRICT=1)
needs() {
        if [ "${PKGNOTE_STRICT:-0}" = 1 ]; then
                echo "not ok - $1 is missing: $2 makes it (make deps-test runs it)"
                exit 1
        fi
        echo "1..0 # SKIP $1 is missing: $2 makes it"
        exit 77
}
[ -f "$CORPUS/.pkgnote-go-corpus" ] ||
        needs "the Go corpus $CORPUS" "sh dist/fetch-go-corpus.sh (with the network, once)"
[ -f "$ROOT/.pkgnote-sid-go-root" ] || needs "sid's Go root $ROOT" "sh dist/make-sid-go-root.sh"
LINES="$SRCDIR/tests/read/go-json-lines.py"

# sid_go_m FILE: sid's go version -m of FILE (a path inside the corpus),
# run in its root with the corpus bound read-only at /mnt/go-corpus; the
# path on its first line is the one outside.
sid_go_m() {
        bwrap --ro-bind "$ROOT" / --tmpfs /mnt --ro-bind "$CORPUS" /mnt/go-corpus --proc /proc --dev /dev \
                --unshare-net go version -m "/mnt/go-corpus/${1#"$CORPUS"/}" | sed "1s|^/mnt/go-corpus/|$CORPUS/|"
}
HOST_GO=$(command -v go 2> /dev/null) || HOST_GO=
COMPARED=0 MODULES=0 HOSTGO=0 SUITES= ARCHES=
find "$CORPUS" -type f ! -name '.*' | LC_ALL=C sort > files
mkdir pairs
[ -s files ] || fatal "no files in $CORPUS"
while IFS= read -r f; do
        name=${f#"$CORPUS"/}
        if ! sid_go_m "$f" > want.raw 2> want.err || [ ! -s want.raw ]; then
                fail "$name: sid's go version -m reads it" "$(head -c 300 want.err)"
                continue
        fi
        # an empty line after a replacement (Go 1.19's BuildInfo.String()) is no line of the list
        grep -v '^	$' want.raw > want
        if ! "$GB" "$f" > got 2> got.err; then
                fail "$name: read" "$(head -c 300 got.err)"
                continue
        fi
        if ! diff -u want got > diff.txt; then
                fail "$name: differs from go version -m" "$(sed 's/^/# /' diff.txt | head -20)"
                continue
        fi
        # the public route: show --json's embedded member, compared field
        # by field below (one python run for all)
        # (status 1: the program carries no package note, as these do not)
        "$PKGNOTE" show --json "$f" > "pairs/$COMPARED.json" 2> show.err
        st=$?
        if [ $st -gt 1 ]; then
                fail "$name: pkgnote show --json (status $st)" "$(head -c 300 show.err)"
                continue
        fi
        cp want "pairs/$COMPARED.go"
        echo "$name" > "pairs/$COMPARED.name"
        # and the machine's own Go, where it reads the program
        if [ -n "$HOST_GO" ] && "$HOST_GO" version -m "$f" > host.raw 2> /dev/null && [ -s host.raw ]; then
                grep -v '^	$' host.raw > host
                if ! diff -u host got > diff.txt; then
                        fail "$name: differs from $("$HOST_GO" version | cut -d' ' -f3)'s go version -m" "$(sed 's/^/# /' diff.txt | head -20)"
                        continue
                fi
                HOSTGO=$((HOSTGO + 1))
        fi
        COMPARED=$((COMPARED + 1))
        MODULES=$((MODULES + $(grep -c '^	\(mod\|dep\|=>\)	' got)))
        pass "$name: $(grep -c '^	\(mod\|dep\|=>\)	' got) module lines, $(grep -c '^	build	' got) build settings"
done < files
python3 "$LINES" --pairs pairs > pairs.out || fatal "cannot compare show --json with go version -m"
while read -r verdict n rest; do
        name=$(cat "pairs/$n.name")
        if [ "$verdict" = PASS ]; then
                pass "$name: show --json equals go version -m"
        else
                fail "$name: show --json differs from go version -m" "$rest"
        fi
done < pairs.out
[ "$(grep -c '^PASS ' pairs.out)" = "$COMPARED" ] && pass "show --json compared for all $COMPARED programs" ||
        fail "show --json compared for all $COMPARED programs" "$(grep -c '^PASS ' pairs.out) compared"
# what the corpus must hold, so that a shrunken one cannot pass: both
# suites, both byte orders, modules and replacements
for want in bookworm/ sid/ _s390x/ _arm64/; do
        grep -q "$want" files && pass "the corpus has $want programs" || fail "the corpus has $want programs"
done
[ "$MODULES" -ge 100 ] && pass "at least 100 module lines compared ($MODULES)" ||
        fail "at least 100 module lines compared ($MODULES)"
echo "# $COMPARED binaries, $MODULES modules compared ($COMPARED with sid's $(bwrap --ro-bind "$ROOT" / --proc /proc --dev /dev go version | cut -d' ' -f3) and show --json, $HOSTGO also with the machine's Go)"
echo "1..$((PASSED + FAILED))"
finish
