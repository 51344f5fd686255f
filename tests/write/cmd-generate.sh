#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# pkgnote generate: metadata sources, key order, every output format, and
# the raw note against ld.bfd --package-metadata.
# Environment: PKGNOTE (the binary), SRCDIR, LC_ALL=C.  Exit 0, 77 skip, 1 fail.

set -u
: "${PKGNOTE:?PKGNOTE must name the pkgnote binary}"
export LC_ALL=C

T=$(mktemp -d "${TMPDIR:-/tmp}/cmd-generate.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
failed=0 passed=0

ok() { passed=$((passed + 1)); echo "ok - $1"; }
not_ok() { failed=$((failed + 1)); echo "not ok - $1"; shift; for l in "$@"; do printf '#   %s\n' "$l"; done; }
skip() { echo "ok - $1 # SKIP $2"; }
# missing NAME TOOL: NAME cannot run without TOOL; under PKGNOTE_STRICT=1
# (make check, which installs every tool used here) that is a failure.
missing() {
        if [ "${PKGNOTE_STRICT:-0}" = 1 ]; then not_ok "$1" "required tool missing: $2 (make deps-test installs it)"
        else skip "$1" "$2 is not installed"; fi
}
have() { command -v "$1" >/dev/null 2>&1; }
# The package note JSON readelf shows for FILE (with or without -W it
# may share a line with the note type).
note_of() { readelf -n "$1" 2>/dev/null | sed -n 's/^.*Packaging Metadata: //p'; }

# expect NAME WANT COMMAND...: stdout must equal WANT and the exit status be 0.
expect() {
        name=$1 want=$2
        shift 2
        got=$("$@" 2>"$T/err")
        rc=$?
        if [ "$rc" -eq 0 ] && [ "$got" = "$want" ]; then
                ok "$name"
        else
                not_ok "$name" "command: $*" "exit status: $rc" "want: $want" "got:  $got" "stderr: $(cat "$T/err")"
        fi
}

# expect_fail NAME STDERR-PATTERN COMMAND...: exit status 2, stderr matches.
expect_fail() {
        name=$1 pattern=$2
        shift 2
        "$@" >"$T/out" 2>"$T/err"
        rc=$?
        if [ "$rc" -eq 2 ] && grep -q -e "$pattern" "$T/err"; then
                ok "$name"
        else
                not_ok "$name" "command: $*" "exit status: $rc (want 2)" "stderr: $(cat "$T/err")" \
                        "stderr should match: $pattern"
        fi
}

G="$PKGNOTE generate"
N="$PKGNOTE generate --no-os-release"

# ---------------------------------------------------------------- usage
$G --help >"$T/help" 2>&1
rc=$?
missing=""
for opt in --type --name --version --architecture --os --os-version --os-cpe --app-cpe --debuginfod-url \
        --rpm --metadata --root --os-release --no-os-release --format --output --target --linker --ld --ldflags-style \
        json note linker-script asm object ldflags shell make; do
        grep -q -e "$opt" "$T/help" || missing="$missing $opt"
done
if [ "$rc" -eq 0 ] && [ -z "$missing" ]; then ok "help documents every option"; else
        not_ok "help documents every option" "exit status $rc" "missing:$missing"; fi

expect_fail "unknown format" "^pkgnote: generate: --format: unknown format 'xml'" $N --format xml
expect_fail "unknown target" "^pkgnote: generate: --target: unknown target 'vax'" $N --target vax -F note -o "$T/x"
expect_fail "unknown linker" "^pkgnote: generate: --linker: unknown linker 'ld64'" $N --linker ld64
expect_fail "unknown ldflags style" "^pkgnote: generate: --ldflags-style" $N --ldflags-style cmake
expect_fail "stray argument" "^pkgnote: generate: unexpected argument 'foo'" $N foo
expect_fail "unknown option" "unrecognized option" $N --frobnicate
expect_fail "empty value" "^pkgnote: generate: --name: empty value" $N --name ""

# ------------------------------------------------------------ metadata
expect "canonical key order" \
        '{"type":"deb","os":"debian","osVersion":"12","name":"n","version":"1.0-1","architecture":"amd64","osCpe":"cpe:2.3:o:debian:debian_linux:12","appCpe":"cpe:2.3:a:x:n:1.0","debugInfoUrl":"https://debuginfod.debian.net/"}' \
        $N --debuginfod-url https://debuginfod.debian.net/ --app-cpe cpe:2.3:a:x:n:1.0 \
        --os-cpe cpe:2.3:o:debian:debian_linux:12 --architecture amd64 --version 1.0-1 --name n \
        --os-version 12 --os debian --type deb

expect "rpm NEVRA" '{"type":"rpm","name":"foo","version":"1.2-3.fc40","architecture":"x86_64"}' \
        $N --rpm foo-1.2-3.fc40.x86_64
expect "rpm NEVRA with epoch (dropped, as %{version}-%{release})" \
        '{"type":"rpm","name":"foo","version":"1.2-3.fc40","architecture":"x86_64"}' $N --rpm foo-2:1.2-3.fc40.x86_64
expect "rpm E:NVRA" '{"type":"rpm","name":"perl","version":"5.38.2-506.fc40","architecture":"aarch64"}' \
        $N --rpm 4:perl-5.38.2-506.fc40.aarch64
expect "rpm source NEVRA sets no architecture" '{"type":"rpm","name":"kernel","version":"6.8.5-301.fc40"}' \
        $N --rpm kernel-6.8.5-301.fc40.src
expect "key options override --rpm" '{"type":"rpm","name":"foo-src","version":"1.2-3.fc40","architecture":"noarch"}' \
        $N --rpm foo-1.2-3.fc40.x86_64 --name foo-src --architecture noarch
expect_fail "NEVRA without architecture" "^pkgnote: generate: --rpm: 'foo-1.2-3.fc40' is not NAME-\[EPOCH:\]VERSION-RELEASE.ARCH" \
        $N --rpm foo-1.2-3.fc40

expect "--metadata keeps the documents' key order" \
        '{"zeta":"1","name":"n","alpha":[1,{"b":null}],"mid":true,"type":"deb"}' \
        $N --metadata '{"zeta":"1","name":"n","alpha":[1,{"b":null}]}' --metadata '{"mid":true,"type":"deb"}'
expect "key options win over --metadata" '{"name":"cli","extra":"x"}' \
        $N --metadata '{"name":"json","extra":"x"}' --name cli
expect "later --metadata replaces earlier keys in place" '{"a":"2","b":"1","name":"second"}' \
        $N --metadata '{"a":"1","b":"1","name":"first"}' --metadata '{"a":"2","name":"second"}'
printf '{"type":"apk","name":"from-file"}\n' >"$T/meta.json"
expect "--metadata @FILE" '{"type":"apk","name":"from-file"}' $N --metadata "@$T/meta.json"
expect "--metadata @- reads stdin" '{"type":"alpm","x":"y"}' \
        sh -c "printf '%s' '{\"type\":\"alpm\",\"x\":\"y\"}' | $N --metadata @-"
expect_fail "--metadata invalid JSON" "^pkgnote: generate: --metadata: invalid JSON" $N --metadata '{"a":'
expect_fail "--metadata array" "^pkgnote: generate: --metadata: " $N --metadata '[1]'
expect_fail "--metadata duplicate key" "^pkgnote: generate: --metadata: invalid JSON" $N --metadata '{"a":"1","a":"2"}'
expect_fail "--metadata non-string well-known key" '^pkgnote: generate: --metadata: well-known key "version" must be a string' \
        $N --metadata '{"version":1}'
expect_fail "--metadata missing file" "^pkgnote: generate: --metadata: cannot read '$T/none.json'" $N --metadata "@$T/none.json"
expect_fail "--metadata control character" "^pkgnote: generate: --metadata: .*control character" \
        $N --metadata '{"a":"x\u0007y"}'

# Names in any script survive byte for byte.
u='Ωμέγα-παράδειγμα 漢字テスト 🎉🐧 Ünïcödé'
expect "non-ASCII values" "{\"name\":\"$u\",\"version\":\"1\"}" $N --name "$u" --version 1
expect "quotes and backslashes are JSON-escaped" '{"name":"a\"b\\c'"'"'d"}' $N --name 'a"b\c'"'"'d'

tab=$(printf 'a\tb')
expect_fail "control character names the option" \
        "^pkgnote: generate: --name: .*control character" $N --name "$tab"
expect_fail "control character in --app-cpe" "^pkgnote: generate: --app-cpe: .*control character" \
        $N --app-cpe "$(printf 'x\033[31m')"
expect_fail "C1 control character" "^pkgnote: generate: --version: .*control character" \
        $N --version "$(printf '1\302\2052')"
expect_fail "invalid UTF-8" "^pkgnote: generate: --name: .*UTF-8" $N --name "$(printf 'a\377b')"

# Messages that quote input escape it: no control character (nor a byte
# that is not UTF-8) reaches the terminal or a build log.
ESC=$(printf '\033')
printf '{"name":"a\\u001b[2J\\u001b]0;owned\\u0007b"}' > "$T/untrusted.json"
printf '{"name":"x","a\\u009bkey":"1"}' > "$T/untrusted2.json"
for args in "--metadata @$T/untrusted.json" "--metadata @$T/untrusted2.json" "--name a${ESC}[31mb" \
        "--frob${ESC}[2J" "-${ESC}" "--format ${ESC}x" "--target ${ESC}x"; do
        $N $args > /dev/null 2> "$T/err"
        what=$(printf '%s' "$args" | cut -c1-12 | tr -c '[:alnum:]@/.-' '?')
        if [ -s "$T/err" ] && ! LC_ALL=C grep -q "$(printf '[\001-\010\013-\037\177\200-\377]')" "$T/err"; then
                ok "message escaped: $what"
        else
                not_ok "message escaped: $what" "stderr: $(od -c "$T/err" | head -5)"
        fi
done
expect_fail "the escaped value is shown" '^pkgnote: generate: --metadata: string "a\\x1b\[2J' $N --metadata "@$T/untrusted.json"
"$PKGNOTE" "frob${ESC}" > /dev/null 2> "$T/err"
LC_ALL=C grep -q "$ESC" "$T/err" && not_ok "unknown command escaped" || ok "unknown command escaped"
"$PKGNOTE" scan --format "${ESC}x" . > /dev/null 2> "$T/err"
LC_ALL=C grep -q "$ESC" "$T/err" && not_ok "scan: unknown format escaped" || ok "scan: unknown format escaped"

# ---------------------------------------------------------- os-release
R="$T/root"
mkdir -p "$R/etc" "$R/usr/lib"
cat >"$R/usr/lib/os-release" <<'EOF'
# a comment
NAME="Test \"Quoted\" Linux"
ID=testos
ID_LIKE='  nosuch   rhel  '
  VERSION_ID='41.0'
CPE_NAME="cpe:2.3:o:test:test\$os:41"
BAD LINE
EOF
ln -s /usr/lib/os-release "$R/etc/os-release" # absolute: must resolve inside --root
expect "os-release from --root (absolute symlink, quoting, ID_LIKE)" \
        '{"type":"rpm","os":"testos","osVersion":"41.0","name":"x"}' $G --root "$R" --type rpm --name x
expect "--os-cpe auto" '{"type":"rpm","os":"testos","osVersion":"41.0","osCpe":"cpe:2.3:o:test:test$os:41"}' \
        $G --root "$R" --type rpm --os-cpe auto
expect "another --os takes nothing from os-release" '{"type":"rpm","os":"mine"}' $G --root "$R" --type rpm --os mine
expect "--no-os-release" '{"type":"rpm","name":"x"}' $G --root "$R" --no-os-release --type rpm --name x
rm "$R/etc/os-release"
printf 'ID=fedora\n' >"$R/etc/os-release"
expect "etc/os-release wins over usr/lib" '{"type":"rpm","os":"fedora"}' $G --root "$R" --type rpm
rm "$R/etc/os-release"
expect "fallback to usr/lib/os-release" '{"type":"rpm","os":"testos","osVersion":"41.0"}' $G --root "$R" --type rpm
mkdir -p "$T/empty"
expect_fail "missing os-release under --root" "^pkgnote: generate: os-release: neither" $G --root "$T/empty" --type deb
mkdir -p "$T/nocpe/etc" && printf 'ID=debian\n' >"$T/nocpe/etc/os-release"
expect_fail "--os-cpe auto without CPE_NAME" "^pkgnote: generate: --os-cpe auto: .* has no CPE_NAME" \
        $G --root "$T/nocpe" --type deb --os-cpe auto
expect_fail "--os-cpe auto with --no-os-release" "^pkgnote: generate: --os-cpe auto needs os-release" \
        $N --os-cpe auto
if [ -r /etc/os-release ] || [ -r /usr/lib/os-release ]; then
        # The host's own, for the type of its distribution (this test
        # knows the common ones: it checks the default root).
        eval "$(sh -c '. /etc/os-release 2>/dev/null || . /usr/lib/os-release; printf "id=%s like=\"%s\"" "$ID" "$ID_LIKE"')"
        htype=
        for w in $id $like; do
                case $w in
                debian | ubuntu) htype=deb ;; fedora | rhel | centos | suse | opensuse) htype=rpm ;;
                alpine) htype=apk ;; arch) htype=alpm ;; *) continue ;;
                esac
                break
        done
        if [ -n "$htype" ]; then
                got=$($G --type $htype)
                case $got in
                "{\"type\":\"$htype\",\"os\":\"$id\""*) ok "host os-release by default" ;;
                *) not_ok "host os-release by default" "got $got, want os $id" ;;
                esac
        else
                skip "host os-release by default" "the host's distribution ($id) is none this test knows"
        fi
fi

# ------------------------------------------------ metadata precedence
# One row of pkgnote(1)'s METADATA PRECEDENCE tables each, with fake
# os-release files (--os-release FILE) and roots (--root DIR) saying what
# the build host is: Debian, Fedora, Alpine, and a Debian derivative.
OSR="$T/osr"
mkdir -p "$OSR"
printf 'ID=debian\nVERSION_ID="12"\nNAME="Debian GNU/Linux"\nCPE_NAME="cpe:/o:debian:debian_linux:12"\n' >"$OSR/debian"
printf 'ID=fedora\nVERSION_ID=40\nCPE_NAME="cpe:/o:fedoraproject:fedora:40"\n' >"$OSR/fedora"
printf 'ID=alpine\nVERSION_ID=3.20.1\n' >"$OSR/alpine"
printf 'ID=linuxmint\nID_LIKE="ubuntu debian"\nVERSION_ID=21.3\n' >"$OSR/mint"
D="$T/deb-root" F="$T/fedora-root"
mkdir -p "$D/etc" "$F/usr/lib"
cp "$OSR/debian" "$D/etc/os-release"
cp "$OSR/fedora" "$F/usr/lib/os-release"
FEDORA='{"type":"rpm","os":"fedora","name":"hello","version":"1.0-1.fc40"}'
GENERIC='{"type":"generic","name":"esbuild","version":"0.28.2"}'
# Row: --metadata, exact.  Key order, values, no os added on any host.
expect "precedence: a generic --metadata document on Debian gets no os" "$GENERIC" \
        $G --os-release "$OSR/debian" --metadata "$GENERIC"
expect "precedence: a --metadata document of Debian's type gets no os either" '{"name":"x","type":"deb"}' \
        $G --os-release "$OSR/debian" --metadata '{"name":"x","type":"deb"}'
expect "precedence: a Fedora document on Debian stays Fedora's" "$FEDORA" $G --root "$D" --metadata "$FEDORA"
expect "precedence: document key order and values kept" \
        '{"version":"1","os":"fedora","n":0.1,"l":[1,2.5,true,null],"name":"x","type":"rpm"}' \
        $G --os-release "$OSR/fedora" --metadata '{"version":"1","os":"fedora","n":0.1,"l":[1,2.5,true,null],"name":"x","type":"rpm"}'
expect "precedence: document in canonical form (compact, raw UTF-8)" '{"name":"café/x","v":2.5}' \
        $G --os-release "$OSR/debian" --metadata '{ "name" : "caf\u00e9\/x",
 "v": 2.50 }'
expect "precedence: documents merged, later keys in place, nothing added" '{"type":"deb","name":"b","x":1}' \
        $G --os-release "$OSR/debian" --metadata '{"type":"deb","name":"a"}' --metadata '{"name":"b","x":1}'
expect "precedence: key options change a document where they say" '{"name":"x","type":"deb","version":"2"}' \
        $G --os-release "$OSR/debian" --metadata '{"name":"x"}' --type deb --version 2
# Rows: key options, type of the os-release's distribution: os filled.
expect "precedence: type deb on Debian: os and osVersion filled" \
        '{"type":"deb","os":"debian","osVersion":"12","name":"a"}' $G --os-release "$OSR/debian" --type deb --name a
expect "precedence: type rpm on Fedora: os and osVersion filled" \
        '{"type":"rpm","os":"fedora","osVersion":"40","name":"a"}' $G --os-release "$OSR/fedora" --type rpm --name a
expect "precedence: --rpm on Fedora: os and osVersion filled" \
        '{"type":"rpm","os":"fedora","osVersion":"40","name":"a","version":"1-2","architecture":"noarch"}' \
        $G --os-release "$OSR/fedora" --rpm a-1-2.noarch
expect "precedence: type apk on Alpine: os and osVersion filled" \
        '{"type":"apk","os":"alpine","osVersion":"3.20.1","name":"a"}' $G --os-release "$OSR/alpine" --type apk --name a
expect "precedence: type deb on a derivative (ID_LIKE): its own ID" \
        '{"type":"deb","os":"linuxmint","osVersion":"21.3","name":"a"}' $G --os-release "$OSR/mint" --type deb --name a
expect "precedence: explicit --os-version kept, os filled" '{"type":"deb","os":"debian","osVersion":"13"}' \
        $G --os-release "$OSR/debian" --type deb --os-version 13
# Rows: another distribution's type: nothing filled.
expect "precedence: type rpm on Debian: no os" '{"type":"rpm","name":"a"}' $G --os-release "$OSR/debian" --type rpm --name a
expect "precedence: type deb on Fedora: no os" '{"type":"deb","name":"a"}' $G --os-release "$OSR/fedora" --type deb --name a
expect "precedence: type deb on Alpine: no os" '{"type":"deb","name":"a"}' $G --os-release "$OSR/alpine" --type deb --name a
expect "precedence: --rpm on Debian: no os" '{"type":"rpm","name":"a","version":"1-2","architecture":"noarch"}' \
        $G --os-release "$OSR/debian" --rpm a-1-2.noarch
# Rows: generic (and no type at all): nothing filled, os-release unread.
expect "precedence: type generic on Debian: no os" '{"type":"generic","name":"a"}' \
        $G --os-release "$OSR/debian" --type generic --name a
expect "precedence: no type: no os" '{"name":"a"}' $G --os-release "$OSR/debian" --name a
expect "precedence: type generic reads no os-release" '{"type":"generic"}' $G --root "$T/empty" --type generic
# Rows: --os given: kept, and no osVersion from os-release, even its own.
expect "precedence: --os fedora on Debian: kept, no osVersion" '{"type":"rpm","os":"fedora","name":"a","version":"1"}' \
        $G --os-release "$OSR/debian" --type rpm --os fedora --name a --version 1
expect "precedence: --os equal to ID: kept, no osVersion" '{"type":"deb","os":"debian","name":"a"}' \
        $G --os-release "$OSR/debian" --type deb --os debian --name a
# Rows: osCpe.
expect "precedence: osCpe only on request" '{"type":"rpm","os":"fedora","osVersion":"40"}' \
        $G --os-release "$OSR/fedora" --type rpm
expect "precedence: --os-cpe auto for the type of os-release" \
        '{"type":"rpm","os":"fedora","osVersion":"40","osCpe":"cpe:/o:fedoraproject:fedora:40"}' \
        $G --os-release "$OSR/fedora" --type rpm --os-cpe auto
expect "precedence: --os-cpe auto with the os of os-release" \
        '{"os":"fedora","osCpe":"cpe:/o:fedoraproject:fedora:40"}' $G --os-release "$OSR/fedora" --os fedora --os-cpe auto
expect_fail "precedence: --os-cpe auto refuses another OS's CPE" \
        "^pkgnote: generate: --os-cpe auto: .*/fedora is for ID 'fedora', not for os 'debian'" \
        $G --os-release "$OSR/fedora" --os debian --os-cpe auto
expect_fail "precedence: --os-cpe auto refuses another type's CPE" \
        "^pkgnote: generate: --os-cpe auto: .*/debian is for ID 'debian', whose packages are deb, and the note states no os and type rpm" \
        $G --os-release "$OSR/debian" --type rpm --os-cpe auto
expect_fail "precedence: --os-cpe auto checks a document's os too" "is for ID 'fedora', not for os 'arch'" \
        $G --root "$F" --metadata '{"os":"arch"}' --os-cpe auto
expect "precedence: explicit fields replace document keys in place, others follow" \
        '{"os":"fedora","osVersion":"41","name":"x","type":"rpm","appCpe":"cpe:2.3:a:x:x:1"}' \
        $G --root "$D" --metadata '{"os":"fedora","osVersion":"40","name":"x"}' --os-version 41 --type rpm \
        --app-cpe cpe:2.3:a:x:x:1
expect "precedence: --rpm over a document, key fields over --rpm" \
        '{"name":"over","version":"1.2-3.fc40","os":"fedora","type":"rpm","architecture":"x86_64"}' \
        $G --root "$D" --metadata '{"name":"doc","version":"0","os":"fedora"}' --rpm foo-1.2-3.fc40.x86_64 --name over
# Rows: which os-release.
expect "precedence: --root with an os-release inside decides" '{"type":"rpm","os":"fedora","osVersion":"40"}' \
        $G --root "$F" --type rpm
expect "precedence: --root of another distribution: no os" '{"type":"rpm"}' $G --root "$D" --type rpm
expect "precedence: --os-release FILE decides" '{"type":"apk","os":"alpine","osVersion":"3.20.1"}' \
        $G --os-release "$OSR/alpine" --type apk
ln -s "$OSR/alpine" "$OSR/link"
expect "precedence: --os-release follows the symbolic link named" '{"type":"apk","os":"alpine","osVersion":"3.20.1"}' \
        $G --os-release "$OSR/link" --type apk
expect_fail "precedence: --os-release of a missing file" "^pkgnote: generate: os-release: cannot open '$OSR/none'" \
        $G --os-release "$OSR/none" --type deb
expect_fail "precedence: --os-release of a directory" "^pkgnote: generate: os-release: cannot read '$OSR'" \
        $G --os-release "$OSR" --type deb
expect_fail "precedence: --root and --os-release together" \
        "^pkgnote: generate: --root and --os-release both say which os-release to read" \
        $G --root "$D" --os-release "$OSR/debian" --type deb
expect "precedence: --no-os-release reads none" '{"type":"deb","name":"x"}' $G --root "$D" --no-os-release --type deb --name x
# The cases of the report, on this host's own os-release.
if [ -r /etc/os-release ] || [ -r /usr/lib/os-release ]; then
        expect "precedence: Fedora document on this host stays Fedora's" "$FEDORA" $G --metadata "$FEDORA"
        expect "precedence: generic document on this host gets no os" "$GENERIC" $G --metadata "$GENERIC"
        expect "precedence: Fedora fields on this host get no host osVersion" \
                '{"type":"rpm","os":"fedora","name":"a","version":"1"}' $G --type rpm --os fedora --name a --version 1
else
        skip "precedence: this host's os-release" "no os-release here"
fi
# stamp (one file and --tree) goes through the same rule; readelf, and
# eu-readelf and systemd-analyze where installed, read the note back.
if have cc; then
        printf 'int main(void){return 0;}\n' >"$T/p.c"
        cc -o "$T/p" "$T/p.c" && mkdir -p "$T/tree" && cp "$T/p" "$T/tree/p" && cp "$T/p" "$T/g"
        $PKGNOTE stamp --root "$D" --metadata "$FEDORA" "$T/p" 2>"$T/err"
        got=$(note_of "$T/p")
        if [ "$got" = "$FEDORA" ]; then ok "precedence: stamp takes the document verbatim"; else
                not_ok "precedence: stamp takes the document verbatim" "got $got" "$(cat "$T/err")"; fi
        # The report's case: a generic note stamped on a Debian host.
        $PKGNOTE stamp --os-release "$OSR/debian" --metadata "$GENERIC" "$T/g" 2>"$T/err"
        got=$(note_of "$T/g")
        if [ "$got" = "$GENERIC" ]; then ok "precedence: stamp writes a generic document exactly"; else
                not_ok "precedence: stamp writes a generic document exactly" "got $got" "$(cat "$T/err")"; fi
        if have eu-readelf; then
                got=$(eu-readelf -n "$T/g" 2>/dev/null | sed -n 's/^ *Packaging Metadata: //p')
                if [ "$got" = "$GENERIC" ]; then ok "precedence: eu-readelf reads the document exactly"; else
                        not_ok "precedence: eu-readelf reads the document exactly" "got $got"; fi
        else
                missing "precedence: eu-readelf reads the document exactly" eu-readelf
        fi
        if have systemd-analyze && systemd-analyze inspect-elf --json=short "$T/g" >"$T/sa.json" 2>"$T/err"; then
                # systemd prints the note's keys in their order, then its
                # own buildId: nothing may come between.
                case $(cat "$T/sa.json") in
                *"${GENERIC%\}},\"buildId\":"*) ok "precedence: systemd-analyze sees no added key" ;;
                *) not_ok "precedence: systemd-analyze sees no added key" "got $(cat "$T/sa.json")" ;;
                esac
        else
                skip "precedence: systemd-analyze sees no added key" "systemd-analyze inspect-elf not available"
        fi
        $PKGNOTE stamp --tree --root "$D" --type rpm --os fedora --name a --version 1 "$T/tree" 2>"$T/err"
        got=$(note_of "$T/tree/p")
        want='{"type":"rpm","os":"fedora","name":"a","version":"1"}'
        if [ "$got" = "$want" ]; then ok "precedence: stamp --tree adds no host osVersion"; else
                not_ok "precedence: stamp --tree adds no host osVersion" "got $got" "$(cat "$T/err")"; fi
        $PKGNOTE stamp --tree --os-release "$OSR/alpine" --type apk --name a --version 1 "$T/tree" 2>"$T/err"
        got=$(note_of "$T/tree/p")
        want='{"type":"apk","os":"alpine","osVersion":"3.20.1","name":"a","version":"1"}'
        if [ "$got" = "$want" ]; then ok "precedence: stamp --tree --os-release fills its type's os"; else
                not_ok "precedence: stamp --tree --os-release fills its type's os" "got $got" "$(cat "$T/err")"; fi
        $PKGNOTE stamp --tree --os-release "$OSR/alpine" --type generic --name a --version 1 "$T/tree" 2>"$T/err"
        got=$(note_of "$T/tree/p")
        want='{"type":"generic","name":"a","version":"1"}'
        if [ "$got" = "$want" ]; then ok "precedence: stamp --tree of a generic note adds no os"; else
                not_ok "precedence: stamp --tree of a generic note adds no os" "got $got" "$(cat "$T/err")"; fi
else
        skip "precedence: stamp" "no cc"
fi

# --------------------------------------------------------------- output
J='{"type":"deb","name":"Ωμέγα 漢字 🎉","version":"1:2.0-1","q":"a\"b\\c'"'"'d $HOME #x"}'
expect "json format is the compact JSON" "$J" $N --metadata "$J"
$N --metadata "$J" -o "$T/out.json"
if [ "$(cat "$T/out.json")" = "$J" ] && [ "$(wc -l <"$T/out.json")" -eq 1 ]; then ok "-o writes the JSON and a newline"; else
        not_ok "-o writes the JSON and a newline" "got: $(cat "$T/out.json")"; fi

# -o is atomic: same-directory temporary, umask honoured, nothing left behind.
printf 'old' >"$T/atomic"
(umask 027 && $N --name n -o "$T/atomic")
mode=$(stat -c %a "$T/atomic")
left=$(find "$T" -maxdepth 1 -name '.atomic.*' | wc -l)
if [ "$(cat "$T/atomic")" = '{"name":"n"}' ] && [ "$mode" = 640 ] && [ "$left" -eq 0 ]; then ok "-o replaces atomically"; else
        not_ok "-o replaces atomically" "content $(cat "$T/atomic"), mode $mode (want 640), $left temporaries left"; fi
expect_fail "-o into a missing directory" "cannot open its directory" $N -o "$T/no/such/file"

# The raw note, byte for byte as ld.bfd --package-metadata writes it.
if have gcc && have objcopy; then
        printf 'int main(void) { return 0; }\n' >"$T/m.c"
        for json in "$J" '{}' '{"a":"123"}' '{"a":"1234"}'; do
                $N --metadata "$json" -F note -o "$T/gen.note"
                if gcc -fuse-ld=bfd "$T/m.c" -o "$T/ld.out" -Xlinker "--package-metadata=$json" 2>"$T/err" &&
                        objcopy -O binary --only-section=.note.package "$T/ld.out" "$T/ld.note" &&
                        cmp -s "$T/gen.note" "$T/ld.note"; then
                        ok "note identical to ld.bfd --package-metadata for $json"
                else
                        not_ok "note identical to ld.bfd --package-metadata for $json" "$(cat "$T/err")" \
                                "gen: $(od -An -tx1 "$T/gen.note" | head -3)" "ld:  $(od -An -tx1 "$T/ld.note" 2>/dev/null | head -3)"
                fi
        done
else
        missing "note identical to ld.bfd" "gcc, objcopy"
fi
# Big-endian: the cross linker's own note for s390x.
if have s390x-linux-gnu-gcc && have s390x-linux-gnu-objcopy; then
        $N --metadata "$J" -F note -t s390x-linux-gnu -o "$T/gen-be.note"
        if s390x-linux-gnu-gcc "$T/m.c" -o "$T/ld-be.out" -Xlinker "--package-metadata=$J" 2>"$T/err" &&
                s390x-linux-gnu-objcopy -O binary --only-section=.note.package "$T/ld-be.out" "$T/ld-be.note" &&
                cmp -s "$T/gen-be.note" "$T/ld-be.note"; then
                ok "big-endian note identical to s390x ld.bfd"
        else
                not_ok "big-endian note identical to s390x ld.bfd" "$(cat "$T/err")"
        fi
else
        missing "big-endian note identical to s390x ld.bfd" s390x-linux-gnu-gcc
fi
$N -F note -t ELF64BE --name n -o "$T/be.note"
if [ "$(od -An -tx1 -N12 "$T/be.note" | tr -d ' \n')" = "0000000400000010cafe1a7e" ]; then ok "note header in --target byte order"; else
        not_ok "note header in --target byte order" "$(od -An -tx1 -N12 "$T/be.note")"; fi

# Binary formats are not written to a terminal.
if have script; then
        script -qec "$N -F note" /dev/null >"$T/tty" 2>&1
        if grep -q "refusing to write binary output to a terminal" "$T/tty"; then ok "binary output refused on a terminal"; else
                not_ok "binary output refused on a terminal" "$(cat "$T/tty")"; fi
else
        missing "binary output refused on a terminal" "script (bsdutils)"
fi

# Objects for every target parse back, with the right header.
for t in x86_64:X86-64:ELF64:little i686:80386:ELF32:little aarch64:AArch64:ELF64:little \
        s390x-linux-gnu:S/390:ELF64:big ppc64le:PowerPC64:ELF64:little riscv64:RISC-V:ELF64:little \
        arm-linux-gnueabihf:ARM:ELF32:little; do
        tgt=${t%%:*} rest=${t#*:}
        mach=${rest%%:*} rest=${rest#*:}
        cls=${rest%%:*} order=${rest#*:}
        $N --metadata "$J" -F object -t "$tgt" -o "$T/o-$tgt.o"
        h=$(readelf -hW "$T/o-$tgt.o" 2>&1)
        n=$(note_of "$T/o-$tgt.o")
        s=$($PKGNOTE show --json "$T/o-$tgt.o" 2>&1)
        if printf "%s\n" "$h" | grep -q "Class: *$cls" && printf "%s\n" "$h" | grep -q "$order endian" &&
                printf "%s\n" "$h" | grep -q "Machine: .*$mach" && printf "%s\n" "$h" | grep -q "REL (Relocatable" &&
                [ "$n" = "$J" ] && printf "%s\n" "$s" | grep -qF "\"packages\":[$J]"; then
                ok "object for $tgt"
        else
                not_ok "object for $tgt" "$h" "readelf -n: $n" "show: $s"
        fi
done
expect_fail "object needs a machine" "^pkgnote: generate: object: target ELF64BE names no machine" \
        $N -F object -t ELF64BE -o "$T/x.o"

# Assembler source assembles for each architecture we have a compiler for.
$N --metadata "$J" -F asm -o "$T/note.s"
for cc in gcc clang aarch64-linux-gnu-gcc s390x-linux-gnu-gcc i686-linux-gnu-gcc; do
        if ! have $cc; then missing "asm with $cc" $cc; continue; fi
        if $cc -c "$T/note.s" -o "$T/asm-$cc.o" 2>"$T/err"; then
                n=$(note_of "$T/asm-$cc.o")
                stack=$(readelf -SW "$T/asm-$cc.o" | grep -c 'note.GNU-stack')
                if [ "$n" = "$J" ] && [ "$stack" -eq 1 ]; then ok "asm with $cc"; else
                        not_ok "asm with $cc" "readelf -n: $n" "GNU-stack sections: $stack"; fi
        else
                not_ok "asm with $cc" "$(cat "$T/err")"
        fi
done

# Linker script: refused for linkers that cannot take one.
expect_fail "linker-script refused for gold" "^pkgnote: generate: gold has no INSERT" $N -F linker-script --linker gold
expect_fail "linker-script refused for mold" "^pkgnote: generate: mold does not read SECTIONS" $N -F linker-script --linker mold
$N --metadata "$J" -F linker-script -o "$T/note.ld"
if grep -q 'INSERT AFTER .note.gnu.build-id;' "$T/note.ld" && grep -q 'TYPE = SHT_NOTE' "$T/note.ld"; then
        ok "linker-script content"
else
        not_ok "linker-script content" "$(cat "$T/note.ld")"
fi

# ------------------------------------------------------------- ldflags
if have ld.bfd && have gcc; then
        flags=$($N --metadata "$J" -F ldflags --ld ld.bfd)
        # The words must survive the shell: eval them as a build would.
        if eval "gcc \"\$T/m.c\" -o \"\$T/fl.out\" $flags" 2>"$T/err" &&
                [ "$(note_of "$T/fl.out")" = "$J" ]; then
                ok "ldflags (shell) for ld.bfd"
        else
                not_ok "ldflags (shell) for ld.bfd" "flags: $flags" "$(cat "$T/err")"
        fi
        case $flags in
        "-Xlinker '--package-metadata="*) ok "ldflags uses -Xlinker, not -Wl," ;;
        *) not_ok "ldflags uses -Xlinker, not -Wl," "$flags" ;;
        esac
        if have make; then
                mflags=$($N --metadata "$J" -F ldflags --ld ld.bfd --ldflags-style make)
                printf 'LDFLAGS = %s\nall:\n\tgcc m.c -o mk.out $(LDFLAGS)\n' "$mflags" >"$T/Makefile"
                if make -s -C "$T" >"$T/err" 2>&1 &&
                        [ "$(note_of "$T/mk.out")" = "$J" ]; then
                        ok "ldflags (make) through a Makefile"
                else
                        not_ok "ldflags (make) through a Makefile" "flags: $mflags" "$(cat "$T/err")"
                fi
        else
                missing "ldflags (make) through a Makefile" make
        fi
        expect_fail "ldflags --linker mismatch" "^pkgnote: generate: --ld: 'ld.bfd' is bfd, not lld" \
                $N -F ldflags --linker lld --ld ld.bfd
        LD=ld.bfd expect "ldflags honours \$LD" "-Xlinker '--package-metadata={\"name\":\"n\"}'" $N --name n -F ldflags
else
        missing "ldflags for ld.bfd" "ld.bfd, gcc"
fi
expect_fail "ldflags with a linker that cannot run" "^pkgnote: generate: cannot run 'no-such-ld-here --version'" \
        $N -F ldflags --ld no-such-ld-here

# A fake old ld.bfd and lld: the fallback files.
mkdir -p "$T/bin"
printf '#!/bin/sh\necho "GNU ld (GNU Binutils) 2.38"\n' >"$T/bin/old-bfd"
printf '#!/bin/sh\necho "GNU ld (GNU Binutils) 2.35.2"\n' >"$T/bin/older-bfd"
chmod +x "$T/bin/old-bfd" "$T/bin/older-bfd"
expect_fail "old linker without -o" "^pkgnote: generate: bfd 2.38 has no --package-metadata; give -o FILE to write a linker script" \
        $N -F ldflags --ld "$T/bin/old-bfd"
flags=$(cd "$T" && $N --metadata "$J" -F ldflags --ld "$T/bin/old-bfd" -o fallback.ld)
if [ "$flags" = "-Wl,-dT,$(cd "$T" && pwd -P)/fallback.ld" ] && grep -q 'SHT_NOTE' "$T/fallback.ld"; then
        ok "ld.bfd 2.38 falls back to -Wl,-dT and a script"
        if have gcc && eval "gcc -fuse-ld=bfd \"\$T/m.c\" -o \"\$T/fb.out\" $flags" 2>"$T/err" &&
                [ "$(note_of "$T/fb.out")" = "$J" ]; then
                ok "fallback script links"
        else
                not_ok "fallback script links" "$(cat "$T/err")"
        fi
else
        not_ok "ld.bfd 2.38 falls back to -Wl,-dT and a script" "flags: $flags"
fi
flags=$($N --metadata "$J" -F ldflags --ld "$T/bin/older-bfd" -o "$T/fallback.o")
if [ "$flags" = "$(cd "$T" && pwd -P)/fallback.o" ] && readelf -hW "$T/fallback.o" | grep -q 'REL (Relocatable'; then
        ok "ld.bfd 2.35 falls back to an object file"
else
        not_ok "ld.bfd 2.35 falls back to an object file" "flags: $flags"
fi
# Linkers that percent-decode --package-metadata (faked: none is
# installed here): the encoded form, which no shell, make or -Wl, changes.
PJ='{"name":"a,b c","v":"100%","w":"%41"}'
PE='-Wl,--package-metadata=%7B%22name%22:%22a%2Cb%20c%22%2C%22v%22:%22100%25%22%2C%22w%22:%22%2541%22%7D'
for v in "GNU ld (GNU Binutils) 2.44" "Ubuntu LLD 21.1.0 (compatible with GNU linkers)" "mold 2.36.0 (compatible with GNU ld)"; do
        printf '#!/bin/sh\necho "%s"\n' "$v" >"$T/bin/new-ld"
        chmod +x "$T/bin/new-ld"
        flags=$($N --metadata "$PJ" -F ldflags --ld "$T/bin/new-ld")
        eval "set -- $flags"
        if [ "$flags" = "$PE" ] && [ "$#" -eq 1 ] && [ "$1" = "$PE" ]; then ok "ldflags percent-encoded for $v"; else
                not_ok "ldflags percent-encoded for $v" "got $flags" "want $PE"; fi
done
printf 'L = %s\nall:\n\t@printf "%%s\\n" $(L)\n' "$($N --metadata "$PJ" -F ldflags --ld "$T/bin/new-ld" --ldflags-style make)" >"$T/Makefile.enc"
got=$(make -s -f "$T/Makefile.enc" 2>&1)
if [ "$got" = "$PE" ]; then ok "percent-encoded ldflags survive make"; else not_ok "percent-encoded ldflags survive make" "$got"; fi
printf '#!/bin/sh\necho "GNU gold (GNU Binutils 2.44) 1.16"\n' >"$T/bin/new-ld"
expect "gold never decodes: quoted JSON" "-Xlinker '--package-metadata={\"v\":\"100%\"}'" \
        $N --metadata '{"v":"100%"}' -F ldflags --ld "$T/bin/new-ld"
if have ld.lld && ld.lld --version | grep -q 'LLD 1[0-4]\.'; then
        flags=$($N --metadata "$J" -F ldflags --linker lld --ld ld.lld -o "$T/lld-old.o")
        if have clang && eval "clang -fuse-ld=lld \"\$T/m.c\" -o \"\$T/lldold.out\" $flags" 2>"$T/err" &&
                [ "$(note_of "$T/lldold.out")" = "$J" ]; then
                ok "old ld.lld ($(ld.lld --version | head -1 | sed 's/ (.*//')) links the fallback object"
        else
                not_ok "old ld.lld links the fallback object" "flags: $flags" "$(cat "$T/err" 2>/dev/null)"
        fi
else
        missing "old ld.lld links the fallback object" "ld.lld older than 15 (lld)"
fi

echo "# $passed passed, $failed failed"
[ "$failed" -eq 0 ]
