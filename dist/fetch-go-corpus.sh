#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Fetches a corpus of real Go programs for tests/read/cmd-go-corpus.sh:
# Debian packages written in Go, from bookworm (the machine's own apt) and
# from sid (a private apt directory, the machine's configuration
# untouched), taken with apt-get download, unpacked with dpkg-deb -x, of
# which only the ELF files carrying Go build information are kept, under
# $PKGNOTE_GO_CORPUS (default /var/cache/pkgnote/go-corpus)/SUITE/PKG_ARCH/.
# Chosen to vary: small command-line tools (fzf, age, shfmt, gron), big
# servers (etcd, caddy, syncthing, dnscrypt-proxy), cgo programs (runc
# with libseccomp, gocryptfs with OpenSSL), static and PIE programs (age),
# Go 1.19 (bookworm) to 1.27 (sid), and sid's s390x (big-endian) and
# arm64 (PIE) builds of some.  Debian builds most Go packages in GOPATH
# mode, so most carry no module list (bookworm's none): sid's fzf, shfmt,
# age and glow (117 modules) do, built in module mode.  Each
# package directory's .done holds its Package, Version and Architecture;
# the .pkgnote-go-corpus stamp is written once all are there, after which
# nothing is fetched again.  About 300 MB kept; under a minute to fetch
# on a fast mirror.
#   sh dist/fetch-go-corpus.sh
set -eu
dest=${PKGNOTE_GO_CORPUS:-/var/cache/pkgnote/go-corpus}
[ -f "$dest/.pkgnote-go-corpus" ] && exit 0
mkdir -p "$dest"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# apt's sandbox user must be able to write the download directory.
chmod 755 "$tmp"

BOOKWORM="fzf age shfmt restic runc gocryptfs etcd-server caddy git-lfs wireguard-go"
SID="fzf age shfmt glow direnv runc gocryptfs syncthing etcd-server mtail gron wireguard-go dnscrypt-proxy"
SID_S390X="fzf gron"
SID_ARM64="age"

# keep_go DIR: removes from DIR everything but the ELF files that carry
# Go build information (the "\xff Go buildinf:" magic), then the
# directories left empty.
keep_go() {
        find "$1" \( -type l -o -type f \) ! -name .done -print | while IFS= read -r f; do
                if [ -L "$f" ] || [ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')" != 7f454c46 ] ||
                        ! LC_ALL=C grep -qa 'Go buildinf:' "$f"; then
                        rm -f "$f"
                fi
        done
        find "$1" -depth -type d -empty -delete
}

# unpack SUITE PKG ARCH DEB: DEB's Go programs into $dest/SUITE/PKG_ARCH.
unpack() {
        d="$dest/$1/$2_$3"
        rm -rf "$d.new"
        mkdir -p "$d.new"
        dpkg-deb -x "$4" "$d.new"
        keep_go "$d.new"
        if [ -z "$(find "$d.new" -type f)" ]; then
                echo "pkgnote: $1 $2:$3 holds no Go program" >&2
                rm -rf "$d.new"
                return 1
        fi
        dpkg-deb -f "$4" Package Version Architecture > "$d.new/.done"
        rm -rf "$d"
        mv "$d.new" "$d"
}

# A private apt directory for SUITE and ARCH under $dest/.apt-SUITE-ARCH:
# prints the apt-get options that select it.
private_apt() {
        d="$dest/.apt-$1-$2"
        mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/etc/preferences.d" "$d/etc/sources.list.d"
        printf 'deb [arch=%s signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian %s main\n' \
                "$2" "$1" > "$d/etc/sources.list"
        chmod -R 755 "$d"
        # sid's Release file is valid for a week only (as dist/make-sid-root.sh)
        echo "-o Dir::Etc::sourcelist=$d/etc/sources.list -o Dir::Etc::sourceparts=$d/etc/sources.list.d -o Dir::Etc::preferencesparts=$d/etc/preferences.d -o Dir::State::Lists=$d/lists -o Dir::Cache=$d/cache -o APT::Architecture=$2 -o APT::Architectures::=$2 -o Acquire::Check-Valid-Until=false -o Acquire::Languages=none -o APT::Sandbox::User=root"
}

# fetch SUITE PKG ARCH [APT-OPTIONS]
fetch() {
        suite=$1 pkg=$2 arch=$3
        shift 3
        [ -f "$dest/$suite/${pkg}_$arch/.done" ] && return 0
        rm -f "$tmp"/*.deb
        # shellcheck disable=SC2068
        (cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root $@ "$pkg:$arch" > /dev/null) || {
                echo "pkgnote: apt-get download $pkg:$arch ($suite) failed" >&2
                return 1
        }
        unpack "$suite" "$pkg" "$arch" "$tmp"/*.deb || return 1
        echo "Unpacked $(tr '\n' ' ' < "$dest/$suite/${pkg}_$arch/.done")into $dest/$suite/${pkg}_$arch"
}

rc=0
# bookworm: the machine's own archive (its lists brought up to date once
# if a package is not found in them)
for p in $BOOKWORM; do
        [ -f "$dest/bookworm/${p}_amd64/.done" ] && continue
        if ! apt-cache show "$p" > /dev/null 2>&1; then
                apt-get update -qq > /dev/null 2>&1 || true
        fi
        fetch bookworm "$p" amd64 || rc=1
done
for arch in amd64 s390x arm64; do
        case $arch in amd64) list=$SID ;; s390x) list=$SID_S390X ;; arm64) list=$SID_ARM64 ;; esac
        o=$(private_apt sid $arch)
        # shellcheck disable=SC2086
        apt-get $o update -qq > /dev/null || { echo "pkgnote: apt-get update of sid ($arch) failed" >&2; rc=1; continue; }
        for p in $list; do
                # shellcheck disable=SC2086
                fetch sid "$p" $arch $o || rc=1
        done
        rm -rf "$dest/.apt-sid-$arch"
done
[ $rc = 0 ] || exit $rc
du -sh "$dest"
touch "$dest/.pkgnote-go-corpus"
