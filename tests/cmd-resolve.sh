#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The loader's search (lib/check-resolve.c), shared by deps --closure and
# scan's dependency edges: bounded against hostile DT_RPATH x missing
# names by counting the system calls (strace -c), never by timing; and
# the same provider named by both commands in roots of several ABIs.
. "$SRCDIR/tests/lib.sh"
require cc readelf strace timeout python3
PK=$PKGNOTE

# syscalls FILE: the total of strace -c's summary in FILE.
syscalls() {
        awk '$NF == "total" { print $4; found = 1 } END { if (!found) print 0 }' "$1"
}

# hostile NAMES ENTRIES EXISTING OUT: a program OUT needing NAMES
# libraries that the root lacks, with a DT_RPATH of ENTRIES directories,
# EXISTING of them present in the root (root/); each library a copy of
# one stub without a soname, linked by file name (-l:).
hostile() {
        mkdir -p stubs root
        [ -f stubs/stub.so ] || printf 'int stub(void) { return 0; }\n' > stub.c &&
                cc -shared -o stubs/stub.so stub.c || return 1
        : > needed.rsp
        i=0
        while [ $i -lt "$1" ]; do
                [ -f "stubs/libmiss$i.so" ] || cp stubs/stub.so "stubs/libmiss$i.so"
                echo "-l:libmiss$i.so" >> needed.rsp
                i=$((i + 1))
        done
        python3 -c '
import sys
n, e = int(sys.argv[1]), int(sys.argv[2])
dirs = ["/rp/d%d" % i for i in range(n)]
print("-Wl,--disable-new-dtags,-rpath," + ":".join(dirs))
' "$2" "$3" > rpath.rsp
        i=0
        while [ $i -lt "$3" ]; do mkdir -p "root/rp/d$i"; i=$((i + 1)); done
        printf 'int main(void) { return 0; }\n' > main.c
        cc -o "$4" main.c -Lstubs -Wl,--no-as-needed @needed.rsp @rpath.rsp
}

# ------------------------------------------------------------ item 2
# 1,000 missing names (the most DT_NEEDED entries read) x 1,000 DT_RPATH
# entries (100 of them present):
# each directory is looked at once and listed once, so the work is a few
# system calls per directory, not per name and directory (before: four
# walks per name and entry, about 4 million, 83 s).
if hostile 1000 1000 100 root/prog; then
        readelf -d root/prog | grep -q 'Library rpath: \[/rp/d0:/rp/d1:' &&
                [ "$(readelf -d root/prog | grep -c NEEDED)" -ge 1000 ] || fail "hostile program built" "$(readelf -d root/prog | head)"
        timeout 120 strace -f -c -o st.txt "$PK" deps --closure --root root /prog > out 2> err
        rc=$?
        n=$(syscalls st.txt)
        miss=$(grep -c 'not found' err)
        # 1,000 directories and a dozen system ones: a handful of calls each.
        [ $rc -eq 1 ] && [ "$miss" -ge 1000 ] && [ "$n" -gt 0 ] && [ "$n" -le 12000 ] &&
                pass "deps --closure: 1,000 missing names x 1,000 RPATH entries cost $n system calls" ||
                fail "deps --closure: 1,000 missing names x 1,000 RPATH entries bounded" "status $rc, $miss missing, $n system calls; $(tail -3 err)"
else
        fail "hostile program built"
fi

# A program with 20,000 DT_RPATH entries and a few missing names: one
# look at each distinct directory (before: about 25 minutes).
if hostile 4 20000 0 root/prog2; then
        timeout 120 strace -f -c -o st2.txt "$PK" deps --closure --root root /prog2 > out 2> err
        rc=$?
        n=$(syscalls st2.txt)
        [ $rc -eq 1 ] && [ "$n" -gt 0 ] && [ "$n" -le 90000 ] &&
                pass "deps --closure: 20,000 RPATH entries cost $n system calls" ||
                fail "deps --closure: 20,000 RPATH entries bounded" "status $rc, $n system calls; $(tail -3 err)"
else
        fail "hostile program with 20,000 entries built"
fi

# The same entries many times over, and under other spellings ("/rp/d1/",
# "/rp//d1", $ORIGIN/rp/d1 with the program at the top): one look each.
python3 -c '
dirs = []
for k in range(500):
    dirs += ["/rp/d1", "/rp/d1/", "/rp//d1", "$ORIGIN/rp/d1", "/rp/../rp/d1"]
print("-Wl,--disable-new-dtags,-rpath," + ":".join(dirs))
' > rpath.rsp
if cc -o root/prog3 main.c -Lstubs -Wl,--no-as-needed -l:libmiss1.so -l:libmiss2.so @rpath.rsp; then
        timeout 120 strace -f -c -o st3.txt "$PK" deps --closure --root root /prog3 > out 2> err
        rc=$?
        n=$(syscalls st3.txt)
        [ $rc -eq 1 ] && [ "$n" -gt 0 ] && [ "$n" -le 3000 ] &&
                pass "deps --closure: 2,500 RPATH entries naming one directory cost $n system calls" ||
                fail "deps --closure: RPATH entries naming one directory looked at once" "status $rc, $n system calls"
else
        fail "program with repeated RPATH entries built"
fi

finish
