# SPDX-License-Identifier: LGPL-2.1-or-later
# go-grammar.py DIR: module texts into DIR/NNNN for go-matrix.sh, which
# has Go's runtime/debug.ParseBuildInfo() and pkgnote's parser read each
# and compares what BuildInfo.String() would write back: chosen cases
# (where the two once differed, and the grammar's corners) and random
# ones made of the grammar's pieces (fixed seed, so a run can be
# repeated).  No NUL byte: pkgnote refuses one in a kept line on purpose.
import os
import random
import sys

CHOSEN = [
    "build\tfoo bar=1\n", "build\tk=a b\n", "build\tk=`a\rb`\n", 'build\tk="a\xffb"\n', 'build\tk=a"b\n',
    'build\t""=x\n', "build\tk=\n", "build\tk=a\tb\n", "build\tk=a`b\n", "build\tk\"=v\n", "build\tk=v\r\n",
    "dep\ta\tv1\r\n", "path\tfoo\tbar\n", "foo\tbar\n", "build\t`k`=v\n", 'build\tk="\\u00e9"\n',
    'build\tk="a\\x80b"\n', "mod\ta\n", "dep\ta\tv\n=>\tb\tv\n", "dep\ta\tv\n=>\tb\tv\ts\n=>\tc\tv\ts\n",
    "build\tk=\"a\"\n", "build\tk\n", "build\t\n", "build\t=\n", 'build\tk="a\\U0001F600"\n', 'build\tk="\\377"\n',
    "build\tk=`a\"b`\n", "build\tk=\xff\n", "build\tk\xff=v\n", "go\tgo1.2\n", "dep\t\t\t\n", "mod\t\t\n",
    "build\t`k\r`=v\n", "build\tk=`a`b\n", "path\t\n", "dep\ta\tv1\th1:x", "build\tk=v\ndep\ta",
    'build\tk="\xed\xa0\x80"\n', 'build\tk="\\ud800"\n', "build\tk=\"a\\'b\"\n", 'build\t-ldflags="-s -w"\n',
    "path\tp\nmod\tm\t(devel)\t\ndep\td\tv1\th1:x\ndep\te\tv2\n=>\t../e\t\t\nbuild\tGOOS=linux\n",
]
PIECES = ['build\t', 'dep\t', 'mod\t', '=>\t', 'path\t', 'go\t', 'k', '=', '"', '`', '\\', '\\x41', '\\xff',
          '\\u00e9', '\\ud800', '\\U0010ffff', '\\377', '\\0', '\\n', "\\'", '\t', ' ', '\r', 'a', 'v1', 'h1:x',
          '\xff', '\xc3\xa9', '\xe2\x80', '\xed\xa0\x80', '\n', '\n', '\n', '\xf4\x90\x80\x80', '-ldflags']

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
rnd = random.Random(46)
texts = CHOSEN + [''.join(rnd.choice(PIECES) for _ in range(rnd.randint(1, 14))) for _ in range(2000)]
for i, t in enumerate(texts):
    with open(os.path.join(d, '%04d' % i), 'wb') as f:
        f.write(t.encode('latin-1'))
