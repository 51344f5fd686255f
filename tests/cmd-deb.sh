#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# dist/debian/pkgnote.mk with a real dpkg-buildpackage: examples/hello,
# packaged by tests/debian-example/debian, built with meson and gcc and
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
        cp -R "$SRCDIR/tests/debian-example/debian" "$dir/hello-1.0/debian"
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
