# Helpers for the command tests (POSIX sh).  Each test runs in its own
# temporary directory; PKGNOTE names the binary under test.
set -u
: "${PKGNOTE:?PKGNOTE must name the pkgnote binary}"
T=$(mktemp -d "${TMPDIR:-/tmp}/pkgnote-test.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 99
PASSED=0
FAILED=0
STATUS=0

pass() { PASSED=$((PASSED + 1)); echo "ok - $1"; }
fail() { FAILED=$((FAILED + 1)); echo "not ok - $1"; [ $# -gt 1 ] && echo "# $2"; return 0; }
fatal() { echo "Bail out! $1"; exit 99; }
skip() { echo "ok - $1 # SKIP ${2:-}"; }

# run ARGS...: runs pkgnote, keeping stdout in out, stderr in err, status in STATUS.
run() {
        "$PKGNOTE" "$@" > out 2> err
        STATUS=$?
}
expect_status() {
        if [ "$STATUS" -eq "$1" ]; then pass "$2"; else fail "$2" "exit status $STATUS, expected $1; stderr: $(cat err)"; fi
}
expect_out() {
        if [ "$(cat out)" = "$1" ]; then pass "$2"; else fail "$2" "output '$(cat out)', expected '$1'"; fi
}
expect_err() {
        if grep -qF -- "$1" err; then pass "$2"; else fail "$2" "stderr '$(cat err)' lacks '$1'"; fi
}
# golden FILE NAME: compares out with tests/golden/FILE (UPDATE_GOLDEN=1 rewrites it).
golden() {
        if [ "${UPDATE_GOLDEN:-}" = 1 ]; then cp out "$SRCDIR/tests/golden/$1"; fi
        if diff -u "$SRCDIR/tests/golden/$1" out > diff.txt; then pass "$2"; else fail "$2" "differs from golden $1:"; sed 's/^/# /' diff.txt; fi
}
finish() {
        echo "# $PASSED passed, $FAILED failed"
        [ "$FAILED" -eq 0 ]
}
