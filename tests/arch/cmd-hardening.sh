#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The note object must not weaken the program it is linked into: linkers
# AND-merge GNU_PROPERTY_X86_FEATURE_1_AND / AARCH64_FEATURE_1_AND, so an
# input without them clears IBT/SHSTK or BTI/PAC.  For the object and asm
# forms of pkgnote generate and the objects the rpm macros and the Debian
# snippet build, with ld.bfd, gold, lld and mold: a -fcf-protection program
# keeps IBT, SHSTK; one without CET gains nothing; -z cet-report=error
# links; i686 and aarch64 (-mbranch-protection=standard, run under qemu)
# likewise.  The programs are linked without the C library's start files,
# whose objects carry no CET marks on Debian and would hide the effect.
# Environment: PKGNOTE, SRCDIR, LC_ALL=C.  Exit 0, 77 skip, 1 fail.

. "$SRCDIR/tests/lib.sh"

have() { command -v "$1" >/dev/null 2>&1; }
have gcc && have readelf || { echo "# SKIP: gcc and readelf are needed"; exit 77; }

J='{"type":"deb","os":"debian","name":"hardened","version":"1.0-1"}'
G="$PKGNOTE generate --no-os-release --metadata $J"

# A program of its own: _start makes the exit system call.
printf 'void _start(void) { __asm__ volatile("mov $60, %%eax\\n xor %%edi, %%edi\\n syscall"); }\n' >x64.c
printf 'void _start(void) { __asm__ volatile("mov $1, %%eax\\n xor %%ebx, %%ebx\\n int $0x80"); }\n' >x86.c
cat >a64.c <<'EOF'
void _start(void) {
        register long nr __asm__("x8") = 93, code __asm__("x0") = 0;
        __asm__ volatile("svc 0" : : "r"(nr), "r"(code));
}
EOF

props() { readelf -n "$1" 2>/dev/null | sed -n 's/^ *Properties: //p'; }

# linked NAME WANT-PROPERTIES RUNNER CC ARGS...: links ARGS with CC; the
# output's properties must be WANT, it has one package note (pkgnote's
# own forms: exactly J), and it runs.
linked() {
        name=$1 want=$2 runner=$3
        shift 3
        if ! "$@" -static -nostdlib -o out.elf >err 2>&1; then
                fail "$name" "link failed: $* $(cat err)"
                return
        fi
        problems=""
        got=$(props out.elf)
        [ "$got" = "$want" ] || problems="properties '$got', want '$want'; "
        n=$(readelf -n out.elf | grep -c 'FDO_PACKAGING_METADATA')
        [ "$n" -eq 1 ] || problems="${problems}$n package notes; "
        case $name in
        *gen-* | *" + object"* | *" + asm"*) case $("$PKGNOTE" show --json out.elf 2>&1) in *"\"packages\":[$J]"*) ;; *) problems="${problems}not J; " ;; esac ;;
        esac
        if [ "$runner" != none ]; then
                $runner ./out.elf >run.out 2>&1 || problems="${problems}does not run: $(cat run.out); "
        fi
        if [ -z "$problems" ]; then pass "$name"; else fail "$name" "$problems"; fi
}

LLD=""
for c in ld.lld-16 ld.lld-17 ld.lld-18 ld.lld; do
        if have $c && $c --version | grep -Eq 'LLD (1[5-9]|[2-9][0-9])\.'; then LLD=$(command -v $c); break; fi
done
[ -n "$LLD" ] && mkdir -p lldbin && ln -sf "$LLD" lldbin/ld.lld

# The note objects to check: generate's two forms, then the integrations'.
$G -F object -o gen-object.o || fatal "cannot generate the object"
$G -F asm -o gen-asm.s && gcc -c gen-asm.s -o gen-asm.o || fatal "cannot assemble the asm form"
FORMS="gen-object gen-asm"
if have rpm; then
        sh -c "$(rpm --load "$SRCDIR/dist/rpm/macros.pkgnote" --define "_builddir $PWD/rpmbuild" \
                --define "name hardened" --define "version 1.0" --define "release 1" --define "__pkgnote $PKGNOTE" \
                --define "_pkgnote_extra_args --no-os-release --os debian" --eval '%{_pkgnote_make_object}')" >rpm.log 2>&1
        cp rpmbuild/.pkgnote/note-*.o rpm.o 2>/dev/null && FORMS="$FORMS rpm" ||
                fail "rpm macros: object" "$(cat rpm.log)"
else
        skip "rpm macros" "rpm is not installed"
fi
if have make && have dpkg-architecture; then
        debian_object() {
                d=$1
                shift
                rm -rf "deb-$d"
                mkdir -p "deb-$d"
                printf 'include %s\nprint:\n\t@echo $(PKGNOTE_OBJECT)\n' "$SRCDIR/dist/debian/pkgnote.mk" >"deb-$d/rules"
                (cd "deb-$d" && make -s -f rules print PKGNOTE="$PKGNOTE" DEB_SOURCE=hardened DEB_VERSION=1.0-1 \
                        PKGNOTE_EXTRA_ARGS="--no-os-release --os debian" "$@") 2>"deb-$d.log"
        }
        o=$(debian_object host) && cp "$o" deb.o && FORMS="$FORMS deb" || fail "Debian snippet: object" "$(cat deb-host.log)"
else
        skip "Debian snippet" "make or dpkg-dev is not installed"
fi
# A note object as it was before it carried the property: the control
# that shows these checks can fail.
objcopy --remove-section .note.gnu.property gen-object.o stripped.o

# lint: the note objects pass, the stripped one is flagged.
for f in $FORMS; do
        "$PKGNOTE" lint $f.o >lint.out 2>&1
        if grep -q drops-hardening lint.out; then fail "lint: $f object keeps the marks" "$(cat lint.out)"; else
                pass "lint: $f object keeps the marks"; fi
done
"$PKGNOTE" lint stripped.o >lint.out 2>&1
if grep -q 'warning: drops-hardening: note object without GNU_PROPERTY_X86_FEATURE_1_AND' lint.out; then
        pass "lint: an object without the property is flagged"
else
        fail "lint: an object without the property is flagged" "$(cat lint.out)"
fi

arch=$(uname -m)
if [ "$arch" != x86_64 ]; then
        skip "x86-64 linkers" "this machine is $arch"
else
        for ld in bfd gold lld mold; do
                case $ld in
                lld) [ -n "$LLD" ] || { skip "lld" "no lld >= 15"; continue; }; drv="-fuse-ld=lld -B$PWD/lldbin" ;;
                mold) have mold || { skip "mold" "not installed"; continue; }; drv=-fuse-ld=mold ;;
                gold) have ld.gold || { skip "gold" "not installed"; continue; }; drv=-fuse-ld=gold ;;
                *) drv=-fuse-ld=bfd ;;
                esac
                for f in $FORMS; do
                        # shellcheck disable=SC2086
                        linked "$ld + $f: -fcf-protection keeps IBT, SHSTK" "x86 feature: IBT, SHSTK" "" \
                                gcc $drv -fcf-protection x64.c $f.o
                        # shellcheck disable=SC2086
                        linked "$ld + $f: no CET stays without" "" "" gcc $drv -fcf-protection=none x64.c $f.o
                        # gold has no -z cet-report.
                        [ $ld = gold ] && continue
                        # shellcheck disable=SC2086
                        linked "$ld + $f: -z cet-report=error links" "x86 feature: IBT, SHSTK" "" \
                                gcc $drv -fcf-protection -Wl,-z,cet-report=error x64.c $f.o
                done
                # shellcheck disable=SC2086
                if gcc $drv -fcf-protection x64.c stripped.o -static -nostdlib -o ctl.elf 2>/dev/null &&
                        [ -z "$(props ctl.elf)" ]; then
                        pass "$ld: control: an object without the property strips IBT, SHSTK"
                else
                        fail "$ld: control: an object without the property strips IBT, SHSTK" "$(props ctl.elf)"
                fi
        done
fi

# cross NAME TRIPLET TARGET SOURCE FLAGS WANT RUNNER: each form for TARGET.
cross() {
        triple=$1 target=$2 src=$3 flags=$4 want=$5 runner=$6
        cc=$triple-gcc
        if ! have $cc; then
                skip "$triple" "$cc is not installed"
                return
        fi
        $G -F object -t $triple -o $triple-object.o
        $G -F asm -t $target -o $triple-asm.s && $cc -c $triple-asm.s -o $triple-asm.o
        forms="object asm"
        if have rpm; then
                rm -rf rpmbuild
                sh -c "$(rpm --load "$SRCDIR/dist/rpm/macros.pkgnote" --define "_builddir $PWD/rpmbuild" \
                        --define "name hardened" --define "version 1.0" --define "release 1" --define "__pkgnote $PKGNOTE" \
                        --define "_target_cpu $target" --define "_arch $target" --define "_pkgnote_cc $cc" \
                        --define "_pkgnote_extra_args --no-os-release --os debian" --eval '%{_pkgnote_make_object}')" \
                        >rpm.log 2>&1 && cp rpmbuild/.pkgnote/note-*.o $triple-rpm.o && forms="$forms rpm" ||
                        fail "$triple: rpm macros object" "$(cat rpm.log)"
        fi
        if have make && have dpkg-architecture; then
                o=$(debian_object $triple DEB_HOST_GNU_TYPE=$triple DEB_HOST_ARCH=$target PKGNOTE_CC=$cc) &&
                        cp "$o" $triple-deb.o && forms="$forms deb" ||
                        fail "$triple: Debian snippet object" "$(cat deb-$triple.log)"
        fi
        for f in $forms; do
                # shellcheck disable=SC2086
                linked "$triple + $f: keeps $want" "$want" "$runner" $cc $flags $src $triple-$f.o
        done
}
run=none
have qemu-aarch64-static && run=qemu-aarch64-static
cross aarch64-linux-gnu aarch64 a64.c -mbranch-protection=standard "AArch64 feature: BTI, PAC" $run
# i686 programs run under qemu: not every x86-64 kernel has IA-32 emulation.
run=none
have qemu-i386-static && run=qemu-i386-static
cross i686-linux-gnu i686 x86.c -fcf-protection "x86 feature: IBT, SHSTK" $run

finish
