#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The build information of Go programs (lib/02-elf-gobuild.c) against
# `go version -m`, line by line: programs built here with Debian's Go
# from local modules (a dependency replaced by a directory, a git
# revision, quoted -ldflags), for amd64, i386, arm64 and s390x
# (big-endian), plain, stripped (-s -w), PIE and -trimpath, and each also
# without its section headers (found in the writable segment, as Go's
# reader finds it); then every Go program of Debian's own packages on
# this machine.  A program that is not Go has none.
. "$SRCDIR/tests/lib.sh"
require go git python3 cc
GB=$BUILDDIR/tests/test-gobuild
[ -x "$GB" ] || fatal "$GB is not built"

. "$SRCDIR/tests/read/go-modules.sh"
go_app_modules

# same FILE NAME: pkgnote's reading of FILE equals go version -m's.
COMPARED=0
MODULES=0
# same FILE NAME [ORIGINAL]: ... or, when go version -m cannot read FILE
# (Go's reader looks only at the start of the first writable segment of
# an object without section headers, and a PIE's blob is in the second),
# equals go version -m's reading of ORIGINAL, the same file with them.
same() {
        if ! go version -m "$1" > want.raw 2> want.err || [ ! -s want.raw ]; then
                if [ -z "${3:-}" ] || ! go version -m "$3" > want.raw 2> want.err || [ ! -s want.raw ]; then
                        fail "$2: go version -m reads it" "$(head -c 300 want.raw want.err)"
                        return
                fi
                sed "1s|^$3:|$1:|" want.raw > want.tmp && mv want.tmp want.raw
        fi
        # Go 1.19's BuildInfo.String() writes an empty line after each
        # replacement ("=>") line: not part of the module list
        grep -v '^	$' want.raw > want
        if ! "$GB" "$1" > got 2> got.err; then
                fail "$2: read" "$(head -c 300 got.err)"
                return
        fi
        if diff -u want got > diff.txt; then
                COMPARED=$((COMPARED + 1))
                MODULES=$((MODULES + $(grep -c '^	\(mod\|dep\|=>\)	' got)))
                pass "$2"
        else
                fail "$2: differs from go version -m" "$(sed 's/^/# /' diff.txt | head -20)"
        fi
}

# noshdrs IN OUT: a copy of ELF file IN without section headers.
noshdrs() {
        python3 - "$1" "$2" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
is64, be = d[4] == 2, d[5] == 2
e = '>' if be else '<'
if is64:
    struct.pack_into(e + 'Q', d, 40, 0)
    struct.pack_into(e + 'HHH', d, 58, 0, 0, 0)
else:
    struct.pack_into(e + 'I', d, 32, 0)
    struct.pack_into(e + 'HHH', d, 46, 0, 0, 0)
open(sys.argv[2], 'wb').write(d)
EOF
        chmod +x "$2" # go version reads only executable files
}

for arch in amd64 386 arm64 s390x; do
        for mode in plain stripped pie trimpath; do
                case $mode in
                plain) flags="-ldflags=-X=main.version=1.0" ;;
                stripped) flags="-ldflags=-s -w" ;;
                pie)
                        # Go links PIE for 386 and s390x only through an
                        # external linker (cgo), for which no cross C
                        # library is installed
                        case $arch in 386 | s390x) continue ;; esac
                        flags="-buildmode=pie" ;;
                trimpath) flags="-trimpath" ;;
                esac
                out=$T/app-$arch-$mode
                if ! (cd src/app && GOARCH=$arch go build "$flags" -o "$out" . 2> "$T/build.err"); then
                        fail "$arch $mode: go build" "$(head -c 300 "$T/build.err")"
                        continue
                fi
                same "$out" "$arch $mode"
                noshdrs "$out" "$out.noshdrs"
                [ "$(readelf -S "$out.noshdrs" 2>&1 | grep -c go.buildinfo)" = 0 ] ||
                        fail "$arch $mode: the copy still has its section headers"
                same "$out.noshdrs" "$arch $mode, no section headers" "$out"
        done
done
# what was built carries what the test put in: the replacement, the git
# revision and the quoted flags (so an empty reading cannot pass)
"$GB" "$T/app-amd64-plain" > got 2>&1
grep -q '^	=>	\.\./lib	(devel)	$' got && grep -q '^	build	vcs.revision=' got &&
        grep -q '^	build	-ldflags=-X=main.version=1.0$' got && pass "the replacement, revision and flags are read" ||
        fail "the replacement, revision and flags are read" "$(head -c 600 got)"
"$GB" "$T/app-amd64-stripped" > got 2>&1
grep -q '^	build	-ldflags="-s -w"$' got && pass "a quoted build setting" || fail "a quoted build setting" "$(head -c 600 got)"

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
