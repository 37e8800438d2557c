#!/usr/bin/env python3
"""Prints CODE (a ticket's or a booking's code) altered in one character, as a forger who
changes the signed part would: the first character from the 61st on that is not "0"
becomes "0".

usage: forge-code.py CODE"""
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    code = sys.argv[1]
    i = next((i for i in range(60, len(code)) if code[i] != "0"), None)
    if i is None:
        sys.exit(f"forge-code.py: nothing to alter past the 60th character of {code!r}")
    print(code[:i] + "0" + code[i + 1:])


main()
