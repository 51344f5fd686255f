# SPDX-License-Identifier: LGPL-2.1-or-later
# go-json-lines.py: the "embedded" member of `pkgnote show --json` (on
# stdin), written as the lines `go version -m` prints after its first
# (the toolchain, the path, the main module, each dependency and its replacement, the
# build settings unquoted), one field per tab, so that cmd-go-corpus.sh
# compares pkgnote's public route with Go's own reading line by line.
# With --go, reads `go version -m` output instead and writes the same
# lines (its quoted build settings unquoted, its empty lines dropped);
# with --pairs DIR compares each DIR/N.go with DIR/N.json.
import codecs
import json
import sys


def unquote(s):
    # a `raw` string as it is; a "quoted" one as strconv.Unquote reads what
    # strconv.Quote writes (\xHH a byte, the rest as in C)
    if s[:1] == '`':
        return s[1:-1]
    if s[:1] == '"':
        b = codecs.escape_decode(s[1:-1].encode('utf-8', 'surrogateescape'))[0]
        return b.decode('utf-8', 'surrogateescape')
    return s


def setting(kv):
    if kv[:1] in ('"', '`'):
        end = kv.index(kv[0], 1) + 1
        return unquote(kv[:end]), unquote(kv[end + 1:])
    k, _, v = kv.partition('=')
    return k, unquote(v)


def from_go(text):
    first = text.split('\n', 1)[0]
    out = [['go', first.rpartition(': ')[2]]]
    for line in text.split('\n')[1:]:
        if not line.strip('\t'):
            continue
        f = line.split('\t')[1:]
        if f[0] == 'build':
            k, v = setting('\t'.join(f[1:]))
            out.append(['build', k, v])
        else:
            out.append(f)
    return out


def from_json(doc):
    e = doc.get('embedded') or {}
    out = [['go', e.get('toolchain', '')]]
    if e.get('path'):
        out.append(['path', e['path']])
    for c in e.get('components', []):
        if c.get('ecosystem') != 'golang':
            continue
        out.append(['mod' if c.get('main') else 'dep', c['name'], c.get('version', '')] +
                   ([] if 'replacement' in c else [c.get('checksum', '')]))
        r = c.get('replacement')
        if r:
            out.append(['=>', r['name'], r.get('version', ''), r.get('checksum', '')])
    for s in e.get('settings', []):
        out.append(['build', s['key'], s['value']])
    return out


def show(lines):
    return ['\t'.join(x.encode('unicode_escape').decode('ascii') for x in f) for f in lines]


if sys.argv[1:] == ['--go']:
    print('\n'.join(show(from_go(sys.stdin.read()))))
elif sys.argv[1:] == ['--json']:
    print('\n'.join(show(from_json(json.load(sys.stdin)))))
else:
    # --pairs DIR: for each DIR/NAME.go (go version -m's output) and
    # DIR/NAME.json (pkgnote show --json's), "PASS NAME" or "FAIL NAME"
    # with the first differing lines, one python run for the corpus
    import difflib
    import os
    d = sys.argv[2]
    for name in sorted(os.listdir(d)):
        if not name.endswith('.go'):
            continue
        base = name[:-3]
        with open(os.path.join(d, name), encoding='utf-8', errors='surrogateescape') as f:
            want = show(from_go(f.read()))
        try:
            with open(os.path.join(d, base + '.json'), 'rb') as f:
                got = show(from_json(json.loads(f.read())))
        except (OSError, ValueError) as e:
            print('FAIL', base, 'cannot read show --json:', e)
            continue
        if want == got:
            print('PASS', base)
        else:
            diff = list(difflib.unified_diff(want, got, 'go version -m', 'show --json', lineterm='', n=0))
            print('FAIL', base, ' | '.join(diff[:8]))
