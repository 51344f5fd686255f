# One machine of the fleet in tests/read/cmd-fleet.sh (POSIX sh, run by it,
# never by meson): cmd-fleet.sh starts this script under
# unshare -m -u -n --propagation private, so the machine has its own mount,
# UTS (hostname) and network namespace, and moves one end of a veth pair
# into it.  Here the machine
#   - waits for that link, gives itself 10.44.I.2/24 on it with the
#     collector (10.44.I.1, and 10.44.0.1 where systemd-journal-remote
#     listens) as the default route,
#   - takes its hostname and binds its own /etc/machine-id (journald stamps
#     _MACHINE_ID from it, systemd-coredump's COREDUMP_HOSTNAME is the
#     kernel's %h, which the machine gives as its hostname),
#   - runs its own journald and systemd-coredump (tests/read/systemd-ns.sh)
#     with its own coredump.conf,
#   - runs its plan (a shell file of the calls below: crashes, spoofed and
#     hostile entries), each crash waited for in its journal,
#   - removes the cores systemd-coredump stored when told to (a store
#     vacuumed), and
#   - uploads its journal with systemd-journal-upload to the collector
#     when $FLEET/upload appears (all machines at once).
# The environment names it: FLEET (the shared directory), FLEET_NAME,
# FLEET_INDEX, FLEET_HOST, FLEET_ID (its machine ID), FLEET_UPLOAD
# (systemd-journal-upload), FLEET_CONF (coredump.conf lines, separated by
# ';'), FLEET_PLAN, FLEET_VACUUM (1: the stored cores go once logged),
# FLEET_DEBUG (a directory to mount as /usr/lib/debug: the debug symbols
# this machine's unwinders find).
# What the machine logged goes to $FLEET/$FLEET_NAME.entries, one line
# each: KIND PID LABEL TIME (KIND crash, spoof or hostile; LABEL the core's
# name, TIME the crash's in seconds, or KIND and - for an entry logged).
: "${FLEET:?}" "${FLEET_NAME:?}" "${FLEET_INDEX:?}" "${FLEET_HOST:?}" "${FLEET_ID:?}" "${FLEET_PLAN:?}"
: > "$FLEET/$FLEET_NAME.inside"
PKGNOTE_SDNS_INSIDE=1
. "$SRCDIR/tests/read/systemd-ns.sh"
HANDLER="$BUILDDIR/pkgnote-coredump"
ENTRIES="$FLEET/$FLEET_NAME.entries"
: > "$ENTRIES"

_i=0
until [ -e "$FLEET/$FLEET_NAME.wired" ]; do
        _i=$((_i + 1))
        [ $_i -gt 200 ] && fatal "machine $FLEET_NAME: the collector never wired its link"
        sleep 0.05
done
ip link set lo up && ip addr add "10.44.$FLEET_INDEX.2/24" dev eth0 && ip link set eth0 up &&
        ip route add default via "10.44.$FLEET_INDEX.1" || fatal "machine $FLEET_NAME: cannot set up its network"
hostname "$FLEET_HOST" || fatal "machine $FLEET_NAME: cannot set its hostname"
[ "$(hostname)" = "$FLEET_HOST" ] || fatal "machine $FLEET_NAME: the hostname did not change"
echo "$FLEET_ID" > "$T/machine-id"
mount --bind "$T/machine-id" /etc/machine-id || fatal "machine $FLEET_NAME: cannot bind its machine-id"
if [ -n "${FLEET_DEBUG:-}" ]; then
        mount --bind "$FLEET_DEBUG" /usr/lib/debug || fatal "machine $FLEET_NAME: cannot mount its debug directory"
fi
# Its own store of pkgnote-coredump, which no other machine sees.
PRIVATE="$T/private"
mkdir -p "$PRIVATE"
mount -t tmpfs -o mode=0755 tmpfs "$PRIVATE" || fatal "machine $FLEET_NAME: cannot mount its private store"
echo "stack = yes" > "$T/pkgnote-coredump.conf"

_old_ifs=$IFS
IFS=';'
# shellcheck disable=SC2086 # the lines are separated by ';'
sdns_start ${FLEET_CONF:-}
IFS=$_old_ifs
SDNS_HOSTNAME=$FLEET_HOST
[ "$(cat /etc/machine-id)" = "$FLEET_ID" ] || fatal "machine $FLEET_NAME: /etc/machine-id is not its own"

# sd_crash CORE SIGNAL TIME CMD...: systemd-coredump stores the kernel's
# CORE of CMD (a twin runs under the PID it is given).
sd_crash() {
        sdns_feed "$@"
        echo "crash $SDNS_PID $(basename "$1" .core) $3" >> "$ENTRIES"
}

# pn_crash CORE SIGNAL TIME COMM CMD...: pkgnote-coredump (stack = yes)
# stores it and logs it to this machine's journal.
pn_crash() {
        _core=$1 _sig=$2 _ts=$3 _comm=$4
        shift 4
        "$@" > /dev/null 2>&1 &
        _pid=$!
        sleep 0.3
        "$HANDLER" -c "$T/pkgnote-coredump.conf" -d "$PRIVATE/state" -l "$T/pkgnote-coredump.log" \
                "$_pid" 0 0 "$_sig" "$_ts" 18446744073709551615 "$FLEET_HOST" "$_comm" < "$_core"
        _r=$?
        kill -KILL "$_pid" 2> /dev/null
        wait "$_pid" 2> /dev/null
        [ $_r -eq 0 ] || fatal "pkgnote-coredump failed ($_r): $(cat "$T/pkgnote-coredump.log")"
        sdns_wait_entry "$_pid"
        echo "crash $_pid $(basename "$_core" .core) $_ts" >> "$ENTRIES"
}

# log_entry KIND AS COMM PID [-] FIELD=VALUE...: logs an entry with the
# crash MESSAGE_ID and COREDUMP_PID=PID through journald's native protocol
# ($FLEET/send.py, which says what - and a value @FILE mean), from a
# process named COMM running as AS (root or nobody).
log_entry() {
        _kind=$1 _as=$2 _comm=$3 _pid=$4
        shift 4
        _copy=
        [ "${1:-}" = - ] && { _copy=-; shift; }
        _py=$(cat "$FLEET/send.py")
        if [ "$_as" = root ]; then
                python3 -c "$_py" "$_comm" $_copy "$MID" COREDUMP_PID="$_pid" "$@"
        else
                setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c "$_py" "$_comm" $_copy "$MID" COREDUMP_PID="$_pid" "$@"
        fi || fatal "machine $FLEET_NAME: cannot log the $_kind entry"
        sdns_wait_entry "$_pid"
        echo "$_kind $_pid $_kind -" >> "$ENTRIES"
}

# message PID: the MESSAGE of the crash entry of PID in this journal.
message() {
        journalctl -D "$SDNS_JOURNAL" -q -o cat "$MID" COREDUMP_PID="$1"
}

. "$FLEET_PLAN"

if [ "${FLEET_VACUUM:-0}" = 1 ]; then
        ls "$SDNS_STORE" | grep -q '^core\.' || fatal "machine $FLEET_NAME: systemd-coredump stored no core file"
        rm -f "$SDNS_STORE"/core.*
fi

# The machines upload together, once all have logged their crashes.
: > "$FLEET/$FLEET_NAME.logged"
_i=0
until [ -e "$FLEET/upload" ]; do
        _i=$((_i + 1))
        [ $_i -gt 1200 ] && fatal "machine $FLEET_NAME: never told to upload"
        sleep 0.05
done
"${FLEET_UPLOAD:?}" -D "$SDNS_JOURNAL" --url="http://10.44.0.1:19532" --save-state="$T/upload.state" --follow=no \
        > "$T/upload.log" 2>&1 || fatal "machine $FLEET_NAME: systemd-journal-upload failed: $(cat "$T/upload.log")"
[ -s "$T/upload.state" ] || fatal "machine $FLEET_NAME: systemd-journal-upload saved no cursor: $(cat "$T/upload.log")"
echo "machine $FLEET_NAME ($FLEET_HOST, $FLEET_ID): $(wc -l < "$ENTRIES") entries uploaded"
