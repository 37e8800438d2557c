#!/usr/bin/env python3
"""Compares what totems recorded with what the hub holds, and prints the figures.

usage: sync-figures.py STORE TOTEM_DB...   (psql reaches the hub's database through PG* variables)

For every totem database: its events (device_id, seq, SHA-256 of type and payload) must be
exactly the hub's events of that device, none missing, none extra, none duplicated; the
hub's occupancy rows of the store must equal the totems' ledgers, and its tickets (one row
each, a carried one under the last day it was in play) the totems', state and day issued. Exits 1 on any difference, naming it."""
import hashlib
import sqlite3
import subprocess
import sys


def psql(query):
    out = subprocess.run(["psql", "-X", "-Atq", "-F", "\t", "-c", query], check=True, capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines() if line]


def main():
    store, databases = sys.argv[1], sys.argv[2:]
    problems = []
    totem_ledgers, totem_tickets = {}, {}
    for path in databases:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        rows = db.execute("SELECT device_id, seq, type, payload FROM event ORDER BY device_id, seq").fetchall()
        devices = sorted({row[0] for row in rows})
        for device in devices:
            totem = {(seq, hashlib.sha256(f"{kind}\n{payload}".encode()).hexdigest()) for d, seq, kind, payload in rows if d == device}
            hub_rows = psql(f"SELECT seq, content_hash FROM event WHERE device_id = '{device}'")
            hub = {(int(seq), digest) for seq, digest in hub_rows}
            seqs = sorted(seq for seq, _ in totem)
            if seqs != list(range(1, len(seqs) + 1)):
                problems.append(f"{device}: the totem's log has gaps")
            if len(hub_rows) != len(hub):
                problems.append(f"{device}: the hub holds duplicates")
            missing, extra = totem - hub, hub - totem
            if missing:
                problems.append(f"{device}: {len(missing)} events missing at the hub (first seq {min(missing)[0]})")
            if extra:
                problems.append(f"{device}: {len(extra)} events at the hub the totem does not have (first seq {min(extra)[0]})")
            dead = psql(f"SELECT count(*) FROM dead_letter WHERE device_id = '{device}'")[0][0]
            print(f"{device}: totem {len(totem)} events, hub {len(hub_rows)} events ({len(hub)} distinct), "
                  f"{len(totem & hub)} equal by (seq, content hash), {dead} dead letters")
        for day, door, carried, entries, exits, corrections in db.execute(
                "SELECT business_day, door, carried, entries, exits, corrections FROM ledger"):
            key = (day, door)
            if key in totem_ledgers:
                problems.append(f"door {door} of {day} is in two totems' ledgers")
            totem_ledgers[key] = (carried, entries, exits, corrections)
        # A ticket carried into a later day: the totem keeps it under the day it was issued and
        # names the day it was carried into; the hub keeps it under that day, with the first.
        # The day it was issued is its own door's word (another door that took it in keeps
        # it under the day it did); its state is the last totem's named, as before.
        letter = devices[0].split("-")[3] if devices else "?"
        for day, number, state, carried_into in db.execute("SELECT business_day, number, state, carried_into FROM ticket"):
            key = (carried_into or day, number)
            issued = day if number.split("-")[0][:1] == letter else totem_tickets.get(key, (None, day))[1]
            totem_tickets[key] = (state, issued)
    hub_ledgers = {(day, door): tuple(int(v) for v in values) for day, door, *values in psql(
        f"SELECT business_day, door, carried, entries, exits, corrections FROM occupancy WHERE store_id = '{store}'")}
    if hub_ledgers != totem_ledgers:
        problems.append(f"occupancy differs: totems {sorted(totem_ledgers.items())}, hub {sorted(hub_ledgers.items())}")
    inside = sum(c + e - x + k for c, e, x, k in hub_ledgers.values())
    print(f"occupancy: {len(hub_ledgers)} door-days equal to the totems' ledgers; {inside} inside in all")
    hub_tickets = {(day, number): (state, issued) for day, number, state, issued in psql(
        f"SELECT business_day, number, state, coalesce(issued_day, business_day) FROM ticket WHERE store_id = '{store}'")}
    if hub_tickets != totem_tickets:
        differing = sorted(k for k in set(hub_tickets) | set(totem_tickets) if hub_tickets.get(k) != totem_tickets.get(k))
        problems.append(f"tickets differ: {[(k, totem_tickets.get(k), hub_tickets.get(k)) for k in differing[:5]]}")
    print(f"tickets: {len(hub_tickets)} at the hub, states equal to the totems'" if hub_tickets == totem_tickets else "tickets: DIFFER")
    for problem in problems:
        print("DIFFERENCE: " + problem)
    sys.exit(1 if problems else 0)


main()
