#!/usr/bin/env python3
"""Load for scripts/bench-hub: many simulated totems uploading signed event batches to one
clup-hub at once, as clupd does (the same JSON, the same signature), over HTTPS keep-alive.

usage: hub-load.py setup TOTEMS KEYS_FILE [FIRST_STORE]   prints SQL enrolling TOTEMS totems, one per store
                                                         (stores FIRST_STORE and up, default 100000)
       hub-load.py run HUB_URL CA KEYS_FILE EVENTS BATCH WORKERS [DAY]
       hub-load.py floor KEYS_FILE EVENTS [DAY]         prints the same rows as 500-row
                                                         INSERT … ON CONFLICT DO NOTHING (PostgreSQL's floor)
       hub-load.py totem STORE KEYS_FILE                 prints SQL enrolling one totem at store STORE (which exists)
       hub-load.py passages HUB_URL CA KEYS_FILE DAY in|out@ISO-TIME…
                                                         uploads those passages of business day DAY, at those
                                                         times, as the first totem of KEYS_FILE (one batch)
       hub-load.py steady HUB_URL CA KEYS_FILE SECONDS OUT STOP
                                                         each totem uploads batches of 20 for SECONDS at most (or
                                                         until the file STOP exists), sending a failed batch again;
                                                         OUT: what was acknowledged, and when
       hub-load.py panel HUB_URL CA NAME PASSWORD ROUNDS PATH…
                                                         logs in to the panel and times each page ROUNDS times
       hub-load.py app HUB_URL CA TOKEN ROUNDS PATH…    times each of the app's GETs ROUNDS times
       hub-load.py joins HUB_URL CA TOKEN COUNT WORKERS STORE…
                                                         COUNT places taken from phones in those stores' lines
       hub-load.py line HUB_URL CA TOKEN STORE COUNT PAUSE DATABASE…
                                                         COUNT places taken one at a time (PAUSE s apart) in STORE's
                                                         line, whose doors' totems keep the event logs DATABASE…:
                                                         join → in its door's log (median, p99)
       hub-load.py calls HUB_URL CA TOKEN KEYS_FILE RATE GATEWAY_LOG
                                                         a place from a phone at each totem's store, then each door
                                                         takes it in and calls it, RATE calls a second: the time from
                                                         each call to the gateway's receipt of its notice
       hub-load.py report-update HUB_URL CA STATE_DIR VERSION OUTCOME DETAIL
                                                         an upload of the enrolled totem of STATE_DIR (its
                                                         device.key) whose health reports its last update

`run` sends EVENTS passages per totem in batches of BATCH, WORKERS totems at a time, and
prints events/s and the batch latencies (median, p99)."""
import base64
import datetime
import hashlib
import http.client
import json
import os
import secrets
import sqlite3
import ssl
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


def raw_public(key):
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def payload(seq, day, now):
    direction = "in" if seq % 2 else "out"
    event = {"passage": {"at": now - 978307200 + seq / 1000, "businessDay": {"date": day}, "direction": direction, "door": "main"}}
    return json.dumps(event, separators=(",", ":"), sort_keys=True)


def setup(totems, keys_file, first_store):
    keys = []
    print("BEGIN;")
    for index in range(totems):
        store = first_store + index
        device = f"store-{store}-totem-A-bench"
        key = Ed25519PrivateKey.generate()
        seed = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
        keys.append((device, base64.b64encode(seed).decode(), store))
        print(f"INSERT INTO store (store_id, name, capacity) VALUES ('{store}', 'bench {index}', 100000);")
        print(enrol_sql(device, store, key))
    print("COMMIT;")
    with open(keys_file, "w") as f:
        json.dump(keys, f)


def enrol_sql(device, store, key):
    return (f"INSERT INTO totem (device_id, store_id, letter, door, device_key, ticket_key, software_version) VALUES "
            f"('{device}', '{store}', 'A', 'main', '\\x{raw_public(key).hex()}', '\\x{secrets.token_bytes(32).hex()}', 'bench');\n"
            f"INSERT INTO device_cursor (store_id, device_id) VALUES ('{store}', '{device}');")


def totem(store, keys_file):
    device = f"store-{store}-totem-A-load"
    key = Ed25519PrivateKey.generate()
    seed = key.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
    print(enrol_sql(device, store, key))
    with open(keys_file, "w") as f:
        json.dump([(device, base64.b64encode(seed).decode(), store)], f)


def signed_post(connection, device, key, body):
    """POSTs one batch to /v1/events signed as clupd signs it; returns the status and the answer."""
    millis = int(time.time() * 1000)
    nonce = secrets.token_hex(16)
    text = "\n".join(["POST", "/v1/events", device, str(millis), nonce, hashlib.sha256(body).hexdigest()]).encode()
    headers = {"Content-Type": "application/json", "CLup-Device": device, "CLup-Time": str(millis), "CLup-Nonce": nonce,
               "CLup-Signature": base64.b64encode(key.sign(text)).decode()}
    connection.request("POST", "/v1/events", body=body, headers=headers)
    response = connection.getresponse()
    return response.status, json.loads(response.read())


def passages(hub, ca, keys_file, day, moves):
    device, seed, _ = json.load(open(keys_file))[0]
    key = Ed25519PrivateKey.from_private_bytes(base64.b64decode(seed))
    url = urllib.parse.urlparse(hub)
    connection = http.client.HTTPSConnection(url.hostname, url.port, context=ssl.create_default_context(cafile=ca), timeout=60)
    events = []
    for seq, move in enumerate(moves, start=1):
        direction, at = move.split("@", 1)
        seconds = datetime.datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()
        event = {"passage": {"at": seconds - 978307200, "businessDay": {"date": day}, "direction": direction, "door": "main"}}
        events.append({"seq": seq, "wallTime": seconds, "type": "occupancy.passage",
                       "payload": json.dumps(event, separators=(",", ":"), sort_keys=True)})
    status, answer = signed_post(connection, device, key, json.dumps({"events": events, "outboxDepth": 0}).encode())
    if status != 200 or answer.get("acknowledged") != len(moves):
        raise SystemExit(f"{device}: {status} {answer}")
    print(f"{len(moves)} passages acknowledged")


def run(hub, ca, keys_file, events, batch, workers, day):
    keys = json.load(open(keys_file))
    url = urllib.parse.urlparse(hub)
    context = ssl.create_default_context(cafile=ca)
    latencies, lock = [], threading.Lock()
    now = time.time()

    # The batches' bodies are made before the clock starts (each is signed as it is sent):
    # the load generator shares the machine with the hub, so it does as little as it can
    # while it is timed. The passages' payloads are the same for every totem.
    payloads = [payload(s, day, now) for s in range(1, events + 1)]
    bodies = [(seqs[-1], json.dumps({"events": [{"seq": s, "wallTime": now, "type": "occupancy.passage", "payload": payloads[s - 1]}
                                              for s in seqs], "outboxDepth": 0}).encode())
              for seqs in (range(start, min(start + batch, events + 1)) for start in range(1, events + 1, batch))]
    keyed = {device: Ed25519PrivateKey.from_private_bytes(base64.b64decode(seed)) for device, seed, _ in keys}

    # Every totem is connected before the clock starts, as clupd's connection to the hub is
    # kept between its syncs: what is timed is the batches, not TLS handshakes (which are
    # timed on their own, and cost Python's OpenSSL more than the hub).
    def connect(entry):
        connection = http.client.HTTPSConnection(url.hostname, url.port, context=context, timeout=60)
        connection.connect()
        return entry[0], connection

    connect_began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        connections = dict(pool.map(connect, keys))
    connected = time.perf_counter() - connect_began

    def upload_as(entry):
        device = entry[0]
        key = keyed[device]
        connection = connections[device]
        for last, body in bodies:
            began = time.perf_counter()
            status, answer = signed_post(connection, device, key, body)
            took = time.perf_counter() - began
            if status != 200 or answer["acknowledged"] != last:
                raise SystemExit(f"{device}: {status} {answer}")
            with lock:
                latencies.append(took * 1000)
        connection.close()

    began, cpu_before = time.perf_counter(), os.times()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(upload_as, keys))
    elapsed = time.perf_counter() - began
    latencies.sort()
    total = events * len(keys)
    p = lambda q: latencies[min(len(latencies) - 1, int(len(latencies) * q))]
    cpu = os.times()
    print(f"{total} events from {len(keys)} totems in {elapsed:.2f} s: {total / elapsed:.0f} events/s; "
          f"{len(latencies)} batches of up to {min(batch, events)} events: median {p(0.5):.1f} ms, p99 {p(0.99):.1f} ms "
          f"(load generator {cpu.user + cpu.system - cpu_before.user - cpu_before.system:.1f} s)"
          f" [connected beforehand: {len(keys)} TLS connections in {connected:.2f} s]")


def floor(keys_file, events, day):
    keys = json.load(open(keys_file))
    now = time.time()
    rows = []
    for device, _, store in keys:
        for seq in range(1, events + 1):
            text = payload(seq, day, now)
            digest = hashlib.sha256(f"occupancy.passage\n{text}".encode()).hexdigest()
            rows.append(f"('{store}', '{day}', '{device}', {seq}, to_timestamp({now}), 'occupancy.passage', '{text}', '{digest}')")
    for start in range(0, len(rows), 500):
        print("INSERT INTO event_floor (store_id, business_day, device_id, seq, wall_time, type, payload, content_hash) VALUES "
              + ",\n".join(rows[start:start + 500]) + " ON CONFLICT DO NOTHING;")


def report_update(hub, ca, state, version, outcome, detail):
    enrolment = json.load(open(f"{state}/enrolment.json"))
    key = Ed25519PrivateKey.from_private_bytes(open(f"{state}/device.key", "rb").read())
    url = urllib.parse.urlparse(hub)
    connection = http.client.HTTPSConnection(url.hostname, url.port, context=ssl.create_default_context(cafile=ca), timeout=60)
    health = {"devices": [], "printer": "ready", "update": {"version": version, "outcome": outcome, "detail": detail, "at": time.time()}}
    status, answer = signed_post(connection, enrolment["deviceID"], key,
                                 json.dumps({"events": [], "outboxDepth": 0, "health": health}).encode())
    if status != 200:
        raise SystemExit(f"{status} {answer}")
    print("reported")


def steady(hub, ca, keys_file, seconds, out, stop):
    """Each totem of KEYS_FILE uploads batches of 20 passages, one after the other, for
    SECONDS at most, or until the file STOP exists; a batch that fails (no answer, 5xx) is
    sent again, as clupd keeps its outbox. Writes OUT (JSON): each totem's acknowledged seq,
    the times batches were answered 200, and how many attempts failed."""
    keys = json.load(open(keys_file))
    url = urllib.parse.urlparse(hub)
    context = ssl.create_default_context(cafile=ca)
    day = time.strftime("%Y-%m-%d", time.gmtime())
    deadline = time.time() + seconds
    acknowledged, answered, failures, lock = {}, [], [0], threading.Lock()

    def upload_as(entry):
        device, seed, _ = entry
        key = Ed25519PrivateKey.from_private_bytes(base64.b64decode(seed))
        connection, held = None, 0
        while time.time() < deadline and not os.path.exists(stop):
            now = time.time()
            body = json.dumps({"events": [{"seq": s, "wallTime": now, "type": "occupancy.passage", "payload": payload(s, day, now)}
                                          for s in range(held + 1, held + 21)], "outboxDepth": 0}).encode()
            try:
                if connection is None:
                    connection = http.client.HTTPSConnection(url.hostname, url.port, context=context, timeout=15)
                status, answer = signed_post(connection, device, key, body)
            except Exception:
                status, answer = None, None
                connection = None
            if status == 200 and answer.get("acknowledged") == held + 20:
                held += 20
                with lock:
                    answered.append(time.time())
                    acknowledged[device] = held
            else:
                with lock:
                    failures[0] += 1
                time.sleep(0.2)

    with ThreadPoolExecutor(max_workers=len(keys)) as pool:
        list(pool.map(upload_as, keys))
    json.dump({"acknowledged": acknowledged, "answered": sorted(answered), "failures": failures[0]}, open(out, "w"))


def timed_gets(connection, headers, rounds, paths):
    """GETs each of PATHS ROUNDS times on CONNECTION; prints each one's median and p95 time,
    request sent to answer read."""
    for path in paths:
        times = []
        for _ in range(rounds):
            began = time.perf_counter()
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            body = response.read()
            times.append((time.perf_counter() - began) * 1000)
            if response.status != 200:
                raise SystemExit(f"{path}: {response.status} {body[:200]!r}")
        times.sort()
        print(f"{path}: median {times[len(times) // 2]:.1f} ms, p95 {times[min(len(times) - 1, int(len(times) * 0.95))]:.1f} ms"
              f" over {rounds} ({len(body)} bytes)")


def connection_to(hub, ca):
    url = urllib.parse.urlparse(hub)
    return http.client.HTTPSConnection(url.hostname, url.port, context=ssl.create_default_context(cafile=ca), timeout=60)


def app(hub, ca, token, rounds, paths):
    """GETs each of PATHS ROUNDS times as the phone app (its bearer token) on one keep-alive connection."""
    timed_gets(connection_to(hub, ca), {"Authorization": f"Bearer {token}"}, rounds, paths)


def joins(hub, ca, token, count, workers, stores):
    """COUNT places taken from phones, each by a reference of its own, in the lines of STORES
    in turn, WORKERS at a time (each on a keep-alive connection of its own); prints joins/s,
    the latency (median, p99) and the answers' statuses."""
    latencies, statuses, lock = [], {}, threading.Lock()
    context = threading.local()

    def join(index):
        if not hasattr(context, "connection"):
            context.connection = connection_to(hub, ca)
        body = json.dumps({"customerRef": f"bench-phone-{index:08d}"})
        began = time.perf_counter()
        context.connection.request("POST", f"/v1/stores/{stores[index % len(stores)]}/line", body=body,
                                   headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        response = context.connection.getresponse()
        response.read()
        took = (time.perf_counter() - began) * 1000
        with lock:
            latencies.append(took)
            statuses[response.status] = statuses.get(response.status, 0) + 1

    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(join, range(count)))
    elapsed = time.perf_counter() - began
    latencies.sort()
    p = lambda q: latencies[min(len(latencies) - 1, int(len(latencies) * q))]
    print(f"{count} joins over {len(stores)} stores, {workers} at a time, in {elapsed:.2f} s: {count / elapsed:.0f} joins/s; "
          f"median {p(0.5):.1f} ms, p99 {p(0.99):.1f} ms; answers {json.dumps(statuses, sort_keys=True)}")


def line(hub, ca, token, store, count, pause, databases):
    """COUNT places taken one at a time from phones in STORE's line, PAUSE seconds apart,
    while the store's doors' totems run with the event logs DATABASES (read, never written).
    Each place's time is from the join's request to the wall time of the `ticket.issued`
    event its door's totem recorded for it (one machine, one clock): prints their median and p99."""
    def read(query, *arguments):
        rows = []
        for path in databases:
            with sqlite3.connect(path, timeout=10) as db:
                rows += db.execute(query, arguments).fetchall()
        return rows

    def epoch(wall):  # the totems' wall times: UTC, "2026-11-29 00:32:19.028"
        return datetime.datetime.fromisoformat(wall).replace(tzinfo=datetime.timezone.utc).timestamp()

    connection = connection_to(hub, ca)
    asked = {}
    for index in range(count):
        body = json.dumps({"customerRef": f"bench-line-{os.getpid()}-{index:06d}"})
        began = time.time()
        connection.request("POST", f"/v1/stores/{store}/line", body=body,
                           headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        response = connection.getresponse()
        answer = response.read()
        if response.status != 201 and response.status != 200:
            sys.exit(f"join {index}: {response.status} {answer[:200]!r}")
        asked[json.loads(answer)["number"]] = began
        time.sleep(pause)
    taken = {}
    deadline = time.time() + 60
    while len(taken) < len(asked) and time.time() < deadline:
        for wall, text in read("SELECT wall_time, payload FROM event WHERE type = 'ticket.issued'"):
            number = json.loads(text)["ticketIssued"]["_0"]["number"]
            if number in asked:
                taken[number] = epoch(wall) - asked[number]
        time.sleep(0.2)
    if len(taken) < len(asked):
        sys.exit(f"{len(asked) - len(taken)} of {len(asked)} places never reached a door's log")
    latencies = sorted(seconds * 1000 for seconds in taken.values())
    p = lambda q: latencies[min(len(latencies) - 1, int(len(latencies) * q))]
    order = list(asked)
    slowest = sorted(taken, key=taken.get, reverse=True)[:3]
    print(f"{count} places, one every {pause:g} s, at {len(databases)} doors: join → in its door's log median {p(0.5):.0f} ms, "
          f"p99 {p(0.99):.0f} ms (slowest: " + ", ".join(f"{n}, join {order.index(n) + 1}, {taken[n] * 1000:.0f} ms" for n in slowest) + ")")


def calls(hub, ca, token, keys_file, rate, gateway_log):
    """For each totem of KEYS_FILE (one per store, its door heard just now): a place taken
    from a phone in its store's line; then, RATE a second, the door takes its place in and
    calls it, as clupd uploads it (ticket.issued, ticket.called). Waits for the gateway
    (tools/notice-gateway.py, its log GATEWAY_LOG) to receive each "called" notice and
    prints the time from the call at the totem to the first receipt: median, p99 and max of
    the notices whose first POST was answered, and apart, of those whose first POST hung."""
    keys = json.load(open(keys_file))
    app = connection_to(hub, ca)
    places = []
    for device, seed, store in keys:
        app.request("POST", f"/v1/stores/{store}/line", body=json.dumps({"customerRef": f"bench-notice-{store}"}),
                    headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        response = app.getresponse()
        place = json.loads(response.read())
        if response.status != 201:
            raise SystemExit(f"joining store {store}'s line: {response.status} {place}")
        places.append((device, Ed25519PrivateKey.from_private_bytes(base64.b64decode(seed)), store, place))
    day = time.strftime("%Y-%m-%d", time.gmtime())
    doors, called = connection_to(hub, ca), {}
    start = time.time()
    for index, (device, key, store, place) in enumerate(places):
        time.sleep(max(0.0, start + index / rate - time.time()))
        joined = datetime.datetime.fromisoformat(place["joinedAt"].replace("Z", "+00:00")).timestamp()
        at = time.time()
        issued = {"ticketIssued": {"_0": {"businessDay": {"date": day}, "code": place["code"], "issuedAt": joined - 978307200,
                                          "number": place["number"], "state": "waiting", "takenAt": joined - 978307200}}}
        call = {"ticketCalled": {"_0": place["number"], "at": at - 978307200, "businessDay": {"date": day}, "reason": "arrival order"}}
        events = [{"seq": seq, "wallTime": at, "type": kind, "payload": json.dumps(event, separators=(",", ":"), sort_keys=True)}
                  for seq, kind, event in ((1, "ticket.issued", issued), (2, "ticket.called", call))]
        status, answer = signed_post(doors, device, key, json.dumps({"events": events, "outboxDepth": 0}).encode())
        if status != 200 or answer.get("acknowledged") != 2:
            raise SystemExit(f"{device}: {status} {answer}")
        called[(str(store), place["number"])] = at
    first, hung = {}, set()
    deadline = time.time() + 120
    while time.time() < deadline and len(first) < len(called):
        time.sleep(0.5)
        for line in open(gateway_log):
            seen = json.loads(line)
            body = seen["body"] or {}
            if body.get("kind") != "called":
                continue
            place = (body["store"], body["number"])
            if body.get("attempt") == 1 and seen["status"] == "hang":
                hung.add(place)
            if seen["status"] != "hang" and 200 <= seen["status"] < 300:
                first.setdefault(place, seen["at"])
    answered = sorted(first[p] - called[p] for p in called if p in first and p not in hung)
    held = sorted(first[p] - called[p] for p in called if p in first and p in hung)
    q = lambda values, f: values[min(len(values) - 1, int(len(values) * f))] if values else float("nan")
    print(f"{len(called)} calls at {rate:g}/s, {len(first)} notices received; the {len(answered)} whose first POST was answered: "
          f"median {q(answered, 0.5):.2f} s, p99 {q(answered, 0.99):.2f} s, max {answered[-1] if answered else float('nan'):.2f} s; "
          f"the {len(held)} whose first POST hung: median {q(held, 0.5):.1f} s, max {held[-1] if held else float('nan'):.1f} s")


def panel(hub, ca, name, password, rounds, paths):
    """Logs in to the panel as NAME, then GETs each of PATHS ROUNDS times on one keep-alive
    connection; prints each page's median and p95 time, request sent to answer read."""
    connection = connection_to(hub, ca)
    form = urllib.parse.urlencode({"name": name, "password": password})
    connection.request("POST", "/panel/login", body=form, headers={"Content-Type": "application/x-www-form-urlencoded", "Origin": hub})
    response = connection.getresponse()
    response.read()
    cookie = (response.getheader("Set-Cookie") or "").split(";")[0]
    if response.status != 303 or not cookie:
        raise SystemExit(f"login as {name}: {response.status}")
    timed_gets(connection, {"Cookie": cookie}, rounds, paths)


command = sys.argv[1]
if command == "setup":
    setup(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]) if len(sys.argv) > 4 else 100000)
elif command == "run":
    run(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]),
        sys.argv[8] if len(sys.argv) > 8 else time.strftime("%Y-%m-%d", time.gmtime()))
elif command == "totem":
    totem(sys.argv[2], sys.argv[3])
elif command == "passages":
    passages(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:])
elif command == "steady":
    steady(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), sys.argv[6], sys.argv[7])
elif command == "panel":
    panel(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), sys.argv[7:])
elif command == "app":
    app(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6:])
elif command == "joins":
    joins(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]), sys.argv[7:])
elif command == "line":
    line(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]), float(sys.argv[7]), sys.argv[8:])
elif command == "calls":
    calls(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], float(sys.argv[6]), sys.argv[7])
elif command == "report-update":
    report_update(*sys.argv[2:8])
elif command == "floor":
    floor(sys.argv[2], int(sys.argv[3]), sys.argv[4] if len(sys.argv) > 4 else time.strftime("%Y-%m-%d", time.gmtime()))
