#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The binaries' dlopen notes, read from the loader tables in the sources.

Each optional library is declared once, in C, beside the code that loads
it (lib/01-base-loader.h):

    PN_LIB_NOTE(COND, "feature", "priority", "description", "soname", ...)

COND is a macro of config.h (the note is made when it is 1) or ALWAYS.
This script reads those declarations and runs COMMAND with one
`--dlopen JSON` per note (an array of its one entry) appended, in the order of NOTE_FILES and of the
declarations in each: the notes list exactly the libraries the code loads.

    01-base-loader-notes.py CONFIG_H NOTE_FILE... [--others FILE...] [-- COMMAND...]

Without COMMAND the notes are printed, one JSON document a line.  A
declaration in one of the --others files (every other source of the
library) is an error: its note would be left out.
"""
import json
import re
import subprocess
import sys

TOKEN = re.compile(r'\s*(?:(?P<str>"(?:[^"\\\n]|\\.)*")|(?P<id>[A-Za-z_]\w*)|(?P<punct>[,()]))', re.S)
ESCAPES = {'\\': '\\', '"': '"', "'": "'", 'n': '\n', 't': '\t'}


def fail(msg):
    sys.exit("01-base-loader-notes.py: " + msg)


def unquote(lit, where):
    out, i, body = [], 0, lit[1:-1]
    while i < len(body):
        c = body[i]
        if c == '\\':
            e = body[i + 1]
            if e not in ESCAPES:
                fail("%s: escape \\%s is not supported in a note" % (where, e))
            out.append(ESCAPES[e])
            i += 2
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def strip_comments(text):
    # Comments become blanks of the same lines, so positions keep their line.
    def blank(m):
        return re.sub(r'[^\n]', ' ', m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:[^"\\\n]|\\.)*"', lambda m: m.group(0) if m.group(0)[0] == '"' else blank(m), text, flags=re.S)


def declarations(path):
    text = strip_comments(open(path, encoding='utf-8').read())
    for m in re.finditer(r'\bPN_LIB_NOTE\s*\(', text):
        line = text.count('\n', 0, m.start()) + 1
        start = text.rfind('\n', 0, m.start()) + 1
        if text[start:m.start()].lstrip().startswith('#'):
            continue  # a macro's definition, not a declaration
        where = "%s:%d" % (path, line)
        args, cur, pos = [], [], m.end()
        while True:
            t = TOKEN.match(text, pos)
            if not t:
                fail("%s: PN_LIB_NOTE takes a condition and string literals only" % where)
            pos = t.end()
            if t.group('str'):
                cur.append(('str', unquote(t.group('str'), where)))
            elif t.group('id'):
                cur.append(('id', t.group('id')))
            elif t.group('punct') in ',)':
                if not cur:
                    fail("%s: an empty argument" % where)
                kinds = {k for k, _ in cur}
                if kinds == {'str'}:
                    args.append(('str', ''.join(v for _, v in cur)))  # adjacent literals
                elif len(cur) == 1:
                    args.append(cur[0])
                else:
                    fail("%s: an argument is neither one name nor string literals" % where)
                cur = []
                if t.group('punct') == ')':
                    break
            else:
                fail("%s: unexpected '('" % where)
        if len(args) < 5 or args[0][0] != 'id' or any(k != 'str' for k, _ in args[1:]):
            fail("%s: PN_LIB_NOTE(COND, feature, priority, description, soname...)" % where)
        cond, feature, priority, description = (v for _, v in args[:4])
        yield where, cond, {"feature": feature, "description": description, "priority": priority,
                            "soname": [v for _, v in args[4:]]}


def config(path):
    defs = {}
    for line in open(path, encoding='utf-8'):
        m = re.match(r'\s*#\s*define\s+(\w+)\s+(\S+)', line)
        if m:
            defs[m.group(1)] = m.group(2)
    return defs


def main(argv):
    command = []
    if '--' in argv:
        i = argv.index('--')
        argv, command = argv[:i], argv[i + 1:]
    others = []
    if '--others' in argv:
        i = argv.index('--others')
        argv, others = argv[:i], argv[i + 1:]
    if len(argv) < 2:
        fail("usage: 01-base-loader-notes.py CONFIG_H NOTE_FILE... [--others FILE...] [-- COMMAND...]")
    defs = config(argv[0])
    notes = []
    for path in argv[1:]:
        for where, cond, note in declarations(path):
            if cond != 'ALWAYS' and cond not in defs:
                fail("%s: condition %s is not defined in %s" % (where, cond, argv[0]))
            if cond == 'ALWAYS' or defs[cond] == '1':
                notes.append(json.dumps([note], ensure_ascii=False, separators=(',', ':')))
    listed = set(argv[1:])
    for path in others:
        if path not in listed:
            for where, _, _ in declarations(path):
                fail("%s: a loader table in a file missing from the build's loader_sources" % where)
    if not command:
        for n in notes:
            print(n)
        return 0
    for n in notes:
        command += ['--dlopen', n]
    return subprocess.call(command)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
