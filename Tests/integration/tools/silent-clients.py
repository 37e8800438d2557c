#!/usr/bin/env python3
"""Holds COUNT connections open on a Unix socket without ever sending a byte, and opens a
new one whenever the server closes one, until killed: a hostile or broken client of the
control socket. Prints "holding COUNT" once all are open, and on SIGTERM how many
connections the server closed in all.

Usage: silent-clients.py SOCKET COUNT
"""
import selectors
import signal
import socket
import sys

path, count = sys.argv[1], int(sys.argv[2])
selector = selectors.DefaultSelector()
closed_by_server = 0


def connect():
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect(path)
    client.setblocking(False)
    selector.register(client, selectors.EVENT_READ)


def finish(*_):
    print(f"the server closed {closed_by_server} connections", flush=True)
    sys.exit(0)


signal.signal(signal.SIGTERM, finish)
for _ in range(count):
    connect()
print(f"holding {count}", flush=True)
while True:
    for key, _ in selector.select():
        client = key.fileobj
        try:
            data = client.recv(4096)
        except OSError:
            data = b""
        if not data:
            selector.unregister(client)
            client.close()
            closed_by_server += 1
            connect()
