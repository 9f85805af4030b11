#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Prints this machine's vDSO build-id and an address inside its
# __vdso_clock_gettime (its ELF address + 4), read from this process's own
# image (/proc/self/mem), for tests/test-keep.sh's vdso case.
import struct
def vdso():
    for l in open('/proc/self/maps'):
        if l.rstrip().endswith('[vdso]'):
            lo, hi = (int(x, 16) for x in l.split()[0].split('-'))
            with open('/proc/self/mem', 'rb') as m:
                m.seek(lo)
                return m.read(hi - lo)
img = vdso()
shoff, = struct.unpack_from('<Q', img, 0x28)
shentsize, shnum = struct.unpack_from('<HH', img, 0x3a)
secs = [struct.unpack_from('<IIQQQQIIQQ', img, shoff + i * shentsize) for i in range(shnum)]
bid = sym = None
for s in secs:
    typ, off, size, link, entsize = s[1], s[4], s[5], s[6], s[9]
    if typ == 7:  # SHT_NOTE
        p = off
        while p < off + size:
            nsz, dsz, nt = struct.unpack_from('<III', img, p)
            name = img[p + 12:p + 12 + nsz]
            d0 = p + 12 + ((nsz + 3) & ~3)
            if nt == 3 and name[:3] == b'GNU':
                bid = img[d0:d0 + dsz].hex()
            p = d0 + ((dsz + 3) & ~3)
    if typ == 11:  # SHT_DYNSYM
        stroff = secs[link][4]
        for k in range(size // entsize):
            nm, info, oth, shn, val, sz = struct.unpack_from('<IBBHQQ', img, off + k * entsize)
            n = img[stroff + nm:img.index(b'\0', stroff + nm)].decode()
            if n == '__vdso_clock_gettime':
                sym = (val, sz)
print(bid, '%x' % (sym[0] + 4))
