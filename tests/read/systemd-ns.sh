# A real journald and systemd-coredump for command tests, without touching
# the host (POSIX sh, sourced first by a cmd-*.sh script, before lib.sh).
#
# The script re-executes itself inside a private mount namespace
# (unshare -m --propagation private) where tmpfs covers /run/systemd,
# /run/log and /var/lib/systemd/coredump; journald keeps its journal
# volatile there, and systemd-coredump (unpacked from Debian's package by
# dist/fetch-systemd-coredump.sh, never installed: its maintainer script
# rewrites kernel.core_pattern) serves /run/systemd/coredump through
# systemd-socket-activate.  Nothing of /proc/sys is read or changed beyond
# core_pattern being a plain file name, which the kernel then writes to the
# crashed program's working directory.
#
# After sourcing: sdns_start; sdns_crash NAME CMD...; sdns_feed ...; see
# each function.  SDC is the unpacked package, COREDUMPCTL its coredumpctl,
# SDNS_JOURNAL the journal directory (coredumpctl -D "$SDNS_JOURNAL").
# Set before sourcing, SDNS_UNSHARE adds namespaces to the mount namespace
# (SDNS_UNSHARE=-n: a private network namespace too); set before
# sdns_feed, SDNS_HOSTNAME is the hostname the crash handler is given (the
# kernel's %h; pkgnote-test unless set).
SDC=${PKGNOTE_SYSTEMD_COREDUMP:-/var/cache/pkgnote/systemd-coredump}
COREDUMPCTL="$SDC/usr/bin/coredumpctl"
SDNS_JOURNAL=/run/log/journal
SDNS_STORE=/var/lib/systemd/coredump

# Every tool the harness needs; a missing one skips the script, or fails
# it under PKGNOTE_STRICT=1 (make deps-test installs and unpacks them).
_sdns_need() {
        [ "${PKGNOTE_STRICT:-0}" = 1 ] && { echo "not ok - required tool missing: $1 (make deps-test provides it)"; exit 1; }
        echo "1..0 # SKIP $1 is not available"; exit 77
}
for _t in unshare mount systemd-socket-activate journalctl; do
        command -v "$_t" > /dev/null 2>&1 || _sdns_need "$_t"
done
[ -x /lib/systemd/systemd-journald ] || _sdns_need /lib/systemd/systemd-journald
[ -x "$SDC/lib/systemd/systemd-coredump" ] || _sdns_need "$SDC/lib/systemd/systemd-coredump"
[ -x "$COREDUMPCTL" ] || _sdns_need "$COREDUMPCTL"
[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP a mount namespace needs root"; exit 77; }
case $(cat /proc/sys/kernel/core_pattern) in
"|"* | */*) echo "1..0 # SKIP core_pattern is not a plain file name here: the kernel writes no core to the working directory"; exit 77 ;;
esac

if [ -z "${PKGNOTE_SDNS_INSIDE:-}" ]; then
        # shellcheck disable=SC2086 # SDNS_UNSHARE is a list of options
        PKGNOTE_SDNS_INSIDE=1 exec unshare -m ${SDNS_UNSHARE:-} --propagation private sh "$0" "$@"
        echo "Bail out! cannot enter a mount namespace"
        exit 99
fi

. "$SRCDIR/tests/lib.sh"

SDNS_PIDS=
# Stops what sdns_start started; the namespace's mounts go with its last
# process.
sdns_stop() {
        for _p in $SDNS_PIDS; do kill "$_p" 2> /dev/null; done
        for _p in $SDNS_PIDS; do wait "$_p" 2> /dev/null; done
        SDNS_PIDS=
}
trap 'sdns_stop; umount_below "$T"; rm -rf "$T"' EXIT

# sdns_wait_for PATH: until the socket or file PATH exists (5 s).
sdns_wait_for() {
        _i=0
        while [ ! -e "$1" ]; do
                _i=$((_i + 1))
                [ $_i -gt 100 ] && return 1
                sleep 0.05
        done
}

# sdns_start [COREDUMP.CONF LINES]: the tmpfs mounts, journald (volatile,
# no kernel log) and the coredump socket.  Extra arguments are lines for a
# coredump.conf drop-in ("Storage=journal").
sdns_start() {
        mount -t tmpfs -o mode=0755 tmpfs /run/systemd || fatal "cannot mount /run/systemd"
        mkdir -p /run/log
        mount -t tmpfs -o mode=0755 tmpfs /run/log || fatal "cannot mount /run/log"
        mkdir -p "$SDNS_STORE"
        mount -t tmpfs -o mode=0755 tmpfs "$SDNS_STORE" || fatal "cannot mount $SDNS_STORE"
        # Drop-ins below /run win over /etc and /usr: journald never
        # writes to /var/log/journal, nor reads the host's kernel log.
        mkdir -p /run/systemd/journald.conf.d /run/systemd/coredump.conf.d
        printf '[Journal]\nStorage=volatile\nReadKMsg=no\nForwardToSyslog=no\nForwardToWall=no\nForwardToConsole=no\nRateLimitBurst=0\n' \
                > /run/systemd/journald.conf.d/pkgnote-test.conf
        { echo '[Coredump]'; for _l; do echo "$_l"; done; } > /run/systemd/coredump.conf.d/pkgnote-test.conf
        /lib/systemd/systemd-journald > "$T/journald.log" 2>&1 &
        SDNS_PIDS="$SDNS_PIDS $!"
        sdns_wait_for /run/systemd/journal/socket || fatal "journald did not start: $(cat "$T/journald.log")"
        systemd-socket-activate --seqpacket --accept -l /run/systemd/coredump "$SDC/lib/systemd/systemd-coredump" \
                > "$T/coredump.log" 2>&1 &
        SDNS_PIDS="$SDNS_PIDS $!"
        sdns_wait_for /run/systemd/coredump || fatal "the coredump socket did not appear: $(cat "$T/coredump.log")"
}

# sdns_crash CORE CMD...: runs CMD in the current directory with cores
# unlimited and sends it SIGSEGV once it has run 0.3 s (a program that
# crashes by itself before is fine too); the kernel's core is moved to
# CORE.  Fails the script when no core came.
sdns_crash() {
        _core=$1
        shift
        rm -f core
        ( ulimit -c unlimited; exec "$@" ) > /dev/null 2>&1 &
        _p=$!
        sleep 0.3
        kill -SEGV "$_p" 2> /dev/null
        wait "$_p" 2> /dev/null
        [ -f core ] || fatal "the kernel wrote no core for $*"
        mv core "$_core"
}

# sdns_feed CORE SIGNAL TIMESTAMP CMD...: hands CORE to systemd-coredump
# as the kernel would (PID UID GID SIGNAL TIMESTAMP RLIMIT HOSTNAME, the
# core on standard input) while CMD, a twin of the crashed program (same
# executable), runs under that PID: systemd-coredump reads the process's
# metadata from /proc/PID.  Sets SDNS_PID to the twin's PID and waits until
# the journal holds its entry.  TIMESTAMP is in seconds (the kernel's %t).
sdns_feed() {
        _core=$1 _sig=$2 _ts=$3
        shift 3
        "$@" > /dev/null 2>&1 &
        SDNS_PID=$!
        sleep 0.3
        "$SDC/lib/systemd/systemd-coredump" "$SDNS_PID" 0 0 "$_sig" "$_ts" 18446744073709551615 "${SDNS_HOSTNAME:-pkgnote-test}" \
                < "$_core" >> "$T/coredump.log" 2>&1
        _r=$?
        kill -KILL "$SDNS_PID" 2> /dev/null
        wait "$SDNS_PID" 2> /dev/null
        [ $_r -eq 0 ] || fatal "systemd-coredump failed ($_r): $(cat "$T/coredump.log")"
        sdns_wait_entry "$SDNS_PID"
}

# sdns_wait_entry PID: until the journal holds the coredump entry of PID (10 s).
sdns_wait_entry() {
        _i=0
        until journalctl -D "$SDNS_JOURNAL" -q -o cat MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1 \
                COREDUMP_PID="$1" 2> /dev/null | grep -q .; do
                _i=$((_i + 1))
                [ $_i -gt 100 ] && fatal "no journal entry for the crash of PID $1: $(cat "$T/coredump.log")"
                sleep 0.1
        done
}
