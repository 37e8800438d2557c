#!/usr/bin/env python3
"""Compares two PNG images pixel by pixel (8-bit RGB or RGBA, alpha ignored), with the
reader of fb-matches-png.py. Prints "WxH, N pixels differ" and exits 0 only when the sizes
are the same and no pixel differs.

usage: png-same.py A.png B.png"""
import importlib.util
import os
import sys

spec = importlib.util.spec_from_file_location("fb", os.path.join(os.path.dirname(__file__), "fb-matches-png.py"))
fb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fb)


def pixels(path):
    width, height, channels, rows = fb.read_png(path)
    return width, height, [bytes(row[x * channels:x * channels + 3]) for row in rows for x in range(width)]


a, b = pixels(sys.argv[1]), pixels(sys.argv[2])
if a[:2] != b[:2]:
    print(f"{a[0]}x{a[1]} against {b[0]}x{b[1]}")
    sys.exit(1)
differ = sum(1 for p, q in zip(a[2], b[2]) if p != q)
print(f"{a[0]}x{a[1]}, {differ} pixels differ")
sys.exit(0 if differ == 0 else 1)
