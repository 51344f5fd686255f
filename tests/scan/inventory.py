#!/usr/bin/env python3
"""Reduces `pkgnote scan --format json` (stdin) to one line per object:
PATH KIND NAME@VERSION... (or "-" without a note), with PREFIX (argv[1])
stripped from paths; then the summary's counters given as further
arguments, as KEY=VALUE."""
import json
import sys

prefix = sys.argv[1] if len(sys.argv) > 1 else ""
keys = sys.argv[2:]
for line in sys.stdin:
    d = json.loads(line)
    if "summary" in d:
        for k in keys:
            print(f"{k}={d['summary'][k]}")
        continue
    p = d["path"]
    if prefix and p.startswith(prefix):
        p = p[len(prefix):]
    notes = " ".join(f"{n.get('name')}@{n.get('version')}" for n in d["packages"]) or "-"
    extra = " dlopen" if d["dlopen"] else ""
    print(f"{p} {d['elfType'].replace(' ', '-')} {notes}{extra}")
