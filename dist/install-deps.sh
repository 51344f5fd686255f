#!/bin/sh
# Installs the Debian packages named as arguments that are missing: with
# apt-get when running as root, else prints the command to run.
#
# An argument PKG:COMMAND stands for a package that is only needed when
# COMMAND is not on PATH (npm ships inside some nodejs builds).
#
# Exit 0 when every package is present afterwards; otherwise exit 1 with
# the names of the packages that could not be installed, so that make stops
# before configuring a build on a half-provisioned machine.
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }

missing=
for arg in "$@"; do
        p=${arg%%:*}
        if [ "$p" != "$arg" ] && command -v "${arg#*:}" > /dev/null 2>&1; then continue; fi
        installed "$p" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
        echo "Missing packages:$missing" >&2
        echo "Run: sudo apt-get install --no-install-recommends$missing" >&2
        exit 1
fi
echo "Installing:$missing"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get update -qq; then
        echo "pkgnote: apt-get update failed; cannot install:$missing" >&2
        exit 1
fi
# Name the packages the archive does not have before trying, so that one
# unknown name is reported as such and not as a failure of them all.
unknown=
for p in $missing; do
        apt-cache show --no-all-versions "$p" > /dev/null 2>&1 || unknown="$unknown $p"
done
if [ -n "$unknown" ]; then
        echo "pkgnote: no such package in the configured archives:$unknown" >&2
        exit 1
fi
apt-get install -y -qq --no-install-recommends $missing > /tmp/pkgnote-apt.$$.log 2>&1
rc=$?
failed=
for p in $missing; do
        installed "$p" || failed="$failed $p"
done
if [ $rc -ne 0 ] || [ -n "$failed" ]; then
        tail -n 20 /tmp/pkgnote-apt.$$.log >&2
        echo "pkgnote: apt-get install failed; not installed:${failed:-$missing}" >&2
        rm -f /tmp/pkgnote-apt.$$.log
        exit 1
fi
rm -f /tmp/pkgnote-apt.$$.log
