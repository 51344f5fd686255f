# In the VM: systemd-coredump 262 of Debian sid, side by side with
# pkgnote-coredump (scenarios/10-coredump-socket.sh stored its 20 crashes
# under a quota of 3 in /var/lib/quota, in this same boot).  Run as
# systemd 262 runs it, without systemd as PID 1: systemd-coredumpd.service
# is "systemd-coredump --manager" (it binds /run/systemd/coredumpd/kernel
# itself when no socket is passed, and forks a worker per crash), and
# systemd-coredump-register.service writes
# kernel.core_pattern=@@/run/systemd/coredumpd/kernel.  The same program
# crashes 20 times; systemd-coredump keeps every core (Storage=external,
# the default): count and bytes, and the figure beside pkgnote-coredump's.
check() { # NAME GOT WANT
        if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1"; echo "# got '$2', want '$3'"; fi
}
SC=/usr/lib/systemd/systemd-coredump
[ -x $SC ] || { echo "ok - vm systemd-coredump # SKIP not in the initramfs (sh dist/fetch-sid-systemd-coredump.sh)"; exit 0; }
echo "# systemd-coredump $(cat /vm/systemd-coredump-version) (Debian sid), unpacked, not installed"
$SC --check-requirements > /tmp/sdc-req 2>&1
check "vm systemd-coredump: --check-requirements on sid's kernel" "$?" 0
sed 's/^/# /' /tmp/sdc-req | head -3
STORE=/var/lib/systemd/coredump
K=/run/systemd/coredumpd/kernel
mkdir -p $STORE /run/systemd/coredumpd
ulimit -c unlimited
SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_LEVEL=info $SC --manager > /tmp/sdc.log 2>&1 &
MGR=$!
k=0
while [ ! -S $K ] && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done
[ -S $K ] && echo "ok - vm systemd-coredump: --manager listens on $K" \
        || { echo "not ok - vm systemd-coredump: --manager listens on $K"; sed 's/^/# /' /tmp/sdc.log | tail -5; }
echo "@@$K" > /proc/sys/kernel/core_pattern
check "vm systemd-coredump: core_pattern read back" "$(cat /proc/sys/kernel/core_pattern)" "@@$K"
count() { ls $STORE 2> /dev/null | grep -c '^core\.crasher\.'; }
t0=$(cut -d' ' -f1 /proc/uptime)
i=0
while [ $i -lt 20 ]; do /vm/bin/crasher 2> /dev/null; i=$((i + 1)); done
# The workers store after the process is gone: waited for, bounded.
k=0
while [ "$(count)" -lt 20 ] && [ $k -lt 600 ]; do sleep 0.1; k=$((k + 1)); done
t1=$(cut -d' ' -f1 /proc/uptime)
n=$(count)
check "vm systemd-coredump 262, socket (@@): 20 crashes, 20 cores stored" "$n" 20
[ "$n" = 20 ] || sed 's/^/# /' /tmp/sdc.log | tail -8
s_bytes=$(ls -ln $STORE | awk '/ core\.crasher\./ { s += $5 } END { print s + 0 }')
s_kib=$(du -sk $STORE | cut -f1)
# pkgnote-coredump, quota 3, the same program 20 times (scenario 10).
q_n=$(ls /var/lib/quota 2> /dev/null | grep -c '^core\..*\.json$')
q_r=$(ls /var/lib/quota/rejected 2> /dev/null | grep -c '\.json$')
q_bytes=$(find /var/lib/quota -type f -name 'core.*' -exec ls -ln {} + 2> /dev/null | awk '{ s += $5 } END { print s + 0 }')
q_kib=$(du -sk /var/lib/quota 2> /dev/null | cut -f1)
[ "$q_n" = 3 ] && [ "$n" -gt "$q_n" ] && echo "ok - vm side by side: systemd-coredump keeps $n cores, pkgnote-coredump under a quota of 3 keeps 3" \
        || echo "not ok - vm side by side: systemd-coredump keeps $n cores, pkgnote-coredump under a quota of 3 keeps $q_n"
echo "# side by side, one program crashing 20 times: systemd-coredump 262 (socket @@, Storage=external): $n cores, $s_bytes bytes ($s_kib KiB on disk) in $(awk "BEGIN { print $t1 - $t0 }") s; pkgnote-coredump quota 3: $q_n cores + $q_r metadata-only entries, $q_bytes bytes ($q_kib KiB on disk)"
# pkgnote list shows pkgnote-coredump's 17 refused cores as crashes.
# (systemd-coredump's store is read too: only pkgnote's lines.)
/vm/bin/pkgnote list -d /var/lib/quota 2>&1 | grep ' pkgnote ' > /tmp/q-list
check "vm: pkgnote list of the quota's store: 17 crashes whose core was refused" "$(grep -c ' rejected (quota) ' /tmp/q-list)" 17
check "vm: pkgnote list of the quota's store: 3 cores present" "$(grep -c ' present ' /tmp/q-list)" 3
# pkgnote reads systemd-coredump's store: its files and their xattrs.
/vm/bin/pkgnote list --systemd-dir $STORE > /tmp/sdc-list 2>&1
check "vm: pkgnote list reads systemd-coredump 262's store" "$(grep -c 'crasher' /tmp/sdc-list)" 20
# A core systemd-coredump stored (zstd) tells what one pkgnote-coredump
# stored for the same program does: modules, build-ids, packages.
f=$STORE/$(ls $STORE | grep '^core\.crasher\.' | head -1)
p=/var/lib/free/$(ls /var/lib/free 2> /dev/null | grep '^core\.' | grep -v '\.json$' | head -1)
if grep -qw zstd /vm/features-off 2> /dev/null; then
        # systemd-coredump compresses with zstd, which this build reads not.
        echo "ok - vm: systemd-coredump's core and pkgnote-coredump's tell the same modules, build-ids and packages # SKIP this build reads no zstd"
        echo "ok - vm: pkgnote core names the package in systemd-coredump's core # SKIP this build reads no zstd"
else
        a=$(/vm/bin/pkgnote core --format systemd "$f" 2>&1)
        b=$(/vm/bin/pkgnote core --format systemd "$p" 2>&1)
        check "vm: systemd-coredump's core and pkgnote-coredump's tell the same modules, build-ids and packages" "$a" "$b"
        case $a in *crasher*4.2-1*) echo "ok - vm: pkgnote core names the package in systemd-coredump's core" ;;
        *) echo "not ok - vm: pkgnote core names the package in systemd-coredump's core"; echo "# $a" | head -3 ;; esac
fi
kill $MGR 2> /dev/null
wait $MGR 2> /dev/null
