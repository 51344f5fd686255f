# Sourced by the image tests (cmd-scan-image, cmd-scan-storage), with
# tests/lib.sh, PKGNOTE and H (tests/scan) set.

# make_programs: alpha and beta, two programs with the package notes of a
# deb and an rpm package, linked here (and main.c, their source).
make_programs() {
        cat > main.c <<'C'
int main(void) { return 0; }
C
        A='{"type":"deb","os":"debian","osVersion":"12","name":"alpha","version":"1.0-1","architecture":"amd64"}'
        B='{"type":"rpm","os":"fedora","osVersion":"40","name":"beta","version":"2.0-1.fc40","architecture":"x86_64"}'
        cc -o alpha -fuse-ld=bfd -Xlinker "--package-metadata=$A" main.c || fatal "cannot link alpha"
        cc -o beta -fuse-ld=bfd -Xlinker "--package-metadata=$B" main.c || fatal "cannot link beta"
}

# scan REF [OPTIONS...]: JSON report in out, inventory in inv.
scan() {
        ref=$1
        shift
        "$PKGNOTE" scan --format json "$@" "$ref" > out 2> err
        STATUS=$?
        python3 "$H/inventory.py" "" < out > inv
}
expect_image() { # WANT NAME
        printf '%s\n' "$1" > want
        if [ "$STATUS" = 0 ] && diff -u want inv > diff.txt; then pass "$2"; else
                fail "$2" "exit status $STATUS: $(head -c 300 err)"; sed 's/^/# /' diff.txt 2>/dev/null; fi
}
expect_error() { # MESSAGE NAME
        if [ "$STATUS" = 2 ] && grep -qF -- "$1" err && ! grep -q '"path"' out; then pass "$2"; else
                fail "$2" "exit status $STATUS: $(head -c 300 err)"; fi
}

# validate_sboms WHAT FILE:KIND...: each SBOM against the official schema
# of its KIND (spdx, spdx3, cyclonedx), when ajv is there (a schema that is
# not, SPDX 2.3's without shared/ beside the checkout, is a skip).
validate_sboms() {
        what=$1
        shift
        schemas="$SRCDIR/../shared/schemas"
        ajv="${BUILDDIR:-$HOME}/npm-ajv"
        if ! [ -d "$ajv/node_modules/ajv-formats" ] || ! command -v node > /dev/null; then
                skip "SBOMs ($what) validate against the schemas" "ajv is not there (cmd-scan installs ajv)"
                return
        fi
        for f in "$@"; do
                validate_sbom "${f%%:*} ($what) validates against the ${f#*:} schema" "$ajv" "$schemas" "${f#*:}" "${f%%:*}"
        done
}

# spdx3_same WHAT SPDX23 SPDX3: the SPDX 3.0.1 document says what the 2.3
# document of the same input and time says (spdx3-compare.py) and conforms
# to the SPDX 3.0.1 model (the second reader, spdx3-shacl.js).
spdx3_same() {
        python3 "$SRCDIR/tests/scan/spdx3-compare.py" "$2" "$3" > cmp3.txt 2>&1 && pass "SPDX 3 ($1): the 2.3 document's facts ($(cat cmp3.txt))" ||
                fail "SPDX 3 ($1): the 2.3 document's facts" "$(head -c 600 cmp3.txt)"
        if spdx3_reader "${BUILDDIR:-$HOME}"; then
                spdx3_shacl "SPDX 3 ($1) conforms to the SPDX 3.0.1 model" "$3"
        else
                spdx3_unavailable "SPDX 3 ($1) conforms to the SPDX 3.0.1 model"
        fi
}
