#!/usr/bin/env python3
"""Prints a time zone where it is day now (between 06:00 and 18:59): UTC if it is day
there, else the Etc/GMT zone nearest to it, so that a store's day has slots left at
whatever hour a test runs.

usage: daytime-zone.py"""
import datetime
import sys


def main():
    if len(sys.argv) != 1:
        sys.exit(__doc__)
    hour = datetime.datetime.now(datetime.timezone.utc).hour
    offset = next(o for o in range(-12, 13) if 6 <= (hour + o) % 24 <= 18)
    print("Etc/GMT%+d" % -offset if offset else "UTC")


main()
