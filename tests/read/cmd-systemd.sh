#!/bin/sh
# systemd-coredump's crashes as pkgnote's crash stores, with the real
# journald, systemd-coredump and coredumpctl in a private mount namespace
# (tests/read/systemd-ns.sh): journalctl crashed for real (Debian's binaries
# carry package notes) and a program without notes; pkgnote list against
# coredumpctl list, pkgnote core against systemd-analyze inspect-elf on the
# stored core; a store without its journal, a deleted core, a core held
# inline (Storage=journal), hostile journal entries and store names.
. "$SRCDIR/tests/read/systemd-ns.sh"
require cc zstd python3 logger setpriv systemd-analyze getfattr
# systemd-coredump stores cores zstd-compressed; a build without zstd
# cannot read those, so there it is told to store them plain.
if has_feature zstd; then sdns_start; else sdns_start Compress=no; fi

cat > plain.c <<'C'
#include <unistd.h>
int main(void) { pause(); return 0; }
C
cc -o plain plain.c || fatal "cannot build"
JC="journalctl -D $SDNS_JOURNAL -f"
sdns_crash jc.core $JC
sdns_feed jc.core 11 1796000000 $JC
JPID=$SDNS_PID
sdns_crash plain.core ./plain
sdns_feed plain.core 11 1796000100 ./plain
PPID_=$SDNS_PID

# --- list against coredumpctl list
"$COREDUMPCTL" -D "$SDNS_JOURNAL" --no-legend list > cdc.txt 2>&1 || fail "coredumpctl list" "$(cat cdc.txt)"
run list -D "$SDNS_JOURNAL"
expect_status 0 "list -D exits 0"
# PID, SIG, COREFILE, EXE in coredumpctl's order (newest last), as pkgnote shows them.
awk '{ print $5, $8, $9, $10 }' cdc.txt > want2.txt
awk 'NR > 1 { print $4, "SIG" $6, $7, $9 }' out > got2.txt
if [ -s want2.txt ] && diff -u want2.txt got2.txt > d.txt; then pass "list -D: the crashes coredumpctl list shows, same order"
else fail "list -D: the crashes coredumpctl list shows, same order" "$(cat d.txt out cdc.txt)"; fi
grep -q "^.* $JPID .* present  journal /usr/bin/journalctl  *systemd/" out \
        && pass "list: journalctl's package from its note, store journal" || fail "list: journalctl's package from its note, store journal" "$(cat out)"
"$COREDUMPCTL" -D "$SDNS_JOURNAL" info "$JPID" 2> /dev/null | sed -n 's/^ *Package: //p' > cdcpkg.txt
grep -q "$(cat cdcpkg.txt)" out && [ -s cdcpkg.txt ] && pass "list: the package coredumpctl info shows" \
        || fail "list: the package coredumpctl info shows" "coredumpctl: $(cat cdcpkg.txt); pkgnote: $(cat out)"
grep -q " $PPID_ .* present  journal .*/plain  *n/a$" out && pass "list: a program without notes, package n/a" \
        || fail "list: a program without notes, package n/a" "$(cat out)"
run list
grep -q " $JPID " out && grep -q " $PPID_ " out && pass "list: the local journal by default" || fail "list: the local journal by default" "$(cat out err)"
run list -D "$SDNS_JOURNAL" "$PPID_"
[ "$(grep -c plain out)" = 1 ] && ! grep -q journalctl out && pass "list MATCH: a PID" || fail "list MATCH: a PID" "$(cat out)"
run list -D "$SDNS_JOURNAL" /usr/bin/journalctl
grep -q journalctl out && ! grep -q plain out && pass "list MATCH: an executable path" || fail "list MATCH: an executable path" "$(cat out)"
run list -D "$SDNS_JOURNAL" COREDUMP_COMM=plain
[ "$(grep -c plain out)" = 1 ] && ! grep -q journalctl out && pass "list MATCH: FIELD=VALUE as coredumpctl takes it" \
        || fail "list MATCH: FIELD=VALUE as coredumpctl takes it" "$(cat out)"
run list -D "$SDNS_JOURNAL" --since @1796000050
grep -q plain out && ! grep -q journalctl out && pass "list --since" || fail "list --since" "$(cat out)"
run list -D "$SDNS_JOURNAL" --until @1796000050
! grep -q plain out && grep -q journalctl out && pass "list --until" || fail "list --until" "$(cat out)"
run list --file "$(ls "$SDNS_JOURNAL"/*/system.journal)" --json
python3 - "$JPID" <<'PY' && pass "list --file --json: store, core, journal fields" || fail "list --file --json: store, core, journal fields" "$(cat out)"
import json, sys
rows = [json.loads(l) for l in open("out")]
assert len(rows) == 2, rows
j = rows[0]
assert j["pid"] == int(sys.argv[1]) and j["store"] == "journal" and j["core"] == "file", j
assert j["commandLine"].startswith("journalctl -D") and j["hostname"] == "pkgnote-test" and j["signal"] == 11, j
assert j["package"]["name"] == "systemd" and j["coreFile"].startswith("/var/lib/systemd/coredump/core.journalctl.0."), j
PY

# --- core against systemd-analyze inspect-elf on the stored core
stored=$(ls "$SDNS_STORE"/core.journalctl.*)
case $stored in
*.zst) zstd -qdc "$stored" > jc.stored.core ;;
*) cp "$stored" jc.stored.core ;;
esac
systemd-analyze inspect-elf --json=short jc.stored.core > inspect.json 2> inspect.err || fail "systemd-analyze inspect-elf" "$(cat inspect.err)"
run core -S --json "$JPID"
expect_status 0 "core PID of the journal's crash exits 0"
python3 - "$JPID" <<'PY' && pass "core PID: the modules and packages inspect-elf gives" || fail "core PID: the modules and packages inspect-elf gives" "$(head -c 2000 out; cat inspect.json)"
import json, os, sys
r = json.load(open("out"))
ie = json.load(open("inspect.json"))
# inspect-elf names the executable by its path, libraries by file name.
want = {os.path.basename(k): (v.get("name"), v.get("version")) for k, v in ie.items() if isinstance(v, dict)}
got = {}
for m in r["modules"]:
    if m.get("packages"):
        got[os.path.basename(m["path"])] = (m["packages"][0].get("name"), m["packages"][0].get("version"))
assert want, ie
assert got == want, (got, want)
assert r["store"] == "journal" and r["core"] == "file" and r["hostname"] == "pkgnote-test" and r["bootId"], r
assert r["cgroup"] == "/" and r["time"] == 1796000000, r
PY
run core -S "$PPID_"
expect_status 0 "core PID of a program without notes exits 0"
grep -q "Module $T/plain without package note" out && grep -q "Store: journal" out && grep -q "Boot ID: [0-9a-f]\{32\}" out \
        && pass "core PID: text with the journal's fields" || fail "core PID: text with the journal's fields" "$(cat out err)"

# --- a store without its journal: the files and their attributes alone
mkdir store
cp -a "$SDNS_STORE"/. store/
getfattr -n user.coredump.exe store/core.journalctl.* > /dev/null 2>&1 || fail "cp -a keeps the attributes"
mount -t tmpfs tmpfs /run/log || fatal "cannot hide the journal"
run list --systemd-dir store
expect_status 0 "store alone: list exits 0"
grep -q " $JPID  *0 SEGV present  systemd /usr/bin/journalctl" out && grep -q " $PPID_  *0 SEGV present  systemd .*/plain" out \
        && pass "store alone: PID, UID, signal and executable from names and attributes" \
        || fail "store alone: PID, UID, signal and executable from names and attributes" "$(cat out err)"
run core -S --systemd-dir store "$JPID"
grep -q "Module /usr/bin/journalctl from deb systemd-" out && grep -q "Store: systemd" out \
        && pass "store alone: core PID opens the stored (compressed) file" || fail "store alone: core PID opens the stored (compressed) file" "$(cat out err)"
umount /run/log

# --- the core deleted: the journal's report, exit 1
rm "$SDNS_STORE"/core.plain.*
run list -D "$SDNS_JOURNAL"
grep -q " $PPID_ .* missing  journal" out && pass "deleted core: list says missing" || fail "deleted core: list says missing" "$(cat out)"
"$COREDUMPCTL" -D "$SDNS_JOURNAL" --no-legend list "$PPID_" 2> /dev/null | grep -q missing \
        && pass "deleted core: coredumpctl agrees" || fail "deleted core: coredumpctl agrees"
run core -S "$PPID_"
expect_status 1 "deleted core: core exits 1"
grep -q "Core: gone" out && grep -q "Executable: $T/plain" out && grep -q "the core is gone" err \
        && pass "deleted core: the report says so" || fail "deleted core: the report says so" "$(cat out err)"
run core -S --json -D "$SDNS_JOURNAL" "$PPID_"
python3 -c 'import json; d = json.load(open("out")); assert d["core"] == "gone" and d["store"] == "journal" and d["pid"] > 0, d' \
        && pass "deleted core: JSON report" || fail "deleted core: JSON report" "$(cat out)"

# --- Storage=journal: the core inline in the entry
printf '[Coredump]\nStorage=journal\n' > /run/systemd/coredump.conf.d/pkgnote-test.conf
sdns_crash jc2.core $JC
sdns_feed jc2.core 6 1796000200 $JC
IPID=$SDNS_PID
run list -D "$SDNS_JOURNAL" "$IPID"
grep -q " $IPID .* journal  journal /usr/bin/journalctl" out && pass "Storage=journal: list says journal" \
        || fail "Storage=journal: list says journal" "$(cat out)"
run core -S --json "$IPID"
python3 - <<'PY' && pass "Storage=journal: core PID reads the inline core" || fail "Storage=journal: core PID reads the inline core" "$(head -c 1000 out; cat err)"
import json
d = json.load(open("out"))
# The signal is the core's own (the kernel's SIGSEGV), not the one given to systemd-coredump.
assert d["core"] == "journal" and d["signal"] == 11 and d["package"]["name"] == "systemd", d
assert len(d["modules"]) > 5, d["modules"]
PY

# --- hostile journal entries: huge fields, control bytes, missing fields
big=$(head -c 70000 /dev/zero | tr '\0' A)
{
        echo "MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1"
        echo "MESSAGE=hostile"
        echo "COREDUMP_PID=4242"
        printf 'COREDUMP_EXE=/bin/evil\033[31mred\n'
        echo "COREDUMP_CMDLINE=$big"
        echo "COREDUMP_SIGNAL=999"
        echo "COREDUMP_FILENAME=/etc/shadow"
} > hostile.txt
# Entries count only when journald saw a crash handler log them (_COMM,
# _UID): the hostile ones come from a root process named as
# systemd-coredump, the most a forger with root can do short of writing
# the journal itself.
mkdir -p forger && cp "$(command -v logger)" forger/systemd-coredump
forge() { ./forger/systemd-coredump --journald="$1" || fail "logger --journald $1"; }
forge hostile.txt
# Any other user: not a crash, whatever its fields say (logged first, so
# that waiting for the last entry below waits for it too).
printf 'MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nMESSAGE=spoof\nCOREDUMP_PID=5151\nCOREDUMP_EXE=/bin/spoofed\n' > spoof.txt
setpriv --reuid=65534 --regid=65534 --clear-groups logger --journald < spoof.txt || fail "logger --journald as nobody"
printf 'MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nMESSAGE=bare\n' > bare.txt
forge bare.txt
printf 'MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nCOREDUMP_PID=-1x\nCOREDUMP_COMM=\377\376bad\n' > bad.txt
forge bad.txt
i=0
until journalctl -D "$SDNS_JOURNAL" -q -o cat MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1 | grep -q bare || [ $i -gt 50 ]; do
        i=$((i + 1)); sleep 0.1
done
run list -D "$SDNS_JOURNAL"
expect_status 0 "hostile entries: list exits 0"
grep -q " 4242 .* missing  journal /bin/evil\\\\x1b\[31mred" out && ! grep -q "$(printf '\033')" out \
        && pass "hostile entries: control bytes escaped" || fail "hostile entries: control bytes escaped" "$(cat -v out)"
# A listing reads only the fields it shows; the command line is read,
# and found over the limit, when the whole record is (--json).
run list --json -D "$SDNS_JOURNAL"
expect_err "COREDUMP_CMDLINE is 70000 bytes, over the limit of 65536, ignoring" "hostile entries: a huge field is a problem"
run list -D "$SDNS_JOURNAL"
expect_err "COREDUMP_SIGNAL is no number up to 255, ignoring" "hostile entries: a bad number is a problem"
! grep -q spoofed out && pass "spoofed-crash-entry: an entry another process logged is no crash" \
        || fail "spoofed-crash-entry: an entry another process logged is no crash" "$(cat out)"
expect_err "the crash MESSAGE_ID not logged by systemd-coredump or pkgnote-coredump (their _COMM and _UID), ignoring" \
        "spoofed-crash-entry: said once"
[ "$(grep -c ' missing  journal' out)" -ge 3 ] && pass "hostile entries: entries without fields listed" \
        || fail "hostile entries: entries without fields listed" "$(cat out)"
run list -D "$SDNS_JOURNAL" --json
python3 -c '
import json
rows = [json.loads(l) for l in open("out")]
bad = [r for r in rows if r.get("command", "").endswith("bad")]
assert bad and bad[0]["command"] == "\\xff\\xfebad" and "pid" not in bad[0] or bad[0]["pid"] is None, bad' \
        && pass "hostile entries: invalid UTF-8 as \\xNN, a bad PID left out" || fail "hostile entries: invalid UTF-8 as \\xNN, a bad PID left out" "$(cat out)"
jfile=$(ls "$SDNS_STORE"/core.journalctl.*.zst "$SDNS_STORE"/core.journalctl.* 2> /dev/null | head -n 1)
printf 'MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1\nCOREDUMP_PID=31337\nCOREDUMP_TIMESTAMP=1\nCOREDUMP_EXE=/bin/forged\nCOREDUMP_FILENAME=%s\n' "$jfile" > forged.txt
forge forged.txt
i=0
until journalctl -D "$SDNS_JOURNAL" -q -o export COREDUMP_PID=31337 | grep -q forged || [ $i -gt 50 ]; do i=$((i + 1)); sleep 0.1; done
run list -D "$SDNS_JOURNAL" 31337
grep -q " 31337 .* missing  journal /bin/forged" out && pass "an entry naming another crash's stored file gets no core" \
        || fail "an entry naming another crash's stored file gets no core" "$(cat out err)"
run list -D "$SDNS_JOURNAL" 0
[ ! -s out ] && pass "bug-pid-0-matches-entries-without-pid: MATCH 0 names no entry" \
        || fail "bug-pid-0-matches-entries-without-pid: MATCH 0 names no entry" "$(cat out)"
run core -S 4242
expect_status 1 "hostile entries: core of an entry naming /etc/shadow does not open it"
grep -q "Core: gone (/etc/shadow no longer exists)" out || grep -q "Core: gone" out \
        && pass "hostile entries: its report, escaped" || fail "hostile entries: its report, escaped" "$(cat -v out err)"

# --- hostile store names
B=0123456789abcdef0123456789abcdef
: > "$SDNS_STORE/core.$(printf 'a\033b').0.$B.7.8"
: > "$SDNS_STORE/core.x.0.$B.7"
: > "$SDNS_STORE/core.x.0.NOTHEX.7.8"
: > "$SDNS_STORE/core.x.99999999999999999999999.$B.7.8"
: > "$SDNS_STORE/core.x\\x00.0.$B.7.8.zst"
: > "$SDNS_STORE/core.x.0.$B.7.8.gz"
ln -s /etc/passwd "$SDNS_STORE/core.ln.0.$B.9.10.zst"
mkfifo "$SDNS_STORE/core.fifo.0.$B.11.12"
printf 'x' > "$SDNS_STORE/core.esc\\x2fd.0.$B.13.14.lz4"
timeout 20 "$PKGNOTE" list > out 2> err
STATUS=$?
expect_status 0 "hostile names: list exits 0"
[ "$(grep -c 'not a systemd-coredump store name' err)" -ge 6 ] && ! grep -q "$(printf '\033')" err \
        && pass "hostile names: each a problem, escaped" || fail "hostile names: each a problem, escaped" "$(cat -v err)"
grep -q "core.ln.0.$B.9.10.zst': cannot open" err && grep -q "core.fifo.0.$B.11.12': cannot open" err \
        && pass "hostile names: a symlink and a FIFO are not opened" || fail "hostile names: a symlink and a FIFO are not opened" "$(cat -v err)"
grep -q " 13  *0    - present  systemd esc/d" out || grep -q " 13 .* systemd " out \
        && pass "hostile names: an escaped command name is unescaped" || fail "hostile names: an escaped command name is unescaped" "$(cat out)"
run core -S 13
expect_status 2 "hostile names: a store file that is no core: exit 2"

# --- without libsystemd: the journal is not read, the other stores are
LIBSD=$(readlink -f /usr/lib/x86_64-linux-gnu/libsystemd.so.0 2> /dev/null || readlink -f /lib/x86_64-linux-gnu/libsystemd.so.0)
if [ -f "$LIBSD" ] && mount --bind /dev/null "$LIBSD"; then
        run list
        expect_status 0 "no libsystemd: list exits 0"
        grep -q " $JPID .* present  systemd /usr/bin/journalctl" out && ! grep -q " journal " out \
                && pass "no libsystemd: the store's files alone" || fail "no libsystemd: the store's files alone" "$(cat out err)"
        run list -D "$SDNS_JOURNAL"
        expect_status 2 "no libsystemd: a journal named is an error"
        expect_err "libsystemd (libsystemd.so.0) is not installed" "no libsystemd: the error says why"
        umount "$LIBSD"
else
        fail "no libsystemd: cannot hide libsystemd.so.0 ($LIBSD)"
fi
finish
