#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Makes the Debian root tests/write/cmd-pe.sh runs systemd's own ukify in: Debian
# trixie (minbase) with systemd-ukify (ukify and its Python modules) and
# systemd-boot-efi (the stub ukify wraps a kernel in), so a UKI made by the
# tool distributions use can be shown and stamped.
#   sh dist/make-ukify-root.sh [DIR]   (default /var/cache/pkgnote/roots/ukify)
# Needs mmdebstrap and the network; run as root (or add --mode=unshare).
set -eu
dir=${1:-${PKGNOTE_UKIFY_ROOT:-/var/cache/pkgnote/roots/ukify}}
[ -x "$dir/usr/bin/ukify" ] && [ -d "$dir/usr/lib/systemd/boot/efi" ] && exit 0
command -v mmdebstrap > /dev/null || { echo "mmdebstrap is not installed" >&2; exit 1; }
mkdir -p "$(dirname "$dir")"
rm -rf "$dir.tmp"
mmdebstrap --variant=minbase --include=systemd-ukify,systemd-boot-efi --skip=check/empty \
        trixie "$dir.tmp" http://deb.debian.org/debian
mv "$dir.tmp" "$dir"
