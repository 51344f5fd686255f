#!/bin/sh
# Benchmark: listing the crashes of a collector, beside coredumpctl.  A
# journal of ENTRIES entries (default 10^6) from MACHINES machines
# (default 100) holds CRASHES systemd-coredump crash entries (default
# 10^4): MESSAGE_ID fc2e22bc6ee647b6b90729ab34a250b1, _UID 0, _COMM
# systemd-coredum, the COREDUMP_* fields as systemd-coredump writes them
# (its /proc copies among them), a MESSAGE with the stack trace text, one
# crash in ten with a small core inline (COREDUMP=), the rest naming a
# stored core file; the other entries are ordinary log lines.  Each
# machine's entries (bench/fleet-gen.py, journal export format) go through
# the real systemd-journal-remote into DIR/remote-hostNNN.journal, as a
# collector receives them (built once, cached under
# /var/tmp/pn-bench/fleet).  Timed, alternating, RUNS times each (default
# 5; medians of wall time and of peak RSS, /usr/bin/time):
#   pkgnote list -D DIR           the listing
#   pkgnote list -D DIR --json    every crash's whole record and signature
#   coredumpctl --no-pager list -D DIR   (the unpacked systemd-coredump's)
#   pkgnote list -D DIR --group   when list --help mentions --group
# Also the peak of anonymous memory (RssAnon, sampled): the peak RSS is
# mostly the journal files libsystemd maps, which grow with the journal.
# Goal: pkgnote list no slower than coredumpctl list, its peak memory
# independent of the number of entries.
#
#   bench/list-fleet.sh [PKGNOTE]   (default build/pkgnote; writes bench/results-list-fleet.txt)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PKGNOTE=$(realpath "${1:-$here/../build/pkgnote}")
RESULTS=${RESULTS:-$here/results-list-fleet.txt}
runs=${RUNS:-5}
machines=${MACHINES:-100}
entries=${ENTRIES:-1000000}
crashes=${CRASHES:-10000}
CACHE=${CACHE:-/var/tmp/pn-bench/fleet}
SDC=${PKGNOTE_SYSTEMD_COREDUMP:-/var/cache/pkgnote/systemd-coredump}
COREDUMPCTL=$SDC/usr/bin/coredumpctl
JR=/lib/systemd/systemd-journal-remote
[ -x "$JR" ] || JR=/usr/lib/systemd/systemd-journal-remote
need() { echo "list-fleet: $1 (make deps-test provides it)" >&2; exit 1; }
[ -x "$JR" ] || need "no systemd-journal-remote"
[ -x "$COREDUMPCTL" ] || need "no $COREDUMPCTL (dist/fetch-systemd-coredump.sh)"
[ -x /usr/bin/time ] || need "no /usr/bin/time (package time)"
command -v python3 > /dev/null || need "no python3"

# The journal, rebuilt when its parameters or its generator change.
key="$machines $entries $crashes $(sha256sum "$here/fleet-gen.py" | cut -c1-16)"
DIR=$CACHE/journal
if [ "$(cat "$CACHE/key" 2> /dev/null)" != "$key" ]; then
        echo "building $DIR: $entries entries, $crashes crashes, $machines machines ..." >&2
        rm -rf "$CACHE"
        mkdir -p "$DIR"
        m=0
        while [ "$m" -lt "$machines" ]; do
                python3 "$here/fleet-gen.py" "$m" "$machines" $((entries / machines)) $((crashes / machines)) |
                        "$JR" -o "$DIR/$(printf 'remote-host%03d.journal' "$m")" - > "$CACHE/jr.log" 2>&1 ||
                        { cat "$CACHE/jr.log" >&2; exit 1; }
                m=$((m + 1))
        done
        echo "$key" > "$CACHE/key"
fi

W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
# Each command must work, and list what coredumpctl lists, before it is timed.
"$PKGNOTE" list -D "$DIR" > "$W/pn.txt" || { echo "pkgnote list failed" >&2; exit 1; }
"$COREDUMPCTL" --no-pager list -D "$DIR" > "$W/cd.txt" || { echo "coredumpctl list failed" >&2; exit 1; }
n_pn=$(($(wc -l < "$W/pn.txt") - 1))
n_cd=$(($(wc -l < "$W/cd.txt") - 1))
[ "$n_pn" = "$n_cd" ] && [ "$n_pn" = "$crashes" ] ||
        { echo "crashes listed: pkgnote $n_pn, coredumpctl $n_cd, expected $crashes" >&2; exit 1; }
"$PKGNOTE" list -D "$DIR" --json > "$W/pn.json"
[ "$(wc -l < "$W/pn.json")" = "$crashes" ] || { echo "pkgnote list --json lists $(wc -l < "$W/pn.json") crashes" >&2; exit 1; }

names="list json coredumpctl"
cmd_list="$PKGNOTE list -D $DIR"
cmd_json="$PKGNOTE list -D $DIR --json"
cmd_coredumpctl="$COREDUMPCTL --no-pager list -D $DIR"
if "$PKGNOTE" list --help 2>&1 | grep -q -- --group; then
        names="$names group"
        cmd_group="$PKGNOTE list -D $DIR --group"
fi
# One run of each in turn, RUNS times: a loaded machine slows them alike.
i=0
while [ "$i" -le "$runs" ]; do
        for n in $names; do
                eval "c=\$cmd_$n"
                /usr/bin/time -f "%e %M" -o "$W/t" sh -c "exec $c > /dev/null 2>&1" || true
                # The first round warms the page cache and is not counted.
                [ "$i" -gt 0 ] && cat "$W/t" >> "$W/$n.times"
        done
        i=$((i + 1))
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for n in $names; do
        eval "wall_$n=\$(awk '{ print \$1 }' \"\$W/$n.times\" | median)"
        eval "rss_$n=\$(awk '{ printf \"%.1f\\n\", \$2 / 1024 }' \"\$W/$n.times\" | median)"
done
# Peak anonymous memory (RssAnon, sampled every 20 ms; the journal files
# libsystemd maps are file pages, counted in the peak RSS above): what the
# program itself holds, apart from the journal's size.
anon_peak() {
        sh -c "exec $1 > /dev/null 2>&1" &
        _p=$!
        _m=0
        while kill -0 "$_p" 2> /dev/null; do
                _a=$(awk '/^RssAnon:/ { print $2 }' "/proc/$_p/status" 2> /dev/null || true)
                [ -n "$_a" ] && [ "$_a" -gt "$_m" ] && _m=$_a
                sleep 0.02
        done
        wait "$_p" || true
        echo "$_m" | awk '{ printf "%.1f", $1 / 1024 }'
}
for n in $names; do
        eval "c=\$cmd_$n"
        eval "anon_$n=\$(anon_peak \"\$c\")"
done
ratio() { echo "$1 $2" | awk '{ printf "%.2f", ($2 > 0) ? $1 / $2 : 0 }'; }
{
        echo "pkgnote list beside coredumpctl list on a collector's journal"
        echo "($entries entries, $crashes crashes, $machines machines through systemd-journal-remote;"
        echo " $(du -sm "$DIR" | cut -f1) MiB in $(ls "$DIR" | wc -l) files; medians of $runs alternating runs;"
        echo " load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%d))"
        echo
        printf '%-34s %9s %12s %12s\n' command "wall s" "peak MiB" "anon MiB"
        for n in $names; do
                eval "c=\$cmd_$n; w=\$wall_$n; r=\$rss_$n; a=\$anon_$n"
                printf '%-34s %9s %12s %12s\n' "$(echo "$c" | sed "s|$DIR|DIR|; s|$PKGNOTE|pkgnote|; s|$COREDUMPCTL|coredumpctl|")" "$w" "$r" "$a"
        done
        echo
        echo "list / coredumpctl: wall $(ratio "$wall_list" "$wall_coredumpctl")x, peak memory $(ratio "$rss_list" "$rss_coredumpctl")x (goal: wall <= 1)"
        echo "list --json / coredumpctl: wall $(ratio "$wall_json" "$wall_coredumpctl")x, peak memory $(ratio "$rss_json" "$rss_coredumpctl")x"
        case " $names " in *" group "*)
                echo "list --group / coredumpctl: wall $(ratio "$wall_group" "$wall_coredumpctl")x, peak memory $(ratio "$rss_group" "$rss_coredumpctl")x"
                echo "list --group / list: wall $(ratio "$wall_group" "$wall_list")x (goal: <= 1.5), anon memory $(ratio "$anon_group" "$anon_list")x" ;;
        esac
} | tee "$RESULTS"
