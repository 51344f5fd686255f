#!/bin/sh
# A whole stamped system, crashed for real: a Debian base root (the
# cached mmdebstrap tarball of the fresh-machine check, or
# PKGNOTE_BASE_TAR) gets 'stamp --tree --from-dpkg', each file the
# source package that ships it by the root's own dpkg database; no file
# may lose its program
# headers from the first page, at least 99% of executables and shared
# libraries carry the note there; then perl, loading XS modules, is
# killed with SIGSEGV inside the root (bwrap), and 'core --no-disk' must
# name the package of every file module from the core alone, the right
# one for each.
. "$SRCDIR/tests/lib.sh"

# The base root: PKGNOTE_BASE_TAR, the fresh-machine check's, or one made
# here with mmdebstrap once and kept in /var/tmp for later runs.
BASE=${PKGNOTE_BASE_TAR:-/var/tmp/fresh-bookworm/base.tar}
if [ ! -f "$BASE" ]; then
        BASE=/var/tmp/pkgnote-test-base/bookworm.tar
        if [ ! -f "$BASE" ]; then
                require mmdebstrap
                mkdir -p "${BASE%/*}" || fatal "cannot make ${BASE%/*}"
                echo "# making a Debian 12 base root with mmdebstrap (once, kept in $BASE)"
                if ! mmdebstrap --variant=apt --include=perl bookworm "$BASE.tmp.tar" \
                        "deb http://deb.debian.org/debian bookworm main" > mmdebstrap.log 2>&1; then
                        rm -f "$BASE.tmp.tar"
                        echo "1..0 # SKIP mmdebstrap could not make a base root here: $(tail -1 mmdebstrap.log)"
                        exit 77
                fi
                mv "$BASE.tmp.tar" "$BASE"
        fi
fi
command -v bwrap > /dev/null || { echo "1..0 # SKIP bwrap not installed"; exit 77; }
(ulimit -c unlimited) 2> /dev/null || { echo "1..0 # SKIP cannot raise the core size limit"; exit 77; }
[ "$(cat /proc/sys/kernel/core_pattern 2> /dev/null)" = core ] || { echo "1..0 # SKIP core_pattern is not 'core'"; exit 77; }

mkdir root && tar -xf "$BASE" -C root || fatal "cannot unpack $BASE"
"$PKGNOTE" stamp --tree --json --force --from-dpkg root root/usr > stamp.json 2> stamp.err
python3 - stamp.json . > share.txt <<'PY'
import json, os, struct, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def kind(p):
    with open(os.path.join(sys.argv[2], p), "rb") as f:
        h = f.read(18)
    return struct.unpack("<H" if h[5] == 1 else ">H", h[16:18])[0]
linked = [r for r in rows if "error" not in r and kind(r["path"]) in (2, 3)]
errors = [r for r in rows if "error" in r]
print(len(linked), sum(r["firstPage"] for r in linked), sum(not r["phdrsFirstPage"] for r in linked), len(errors))
for r in linked:
    if not r["firstPage"]:
        print("# outside the first page (%s): %s" % (r["placement"], r["path"]))
for r in errors:
    print("# refused: %s: %s" % (r["path"], r["error"]))
PY
read n first lost refused < share.txt
grep '^#' share.txt
[ "$n" -gt 500 ] && [ "$refused" -eq 0 ] && pass "stamp --tree usr: $n executables and shared libraries stamped" ||
        fail "stamp --tree usr: $n executables and shared libraries stamped" "$refused refused"
[ "$lost" -eq 0 ] && pass "no file lost its program headers from the first page" || fail "no file lost its program headers from the first page" "$lost did"
[ $((first * 100)) -ge $((n * 99)) ] && pass "note in the first page: $first of $n" || fail "note in the first page: $first of $n"

mkdir -p root/crash
bwrap --bind "$PWD/root" / --proc /proc --dev /dev --tmpfs /tmp --chdir /crash --unshare-pid --die-with-parent \
        /bin/sh -c 'ulimit -c unlimited; exec perl -MPOSIX -MSocket -MStorable -e "kill SEGV => \$\$; sleep 5"' > /dev/null 2>&1
core=$(ls root/crash/core* 2> /dev/null | head -1)
[ -n "$core" ] || fatal "perl left no core in the root"
"$PKGNOTE" core --json --no-disk "$core" > core.json 2> core.err
python3 - core.json > modules.txt <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
files = [m for m in d["modules"] if m["path"].startswith("/")]
named = [m for m in files if m.get("packages")]
print(len(files), len(named))
for m in files:
    print("# %s: %s from %s" % (m["path"], ", ".join(p.get("name", "?") for p in m.get("packages", [])) or "no package", m.get("source")))
PY
read files named < modules.txt
grep '^#' modules.txt
[ "$files" -ge 5 ] && [ "$named" -eq "$files" ] && pass "core --no-disk: all $files file modules name their package" ||
        fail "core --no-disk: all $files file modules name their package" "$named did"
grep -q 'XS\|auto/POSIX/POSIX.so' modules.txt && pass "the crash loaded XS modules" || fail "the crash loaded XS modules"
# Each module names the source package that ships it: glibc for the C
# library and the loader, perl for perl and its XS modules, libxcrypt.
for m in 'libc.so.6: glibc ' 'ld-linux-x86-64.so.2: glibc ' '/usr/bin/perl: perl ' 'POSIX.so: perl ' 'libcrypt.so.1[.0-9]*: libxcrypt '; do
        grep -q "$m" modules.txt && pass "the core names the package that ships ${m%%:*}" ||
                fail "the core names the package that ships ${m%%:*}" "want '$m'"
done
# Every file module's package is its dpkg owner's source package.
if command -v dpkg-query > /dev/null; then
        bad=0
        grep '^# /' modules.txt > module-lines.txt
        while read -r _ path name _; do
                path=${path%:}
                want=$(dpkg-query --admindir=root/var/lib/dpkg -S "$path" 2> /dev/null | head -1 | cut -d: -f1)
                [ -n "$want" ] || want=$(dpkg-query --admindir=root/var/lib/dpkg -S "$(echo "$path" | sed 's,^/usr/lib/,/lib/,')" 2> /dev/null | head -1 | cut -d: -f1)
                src=$(dpkg-query --admindir=root/var/lib/dpkg -W -f '${source:Package}' "$want" 2> /dev/null)
                [ "$src" = "$name" ] || { bad=$((bad + 1)); echo "# $path: core says $name, dpkg says $want ($src)"; }
        done < module-lines.txt
        [ "$bad" -eq 0 ] && pass "every module's package is what dpkg -S says" || fail "every module's package is what dpkg -S says" "$bad differ"
else
        missing "every module's package is what dpkg -S says" dpkg-query
fi
grep -q 'ignoring' stamp.err && echo "# left alone: $(grep -c ignoring stamp.err) (no package owns them)"
finish
