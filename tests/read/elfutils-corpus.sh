#!/bin/sh
# elfutils' own test files, from Debian's elfutils source package, as a
# corpus of cores and objects made by others (old kernels, i386, ppc, ppc64,
# separate debug files of old tools).  Usage:
#
#   sh tests/read/elfutils-corpus.sh CACHE_DIR FILE...
#
# Leaves each FILE (a name under the source's tests/, without .bz2)
# decompressed in CACHE_DIR, downloading the source package once: apt-get
# source --download-only through a private sources list (the deb-src twin
# of the system's own deb entries) and private lists and cache, so the
# machine's apt state is not touched.  apt checks the tarball against the
# signed Sources index.  Files already in CACHE_DIR are not fetched again.
# Exits 0 when every FILE is there, else 1 with the reason on stderr.
set -u
[ $# -ge 2 ] || { echo "usage: $0 CACHE_DIR FILE..." >&2; exit 2; }
cache=$1
shift
mkdir -p "$cache" || exit 1
cache=$(cd "$cache" && pwd) || exit 1

need=
for f; do [ -s "$cache/$f" ] || need="$need $f"; done
[ -z "$need" ] && exit 0

for t in apt-get tar bzip2; do
        command -v $t > /dev/null 2>&1 || { echo "elfutils corpus: $t is not installed" >&2; exit 1; }
done

# One fetch at a time into this cache: tests may run in parallel.
exec 9> "$cache/.lock"
if command -v flock > /dev/null 2>&1; then flock 9; fi

work=$cache/.apt
rm -rf "$work"
mkdir -p "$work/parts" "$work/lists/partial" "$work/cache/archives/partial" "$work/src" || exit 1
# deb-src twins of the system's sources: deb822 files and one-line lists.
n=0
for s in /etc/apt/sources.list.d/*.sources; do
        [ -f "$s" ] || continue
        sed 's/^Types:.*/Types: deb-src/' "$s" > "$work/parts/$n.sources"
        n=$((n + 1))
done
for s in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$s" ] || continue
        sed -n 's/^deb \(.*\)/deb-src \1/p' "$s" > "$work/parts/$n.list"
        n=$((n + 1))
done
[ $n -gt 0 ] || { echo "elfutils corpus: no apt sources in /etc/apt" >&2; exit 1; }

apt() {
        apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$work/parts" \
                -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" \
                -o Debug::NoLocking=1 -o APT::Sandbox::User="$(id -un)" "$@"
}
if ! apt update > "$work/update.log" 2>&1; then
        echo "elfutils corpus: apt-get update of the deb-src lists failed: $(tail -n 3 "$work/update.log")" >&2
        exit 1
fi
if ! (cd "$work/src" && apt source --download-only elfutils) > "$work/source.log" 2>&1; then
        echo "elfutils corpus: apt-get source elfutils failed: $(tail -n 3 "$work/source.log")" >&2
        exit 1
fi
tarball=$(ls "$work"/src/elfutils_*.orig.tar.* 2> /dev/null | head -n 1)
[ -n "$tarball" ] || { echo "elfutils corpus: no elfutils_*.orig.tar.* downloaded" >&2; exit 1; }

pats=
for f in $need; do pats="$pats */tests/$f.bz2"; done
mkdir -p "$work/x"
# shellcheck disable=SC2086 # the patterns are words
tar -xf "$tarball" -C "$work/x" --wildcards $pats 2> "$work/tar.log" ||
        { echo "elfutils corpus: cannot extract from $(basename "$tarball"): $(tail -n 3 "$work/tar.log")" >&2; exit 1; }
status=0
for f in $need; do
        src=$(ls "$work"/x/*/tests/"$f".bz2 2> /dev/null | head -n 1)
        if [ -z "$src" ] || ! bzip2 -dc "$src" > "$cache/$f.tmp" || ! mv "$cache/$f.tmp" "$cache/$f"; then
                echo "elfutils corpus: $f is not in $(basename "$tarball")" >&2
                rm -f "$cache/$f.tmp"
                status=1
        fi
done
rm -rf "$work"
exit $status
