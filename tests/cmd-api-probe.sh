#!/bin/sh
# The API probe (tests/api/api-probe.c) over a real kernel core: a small
# program linked with a package note aborts, the kernel writes its core
# into the test directory, and the probe reads every accessor of the core
# and of its modules' summaries, and copies of them after the core is freed.
. "$SRCDIR/tests/lib.sh"
: "${APIPROBE:?APIPROBE must name the api-probe binary}"

command -v cc > /dev/null || { echo "1..0 # SKIP no C compiler"; exit 77; }
case $(cat /proc/sys/kernel/core_pattern 2>/dev/null) in
'|'* | /*) echo "1..0 # SKIP core_pattern does not write a core into the working directory"; exit 77 ;;
esac
(ulimit -c unlimited) 2>/dev/null || { echo "1..0 # SKIP cannot raise the core size limit"; exit 77; }

printf '#include <stdlib.h>\nint main(void) { abort(); }\n' > prog.c
cc -O1 -o prog prog.c -Wl,--build-id \
        -Xlinker '--package-metadata={"type":"test","name":"api-probe-core","version":"1"}' ||
        fatal "cannot link the crashing program"
mkdir crash
(cd crash && ulimit -c unlimited && exec ../prog) > /dev/null 2>&1
CORE=$(ls crash/core* 2>/dev/null | head -n 1)
[ -n "$CORE" ] || fatal "the kernel wrote no core"

if "$APIPROBE" --core "$CORE" > probe.out 2>&1; then
        pass "api probe over a real kernel core"
else
        fail "api probe over a real kernel core" "$(sed 's/^/# /' probe.out)"
fi
grep -q "^ok - core " probe.out && pass "the probe read the core" || fail "the probe read the core" "$(cat probe.out)"
finish
