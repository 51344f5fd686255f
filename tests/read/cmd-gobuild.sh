#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The build information of Go programs (lib/02-elf-gobuild.c) against
# `go version -m`, line by line: programs built here with Debian's Go
# from local modules (a dependency replaced by a directory, a git
# revision, quoted -ldflags), for amd64, i386, arm64 and s390x
# (big-endian), plain, stripped (-s -w), PIE and -trimpath, and each also
# without its section headers (found in the writable segment, as Go's
# reader finds it) (tests/read/go-matrix.sh, which cmd-gobuild-sid.sh
# runs with sid's Go); the module text's grammar against Go's own
# parser; then every Go program of Debian's own packages on this machine.
# A program that is not Go has none.
. "$SRCDIR/tests/lib.sh"
require go git python3 cc
GB=$BUILDDIR/tests/test-gobuild
[ -x "$GB" ] || fatal "$GB is not built"

. "$SRCDIR/tests/read/go-modules.sh"
go_app_modules

GO=go
. "$SRCDIR/tests/read/go-matrix.sh"

# Debian's own Go programs on this machine (the toolchain's and others in
# /usr/bin), each compared.
n0=$COMPARED
for f in /usr/lib/go-*/bin/* /usr/lib/go-*/pkg/tool/*/* /usr/bin/*; do
        [ -f "$f" ] && [ ! -L "$f" ] || continue
        case $(head -c 4 "$f" | od -An -c | tr -d ' ') in '177ELF') ;; *) continue ;; esac
        readelf -S "$f" 2> /dev/null | grep -q '\.go\.buildinfo' || continue
        same "$f" "Debian's $f"
done
[ $((COMPARED - n0)) -gt 5 ] && pass "Debian's Go programs compared: $((COMPARED - n0))" ||
        fail "Debian's Go programs compared: $((COMPARED - n0))"

# not Go: none, and no error
"$GB" /bin/sh > got 2> got.err
[ $? = 1 ] && grep -q 'no Go build information' got.err && pass "a C program has none" ||
        fail "a C program has none" "$(cat got.err)"

echo "# $COMPARED programs and $MODULES module lines compared with go version -m"
echo "1..$((PASSED + FAILED))"
finish
