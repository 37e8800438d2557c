#!/usr/bin/env python3
"""A notification gateway for the hub's notices, as a chain's would be: it checks each POST's
CLup-Signature (HMAC-SHA256 of "<t>.<body>" under the key in KEY_FILE's first line, t within
five minutes), takes each Idempotency-Key once, and answers as STATUS_FILE's lines say, one
line per request (then 200). Each request is one line of OUT (JSON): the key, whether the
signature verified, the time it came, the status answered, and the body.

usage: notice-gateway.py PORT KEY_FILE STATUS_FILE OUT"""
import hashlib
import hmac
import http.server
import json
import sys
import time

port, key_file, status_file, out = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
key = open(key_file).read().split("\n")[0].encode()
taken = set()
served = 0


def verified(signature, body):
    fields = dict(part.split("=", 1) for part in signature.split(",") if "=" in part)
    if "t" not in fields or "v1" not in fields or abs(float(fields["t"]) - time.time()) > 300:
        return False
    expected = hmac.new(key, fields["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, fields["v1"])


class Gateway(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        global served
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        idempotency = self.headers.get("Idempotency-Key", "")
        good = verified(self.headers.get("CLup-Signature", ""), body)
        script = open(status_file).read().split()
        status = int(script[served]) if served < len(script) else 200
        served += 1
        if not good:
            status = 401
        fresh = 200 <= status < 300 and idempotency not in taken
        if fresh:
            taken.add(idempotency)
        with open(out, "a") as f:
            f.write(json.dumps({"key": idempotency, "verified": good, "at": time.time(), "status": status, "fresh": fresh,
                                "body": json.loads(body or b"null")}) + "\n")
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", port), Gateway).serve_forever()
