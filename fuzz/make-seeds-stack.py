#!/usr/bin/python3
"""Seeds for fuzz-stack: record streams as lib/08-core-stack.c's child writes them
(struct record, host byte order, then its strings), whole and cut short."""
import os
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "stack")
os.makedirs(out, exist_ok=True)
THREAD, FRAME, ERROR, DEBUGINFO = 1, 2, 3, 4


def rec(kind, value=0, pc=0, off=0, line=0, col=0, inlined=0, strings=()):
    s = [x.encode() for x in strings] + [b""] * (5 - len(strings))
    head = struct.pack("=IiQQIII5I", kind, value, pc, off, line, col, inlined, *[len(x) for x in s])
    return head + b"".join(s)


full = (rec(THREAD, 4242)
        + rec(FRAME, pc=0x55d1c0a3b13d, off=0x113d, line=8, col=12, inlined=1, strings=("prog", "store", "/src/c.c"))
        + rec(FRAME, pc=0x55d1c0a3b13d, off=0x113d, line=12, col=9, strings=("prog", "crash", "/src/c.c"))
        + rec(FRAME, pc=0x7f0000001000, off=0x2724a, strings=("libc.so.6",))
        + rec(THREAD, 4243)
        + rec(FRAME, pc=0x1000, off=0x10, strings=("", "\x1b[31mred", "\xff\xfe"))
        + rec(DEBUGINFO, 2, strings=("/usr/bin/prog", "ab" * 20, "http://127.0.0.1:8002 https://x/", "/c/ab/debuginfo"))
        + rec(DEBUGINFO, 5, strings=("/lib/libc.so.6", "cd" * 20, "http://h/", "", "timed out after 5000 ms")))
seeds = {
    "full": full,
    "error": rec(ERROR, strings=("cannot attach to process 1: Operation not permitted",)),
    "cut-head": full[:30],
    "cut-string": full[:56 + 10],
    "bad-status": rec(THREAD, 1) + rec(DEBUGINFO, 99, strings=("m",)),
    "frame-first": rec(FRAME, pc=1, strings=("m", "f")) + rec(THREAD, 1),
    "huge-length": struct.pack("=IiQQIII5I", FRAME, 0, 0, 0, 0, 0, 0, 0xFFFFFFFF, 1, 1, 1, 1),
    "many-frames": rec(THREAD, 7) + rec(FRAME, pc=2, strings=("m", "f", "x.c")) * 80,
}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
