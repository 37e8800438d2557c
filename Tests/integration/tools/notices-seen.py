#!/usr/bin/env python3
"""Says what the receivers of the hub's notices logged, in the words the hub tests compare:
the notification gateway (notice-gateway.py, a JSON line per request) and the browser's push
service (push-service.py, a JSON line per message).

usage: notices-seen.py called LINE       a "called" notice at the gateway: verified, status,
                                         kind, number, customerRef, whether it names a booking
       notices-seen.py cancelled LINE    a "cancelled" notice at the gateway: verified, status,
                                         whether its key is the hub's, kind, bookingNumber,
                                         customerRef, attempt
       notices-seen.py reminders         the gateway's lines on stdin, one line each: verified,
                                         bookingNumber, customerRef, slotStart
       notices-seen.py after LINE TIME   how long after TIME (Unix seconds) LINE was received,
                                         in seconds with two decimals
       notices-seen.py fresh LOG         how many requests in the gateway's LOG it took as new
                                         (each Idempotency-Key once)
       notices-seen.py push LOG          the push service's LOG: the count of messages, then for
                                         each (status answered, VAPID verified, encoding,
                                         urgency, kind, number, title, same topic as the first)

Exits 1, naming the line, on a line that is not JSON or lacks a field."""
import json
import sys

USAGES = {"called": 1, "cancelled": 1, "reminders": 0, "after": 2, "fresh": 1, "push": 1}


def parsed(line):
    try:
        return json.loads(line)
    except ValueError as error:
        sys.exit(f"notices-seen.py: not a JSON line ({error}): {line[:200]!r}")


def main():
    if len(sys.argv) < 2 or USAGES.get(sys.argv[1]) != len(sys.argv) - 2:
        sys.exit(__doc__)
    what, args = sys.argv[1], sys.argv[2:]
    if what == "called":
        d = parsed(args[0]); b = d["body"]
        print(d["verified"], d["status"], b["kind"], b["number"], b["customerRef"], "bookingNumber" in b)
    elif what == "cancelled":
        d = parsed(args[0]); b = d["body"]
        print(d["verified"], d["status"], d["key"].startswith("clup-notice-"), b["kind"], b["bookingNumber"],
              b["customerRef"], b["attempt"])
    elif what == "reminders":
        for line in sys.stdin:
            d = parsed(line); b = d["body"]
            print(d["verified"], b["bookingNumber"], b["customerRef"], b["slotStart"])
    elif what == "after":
        print("%.2f" % (parsed(args[0])["at"] - float(args[1])))
    elif what == "fresh":
        with open(args[0]) as log:
            print(sum(parsed(line)["fresh"] for line in log))
    else:
        with open(args[0]) as log:
            lines = [parsed(line) for line in log]
        print(len(lines), *[(m["answered"], m["verified"], m["encoding"], m["urgency"], m["message"]["kind"],
                             m["message"]["number"], m["message"]["title"], m["topic"] == lines[0]["topic"])
                            for m in lines], sep="; ")


try:
    main()
except KeyError as missing:
    sys.exit(f"notices-seen.py {sys.argv[1]}: no field {missing} in what was logged")
