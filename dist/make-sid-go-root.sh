#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Makes the Debian sid root with sid's Go (golang-go, Go 1.27 at the time of
# writing) and git, in which tests/read/cmd-gobuild-sid.sh builds its test
# programs (run inside the root with bwrap) and whose `go version -m` is the
# reference for them and for the sid binaries of the Go corpus
# (dist/fetch-go-corpus.sh, tests/read/cmd-go-corpus.sh): the newest Go
# reads the build information of every older one.  About 100 MB, one to
# two minutes from scratch on a fast mirror.
#   sh dist/make-sid-go-root.sh [DIR]   (default /var/cache/pkgnote/roots/sid-go)
# Needs mmdebstrap and the network; run as root.
set -eu
dir=${1:-${PKGNOTE_SID_GO_ROOT:-/var/cache/pkgnote/roots/sid-go}}
[ -f "$dir/.pkgnote-sid-go-root" ] && exit 0
command -v mmdebstrap > /dev/null || { echo "mmdebstrap is not installed" >&2; exit 1; }
mkdir -p "$(dirname "$dir")"
rm -rf "$dir.tmp"
# As dist/make-sid-root.sh: sid's Release file is valid for a week only.
mmdebstrap --variant=minbase --include=golang-go,git --skip=check/empty \
        --aptopt='Acquire::Check-Valid-Until "false"' \
        --customize-hook='chroot "$1" dpkg-query -W > "$1/.pkgnote-sid-packages"' \
        --customize-hook='chroot "$1" go version > "$1/.pkgnote-go-version"' \
        sid "$dir.tmp" http://deb.debian.org/debian
[ -x "$dir.tmp/usr/bin/go" ] && [ -x "$dir.tmp/usr/bin/git" ]
touch "$dir.tmp/.pkgnote-sid-go-root"
mv "$dir.tmp" "$dir"
