# In the VM, on Debian sid's kernel: crashes of an unprivileged user on
# the coredump socket ("@@").  The kernel connects as the crashing
# process, with its credentials (uid 1000 here), not root's: the handler
# takes the crash all the same, identifies it, and applies the quota per
# user (user 1000's second crash over a quota of 1 is refused, root's
# crash of the same program after it stored); one user's crashes get at
# most half the workers, and an identification that hangs is given up
# after 10 s.  TAP lines on the console.
check() { # NAME GOT WANT
        if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1"; echo "# got '$2', want '$3'"; fi
}
S=/run/pkgnote/coredump.socket
ulimit -c unlimited
echo "@@$S" > /proc/sys/kernel/core_pattern
case $(cat /proc/sys/kernel/core_pattern) in
"@@"*) ;;
*) echo "not ok - vm: unprivileged crashes (core_pattern is not the socket)"; exit 0 ;;
esac
count() { ls "$1" 2> /dev/null | grep -c '\.json$'; }
rm -f $S
timeout 30 pkgnote-coredump -d /var/lib/user -l /var/lib/user.log --socket=$S --connections 3 --quota-count 1 &
SRV=$!
k=0
while [ ! -S $S ] && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done
# Where user 1000 may run it (the initramfs's /vm is root's alone).
mkdir -p /tmp/u && cp /vm/bin/crasher /tmp/u/crasher && chmod 755 /tmp/u /tmp/u/crasher
crash_as() { # UID
        (cd /tmp/u && ./crasher as "$1" 2>&1 | sed 's/^/# crasher: /')
}
crash_as 1000
crash_as 1000
crash_as 0
wait $SRV
echo "# server exit status $?"
sed 's/^/# log: /' /var/lib/user.log 2> /dev/null
check "vm: user 1000's crash on the socket stored" "$(ls /var/lib/user | grep -c '^core\.crasher\.1000\..*\.json$')" 1
check "vm: user 1000's second crash over its quota of 1: metadata-only" \
        "$(ls /var/lib/user/rejected 2> /dev/null | grep -c '^core\.crasher\.1000\..*\.json$')" 1
check "vm: root's crash of the same program after user 1000's: stored (the quota is per user)" \
        "$(ls /var/lib/user | grep -c '^core\.crasher\.0\..*\.json$')" 1
check "vm: no connection of the kernel refused" "$(grep -c 'refused a connection' /var/lib/user.log)" 0
c=$(ls /var/lib/user | grep '^core\.crasher\.1000\.' | grep -v '\.json$' | head -1)
case $(/vm/bin/pkgnote core --format systemd "/var/lib/user/$c" 2>&1) in
*crasher*4.2-1*) echo "ok - vm: user 1000's stored core names the crasher's package" ;;
*) echo "not ok - vm: user 1000's stored core names the crasher's package"; sed 's/^/# /' /var/lib/user.log ;;
esac

# One user cannot take every worker: with 2, user 1000's crashes get 1.
# Their identification never ends here (PKGNOTE_COREDUMP_TEST_IDENTIFY_HANG
# plays a file system that never answers; it is given up after 10 s):
# user 1000's second crash meanwhile is refused at once, root's is served.
rm -f $S
PKGNOTE_COREDUMP_TEST_IDENTIFY_HANG=1 timeout 40 pkgnote-coredump -d /var/lib/cap -l /var/lib/cap.log --socket=$S \
        --connections 3 --max-workers 2 &
SRV=$!
k=0
while [ ! -S $S ] && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done
crash_as 1000 &
sleep 1
t0=$(cut -d' ' -f1 /proc/uptime)
crash_as 1000
t1=$(cut -d' ' -f1 /proc/uptime)
crash_as 0 &
wait $SRV
wait
check "vm: user 1000's second crash while its one worker is busy: refused" \
        "$(grep -c 'refused a crash of user 1000: 1 of its crashes are being handled' /var/lib/cap.log)" 1
echo "# refused in $(awk "BEGIN { print $t1 - $t0 }") s"
check "vm: user 1000's first crash stored after its identification was given up" \
        "$(ls /var/lib/cap | grep -c '^core\.crasher\.1000\..*\.json$')" 1
check "vm: root's crash served beside it" "$(ls /var/lib/cap | grep -c '^core\.crasher\.0\..*\.json$')" 1
grep -q 'identifying it took longer than 10 s' /var/lib/cap.log && echo "ok - vm: the identification given up after 10 s" \
        || { echo "not ok - vm: the identification given up after 10 s"; sed 's/^/# log: /' /var/lib/cap.log; }
