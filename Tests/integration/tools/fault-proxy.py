#!/usr/bin/env python3
"""A fault-injecting HTTPS proxy between a totem and the hub, for the sync's fault tests.

usage: fault-proxy.py LISTEN_PORT HUB_URL CERT KEY CA FAULT_RATE COUNTS_FILE

It presents the hub's own certificate (CERT, KEY), so the totem cannot tell it from the hub,
and forwards each request to HUB_URL (trusting CA). With probability FAULT_RATE a request
meets one fault, chosen at random (a hang a third as often as each other):
  500-before  answers 500 without forwarding (the hub never saw it)
  500-after   forwards, the hub commits, then answers 500 (the answer is lost)
  hang-after  forwards, then says nothing for 30 s and closes (the totem times out)
  drop-before closes the connection without a word
Enrolment and the hub's time pass untouched. Counts of each outcome go to COUNTS_FILE as JSON.

While a file COUNTS_FILE.cut exists the totem is cut off: every request, and every answer
still on its way, is dropped ("cut"), as in a partition. While COUNTS_FILE.lose-answers
exists, every request reaches the hub and its answer is dropped ("answer-lost"): the hub did
the work, the client never hears it (as the app after a cut on a phone's network)."""
import http.server
import json
import os
import random
import socket
import ssl
import sys
import threading
import time
import urllib.error
import urllib.request

port, hub, cert, key, ca, rate, counts_file = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], float(sys.argv[6]), sys.argv[7]
upstream = ssl.create_default_context(cafile=ca)
counts = {"passed": 0, "500-before": 0, "500-after": 0, "hang-after": 0, "drop-before": 0, "cut": 0, "answer-lost": 0}
lock = threading.Lock()


def count(outcome):
    with lock:
        counts[outcome] += 1
        with open(counts_file + ".new", "w") as f:
            json.dump(counts, f)
        os.replace(counts_file + ".new", counts_file)


class Proxy(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def forward(self, body):
        headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection", "content-length")}
        request = urllib.request.Request(hub + self.path, data=body if self.command == "POST" else None,
                                         headers=headers, method=self.command)
        try:
            with urllib.request.urlopen(request, context=upstream, timeout=30) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def answer(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def drop(self, outcome):
        count(outcome)
        self.connection.shutdown(socket.SHUT_RDWR)
        self.close_connection = True

    def handle_any(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if os.path.exists(counts_file + ".cut"):
            return self.drop("cut")
        fault = None
        if self.path.startswith("/v1/events") and random.random() < rate:
            # Hangs cost the totem its whole read timeout (15 s), so they are rarer.
            fault = random.choices(["500-before", "500-after", "hang-after", "drop-before"], weights=[3, 3, 1, 3])[0]
        if fault == "drop-before":
            return self.drop(fault)
        if fault == "500-before":
            count(fault)
            return self.answer(500, b'{"oops": "injected"}')
        status, answer = self.forward(body)
        if os.path.exists(counts_file + ".cut"):
            return self.drop("cut")
        if os.path.exists(counts_file + ".lose-answers"):
            return self.drop("answer-lost")
        if fault == "500-after":
            count(fault)
            return self.answer(500, b'{"oops": "injected"}')
        if fault == "hang-after":
            count(fault)
            time.sleep(30)
            self.close_connection = True
            return
        count("passed")
        self.answer(status, answer)

    do_GET = handle_any
    do_POST = handle_any


server = http.server.ThreadingHTTPServer(("127.0.0.1", int(port)), Proxy)
server.daemon_threads = True
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
print("ready", flush=True)
server.serve_forever()
