#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# dist/rpm/macros.pkgnote with a real rpmbuild: tests/write/rpm/hello.spec builds
# examples/hello from a tarball with gcc and with clang, and once with the
# note turned off; the binaries are read back from the rpm's payload.
# Needs rpmbuild, rpm2cpio and cpio (Debian: rpm, cpio), installed here
# when missing and running as root, else the test is skipped.
# Environment: PKGNOTE, SRCDIR, LC_ALL=C.  Exit 0, 77 skip, 1 fail.

. "$SRCDIR/tests/lib.sh"

have() { command -v "$1" >/dev/null 2>&1; }

if ! have rpmbuild || ! have rpm2cpio || ! have cpio; then
        if [ "$(id -u)" -eq 0 ] && have apt-get; then
                echo "# installing rpm and cpio"
                DEBIAN_FRONTEND=noninteractive apt-get install -y -q rpm cpio >apt.log 2>&1 ||
                        { sed 's/^/# /' apt.log | tail -n 5; }
        fi
        if ! have rpmbuild || ! have rpm2cpio || ! have cpio; then
                echo "# SKIP: rpmbuild, rpm2cpio and cpio are needed (apt-get install rpm cpio, as root)"
                exit 77
        fi
fi

MACROS="$SRCDIR/dist/rpm/macros.pkgnote"
ARCH=$(rpm --eval '%{_arch}')
VR=1.0-3.test

mkdir -p src
cp -R "$SRCDIR/examples/hello" src/hello-1.0
rm -rf src/hello-1.0/build*
tar -C src -czf hello-1.0.tar.gz hello-1.0 || fatal "cannot make the tarball"

# rpmbuild_in NAME ARGS...: builds the binary rpm in topdir NAME.
rpmbuild_in() {
        top="$T/$1"
        shift
        mkdir -p "$top/SOURCES"
        cp hello-1.0.tar.gz "$top/SOURCES/"
        rpmbuild --load "$MACROS" --define "_topdir $top" --define "__pkgnote $PKGNOTE" "$@" \
                -bb "$SRCDIR/tests/write/rpm/hello.spec" >"$top.log" 2>&1
}

# unpack NAME: the payload of the one binary rpm in topdir NAME, in NAME.root.
unpack() {
        rpm=$(ls "$T/$1"/RPMS/*/hello-$VR.*.rpm 2>/dev/null | head -n 1)
        [ -n "$rpm" ] || return 1
        mkdir -p "$T/$1.root"
        (cd "$T/$1.root" && rpm2cpio "$rpm" | cpio -idm --quiet)
}

# The whole note expected: what pkgnote makes from the same rpm variables
# (os, osVersion and osCpe from this machine's os-release when it is an
# rpm distribution's; none on Debian).
EXPECTED=$("$PKGNOTE" generate --type rpm --name hello --version $VR --architecture "$ARCH" --os-cpe auto 2>/dev/null ||
        "$PKGNOTE" generate --type rpm --name hello --version $VR --architecture "$ARCH")
# An rpm built on a Debian or Ubuntu host must not claim that OS.
host=$(sh -c '. /etc/os-release 2>/dev/null || . /usr/lib/os-release 2>/dev/null; echo " $ID $ID_LIKE "')
case $host in
*" debian "* | *" ubuntu "*)
        case $EXPECTED in
        *'"os":'* | *'"osVersion":'*) fail "an rpm built on this deb host gets no os" "expected note: $EXPECTED" ;;
        *) pass "an rpm built on this deb host gets no os" ;;
        esac ;;
esac

# check NAME FILE: the note of FILE is EXPECTED, once, with the rpm's
# name, version-release and architecture.
check() {
        what=$1 file=$2
        problems=""
        [ -f "$file" ] || { fail "$what" "$file is not in the payload"; return; }
        s=$("$PKGNOTE" show --json "$file" 2>&1)
        case $s in
        *"\"packages\":[$EXPECTED],"*) ;;
        *) problems="${problems}pkgnote show --json: $s, expected the note $EXPECTED; " ;;
        esac
        for kv in name=hello version=$VR architecture=$ARCH type=rpm; do
                v=$("$PKGNOTE" show --field "${kv%%=*}" "$file" 2>&1)
                [ "$v" = "${kv#*=}" ] || problems="${problems}${kv%%=*} is '$v'; "
        done
        n=$(readelf -n "$file" 2>/dev/null | grep -c 'FDO_PACKAGING_METADATA')
        [ "$n" -eq 1 ] || problems="${problems}$n package notes, expected 1; "
        if [ -z "$problems" ]; then pass "$what"; else fail "$what" "$problems"; fi
}

for cc in gcc clang; do
        if ! have $cc; then
                missing "rpm built with $cc" "$cc"
                continue
        fi
        if ! rpmbuild_in $cc --define "__cc $cc"; then
                fail "rpmbuild with $cc" "$(tail -n 30 "$T/$cc.log" | sed 's/^/#   /')"
                continue
        fi
        pass "rpmbuild with $cc"
        if ! unpack $cc; then
                fail "$cc: payload" "no hello-$VR rpm, or rpm2cpio | cpio failed"
                continue
        fi
        root="$T/$cc.root"
        lib=$(ls -d "$root"/usr/lib*/libgreet.so.1 2>/dev/null | head -n 1)
        check "$cc: /usr/bin/hello" "$root/usr/bin/hello"
        check "$cc: /usr/bin/hello-partial (from a -r link)" "$root/usr/bin/hello-partial"
        check "$cc: libgreet.so.1" "$lib"
        if [ $cc = clang ] && ! readelf -p .comment "$root/usr/bin/hello" | grep -q 'clang version'; then
                fail "$cc: compiled by clang" "$(readelf -p .comment "$root/usr/bin/hello")"
        fi
        if out=$(LD_LIBRARY_PATH=$(dirname "$lib") "$root/usr/bin/hello" rpm 2>&1) && [ "$out" = "Hello, rpm!" ]; then
                pass "$cc: hello runs"
        else
                fail "$cc: hello runs" "$out"
        fi
done

# A distribution that adds its own note: Fedora's package-notes-srpm-macros
# (the values of its rpm/macros.package-notes-srpm) with the gcc -specs
# file redhat-package-notes, and a %build_ldflags and %set_build_flags
# that pass %_package_note_flags on as redhat-rpm-config's do.
cat >redhat-package-notes <<'EOF'
*link:
+ --package-metadata={\"type\":\"rpm\",\"name\":\"%:getenv(RPM_PACKAGE_NAME \",\"version\":\"%:getenv(RPM_PACKAGE_VERSION -%:getenv(RPM_PACKAGE_RELEASE \",\"architecture\":\"%:getenv(RPM_ARCH \",\"osCpe\":\"cpe:/o:fedoraproject:fedora:40\"}))))
EOF
cat >fedora.macros <<EOF
%toolchain gcc
%_package_note_linker   %["%_target_cpu" == "armv7hl" && "%{toolchain}" == "clang" ? "lld" : "bfd"]
%_package_note_file     1
%_generate_package_note_file %{nil}
%_package_note_status   %{!?_package_note_flags:0}%{?_package_note_flags:%[0%{?_package_note_file:1} && 0%{?name:1} && "%_target_cpu" != "noarch" && "%{toolchain}" != "clang" ? 1 : 0]}
%_package_note_flags    %[%_package_note_status ? "-specs=$T/redhat-package-notes" : ""]
%build_ldflags -Wl,-z,relro %{?_package_note_flags}
%set_build_flags LDFLAGS="\${LDFLAGS:-%{build_ldflags}}" ; export LDFLAGS
EOF
FEDORA_NOTE="{\"type\":\"rpm\",\"name\":\"hello\",\"version\":\"$VR\",\"architecture\":\"$ARCH\",\"osCpe\":\"cpe:/o:fedoraproject:fedora:40\"}"
# fedora_check NAME WANT: one package note, WANT, in the program and the
# library.  (hello-partial is left out: Fedora's link spec passes
# --package-metadata to -r links too, so a program linked from a partial
# object carries its note twice whatever pkgnote does.)
fedora_check() {
        problems=""
        for f in "$T/$1.root/usr/bin/hello" "$T/$1.root"/usr/lib*/libgreet.so.1; do
                n=$(readelf -n "$f" 2>/dev/null | grep -c 'FDO_PACKAGING_METADATA')
                j=$("$PKGNOTE" show --json "$f" 2>&1)
                [ "$n" -eq 1 ] || problems="$problems$f: $n package notes; "
                case $j in *"\"packages\":[$2],"*) ;; *) problems="$problems$f: $j, want $2; " ;; esac
        done
        if [ -z "$problems" ]; then pass "$1: one note, the expected one"; else fail "$1: one note, the expected one" "$problems"; fi
}
# log_says NAME PATTERN: the build log of NAME has a line matching PATTERN.
log_says() {
        if grep -q "$2" "$T/$1.log"; then pass "$1: the build log says so"; else
                fail "$1: the build log says so" "$(grep -i pkgnote "$T/$1.log" | head -n 5)"; fi
}
if have gcc; then
        if rpmbuild_in fedora-only --load "$T/fedora.macros" --undefine _pkgnote_enabled && unpack fedora-only; then
                fedora_check fedora-only "$FEDORA_NOTE"
        else
                fail "fedora-only: rpmbuild" "$(tail -n 30 "$T/fedora-only.log" | sed 's/^/#   /')"
        fi
        if rpmbuild_in fedora-take-over --load "$T/fedora.macros" && unpack fedora-take-over; then
                fedora_check fedora-take-over "$EXPECTED"
                log_says fedora-take-over "^pkgnote: taking over the package note from the distribution (_package_note_flags: -specs=$T/redhat-package-notes"
        else
                fail "fedora-take-over: rpmbuild" "$(tail -n 30 "$T/fedora-take-over.log" | sed 's/^/#   /')"
        fi
        if rpmbuild_in fedora-stand-aside --load "$T/fedora.macros" --define "_pkgnote_distribution_note stand-aside" &&
                unpack fedora-stand-aside; then
                fedora_check fedora-stand-aside "$FEDORA_NOTE"
                log_says fedora-stand-aside '^pkgnote: the distribution adds the package note .*standing aside'
        else
                fail "fedora-stand-aside: rpmbuild" "$(tail -n 30 "$T/fedora-stand-aside.log" | sed 's/^/#   /')"
        fi
else
        skip "Fedora's own note" "gcc is not installed"
fi

# The opt-out: no note at all.
if rpmbuild_in off --undefine _pkgnote_enabled && unpack off; then
        "$PKGNOTE" show "$T/off.root/usr/bin/hello" >out 2>&1
        if [ $? -eq 1 ]; then pass "%undefine _pkgnote_enabled: no note"; else fail "%undefine _pkgnote_enabled: no note" "$(cat out)"; fi
else
        fail "rpmbuild with _pkgnote_enabled undefined" "$(tail -n 30 "$T/off.log" | sed 's/^/#   /')"
fi

finish
