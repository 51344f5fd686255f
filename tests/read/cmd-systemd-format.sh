#!/bin/sh
# pkgnote show/core --format systemd against systemd itself: for Debian's
# systemd binaries, programs and libraries linked here with notes (several
# notes in one file, none at all, no build-id, a static program) and real
# kernel cores (a Debian systemd program, a program whose library is
# loaded through a symbolic link), the object pkgnote prints equals what
# systemd-analyze inspect-elf --json=short prints, compared as parsed
# JSON.  Hostile note contents (escapes, control characters, a huge value)
# come out as valid JSON, equal to systemd's.
. "$SRCDIR/tests/lib.sh"
require cc python3 systemd-analyze
[ "$(uname -m)" = x86_64 ] || { echo "1..0 # SKIP x86-64 only"; exit 77; }

# same NAME OBJECT...: pkgnote's objects (out) equal systemd's (sd), one per line.
same() {
        _name=$1
        shift
        if python3 - out sd <<'PY'; then pass "$_name"; else fail "$_name" "pkgnote: $(head -c 2000 out) systemd: $(head -c 2000 sd)"; fi
import json, sys
a = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
# systemd-analyze prints one object per file, each on a line of its own.
b = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8") if l.strip()]
sys.exit(not (a == b and len(a) > 0))
PY
}
# files NAME FILE...: show --format systemd against inspect-elf.
files() {
        _n=$1
        shift
        run show --format systemd "$@"
        systemd-analyze inspect-elf --json=short "$@" > sd 2> sd.err || { fail "$_n" "systemd-analyze: $(cat sd.err)"; return; }
        # inspect-elf ends an object without a newline before the next.
        sed 's/}{"elfType"/}\n{"elfType"/g' sd > sd.lines && mv sd.lines sd
        same "$_n"
}

# ------------------------------------------------ Debian's systemd binaries
set --
for f in /usr/bin/systemd-analyze /bin/journalctl /lib/x86_64-linux-gnu/libsystemd.so.0 \
        /usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-252.so /bin/ls /lib/x86_64-linux-gnu/libc.so.6; do
        [ -e "$f" ] && set -- "$@" "$f"
done
[ $# -ge 4 ] || fatal "Debian's systemd binaries are missing"
files "Debian systemd binaries, libraries and files without a note" "$@"
(cd /bin && "$PKGNOTE" show --format systemd ./journalctl ../bin//ls > "$T/out" 2>&1)
(cd /bin && systemd-analyze inspect-elf --json=short ./journalctl ../bin//ls) | sed 's/}{"elfType"/}\n{"elfType"/g' > sd
same "relative names made absolute as systemd makes them"

# ---------------------------------------------------- files linked here
J1='{"type":"deb","os":"debian","name":"crasher","version":"2.0-1","architecture":"amd64"}'
J2='{"type":"rpm","os":"fedora","name":"second","version":"9-9","architecture":"x86_64"}'
note_asm() { # JSON: a package note in a section of its own
        python3 - "$1" <<'PY'
import sys
j = sys.argv[1].encode() + b"\0"
j += b"\0" * (-len(j) % 4)
print('\t.section .note.extra,"a",@note\n\t.balign 4\n\t.long 4, %d, 0xcafe1a7e\n\t.asciz "FDO"' % len(j))
print('\t.byte ' + ','.join(str(b) for b in j))
print('\t.section .note.GNU-stack,"",@progbits')
PY
}
cat > lib.c <<'C'
int lib_value(void) { return 42; }
C
cat > main.c <<'C'
#include <signal.h>
#include <unistd.h>
int lib_value(void);
int main(int argc, char **argv) {
        if (argc > 1) { pause(); return 0; }
        return lib_value() == 42 ? 0 : 1;
}
C
LJ='{"type":"deb","os":"debian","name":"libthing","version":"1.0-1","architecture":"amd64"}'
cc -shared -fPIC -o libthing.so.1.0 lib.c -Wl,-soname,libthing.so.1 -Xlinker "--package-metadata=$LJ" || fatal "cannot link"
ln -s libthing.so.1.0 libthing.so.1
ln -s libthing.so.1 libthing.so
cc -o prog main.c -L. -lthing -Wl,-rpath,"$T" -Xlinker "--package-metadata=$J1" || fatal "cannot link"
note_asm "$J2" > second.s
cc -o twonotes main.c second.s -L. -lthing -Wl,-rpath,"$T" -Xlinker "--package-metadata=$J1" || fatal "cannot link"
cc -o nonote main.c -L. -lthing -Wl,-rpath,"$T" -Wl,--build-id=none || fatal "cannot link"
cc -o nobuildid main.c -L. -lthing -Wl,-rpath,"$T" -Wl,--build-id=none -Xlinker "--package-metadata=$J1" || fatal "cannot link"
cc -c -o second.o second.s || fatal "cannot assemble"
set -- "$T/prog" "$T/twonotes" "$T/nonote" "$T/nobuildid" "$T/libthing.so.1.0" "$T/second.o"
if echo 'int main(void) { return 0; }' > st.c && cc -static -o static st.c -Xlinker "--package-metadata=$J1" 2>/dev/null; then
        set -- "$@" "$T/static"
else
        missing "a static program" "static linking (libc6-dev)"
fi
files "linked here: a note, two notes, none, no build-id, a library, an object file, static" "$@"
python3 -c 'import json,sys; d=json.loads(open("out").readlines()[1]); sys.exit(d[sys.argv[1]]["name"] != "crasher")' "$T/twonotes" &&
        pass "two notes in one file: the first counts" || fail "two notes in one file: the first counts" "$(cat out)"

# ----------------------------------------------------- hostile contents
# Escapes, control characters (as JSON escapes: raw ones are no JSON), a
# quote and a backslash in a key, non-ASCII, a huge value: valid JSON out,
# and the same as systemd's.
HJ=$(python3 -c '
import json
print(json.dumps({"type": "deb", "name": "h\u0001\u001b[31m\"\\x", "version": "1\n2\t3",
                  "k\"\\ey": "\u00e9\u2603\U0001f600", "huge": "A" * 60000, "nested": {"a": [1, 2.5, None, True]}}))')
cc -o hostile main.c -L. -lthing -Wl,-rpath,"$T" -Xlinker "--package-metadata=$HJ" || fatal "cannot link"
files "hostile note contents come out as valid JSON, equal to systemd's" "$T/hostile"
if grep -q "$(printf '\033')" out || grep -q "$(printf '\001')" out; then
        fail "no raw control character in the output"
else
        pass "no raw control character in the output"
fi
# DEL and C1 controls: systemd 252 refuses the whole object ("Failed to
# read or parse json metadata"); pkgnote writes them escaped.
CJ='{"type":"deb","name":"\u007f\u0085\u009b","version":"1"}'
cc -o c1 main.c -L. -lthing -Wl,-rpath,"$T" -Xlinker "--package-metadata=$CJ" || fatal "cannot link"
run show --format systemd c1
python3 - "$T/c1" <<'PY' && pass "DEL and C1 controls written escaped, the same string" || fail "DEL and C1 controls written escaped, the same string" "$(od -c out | head)"
import json, sys
raw = open("out", "rb").read()
assert b"\x7f" not in raw and b"\xc2\x85" not in raw and b"\xc2\x9b" not in raw, raw
assert json.loads(raw)[sys.argv[1]]["name"] == "\u007f\u0085\u009b"
PY

# A name holding a control character and a byte that is not UTF-8: still
# valid JSON, the byte written as the text \xNN.
mkdir "$(printf 'odd\001\377dir')"
cp prog "$(printf 'odd\001\377dir')/prog"
run show --format systemd "$(printf 'odd\001\377dir')/prog"
python3 -c '
import json, sys
d = json.loads(open("out", "rb").read())
assert [k for k in d if k.endswith("odd\u0001\\xffdir/prog")], d' && pass "a hostile file name: valid JSON" ||
        fail "a hostile file name: valid JSON" "$(od -c out | head -5)"

# ------------------------------------------------------------ real cores
case $(cat /proc/sys/kernel/core_pattern 2>/dev/null) in
'|'* | /*) skip "real kernel cores" "core_pattern does not write a core into the working directory"; finish; exit ;;
esac
# crash NAME CMD...: CMD killed by SIGSEGV once it runs; its core in NAME.
crash() {
        _core=$1
        shift
        rm -f core
        sh -c 'ulimit -c unlimited; "$@" > /dev/null 2>&1 & p=$!; sleep 0.5; kill -SEGV $p; wait' sh "$@"
        [ -f core ] || fatal "the kernel wrote no core for $*"
        mv core "$_core"
}
cores() { # NAME CORE: core --format systemd against inspect-elf on the core
        run core --format systemd "$2"
        systemd-analyze inspect-elf --json=short "$2" > sd 2> sd.err || { fail "$1" "systemd-analyze: $(cat sd.err)"; return; }
        same "$1"
}
crash sd.core systemd-socket-activate -l "$T/sock" sleep 1
cores "core of a Debian systemd program: its notes and libsystemd-shared's" sd.core
python3 -c 'import json,sys; d=json.load(open("out")); sys.exit(len(d) < 4)' && pass "the core's object names both modules" ||
        fail "the core's object names both modules" "$(cat out)"
crash prog.core "$T/prog" wait
cores "core of a program whose library is loaded through a symbolic link" prog.core
grep -q '"libthing.so.1"' out && pass "a library is named by its dynamic linker entry" ||
        fail "a library is named by its dynamic linker entry" "$(cat out)"
crash odd.core "$T/$(printf 'odd\001\377dir')/prog" wait
run core --format systemd odd.core
python3 -c '
import json
d = json.loads(open("out", "rb").read())
assert [k for k in d if k.endswith("odd\u0001\\xffdir/prog")] and "libthing.so.1" in d, d' &&
        pass "a core of a program of a hostile name: valid JSON" || fail "a core of a program of a hostile name: valid JSON" "$(od -c out | head -5)"
crash twonotes.core "$T/twonotes" wait
cores "core of a program with two notes" twonotes.core
crash nonote.core "$T/nonote" wait
cores "core of a program without notes" nonote.core
crash hostile.core "$T/hostile" wait
cores "core of a program with a hostile note" hostile.core
if command -v zstd > /dev/null && has_feature zstd; then
        zstd -q sd.core -o sd.core.zst
        run core --format systemd sd.core.zst
        systemd-analyze inspect-elf --json=short sd.core > sd
        same "a zstd-compressed core, read as a stream"
fi
run core --format yaml sd.core
expect_status 2 "an unknown --format is refused"
expect_err "--format: 'yaml' is none of text, json, systemd" "the refusal names the formats"
finish
