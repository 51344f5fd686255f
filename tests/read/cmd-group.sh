#!/bin/sh
# pkgnote list --group over real crashes: kernel cores of a program with
# two bugs, built as two versions (package notes 1.0-1 and 1.1-1), stored
# by pkgnote-coredump as from three hosts, and one crash stored without a
# stack.  The groups, counts, machines, versions and "not seen since" are
# checked exactly, by signature, package and executable, in text and
# JSON, with --top; a hostile executable path is escaped; bad --group and
# --top values are refused.
. "$SRCDIR/tests/lib.sh"

[ "$(uname -m)" = x86_64 ] || { echo "1..0 # SKIP x86-64 only"; exit 77; }
require gcc python3
case $(cat /proc/sys/kernel/core_pattern 2>/dev/null) in
'|'* | /*) echo "1..0 # SKIP core_pattern does not write a core into the working directory"; exit 77 ;;
esac
(ulimit -c unlimited) 2>/dev/null || { echo "1..0 # SKIP cannot raise the core size limit"; exit 77; }
require_feature stack
HANDLER="$BUILDDIR/pkgnote-coredump"
[ -x "$HANDLER" ] || fatal "no $HANDLER"

cat > prog.c <<'C'
#include <assert.h>
#include <string.h>
__attribute__((noinline)) int parse_record(const char *s) { return *(volatile const char *)s + (int)strlen(VERSION); }
__attribute__((noinline)) void check_limits(int n) { assert(n < 10); }
int main(int argc, char **argv) {
        if (argc > 1 && !strcmp(argv[1], "limits"))
                check_limits(argc + 20);
        return parse_record(argc > 5 ? argv[1] : NULL);
}
C
note() { printf '{"type":"deb","name":"grpprog","version":"%s","architecture":"amd64"}' "$1"; }
# The first version lives in a directory whose name holds an escape and
# a newline: the executable's path is hostile text.
BAD="$T/$(printf 'bad\033[31m\ndir')"
mkdir -p "$BAD" bin
gcc -O1 -g -DVERSION='"1.0"' -o "$BAD/grpprog" prog.c -Xlinker "--package-metadata=$(note 1.0-1)" ||
        fatal "cannot build version 1.0-1"
gcc -O1 -g -DVERSION='"1.1 rebuilt"' -o bin/grpprog prog.c -Xlinker "--package-metadata=$(note 1.1-1)" ||
        fatal "cannot build version 1.1-1"

# crash NAME PROGRAM ARGS...: the kernel's core of PROGRAM as NAME.core.
crash() {
        _n=$1
        shift
        mkdir -p "$_n.d"
        (cd "$_n.d" && ulimit -c unlimited && exec "$@") > /dev/null 2>&1
        _c=$(ls "$_n.d"/core* 2>/dev/null | head -n 1)
        [ -n "$_c" ] || fatal "no core for $_n"
        mv "$_c" "$_n.core"
}
crash segv1 "$BAD/grpprog"
crash abrt1 "$BAD/grpprog" limits
crash segv2 "$T/bin/grpprog"

echo "stack = yes" > stack.conf
echo "stack = no" > nostack.conf
T0=1700000000
# store CONF CORE PID TIME HOST
store() {
        "$HANDLER" -c "$T/$1" -d "$T/state" -l "$T/log" "$3" 1000 1000 11 "$4" 18446744073709551615 "$5" grpprog \
                < "$2" || fatal "pkgnote-coredump: $(cat log)"
}
store stack.conf segv1.core 101 $T0 h1
store stack.conf segv1.core 102 $((T0 + 100)) h2
store stack.conf abrt1.core 103 $((T0 + 200)) h1
store nostack.conf segv1.core 104 $((T0 + 300)) h1
store stack.conf segv2.core 105 $((T0 + 86400)) h1
store stack.conf segv2.core 106 $((T0 + 86500)) "$(printf 'h3\001')"
export PKGNOTE_COREDUMP_DIR="$T/state"
# Only pkgnote's store: no journal, no systemd-coredump directory.
list() { "$PKGNOTE" list -d "$T/state" "$@"; }
list --json > plain.json 2> plain.err || fatal "pkgnote list --json: $(cat plain.err)"
[ "$(wc -l < plain.json)" -eq 6 ] || fatal "pkgnote list sees $(wc -l < plain.json) crashes, not 6: $(cat plain.err)"

# The crashes of this machine's own store are this machine's: its
# /etc/machine-id where it has one (every crash one machine, whatever the
# host name the handler was given), else each host name is a machine.
MID=$(grep -xE '[0-9a-f]{32}' /etc/machine-id 2>/dev/null)
if [ -n "$MID" ]; then NM=1 MS=""; else NM=3 MS=s; fi
# check NAME FILE PYTHON: runs the Python assertions on the JSON document
# in FILE (as D), passing NAME when they hold.
check() {
        python3 - "$2" "$BAD" "$T0" "$MID" > check.out 2>&1 <<PY
import json, sys
D = json.load(open(sys.argv[1]))
BAD = sys.argv[2]
T0 = int(sys.argv[3])
MID = sys.argv[4] or None
$3
PY
        [ $? -eq 0 ] && pass "$1" || fail "$1" "$(tr '\n' ' ' < check.out)"
}

list --group --json > sig.json 2> sig.err
[ $? -eq 0 ] && pass "list --group --json exits 0" || fail "list --group --json exits 0" "$(cat sig.err)"
check "by signature: three groups, counted and sorted by count" sig.json '
assert D["groupBy"] == "signature", D["groupBy"]
assert D["crashes"] == 6 and D["groupCount"] == 3, (D["crashes"], D["groupCount"])
assert D["machineCount"] == (1 if MID else 3), D["machineCount"]
assert D["first"] == T0 and D["last"] == T0 + 86500, (D["first"], D["last"])
keys = [(g["key"], g["count"]) for g in D["groups"]]
assert keys == [("grpprog: parse_record | main", 4), ("grpprog: check_limits | main", 1), ("grpprog: ?", 1)] or \
       keys == [("grpprog: parse_record | main", 4), ("grpprog: ?", 1), ("grpprog: check_limits | main", 1)], keys
'
check "a signature group: hash, package, times, machines, versions, days" sig.json '
g = D["groups"][0]
assert len(g["hash"]) == 16 and all(c in "0123456789abcdef" for c in g["hash"]), g
assert g["package"] == "grpprog", g["package"]
assert (g["first"], g["last"]) == (T0, T0 + 86500), (g["first"], g["last"])
m = {(x["machineId"], x["hostname"]): (x["count"], x["last"]) for x in g["machines"]}
if MID:
    # one machine, named by the host name of its first crash
    assert m == {(MID, "h1"): (4, T0 + 86500)}, m
else:
    assert m == {(None, "h1"): (2, T0 + 86400), (None, "h2"): (1, T0 + 100), (None, "h3\x01"): (1, T0 + 86500)}, m
    assert g["machines"][0]["hostname"] == "h1", g["machines"]
v = [(x["version"], x["count"], x["first"], x["last"]) for x in g["versions"]]
assert v == [("1.0-1", 2, T0, T0 + 100), ("1.1-1", 2, T0 + 86400, T0 + 86500)], v
assert "notSeenSince" not in g, g
assert g["boots"] == 1, g["boots"]
d = [(x["day"], x["version"], x["count"]) for x in g["days"]]
assert d == [("2023-11-14", "1.0-1", 2), ("2023-11-15", "1.1-1", 2)], d
'
# The running kernel of each report (pkgnote-coredump's, made where the
# crash is): the group lists the releases, oldest first.  A copy of the
# store where one crash names another kernel, and one a kernel of another
# shape (ignored).
if [ -r /sys/kernel/notes ]; then
        REL=$(cat /proc/sys/kernel/osrelease)
        rm -rf "$T/kstate" && cp -r "$T/state" "$T/kstate"
        python3 - "$T/kstate" << 'PY' || fatal "cannot edit the copied reports"
import json, os, sys
d = sys.argv[1]
for name, kernel in (("core.grpprog.1000.105.1700086400.json", {"release": "7.0.0-test", "buildId": "ab" * 20}),
                     ("core.grpprog.1000.106.1700086500.json", {"release": 7})):
    p = os.path.join(d, name)
    r = json.load(open(p))
    assert r["kernel"]["release"], r["kernel"]
    r["kernel"] = kernel
    json.dump(r, open(p, "w"))
PY
        list --group --json > k0.json 2> k0.err
        "$PKGNOTE" list -d "$T/kstate" --group --json > k1.json 2> k1.err
        check "kernels: each group lists the running kernel of its crashes" k0.json "
g = D['groups'][0]
assert [(k['release'], k['count'], k['first'], k['last']) for k in g['kernels']] == [('$REL', 4, T0, T0 + 86500)], g.get('kernels')
assert sum(k['count'] for x in D['groups'] for k in x['kernels']) == 6
"
        check "kernels: another release counted apart, a kernel of another shape not at all" k1.json "
g = D['groups'][0]
assert [(k['release'], k['count'], k['first'], k['last']) for k in g['kernels']] == [('$REL', 2, T0, T0 + 100), ('7.0.0-test', 1, T0 + 86400, T0 + 86400)], g.get('kernels')
"
else
        skip "kernels: each group lists the running kernel of its crashes" "/sys/kernel/notes cannot be read here"
fi
check "the bug fixed in 1.1-1 is not seen since 1.1-1" sig.json '
g = [g for g in D["groups"] if g["key"] == "grpprog: check_limits | main"][0]
assert g["notSeenSince"] == "1.1-1", g
assert [(x["version"], x["count"]) for x in g["versions"]] == [("1.0-1", 1)], g["versions"]
assert g["last"] == T0 + 200, g["last"]
'
check "a crash without a stack: the group \"grpprog: ?\" without a hash" sig.json '
g = [g for g in D["groups"] if g["key"] == "grpprog: ?"][0]
assert "hash" not in g and g["package"] == "grpprog" and g["count"] == 1, g
assert [(x["version"], x["count"]) for x in g["versions"]] == [("1.0-1", 1)], g["versions"]
assert "signature" not in g["example"], g["example"]
'
check "the example is the latest crash, as list --json gives it" sig.json '
g = D["groups"][0]
rows = [json.loads(l) for l in open("plain.json")]
ex = dict(g["example"])
assert ex.pop("id", None), g["example"]
assert ex == [r for r in rows if r["time"] == T0 + 86500][0], (g["example"], rows)
assert g["example"]["signature"] == g["key"] and g["example"]["core"] == "file", g["example"]
'
# opened by its id, which the text names too
EX=$(python3 -c 'import json,sys; print(json.load(open("sig.json"))["groups"][0]["example"]["id"])')
"$PKGNOTE" core -d "$T/state" --json "$EX" > excore.json 2> excore.err &&
        [ "$(python3 -c 'import json; print(json.load(open("excore.json"))["signature"])')" = "grpprog: parse_record | main" ] &&
        pass "pkgnote core opens the example" || fail "pkgnote core opens the example" "$(cat excore.err)"

list --group --json --top 1 > top.json 2> top.err
check "--top 1 keeps the largest group; the totals stay" top.json '
assert [g["key"] for g in D["groups"]] == ["grpprog: parse_record | main"], D["groups"]
assert D["groupCount"] == 3 and D["crashes"] == 6, D
'
list --group=package --json > pkg.json 2> pkg.err
check "--group=package: one group, every version" pkg.json '
assert D["groupBy"] == "package" and [(g["key"], g["count"]) for g in D["groups"]] == [("grpprog", 6)], D["groups"]
g = D["groups"][0]
assert "hash" not in g and g["package"] == "grpprog", g
assert [(x["version"], x["count"]) for x in g["versions"]] == [("1.0-1", 4), ("1.1-1", 2)], g["versions"]
'
list --group=executable --json > exe.json 2> exe.err
check "--group=executable: one group per executable, its path as the key" exe.json '
k = [(g["key"], g["count"]) for g in D["groups"]]
assert k == [(BAD + "/grpprog", 4), ("'"$T"'/bin/grpprog", 2)], k
assert [x["version"] for x in D["groups"][0]["versions"]] == ["1.0-1"], D["groups"][0]
assert D["groups"][0]["notSeenSince"] == "1.1-1", D["groups"][0]
'

# The table a person reads.
list --group > sig.txt 2> sigtxt.err
[ $? -eq 0 ] && pass "list --group (text) exits 0" || fail "list --group (text) exits 0" "$(cat sigtxt.err)"
grep -q "^6 crashes in 3 groups by signature, on $NM machine$MS, 2023-11-14 22:13:20 UTC to 2023-11-15 22:15:00 UTC$" sig.txt &&
        pass "text: the totals" || fail "text: the totals" "$(head -n 1 sig.txt)"
grep -q "^ *4 *$NM *1 2023-11-15 22:15:00 UTC 1.0-1 x2, 1.1-1 x2 *grpprog: parse_record | main$" sig.txt &&
        pass "text: count, machines, boots, last seen, versions, signature" || fail "text: count, machines, boots, last seen, versions, signature" "$(cat sig.txt)"
grep -q "^ *1 *1 *1 2023-11-14 22:16:40 UTC 1.0-1 x1; not seen since 1.1-1 *grpprog: check_limits | main$" sig.txt &&
        pass "text: not seen since" || fail "text: not seen since" "$(cat sig.txt)"
list --group --top 1 > top.txt 2>&1
[ "$(grep -c 'grpprog: ' top.txt)" -eq 1 ] && grep -q "(the largest groups shown)" top.txt &&
        pass "text: --top 1" || fail "text: --top 1" "$(cat top.txt)"
list --group=executable > exe.txt 2>&1
if grep -q "$(printf '\033')" exe.txt; then fail "text: a hostile executable path is escaped" "$(od -c exe.txt | head)"
elif grep -qF 'bad\x1b[31m\x0adir/grpprog' exe.txt; then pass "text: a hostile executable path is escaped"
else fail "text: a hostile executable path is escaped" "$(cat exe.txt)"; fi
# a header, a column line, a line per group (2), a blank line, the
# examples' heading and a line per group
[ "$(wc -l < exe.txt)" -eq 8 ] && [ "$(tail -n 2 exe.txt | grep -c '^ *[12] core\.grpprog\.')" -eq 2 ] &&
        pass "text: one line per group, then each group's example by its id" ||
        fail "text: one line per group, then each group's example by its id" "$(cat exe.txt)"

# Bad values.
run list -d "$T/state" --group=bogus
expect_status 2 "--group=bogus is refused"
grep -q "grouped by signature, package or executable, not 'bogus'" err && pass "--group=bogus: the message says why" ||
        fail "--group=bogus: the message says why" "$(cat err)"
for v in 0 -1 x 3x ""; do
        run list -d "$T/state" --group --top "$v"
        [ "$STATUS" -eq 2 ] && grep -q "top takes a number of groups, at least 1, not '$v'" err &&
                pass "--top '$v' is refused" || fail "--top '$v' is refused" "status $STATUS: $(cat err)"
done
run list -d "$T/state" --top 2
[ "$STATUS" -eq 2 ] && grep -q -- "--top needs --group" err && pass "--top without --group is refused" ||
        fail "--top without --group is refused" "status $STATUS: $(cat err)"
# A MATCH and --since select before grouping.
list --group --json --since @$((T0 + 86400)) > since.json 2>&1
check "--since: only the crashes after it are grouped" since.json '
assert D["crashes"] == 2 and [(g["key"], g["count"]) for g in D["groups"]] == [("grpprog: parse_record | main", 2)], D
'
list --group --json 105 > match.json 2>&1
check "MATCH: only the crash it names is grouped" match.json '
assert D["crashes"] == 1 and D["groups"][0]["example"]["time"] == T0 + 86400, D
'
finish
