#!/bin/sh
# Per-file metadata for stamp: --metadata-map (PATH<TAB>JSON lines),
# --from-dpkg (a root's dpkg status and info/*.list, the Source: field,
# merged-/usr aliases) and --from-rpmdb (a root's rpm database, filled by
# rpm itself, read without running rpm); FILEs resolved inside the root;
# files without metadata are left untouched, bad input gives exit 2.
. "$SRCDIR/tests/lib.sh"
require cc cmp

printf 'int main(void){return 0;}\n' > m.c
cc -o prog m.c || fatal "cannot link the fixture"
# field FILE KEY: the package note's KEY of FILE.
field() { "$PKGNOTE" show --field "$2" "$1" 2> /dev/null; }

# 1. A metadata map.
mkdir -p tree/sub && cp prog tree/a && cp prog tree/sub/b && cp prog tree/c && cp prog c.orig
cat > map.tsv <<'EOF'
# path	JSON
a	{"type":"deb","name":"alpha","version":"1.0-1"}

./sub/b	{"type":"rpm","name":"beta","version":"2-3.fc40","architecture":"x86_64"}
EOF
run stamp --tree --no-os-release --metadata-map map.tsv tree
expect_status 0 "--metadata-map: stamped"
[ "$(field tree/a name)" = alpha ] && [ "$(field tree/a version)" = 1.0-1 ] && pass "a: its line's metadata" ||
        fail "a: its line's metadata" "$(field tree/a name) $(field tree/a version)"
[ "$(field tree/sub/b name)" = beta ] && [ "$(field tree/sub/b type)" = rpm ] && pass "sub/b: its line's metadata ('./' prefix)" ||
        fail "sub/b: its line's metadata" "$("$PKGNOTE" show tree/sub/b)"
cmp -s tree/c c.orig && pass "c: not in the map, untouched" || fail "c: not in the map, untouched"
expect_err "not in the metadata map" "c: named as left alone"
# The command's key options stay above each file's own.
cp prog tree/a
run stamp --tree --no-os-release --os fedora --metadata-map map.tsv tree
[ "$(field tree/a os)" = fedora ] && [ "$(field tree/a name)" = alpha ] && pass "key options apply above the map" ||
        fail "key options apply above the map" "$("$PKGNOTE" show tree/a)"
# A map line is a document: written exactly, with no os from the Debian
# os-release this build says it runs on.
mkdir -p debian-root/etc && printf 'ID=debian\nVERSION_ID="12"\n' > debian-root/etc/os-release
cp prog tree/a
run stamp --tree --root debian-root --metadata-map map.tsv tree
note=$(readelf -n tree/a 2> /dev/null | sed -n 's/^.*Packaging Metadata: //p')
[ "$note" = '{"type":"deb","name":"alpha","version":"1.0-1"}' ] && pass "a map line's document written exactly, no os added" ||
        fail "a map line's document written exactly, no os added" "got $note; $(cat err)"
# A FILE given directly: the map names it as given.
cp prog a
run stamp --no-os-release --metadata-map map.tsv a
[ "$STATUS" = 0 ] && [ "$(field a name)" = alpha ] && pass "a FILE looked up by its name" || fail "a FILE looked up by its name" "$(cat err)"
cp prog x
run stamp --no-os-release --metadata-map map.tsv x
[ "$STATUS" = 2 ] && grep -q 'not in the metadata map' err && cmp -s x prog && pass "a FILE not in the map: exit 2, untouched" ||
        fail "a FILE not in the map: exit 2, untouched" "status $STATUS, $(cat err)"
# Broken maps: nothing is stamped.
rm -rf t2 && mkdir t2 && cp prog t2/a
for bad in 'a {"name":"no tab"}' "$(printf 'a\t{"name":"x"}\na\t{"name":"y"}')"; do
        printf '%s\n' "$bad" > bad.tsv
        run stamp --tree --no-os-release --metadata-map bad.tsv t2
        [ "$STATUS" = 2 ] && cmp -s t2/a prog && pass "broken map refused: $(head -c 20 bad.tsv | tr '\t\n' '  ')" ||
                fail "broken map refused" "status $STATUS, $(cat err)"
done
printf 'a\t{"name":\n' > bad.tsv
run stamp --tree --no-os-release --metadata-map bad.tsv t2
[ "$STATUS" = 2 ] && cmp -s t2/a prog && grep -q "metadata-map: 'a'" err && pass "a line with bad JSON: exit 2, that file untouched" ||
        fail "a line with bad JSON: exit 2, that file untouched" "status $STATUS, $(cat err)"
run stamp --tree --metadata-map map.tsv --from-dpkg / t2
[ "$STATUS" = 2 ] && grep -q 'do not go together' err && pass "two metadata sources refused" || fail "two metadata sources refused" "$(cat err)"
run stamp --remove --from-dpkg / t2
[ "$STATUS" = 2 ] && pass "--remove with --from-dpkg refused" || fail "--remove with --from-dpkg refused" "$(cat err)"

# 2. A dpkg database: Source: with and without a version, no Source:, a
# package not installed, Multi-Arch names, a file listed under /bin but
# found in /usr/bin (merged /usr).
mkdir -p root/var/lib/dpkg/info root/usr/bin root/usr/lib/x86_64-linux-gnu root/etc root/opt
cat > root/var/lib/dpkg/status <<'EOF'
Package: libalpha1
Status: install ok installed
Architecture: amd64
Multi-Arch: same
Source: alpha (1.2-3)
Version: 1.2-3+b1
Description: with a binNMU version
 a continuation line: Package: fake

Package: betatool
Status: install ok installed
Architecture: amd64
Source: beta
Version: 4.5-6

Package: gamma
Status: install ok installed
Architecture: amd64
Version: 7.0-1

Package: removed
Status: deinstall ok config-files
Architecture: amd64
Version: 9-9
EOF
printf '/.\n/usr\n/usr/lib/x86_64-linux-gnu/libalpha.so.1\n' > root/var/lib/dpkg/info/libalpha1:amd64.list
printf '/.\n/bin\n/bin/beta\n' > root/var/lib/dpkg/info/betatool.list
printf '/usr/bin/gamma\n' > root/var/lib/dpkg/info/gamma.list
printf '/usr/bin/removed\n' > root/var/lib/dpkg/info/removed.list
printf 'ID=debian\nVERSION_ID="12"\n' > root/etc/os-release
cc -shared -fPIC -o root/usr/lib/x86_64-linux-gnu/libalpha.so.1 m.c
for f in beta gamma removed stray; do cp prog root/usr/bin/$f; done
run stamp --tree --from-dpkg root root/usr
expect_status 0 "--from-dpkg: the tree stamped"
check() { # FILE TYPE NAME VERSION ARCH
        got="$(field "$1" type) $(field "$1" name) $(field "$1" version) $(field "$1" architecture) $(field "$1" os) $(field "$1" osVersion)"
        [ "$got" = "$2 $3 $4 $5 debian 12" ] && pass "${1#root}: $3 $4" || fail "${1#root}: $3 $4" "got '$got'"
}
check root/usr/lib/x86_64-linux-gnu/libalpha.so.1 deb alpha 1.2-3 amd64
check root/usr/bin/beta deb beta 4.5-6 amd64
check root/usr/bin/gamma deb gamma 7.0-1 amd64
cmp -s root/usr/bin/removed prog && cmp -s root/usr/bin/stray prog && pass "files of no installed package untouched" ||
        fail "files of no installed package untouched"
grep -q 'no package of the dpkg database owns /usr/bin/stray' err && pass "an unowned file is named" || fail "an unowned file is named" "$(cat err)"
# The os-release of another distribution gives deb packages no os; the
# root's own, of the same format, does (above), and --os-release replaces it.
printf 'ID=fedora\nVERSION_ID=40\n' > fedora-os-release
cp prog root/usr/bin/gamma
run stamp --from-dpkg root --os-release fedora-os-release root/usr/bin/gamma
got="$(field root/usr/bin/gamma name) $(field root/usr/bin/gamma os)/$(field root/usr/bin/gamma osVersion)"
[ "$STATUS" = 0 ] && [ "$got" = "gamma /" ] && pass "--from-dpkg with a Fedora --os-release: deb packages get no os" ||
        fail "--from-dpkg with a Fedora --os-release: deb packages get no os" "status $STATUS, got '$got', $(cat err)"
cp prog outside
run stamp --from-dpkg root outside
[ "$STATUS" = 2 ] && grep -q 'outside the root' err && cmp -s outside prog && pass "a FILE outside the root: exit 2, untouched" ||
        fail "a FILE outside the root: exit 2, untouched" "status $STATUS, $(cat err)"
run stamp --tree --from-dpkg tree tree
[ "$STATUS" = 2 ] && grep -q 'no dpkg database' err && pass "no dpkg database: exit 2" || fail "no dpkg database: exit 2" "status $STATUS, $(cat err)"

# 2b. A FILE that is a symbolic link inside the root is resolved inside the
# root, as a chroot would (an absolute target, "..", links in between):
# the file stamped is the root's own, never the host's, and a link leading
# nowhere inside the root is refused.  Each check compares the host's file
# (outside the root) byte for byte.
H="$T/host"
mkdir -p "$H" && cp prog "$H/victim" && cp prog victim.orig
printf '\nPackage: toolpkg\nStatus: install ok installed\nArchitecture: amd64\nSource: toolsrc (5-1)\nVersion: 5-1\n' >> root/var/lib/dpkg/status
printf '/usr/bin/tool\n/usr/bin/up\n%s/victim\n' "$H" > root/var/lib/dpkg/info/toolpkg.list
ln -s "$H/victim" root/usr/bin/tool
ln -s "../../../../../../../../../../..$H/victim" root/usr/bin/up
for link in tool up; do
        run stamp --from-dpkg root root/usr/bin/$link
        [ "$STATUS" = 2 ] && grep -q 'symbolic link' err && cmp -s "$H/victim" victim.orig && [ -L root/usr/bin/$link ] &&
                pass "symlink-out-of-root: $link, leading nowhere inside the root: refused, the host's file untouched" ||
                fail "symlink-out-of-root: $link, leading nowhere inside the root: refused, the host's file untouched" \
                     "status $STATUS, $(cat err)"
done
mkdir -p "root$H" && cp prog "root$H/victim"
for link in tool up; do
        cp prog "root$H/victim"
        run stamp --from-dpkg root root/usr/bin/$link
        [ "$STATUS" = 0 ] && cmp -s "$H/victim" victim.orig && [ -L root/usr/bin/$link ] &&
                [ "$(field "root$H/victim" name) $(field "root$H/victim" version)" = "toolsrc 5-1" ] &&
                pass "symlink-out-of-root: $link: the root's own target stamped, the host's file untouched" ||
                fail "symlink-out-of-root: $link: the root's own target stamped, the host's file untouched" \
                     "status $STATUS, $(cat err), $("$PKGNOTE" show "root$H/victim" 2>&1)"
done
cp prog "root$H/victim"
run stamp --from-dpkg root -o stamped.out root/usr/bin/tool
[ "$STATUS" = 0 ] && cmp -s "$H/victim" victim.orig && cmp -s "root$H/victim" prog && [ "$(field stamped.out name)" = toolsrc ] &&
        pass "symlink-out-of-root: -o reads the root's own target" ||
        fail "symlink-out-of-root: -o reads the root's own target" "status $STATUS, $(cat err)"
# A directory of the path leading out of the root is not followed there.
ln -s "$H" root/hostdir
run stamp --from-dpkg root root/hostdir/victim
[ "$STATUS" = 2 ] && grep -q 'outside the root' err && cmp -s "$H/victim" victim.orig &&
        pass "symlink-out-of-root: a directory linking out: refused, the host's file untouched" ||
        fail "symlink-out-of-root: a directory linking out: refused, the host's file untouched" "status $STATUS, $(cat err)"

# 3. An rpm database, filled by rpm from a package rpmbuild made.
if command -v rpmbuild > /dev/null && command -v rpm > /dev/null; then
        mkdir -p rpmtop/SOURCES rpmtop/SPECS rroot
        cp prog rpmtop/SOURCES/delta
        cat > rpmtop/SPECS/delta.spec <<'EOF'
Name: delta
Version: 3.1
Release: 2.test
Summary: test
License: MIT
Source0: delta
%global debug_package %{nil}
%global __os_install_post %{nil}
%description
test
%install
mkdir -p %{buildroot}/usr/bin
cp %{SOURCE0} %{buildroot}/usr/bin/delta
%files
/usr/bin/delta
EOF
        # The database where rpm keeps it (this machine's rpm may keep
        # its own elsewhere, as Debian's does in ~/.rpmdb).
        RDB=/usr/lib/sysimage/rpm
        if rpmbuild --quiet --define "_topdir $PWD/rpmtop" -bb rpmtop/SPECS/delta.spec > rpm.log 2>&1 &&
           rpm --root "$PWD/rroot" --dbpath $RDB --initdb > /dev/null 2>&1 &&
           rpm --root "$PWD/rroot" --dbpath $RDB -i --nodeps --noscripts --ignorearch rpmtop/RPMS/*/delta-3.1-2.test.*.rpm > rpm.log 2>&1; then
                mkdir -p rroot/etc && printf 'ID=fedora\nVERSION_ID=40\n' > rroot/etc/os-release
                cp rroot/usr/bin/delta delta.orig
                # rpmdb-read-only: the database is read, not rpm run: no
                # file under the root is created or changed but the one
                # stamped, and a database path linking out of the root
                # (where this machine's rpm would look, and var/lib/rpm)
                # is neither written nor read through.
                listing() { find rroot \( -type d -printf '%p dir\n' \) -o \( ! -path rroot/usr/bin/delta -printf '%p %s %T@ %y\n' \) | sort; }
                listing > before.lst
                run stamp --from-rpmdb rroot rroot/usr/bin/delta
                listing > after.lst
                [ "$STATUS" = 0 ] && ! cmp -s rroot/usr/bin/delta delta.orig && pass "rpmdb-read-only: a FILE stamped from ROOT's rpmdb.sqlite" ||
                        fail "rpmdb-read-only: a FILE stamped from ROOT's rpmdb.sqlite" "status $STATUS, $(cat err)"
                diff before.lst after.lst > lst.diff && pass "rpmdb-read-only: nothing under the root created or changed but the file stamped" ||
                        fail "rpmdb-read-only: nothing under the root created or changed but the file stamped" "$(cat lst.diff)"
                mkdir -p outdb
                hostdb=$(rpm --eval '%_dbpath')
                mkdir -p "rroot$(dirname "$hostdb")" rroot/var/lib && ln -s "$PWD/outdb" "rroot$hostdb" &&
                        ln -s "$PWD/outdb" rroot/var/lib/rpm
                cp delta.orig rroot/usr/bin/delta
                run stamp --from-rpmdb rroot rroot/usr/bin/delta
                [ "$STATUS" = 0 ] && [ -z "$(ls -A outdb)" ] && pass "rpmdb-read-only: nothing written through a database path linking out of the root" ||
                        fail "rpmdb-read-only: nothing written through a database path linking out of the root" "status $STATUS, $(ls -A outdb)"
                # The metadata is what rpm itself says of the file.
                srpm=$(rpm --root "$PWD/rroot" --dbpath $RDB -qf --qf '%{SOURCERPM}' /usr/bin/delta)
                srpm=${srpm%.src.rpm} && sname=${srpm%-*-*} && svr=${srpm#"$sname"-}
                got="$(field rroot/usr/bin/delta type) $(field rroot/usr/bin/delta name) $(field rroot/usr/bin/delta version)"
                [ -n "$sname" ] && [ "$got" = "rpm $sname $svr" ] && pass "rpmdb-read-only: the metadata rpm -qf gives ($sname $svr)" ||
                        fail "rpmdb-read-only: the metadata rpm -qf gives" "got '$got', rpm says '$srpm'"
                cp delta.orig rroot/usr/bin/delta
                run stamp --tree --from-rpmdb rroot rroot/usr
                got="$(field rroot/usr/bin/delta type) $(field rroot/usr/bin/delta name) $(field rroot/usr/bin/delta version) $(field rroot/usr/bin/delta os)"
                [ "$STATUS" = 0 ] && [ "$got" = "rpm delta 3.1-2.test fedora" ] && pass "--from-rpmdb: source rpm name and VERSION-RELEASE" ||
                        fail "--from-rpmdb: source rpm name and VERSION-RELEASE" "status $STATUS, got '$got', $(cat err)"
                # A database reached only through a link out of the root is not read.
                mkdir -p lroot/usr/lib/sysimage lroot/usr/bin && cp delta.orig lroot/usr/bin/delta &&
                        ln -s "$PWD/rroot$RDB" lroot/usr/lib/sysimage/rpm
                run stamp --from-rpmdb lroot lroot/usr/bin/delta
                [ "$STATUS" = 2 ] && grep -q 'no rpm database' err && cmp -s lroot/usr/bin/delta delta.orig &&
                        pass "rpmdb-read-only: a database directory linking out of the root is not read" ||
                        fail "rpmdb-read-only: a database directory linking out of the root is not read" "status $STATUS, $(cat err)"
        else
                fail "--from-rpmdb: an rpm database made by rpm" "$(tail -5 rpm.log)"
        fi
else
        missing "--from-rpmdb" rpmbuild
fi
finish
