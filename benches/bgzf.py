"""Write a file in bgzip's format (BGZF: gzip members of 65,280 input bytes, each giving its
size in a `BC` extra field, and the empty end-of-file member), as `bgzip -l 1` would, for
benches/files.py where bgzip itself is not installed.

Usage: python3 benches/bgzf.py INPUT OUTPUT
"""
import struct
import sys
import zlib

HEADER = bytes([0x1F, 0x8B, 8, 4, 0, 0, 0, 0, 0, 0xFF, 6, 0, ord("B"), ord("C"), 2, 0])
EOF_MEMBER = HEADER + bytes([0x1B, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0])

with open(sys.argv[1], "rb") as src, open(sys.argv[2], "wb") as out:
    while data := src.read(65280):
        c = zlib.compressobj(1, zlib.DEFLATED, -15)
        deflated = c.compress(data) + c.flush()
        out.write(HEADER + struct.pack("<H", len(HEADER) + 2 + len(deflated) + 8 - 1))
        out.write(deflated + struct.pack("<II", zlib.crc32(data), len(data)))
    out.write(EOF_MEMBER)
