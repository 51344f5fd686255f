#!/usr/bin/env python3
"""Totals over meson test logs, counted per check.

Each test prints `ok - NAME` / `not ok - NAME` lines (`# SKIP` marks a
skipped check).  A test that failed without printing any `not ok` line
(a crash, a timeout) counts as one failure; one that printed no check
lines counts as one pass or failure by its result.
"""
import json
import sys

passed = failed = skipped = 0
for path in sys.argv[1:]:
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        print(f"missing test log {path}: {e}")
        failed += 1
        continue
    for line in lines:
        t = json.loads(line)
        out = (t.get("stdout") or "").splitlines()
        ok = sum(1 for l in out if l.startswith("ok ") and "# SKIP" not in l)
        skip = sum(1 for l in out if l.startswith("ok ") and "# SKIP" in l)
        bad = sum(1 for l in out if l.startswith("not ok"))
        result = t.get("result")
        if result not in ("OK", "SKIP", "EXPECTEDFAIL") and bad == 0:
            bad = 1
            print(f"{path}: {t.get('name')}: {result}")
        if result == "SKIP" and ok + bad == 0:
            skip += 1
        elif ok + bad + skip == 0 and result == "OK":
            ok = 1
        passed += ok
        failed += bad
        skipped += skip
print(f"{passed} passed, {failed} failed, {skipped} skipped")
sys.exit(1 if failed else 0)
