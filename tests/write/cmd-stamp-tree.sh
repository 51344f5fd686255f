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
mkdir -p stage/usr/sbin && ln stage/usr/bin/hard1 stage/usr/sbin/hard3
# A file with a name outside the tree.
cp stage/usr/bin/prog stage/usr/bin/outlinked && ln stage/usr/bin/outlinked outside-name
cp outside-name outside.orig
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
# Hard links: a file whose names are all in the tree is stamped once, and
# every name keeps pointing at the same (stamped) file.
i1=$(stat -c %i stage/usr/bin/hard1)
if [ "$i1" = "$(stat -c %i stage/usr/bin/hard2)" ] && [ "$i1" = "$(stat -c %i stage/usr/sbin/hard3)" ] &&
        [ "$(stat -c %h stage/usr/bin/hard1)" = 3 ] && [ "$("$PKGNOTE" show --field name stage/usr/bin/hard1)" = pkg ]; then
        pass "hard links in the tree: stamped once, all names share the stamped file"
else
        fail "hard links in the tree: stamped once, all names share the stamped file" "$(ls -li stage/usr/bin stage/usr/sbin)"
fi
grep -q "outlinked': has hard links outside the tree" err && pass "a name outside the tree: skipped with a reason" \
        || fail "a name outside the tree: skipped with a reason" "$(cat err)"
cmp -s outside-name outside.orig && [ "$(stat -c %h outside-name)" = 2 ] && pass "a name outside the tree: untouched" \
        || fail "a name outside the tree: untouched"
grep -q "6 ELF files carry the note, 1 skipped" err && pass "summary line" || fail "summary line" "$(cat err)"
ls -aR stage | grep -q 'pkgnote-' && fail "no temporaries left in the tree" "$(ls -aR stage)" || pass "no temporaries left in the tree"
./stage/usr/bin/prog && pass "stamped program runs" || fail "stamped program runs"

cp -a stage stage2
run stamp --tree --no-os-release --type deb --name pkg --version 1.0 stage
diff -r stage stage2 > /dev/null && pass "second run changes nothing" || fail "second run changes nothing"
run stamp --tree --remove stage
expect_status 0 "stamp --tree --remove exits 0"
"$PKGNOTE" show stage/usr/bin/prog > /dev/null 2>&1
[ $? -eq 1 ] && pass "--remove over the tree takes the note out" || fail "--remove over the tree takes the note out"
# A directory swapped for a symbolic link while the tree is stamped: the
# walk and the writes go through directory descriptors opened without
# following links, so files outside the tree are never touched.  A racing
# process swaps race/sub for a link to victim/ as fast as it can while
# stamp --tree runs again and again.
mkdir -p race/sub victim
for i in 01 02 03 04 05 06 07 08 09 10 11 12; do cp stage2/usr/bin/prog "race/sub/f$i"; cp stage/usr/bin/prog "victim/f$i"; done
"$PKGNOTE" stamp -q --tree --remove victim 2> /dev/null
cp -a victim victim.orig
python3 - <<'PY2' &
import os, time
end = time.time() + 60
while time.time() < end and not os.path.exists("race.stop"):
    try:
        os.rename("race/sub", "race/sub.real")
        os.symlink("../victim", "race/sub")
        os.unlink("race/sub")
        os.rename("race/sub.real", "race/sub")
    except OSError:
        pass
PY2
swapper=$!
n=0
while [ $n -lt 40 ]; do
        "$PKGNOTE" stamp -q --tree --no-os-release --name race --version "1.$n" race > /dev/null 2>&1
        n=$((n + 1))
done
touch race.stop
wait $swapper
[ -d race/sub.real ] && [ ! -e race/sub ] && mv race/sub.real race/sub
if diff -r victim victim.orig > /dev/null && [ -z "$(ls -a victim | grep pkgnote-)" ]; then
        pass "directory swapped for a symlink during --tree: nothing outside the tree touched ($n runs)"
else
        fail "directory swapped for a symlink during --tree: nothing outside the tree touched ($n runs)" "$(diff -r victim victim.orig | head -3)"
fi
[ "$("$PKGNOTE" show --field name race/sub/f01 2>/dev/null)" = race ] && pass "the race's tree itself was stamped" || fail "the race's tree itself was stamped"

run stamp --tree --name x --no-os-release m.c
expect_status 2 "--tree of a file is an error"
expect_err "is not a directory" "says so"
finish
