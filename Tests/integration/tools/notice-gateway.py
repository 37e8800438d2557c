#!/usr/bin/env python3
"""A notification gateway for the hub's notices, as a chain's would be: it checks each POST's
CLup-Signature (HMAC-SHA256 of "<t>.<body>" under the key in KEY_FILE's first line, t within
five minutes), takes each Idempotency-Key once, and answers as STATUS_FILE's lines say, one
line per request (then 200); a line `hang:SECONDS` answers nothing for that long, then 200
(the hub has given up by then, or not). Each request is one line of OUT (JSON): the key,
whether the signature verified, the time it came, the status answered ("hang" for a hang),
and the body.

usage: notice-gateway.py PORT KEY_FILE STATUS_FILE OUT"""
import hashlib
import hmac
import http.server
import json
import sys
import threading
import time

port, key_file, status_file, out = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
key = open(key_file).read().split("\n")[0].encode()
taken = set()
served = 0
lock = threading.Lock()


def verified(signature, body):
    fields = dict(part.split("=", 1) for part in signature.split(",") if "=" in part)
    if "t" not in fields or "v1" not in fields or abs(float(fields["t"]) - time.time()) > 300:
        return False
    expected = hmac.new(key, fields["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, fields["v1"])


class Gateway(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        global served
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        idempotency = self.headers.get("Idempotency-Key", "")
        good = verified(self.headers.get("CLup-Signature", ""), body)
        came = time.time()
        script = open(status_file).read().split()
        with lock:
            line = script[served] if served < len(script) else "200"
            served += 1
        hang = float(line.split(":")[1]) if line.startswith("hang:") else 0
        status = 200 if hang else int(line)
        if not good:
            status = 401
        with lock:
            fresh = not hang and 200 <= status < 300 and idempotency not in taken
            if fresh:
                taken.add(idempotency)
            with open(out, "a") as f:
                f.write(json.dumps({"key": idempotency, "verified": good, "at": came, "status": "hang" if hang else status,
                                    "fresh": fresh, "body": json.loads(body or b"null")}) + "\n")
        if hang:
            time.sleep(hang)
        try:
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()
        except OSError:  # the hub gave up waiting and closed the connection
            self.close_connection = True

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", port), Gateway).serve_forever()
