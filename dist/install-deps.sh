#!/bin/sh
# Installs the Debian packages named as arguments that are missing: with
# apt-get when running as root, else prints the command to run.
missing=
for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
        echo "Installing:$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing > /dev/null || {
                echo "apt-get install failed for:$missing" >&2
                exit 1
        }
else
        echo "Missing packages:$missing" >&2
        echo "Run: sudo apt-get install$missing" >&2
        exit 1
fi
