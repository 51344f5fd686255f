#!/bin/sh
# pkgnote show against readelf -n and systemd-analyze over this machine's
# own binaries (Debian stamps its systemd programs and libraries).
. "$SRCDIR/tests/lib.sh"
roots=
for d in /usr/bin /usr/lib /usr/libexec; do [ -d "$d" ] && roots="$roots $d"; done
# shellcheck disable=SC2086
python3 "$SRCDIR/tests/read/crosscheck.py" "$PKGNOTE" $roots
