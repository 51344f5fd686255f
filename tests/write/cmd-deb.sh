#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# dist/debian/pkgnote.mk with a real dpkg-buildpackage: examples/hello,
# packaged by tests/write/debian-example/debian, built with meson and gcc and
# with CMake and clang, and once with DEB_BUILD_OPTIONS=nopkgnote; the
# binaries are read back from the .deb's payload (dpkg-deb -x).
# Needs dpkg-dev and debhelper, installed here when missing and running as
# root, else the test is skipped.
# Environment: PKGNOTE, SRCDIR, LC_ALL=C.  Exit 0, 77 skip, 1 fail.

. "$SRCDIR/tests/lib.sh"

have() { command -v "$1" >/dev/null 2>&1; }

if ! have dpkg-buildpackage || ! have dh; then
        if [ "$(id -u)" -eq 0 ] && have apt-get; then
                echo "# installing dpkg-dev and debhelper"
                DEBIAN_FRONTEND=noninteractive apt-get install -y -q dpkg-dev debhelper >apt.log 2>&1 ||
                        { sed 's/^/# /' apt.log | tail -n 5; }
        fi
        if ! have dpkg-buildpackage || ! have dh; then
                echo "# SKIP: dpkg-buildpackage and dh are needed (apt-get install dpkg-dev debhelper, as root)"
                exit 77
        fi
fi

ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)
VERSION=1:1.0-1
# The whole note expected: what pkgnote makes from the same values (os and
# osVersion from this machine's os-release).
EXPECTED=$("$PKGNOTE" generate --type deb --name hello --version $VERSION --architecture "$ARCH")
# On a Debian or Ubuntu host that os is this one's.
host=$(sh -c '. /etc/os-release 2>/dev/null || . /usr/lib/os-release 2>/dev/null; echo "$ID"')
case $host in
debian | ubuntu)
        case $EXPECTED in
        *"\"os\":\"$host\""*) pass "a deb built on this $host host names it" ;;
        *) fail "a deb built on this $host host names it" "expected note: $EXPECTED" ;;
        esac ;;
esac

# The pkgnote program as the build finds it: on PATH.
mkdir -p bin
ln -s "$PKGNOTE" bin/pkgnote
PATH="$T/bin:$PATH"
export PATH

# debbuild NAME BUILDSYSTEM CC [DEB_BUILD_OPTIONS]: builds the .deb in
# NAME/, its payload in NAME.root.
debbuild() {
        dir="$T/$1"
        mkdir -p "$dir"
        cp -R "$SRCDIR/examples/hello" "$dir/hello-1.0"
        rm -rf "$dir/hello-1.0/build"*
        cp -R "$SRCDIR/tests/write/debian-example/debian" "$dir/hello-1.0/debian"
        chmod +x "$dir/hello-1.0/debian/rules"
        (
                cd "$dir/hello-1.0" &&
                        PKGNOTE_MK="$SRCDIR/dist/debian/pkgnote.mk" EXAMPLE_BUILDSYSTEM=$2 CC=$3 \
                        DEB_BUILD_OPTIONS="${4:-}" dpkg-buildpackage -us -uc -b -d
        ) >"$dir.log" 2>&1 || return 1
        deb=$(ls "$dir"/hello_1.0-1_"$ARCH".deb 2>/dev/null)
        [ -n "$deb" ] && dpkg-deb -x "$deb" "$dir.root"
}

# check NAME FILE: the note of FILE is EXPECTED, once, with the package's
# name, version and architecture.
check() {
        what=$1 file=$2
        problems=""
        [ -f "$file" ] || { fail "$what" "$file is not in the payload"; return; }
        s=$("$PKGNOTE" show --json "$file" 2>&1)
        case $s in
        *"\"packages\":[$EXPECTED],"*) ;;
        *) problems="${problems}pkgnote show --json: $s, expected the note $EXPECTED; " ;;
        esac
        for kv in type=deb name=hello version=$VERSION architecture=$ARCH; do
                v=$("$PKGNOTE" show --field "${kv%%=*}" "$file" 2>&1)
                [ "$v" = "${kv#*=}" ] || problems="${problems}${kv%%=*} is '$v'; "
        done
        n=$(readelf -n "$file" 2>/dev/null | grep -c 'FDO_PACKAGING_METADATA')
        [ "$n" -eq 1 ] || problems="${problems}$n package notes, expected 1; "
        if [ -z "$problems" ]; then pass "$what"; else fail "$what" "$problems"; fi
}

for combo in meson:gcc cmake:clang; do
        bs=${combo%%:*} cc=${combo#*:}
        name="$bs + $cc"
        if ! have $bs || ! have $cc || { [ $bs = meson ] && ! have ninja; }; then
                missing "$name" "$bs, ninja or $cc"
                continue
        fi
        if ! debbuild $bs-$cc $bs $cc; then
                fail "$name: dpkg-buildpackage" "$( (grep -i pkgnote "$T/$bs-$cc.log" | head -n 20; tail -n 40 "$T/$bs-$cc.log") | sed 's/^/#   /')"
                continue
        fi
        pass "$name: dpkg-buildpackage"
        root="$T/$bs-$cc.root"
        lib=$(ls "$root"/usr/lib/*/libgreet.so.1 2>/dev/null | head -n 1)
        check "$name: /usr/bin/hello" "$root/usr/bin/hello"
        check "$name: libgreet.so.1" "$lib"
        # dh_strip drops .comment; the build system says which compiler it used.
        if [ $cc = clang ] && ! grep -Eq 'C compiler identification is Clang|C compiler for the host machine: clang' "$T/$bs-$cc.log"; then
                fail "$name: compiled by clang" "the build log does not name clang"
        fi
        if out=$(LD_LIBRARY_PATH=$(dirname "$lib") "$root/usr/bin/hello" deb 2>&1) && [ "$out" = "Hello, deb!" ]; then
                pass "$name: hello runs"
        else
                fail "$name: hello runs" "$out"
        fi
done

# ------------------------------------------------ the distribution's note
# Ubuntu's dpkg adds a note of its own: through the LDFLAGS of
# dpkg-buildflags (1.22.6ubuntu11: a gcc -specs file passing
# --package-metadata; simulated by a vendor module for a vendor "Ubuntu"
# in DPKG_ORIGINS_DIR) or through ELF_PACKAGE_METADATA in the environment
# (1.22.11ubuntu1 and later; its compilers are patched to read it, so here
# only its removal from the build's environment can be checked).
UBUNTU_NOTE="{\"type\":\"deb\",\"os\":\"ubuntu\",\"name\":\"hello\",\"version\":\"$VERSION\",\"architecture\":\"$ARCH\"}"
mkdir -p ubuntu/origins ubuntu/perl/Dpkg/Vendor
printf 'Vendor: Ubuntu\nVendor-URL: https://www.ubuntu.com/\nBugs: https://bugs.launchpad.net/ubuntu/+filebug\nParent: Debian\n' >ubuntu/origins/ubuntu
printf '*link:\n+ --package-metadata=%s\n' "$(printf '%s' "$UBUNTU_NOTE" | sed 's/"/\\"/g')" >ubuntu/elf-package-metadata.specs
cat >ubuntu/perl/Dpkg/Vendor/Ubuntu.pm <<'EOF'
# Ubuntu's dpkg from 1.22.6ubuntu11, as far as the note goes: its vendor
# hook adds a gcc -specs file that passes --package-metadata to LDFLAGS.
package Dpkg::Vendor::Ubuntu;
use strict;
use warnings;
use parent qw(Dpkg::Vendor::Debian);

sub run_hook {
    my ($self, $hook, @params) = @_;
    my @ret = $self->SUPER::run_hook($hook, @params);
    $params[0]->append('LDFLAGS', "-specs=$ENV{PKGNOTE_TEST_UBUNTU_SPECS}")
        if $hook eq 'update-buildflags';
    return @ret;
}

1;
EOF
ubuntu_env() {
        DEB_VENDOR=Ubuntu DPKG_ORIGINS_DIR="$T/ubuntu/origins" PERL5LIB="$T/ubuntu/perl" \
                PKGNOTE_TEST_UBUNTU_SPECS="$T/ubuntu/elf-package-metadata.specs" "$@"
}
# The snippet alone, read by make: what it says and what it leaves.
printf 'include %s\nprint:\n\t@echo "LDFLAGS=$$(dpkg-buildflags --get LDFLAGS)"\n\t@echo "EPM=[$$ELF_PACKAGE_METADATA]"\n' \
        "$SRCDIR/dist/debian/pkgnote.mk" >ubuntu/rules
snippet() { (cd ubuntu && DEB_SOURCE=hello DEB_VERSION=$VERSION "$@" make -s -f rules print) 2>&1; }
out=$(snippet ubuntu_env env)
case $out in
"pkgnote.mk: taking over the package note from the distribution (-specs=$T/ubuntu/elf-package-metadata.specs removed)"*"LDFLAGS=-Wl,-z,relro $T/ubuntu/debian/.debhelper/pkgnote/note-$ARCH.o"*) pass "Ubuntu -specs: taken over, said in the log" ;;
*) fail "Ubuntu -specs: taken over, said in the log" "$out" ;;
esac
out=$(snippet ubuntu_env env PKGNOTE_DISTRIBUTION_NOTE=stand-aside)
case $out in
"pkgnote.mk: the distribution adds the package note (-specs=$T/ubuntu/elf-package-metadata.specs); standing aside"*"LDFLAGS=-Wl,-z,relro -specs=$T/ubuntu/elf-package-metadata.specs"*) pass "Ubuntu -specs: stand-aside leaves it alone" ;;
*) fail "Ubuntu -specs: stand-aside leaves it alone" "$out" ;;
esac
out=$(snippet env ELF_PACKAGE_METADATA="$UBUNTU_NOTE")
case $out in
"pkgnote.mk: taking over the package note from the distribution (ELF_PACKAGE_METADATA removed)"*"EPM=[]"*) pass "ELF_PACKAGE_METADATA: taken over, not passed on" ;;
*) fail "ELF_PACKAGE_METADATA: taken over, not passed on" "$out" ;;
esac
out=$(snippet env ELF_PACKAGE_METADATA="$UBUNTU_NOTE" PKGNOTE_DISTRIBUTION_NOTE=stand-aside)
case $out in
*"standing aside"*"LDFLAGS=-Wl,-z,relro"*"EPM=[$UBUNTU_NOTE]"*) pass "ELF_PACKAGE_METADATA: stand-aside passes it on, adds nothing" ;;
*) fail "ELF_PACKAGE_METADATA: stand-aside passes it on, adds nothing" "$out" ;;
esac
case $(snippet env) in
*pkgnote.mk:*) fail "no distribution note: nothing said" "$(snippet env)" ;;
*) pass "no distribution note: nothing said" ;;
esac

# Whole builds under the simulated Ubuntu: one note each, and whose.
# one_note NAME WANT: the programs of build NAME carry one note, WANT.
one_note() {
        f="$T/$1.root/usr/bin/hello"
        n=$(readelf -n "$f" 2>/dev/null | grep -c 'FDO_PACKAGING_METADATA')
        j=$("$PKGNOTE" show --json "$f" 2>&1)
        case "$n $j" in
        "1 "*"\"packages\":[$2],"*) pass "$1: one note, the expected one" ;;
        *) fail "$1: one note, the expected one" "$n notes: $j; want $2" ;;
        esac
}
if have meson && have ninja && have gcc; then
        for mode in ubuntu-only:0:take-over ubuntu-take-over:1:take-over ubuntu-stand-aside:1:stand-aside; do
                name=${mode%%:*} rest=${mode#*:}
                if (
                        export DEB_VENDOR=Ubuntu DPKG_ORIGINS_DIR="$T/ubuntu/origins" PERL5LIB="$T/ubuntu/perl" \
                                PKGNOTE_TEST_UBUNTU_SPECS="$T/ubuntu/elf-package-metadata.specs" \
                                PKGNOTE_ENABLED=${rest%%:*} PKGNOTE_DISTRIBUTION_NOTE=${rest#*:}
                        debbuild $name meson gcc
                ); then
                        case $name in
                        ubuntu-take-over) one_note $name "$EXPECTED"
                                grep -q '^pkgnote.mk: taking over' "$T/$name.log" && pass "$name: said in the build log" ||
                                        fail "$name: said in the build log" "$(grep pkgnote.mk "$T/$name.log" | head -n 3)" ;;
                        *) one_note $name "$UBUNTU_NOTE" ;;
                        esac
                else
                        fail "$name: dpkg-buildpackage" "$(tail -n 30 "$T/$name.log" | sed 's/^/#   /')"
                fi
        done
else
        missing "builds under the simulated Ubuntu" "meson, ninja, gcc"
fi

# The opt-out: no note at all.
if have meson && have ninja && have gcc; then
        if debbuild off meson gcc nopkgnote; then
                "$PKGNOTE" show "$T/off.root/usr/bin/hello" >out 2>&1
                if [ $? -eq 1 ]; then pass "DEB_BUILD_OPTIONS=nopkgnote: no note"; else fail "DEB_BUILD_OPTIONS=nopkgnote: no note" "$(cat out)"; fi
        else
                fail "DEB_BUILD_OPTIONS=nopkgnote: dpkg-buildpackage" "$(tail -n 40 "$T/off.log" | sed 's/^/#   /')"
        fi
fi

finish
