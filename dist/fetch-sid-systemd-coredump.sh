#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# systemd-coredump of the cached Debian sid root (dist/make-sid-root.sh)
# for the VM scenarios (tests/vm): the .deb of the version of the root's
# libsystemd-shared fetched with apt-get download inside the root (its own
# sources and apt; lists in a private directory, so the root is left as it
# was), unpacked with dpkg-deb -x into DIR, never installed: its
# maintainer script would rewrite kernel.core_pattern.  The VM runs it
# with the root's libraries (pkgnote deps --closure).
#   sh dist/fetch-sid-systemd-coredump.sh [DIR]
#   (default /var/cache/pkgnote/vm-systemd-coredump)
set -eu
dest=${1:-${PKGNOTE_VM_SYSTEMD_COREDUMP:-/var/cache/pkgnote/vm-systemd-coredump}}
root=${PKGNOTE_SID_ROOT:-/var/cache/pkgnote/roots/sid}
[ -f "$root/.pkgnote-sid-root" ] || sh "$(dirname "$0")/make-sid-root.sh" "$root"
want=$(awk -F'\t' '$1 ~ /^libsystemd-shared(:|$)/ { print $2 }' "$root/.pkgnote-sid-packages")
[ -n "$want" ] || { echo "no libsystemd-shared in $root" >&2; exit 1; }
[ -f "$dest/.version" ] && [ "$(cat "$dest/.version")" = "$want" ] && exit 0
work=$(mktemp -d "$root/tmp/systemd-coredump.XXXXXX")
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
in=/tmp/${work##*/}
mkdir -p "$work/lists/partial" "$work/debs"
# apt's sandbox user (_apt) writes the lists and the download.
chmod -R 777 "$work"
bwrap --bind "$root" / --ro-bind /etc/resolv.conf /etc/resolv.conf --proc /proc --dev /dev \
        --die-with-parent --setenv PATH /usr/sbin:/usr/bin \
        sh -c "cd $in/debs && apt-get -qq -o Dir::State::Lists=$in/lists -o Acquire::Check-Valid-Until=false update &&
                apt-get -qq -o Dir::State::Lists=$in/lists download systemd-coredump=$want" > "$work/log" 2>&1 ||
        { cat "$work/log" >&2; echo "apt-get download systemd-coredump=$want failed in $root" >&2; exit 1; }
rm -rf "$dest.tmp"
mkdir -p "$dest.tmp"
dpkg-deb -x "$work"/debs/systemd-coredump_*.deb "$dest.tmp"
echo "$want" > "$dest.tmp/.version"
rm -rf "$dest"
mv "$dest.tmp" "$dest"
echo "Unpacked systemd-coredump $want into $dest"
