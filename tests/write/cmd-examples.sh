#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# examples/hello built for real in every combination: compilers gcc and
# clang x linkers ld.bfd, gold, lld (>= 15) and mold x build systems make,
# meson and CMake x the two ways of handing over the note (an object from
# 'pkgnote generate --format object', and --package-metadata from
# '--format ldflags' or the JSON).  The program and the library must each
# carry exactly the expected note, once, have been linked by the intended
# linker, and the program must run.
# Environment: PKGNOTE, SRCDIR, LC_ALL=C.  Exit 0, 77 skip, 1 fail.

. "$SRCDIR/tests/lib.sh"

have() { command -v "$1" >/dev/null 2>&1; }

if ! have gcc && ! have clang; then
        echo "# SKIP: no C compiler"
        exit 77
fi

EX="$SRCDIR/examples/hello"
# Characters that matter to make, shells and gcc's -Wl, comma splitting:
# commas (between keys), colons, tildes, double quotes.
J='{"type":"deb","os":"example","osVersion":"1","name":"hello","version":"1:2.0~rc1-1","architecture":"amd64","appCpe":"cpe:2.3:a:example:hello:1.0"}'
VERSION='1:2.0~rc1-1'
ARGS="--no-os-release --os=example --os-version=1 --app-cpe=cpe:2.3:a:example:hello:1.0"

# lld 15 or later (the unversioned ld.lld may be lld 14, which has no
# --package-metadata); gcc finds it as ld.lld through -B.
LLD=""
for c in ld.lld-16 ld.lld-17 ld.lld-18 ld.lld; do
        if have $c && $c --version | grep -Eq 'LLD (1[5-9]|[2-9][0-9])\.'; then LLD=$(command -v $c); break; fi
done
if [ -n "$LLD" ]; then
        mkdir -p lldbin
        ln -s "$LLD" lldbin/ld.lld
fi

# build DIR CC LD SYSTEM ROUTE: builds the example in DIR, logging to
# DIR.log; DIR.ok marks success.  Runs in the background.
build() {
        dir=$1 cc=$2 ld=$3 sys=$4 route=$5
        case $ld in
        bfd) ldflags="-fuse-ld=bfd" prog=ld.bfd ;;
        gold) ldflags="-fuse-ld=gold" prog=ld.gold ;;
        lld) if [ "$cc" = clang ]; then ldflags="--ld-path=$LLD"; else ldflags="-fuse-ld=lld -B$T/lldbin"; fi; prog=$LLD ;;
        mold) ldflags="-fuse-ld=mold" prog=mold ;;
        esac
        (
                set -e
                case $sys in
                make)
                        cp -R "$EX" "$dir"
                        # The linker comes in through LDFLAGS, as a
                        # distribution's build flags would bring it.
                        LDFLAGS=$ldflags make -C "$dir" CC="$cc" PKGNOTE="$PKGNOTE" \
                                PKGNOTE_ROUTE=$route PKGNOTE_LINKER=$ld PKGNOTE_LD="$prog" \
                                PKG_TYPE=deb PKG_VERSION="$VERSION" PKG_ARCH=amd64 PKGNOTE_ARGS="$ARGS"
                        ;;
                meson)
                        CC=$cc LDFLAGS=$ldflags meson setup "$dir" "$EX" -Dpkgnote="$PKGNOTE" \
                                -Dpkgnote_route=$route -Dpkg_type=deb -Dpkg_version="$VERSION" -Dpkg_arch=amd64 \
                                -Dpkgnote_args="$(echo $ARGS | tr ' ' ,)"
                        ninja -C "$dir"
                        ;;
                cmake)
                        if [ $route = object ]; then gen="Unix Makefiles"; else gen=Ninja; fi
                        CC=$cc LDFLAGS=$ldflags PKGNOTE=$PKGNOTE cmake -G "$gen" -S "$EX" -B "$dir" \
                                -DPKGNOTE_ROUTE=$route -DPKG_TYPE=deb -DPKG_VERSION="$VERSION" -DPKG_ARCH=amd64 \
                                -DPKGNOTE_ARGS="$(echo $ARGS | tr ' ' ';')"
                        cmake --build "$dir"
                        ;;
                esac
                touch "$dir.ok"
        ) >"$dir.log" 2>&1
}

# The linker that made FILE, from what each leaves behind.
linked_by() {
        if readelf -SW "$1" | grep -q '\.note\.gnu\.gold-version'; then echo gold
        elif readelf -p .comment "$1" 2>/dev/null | grep -q 'Linker: .*LLD'; then echo lld
        elif readelf -p .comment "$1" 2>/dev/null | grep -q 'mold'; then echo mold
        else echo bfd; fi
}

# check NAME FILE LD CC: exactly J, once, in FILE made by LD and CC.
check() {
        what=$1 file=$2 want_ld=$3 want_cc=$4
        problems=""
        s=$("$PKGNOTE" show --json "$file" 2>&1)
        case $s in
        *"\"packages\":[$J],"*) ;;
        *) problems="${problems}pkgnote show --json: $s; " ;;
        esac
        n=$(readelf -n "$file" 2>/dev/null | grep -c 'FDO_PACKAGING_METADATA')
        [ "$n" -eq 1 ] || problems="${problems}$n package notes, expected 1; "
        by=$(linked_by "$file")
        [ "$by" = "$want_ld" ] || problems="${problems}linked by $by, expected $want_ld; "
        if [ "$want_cc" = clang ] && ! readelf -p .comment "$file" 2>/dev/null | grep -q 'clang version'; then
                problems="${problems}not compiled by clang; "
        fi
        if [ -z "$problems" ]; then pass "$what"; else fail "$what" "$problems"; fi
}

jobs_dirs=""
for cc in gcc clang; do
        if ! have $cc; then
                missing "$cc: every build" "$cc"
                continue
        fi
        for ld in bfd gold lld mold; do
                case $ld in
                bfd) ok=$(have ld.bfd && echo y) ;;
                gold) ok=$(have ld.gold && echo y) ;;
                lld) ok=$([ -n "$LLD" ] && echo y) ;;
                mold) ok=$(have mold && echo y) ;;
                esac
                if [ -z "$ok" ]; then
                        missing "$cc + $ld: every build" "the $ld linker (lld >= 15 for lld)"
                        continue
                fi
                batch=""
                for sys in make meson cmake; do
                        case $sys in
                        make) need=make ;;
                        meson) need=meson; have ninja || need=ninja ;;
                        cmake) need=cmake ;;
                        esac
                        if ! have $need; then
                                missing "$cc + $ld + $sys" "$need"
                                continue
                        fi
                        for route in object ldflags; do
                                d="$T/$cc-$ld-$sys-$route"
                                build "$d" $cc $ld $sys $route &
                                batch="$batch $d"
                        done
                done
                # Six builds at a time keep two cores busy without
                # thrashing.
                wait
                jobs_dirs="$jobs_dirs $batch"
        done
done

for d in $jobs_dirs; do
        set -- $(basename "$d" | tr - ' ')
        cc=$1 ld=$2 sys=$3 route=$4
        name="$cc + $ld + $sys + $route"
        if [ ! -e "$d.ok" ]; then
                fail "$name: build" "$(tail -n 30 "$d.log" | sed 's/^/#   /')"
                continue
        fi
        check "$name: hello" "$d/hello" $ld $cc
        check "$name: libgreet.so.1" "$d/libgreet.so.1" $ld $cc
        if out=$(LD_LIBRARY_PATH="$d" "$d/hello" pkgnote 2>&1) && [ "$out" = "Hello, pkgnote!" ]; then
                pass "$name: runs"
        else
                fail "$name: runs" "$out"
        fi
done

finish
