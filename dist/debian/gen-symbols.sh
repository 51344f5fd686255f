#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes debian/libpkgnote1.symbols from lib/libpkgnote.sym: each version
# node and its functions, at the version that first shipped the node (1.0.0
# for all until a release adds one).  Run from the source root after
# changing the version script; the package build (dpkg-gensymbols -c4)
# and tests/arch/cmd-packaging.sh fail while the two differ.
set -eu
sym=${1:-lib/libpkgnote.sym}
minver=${MINVER:-1.0.0}
printf 'libpkgnote.so.1 libpkgnote1 #MINVER#\n* Build-Depends-Package: libpkgnote-dev\n'
awk -v v="$minver" '
        /^[A-Za-z_0-9.]+ *\{/ { node = $1; sub(/\{.*/, "", node); print " " node "@" node " " v; next }
        /^[ \t]*pkgnote_[A-Za-z_0-9]*;/ { s = $1; sub(/;.*/, "", s); print " " s "@" node " " v }
' "$sym"
