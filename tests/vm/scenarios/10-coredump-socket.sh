# In the VM, as root, on Debian sid's kernel: pkgnote-coredump on the
# kernel's coredump socket ("@@", the request protocol).  A program
# crashing 20 times under a quota of 3: 3 cores stored, 17 metadata-only
# entries, and for those 17 the kernel sent no dump (the handler answered
# COREDUMP_REJECT before any byte); without a quota every crash stored; a
# client that is not the kernel refused.  TAP lines on the console.
check() { # NAME GOT WANT
        if [ "$2" = "$3" ]; then echo "ok - $1"; else echo "not ok - $1"; echo "# got '$2', want '$3'"; fi
}
S=/run/pkgnote/coredump.socket
ulimit -c unlimited
reg=$(pkgnote-coredump --register --socket=$S 2>&1)
check "vm: --register on sid's kernel keeps @@ (the request protocol)" "$reg" "@@$S"
check "vm: core_pattern read back" "$(cat /proc/sys/kernel/core_pattern)" "@@$S"
# Without the socket pattern nothing below can pass: said once, not waited for.
case $(cat /proc/sys/kernel/core_pattern) in
"@@"*) ;;
*) echo "not ok - vm: socket scenarios (core_pattern is not the socket)"; exit 0 ;;
esac

serve() { # DIR CONNECTIONS OPTIONS...: a server, its socket ready
        d=$1 n=$2
        shift 2
        rm -f $S
        # Bounded: a server still waiting for its connections is ended.
        timeout 120 pkgnote-coredump -d "$d" -l "$d.log" --socket=$S --connections "$n" "$@" &
        SRV=$!
        k=0
        while [ ! -S $S ] && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done
}
crash_n() {
        i=0
        while [ $i -lt "$1" ]; do /vm/bin/crasher 2> /dev/null; i=$((i + 1)); done
}
count() { ls "$1" 2> /dev/null | grep -c '\.json$'; }

t0=$(cut -d' ' -f1 /proc/uptime)
serve /var/lib/quota 20 --quota-count 3 --quota-interval 3600
crash_n 20
wait $SRV
t1=$(cut -d' ' -f1 /proc/uptime)
check "vm: quota 3, 20 crashes: 3 cores stored" "$(count /var/lib/quota)" 3
check "vm: quota 3, 20 crashes: 17 metadata-only entries" "$(count /var/lib/quota/rejected)" 17
check "vm: quota 3: 17 crashes answered COREDUMP_REJECT, no dump sent" \
        "$(grep -c 'no core dumped: over quota' /var/lib/quota.log)" 17
check "vm: quota 3: the rejected entries name the package" \
        "$(grep -l '"programPackage": *"crasher/4.2-1"' /var/lib/quota/rejected/*.json | wc -l)" 17
# Each entry names the kernel it crashed on: the running one, whose
# build-id pkgnote on the host read from sid's vmlinuz (a build that reads
# no zstd cannot: then the one the VM's /sys/kernel/notes gives).
kid=$(awk '$1 == "image" { print $2 }' /vm/kernel-expect 2> /dev/null)
if [ -z "$kid" ]; then
        kid=$(/vm/bin/pkgnote ps --kernel --json --no-database 2> /dev/null |
                sed -n 's/^{"release":"[^"]*","buildId":"\([0-9a-f]*\)".*/\1/p')
        echo "# the kernel's build-id as the VM's /sys/kernel/notes gives it: $kid (this build read no image on the host)"
fi
check "vm: quota 3: the 3 stored reports name the running kernel's build-id" \
        "$(grep -l "\"kernel\": *{\"release\": *\"$(uname -r)\", *\"buildId\": *\"$kid\"" /var/lib/quota/*.json | wc -l)" 3
check "vm: quota 3: the 17 metadata-only entries name it too" \
        "$(grep -l "\"kernel\": *{\"release\": *\"$(uname -r)\", *\"buildId\": *\"$kid\"" /var/lib/quota/rejected/*.json | wc -l)" 17
check "vm: pkgnote list --json: each crash's kernelBuildId" \
        "$(/vm/bin/pkgnote list --json -d /var/lib/quota 2> /dev/null | grep -c "\"kernelBuildId\": *\"$kid\"")" 20
q_kib=$(du -sk /var/lib/quota | cut -f1)
r_kib=$(du -sk /var/lib/quota/rejected | cut -f1)
echo "# quota 3: 20 crashes in $(awk "BEGIN { print $t1 - $t0 }") s; store $q_kib KiB ($r_kib KiB of it the 17 metadata-only entries)"

t0=$(cut -d' ' -f1 /proc/uptime)
serve /var/lib/free 20 --quota-count 0 --quota-bytes 0
crash_n 20
wait $SRV
t1=$(cut -d' ' -f1 /proc/uptime)
check "vm: no quota, 20 crashes: 20 cores stored" "$(count /var/lib/free)" 20
check "vm: no quota: no metadata-only entry" "$(count /var/lib/free/rejected)" 0
f_kib=$(du -sk /var/lib/free | cut -f1)
echo "# no quota: 20 crashes in $(awk "BEGIN { print $t1 - $t0 }") s; store $f_kib KiB (quota 3: $q_kib KiB)"
/vm/bin/pkgnote list -d /var/lib/free > /tmp/list.txt 2>&1 \
        && check "vm: pkgnote list reads the socket mode's store" "$(grep -c crasher /tmp/list.txt)" 20 \
        || { echo "not ok - vm: pkgnote list reads the socket mode's store"; sed 's/^/# /' /tmp/list.txt | head -5; }

# The same program's crash through the pipe: its stored core tells the
# same modules, build-ids and packages as one the socket mode stored.
echo "|/vm/bin/pkgnote-coredump -d /var/lib/pipe -l /var/lib/pipe.log --quota-count 0 %P %u %g %s %t %c %h %e" \
        > /proc/sys/kernel/core_pattern
/vm/bin/crasher 2> /dev/null
k=0
while [ "$(count /var/lib/pipe)" = 0 ] && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done
pipe_core=/var/lib/pipe/$(ls /var/lib/pipe | grep '^core\.' | grep -v '\.json$' | head -1)
sock_core=/var/lib/free/$(ls /var/lib/free | grep '^core\.' | grep -v '\.json$' | head -1)
a=$(/vm/bin/pkgnote core --format systemd "$pipe_core" 2>&1)
b=$(/vm/bin/pkgnote core --format systemd "$sock_core" 2>&1)
check "vm: a core the socket mode stored tells what the pipe mode's does (modules, build-ids, packages)" "$b" "$a"
case $a in *crasher*4.2-1*) echo "ok - vm: the pipe mode's core names the crasher's package" ;;
*) echo "not ok - vm: the pipe mode's core names the crasher's package"; echo "# $a" ;; esac
echo "@@$S" > /proc/sys/kernel/core_pattern

# A flood: 24 crashes at once of 4 programs, 2 workers.  Every crash is
# served (the default quota, 10 per program, keeps them all), the
# workers never more than 2.
for p in 1 2 3 4; do cp /vm/bin/crasher /tmp/crasher$p; done
serve /var/lib/flood 24 --max-workers 2
# The server: SRV itself (busybox's timeout execs it), or SRV's child.
srvp=$SRV
if [ "$(awk '/^Name:/ { print $2 }' /proc/$SRV/status 2> /dev/null)" != pkgnote-coredum ]; then
        srvp=$(cat /proc/[0-9]*/status 2> /dev/null |
                awk -v srv=$SRV '/^Name:/ { n = $2 } /^Pid:/ { p = $2 } /^PPid:/ && $2 == srv && n == "pkgnote-coredum" { print p }' | head -n 1)
fi
# The workers are the server's children of its own name (exited ones not
# yet reaped included; a worker's own child, the identification, is not
# one): counted every millisecond by the crasher's "watch".
/vm/bin/crasher watch "$srvp" > /tmp/most 2>&1 &
i=0
while [ $i -lt 6 ]; do
        for p in 1 2 3 4; do /tmp/crasher$p 2> /dev/null & done
        i=$((i + 1))
done
wait
most=$(cat /tmp/most)
check "vm: flood of 24 crashes from 4 programs: all stored" "$(count /var/lib/flood)" 24
[ "$most" -ge 1 ] 2> /dev/null && [ "$most" -le 2 ] && echo "ok - vm: flood: at most 2 workers at once (seen $most)" \
        || echo "not ok - vm: flood: at most 2 workers at once (seen $most, server ${srvp:-not found})"

# "@": the core comes without a request; over quota it is read and dropped.
rm -f $S
echo "@$S" > /proc/sys/kernel/core_pattern
serve /var/lib/plain 3 --quota-count 1
crash_n 3
wait $SRV
check "vm: @ (no request), quota 1: 1 core stored" "$(count /var/lib/plain)" 1
check "vm: @ (no request), quota 1: 2 cores dropped, recorded" "$(count /var/lib/plain/rejected)" 2
echo "@@$S" > /proc/sys/kernel/core_pattern

# RLIMIT_CORE 0: the process asked for no core; none kept, none recorded.
serve /var/lib/nolimit 1
(ulimit -c 0; /vm/bin/crasher 2> /dev/null)
kill $SRV 2> /dev/null
wait $SRV 2> /dev/null
check "vm: RLIMIT_CORE 0: no core stored" "$(count /var/lib/nolimit)" 0
check "vm: RLIMIT_CORE 0: no metadata-only entry" "$(count /var/lib/nolimit/rejected)" 0
echo "# RLIMIT_CORE 0: $(cat /var/lib/nolimit.log 2> /dev/null || echo 'the kernel did not connect')"

serve /var/lib/notkernel 1
check "vm: a client that is not the kernel gets no answer" "$(/vm/bin/crasher client $S)" closed
wait $SRV
check "vm: a client that is not the kernel is refused and logged" \
        "$(grep -c 'refused a connection to the coredump socket: ' /var/lib/notkernel.log)" 1
check "vm: the refused client stored nothing" "$(count /var/lib/notkernel)" 0
