#!/bin/sh
# The shape of include/pkgnote.h: it is ordered by object, in sections
# each opened by one banner
#
#   /* ===...
#    * TITLE
#    * Names: pkgnote_object_*, pkgnote_machine_name, ...
#    * ...
#    * ===... */
#
# whose Names: line lists the function names it owns (NAME* a prefix,
# else one name).  Every function the header declares is in the section
# that owns its name (the longest pattern matching it wins), and every
# section declares at least one function.  Handles are made one way:
# "typedef struct pkgnote_X pkgnote_X;" in the lines that follow a banner,
# nowhere else; no typedef names an enum.  A copy of the header with one
# declaration moved shows that the check can fail.
. "$SRCDIR/tests/lib.sh"
H="$SRCDIR/include/pkgnote.h"
[ -r "$H" ] || fatal "no $H"

# check_header FILE: one line per fault, none when FILE keeps the rules.
check_header() {
        awk '
        function owner(name,    i, j, p, best, bestlen, n) {
                best = 0; bestlen = -1
                for (i = 1; i <= nsec; i++)
                        for (j = 1; j <= npat[i]; j++) {
                                p = pat[i, j]
                                if (p ~ /\*$/) {
                                        n = length(p) - 1
                                        if (substr(name, 1, n) != substr(p, 1, n)) continue
                                } else {
                                        if (name != p) continue
                                        n = length(p) + 1 # an exact name beats any prefix
                                }
                                if (n > bestlen) { bestlen = n; best = i }
                        }
                return best
        }
        # Pass 1: the sections and the patterns they own.
        FNR == NR {
                if ($0 ~ /^\/\* =+$/) { inbanner = 1; nsec++; title[nsec] = ""; next }
                if (inbanner && title[nsec] == "") { t = $0; sub(/^ \* /, "", t); title[nsec] = t; next }
                if (inbanner && $0 ~ /^ \* Names: /) {
                        s = $0; sub(/^ \* Names: /, "", s); gsub(/ /, "", s)
                        npat[nsec] = split(s, parts, ",")
                        for (k = 1; k <= npat[nsec]; k++) pat[nsec, k] = parts[k]
                }
                if (inbanner && $0 ~ /=+ \*\/$/) inbanner = 0
                next
        }
        # Pass 2: every declaration against its section.
        FNR == 1 { sec = 0; afterbanner = 0 }
        /^\/\* =+$/ { sec++; inbanner = 1; next }
        inbanner { if ($0 ~ /=+ \*\/$/) { inbanner = 0; afterbanner = 1 }; next }
        afterbanner && /^$/ { next }
        /^typedef struct pkgnote_[a-z0-9_]+ pkgnote_[a-z0-9_]+;$/ {
                split($0, w, /[ ;]/)
                if (w[3] != w[4]) printf "line %d: handle %s aliased as %s\n", FNR, w[3], w[4]
                else if (!afterbanner) printf "line %d: handle %s not declared at the start of its section\n", FNR, w[3]
                next
        }
        { afterbanner = 0 }
        /^typedef enum/ { printf "line %d: a typedef names an enum: %s\n", FNR, $0 }
        /^#define pkgnote_/ { printf "line %d: a macro aliases a name: %s\n", FNR, $0 }
        /^PKGNOTE_PUBLIC [^;]*\(/ {
                s = $0; sub(/\(.*/, "", s); n = split(s, w, /[ *]+/); name = w[n]
                nfun++
                if (sec == 0) { printf "line %d: %s precedes every section\n", FNR, name; next }
                count[sec]++
                o = owner(name)
                if (o == 0) printf "line %d: %s: no section owns this name\n", FNR, name
                else if (o != sec) printf "line %d: %s is in section \"%s\", but \"%s\" owns it\n", FNR, name, title[sec], title[o]
        }
        END {
                if (nsec == 0) print "no section banner"
                if (nfun == 0) print "no function declared"
                for (i = 1; i <= nsec; i++) {
                        if (npat[i] == 0) printf "section \"%s\" has no Names: line\n", title[i]
                        if (count[i] == 0) printf "section \"%s\" declares no function\n", title[i]
                }
        }' "$1" "$1"
}

check_header "$H" > faults.txt
[ ! -s faults.txt ] && pass "every function of the header is in the section that owns its name" ||
        fail "every function of the header is in the section that owns its name" "$(sed 's/^/# /' faults.txt)"

n=$(grep -c '^/\* =*$' "$H")
[ "$n" -ge 10 ] && pass "the header has its sections ($n banners)" || fail "the header has its sections" "$n banners"

grep -n 'Since 0\.\|LIBPKGNOTE_0\|(0\.[0-9])\|from version 0' "$H" > old.txt
[ ! -s old.txt ] && pass "no remark of a 0.x version is left" || fail "no remark of a 0.x version is left" "$(cat old.txt)"
grep -n 'Since' "$H" | grep -v 'Since 1\.[0-9][0-9]*\.\|"Since 1\.N\."' > since.txt
[ ! -s since.txt ] && pass "'Since' is written one way (\"Since 1.N.\")" ||
        fail "'Since' is written one way (\"Since 1.N.\")" "$(cat since.txt)"

# Controls: the check finds a declaration moved into another section, and
# a handle declared away from the start of its section.
decl=$(grep -n '^PKGNOTE_PUBLIC int pkgnote_scan_new(' "$H" | cut -d: -f1)
first=$(grep -n '^PKGNOTE_PUBLIC const char \*pkgnote_last_error(' "$H" | cut -d: -f1)
[ -n "$decl" ] && [ -n "$first" ] || fatal "control: declarations not found"
awk -v d="$decl" -v f="$first" 'NR == d { next } { print } NR == f { print held }' held="$(sed -n "${decl}p" "$H")" "$H" > moved.h
check_header moved.h > moved.txt
grep -q 'pkgnote_scan_new is in section "Errors, problems and limits", but "Scan" owns it' moved.txt &&
        pass "control: a declaration moved to another section is found" ||
        fail "control: a declaration moved to another section is found" "$(sed 's/^/# /' moved.txt)"
sed 's/^typedef struct pkgnote_scan_image pkgnote_scan_image;$//' "$H" | awk '{ print } /^PKGNOTE_PUBLIC int pkgnote_scan_add\(/ { print "typedef struct pkgnote_scan_image pkgnote_scan_image;" }' > handle.h
check_header handle.h > handle.txt
grep -q 'handle pkgnote_scan_image not declared at the start of its section' handle.txt &&
        pass "control: a handle declared inside a section is found" ||
        fail "control: a handle declared inside a section is found" "$(sed 's/^/# /' handle.txt)"
finish
