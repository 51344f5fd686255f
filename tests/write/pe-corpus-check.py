# SPDX-License-Identifier: LGPL-2.1-or-later
# pe-corpus-check.py ORIG STAMPED: what stamping must keep, read here
# independently of pkgnote.  Prints what is wrong, nothing when all holds:
# SizeOfImage at least the original's; every original section's entry,
# address, sizes and raw data unchanged; .pkgnote (the one new entry)
# placed past the original SizeOfImage and every section's end, its raw
# data directly after the last section's, no gap; what
# followed the sections in the original file (COFF symbol and string
# tables, padding) the same bytes right after .pkgnote, and
# PointerToSymbolTable moved with them.
import struct, sys

def parse(b):
    pe, = struct.unpack_from('<I', b, 0x3c)
    n, = struct.unpack_from('<H', b, pe + 6)
    sym, nsym = struct.unpack_from('<II', b, pe + 12)
    optsz, = struct.unpack_from('<H', b, pe + 20)
    opt = pe + 24
    salign, falign = struct.unpack_from('<II', b, opt + 32)
    image, headers = struct.unpack_from('<II', b, opt + 56)
    t = opt + optsz
    secs = []
    for i in range(n):
        h = t + 40 * i
        vsize, va, rsize, roff = struct.unpack_from('<IIII', b, h + 8)
        secs.append(dict(raw=b[h:h + 40], name=b[h:h + 8], vsize=vsize, va=va, rsize=rsize, roff=roff))
    return dict(pe=pe, sym=sym, nsym=nsym, salign=salign, falign=falign, image=image, headers=headers, secs=secs)

a = open(sys.argv[1], 'rb').read()
b = open(sys.argv[2], 'rb').read()
A, B = parse(a), parse(b)
err = []
up = lambda v, al: (v + al - 1) // al * al
if B['image'] < A['image']:
    err.append('SizeOfImage 0x%x below the original 0x%x' % (B['image'], A['image']))
if len(B['secs']) != len(A['secs']) + 1 or B['secs'][-1]['name'] != b'.pkgnote':
    err.append('not one new last section .pkgnote')
else:
    for i, s in enumerate(A['secs']):
        if B['secs'][i]['raw'] != s['raw']:
            err.append('section %d entry changed' % i)
        elif s['rsize'] and b[s['roff']:s['roff'] + s['rsize']] != a[s['roff']:s['roff'] + s['rsize']]:
            err.append('section %d data changed' % i)
    n = B['secs'][-1]
    vend = max([s['va'] + (s['vsize'] or s['rsize']) for s in A['secs']] + [0])
    if n['va'] < A['image'] or n['va'] < vend or n['va'] % A['salign']:
        err.append('.pkgnote at 0x%x, below SizeOfImage 0x%x or a section end 0x%x' % (n['va'], A['image'], vend))
    if B['image'] != up(n['va'] + n['vsize'], A['salign']):
        err.append('SizeOfImage 0x%x is not the end of .pkgnote' % B['image'])
    dend = max([s['roff'] + s['rsize'] for s in A['secs'] if s['rsize']] + [A['headers']])
    if n['roff'] != dend:
        err.append('.pkgnote data at 0x%x, not right after the sections (0x%x): a gap' % (n['roff'], dend))
    new_end = n['roff'] + n['rsize']
    shift = new_end - dend
    if b[new_end:] != a[dend:]:
        err.append('the bytes after the sections (0x%x of them) are not kept after .pkgnote' % (len(a) - dend))
    if A['sym'] >= dend and B['sym'] != A['sym'] + shift:
        err.append('PointerToSymbolTable 0x%x, want 0x%x' % (B['sym'], A['sym'] + shift))
    if A['sym'] and A['sym'] < dend and B['sym'] != A['sym']:
        err.append('PointerToSymbolTable inside the sections changed')
print('\n'.join(err))
