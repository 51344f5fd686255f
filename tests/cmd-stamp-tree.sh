#!/bin/sh
# pkgnote stamp --tree: the post-build route over a staging directory.
. "$SRCDIR/tests/lib.sh"
mkdir -p stage/usr/bin stage/usr/lib stage/usr/lib/debug/.build-id/ab stage/usr/share/doc
printf 'int main(void){return 0;}\n' > m.c
printf 'int f(void){return 1;}\n' > l.c
cc -o stage/usr/bin/prog m.c || fatal "cc failed"
cc -shared -fPIC -o stage/usr/lib/libx.so.1 l.c || fatal "cc failed"
cc -c -o stage/usr/lib/mod.o l.c || fatal "cc failed"
cp stage/usr/bin/prog stage/usr/lib/debug/.build-id/ab/cdef.debug
printf 'not elf\n' > stage/usr/share/doc/README
ln -s ../lib/libx.so.1 stage/usr/bin/link-to-lib
cp stage/usr/bin/prog stage/usr/bin/hard1 && ln stage/usr/bin/hard1 stage/usr/bin/hard2
cp stage/usr/share/doc/README readme.orig
cp stage/usr/lib/debug/.build-id/ab/cdef.debug debug.orig

run stamp --tree --no-os-release --type deb --name pkg --version 1.0 stage
expect_status 0 "stamp --tree exits 0"
for f in usr/bin/prog usr/lib/libx.so.1 usr/lib/mod.o; do
        "$PKGNOTE" show --field name "stage/$f" > name.txt 2>&1
        [ "$(cat name.txt)" = pkg ] && pass "$f stamped" || fail "$f stamped" "$(cat name.txt)"
done
cmp -s readme.orig stage/usr/share/doc/README && pass "non-ELF file untouched" || fail "non-ELF file untouched"
cmp -s debug.orig stage/usr/lib/debug/.build-id/ab/cdef.debug && pass "debug file untouched" || fail "debug file untouched"
[ -L stage/usr/bin/link-to-lib ] && pass "symlink kept, not followed" || fail "symlink kept, not followed"
grep -q "hard1': has other hard links" err && pass "hard-linked file skipped with a reason" || fail "hard-linked file skipped with a reason" "$(cat err)"
[ "$(stat -c %h stage/usr/bin/hard1)" = 2 ] && pass "hard link left intact" || fail "hard link left intact"
grep -q "3 ELF files carry the note, 2 skipped" err && pass "summary line" || fail "summary line" "$(cat err)"
./stage/usr/bin/prog && pass "stamped program runs" || fail "stamped program runs"

cp -a stage stage2
run stamp --tree --no-os-release --type deb --name pkg --version 1.0 stage
diff -r stage stage2 > /dev/null && pass "second run changes nothing" || fail "second run changes nothing"
run stamp --tree --remove stage
expect_status 0 "stamp --tree --remove exits 0"
"$PKGNOTE" show stage/usr/bin/prog > /dev/null 2>&1
[ $? -eq 1 ] && pass "--remove over the tree takes the note out" || fail "--remove over the tree takes the note out"
run stamp --tree --name x --no-os-release m.c
expect_status 2 "--tree of a file is an error"
expect_err "is not a directory" "says so"
finish
