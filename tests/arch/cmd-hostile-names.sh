#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Hostile names never reach the terminal or a build log raw: a tree of ELF
# files named with ESC [ 31m, BEL, CR, a newline, U+009B (CSI as UTF-8), a
# raw 0x9b and invalid UTF-8 (a directory too), some owned by the root's
# dpkg database, some stamped with metadata whose values hold the same
# characters.  Every command that reads them (show, lint, scan, stamp
# --tree with --from-dpkg, --from-rpmdb and --metadata-map, stamp FILE,
# deps, pid, core) runs over it, and ALL of its standard output and error
# is checked: no C0 control but tab and newline, no DEL, no C1 control
# (U+0080..U+009F), no byte that is not part of valid UTF-8.  Each command
# must also name a hostile file (escaped), so a check cannot pass by
# printing nothing.
# Environment: PKGNOTE, SRCDIR, LC_ALL=C.  Exit 0, 77 skip, 1 fail.
. "$SRCDIR/tests/lib.sh"
require cc perl

# raw_controls FILE: prints where FILE holds a raw control byte or a byte
# outside valid UTF-8 (escaped for this log); exit 1 when it does.
raw_controls() {
        perl -e '
                local $/; open(my $f, "<:raw", $ARGV[0]) or die; my $d = <$f>; my @bad;
                while ($d =~ /\G(?:([\x00-\x7f])|([\xc2-\xdf][\x80-\xbf])|([\xe0-\xef][\x80-\xbf]{2})|([\xf0-\xf4][\x80-\xbf]{3})|(.))/gs) {
                        my $at = pos($d);
                        push @bad, $at if (defined $1 && $1 =~ /[\x00-\x08\x0b-\x1f\x7f]/) ||
                                          (defined $2 && $2 =~ /^\xc2[\x80-\x9f]/) || defined $5;
                }
                for my $at (@bad[0 .. ($#bad < 4 ? $#bad : 4)]) {
                        my $s = $at > 60 ? $at - 60 : 0;
                        (my $ctx = substr($d, $s, $at - $s + 10)) =~ s/([^\x20-\x7e])/sprintf("<%02x>", ord $1)/ge;
                        print "byte $at: $ctx\n";
                }
                exit(@bad ? 1 : 0);' "$1"
}
# check NAME ARGS...: runs pkgnote ARGS, stdout and stderr into one file;
# no raw control may be in it and a hostile name must be there escaped.
check() {
        name=$1
        shift
        "$PKGNOTE" "$@" > all 2>&1
        if ! raw_controls all > where; then
                fail "no raw control: $name" "$(cat where)"
        elif ! grep -q '\\x[0-9a-f][0-9a-f]\|\\u00[0-9a-f][0-9a-f]' all; then
                fail "no raw control: $name" "no hostile name in the output: $(head -c 300 all | od -c | head -5)"
        else
                pass "no raw control: $name"
        fi
}

printf 'int main(void){return 0;}\n' > m.c
printf '#include <unistd.h>\nint main(void){for(;;)pause();}\n' > sleeper.c
cc -o prog m.c && cc -o sleeper sleeper.c && cc -shared -fPIC -o lib.so m.c || fatal "cannot link the fixtures"

# The names: each a printf format, kept in names.txt, one a line, as
# printf wrote them (the newline one as its escape, expanded on use).
ESC=$(printf '\033') BEL=$(printf '\007') CR=$(printf '\r') CSI=$(printf '\302\233') RAW=$(printf '\233') BAD=$(printf '\377\376')
NL='
'
mkdir -p root/usr/bin root/usr/lib root/var/lib/dpkg/info root/etc
D="root/usr/lib/dir${ESC}]0;title${BEL}"
mkdir -p "$D"
for n in "esc${ESC}[31mred" "bel${BEL}x" "cr${CR}x" "nl${NL}x" "c1${CSI}x" "raw${RAW}x" "bad${BAD}x"; do
        cp prog "root/usr/bin/$n"
done
cp lib.so "$D/lib${ESC}[2J.so"
printf 'ID=debian\nVERSION_ID=12\n' > root/etc/os-release
cat > root/var/lib/dpkg/status <<'EOF'
Package: hostile
Status: install ok installed
Architecture: amd64
Version: 1.0-1

EOF
# Owned: ESC, BEL, U+009B and the library in the hostile directory; the
# others are named as owned by no package (the raw name in that reason
# was the leak this test was written for).
printf '/usr/bin/esc%s[31mred\n/usr/bin/bel%sx\n/usr/bin/c1%sx\n/%s/lib%s[2J.so\n' "$ESC" "$BEL" "$CSI" "${D#root/}" "$ESC" \
        > root/var/lib/dpkg/info/hostile.list
# Notes holding hostile text, as no pkgnote writer makes them (stamp and
# generate refuse control characters): stamped with a placeholder, then
# patched in place.  XHOSTILEX becomes U+009B and DEL (valid JSON, read
# as text), YHOSTILEY a raw ESC [ 31m (a malformed note).
hostile_patch() { perl -0777 -pi -e 's/XHOSTILEX/\xc2\x9b\x7fHOSTIL/g; s/YHOSTILEY/\x1b[31mHOST/g' "$1"; }
"$PKGNOTE" stamp --no-os-release --type deb --name XHOSTILEX --version 1 "root/usr/bin/c1${CSI}x" > /dev/null &&
        "$PKGNOTE" stamp --no-os-release --type deb --name YHOSTILEY --version 1 "root/usr/bin/bel${BEL}x" > /dev/null &&
        "$PKGNOTE" stamp --dlopen '[{"feature":"XHOSTILEX","description":"YHOSTILEY","priority":"suggested","soname":["libXHOSTILEX.so.1"]}]' \
                "root/usr/bin/raw${RAW}x" > /dev/null ||
        fatal "cannot stamp the placeholders"
for f in "root/usr/bin/c1${CSI}x" "root/usr/bin/bel${BEL}x" "root/usr/bin/raw${RAW}x"; do hostile_patch "$f"; done
grep -q "$(printf '\302\233\177HOSTIL')" "root/usr/bin/c1${CSI}x" || fatal "the hostile note was not patched in"
cp -a root orig
cp -a root fresh

# stamp --tree with each per-file source.
check "stamp --tree --from-dpkg" stamp --tree --from-dpkg root root/usr
check "stamp --tree --from-dpkg --json" stamp --tree --json --from-dpkg fresh fresh/usr
rm -rf fresh && cp -a root fresh
if command -v rpm > /dev/null; then
        # An empty rpm database made by rpm: every file is owned by no package.
        cp -a fresh rroot
        if rpm --root "$PWD/rroot" --dbpath /usr/lib/sysimage/rpm --initdb > rpm.log 2>&1; then
                check "stamp --tree --from-rpmdb" stamp --tree --from-rpmdb rroot rroot/usr
        else
                fail "an empty rpm database made by rpm" "$(cat rpm.log)"
        fi
else
        missing "stamp --tree --from-rpmdb" rpm
fi
# A metadata map naming hostile paths, with hostile metadata values; the
# files it does not list are named as left alone.
{
        printf 'usr/bin/esc%s[31mred\t{"type":"deb","name":"evil\\u001b[31m\\u009b\\u0007","version":"1\\r2"}\n' "$ESC"
        printf 'usr/bin/c1%sx\t{"type":"deb","name":"c1\\u0085\\u009b","version":"1"}\n' "$CSI"
        printf 'usr/bin/raw%sx\t{"type":"deb","name":"raw","version":"1"}\n' "$RAW"
} > map.tsv
check "stamp --tree --metadata-map" stamp --tree --no-os-release --metadata-map map.tsv fresh
# Files named one by one.
for n in "cr${CR}x" "nl${NL}x" "bad${BAD}x" "nothere${ESC}x"; do
        check "stamp --from-dpkg FILE ($(printf '%s' "$n" | od -An -c | tr -s ' ' | head -c 20))" stamp --from-dpkg root "root/usr/bin/$n"
done
check "stamp --metadata-map FILE not listed" stamp --no-os-release --metadata-map map.tsv "fresh/usr/bin/bel${BEL}x"
check "stamp FILE with a hostile value" stamp --no-os-release --metadata '{"type":"deb","name":"a\u009bb","version":"1"}' "fresh/usr/bin/cr${CR}x"
check "stamp FILE with a hostile name" stamp --no-os-release --type deb --name n --version 1 "fresh/usr/bin/cr${CR}x"

# Readers, over files whose names and notes are hostile.
rm -rf fresh && cp -a orig fresh
set -- fresh/usr/bin/*
check "show" show "$@" "$D/lib${ESC}[2J.so"
check "show --json" show --json "$@"
check "lint" lint "$@"
check "scan" scan fresh
check "scan --format json" scan --format json fresh
check "scan --format spdx" scan --format spdx fresh
check "scan --format cyclonedx" scan --format cyclonedx fresh
check "scan (dpkg root)" scan root
check "deps" deps "$@"
check "deps --tree" deps --tree fresh

# A running process and its core dump, the executable named and stamped
# with hostile characters.
cp sleeper "esc${ESC}[31m${CSI}sleeper"
"$PKGNOTE" stamp --no-os-release --type deb --name XHOSTILEX --version 1 "esc${ESC}[31m${CSI}sleeper" > /dev/null 2>&1
hostile_patch "esc${ESC}[31m${CSI}sleeper"
"./esc${ESC}[31m${CSI}sleeper" &
pid=$!
sleep 0.3
check "pid" pid "$pid"
check "pid --json" pid --json "$pid"
if command -v gcore > /dev/null; then
        if gcore -o core "$pid" > gcore.log 2>&1 && [ -f "core.$pid" ]; then
                check "core" core --no-stack "core.$pid"
                check "core --json" core --json --no-stack "core.$pid"
        else
                fail "a core dump made by gcore" "$(tail -3 gcore.log)"
        fi
else
        missing "core" gcore
fi
kill "$pid" 2> /dev/null
wait "$pid" 2> /dev/null
finish
