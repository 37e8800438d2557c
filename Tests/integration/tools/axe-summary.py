#!/usr/bin/env python3
"""Sums up what axe-core found on the pages line-walk.py checked.

usage: axe-summary.py SEEN
SEEN is line-walk.py's JSON output; its "axe" maps each page checked to axe-core's
violations there. Prints "PAGES VIOLATIONS {page: violations, of the pages with any}"."""
import json
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    try:
        axe = json.loads(sys.argv[1])["axe"]
    except (ValueError, KeyError) as error:
        sys.exit(f"axe-summary.py: no axe results in line-walk.py's output ({error})")
    print(len(axe), sum(len(v) for v in axe.values()), json.dumps({k: v for k, v in axe.items() if v}))


main()
