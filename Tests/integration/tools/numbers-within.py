#!/usr/bin/env python3
"""Checks that each number of GOT is within TOLERANCE of the number in the same place of
WANT (both lists of numbers separated by commas: "0, -1, 0.98").

usage: numbers-within.py TOLERANCE GOT WANT
Exits 0 if so; else names the first number that is not, and exits 1. As the check it
replaces did, it compares the numbers the two lists both have (the shorter one's count)."""
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    tolerance = float(sys.argv[1])
    got = [float(v) for v in sys.argv[2].split(",")]
    want = [float(v) for v in sys.argv[3].split(",")]
    for place, (g, w) in enumerate(zip(got, want), 1):
        if abs(g - w) > tolerance:
            sys.exit(f"numbers-within.py: number {place} is {g}, not {w} ± {tolerance}")


main()
