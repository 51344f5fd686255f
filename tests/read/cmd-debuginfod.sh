#!/bin/sh
# Symbolized stack traces with opt-in debuginfod downloads, against a real
# debuginfod server on 127.0.0.1 serving split debug files, and against
# servers that hang, send garbage or send another build's file.  A stripped
# program crashes for real; its crashing frame gains function, file, line
# and the inlined call only with --debuginfod, from each source of the
# server's URL (option, the module's note, $DEBUGINFOD_URLS), cross-checked
# with eu-addr2line on the debug file; without the option no connection is
# ever made (strace); a second run with the server gone uses the cache.
. "$SRCDIR/tests/lib.sh"

[ "$(uname -m)" = x86_64 ] || { echo "1..0 # SKIP x86-64 only"; exit 77; }
case $(cat /proc/sys/kernel/core_pattern 2>/dev/null) in
'|'* | /*) echo "1..0 # SKIP core_pattern does not write a core into the working directory"; exit 77 ;;
esac
(ulimit -c unlimited) 2>/dev/null || { echo "1..0 # SKIP cannot raise the core size limit"; exit 77; }
require gcc objcopy strip readelf python3 debuginfod eu-addr2line strace curl script
require_feature stack
[ -e /usr/lib/x86_64-linux-gnu/libdebuginfod.so.1 ] || [ -e /lib/x86_64-linux-gnu/libdebuginfod.so.1 ] ||
        { [ "${PKGNOTE_STRICT:-0}" = 1 ] && { echo "not ok - libdebuginfod1 is not installed"; exit 1; }; echo "1..0 # SKIP libdebuginfod1 missing"; exit 77; }

PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; done; umount_below "$T"; rm -rf "$T"; }
trap cleanup EXIT
export T DEBUGINFOD_CACHE_PATH="$T/cache"
unset DEBUGINFOD_URLS XDG_CACHE_HOME

# traced CMD...: CMD under strace, its connect() calls in strace.log (the
# leak checker of a sanitizer build cannot run under ptrace: it is off).
traced() { ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" strace -f -qq -e trace=connect -o strace.log "$@"; }

# jcheck NAME FILE EXPR: EXPR (Python, d the JSON, f the crashing thread's
# frames) must hold.
jcheck() {
        if python3 - "$2" "$3" > pyerr 2>&1 <<'PY'
import json, os, sys
d = json.load(open(sys.argv[1]))
E = os.environ
f = d["threads"][0]["frames"] if d.get("threads") else []
def di(base):
    found = [m for m in d.get("debugInfo", []) if os.path.basename(m["module"]) == base]
    assert len(found) == 1, "debugInfo of %s: %d entries" % (base, len(found))
    return found[0]
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
        then pass "$1"; else fail "$1" "false: $3 $(cat pyerr) $(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d.get(\"debugInfo\"), d.get(\"stackUnavailable\"))" "$2")"; fi
}

# ------------------------------------------------------------ the programs
# prog: its note names the debuginfod server (as Fedora's notes do);
# plain: its note names none (as Debian's do).  Both stripped, their debug
# files only on the server.  other: a build whose debug file has another
# build-id, for the server that sends the wrong file.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
URL="http://127.0.0.1:$PORT"
export URL
mkdir srv bin
gcc -g -O1 -o bin/prog "$SRCDIR/tests/read/debuginfod/symbolize.c" \
        -Xlinker "--package-metadata={\"type\":\"rpm\",\"name\":\"prog\",\"version\":\"1.0-1\",\"debugInfoUrl\":\"$URL\"}" || fatal "cannot build prog"
gcc -g -O1 -o bin/plain "$SRCDIR/tests/read/debuginfod/symbolize.c" \
        -Xlinker '--package-metadata={"type":"deb","name":"plain","version":"1.0-1"}' || fatal "cannot build plain"
gcc -g -O1 -DOTHER -o other "$SRCDIR/tests/read/debuginfod/symbolize.c" -Wl,--build-id=0x0123456789abcdef || fatal "cannot build other"
for p in prog plain; do
        objcopy --only-keep-debug bin/$p srv/$p.debug && strip --strip-all bin/$p || fatal "cannot split $p"
done
objcopy --only-keep-debug other other.debug || fatal "cannot split other"
line_of() { grep -n "line:$1 " "$SRCDIR/tests/read/debuginfod/symbolize.c" | cut -d: -f1; }
L_STORE=$(line_of store)
L_CRASH=$(line_of crash)
L_MAIN=$(line_of main)
L_WAIT=$(line_of wait)
export L_STORE L_CRASH L_MAIN L_WAIT
build_id() { readelf -nW "$1" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p'; }
ID_PROG=$(build_id bin/prog)
ID_PLAIN=$(build_id bin/plain)
export ID_PROG ID_PLAIN
[ -n "$ID_PROG" ] && [ "$ID_PROG" = "$(build_id srv/prog.debug)" ] || fatal "prog's debug file lacks its build-id"
readelf -SW bin/prog | grep -q '\.debug_info' && fatal "prog is not stripped"

# The crash, for real: a core of each.
for p in prog plain; do
        mkdir -p c-$p
        (cd c-$p && ulimit -c unlimited && exec "$T/bin/$p") > /dev/null 2>&1
        [ -f c-$p/core ] || fatal "no core from $p"
done

# ------------------------------------------------------------ the servers
debuginfod -F "$T/srv" -p "$PORT" -d "$T/db.sqlite" -t 0 -g 0 > debuginfod.log 2>&1 &
PIDS="$PIDS $!"
DPID=$!
ready=0
for _i in $(seq 1 300); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/buildid/$ID_PROG/debuginfo")" = 200 ] &&
                [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/buildid/$ID_PLAIN/debuginfo")" = 200 ] && { ready=1; break; }
        sleep 0.1
done
[ $ready = 1 ] || fatal "debuginfod did not serve the debug files: $(tail -5 debuginfod.log)"
# start_server NAME MODE [ARG]: a misbehaving server; sets NAME_URL.
start_server() {
        python3 "$SRCDIR/tests/read/debuginfod/server.py" "$T/$1.port" "$2" ${3:+"$3"} &
        PIDS="$PIDS $!"
        for _i in $(seq 1 200); do [ -s "$T/$1.port" ] && break; sleep 0.05; done
        [ -s "$T/$1.port" ] || fatal "server $1 did not start"
        eval "$1_URL=http://127.0.0.1:$(cat "$T/$1.port")"
}
start_server hang hang
SERVER_LOG="$T/garbage.log" start_server garbage garbage
start_server wrong file "$T/other.debug"
start_server record record "$T/record.log"
export hang_URL garbage_URL wrong_URL record_URL
: > record.log

# What the debug file says of the crashing address, for the cross-check:
# the crashing frame is an activation (its pc is the faulting instruction).
cross_check() { # PROG JSON
        python3 - "$2" > addr <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(d["threads"][0]["frames"][0]["moduleOffset"])
PY
        eu-addr2line -f -i -e "srv/$1.debug" "$(cat addr)" > a2l 2>&1
}

# ------------------------------------------------------------ without the option
DEBUGINFOD_URLS="$URL" traced "$PKGNOTE" core --json c-prog/core > off.json 2> err
STATUS=$?
expect_status 0 "without --debuginfod: exits 0"
grep -E 'AF_INET6?' strace.log > inet.log
[ ! -s inet.log ] && pass "without --debuginfod: no network connection, although DEBUGINFOD_URLS is set" \
        || fail "without --debuginfod: no network connection, although DEBUGINFOD_URLS is set" "$(cat inet.log)"
jcheck "without --debuginfod: the stripped frame has no function nor source" off.json \
        'f[0]["module"] == "prog" and f[0]["function"] is None and "file" not in f[0] and "debugInfo" not in d'
[ ! -e cache ] && pass "without --debuginfod: no cache written" || fail "without --debuginfod: no cache written"

# ------------------------------------------------------------ dry run
DEBUGINFOD_URLS="$record_URL" traced "$PKGNOTE" core --json --debuginfod-dry-run c-prog/core > dry.json 2> err
STATUS=$?
expect_status 0 "dry run: exits 0"
grep -E 'AF_INET6?' strace.log > inet.log
[ ! -s inet.log ] && pass "dry run: no network connection" || fail "dry run: no network connection" "$(cat inet.log)"
jcheck "dry run: prog would go to its note's server only" dry.json \
        'di("prog")["status"] == "dry-run" and di("prog")["servers"] == [E["URL"]] and di("prog")["buildId"] == E["ID_PROG"]'
jcheck "dry run: frames are not symbolized" dry.json 'f[0]["function"] is None'
"$PKGNOTE" core --debuginfod-dry-run c-prog/core > dry.txt 2> err
grep -qF "prog (build-id $ID_PROG): would be asked of $URL" dry.txt && pass "dry run: the text names build-id and server" \
        || fail "dry run: the text names build-id and server" "$(sed -n '/^Debug info/,$p' dry.txt)"
[ ! -e cache ] && pass "dry run: no cache written" || fail "dry run: no cache written"

# ------------------------------------------------------------ source 1: the option
run core --json --debuginfod="$URL" c-plain/core
expect_status 0 "--debuginfod=URL: exits 0"
cp out opt.json
jcheck "--debuginfod=URL: the inlined store() at its source line" opt.json \
        'f[0]["function"] == "store" and f[0].get("inlined") is True and f[0]["file"].endswith("symbolize.c") and f[0]["line"] == int(E["L_STORE"])'
jcheck "--debuginfod=URL: then crash() at the inlined call, same pc" opt.json \
        'f[1]["function"] == "crash" and "inlined" not in f[1] and f[1]["pc"] == f[0]["pc"] and f[1]["line"] == int(E["L_CRASH"]) and f[1]["module"] == "plain"'
jcheck "--debuginfod=URL: main() at the call of crash()" opt.json \
        'f[2]["function"] == "main" and f[2]["line"] == int(E["L_MAIN"]) and f[2]["file"].endswith("symbolize.c")'
jcheck "--debuginfod=URL: downloaded from the server given" opt.json \
        'di("plain")["status"] == "downloaded" and di("plain")["servers"] == [E["URL"]] and di("plain")["file"].startswith(E["DEBUGINFOD_CACHE_PATH"] + "/" + E["ID_PLAIN"])'
cross_check plain opt.json
python3 - opt.json a2l <<'PY' && pass "--debuginfod=URL: eu-addr2line agrees on functions and lines" || fail "--debuginfod=URL: eu-addr2line agrees on functions and lines" "$(cat a2l)"
import json, sys
f = json.load(open(sys.argv[1]))["threads"][0]["frames"]
lines = open(sys.argv[2]).read().splitlines()
# eu-addr2line -f -i: a line naming the function ("store inlined at ...
# in crash"), then file:line[:column], for each inlined level.
want = [(lines[i].split()[0], lines[i + 1].split(":")[1]) for i in range(0, len(lines), 2)]
got = [(x["function"], str(x["line"])) for x in f[:len(want)]]
sys.exit(0 if want == got and len(want) == 2 else 1)
PY
run core --debuginfod="$URL" c-plain/core
grep -Eq '^#0 +0x[0-9a-f]+ store \(plain \+ 0x[0-9a-f]+\) \[inlined\] at .*symbolize\.c:'"$L_STORE"'(:[0-9]+)?$' out \
        && pass "--debuginfod=URL: the text shows the inlined frame and its line" || fail "--debuginfod=URL: the text shows the inlined frame and its line" "$(cat out)"
grep -Eq "^  plain \(build-id $ID_PLAIN\): cached" out \
        && pass "--debuginfod=URL: a second report finds it in the cache" || fail "--debuginfod=URL: a second report finds it in the cache" "$(sed -n '/^Debug info/,$p' out)"

# A cached file of another build (the cache is shared with other tools)
# is not trusted: removed and fetched again.
cp other.debug "cache/$ID_PLAIN/debuginfo"
run core --json --debuginfod="$URL" c-plain/core
jcheck "a wrong file in the cache: fetched again, and used" out \
        'di("plain")["status"] == "downloaded" and f[1]["function"] == "crash" and f[1]["line"] == int(E["L_CRASH"])'

# Where the cache is without DEBUGINFOD_CACHE_PATH: the XDG cache
# directory, else ~/.cache, made with its parents.
env -u DEBUGINFOD_CACHE_PATH XDG_CACHE_HOME="$T/xdg" "$PKGNOTE" core --json --debuginfod="$URL" c-plain/core > xdg.json 2> err
jcheck "the cache under \$XDG_CACHE_HOME/debuginfod_client" xdg.json \
        'di("plain")["status"] == "downloaded" and di("plain")["file"] == E["T"] + "/xdg/debuginfod_client/" + E["ID_PLAIN"] + "/debuginfo"'
env -u DEBUGINFOD_CACHE_PATH -u XDG_CACHE_HOME HOME="$T/home" "$PKGNOTE" core --json --debuginfod="$URL" c-plain/core > home.json 2> err
jcheck "else under ~/.cache/debuginfod_client, made with its parents" home.json \
        'di("plain")["status"] == "downloaded" and di("plain")["file"] == E["T"] + "/home/.cache/debuginfod_client/" + E["ID_PLAIN"] + "/debuginfo"'

# ------------------------------------------------------------ source 2: the note
# DEBUGINFOD_URLS names the recording server: prog's build-id must never
# reach it, since prog's note names its own server.
DEBUGINFOD_URLS="$record_URL" "$PKGNOTE" core --json --debuginfod c-prog/core > note.json 2> err
STATUS=$?
expect_status 0 "--debuginfod, note URL: exits 0"
jcheck "--debuginfod, note URL: downloaded from the note's server" note.json \
        'di("prog")["status"] == "downloaded" and di("prog")["servers"] == [E["URL"]]'
jcheck "--debuginfod, note URL: the frame is symbolized" note.json \
        'f[0]["function"] == "store" and f[1]["function"] == "crash" and f[1]["line"] == int(E["L_CRASH"])'
grep -q "$ID_PROG" record.log && fail "--debuginfod, note URL: prog's build-id never goes to \$DEBUGINFOD_URLS" "$(cat record.log)" \
        || pass "--debuginfod, note URL: prog's build-id never goes to \$DEBUGINFOD_URLS"

# ------------------------------------------------------------ source 3: the environment
rm -rf cache
DEBUGINFOD_URLS="$URL" "$PKGNOTE" core --json --debuginfod c-plain/core > env.json 2> err
STATUS=$?
expect_status 0 "--debuginfod, \$DEBUGINFOD_URLS: exits 0"
jcheck "--debuginfod, \$DEBUGINFOD_URLS: a note without debugInfoUrl uses the environment's server" env.json \
        'di("plain")["status"] == "downloaded" and di("plain")["servers"] == [E["URL"]] and f[1]["function"] == "crash"'
"$PKGNOTE" core --json --debuginfod c-plain/core > none.json 2> err
jcheck "--debuginfod without any server: said, and the report goes on" none.json \
        'di("plain")["status"] == "cached" or (di("plain")["status"] == "no-server" and f[0]["module"] == "plain")'
rm -rf cache
"$PKGNOTE" core --json --debuginfod c-plain/core > none.json 2> err
jcheck "--debuginfod, no server anywhere: no-server, module + offset kept" none.json \
        'di("plain")["status"] == "no-server" and f[0]["module"] == "plain" and f[0]["moduleOffset"].startswith("0x") and f[0]["function"] is None'

# ------------------------------------------------------------ pkgnote-coredump
# Called as the kernel calls it, the core on standard input.  Without a
# configuration the report has no stack and nothing is fetched; with
# debuginfod-allow naming the note's server, the report is symbolized at
# crash time; an allow-list without it asks nothing.
HANDLER="$BUILDDIR/pkgnote-coredump"
feed() { # STATE CONFIG
        "$HANDLER" -d "$1" -l "$T/cd.log" -c "$2" 4242 0 0 11 1700000000 18446744073709551615 testhost prog < c-prog/core
}
REPORT=core.prog.0.4242.1700000000.json
: > none.conf
rm -rf cache
feed st-none none.conf
jcheck "coredump, no configuration: no stack, nothing fetched" st-none/$REPORT '"threads" not in d and "debugInfo" not in d'
printf '# symbolize at crash time\nstack = yes\ndebuginfod-allow = %s\ndebuginfod-cache = %s\ndebuginfod-timeout = 5\n' "$URL" "$T/cd-cache" > allow.conf
feed st-allow allow.conf
jcheck "coredump, allow-list with the note's server: symbolized at crash time" st-allow/$REPORT \
        'f[0]["function"] == "store" and f[1]["function"] == "crash" and f[1]["line"] == int(E["L_CRASH"]) and di("prog")["status"] == "downloaded" and di("prog")["file"].startswith(E["T"] + "/cd-cache/")'
printf 'debuginfod-allow = %s\ndebuginfod-cache = %s\n' "$record_URL" "$T/cd-cache2" > other.conf
: > record.log
feed st-other other.conf
jcheck "coredump, allow-list without the note's server: not asked" st-other/$REPORT \
        'di("prog")["status"] == "not-allowed" and f[0]["function"] is None'
[ ! -s record.log ] && pass "coredump, allow-list: no other server asked instead" || fail "coredump, allow-list: no other server asked instead" "$(cat record.log)"
printf 'stack = maybe\nbogus\n' > bad.conf
feed st-bad bad.conf
[ -s st-bad/$REPORT ] && grep -q "bad.conf:1: bad value for stack" cd.log && grep -q "bad.conf:2: not KEY = VALUE" cd.log \
        && pass "coredump, a bad configuration is logged and the crash stored" || fail "coredump, a bad configuration is logged and the crash stored" "$(cat cd.log)"
# Later, from the stored (compressed) core: pkgnote core symbolizes it.
crashed=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["pid"])' st-none/$REPORT)
PKGNOTE_COREDUMP_DIR="$T/st-none" "$PKGNOTE" core --json --debuginfod="$URL" "$crashed" > later.json 2> err
jcheck "a stored crash symbolized later with pkgnote core --debuginfod" later.json \
        'f[1]["function"] == "crash" and f[1]["line"] == int(E["L_CRASH"]) and di("prog")["status"] in ("downloaded", "cached")'

# ------------------------------------------------------------ the cache, offline
"$PKGNOTE" core --json --debuginfod="$URL" c-prog/core > online.json 2> err
kill "$DPID"
wait "$DPID" 2>/dev/null
"$PKGNOTE" core --json --debuginfod="$URL" c-prog/core > offline.json 2> err
STATUS=$?
expect_status 0 "server stopped: exits 0"
jcheck "server stopped: the same frames, from the cache" offline.json \
        'di("prog")["status"] == "cached" and f == json.load(open("online.json"))["threads"][0]["frames"] and f[1]["function"] == "crash"'
# A module from the cache asks no server (others, libc without a local
# debug file on a machine without libc6-dbg, still may).
: > record.log
"$PKGNOTE" core --json --debuginfod="$record_URL" c-prog/core > rec.json 2> err
jcheck "cached: the module's build-id goes to no server" rec.json 'di("prog")["status"] == "cached"'
grep -q "$ID_PROG" record.log && fail "cached: no request for the module" "$(cat record.log)" || pass "cached: no request for the module"

# ------------------------------------------------------------ servers that misbehave
rm -rf cache
start=$(date +%s)
timeout 120 "$PKGNOTE" core --json --debuginfod="$hang_URL" --debuginfod-timeout=1 c-prog/core > hang.json 2> err
STATUS=$?
took=$(($(date +%s) - start))
expect_status 0 "a hanging server: the report is still made"
jcheck "a hanging server: timed out, reported for the module" hang.json \
        'di("prog")["status"] == "failed" and "timed out" in di("prog")["message"] and f[0]["module"] == "prog"'
[ "$took" -lt 60 ] && pass "a hanging server: given up within the budget (${took}s)" || fail "a hanging server: given up within the budget" "${took}s"
# Regression: the client recorded the cut-short download as a miss (an
# empty file), and every report for ten minutes said "not found".
[ ! -e "cache/$ID_PROG/debuginfo" ] && pass "bug-timeout-recorded-as-miss: no miss record left" \
        || fail "bug-timeout-recorded-as-miss: no miss record left" "$(ls -l "cache/$ID_PROG")"
timeout 120 "$PKGNOTE" core --json --debuginfod="$hang_URL" --debuginfod-timeout=30 --debuginfod-budget=1 c-prog/core > budget.json 2> err
jcheck "a hanging server: the overall budget ends the download" budget.json \
        'di("prog")["status"] == "failed" and "budget" in di("prog")["message"]'

# bad_file WHAT URL STATUS: the server at URL sends a file that is not
# prog's debug file: the report is made, says STATUS, keeps module +
# offset, and the file goes from the cache.
bad_file() {
        run core --json --debuginfod="$2" c-prog/core
        expect_status 0 "$1: exits 0"
        cp out bad.json
        STATUS_WANT=$3 jcheck "$1: $3, the frame keeps module + offset" bad.json \
                'di("prog")["status"] == E["STATUS_WANT"] and f[0]["module"] == "prog" and f[0]["function"] is None'
        [ ! -e "cache/$ID_PROG/debuginfo" ] && pass "$1: the file goes from the cache" || fail "$1: the file goes from the cache"
}
bad_file "a server sending garbage" "$garbage_URL" unusable
# Regression: after a file it could not use, libdwfl asks again (symbol
# table, then DWARF), and each ask went to the server.
[ "$(grep -c "$ID_PROG" garbage.log)" -eq 1 ] && pass "bug-asked-twice: one request per module" \
        || fail "bug-asked-twice: one request per module" "$(cat garbage.log)"
bad_file "a server sending another build's file" "$wrong_URL" mismatch

# A note whose debugInfoUrl is no http(s) URL names no server.
gcc -O1 -o bin/badurl "$SRCDIR/tests/read/debuginfod/symbolize.c" \
        -Xlinker '--package-metadata={"type":"rpm","name":"badurl","version":"1","debugInfoUrl":"file:///etc"}' || fatal "cannot build badurl"
strip bin/badurl
mkdir -p c-bad && (cd c-bad && ulimit -c unlimited && exec "$T/bin/badurl") > /dev/null 2>&1
DEBUGINFOD_URLS="$record_URL" "$PKGNOTE" core --json --debuginfod c-bad/core > bad.json 2> err
jcheck "a note's file:// debugInfoUrl is not asked, nor the environment instead" bad.json \
        'di("badurl")["status"] == "no-server" and "http" in di("badurl")["message"]'

# ------------------------------------------------------------ progress, lazy loading
# A slow download shows its progress on standard error when that is a
# terminal (script(1) gives it one), and not otherwise.
start_server slow slow "$T/srv/prog.debug"
rm -rf cache
script -qec "'$PKGNOTE' core --debuginfod='$slow_URL' c-prog/core > slow.out" /dev/null > tty.log 2>&1
grep -q "pkgnote: debug info for prog from $slow_URL: [0-9]* KiB" tty.log && grep -q "store" slow.out \
        && pass "a slow download shows progress on a terminal" || fail "a slow download shows progress on a terminal" "$(cat tty.log | tr '\r' '\n' | tail -3)"
rm -rf cache
"$PKGNOTE" core --debuginfod="$slow_URL" c-prog/core > slow.out 2> err
[ ! -s err ] && grep -q "store" slow.out && pass "no progress when standard error is no terminal" || fail "no progress when standard error is no terminal" "$(cat err)"
# libdebuginfod is loaded only for a download: not by pkgnote, and not by
# libdw on its own, whatever DEBUGINFOD_URLS says.
DEBUGINFOD_URLS="$URL" LD_DEBUG=files "$PKGNOTE" core c-prog/core > /dev/null 2> ld.log
grep -q "file=libdw.so.1" ld.log && ! grep -q "libdebuginfod" ld.log \
        && pass "without --debuginfod, libdebuginfod is never loaded" || fail "without --debuginfod, libdebuginfod is never loaded" "$(grep -c libdebuginfod ld.log) mentions"

# ------------------------------------------------------------ local debug files
# A debug link to a file in the program's .debug directory: found without
# any server, and with --debuginfod nothing is asked for it.
mkdir -p linked/.debug
gcc -g -O1 -o linked/linked "$SRCDIR/tests/read/debuginfod/symbolize.c" -Xlinker '--package-metadata={"type":"deb","name":"linked","version":"1"}' || fatal "cannot build linked"
objcopy --only-keep-debug linked/linked linked/.debug/linked.debug && strip --strip-all linked/linked &&
        objcopy --add-gnu-debuglink=linked/.debug/linked.debug linked/linked || fatal "cannot link the debug file"
(cd linked && ulimit -c unlimited && exec ./linked) > /dev/null 2>&1
run core --json linked/core
cp out linked.json
jcheck "a debug link to .debug/: symbolized without any server" linked.json 'f[1]["function"] == "crash" and f[1]["line"] == int(E["L_CRASH"])'
DEBUGINFOD_URLS="$record_URL" "$PKGNOTE" core --json --debuginfod linked/core > linked2.json 2> err
jcheck "a debug link to .debug/: local, so no server is asked" linked2.json \
        'di("linked")["status"] == "local" and di("linked")["file"].endswith("/.debug/linked.debug") and "servers" not in di("linked")'
# A debug link whose file has another build-id is not used.
cp other.debug linked/.debug/linked.debug
run core --json linked/core
jcheck "a debug link to a file of another build: not used" out 'f[0]["function"] is None'

# ------------------------------------------------------------ a running process
"$T/bin/plain" wait > /dev/null 2>&1 &
WPID=$!
PIDS="$PIDS $WPID"
export WPID
for _i in $(seq 1 100); do grep -q '^State:.*S' /proc/$WPID/status 2>/dev/null && break; sleep 0.05; done
run pid --json $WPID
jcheck "pid: no stack trace unless asked" out '"threads" not in d'
run pid --json --debuginfod="$wrong_URL" --debuginfod-dry-run $WPID
cp out piddry.json
jcheck "pid --debuginfod-dry-run: the server given, nothing fetched" piddry.json \
        'di("plain")["status"] == "dry-run" and di("plain")["servers"] == [E["wrong_URL"]]'
python3 "$SRCDIR/tests/read/debuginfod/server.py" "$T/pidsrv.port" file "$T/srv/plain.debug" &
PIDS="$PIDS $!"
for _i in $(seq 1 200); do [ -s pidsrv.port ] && break; sleep 0.05; done
PIDSRV_URL="http://127.0.0.1:$(cat pidsrv.port)"
rm -rf cache
run pid --json --debuginfod="$PIDSRV_URL" $WPID
expect_status 0 "pid --debuginfod: exits 0"
cp out pid.json
jcheck "pid --debuginfod: the waiting thread, symbolized from the download" pid.json \
        'd["threads"][0]["tid"] == int(E["WPID"]) and any(x["function"] == "wait_here" and x["line"] == int(E["L_WAIT"]) for x in f) and di("plain")["status"] == "downloaded"'
grep -q '^State:.*S' /proc/$WPID/status && pass "pid --debuginfod: the process runs on afterwards" || fail "pid --debuginfod: the process runs on afterwards" "$(grep State /proc/$WPID/status)"
# Second report: from the cache, the server (a recording one now) not
# asked for it.
: > record.log
"$PKGNOTE" pid --debuginfod="$record_URL" $WPID > out 2> err
grep -Eq "^#[0-9]+ +0x[0-9a-f]+ wait_here \(plain \+ 0x[0-9a-f]+\) at .*symbolize\.c:$L_WAIT" out &&
        grep -Eq "^  plain \(build-id $ID_PLAIN\): cached" out \
        && pass "pid --debuginfod: a second report comes from the cache" || fail "pid --debuginfod: a second report comes from the cache" "$(cat out)"
grep -q "$ID_PLAIN" record.log && fail "pid --debuginfod: no request for the cached module" "$(cat record.log)" \
        || pass "pid --debuginfod: no request for the cached module"
kill $WPID

# ------------------------------------------------------------ errors
run core --debuginfod-timeout=0 c-prog/core
expect_status 2 "--debuginfod-timeout=0 is refused"
expect_err "not a number of seconds" "--debuginfod-timeout=0: says why"
run core --debuginfod= c-prog/core
expect_status 2 "--debuginfod= (empty) is refused"
run core --no-stack --debuginfod c-prog/core
expect_status 2 "--no-stack with --debuginfod is refused"

finish
