#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes debian/libpkgnote1.symbols from lib/libpkgnote.sym: each version
# node and its functions, at the version that first shipped the node:
# LIBPKGNOTE_X.Y's at X.Y.0 (1.0's at 1.0.0, 1.1's at 1.1.0), so that a
# program using a 1.1 function depends on the release that added it.  Run
# from the source root after changing the version script; the package
# build (dpkg-gensymbols -c4) and tests/arch/cmd-packaging.sh fail while
# the two differ.
set -eu
sym=${1:-lib/libpkgnote.sym}
printf 'libpkgnote.so.1 libpkgnote1 #MINVER#\n* Build-Depends-Package: libpkgnote-dev\n'
awk '
        /^[A-Za-z_0-9.]+ *\{/ {
                node = $1; sub(/\{.*/, "", node)
                v = node; sub(/^LIBPKGNOTE_/, "", v)
                if (v !~ /^[0-9]+\.[0-9]+$/) { print "gen-symbols: node " node " is not LIBPKGNOTE_X.Y" > "/dev/stderr"; exit 1 }
                v = v ".0"
                print " " node "@" node " " v; next
        }
        /^[ \t]*pkgnote_[A-Za-z_0-9]*;/ { s = $1; sub(/;.*/, "", s); print " " s "@" node " " v }
' "$sym"
