#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Benchmarks the Python binding: the package notes of every ELF file under
# a tree (default /usr) read by pkgnote.read() in one interpreter, against
# pyelftools doing the same in one interpreter (goal: the binding at least
# 20x faster) and against "pkgnote show --json" over the same files by
# xargs in batches of 500 (goal: the binding within 1.2x of the command).
# Warm cache: one untimed run first, then the best of $RUNS (pyelftools:
# one timed run, as it takes minutes).
#
# Usage: bench/python.sh [BUILDDIR [ROOT]]   (defaults: build /usr)
# Writes the table to stdout and to bench/results-python.txt.
set -eu

builddir=${1:-build}
root=${2:-/usr}
runs=${RUNS:-3}
here=$(cd "$(dirname "$0")" && pwd)
results=${RESULTS:-$here/results-python.txt}
case $builddir in /*) ;; *) builddir=$PWD/$builddir ;; esac
pkgnote=$builddir/pkgnote
# Debian's interpreter, which meson found and built the module for.
python=${PYTHON:-/usr/bin/python3}
if ! PYTHONPATH=$builddir/python "$python" -c 'import pkgnote' 2> /dev/null; then
        echo "python.sh: no pkgnote module in '$builddir/python' (build with -Dpython=enabled)" >&2
        exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C
find "$root" -type f -print0 2>/dev/null > "$tmp/all"
"$python" "$here/python-notes.py" list "$tmp/all" > "$tmp/list"
nfiles=$(tr -cd '\000' < "$tmp/list" | wc -c)

. "$here/lib.sh"

printf 'measuring %s ELF files under %s (best of %s)...\n' "$nfiles" "$root" "$runs" >&2
t_binding=$(measure "PYTHONPATH='$builddir/python' '$python' '$here/python-notes.py' binding '$tmp/list'")
t_show=$(measure "xargs -0 -n 500 '$pkgnote' show --json < '$tmp/list'")
PYTHONPATH=$builddir/python "$python" "$here/python-notes.py" binding "$tmp/list" 2> "$tmp/binding.count"
if "$python" -c 'import elftools' 2> /dev/null; then
        runs=1
        t_pyelftools=$(run_once "'$python' '$here/python-notes.py' pyelftools '$tmp/list'")
        "$python" "$here/python-notes.py" pyelftools "$tmp/list" 2> "$tmp/pyelftools.count" || true
else
        t_pyelftools=
fi

# Not timed: every file's report against the command's and pyelftools'.
if "$python" -c 'import elftools' 2> /dev/null; then
        PYTHONPATH=$builddir/python "$python" "$here/python-notes.py" compare "$tmp/list" "$pkgnote" \
                > "$tmp/compare" 2> "$tmp/compare.err" || { cat "$tmp/compare.err" >&2; echo "python.sh: the binding's results differ" >&2; }
fi

{
        printf '# Python binding benchmark, %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        printf '# %s ELF files under %s; warm cache, best of %s (pyelftools: one run)\n' "$nfiles" "$root" "${RUNS:-3}"
        printf '# %s; %s CPUs; %s; pyelftools %s\n' "$(uname -srm)" "$(nproc)" "$("$python" -V)" \
                "$("$python" -c 'import elftools; print(elftools.__version__)' 2> /dev/null || echo missing)"
        printf '# %s\n' "$(cat "$tmp/binding.count")"
        [ -z "$t_pyelftools" ] || printf '# %s\n' "$(cat "$tmp/pyelftools.count")"
        [ ! -s "$tmp/compare" ] || printf '# %s\n' "$(cat "$tmp/compare")"
        printf '%-22s %10s %12s\n' tool seconds 'x binding'
        row() {
                [ -n "$2" ] || return 0
                printf '%-22s %10s %12s\n' "$1" "$2" "$(echo "$2 $t_binding" | awk '{ printf "%.2f", $1 / $2 }')"
        }
        row binding "$t_binding"
        row pkgnote-show-json "$t_show"
        row pyelftools "$t_pyelftools"
        ratio_show=$(echo "$t_binding $t_show" | awk '{ printf "%.2f", $1 / $2 }')
        met_show=$(echo "$ratio_show" | awk '{ print ($1 <= 1.2) ? "met" : "NOT met" }')
        printf '# goal: binding within 1.2x of pkgnote show --json: %sx (%s)' "$ratio_show" "$met_show"
        if [ -n "$t_pyelftools" ]; then
                ratio_py=$(echo "$t_pyelftools $t_binding" | awk '{ printf "%.1f", $1 / $2 }')
                met_py=$(echo "$ratio_py" | awk '{ print ($1 >= 20) ? "met" : "NOT met" }')
                printf '; >= 20x faster than pyelftools: %sx (%s)' "$ratio_py" "$met_py"
        fi
        printf '\n'
} | tee "$results"
