# Sourced by the image tests (cmd-scan-image, cmd-scan-storage), with
# tests/lib.sh, PKGNOTE and H (tests/scan) set.

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
