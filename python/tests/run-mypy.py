#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs mypy --strict over the binding's package, tests and example.

Whether mypy is there is asked when the test runs, not when the build is
configured: make demo configures before make check installs mypy, and a
check found missing at configure time would drop out of the suite without
a word.  Missing, it is a skip (exit 77), or under PKGNOTE_STRICT=1 (make
check) a failure.

    run-mypy.py PATH...
"""
import importlib.util
import os
import subprocess
import sys

if importlib.util.find_spec("mypy") is None:
    if os.environ.get("PKGNOTE_STRICT") == "1":
        print("not ok - required tool missing: mypy (make deps-test installs it)")
        sys.exit(1)
    print("1..0 # SKIP mypy is not installed")
    sys.exit(77)
sys.exit(subprocess.call([sys.executable, "-m", "mypy", "--strict", "--warn-unreachable", "--no-incremental",
                          "--cache-dir=/dev/null", *sys.argv[1:]]))
