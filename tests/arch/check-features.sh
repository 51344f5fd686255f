#!/bin/sh
# make check-features: pkgnote built with each optional library switched
# off, and with all of them off at once; each build must link without
# warnings and pass the tests that apply to it (the rest skip, named, as
# PKGNOTE_FEATURES_OFF allows).  Usage: tests/arch/check-features.sh [CONFIG...]
# with CONFIG one of the names below; all of them by default.
set -u
cd "$(dirname "$0")/../.."
MESON=${MESON:-meson}
# meson option, feature name (pkgnote --version), the command tests it touches
configs() {
        cat <<'LIST'
libarchive archive cmd-features cmd-scan cmd-scan-db cmd-scan-storage cmd-scan-image cmd-scan-artefacts api-probe-core
squashfs squashfs cmd-features cmd-scan-artefacts cmd-scan-db
zstd zstd cmd-features cmd-core cmd-core-cross cmd-coredump cmd-coredump-journal cmd-systemd cmd-verify
xz xz cmd-features cmd-core cmd-verify
lz4 lz4 cmd-features cmd-core cmd-verify
zlib zlib cmd-features cmd-scan cmd-scan-artefacts cmd-verify cmd-crates
libdw stack cmd-features cmd-core cmd-pid cmd-coredump cmd-debuginfod cmd-elfutils-corpus
LIST
}
status=0
want=" ${*:-all-off $(configs | cut -d' ' -f1 | tr '\n' ' ')} "
build() { # DIR FEATURES-OFF MESON-ARGS...
        dir=$1 off=$2
        shift 2
        echo "== $dir: built without $off"
        mkdir -p "$dir"
        if [ ! -f "$dir/build.ninja" ]; then
                $MESON setup "$dir" "$@" > "$dir/setup.log" 2>&1 || { cat "$dir/setup.log"; return 1; }
        fi
        ninja -C "$dir" > "$dir/ninja.log" 2>&1 || { tail -50 "$dir/ninja.log"; return 1; }
        if grep -q "warning:" "$dir/ninja.log"; then
                grep "warning:" "$dir/ninja.log"
                echo "$dir: the build warns"
                return 1
        fi
}
case $want in *" all-off "*)
        args= off=
        for o in $(configs | cut -d' ' -f1); do args="$args -D$o=disabled"; done
        off=$(configs | cut -d' ' -f2 | tr '\n' ' ')
        # shellcheck disable=SC2086
        if build build-features-all-off "$off" $args; then
                PKGNOTE_FEATURES_OFF="$off" PKGNOTE_STRICT=1 $MESON test -C build-features-all-off \
                        --print-errorlogs --num-processes 2 || status=1
        else
                status=1
        fi
esac
list=$(mktemp) || exit 1
trap 'rm -f "$list"' EXIT
configs > "$list"
while read -r opt feature tests; do
        case $want in *" $opt "*) ;; *) continue ;; esac
        dir=build-features-no-$opt
        if build $dir "$feature" "-D$opt=disabled" < /dev/null; then
                # The unit tests and fuzz corpora, and the command tests named.
                base=$($MESON test -C $dir --list 2> /dev/null | sed -n 's/.* \/ \(test-.*\|fuzz-replay-.*\)$/\1/p')
                # shellcheck disable=SC2086
                PKGNOTE_FEATURES_OFF="$feature" PKGNOTE_STRICT=1 $MESON test -C $dir --print-errorlogs \
                        --num-processes 2 $base $tests < /dev/null || status=1
        else
                status=1
        fi
done < "$list"
exit $status
