#!/bin/sh
# The API probe (tests/api/api-probe.c) over a real kernel core: a small
# program linked with a package note aborts, the kernel writes its core
# into the test directory, and the probe reads every accessor of the core
# and of its modules' summaries, and copies of them after the core is freed.
. "$SRCDIR/tests/lib.sh"
: "${APIPROBE:?APIPROBE must name the api-probe binary}"

command -v cc > /dev/null || { echo "1..0 # SKIP no C compiler"; exit 77; }

# An OCI layout of two images made by umoci, the second deleting a file.
if ! with_feature archive "api probe over an image layout of two images"; then
        :
elif command -v umoci > /dev/null; then
        umoci init --layout lay > /dev/null && umoci new --image lay:one > /dev/null &&
                umoci unpack --image lay:one b1 > /dev/null && mkdir -p b1/rootfs/bin &&
                cp "$APIPROBE" b1/rootfs/bin/probe && cp "$APIPROBE" b1/rootfs/bin/gone &&
                umoci repack --image lay:one b1 > /dev/null && umoci tag --image lay:one two > /dev/null &&
                umoci unpack --image lay:two b2 > /dev/null && rm b2/rootfs/bin/gone &&
                umoci repack --image lay:two b2 > /dev/null || fatal "umoci cannot make the layout"
        if "$APIPROBE" --image lay > probe.out 2>&1 && grep -q "^ok - images of lay" probe.out; then
                pass "api probe over an image layout of two images"
        else
                fail "api probe over an image layout of two images" "$(sed 's/^/# /' probe.out)"
        fi
else
        missing "api probe over an image layout" umoci
fi

# A .deb holding the probe itself: its objects are inside data.tar.
if ! with_feature archive "api probe over a .deb"; then
        :
elif command -v dpkg-deb > /dev/null; then
        mkdir -p deb/DEBIAN deb/usr/bin && cp "$APIPROBE" deb/usr/bin/probe &&
                printf 'Package: probe\nVersion: 1\nArchitecture: all\nMaintainer: t <t@example.org>\nDescription: t\n' \
                        > deb/DEBIAN/control && dpkg-deb -b deb probe.deb > /dev/null || fatal "dpkg-deb cannot build"
        if "$APIPROBE" --nested probe.deb > probe.out 2>&1 && grep -q "^ok - objects inside archives" probe.out; then
                pass "api probe over a .deb: objects inside its data tarball"
        else
                fail "api probe over a .deb: objects inside its data tarball" "$(sed 's/^/# /' probe.out)"
        fi
else
        missing "api probe over a .deb" dpkg-deb
fi

case $(cat /proc/sys/kernel/core_pattern 2>/dev/null) in
'|'* | /*) skip "api probe over a real kernel core" "core_pattern does not write a core into the working directory"; finish ;;
esac
(ulimit -c unlimited) 2>/dev/null || { skip "api probe over a real kernel core" "cannot raise the core size limit"; finish; }

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
