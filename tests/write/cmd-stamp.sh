#!/bin/sh
# pkgnote stamp: placement, idempotence, removal, atomic replacement with
# metadata kept, refusals, relocatable objects and kernel modules, real
# core dumps, foreign architectures and byte orders, fault injection, and
# a sample of this machine's executables and libraries
# (PKGNOTE_STAMP_SAMPLE files per kind, "all" for every one; 0 skips).
. "$SRCDIR/tests/lib.sh"

require cc
M='--no-os-release --type deb --os debian --os-version 12 --name hello --version 1.0-1 --architecture amd64'
JSON='{"type":"deb","os":"debian","osVersion":"12","name":"hello","version":"1.0-1","architecture":"amd64"}'

# field JSONFILE EXPR: evaluates a Python expression over the JSON object d.
field() { python3 -c 'import json,sys; d=json.loads(open(sys.argv[1]).readline()); print(eval(sys.argv[2]))' "$1" "$2"; }
check() { if eval "$2"; then pass "$1"; else fail "$1" "${3:-}"; fi; }

cat > crash.c <<'C'
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
        if (argc > 1 && !strcmp(argv[1], "crash")) {
                volatile int *p = 0;
                return *p;
        }
        printf("hello %d\n", argc);
        return 0;
}
C
cc -o hello crash.c -fuse-ld=bfd -Wl,--build-id || fatal "cannot link the fixture"
cc -O0 -g -c -o obj.o crash.c || fatal "cannot compile the fixture"
printf 'not an elf file\n' > text.txt

# ---------------------------------------------------------------- basics
cp hello h1
run stamp $M h1
expect_status 0 "stamp exits 0"
grep -q "^h1: note added in the first page" out && pass "small program: first page" || fail "small program: first page" "$(cat out)"
[ "$(./h1)" = "hello 1" ] && pass "stamped program runs" || fail "stamped program runs"
run show --json h1
check "note reads back" '[ "$(field out "json.dumps(d[\"packages\"][0], separators=(\",\",\":\"))")" = "$JSON" ]'
readelf -nW h1 | grep -qF "Packaging Metadata: $JSON" && pass "readelf -n shows it" || fail "readelf -n shows it"
[ "$(readelf -nW h1 | grep -c 'Build ID')" -ge 1 ] && [ "$(readelf -nW hello | sed -n 's/.*Build ID: //p')" = "$(readelf -nW h1 | sed -n 's/.*Build ID: //p' | head -1)" ] \
        && pass "build-id kept" || fail "build-id kept"
run lint h1
expect_status 0 "lint finds nothing wrong"

cp h1 h1.before
run stamp $M h1
grep -q "unchanged" out && cmp -s h1 h1.before && pass "stamping again: byte for byte the same" || fail "stamping again: byte for byte the same" "$(cat out)"

# A file that cannot be stamped: its JSON line and stderr both give the
# reason (writing the JSON line is a call of the library, whose success
# must not wipe the reason first).
printf 'not an object\n' > notelf
run stamp --json $M notelf
check "stamp --json of a file that is not ELF: the JSON error gives the reason" '[ -n "$(field out "d[\"error\"]")" ] && [ "$(field out "d[\"error\"]")" != "Exec format error" ]'
expect_err "not an ELF" "stamp --json of a file that is not ELF: stderr gives the reason"

run stamp --json $M --version 2.0-1 h1
check "replacing: --json says replaced" '[ "$(field out "d[\"placement\"]")" = replaced ]'
run show --field version h1
expect_out "2.0-1" "replacing: new version"

run stamp --json --no-os-release --name hello --version 1.0-1 --metadata '{"description":"a much longer note that does not fit into the room of the old one, so it has to go elsewhere"}' h1
check "longer note placed anew" '[ "$(field out "d[\"placement\"]")" != replaced ]'
run show --field description h1
grep -q "much longer note" out && pass "longer note reads back" || fail "longer note reads back"
run show --json h1
check "one package note only" '[ "$(field out "len(d[\"packages\"])")" = 1 ]'

run stamp --remove h1
expect_status 0 "--remove exits 0"
grep -q "note removed" out && pass "--remove says so" || fail "--remove says so"
run show h1
expect_status 1 "removed: no package note"
[ "$(./h1)" = "hello 1" ] && pass "removed: still runs" || fail "removed: still runs"
run stamp --remove h1
grep -q "no package note to remove" out && pass "removing twice" || fail "removing twice"
run stamp --remove --name x h1
expect_status 2 "--remove with metadata is refused"

# -o: FILE untouched.
cp hello h2; cp hello h2.orig
run stamp $M -o h2.out h2
expect_status 0 "-o exits 0"
cmp -s h2 h2.orig && pass "-o leaves FILE untouched" || fail "-o leaves FILE untouched"
run show --field name h2.out
expect_out "hello" "-o output has the note"
[ -x h2.out ] && pass "-o output is executable" || fail "-o output is executable"

# -o OUT where OUT is a hard link of FILE: a new file at OUT, FILE never
# modified, and no talk of hard links.
cp hello hl; ln hl hl.out; cp hl hl.orig
for force in "" --force; do
        run stamp $M $force -o hl.out hl
        if [ "$STATUS" -eq 0 ] && cmp -s hl hl.orig && [ "$("$PKGNOTE" show --field name hl.out)" = hello ] &&
                [ "$(stat -c %i hl)" != "$(stat -c %i hl.out)" ] && ! grep -q "hard link" err; then
                pass "-o onto a hard link of FILE ${force:-without --force}: new file at OUT, FILE untouched"
        else
                fail "-o onto a hard link of FILE ${force:-without --force}: new file at OUT, FILE untouched" "status $STATUS, $(cat err)"
        fi
        rm -f hl.out; ln hl hl.out
done

# Stripped section headers: the note is reached through PT_NOTE.
cp hello h3; strip --strip-section-headers h3 2>/dev/null || python3 - h3 <<'PY'
import struct, sys
with open(sys.argv[1], "r+b") as f:
    f.seek(0x28); f.write(struct.pack("<Q", 0)); f.seek(0x3c); f.write(struct.pack("<HH", 0, 0))
PY
run stamp $M h3
expect_status 0 "stripped section headers: stamped"
run show --field name h3
expect_out "hello" "stripped section headers: note found"
[ "$(./h3)" = "hello 1" ] && pass "stripped section headers: runs" || fail "stripped section headers: runs"

# ---------------------------------------------------------------- what is kept
cp hello h4
chown 1234:2345 h4 && chmod 4751 h4 && touch -d '2001-02-03 04:05:06' h4
have_xattr=0
if command -v setfattr > /dev/null && setfattr -n user.pkgnote -v kept h4 2>/dev/null; then have_xattr=1; fi
have_caps=0
if command -v setcap > /dev/null && setcap cap_net_raw+ep h4 2>/dev/null; then have_caps=1; fi
chmod 4751 h4 # setcap may have reset the mode
before=$(stat -c '%a %u %g %Y' h4)
run stamp $M h4
expect_status 0 "stamping a file with owner, mode, xattrs"
after=$(stat -c '%a %u %g %Y' h4)
[ "$before" = "$after" ] && pass "mode, owner, mtime kept" || fail "mode, owner, mtime kept" "$before -> $after"
if [ $have_xattr = 1 ]; then
        [ "$(getfattr --only-values -n user.pkgnote h4 2>/dev/null)" = kept ] && pass "user xattr kept" || fail "user xattr kept"
elif ! command -v setfattr > /dev/null; then missing "user xattr kept" "setfattr (attr)"
else skip "user xattr kept" "this file system takes no user xattrs"; fi
if [ $have_caps = 1 ]; then
        getcap h4 | grep -q cap_net_raw && pass "security.capability kept" || fail "security.capability kept" "$(getcap h4)"
elif ! command -v setcap > /dev/null; then missing "security.capability kept" "setcap (libcap2-bin)"
else skip "security.capability kept" "cannot set file capabilities here"; fi
ls -a | grep -q '\.pkgnote-' && fail "no temporary files left" || pass "no temporary files left"

# Symbolic link: the target is stamped, the link stays a link.
cp hello h5; ln -s h5 h5.link
run stamp $M h5.link
[ -L h5.link ] && "$PKGNOTE" show --field name h5 > /dev/null && pass "symlink followed, link kept" || fail "symlink followed, link kept"

# ---------------------------------------------------------------- refusals
cp hello h6; ln h6 h6.link; cp h6 h6.orig
run stamp $M h6
expect_status 2 "hard link refused"
expect_err "hard links" "hard link: says why"
cmp -s h6 h6.orig && pass "hard link: untouched" || fail "hard link: untouched"
run stamp --force $M h6
expect_status 0 "hard link with --force"
cmp -s h6.link h6.orig && pass "--force: the other name keeps the old file" || fail "--force: the other name keeps the old file"

cp hello h7; chmod 444 h7; cp h7 h7.orig
run stamp $M h7
expect_status 2 "read-only file refused"
expect_err "read-only" "read-only: says why"
cmp -s h7 h7.orig && pass "read-only: untouched" || fail "read-only: untouched"

run stamp $M text.txt
expect_status 2 "not ELF refused"
expect_err "not an ELF file" "not ELF: says why"
run stamp $M missing
expect_status 2 "missing file"
run stamp $M hello h1 -o x
expect_status 2 "-o with two files refused"

# ---------------------------------------------------------------- relocatable objects
cp obj.o o1.o
run stamp --json $M o1.o
check "object: section placement" '[ "$(field out "d[\"placement\"]")" = section ]'
readelf -SW o1.o | grep -q '\.note\.package *NOTE.* A ' && pass "object: allocated SHT_NOTE .note.package" || fail "object: allocated SHT_NOTE .note.package" "$(readelf -SW o1.o | grep note)"
cc -o linked o1.o -fuse-ld=bfd && [ "$(./linked)" = "hello 1" ] && pass "object: links and runs" || fail "object: links and runs"
run show --field name linked
expect_out "hello" "object: the linked program carries the note"
cp o1.o o1.before
run stamp $M o1.o
cmp -s o1.o o1.before && pass "object: stamping again, same bytes" || fail "object: stamping again, same bytes"
run stamp --remove o1.o
run show o1.o
expect_status 1 "object: removed"

# A signed kernel module (the appended-signature trailer of module_signature.h).
cp obj.o mod.ko
python3 - mod.ko <<'PY'
import struct, sys
sig = b"\x30" * 64
with open(sys.argv[1], "ab") as f:
    f.write(sig + struct.pack(">BBBBB3xI", 0, 0, 2, 0, 0, len(sig)) + b"~Module signature appended~\n")
PY
cp mod.ko mod.orig
run stamp $M mod.ko
expect_status 2 "signed module refused"
expect_err "signature" "signed module: says why"
cmp -s mod.ko mod.orig && pass "signed module: untouched" || fail "signed module: untouched"
run stamp --force $M mod.ko
expect_status 0 "signed module with --force"
expect_err "sign the module again" "--force: warns that the signature is gone"
tail -c 28 mod.ko | grep -q "Module signature" && fail "--force: signature dropped" || pass "--force: signature dropped"

# ---------------------------------------------------------------- real core dumps
if (ulimit -c unlimited) 2> /dev/null; then
        # A small note fits into the first page; a big one (3 KiB) cannot,
        # and goes into a section that is not loaded: the program headers,
        # and so the build-id in cores, stay in the first page.
        BIG=$(python3 -c 'print("x" * 3000)'); Q="'"
        cp hello c1; cp hello c2
        "$PKGNOTE" stamp --json $M c1 > c1.json 2> /dev/null
        "$PKGNOTE" stamp --json $M --metadata "{\"description\":\"$BIG\"}" c2 > c2.json 2> c2.err
        check "core: small note in the first page" '[ "$(field c1.json "d[\"firstPage\"]")" = True ]'
        check "core: big note outside the first page, headers still in it" \
                '[ "$(field c2.json "d[\"placement\"], d[\"firstPage\"], d[\"phdrsFirstPage\"]")" = "(${Q}section${Q}, False, True)" ]' "$(cat c2.json)"
        grep -q "kernel core dumps and running processes will not carry it" c2.err && pass "core: the big note's file is reported" || fail "core: the big note's file is reported" "$(cat c2.err)"
        check "core: the big note reads back from the file" '[ "$("$PKGNOTE" show --field name c2)" = hello ]'
        for c in c1 c2; do
                mkdir -p "d$c"; cp $c "d$c/"
                sh -c 'cd "$1" && ulimit -c unlimited && exec "./$2" crash' sh "d$c" "$c" > /dev/null 2>&1
                [ -f "d$c/core" ] || [ -n "$(ls d$c/core* 2>/dev/null)" ] || { fail "core: $c dumped" "no core file"; continue; }
                core=$(ls d$c/core* | head -1)
                if [ $c = c1 ]; then
                        "$PKGNOTE" core --json --no-disk "$core" > $c.core.json 2> /dev/null
                        check "core: first-page note read from the core itself" \
                                "[ \"\$(field $c.core.json '[(m[\"source\"], m[\"packages\"][0][\"name\"]) for m in d[\"modules\"] if m[\"path\"].endswith(\"/$c\")][0]')\" = \"('core', 'hello')\" ]" "$(cat $c.core.json | head -c 600)"
                else
                        # Never degrade: the core still carries the build-id.
                        "$PKGNOTE" core --json --no-disk "$core" > $c.core.json 2> /dev/null
                        check "core: unloaded note, the core keeps the build-id" \
                                "[ \"\$(field $c.core.json '[m[\"buildId\"] for m in d[\"modules\"] if m[\"path\"].endswith(\"/$c\")][0]')\" = \"$(readelf -n c2 | sed -n 's/.*Build ID: //p')\" ]" "$(cat $c.core.json | head -c 600)"
                fi
        done
else
        skip "core dumps" "cannot raise the core size limit"
fi

# ---------------------------------------------------------------- foreign architectures
# i686 programs run under qemu too: kernels built without IA-32 emulation
# cannot run them natively.
for t in aarch64-linux-gnu:qemu-aarch64-static s390x-linux-gnu:qemu-s390x-static i686-linux-gnu:qemu-i386-static; do
        triplet=${t%%:*}; emu=${t#*:}
        if ! command -v "$triplet-gcc" > /dev/null; then missing "$triplet" "$triplet-gcc"; continue; fi
        if [ -n "$emu" ] && ! command -v "$emu" > /dev/null; then missing "$triplet" "$emu (qemu-user-static)"; continue; fi
        for link in dyn static; do
                flags=""; [ $link = static ] && flags=-static
                "$triplet-gcc" $flags -o "x-$triplet-$link" crash.c 2> /dev/null || { missing "$triplet $link" "a $triplet C library for $link links"; continue; }
                cp "x-$triplet-$link" "s-$triplet-$link"
                run stamp --json $M "s-$triplet-$link"
                expect_status 0 "$triplet $link: stamped"
                run show --field name "s-$triplet-$link"
                expect_out "hello" "$triplet $link: note reads back"
                readelf -nW "s-$triplet-$link" 2>&1 | grep -q "Packaging Metadata" && pass "$triplet $link: readelf shows it" || fail "$triplet $link: readelf shows it"
                want=$($emu ${emu:+-L /usr/$triplet} "./x-$triplet-$link" a b 2>&1); got=$($emu ${emu:+-L /usr/$triplet} "./s-$triplet-$link" a b 2>&1)
                [ "$want" = "$got" ] && [ "$got" = "hello 3" ] && pass "$triplet $link: runs the same" || fail "$triplet $link: runs the same" "'$want' vs '$got'"
                cp "s-$triplet-$link" "r-$triplet-$link"; "$PKGNOTE" stamp -q --remove "r-$triplet-$link"
                got=$($emu ${emu:+-L /usr/$triplet} "./r-$triplet-$link" a b 2>&1)
                [ "$want" = "$got" ] && pass "$triplet $link: removed, runs the same" || fail "$triplet $link: removed, runs the same"
        done
        "$triplet-gcc" -c -o "o-$triplet.o" crash.c && "$PKGNOTE" stamp -q $M "o-$triplet.o" &&
                "$triplet-gcc" -o "l-$triplet" "o-$triplet.o" 2> /dev/null &&
                [ "$("$PKGNOTE" show --field name "l-$triplet")" = hello ] && pass "$triplet: stamped object links with its note" ||
                fail "$triplet: stamped object links with its note"
done

# ---------------------------------------------------------------- fault injection
# A write that fails (file size limit): the target is untouched, nothing left behind.
python3 -c 'import sys; sys.stdout.buffer.write(open("hello","rb").read() + b"\0" * (4 << 20))' > big
chmod 755 big; cp big big.orig
(ulimit -f 2048; exec "$PKGNOTE" stamp $M big) > out 2> err
[ $? -eq 2 ] && pass "full disk: fails" || fail "full disk: fails" "$(cat err)"
cmp -s big big.orig && pass "full disk: target untouched" || fail "full disk: target untouched"
ls -a | grep -q '^\.big\.pkgnote-' && fail "full disk: temporary file removed" || pass "full disk: temporary file removed"
# A killed stamp: the target is the old file or the whole new one, never a mix.
python3 -c 'import sys; sys.stdout.buffer.write(open("hello","rb").read() + b"\0" * (256 << 20))' > huge
chmod 755 huge; cp huge huge.orig
"$PKGNOTE" stamp -q $M -o huge.expected huge 2> /dev/null
"$PKGNOTE" stamp -q $M huge 2> /dev/null &
pid=$!; sleep 0.3; kill -9 $pid 2> /dev/null; wait $pid 2> /dev/null
if cmp -s huge huge.orig || cmp -s huge huge.expected; then pass "killed: target whole, old or new"; else fail "killed: target whole, old or new"; fi
rm -f huge huge.orig huge.expected .huge.pkgnote-* big big.orig
# Killed stamps never leave a hidden setuid copy: the temporary has no name
# while it is written (O_TMPFILE) and gets the setuid bit only right before
# the rename.  Kill -9 at many moments of stamping a 64 MiB setuid program.
python3 -c 'import sys; sys.stdout.buffer.write(open("hello","rb").read() + b"\0" * (64 << 20))' > suid
chmod 4755 suid
i=0
while [ $i -lt 40 ]; do
        "$PKGNOTE" stamp -q $M --version "1.$i" suid 2> /dev/null &
        pid=$!
        sleep "$(awk -v i=$i 'BEGIN { printf "%.2f", (i * 53 % 150) / 100 }')"
        kill -9 $pid 2> /dev/null; wait $pid 2> /dev/null
        i=$((i + 1))
done
left=$(find . -maxdepth 1 -name '.suid.pkgnote-*' | wc -l)
suid=$(find . -maxdepth 1 -name '.suid.pkgnote-*' -perm -4000 | wc -l)
[ "$left" -eq 0 ] && pass "killed 40 times: no temporary left, setuid or not" || fail "killed 40 times: no temporary left, setuid or not" "$left left, $suid setuid"
[ "$(stat -c %a suid)" = 4755 ] && pass "killed: the setuid program keeps its mode" || fail "killed: the setuid program keeps its mode" "$(stat -c %a suid)"
# Stale temporaries of stamp's own naming are removed when provably its
# own (our owner, one link, no live writer holding the lock); others stay.
cp hello stale; printf x > .stale.pkgnote-Ab12Cd; chmod 4755 .stale.pkgnote-Ab12Cd
printf x > .stale.pkgnote-Locked
python3 -c 'import fcntl, os, sys, time
fd = os.open(".stale.pkgnote-Locked", os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX)
open("locked.ready", "w").close(); time.sleep(60)' &
locker=$!
printf x > .stale.pkgnote-Other; chown 4321 .stale.pkgnote-Other
printf x > .stale.pkgnote-Link; ln .stale.pkgnote-Link keep-link
printf x > .stale.pkgnote-bad.name
i=0; while [ ! -e locked.ready ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
run stamp $M stale
kill $locker 2> /dev/null; wait $locker 2> /dev/null
[ ! -e .stale.pkgnote-Ab12Cd ] && pass "stale temporary of a killed stamp removed" || fail "stale temporary of a killed stamp removed"
[ -e .stale.pkgnote-Locked ] && [ -e .stale.pkgnote-Other ] && [ -e .stale.pkgnote-Link ] && [ -e .stale.pkgnote-bad.name ] \
        && pass "temporaries not provably stale are kept" || fail "temporaries not provably stale are kept" "$(ls -a | grep stale)"
rm -f .stale.pkgnote-* keep-link suid .suid.pkgnote-*
# --remove after stamp behaves like the original.
cp hello r1; "$PKGNOTE" stamp -q $M r1; "$PKGNOTE" stamp -q --remove r1
[ "$(./r1 a)" = "$(./hello a)" ] && pass "remove after stamp: same behaviour" || fail "remove after stamp: same behaviour"

# Messages about metadata name the command that failed.
cp hello named
"$PKGNOTE" stamp --no-os-release --name "" named > out 2> err
if [ $? -eq 2 ] && grep -q '^pkgnote: stamp: --name: empty value' err && cmp -s named hello; then
        pass "stamp --name '': says stamp, file untouched"
else
        fail "stamp --name '': says stamp, file untouched" "$(cat err)"
fi

# ---------------------------------------------------------------- this machine's files
if [ "${PKGNOTE_STAMP_SAMPLE:-150}" = 0 ]; then
        skip "corpus" "PKGNOTE_STAMP_SAMPLE=0"
elif ! command -v eu-elflint > /dev/null; then
        missing "corpus" eu-elflint
else
        sh "$SRCDIR/tests/write/stamp/corpus.sh" "$T/corpus" > corpus.out 2>&1
        cat corpus.out
        grep -q '^ok - corpus' corpus.out && PASSED=$((PASSED + 1)) || FAILED=$((FAILED + 1))
fi

finish
