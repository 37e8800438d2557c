#!/usr/bin/env python3
"""Reads what hub-load.py's steady load was answered across a failover and prints its figures.

usage: load-answers.py LOAD_JSON KILLED PROMOTED
LOAD_JSON is the load's record ("answered": the times batches were answered, "failures",
"acknowledged": the last seq the hub acknowledged to each device); KILLED and PROMOTED are
the Unix times the primary was killed and the replica promoted. Prints a first line
"AGAIN PROMOTION BATCHES FAILURES TOTAL PAUSE": seconds from the kill to the answer that
ended the longest pause after it, seconds from the kill to the promotion, batches answered,
attempts failed, events acknowledged in all, and that longest pause; then "DEVICE SEQ" for
each device. Exits 1 unless batches were answered both before and after the kill."""
import json
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    load = json.load(open(sys.argv[1]))
    killed, promoted = float(sys.argv[2]), float(sys.argv[3])
    before = [t for t in load["answered"] if t < killed]
    after = [t for t in load["answered"] if t > killed]
    if not before or not after:
        raise SystemExit(f"answered before the kill: {len(before)}, after: {len(after)}")
    # The pause: the longest time without an answer across the kill; the hub answers again at its end.
    times = load["answered"]
    gap, end = max((b - a, b) for a, b in zip(times, times[1:]) if b > killed)
    print(f"{end - killed:.1f} {promoted - killed:.1f} {len(times)} {load['failures']} "
          f"{sum(load['acknowledged'].values())} {gap:.1f}")
    for device, held in sorted(load["acknowledged"].items()):
        print(device, held)


main()
