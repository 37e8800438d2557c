#!/usr/bin/env python3
"""Prints the free places of one slot, from the bookings API's answer to GET /slots.

usage: slot-free.py START < ANSWER
START is the slot's start as the hub writes it (2026-03-01T09:30:00Z); ANSWER is what the
tests' `app` function prints: the JSON body, then the HTTP status on a line of its own.
Prints nothing (an empty line) when no slot starts at START."""
import json
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    start = sys.argv[1]
    body = sys.stdin.read().strip().rsplit("\n", 1)[0]
    try:
        slots = json.loads(body)["slots"]
    except (ValueError, KeyError) as error:
        sys.exit(f"slot-free.py: not an answer with slots ({error}): {body[:200]}")
    print(*[slot["free"] for slot in slots if slot["start"] == start])


main()
