# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the deps --verify tests (after tests/lib.sh; PK names the
# binary): running the check, its findings and the sid oracles' as lines
# to compare.

# verify ARGS...: pkgnote deps --verify under a time limit, output in out,
# stderr in err, status in STATUS.
verify() {
        timeout 120 "$PK" deps --verify "$@" > out 2> err
        STATUS=$?
}
# findings: the findings of the JSON in out, one a line:
# OBJECT<TAB>KIND<TAB>NAMES (joined by ",")<TAB>PRIORITY, sorted.
findings() {
        python3 -c '
import json, sys
for a in json.load(open("out")):
    for f in a["findings"]:
        print("\t".join([f["object"], f["kind"], ",".join(f["names"]), f["priority"]]))
' | LC_ALL=C sort
}
# oracle FILE: what the oracle says is missing, in the same lines, for
# priorities required and recommended (the default of --verify).
oracle() {
        python3 -c '
import sys
for line in open(sys.argv[1]):
    w = line.split()
    if not w:
        continue
    if w[0] == "missing-needed":
        for p in w[2:]:
            print("\t".join(["/" + p, "needed", w[1], "required"]))
    elif w[0] == "missing-dlopen" and w[1] in ("required", "recommended"):
        # missing-dlopen PRIORITY SONAMES in-root=... FEATURE PATH...
        for p in w[5:]:
            print("\t".join(["/" + p, "dlopen", w[2], w[1]]))
' "$1" | LC_ALL=C sort
}
