#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fetches and unpacks real PE/COFF images for tests/write/cmd-pe-corpus.sh and
# bench/pe-corpus.sh, without installing anything: Debian packages taken
# with apt-get download and unpacked with dpkg-deb -x, one directory per
# package under $PKGNOTE_PE_CORPUS (default /var/cache/pkgnote/pe-corpus).
#   - bookworm (the machine's own archive): shim-unsigned, syslinux-efi,
#     refind, ipxe, memtest86+, grub-efi-amd64-bin;
#   - trixie (a private apt directory, the machine's configuration
#     untouched): systemd-boot-efi 257;
#   - bookworm i386 (a private apt directory): libwine's 32-bit PE modules;
#   - bookworm-backports (a private apt directory): osslsigncode 2.9, the
#     verifier the tests use, since bookworm's 2.5 rejects every signature
#     sbsign makes ("Invalid signature", unstamped images alike).
# Wine's 64-bit modules, the mingw-w64 runtimes and systemd-boot 252 are
# installed by make deps-test and read where they are.  Idempotent: a
# package already unpacked (its .done stamp) is not fetched again.
set -eu
dest=${PKGNOTE_PE_CORPUS:-/var/cache/pkgnote/pe-corpus}
mkdir -p "$dest"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# apt's sandbox user must be able to write the download directory.
chmod 755 "$tmp"

# unpack NAME DEB: DEB's files into $dest/NAME, stamped done.
unpack() {
        rm -rf "$dest/$1.new"
        mkdir -p "$dest/$1.new"
        dpkg-deb -x "$2" "$dest/$1.new"
        dpkg-deb -f "$2" Package Version Architecture > "$dest/$1.new/.done"
        rm -rf "$dest/$1"
        mv "$dest/$1.new" "$dest/$1"
}

# A private apt directory for another suite or architecture: its lists
# and cache under $dest/.apt-SUITE-ARCH, the machine's sources and lists
# untouched.  Prints the apt-get options that select it.
private_apt() {
        d="$dest/.apt-$1-$2"
        mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/etc/preferences.d" "$d/etc/sources.list.d"
        printf 'deb [arch=%s signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian %s main\n' \
                "$2" "$1" > "$d/etc/sources.list"
        chmod -R 755 "$d"
        echo "-o Dir::Etc::sourcelist=$d/etc/sources.list -o Dir::Etc::sourceparts=$d/etc/sources.list.d -o Dir::Etc::preferencesparts=$d/etc/preferences.d -o Dir::State::Lists=$d/lists -o Dir::Cache=$d/cache -o APT::Architecture=$2 -o APT::Architectures::=$2"
}

# fetch NAME PACKAGE [APT-OPTIONS]
fetch() {
        name=$1 pkg=$2
        shift 2
        [ -f "$dest/$name/.done" ] && return 0
        rm -f "$tmp"/*.deb
        # shellcheck disable=SC2068
        if ! (cd "$tmp" && apt-get download -qq $@ "$pkg" > /dev/null 2>&1); then
                # shellcheck disable=SC2068
                apt-get $@ update -qq > /dev/null 2>&1 || true
                # shellcheck disable=SC2068
                (cd "$tmp" && apt-get download -qq $@ "$pkg" > /dev/null) || {
                        echo "pkgnote: apt-get download $pkg failed" >&2
                        return 1
                }
        fi
        unpack "$name" "$tmp"/*.deb
        echo "Unpacked $(tr '\n' ' ' < "$dest/$name/.done")into $dest/$name"
}

rc=0
for p in shim-unsigned syslinux-efi refind ipxe memtest86+ grub-efi-amd64-bin; do
        fetch "$p" "$p" || rc=1
done
trixie=$(private_apt trixie amd64)
[ -f "$dest/systemd-boot-efi-257/.done" ] || apt-get $trixie update -qq > /dev/null 2>&1 || true
# shellcheck disable=SC2086
fetch systemd-boot-efi-257 systemd-boot-efi $trixie || rc=1
i386=$(private_apt bookworm i386)
[ -f "$dest/libwine-i386/.done" ] || apt-get $i386 update -qq > /dev/null 2>&1 || true
# shellcheck disable=SC2086
fetch libwine-i386 libwine $i386 || rc=1
bpo=$(private_apt bookworm-backports amd64)
[ -f "$dest/osslsigncode/.done" ] || apt-get $bpo update -qq > /dev/null 2>&1 || true
# shellcheck disable=SC2086
fetch osslsigncode osslsigncode/bookworm-backports $bpo || rc=1
exit $rc
