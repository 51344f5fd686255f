#!/bin/sh
# Crash signatures on real kernel cores: two bugs of one program, built
# twice from the same source with different versions (and so different
# build-ids), and once stripped.  The same bug rebuilt gives the same
# signature, two bugs give two, the stripped build falls back to build-id
# + offset; pkgnote core --json, pkgnote pid --json --stack and pkgnote
# list --json (pkgnote-coredump's stored report) carry it.
. "$SRCDIR/tests/lib.sh"

[ "$(uname -m)" = x86_64 ] || { echo "1..0 # SKIP x86-64 only"; exit 77; }
for t in gcc strip readelf python3; do
        command -v $t > /dev/null || { echo "1..0 # SKIP $t missing"; exit 77; }
done
case $(cat /proc/sys/kernel/core_pattern 2>/dev/null) in
'|'* | /*) echo "1..0 # SKIP core_pattern does not write a core into the working directory"; exit 77 ;;
esac
(ulimit -c unlimited) 2>/dev/null || { echo "1..0 # SKIP cannot raise the core size limit"; exit 77; }
has_feature stack || { echo "1..0 # SKIP built without elfutils libdw (no stack traces)"; exit 77; }

cat > prog.c <<'C'
#include <assert.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
__attribute__((noinline)) int parse_record(const char *s) { return *(volatile const char *)s + (int)strlen(VERSION); }
__attribute__((noinline)) void check_limits(int n) { assert(n < 10); }
__attribute__((noinline)) void wait_here(const char *go) { while (access(go, F_OK) != 0) usleep(10000); abort(); }
int main(int argc, char **argv) {
        if (argc > 2 && !strcmp(argv[1], "wait"))
                wait_here(argv[2]);
        if (argc > 1 && !strcmp(argv[1], "limits"))
                check_limits(argc + 20);
        return parse_record(argc > 5 ? argv[1] : NULL);
}
C
note() { printf '{"type":"deb","name":"sigprog","version":"%s","architecture":"amd64"}' "$1"; }
gcc -O1 -g -DVERSION='"1.0"' -o prog1 prog.c -Xlinker "--package-metadata=$(note 1.0-1)" || fatal "cannot build prog1"
gcc -O1 -g -DVERSION='"1.1 rebuilt"' -o prog2 prog.c -Xlinker "--package-metadata=$(note 1.1-1)" || fatal "cannot build prog2"
cp prog1 prog1s && strip --strip-all prog1s || fatal "cannot strip"
bid() { readelf -n "$1" | sed -n 's/^ *Build ID: //p' | head -n 1; }
[ "$(bid prog1)" != "$(bid prog2)" ] || fatal "the rebuild has the same build-id"

# crash NAME PROGRAM ARGS...: the kernel's core of PROGRAM in NAME/core*.
crash() {
        _n=$1
        shift
        mkdir -p "$_n"
        (cd "$_n" && ulimit -c unlimited && exec "$@") > /dev/null 2>&1
        CORE=$(ls "$_n"/core* 2>/dev/null | head -n 1)
        [ -n "$CORE" ] || fatal "no core for $_n"
}
sig() { # JSON FILE KEY
        python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], ""))' "$1" "$2"
}
crash segv1 "$T/prog1"
cp "$CORE" segv1.core
crash segv2 "$T/prog2"
crash abrt1 "$T/prog1" limits
crash segv1s "$T/prog1s"
for c in segv1 segv2 abrt1 segv1s; do
        "$PKGNOTE" core --json "$(ls $c/core* | head -n 1)" > $c.json 2> $c.err || fatal "pkgnote core $c: $(cat $c.err)"
done

S1=$(sig segv1.json signature)
[ "$S1" = "sigprog: parse_record | main" ] && pass "a null dereference: package and frames, start-up skipped" ||
        fail "a null dereference: package and frames, start-up skipped" "$S1"
[ "$(sig segv1.json signatureSource)" = stack ] && pass "the source is the unwound stack" ||
        fail "the source is the unwound stack" "$(sig segv1.json signatureSource)"
H1=$(sig segv1.json signatureHash)
case $H1 in
[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]) pass "the hash is 16 hex digits" ;;
*) fail "the hash is 16 hex digits" "$H1" ;;
esac
[ "$(sig segv2.json signature)" = "$S1" ] && [ "$(sig segv2.json signatureHash)" = "$H1" ] &&
        pass "the same bug rebuilt (another build-id and version) has the same signature" ||
        fail "the same bug rebuilt (another build-id and version) has the same signature" "$(sig segv2.json signature)"
S3=$(sig abrt1.json signature)
[ "$S3" = "sigprog: check_limits | main" ] && pass "an assertion: raise, abort and __assert_fail skipped" ||
        fail "an assertion: raise, abort and __assert_fail skipped" "$S3"
[ "$(sig abrt1.json signatureHash)" != "$H1" ] && pass "two bugs have two signatures" ||
        fail "two bugs have two signatures"
S4=$(sig segv1s.json signature)
case $S4 in
"sigprog: $(bid prog1s)+0x"*) pass "a stripped build falls back to build-id + offset" ;;
*) fail "a stripped build falls back to build-id + offset" "$S4 (build-id $(bid prog1s))" ;;
esac
"$PKGNOTE" core "$(ls segv1/core* | head -n 1)" > segv1.txt 2>&1
grep -qxF "Signature: $S1 [$H1]" segv1.txt && pass "the text report shows the signature" ||
        fail "the text report shows the signature" "$(tail -n 3 segv1.txt)"

# The same crash from its stack text (pkgnote core's text report, read as
# systemd-coredump's MESSAGE is when no core is left) has the signature
# its unwound stack has, with the packages by module file name as
# COREDUMP_PACKAGE_JSON gives them.
for c in segv1 abrt1 segv1s; do
        "$PKGNOTE" core "$(ls $c/core* | head -n 1)" > $c.txt 2>&1
done
python3_lib - segv1 abrt1 segv1s > text.check 2>&1 <<'PY'
import ctypes, json, sys
lib = ctypes.CDLL("libpkgnote.so.1")
lib.pkgnote_signature_from_message.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
lib.pkgnote_signature_text.restype = ctypes.c_char_p
lib.pkgnote_signature_source.argtypes = [ctypes.c_void_p]
lib.pkgnote_signature_text.argtypes = [ctypes.c_void_p]
lib.pkgnote_signature_free.argtypes = [ctypes.c_void_p]
bad = 0
for name in sys.argv[1:]:
    text = open(name + ".txt", "rb").read()
    report = json.load(open(name + ".json"))
    want = report["signature"]
    packages = {m["path"].rsplit("/", 1)[-1]: m["packages"][0] for m in report["modules"] if m.get("packages")}
    s = ctypes.c_void_p()
    r = lib.pkgnote_signature_from_message(text, len(text), json.dumps(packages).encode(), ctypes.byref(s))
    got = lib.pkgnote_signature_text(s).decode() if r == 0 else "error %d" % r
    if r == 0 and lib.pkgnote_signature_source(s) != 3:
        got += " (source %d)" % lib.pkgnote_signature_source(s)
    lib.pkgnote_signature_free(s)
    if got != want:
        print("%s: from the text %r, from the stack %r" % (name, got, want))
        bad += 1
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] && pass "the stack text of a crash gives the signature its unwound stack gives" ||
        fail "the stack text of a crash gives the signature its unwound stack gives" "$(cat text.check)"

# A running process: pkgnote pid --json --stack.
rm -f go
(ulimit -c 0; exec "$T/prog1" wait "$T/go") > /dev/null 2>&1 &
WPID=$!
sleep 0.3
if "$PKGNOTE" pid --json --stack "$WPID" > pid.json 2> pid.err; then
        case $(sig pid.json signature) in
        *"usleep | wait_here | main") pass "pkgnote pid --json --stack carries the signature" ;;
        *) fail "pkgnote pid --json --stack carries the signature" "$(sig pid.json signature)" ;;
        esac
else
        case $(cat pid.err) in
        *ptrace* | *"not permitted"* | *denied*) skip "pkgnote pid --json --stack carries the signature" "ptrace not allowed here" ;;
        *) fail "pkgnote pid --json --stack carries the signature" "$(cat pid.err)" ;;
        esac
fi
touch go
wait "$WPID" 2>/dev/null

# A stored crash: pkgnote-coredump's report (with its stack trace), read
# back by pkgnote list without opening the core.
HANDLER="$BUILDDIR/pkgnote-coredump"
echo "stack = yes" > coredump.conf
"$HANDLER" -c "$T/coredump.conf" -d "$T/state" -l "$T/log" 4242 0 0 11 1700000000 18446744073709551615 testhost prog1 < segv1.core ||
        fatal "pkgnote-coredump failed: $(cat log)"
PKGNOTE_COREDUMP_DIR="$T/state" "$PKGNOTE" list --json > list.json 2> list.err || fatal "pkgnote list: $(cat list.err)"
python3 - list.json "$S1" "$H1" > list.check 2>&1 <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 1, rows
assert rows[0].get("signature") == sys.argv[2] and rows[0].get("signatureHash") == sys.argv[3], rows[0]
assert rows[0].get("signatureSource") == "report", rows[0]
PY
[ $? -eq 0 ] && pass "pkgnote list --json carries the stored report's signature" ||
        fail "pkgnote list --json carries the stored report's signature" "$(cat list.check)"
finish
