#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Makes the Debian root tests/check/cmd-closure.sh checks closures in: Debian
# trixie (minbase) with systemd, whose libsystemd-shared carries real
# dlopen notes (systemd 256 and later), and two of the libraries they name.
#   sh dist/make-test-root.sh [DIR]   (default /var/cache/pkgnote/roots/trixie)
# Needs mmdebstrap and the network; run as root (or add --mode=unshare).
set -eu
dir=${1:-${PKGNOTE_TEST_ROOT:-/var/cache/pkgnote/roots/trixie}}
[ -x "$dir/usr/lib/systemd/systemd" ] && exit 0
command -v mmdebstrap > /dev/null || { echo "mmdebstrap is not installed" >&2; exit 1; }
mkdir -p "$(dirname "$dir")"
rm -rf "$dir.tmp"
mmdebstrap --variant=minbase --include=systemd,libkmod2,libqrencode4 --skip=check/empty \
        trixie "$dir.tmp" http://deb.debian.org/debian
mv "$dir.tmp" "$dir"
