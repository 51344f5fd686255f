#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# As cmd-gobuild.sh, with Debian sid's Go (1.27 when written) instead of
# the machine's: the same programs from local modules (go_app_modules),
# built inside the root dist/make-sid-go-root.sh makes (bwrap: the root
# read-only, the test's directory writable at its own path, no network),
# for amd64, i386, arm64 and s390x, plain, stripped, PIE and -trimpath,
# with and without section headers; pkgnote's reading of each equals that
# Go's own `go version -m`.
. "$SRCDIR/tests/lib.sh"
require bwrap python3 readelf
GB=$BUILDDIR/tests/test-gobuild
[ -x "$GB" ] || fatal "$GB is not built"
ROOT=${PKGNOTE_TEST_SID_GO_ROOT:-/var/cache/pkgnote/roots/sid-go}
if [ ! -f "$ROOT/.pkgnote-sid-go-root" ]; then
        if [ "${PKGNOTE_STRICT:-0}" = 1 ]; then
                echo "not ok - sid's Go root $ROOT is missing: sh dist/make-sid-go-root.sh makes it (make deps-test runs it)"
                exit 1
        fi
        echo "1..0 # SKIP sid's Go root $ROOT is missing: sh dist/make-sid-go-root.sh makes it"
        exit 77
fi
# The test's directory is bound at its own path over a fresh /tmp of the
# root, so that the paths go version -m prints are the ones outside.
case $T in /tmp/*) ;; *) fatal "the test directory $T is not under /tmp (TMPDIR): it cannot be bound into the root" ;; esac

. "$SRCDIR/tests/read/go-modules.sh"
# sid_go ARGS...: the root's go, in the root.
sid_go() {
        bwrap --ro-bind "$ROOT" / --tmpfs /tmp --bind "$T" "$T" --proc /proc --dev /dev --unshare-net \
                --chdir "$PWD" go "$@"
}
v=$(sid_go version) || fatal "sid's go does not run in $ROOT: $v"
echo "# $v"
case $v in "go version go1."*) pass "sid's Go runs in its root: $v" ;; *) fail "sid's Go runs in its root" "$v" ;; esac
go_app_modules

GO=sid_go
. "$SRCDIR/tests/read/go-matrix.sh"

echo "# $COMPARED programs and $MODULES module lines compared with $v's go version -m"
echo "1..$((PASSED + FAILED))"
finish
