#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Whether a PNG screenshot (8-bit RGB or RGBA, as headless Chromium writes
# them) holds at least MIN colours, sampled every 2 rows and 4 columns, in
# its last ROWS rows (default: all of it). Exit status 0 when it does.
# usage: png-colours.py FILE MIN [ROWS]
import struct
import sys
import zlib

path, want = sys.argv[1], int(sys.argv[2])
b = open(path, 'rb').read()
assert b[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
w, h, depth, ctype = struct.unpack('>IIBB', b[16:26])
idat = b''
i = 8
while i < len(b):
    n = struct.unpack('>I', b[i:i + 4])[0]
    if b[i + 4:i + 8] == b'IDAT':
        idat += b[i + 8:i + 8 + n]
    i += 12 + n
raw = zlib.decompress(idat)
bpp = 4 if ctype == 6 else 3
stride = 1 + w * bpp
rows = int(sys.argv[3]) if len(sys.argv) > 3 else h
colours = set()
for y in range(max(0, h - rows), h, 2):
    row = raw[y * stride + 1:(y + 1) * stride]
    for x in range(0, w * bpp, bpp * 4):
        colours.add(row[x:x + 3])
print('colours:', len(colours))
sys.exit(0 if len(colours) >= want else 1)
