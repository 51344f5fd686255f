#!/bin/sh
# Unpacks Debian's systemd-coredump (systemd-coredump, coredumpctl) into a
# private directory for the tests, without installing the package: its
# maintainer script would rewrite kernel.core_pattern for the whole
# machine.  The tests run these programs only inside a private mount
# namespace.
#
# The directory is $PKGNOTE_SYSTEMD_COREDUMP, default
# /var/cache/pkgnote/systemd-coredump; the version taken is the installed
# systemd's when the archive still has it (the programs link systemd's
# private shared library of that version), else the archive's candidate.
set -eu
dest=${PKGNOTE_SYSTEMD_COREDUMP:-/var/cache/pkgnote/systemd-coredump}
want=$(dpkg-query -W -f='${Version}' systemd 2>/dev/null || true)
if [ -x "$dest/usr/bin/coredumpctl" ] && [ -f "$dest/.version" ] && [ "$(cat "$dest/.version")" = "$want" ]; then
        exit 0
fi
if [ -z "$want" ]; then
        echo "pkgnote: systemd is not installed; cannot unpack systemd-coredump for the tests" >&2
        exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# apt's sandbox user must be able to write the download directory.
chmod 755 "$tmp"
cd "$tmp"
if ! apt-get download -qq "systemd-coredump=$want" > /dev/null 2>&1; then
        apt-get update -qq > /dev/null 2>&1 || true
        apt-get download -qq "systemd-coredump=$want" > /dev/null 2>&1 ||
                apt-get download -qq systemd-coredump > /dev/null 2>&1 || {
                echo "pkgnote: apt-get download systemd-coredump failed" >&2
                exit 1
        }
fi
mkdir -p "$tmp/x"
dpkg-deb -x systemd-coredump_*.deb "$tmp/x"
echo "$want" > "$tmp/x/.version"
mkdir -p "$(dirname "$dest")"
rm -rf "$dest.new"
mv "$tmp/x" "$dest.new"
rm -rf "$dest"
mv "$dest.new" "$dest"
echo "Unpacked systemd-coredump $(dpkg-deb -f "$tmp"/systemd-coredump_*.deb Version) into $dest"
