#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pkgnote packaged as distributions would, from a clean 'git archive' of
# the committed HEAD: dpkg-buildpackage -us -uc -b and rpmbuild -ba (with
# --nodeps: on Debian the rpm database holds none of the build
# dependencies).  Checks: lintian and rpmlint clean (their override files
# hold the reasons); the symbols file matches lib/libpkgnote.sym; every
# ELF file of the packages carries the package note of its package (name,
# version, architecture) and the dlopen notes and passes pkgnote lint;
# python3-pkgnote's module carries its package's note and imports from the
# extracted package tree over the extracted libpkgnote (the .deb and the
# rpm); nothing activates pkgnote-coredump as the kernel's core handler; the rpm
# installed into an 'rpm --root' tree is scanned with the rpm database and
# the notes agreeing; the .deb installed into a fresh Debian 12 root (the
# root of ../shared/tools/fresh-machine-check, with the network to fetch
# dependencies) passes the autopkgtest debian/tests/installed-commands.
# 2.5 to 4 minutes here: meson suite 'packaging' only.
# Environment: PKGNOTE, SRCDIR, LC_ALL=C.  Exit 0, 77 skip, 1 fail.

set -u
: "${PKGNOTE:?PKGNOTE must name the pkgnote binary}"
: "${SRCDIR:?SRCDIR must name the source tree}"
export LC_ALL=C
# The package builds make and run commands of their own, linked with the
# library they build: the library path of the test run (meson points it
# at this build, a sanitized one included) must not reach them.
unset LD_LIBRARY_PATH

T=$(mktemp -d "${TMPDIR:-/tmp}/cmd-packaging.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
failed=0 passed=0 skipped=0
ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $1"; shift; for l in "$@"; do printf '#   %s\n' "$l"; done; }
skip() { skipped=$((skipped + 1)); echo "ok - $1 # SKIP $2"; }
have() { command -v "$1" >/dev/null 2>&1; }
missing() {
        if [ "${PKGNOTE_STRICT:-0}" = 1 ]; then not_ok "$1" "required tool missing: $2 (make deps-test installs it)"
        else skip "$1" "$2 is not installed"; fi
}

if ! git -C "$SRCDIR" rev-parse HEAD >/dev/null 2>&1; then
        echo "# SKIP: $SRCDIR is not a git checkout"
        exit 77
fi
VERSION=$(sed -n "s/^ *version *: *'\([0-9.]*\)'.*/\1/p" "$SRCDIR/meson.build" | head -n 1)

# is_elf FILE
is_elf() { [ -f "$1" ] && [ ! -h "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }

# check_tree NAME DIR TYPE VERSION ARCH: every ELF file below DIR has the
# package note of TYPE pkgnote VERSION ARCH, dlopen notes, and is lint-clean.
check_tree() {
        name=$1 dir=$2 type=$3 ver=$4 arch=$5
        n=0 problems=""
        for f in $(find "$dir" -type f | sort); do
                is_elf "$f" || continue
                case $f in */usr/lib/debug/*) continue ;; esac
                n=$((n + 1))
                j=$("$PKGNOTE" show --json "$f" 2>&1)
                case $j in
                *"\"packages\":[{\"type\":\"$type\","*"\"name\":\"pkgnote\",\"version\":\"$ver\",\"architecture\":\"$arch\"}]"*) ;;
                *) problems="$problems${f#"$dir"}: package note: $j; " ;;
                esac
                case $j in
                *'"dlopen":[{'*) ;;
                *) problems="$problems${f#"$dir"}: no dlopen notes; " ;;
                esac
                "$PKGNOTE" lint "$f" >"$T/lint.out" 2>&1 || problems="$problems$(cat "$T/lint.out"); "
        done
        [ $n -ge 3 ] || problems="${problems}only $n ELF files; "
        if [ -z "$problems" ]; then ok "$name: $n ELF files carry the package's note and dlopen notes, lint-clean"
        else not_ok "$name: ELF files carry the package's note and dlopen notes, lint-clean" "$problems"; fi
}

# check_pymod NAME ROOT LIBDIR TYPE VERSION ARCH: python3-pkgnote's module
# below ROOT carries the package note of TYPE pkgnote VERSION ARCH, and the
# distribution's python3 imports it from ROOT over ROOT/LIBDIR's
# libpkgnote.so.1 (not the host's, not a copy linked into it) and reads
# ROOT/usr/bin/pkgnote's note with it.
check_pymod() {
        name=$1 root=$2 libdir=$3 type=$4 ver=$5 arch=$6
        mod=$(find "$root/usr/lib" -path '*/pkgnote/_pkgnote*.so' -type f 2>/dev/null | head -n 1)
        if [ -z "$mod" ]; then
                not_ok "$name: python3-pkgnote's module is in the package" "$(find "$root" -path '*python*' | head -n 20)"
                return
        fi
        note="\"name\":\"pkgnote\",\"version\":\"$ver\",\"architecture\":\"$arch\""
        j=$("$PKGNOTE" show --json "$mod" 2>&1)
        case $j in
        *"\"packages\":[{\"type\":\"$type\","*"$note}]"*) ok "$name: python3-pkgnote's module ${mod#"$root"} carries the package's note" ;;
        *) not_ok "$name: python3-pkgnote's module carries the package's note" "$j" ;;
        esac
        py=/usr/bin/python3
        [ -x "$py" ] || py=python3
        if out=$(PYTHONPATH=${mod%/pkgnote/*} LD_LIBRARY_PATH=$root/$libdir "$py" - "$mod" "$root/$libdir" "$root/usr/bin/pkgnote" "$type" "$ver" "$arch" 2>&1 <<'EOF'
import os, sys
mod, libdir, cmd, typ, ver, arch = sys.argv[1:]
import pkgnote
loaded = sorted({os.path.dirname(l.split()[-1]) for l in open("/proc/self/maps") if "/libpkgnote.so" in l})
pkgs = pkgnote.read(cmd).packages
print(pkgnote._pkgnote.__file__, loaded, pkgs)
want = {"type": typ, "name": "pkgnote", "version": ver, "architecture": arch}
sys.exit(0 if pkgnote._pkgnote.__file__ == mod and loaded == [os.path.realpath(libdir)]
         and len(pkgs) == 1 and {k: pkgs[0].get(k) for k in want} == want else 1)
EOF
        ); then
                ok "$name: python3 imports pkgnote from the package tree over its libpkgnote and reads pkgnote's note"
        else
                not_ok "$name: python3 imports pkgnote from the package tree over its libpkgnote and reads pkgnote's note" "$out"
        fi
}

# ---------------------------------------------------------------- symbols
if sh "$SRCDIR/dist/debian/gen-symbols.sh" "$SRCDIR/lib/libpkgnote.sym" | diff -u "$SRCDIR/debian/libpkgnote1.symbols" - >"$T/sym.diff"; then
        ok "debian/libpkgnote1.symbols matches lib/libpkgnote.sym"
else
        not_ok "debian/libpkgnote1.symbols matches lib/libpkgnote.sym (sh dist/debian/gen-symbols.sh > debian/libpkgnote1.symbols)" "$(cat "$T/sym.diff")"
fi

# ---------------------------------------------------------------- deb
if have dpkg-buildpackage && have dh; then
        D="$T/deb/pkgnote-$VERSION"
        mkdir -p "$D"
        git -C "$SRCDIR" archive HEAD | tar -C "$D" -xf -
        if (cd "$D" && DEB_BUILD_OPTIONS="nocheck parallel=2" dpkg-buildpackage -us -uc -b) >"$T/deb.log" 2>&1; then
                ok "dpkg-buildpackage -us -uc -b from git archive HEAD"
                debs=""
                for p in pkgnote libpkgnote1 libpkgnote-dev pkgnote-coredump python3-pkgnote; do
                        f=$(ls "$T/deb/${p}_${VERSION}_"*.deb 2>/dev/null | head -n 1)
                        if [ -n "$f" ]; then debs="$debs $f"; ok "package $p built"; else not_ok "package $p built"; fi
                done
                arch=$(dpkg --print-architecture)
                mkdir -p "$T/debroot"
                for f in $debs; do dpkg-deb -x "$f" "$T/debroot"; done
                check_tree "deb" "$T/debroot" deb "$VERSION" "$arch"
                check_pymod "deb" "$T/debroot" "usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null)" deb "$VERSION" "$arch"
                # Nothing sets kernel.core_pattern: no sysctl file outside the
                # documentation, no maintainer script touching it.
                bad=$(cd "$T/debroot" && find etc/sysctl.d usr/lib/sysctl.d lib/sysctl.d -type f 2>/dev/null)
                for f in $debs; do
                        mkdir -p "$T/ctl" && rm -rf "$T/ctl"/* && dpkg-deb -e "$f" "$T/ctl"
                        for s in preinst postinst prerm postrm config triggers; do
                                [ -f "$T/ctl/$s" ] && grep -q 'core_pattern\|sysctl' "$T/ctl/$s" && bad="$bad $(basename "$f") $s"
                        done
                done
                if [ -z "$bad" ] && grep -q core_pattern "$T/debroot/usr/share/doc/pkgnote-coredump/examples/50-pkgnote-coredump.conf"; then
                        ok "pkgnote-coredump: core_pattern only as an example, never set on installation"
                else
                        not_ok "pkgnote-coredump: core_pattern only as an example, never set on installation" "$bad"
                fi
                # The socket mode: its units where systemd looks for a
                # package's, neither enabled (no link in etc/, no enable but
                # the one dh_installsystemd keeps for an administrator who
                # enabled it) nor started; its sysctl file an example.
                f=$(ls "$T/deb/pkgnote-coredump_${VERSION}_"*.deb 2>/dev/null | head -n 1)
                rm -rf "$T/ctl"/* && dpkg-deb -e "$f" "$T/ctl"
                bad=""
                for u in pkgnote-coredump.socket pkgnote-coredump.service; do
                        [ -f "$T/debroot/usr/lib/systemd/system/$u" ] || bad="$bad no-$u"
                done
                [ -z "$(cd "$T/debroot" && find etc/systemd -mindepth 1 2>/dev/null)" ] || bad="$bad etc/systemd"
                grep -q 'deb-systemd-invoke.*start\|systemctl.*start' "$T/ctl/postinst" 2>/dev/null && bad="$bad started"
                if grep -q 'deb-systemd-helper enable' "$T/ctl/postinst" 2>/dev/null &&
                        ! grep -B2 'deb-systemd-helper enable' "$T/ctl/postinst" | grep -q 'was-enabled'; then
                        bad="$bad enabled"
                fi
                grep -q '^kernel.core_pattern=@@' \
                        "$T/debroot/usr/share/doc/pkgnote-coredump/examples/51-pkgnote-coredump-socket.conf" 2>/dev/null ||
                        bad="$bad no-socket-example"
                if [ -z "$bad" ]; then ok "pkgnote-coredump: the socket mode's units installed, not enabled nor started; its sysctl file an example"
                else not_ok "pkgnote-coredump: the socket mode's units installed, not enabled nor started; its sysctl file an example" "$bad"; fi
                # The commands link libpkgnote.so.1 of their own build: a
                # newer command must never run on an older library (a flag
                # or field it sets would be unknown there).
                nodep=""
                for p in pkgnote pkgnote-coredump; do
                        f=$(ls "$T/deb/${p}_${VERSION}_"*.deb 2>/dev/null | head -n 1)
                        [ -n "$f" ] && dpkg-deb -f "$f" Depends | grep -q "libpkgnote1 (= $VERSION)" || nodep="$nodep $p"
                done
                if [ -z "$nodep" ]; then ok "pkgnote and pkgnote-coredump depend on libpkgnote1 of the same version"
                else not_ok "pkgnote and pkgnote-coredump depend on libpkgnote1 of the same version" "not:$nodep"; fi
                if have lintian; then
                        lintian --fail-on error,warning "$T"/deb/*.changes >"$T/lintian.out" 2>&1
                        rc=$?
                        if [ $rc -eq 0 ] && ! grep -q '^[EW]:' "$T/lintian.out"; then ok "lintian: no error or warning"
                        else not_ok "lintian: no error or warning" "$(cat "$T/lintian.out")"; fi
                else
                        missing "lintian" lintian
                fi
                # A fresh Debian 12 root: the .debs installed with their
                # dependencies, the autopkgtest run there.
                base=${FRESH_CACHE:-/var/tmp/fresh-bookworm}/base.tar
                if [ -s "$base" ] && have bwrap && [ "$(id -u)" = 0 ]; then
                        F=$(mktemp -d /var/tmp/pkgnote-fresh.XXXXXX)
                        tar -C "$F" -xf "$base"
                        cp /etc/resolv.conf "$F/etc/resolv.conf"
                        mkdir -p "$F/debs"
                        # shellcheck disable=SC2086
                        cp $debs "$SRCDIR/debian/tests/installed-commands" "$F/debs/"
                        bwrap --bind "$F" / --proc /proc --dev-bind /dev /dev --ro-bind /sys /sys --perms 1777 --tmpfs /tmp \
                                --die-with-parent --clearenv --setenv HOME /root --setenv LANG C.UTF-8 \
                                --setenv PATH /usr/sbin:/usr/bin:/sbin:/bin \
                                bash -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /debs/*.deb gcc libc6-dev pkgconf >/dev/null 2>&1 || exit 3; ulimit -c unlimited; sh /debs/installed-commands' \
                                >"$T/fresh.out" 2>&1
                        rc=$?
                        rm -rf "$F"
                        case $rc in
                        0) ok "fresh Debian 12 root: the autopkgtest passes (show, lint, a route, the API, import pkgnote, a real core, scan --format spdx)" ;;
                        3) skip "fresh Debian 12 root" "apt-get could not install the dependencies (no network?)" ;;
                        77) skip "fresh Debian 12 root: core" "$(grep SKIP "$T/fresh.out")" ;;
                        *) not_ok "fresh Debian 12 root: the autopkgtest passes" "$(cat "$T/fresh.out")" ;;
                        esac
                else
                        skip "fresh Debian 12 root" "needs root, bubblewrap and $base (../shared/tools/fresh-machine-check makes it)"
                fi
        else
                not_ok "dpkg-buildpackage -us -uc -b from git archive HEAD" "$(tail -n 30 "$T/deb.log")"
        fi
else
        missing "dpkg-buildpackage" "dpkg-dev and debhelper"
fi

# ---------------------------------------------------------------- rpm
if have rpmbuild && have rpm; then
        R="$T/rpmbuild"
        mkdir -p "$R/SOURCES"
        git -C "$SRCDIR" archive --prefix="pkgnote-$VERSION/" -o "$R/SOURCES/pkgnote-$VERSION.tar.gz" HEAD
        if rpmbuild -ba --nodeps --define "_topdir $R" "$SRCDIR/dist/rpm/pkgnote.spec" >"$T/rpm.log" 2>&1; then
                ok "rpmbuild -ba --nodeps from git archive HEAD"
                rel=$(rpm -qp --qf '%{VERSION}-%{RELEASE}' "$R"/RPMS/*/pkgnote-libs-*.rpm 2>/dev/null)
                rarch=$(rpm -qp --qf '%{ARCH}' "$R"/RPMS/*/pkgnote-libs-*.rpm 2>/dev/null)
                for p in pkgnote pkgnote-libs pkgnote-devel pkgnote-coredump python3-pkgnote; do
                        if [ -n "$(ls "$R"/RPMS/*/"$p-$rel."*.rpm 2>/dev/null)" ]; then ok "rpm $p built"; else not_ok "rpm $p built"; fi
                done
                if have rpmlint; then
                        rpmlint -r "$SRCDIR/dist/rpm/pkgnote.rpmlintrc" "$SRCDIR/dist/rpm/pkgnote.spec" "$R"/RPMS/*/*.rpm "$R"/SRPMS/*.rpm >"$T/rpmlint.out" 2>&1
                        if grep -q ' 0 errors, 0 warnings' "$T/rpmlint.out"; then ok "rpmlint: no error or warning"
                        else not_ok "rpmlint: no error or warning" "$(grep -E ': [EW]: |checked' "$T/rpmlint.out")"; fi
                else
                        missing "rpmlint" rpmlint
                fi
                Q="$T/rpmroot"
                mkdir -p "$Q"
                if rpm --root "$Q" --dbpath /var/lib/rpm --initdb &&
                        rpm --root "$Q" --dbpath /var/lib/rpm -i --nodeps --noscripts "$R"/RPMS/*/*.rpm >"$T/rpmi.log" 2>&1; then
                        check_tree "rpm" "$Q" rpm "$rel" "$rarch"
                        unitdir=$(rpm --eval '%{?_unitdir}%{!?_unitdir:/usr/lib/systemd/system}')
                        if [ -f "$Q$unitdir/pkgnote-coredump.socket" ] && [ -f "$Q$unitdir/pkgnote-coredump.service" ] &&
                                [ -z "$(find "$Q/etc/systemd" -mindepth 1 2>/dev/null)" ] &&
                                [ -z "$(find "$Q/etc/sysctl.d" "$Q/usr/lib/sysctl.d" -type f 2>/dev/null)" ]; then
                                ok "rpm: the socket mode's units in $unitdir, none enabled, no sysctl file installed"
                        else
                                not_ok "rpm: the socket mode's units in $unitdir, none enabled, no sysctl file installed" "$(cd "$Q" && find . -path '*systemd*' -o -path '*sysctl*')"
                        fi
                        check_pymod "rpm" "$Q" "$(rpm --eval '%{_libdir}' | sed 's|^/||')" rpm "$rel" "$rarch"
                        "$PKGNOTE" scan --format json "$Q" >"$T/scan.json" 2>"$T/scan.err"
                        if python3 - "$T/scan.json" "$rel" <<'EOF'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
objs = [d for d in lines if "path" in d]
summary = lines[-1]["summary"]
bad = [d["path"] for d in objs
       if not d.get("dbPackage") or d.get("dbMismatch") is not False
       or d["dbPackage"]["source"] != "pkgnote" or d["dbPackage"]["version"] != sys.argv[2]]
sys.exit(1 if bad or summary["dbOwned"] != len(objs) or summary["dbMismatch"] != 0 or len(objs) < 3 else 0)
EOF
                        then
                                ok "scan of the rpm --root tree: the rpm database owns every object and agrees with its note"
                        else
                                not_ok "scan of the rpm --root tree: the rpm database agrees with the notes" "$(cat "$T/scan.json" "$T/scan.err")"
                        fi
                else
                        not_ok "rpm --root -i" "$(cat "$T/rpmi.log")"
                fi
        else
                not_ok "rpmbuild -ba --nodeps from git archive HEAD" "$(tail -n 30 "$T/rpm.log")"
        fi
else
        missing "rpmbuild" rpm
fi

echo "# $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
