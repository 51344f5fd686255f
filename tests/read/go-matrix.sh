# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by cmd-gobuild.sh (Debian's Go on this machine) and
# cmd-gobuild-sid.sh (sid's Go, run inside its root): builds the program
# go_app_modules makes with $GO (a command or function standing for `go`)
# for amd64, i386, arm64 and s390x, plain, stripped (-s -w), PIE and
# -trimpath, each also without section headers, and compares pkgnote's
# reading of each with `$GO version -m`, counting in COMPARED and MODULES;
# then has $GO's runtime/debug and pkgnote's parser read the same module
# texts (tests/read/go-grammar.py) and write them back.

# same FILE NAME: pkgnote's reading of FILE equals $GO version -m's.
COMPARED=0
MODULES=0
# same FILE NAME [ORIGINAL]: ... or, when $GO version -m cannot read FILE
# (Go's reader looks only at the start of the first writable segment of
# an object without section headers, and a PIE's blob is in the second),
# equals $GO version -m's reading of ORIGINAL, the same file with them.
same() {
        if ! $GO version -m "$1" > want.raw 2> want.err || [ ! -s want.raw ]; then
                if [ -z "${3:-}" ] || ! $GO version -m "$3" > want.raw 2> want.err || [ ! -s want.raw ]; then
                        fail "$2: $GO version -m reads it" "$(head -c 300 want.raw want.err)"
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
                fail "$2: differs from $GO version -m" "$(sed 's/^/# /' diff.txt | head -20)"
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
                if ! (cd src/app && GOARCH=$arch $GO build "$flags" -o "$out" . 2> "$T/build.err"); then
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


# The grammar: $GO's runtime/debug.ParseBuildInfo() and BuildInfo.String()
# and pkgnote's parser and writer on the same module texts, each text's
# result (the text written back, in hex, or ERROR) equal.
mkdir -p src/parse
cat > src/parse/go.mod <<'GOEOF'
module example.com/parse

go 1.19
GOEOF
cat > src/parse/main.go <<'GOEOF'
package main

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"
)

func main() {
	for _, name := range os.Args[1:] {
		b, err := os.ReadFile(name)
		if err != nil {
			panic(err)
		}
		bi, err := debug.ParseBuildInfo(string(b))
		if err != nil {
			fmt.Println("ERROR")
			continue
		}
		// the empty line String() writes after each replacement ("=>")
		// line is no line of the list (cmd-gobuild leaves it out too)
		fmt.Printf("%x\n", strings.ReplaceAll(bi.String(), "\n\n", "\n"))
	}
}
GOEOF
python3 "$SRCDIR/tests/read/go-grammar.py" texts || fatal "cannot write the module texts"
if ! (cd src/parse && $GO build -o "$T/parse" . 2> "$T/build.err"); then
        fail "the grammar: go build" "$(head -c 300 "$T/build.err")"
elif ! (cd "$T" && $GO version > /dev/null && "$T/parse" texts/* > grammar.go 2> grammar.err); then
        fail "the grammar: $GO's parser runs" "$(head -c 300 grammar.err)"
elif ! "$GB" --parse texts/* > grammar.got 2> grammar.err; then
        fail "the grammar: pkgnote's parser runs" "$(head -c 300 grammar.err)"
else
        n=$(ls texts | wc -l)
        refused=$(grep -c '^ERROR$' grammar.go)
        if [ "$(wc -l < grammar.go)" = "$n" ] && cmp -s grammar.go grammar.got; then
                pass "the grammar: $n module texts read as Go reads them ($refused refused by both)"
        else
                fail "the grammar: $n module texts read as Go reads them" \
                        "$(ls texts | paste - grammar.go grammar.got | awk '$2 != $3' | head -5)"
        fi
fi
