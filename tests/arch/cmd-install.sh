#!/bin/sh
# meson install: binary, library, header, pkg-config file and manual page,
# and a program built against the installed library alone through
# pkg-config (which also proves only pkgnote_* symbols are exported).
. "$SRCDIR/tests/lib.sh"
: "${BUILDDIR:?BUILDDIR must name the meson build directory}"
meson install -C "$BUILDDIR" --destdir "$T/root" --no-rebuild --quiet > install.log 2>&1 \
        || fatal "meson install failed: $(cat install.log)"
prefix=$(meson introspect "$BUILDDIR" --buildoptions | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
libdir=$(meson introspect "$BUILDDIR" --buildoptions | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="libdir"][0])')
sanitize=$(meson introspect "$BUILDDIR" --buildoptions | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="b_sanitize"][0])')
# A sanitizer build's library needs its runtime in the program too.
SANFLAGS=
[ "$sanitize" != none ] && SANFLAGS="-fsanitize=$sanitize"
R="$T/root$prefix"
libexecdir=$(meson introspect "$BUILDDIR" --buildoptions | python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="libexecdir"][0])')
for f in bin/pkgnote "$libexecdir/pkgnote-coredump" include/pkgnote.h share/man/man1/pkgnote.1 share/man/man3/libpkgnote.3 \
        share/man/man8/pkgnote-coredump.8 share/bash-completion/completions/pkgnote "$libdir/pkgconfig/libpkgnote.pc" "$libdir/libpkgnote.so"; do
        [ -e "$R/$f" ] && pass "installs $f" || fail "installs $f"
done
cat > use.c <<'C'
#include <pkgnote.h>
#include <stdio.h>
int main(int argc, char **argv) {
        pkgnote_object *e;
        pkgnote_info *info;
        if (pkgnote_object_open(argv[1], &e) < 0 || pkgnote_info_read(e, &info) < 0) {
                fprintf(stderr, "%s\n", pkgnote_last_error());
                return 2;
        }
        printf("%s\n", pkgnote_info_package_count(info) ? pkgnote_metadata_name(pkgnote_info_package(info, 0)) : "-");
        pkgnote_info_free(info);
        pkgnote_object_free(e);
        return argc > 2;
}
C
# The .pc file names the final prefix: point it into the staging root.
sed "s|^prefix=.*|prefix=$R|" "$R/$libdir/pkgconfig/libpkgnote.pc" > libpkgnote.pc
if cc $SANFLAGS -o use use.c $(PKG_CONFIG_PATH=. pkg-config --cflags --libs libpkgnote) 2> cc.log; then
        pass "builds against the installed library with pkg-config"
else
        fail "builds against the installed library with pkg-config" "$(cat cc.log)"
fi
cc -shared -fPIC -o noted.so -x c /dev/null -Xlinker '--package-metadata={"name":"installed"}' || fatal "cc failed"
out=$(ASAN_OPTIONS=detect_leaks=0 LD_LIBRARY_PATH="$R/$libdir" ./use noted.so 2>&1)
[ "$out" = installed ] && pass "the installed library reads a note" || fail "the installed library reads a note" "$out"
# The commands link libpkgnote.so.1 and find it, installed, by the
# loader's search path under /usr, else by a RUNPATH naming the installed
# library directory alone: none of the build tree is left in them.
case $prefix in
/usr) want_rpath= ;;
*) want_rpath="$prefix/$libdir" ;;
esac
for exe in "$R/bin/pkgnote" "$R/$libexecdir/pkgnote-coredump"; do
        n=${exe#"$R/"}
        dyn=$(readelf -d "$exe" 2> /dev/null)
        rpath=$(printf '%s\n' "$dyn" | sed -n 's/.*R\(UN\)\{0,1\}PATH.*\[\(.*\)\]$/\2/p')
        if printf '%s\n' "$dyn" | grep -q 'NEEDED.*\[libpkgnote\.so\.1\]' && [ "$rpath" = "$want_rpath" ]; then
                pass "$n needs libpkgnote.so.1, RUNPATH '${want_rpath}'"
        else
                fail "$n needs libpkgnote.so.1, RUNPATH '${want_rpath}'" "$(printf '%s\n' "$dyn" | grep -E 'NEEDED|PATH' | tr '\n' ' ')"
        fi
done
out=$(ASAN_OPTIONS=detect_leaks=0 LD_LIBRARY_PATH="$R/$libdir" "$R/bin/pkgnote" show --format json noted.so 2>&1)
case $out in
*'"name":"installed"'*) pass "the installed pkgnote runs with the installed library" ;;
*) fail "the installed pkgnote runs with the installed library" "$out" ;;
esac
out=$(ASAN_OPTIONS=detect_leaks=0 LD_LIBRARY_PATH="$R/$libdir" "$R/$libexecdir/pkgnote-coredump" --help 2>&1)
case $out in
Usage:\ pkgnote-coredump*) pass "the installed pkgnote-coredump runs with the installed library" ;;
*) fail "the installed pkgnote-coredump runs with the installed library" "$out" ;;
esac
exported=$(nm -D --defined-only "$R/$libdir/libpkgnote.so" | awk '$2 ~ /^[TDB]$/ {print $3}' | grep -v '^pkgnote_' | head -5)
[ -z "$exported" ] && pass "exports only pkgnote_* symbols" || fail "exports only pkgnote_* symbols" "$exported"
# pkgnote(1)'s SYNOPSIS names every command that pkgnote --help lists.
syn=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$SRCDIR/man/pkgnote.1")
cmds=$("$PKGNOTE" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
absent=""
for c in $cmds; do
        printf '%s\n' "$syn" | grep -q "^\.B pkgnote $c\( \|\$\)" || absent="$absent $c"
done
if [ -n "$cmds" ] && [ -z "$absent" ]; then pass "pkgnote(1) SYNOPSIS names every command"; else
        fail "pkgnote(1) SYNOPSIS names every command" "missing:$absent"; fi
# Each command has its own manual page, installed, whole (no .so stub):
# its NAME and SYNOPSIS are the command's, pkgnote(1) lists it, and the
# command's --help and "pkgnote help COMMAND" end by naming it.
for c in $cmds; do
        page=$R/share/man/man1/pkgnote-$c.1
        if [ -f "$page" ] && ! grep -q '^\.so ' "$page" && grep -q "^pkgnote-$c \\\\- " "$page" &&
                sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$page" | grep -q "^\.B pkgnote $c\( \|\$\)" &&
                grep -q "^\.BR pkgnote\\\\-$c (1)" "$SRCDIR/man/pkgnote.1" &&
                [ "$(grep -c . "$page")" -gt 40 ]; then
                pass "pkgnote-$c(1): a whole page of its own, listed in pkgnote(1)"
        else
                fail "pkgnote-$c(1): a whole page of its own, listed in pkgnote(1)" "$(head -5 "$page" 2>&1)"
        fi
        "$PKGNOTE" "$c" --help > help1 2>&1
        "$PKGNOTE" help "$c" > help2 2>&1
        if [ "$(tail -1 help1)" = "The whole manual: pkgnote-$c(1)." ] && cmp -s help1 help2; then
                pass "pkgnote $c --help and pkgnote help $c name pkgnote-$c(1)"
        else
                fail "pkgnote $c --help and pkgnote help $c name pkgnote-$c(1)" "$(tail -2 help1; diff help1 help2)"
        fi
done
finish
