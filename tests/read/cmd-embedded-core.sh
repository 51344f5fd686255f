#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Go's build information in real kernel cores: a Go program built here
# (fixed address and PIE) panics with GOTRACEBACK=crash and the kernel
# dumps it; pkgnote core's module of the program carries what show --json
# says of the file, read from the dumped pages of its data segment (the
# file is removed first, so nothing comes from disk).  With
# coredump_filter 0x10 (ELF headers only, set for that process alone) the
# data pages are not dumped: the module has no list, and its reason says
# so; no problem, no failure.  A zstd-compressed core gives the list too;
# one read from a pipe cannot go back for the pages, and says so.
. "$SRCDIR/tests/lib.sh"
require go python3
case $(cat /proc/sys/kernel/core_pattern 2> /dev/null) in
'|'* | /*)
        echo "1..0 # SKIP core_pattern does not write a core into the working directory"
        exit 77
        ;;
esac
(ulimit -c unlimited) 2> /dev/null || { echo "1..0 # SKIP cannot raise the core size limit"; exit 77; }

mkdir -p src && printf 'module example.com/crasher\n\ngo 1.19\n' > src/go.mod &&
        printf 'package main\n\nfunc main() { panic("boom") }\n' > src/main.go || fatal "cannot write the program"
export GOCACHE=$T/gocache GOPATH=$T/gopath GOPROXY=off GOFLAGS=-mod=mod HOME=$T
(cd src && CGO_ENABLED=0 go build -o ../crasher . && go build -buildmode=pie -o ../crasher-pie .) ||
        fatal "go cannot build the program"

# dump PROG FILTER: PROG's core as ./core.PROG, the process's
# coredump_filter set to FILTER first (its own, not the system's).
dump() {
        mkdir -p "d.$1" && cp "$1" "d.$1/$1" && rm -f "d.$1/core"
        (cd "d.$1" && ulimit -c unlimited && echo "$2" > /proc/self/coredump_filter &&
                GOTRACEBACK=crash exec "./$1") > /dev/null 2>&1
        [ -s "d.$1/core" ] || return 1
        mv "d.$1/core" "core.$1"
        rm -f "d.$1/$1" # nothing from disk
}

module_embedded() {
        python3 - "$1" "$2" << 'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
m = [m for m in d["modules"] if m["path"].endswith("/" + sys.argv[2])]
print(json.dumps(m[0].get("embedded") if m else "no module", sort_keys=True))
print(m[0].get("reason") if m else "")
PYEOF
}

for prog in crasher crasher-pie; do
        "$PKGNOTE" show --json "$prog" | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["embedded"], sort_keys=True))' > want.txt
        grep -q '"toolchain": "go' want.txt || fatal "$prog: show finds no build information"
        if ! dump "$prog" 0x33; then
                fail "$prog: a core is dumped" "no core"
                continue
        fi
        "$PKGNOTE" core --json "core.$prog" > core.json 2> core.err
        module_embedded core.json "$prog" > got.txt
        if [ "$(head -n 1 got.txt)" = "$(cat want.txt)" ]; then
                pass "$prog: the core's module carries the build information, from the dumped data segment"
        else
                fail "$prog: the core's module carries the build information" "$(cat core.err got.txt | head -c 800)"
        fi
done

# the same core compressed as systemd-coredump stores it (decompressed once,
# then read in place) gives the list; read from a pipe, which cannot go
# back for the data pages, it gives none and says so
if [ -s core.crasher ]; then
        "$PKGNOTE" show --json crasher | python3 -c 'import json, sys; print(json.dumps(json.load(sys.stdin)["embedded"], sort_keys=True))' > want.txt
        if command -v zstd > /dev/null && with_feature zstd "a zstd-compressed core carries the build information"; then
                zstd -q -f core.crasher -o core.zst
                "$PKGNOTE" core --json core.zst > core.json 2> core.err
                module_embedded core.json crasher > got.txt
                [ "$(head -n 1 got.txt)" = "$(cat want.txt)" ] &&
                        pass "a zstd-compressed core carries the build information" ||
                        fail "a zstd-compressed core carries the build information" "$(cat core.err got.txt | head -c 600)"
        elif ! command -v zstd > /dev/null; then
                missing "a zstd-compressed core carries the build information" zstd
        fi
        cat core.crasher | "$PKGNOTE" core --json - > core.json 2> core.err
        st=$?
        module_embedded core.json crasher > got.txt
        if [ $st -eq 0 ] && [ "$(head -n 1 got.txt)" = null ] && grep -q 'core read as a stream' got.txt; then
                pass "a core read from a pipe: no list, the reason says why"
        else
                fail "a core read from a pipe: no list, the reason says why" "exit $st: $(cat core.err got.txt | head -c 600)"
        fi
fi

if dump crasher 0x10; then
        "$PKGNOTE" core --json core.crasher > core.json 2> core.err
        st=$?
        module_embedded core.json crasher > got.txt
        if [ $st -eq 0 ] && [ "$(head -n 1 got.txt)" = null ] && grep -q 'build information is not in the dumped pages' got.txt &&
                ! grep -q '"problems"' core.json; then
                pass "data pages not dumped: no list, the reason says so, no problem"
        else
                fail "data pages not dumped: no list, the reason says so" "exit $st: $(cat core.err got.txt | head -c 600)"
        fi
else
        fail "a core with coredump_filter 0x10 is dumped" "no core"
fi
finish
