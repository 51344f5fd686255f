# Helpers for the command tests (POSIX sh).  Each test runs in its own
# temporary directory; PKGNOTE names the binary under test.
set -u
: "${PKGNOTE:?PKGNOTE must name the pkgnote binary}"
T=$(mktemp -d "${TMPDIR:-/tmp}/pkgnote-test.XXXXXX") || exit 99
# Mounts a test's tools leave below T (containers/storage makes its overlay
# directory a mount of its own) go before T does.
umount_below() {
        awk -v t="$1/" 'index($2, t) == 1 { print $2 }' /proc/mounts 2>/dev/null | sort -r |
                while read -r m; do umount -l "$m" 2>/dev/null; done
}
trap 'umount_below "$T"; rm -rf "$T"' EXIT
cd "$T" || exit 99
# pkgnote keeps an index of dpkg's lists in the user's cache: the tests
# keep theirs in their own directory.
export XDG_CACHE_HOME="$T/cache"
PASSED=0
FAILED=0
STATUS=0

# python3 for a script that loads the build's libpkgnote.so.1 through
# ctypes: a sanitizer build's library needs its runtime loaded first (the
# interpreter is not built with it; its own allocations are no leaks).
python3_lib() {
        if ldd "$BUILDDIR/libpkgnote.so.1" 2> /dev/null | grep -q libasan; then
                LD_PRELOAD="$(cc -print-file-name=libasan.so) $(cc -print-file-name=libubsan.so)" \
                        ASAN_OPTIONS=detect_leaks=0 python3 "$@"
        else
                python3 "$@"
        fi
}
pass() { PASSED=$((PASSED + 1)); echo "ok - $1"; }
fail() { FAILED=$((FAILED + 1)); echo "not ok - $1"; [ $# -gt 1 ] && echo "# $2"; return 0; }
fatal() { echo "Bail out! $1"; exit 99; }
skip() { echo "ok - $1 # SKIP ${2:-}"; }
# missing NAME TOOL: check NAME cannot run because TOOL is absent. make
# check installs every tool the suite uses and sets PKGNOTE_STRICT=1, so
# there an absent tool is a failure, never a skip.
missing() {
        if [ "${PKGNOTE_STRICT:-0}" = 1 ]; then fail "$1" "required tool missing: $2 (make deps-test installs it)"
        else skip "$1" "$2 is not installed"; fi
}
# require TOOL...: the whole script needs each TOOL (skipped without, or a
# failure under PKGNOTE_STRICT=1).
require() {
        for _t; do
                command -v "$_t" > /dev/null 2>&1 && continue
                [ "${PKGNOTE_STRICT:-0}" = 1 ] && { echo "not ok - required tool missing: $_t (make deps-test installs it)"; exit 1; }
                echo "1..0 # SKIP $_t is not installed"; exit 77
        done
}

# Features of the pkgnote under test, as its --version names them
# (+archive -stack ...).  A build may leave one out on purpose (meson
# -Dlibarchive=disabled); PKGNOTE_FEATURES_OFF lists those, and only they
# skip: under PKGNOTE_STRICT=1 any other missing feature is a failure.
FEATURES=$("$PKGNOTE" --version 2>/dev/null | sed -n 2p)
has_feature() { case " $FEATURES " in *" +$1 "*) return 0 ;; esac; return 1; }
feature_off() { case " ${PKGNOTE_FEATURES_OFF:-} " in *" $1 "*) return 0 ;; esac; return 1; }
# require_feature NAME...: the whole script needs each feature.
require_feature() {
        for _f; do
                has_feature "$_f" && continue
                if feature_off "$_f" || [ "${PKGNOTE_STRICT:-0}" != 1 ]; then
                        echo "1..0 # SKIP pkgnote was built without $_f"; exit 77
                fi
                echo "not ok - pkgnote lacks the feature $_f ($FEATURES)"; exit 1
        done
}
# with_feature NAME CHECK: whether CHECK, which needs the feature NAME,
# runs (else it is reported skipped, or failed under PKGNOTE_STRICT=1
# unless NAME is in PKGNOTE_FEATURES_OFF).
with_feature() {
        has_feature "$1" && return 0
        if feature_off "$1" || [ "${PKGNOTE_STRICT:-0}" != 1 ]; then skip "$2" "pkgnote was built without $1"
        else fail "$2" "pkgnote lacks the feature $1 ($FEATURES)"; fi
        return 1
}

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
# golden FILE NAME: compares out with tests/data/golden/FILE (UPDATE_GOLDEN=1 rewrites it).
golden() {
        if [ "${UPDATE_GOLDEN:-}" = 1 ]; then cp out "$SRCDIR/tests/data/golden/$1"; fi
        if diff -u "$SRCDIR/tests/data/golden/$1" out > diff.txt; then pass "$2"; else fail "$2" "differs from golden $1:"; sed 's/^/# /' diff.txt; fi
}
finish() {
        echo "# $PASSED passed, $FAILED failed"
        [ "$FAILED" -eq 0 ]
}

# wait_for SECONDS COMMAND...: runs COMMAND every 0.05 s until it
# succeeds, at most SECONDS long; the status of its last run.
wait_for() {
        _wl=$(($1 * 20)) _wn=0
        shift
        until "$@"; do
                [ $_wn -ge $_wl ] && return 1
                sleep 0.05
                _wn=$((_wn + 1))
        done
}

# npm's network bounds for the tests: one retry, 30 s a request (npm's
# own defaults wait minutes where the registry is not reached, once per
# request, and a test fetching twice runs out of time).
NPM_NET="--fetch-retries=1 --fetch-retry-mintimeout=2000 --fetch-retry-maxtimeout=5000 --fetch-timeout=30000"
# Where a failed npm fetch is remembered for an hour (npm's last words),
# so that the other tests of the run skip at once instead of waiting again.
NPM_FAILED="${BUILDDIR:-${TMPDIR:-/tmp}}/npm-unreachable"
# npm_fetch LOG ARGS...: npm ARGS (with NPM_NET), its errors in LOG; once
# one has failed within the hour, fails at once with that failure in LOG.
npm_fetch() {
        _nl=$1
        shift
        if [ -n "$(find "$NPM_FAILED" -mmin -60 2> /dev/null)" ]; then
                { echo "npm failed earlier in this run, not asked again for an hour:"; cat "$NPM_FAILED"; } > "$_nl"
                return 1
        fi
        # shellcheck disable=SC2086
        npm $NPM_NET "$@" > "$_nl" 2>&1 && return 0
        _ns=$?
        tail -n 3 "$_nl" > "$NPM_FAILED.$$" 2> /dev/null && mv "$NPM_FAILED.$$" "$NPM_FAILED" 2> /dev/null
        return $_ns
}
# npm_install PREFIX LOG PACKAGE...: npm install into PREFIX, one test at
# a time: tests running side by side share the prefix, and two npm runs
# into one prefix break each other (on a machine whose npm cache is empty
# both failed).  LOG gets npm's errors, for the reason of a skip.
npm_install() {
        _np=$1 _nl=$2
        shift 2
        mkdir -p "$_np" || return 1
        if command -v flock > /dev/null; then
                # the lock held through the fetch: a test that waited sees the
                # first one's result (installed, or remembered as failed)
                exec 9> "$_np/.install.lock" && flock 9
                npm_fetch "$_nl" install --loglevel=error --no-audit --no-fund --prefix "$_np" "$@"
                _ns=$?
                exec 9>&-
                return $_ns
        fi
        npm_fetch "$_nl" install --loglevel=error --no-audit --no-fund --prefix "$_np" "$@"
}

# fetch_cdx_schemas DIR: the CycloneDX JSON schemas (1.6, 1.7 and the
# others) that npm's @cyclonedx/cyclonedx-library ships in res/schema
# (1.7 since 10.x, with cryptography-defs, which 1.7 refers to), into
# DIR/cdx-schema, once; status 0 when 1.6 and 1.7 are there.  A copy
# fetched before 1.7 was looked for is fetched again.
fetch_cdx_schemas() {
        [ -f "$1/cdx-schema/bom-1.6.SNAPSHOT.schema.json" ] && [ -f "$1/cdx-schema/bom-1.7.SNAPSHOT.schema.json" ] &&
                [ -f "$1/cdx-schema/cryptography-defs.SNAPSHOT.schema.json" ] && return 0
        command -v npm > /dev/null || return 1
        pack=$(mktemp -d "$1/cdx-pack.XXXXXX") || return 1
        if (cd "$pack" && npm_fetch pack.log pack --silent @cyclonedx/cyclonedx-library@10) &&
           tar -xzf "$pack"/cyclonedx-cyclonedx-library-*.tgz -C "$pack" package/res/schema &&
           mkdir "$pack/cdx-schema" && cp "$pack"/package/res/schema/*.schema.json "$pack/cdx-schema/"; then
                if [ -d "$1/cdx-schema" ] && [ ! -f "$1/cdx-schema/bom-1.7.SNAPSHOT.schema.json" ]; then
                        cp "$pack"/cdx-schema/*.schema.json "$1/cdx-schema/" # an older copy: add what it lacks
                else
                        mv "$pack/cdx-schema" "$1/cdx-schema" 2> /dev/null # another test may have been first
                fi
        fi
        rm -rf "$pack"
        [ -f "$1/cdx-schema/bom-1.6.SNAPSHOT.schema.json" ] && [ -f "$1/cdx-schema/bom-1.7.SNAPSHOT.schema.json" ]
}
# sbom_validator NAME: ajv (npm's, in the build directory's npm-ajv, AJV)
# and the CycloneDX schemas ready, status 0; otherwise NAME is said
# missing (no node or npm) or skipped (npm failed, with its words),
# status 1.  SCHEMAS: shared/'s schemas beside the checkout (without
# them, on a fresh machine, the SPDX 2.3 checks skip with the reason).
sbom_validator() {
        SCHEMAS="$SRCDIR/../shared/schemas"
        AJV="${BUILDDIR:-$HOME}/npm-ajv"
        if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
                missing "$1" "node and npm"
                return 1
        fi
        if [ ! -d "$AJV/node_modules/ajv" ] || [ ! -d "$AJV/node_modules/ajv-formats" ]; then
                npm_install "$AJV" npm.log ajv ajv-formats
        fi
        if [ ! -d "$AJV/node_modules/ajv-formats" ]; then
                skip "$1" "cannot install ajv from npm: $(tail -n 1 npm.log 2> /dev/null)"
                return 1
        fi
        fetch_cdx_schemas "$AJV" || echo "# cannot fetch the CycloneDX 1.6 and 1.7 schemas from npm: their checks skip"
        return 0
}
# validate_sbom NAME AJV_DIR SCHEMA_DIR spdx|spdx3|cyclonedx FILE: FILE against
# its official schema (tests/scan/validate.js); a schema that is not there
# is a skip with the reason, never a pass.
validate_sbom() {
        node "$SRCDIR/tests/scan/validate.js" "$2" "$3" "$4" "$5" > v.txt 2>&1
        case $? in
        0) pass "$1" ;;
        77) skip "$1" "$(tail -n 1 v.txt)" ;;
        *) fail "$1"; sed 's/^/# /' v.txt | head -n 20 ;;
        esac
}

# spdx3_reader DIR: installs the second SPDX 3 reader tests/scan/spdx3-shacl.js
# uses (jsonld.js, N3.js, rdf-validate-shacl and its RDF environment, from
# npm) into DIR/npm-spdx3, once; status 0 when it is there, else the reason
# in SPDX3_READER_WHY.
spdx3_reader() {
        SPDX3_READER="$1/npm-spdx3"
        [ -f "$SPDX3_READER/node_modules/rdf-validate-shacl/index.js" ] && [ -d "$SPDX3_READER/node_modules/jsonld" ] &&
                [ -d "$SPDX3_READER/node_modules/n3" ] && [ -d "$SPDX3_READER/node_modules/@zazuko/env" ] && return 0
        if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
                SPDX3_READER_WHY="node and npm are not installed"
                return 1
        fi
        npm_install "$SPDX3_READER" "$1/npm-spdx3.log" jsonld@8.3.3 n3@2.13.12 rdf-validate-shacl@0.6.5 @zazuko/env@3.0.1
        [ -f "$SPDX3_READER/node_modules/rdf-validate-shacl/index.js" ] && return 0
        SPDX3_READER_WHY="cannot install jsonld, n3 and rdf-validate-shacl from npm: $(tail -n 1 "$1/npm-spdx3.log")"
        return 1
}
# spdx3_unavailable NAME: check NAME cannot run, spdx3_reader having failed:
# without node and npm a missing tool (make deps-test installs them); when
# npm cannot fetch the reader (a machine that reaches no npm registry) a
# skip with npm's words, as the schema validations skip without ajv.
spdx3_unavailable() {
        case $SPDX3_READER_WHY in
        "node and npm are not installed") missing "$1" "node and npm" ;;
        *) skip "$1" "$SPDX3_READER_WHY" ;;
        esac
}
# spdx3_shacl NAME FILE: FILE read as JSON-LD with the official SPDX 3.0.1
# context and checked against the model's SHACL shapes (spdx3_reader first).
spdx3_shacl() {
        node "$SRCDIR/tests/scan/spdx3-shacl.js" "$SPDX3_READER" "$2" > shacl.txt 2>&1
        case $? in
        0) pass "$1 ($(cat shacl.txt))" ;;
        *) fail "$1"; sed 's/^/# /' shacl.txt | head -n 20 ;;
        esac
}

# bwrap_isolate: sets BWRAP_ISOLATE to bwrap's options for /proc and the
# namespaces.  Inside a container a new proc cannot be mounted ("Can't
# mount proc on /newroot/proc: Operation not permitted"), so there the
# host's /proc is bound read-only and the PID namespace is shared; running
# a loader, ukify or a program needs neither.
bwrap_isolate() {
        if bwrap --bind / / --proc /proc --dev /dev --unshare-all true 2> /dev/null; then
                BWRAP_ISOLATE="--proc /proc --unshare-all"
        else
                BWRAP_ISOLATE="--ro-bind /proc /proc --unshare-user-try --unshare-ipc --unshare-net --unshare-uts --unshare-cgroup-try"
                echo "# bwrap cannot mount a new proc here: the host's /proc is bound, the PID namespace shared"
        fi
}

# can_run_i386: whether this kernel runs 32-bit x86 programs (IA-32
# emulation; micro-VM and some cloud kernels are built without it), asked
# once by running a tiny static i686 program, the answer kept in
# $T/.i386 and the reason it cannot in I386_WHY.  A fact of the machine:
# a check that needs it is a skip (i386_skip), also under PKGNOTE_STRICT=1.
# Without i686-linux-gnu-gcc it cannot be asked: status 2 (a missing tool).
# PKGNOTE_TEST_NO_IA32=1 answers no without asking (to try the skips on
# a kernel that has it).
can_run_i386() {
        if [ ! -f "$T/.i386" ]; then
                if [ "${PKGNOTE_TEST_NO_IA32:-0}" = 1 ]; then
                        echo "no this kernel cannot run 32-bit x86 programs: Exec format error (PKGNOTE_TEST_NO_IA32=1)" > "$T/.i386"
                elif ! command -v i686-linux-gnu-gcc > /dev/null 2>&1; then
                        echo "tool" > "$T/.i386"
                else
                        mkdir -p "$T/.i386-probe"
                        echo 'int main(void) { return 42; }' > "$T/.i386-probe/p.c"
                        if ! i686-linux-gnu-gcc -static -o "$T/.i386-probe/p" "$T/.i386-probe/p.c" 2> "$T/.i386-probe/err"; then
                                echo "tool" > "$T/.i386"
                        else
                                "$T/.i386-probe/p" 2> "$T/.i386-probe/err"
                                _rc=$?
                                if [ "$_rc" = 42 ]; then
                                        echo yes > "$T/.i386"
                                else
                                        # The shell's own words for the failed exec, e.g. "Exec format error".
                                        _why=$(sed -n '$s/.*: //p' "$T/.i386-probe/err")
                                        echo "no this kernel cannot run 32-bit x86 programs: ${_why:-exit status $_rc}" > "$T/.i386"
                                fi
                        fi
                        rm -rf "$T/.i386-probe"
                fi
        fi
        read -r _ans I386_WHY < "$T/.i386"
        case $_ans in
        yes) return 0 ;;
        tool) I386_WHY="i686-linux-gnu-gcc cannot build a static program"; return 2 ;;
        *) return 1 ;;
        esac
}
# i386_skip NAME: skips check NAME for the reason can_run_i386 gave.
i386_skip() { skip "$1" "$I386_WHY"; }
