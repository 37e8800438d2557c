#!/usr/bin/env python3
"""A browser's push service, as far as the hub can tell (RFC 8030), with the browser's side
of the encryption in it: an independent check of the hub's Web Push.

usage: push-service.py PORT SUBSCRIPTION LOG [STATUS …]

Makes a browser's keys (P-256, and a 16-byte secret), writes the subscription a browser would
give (PushSubscription.toJSON(): endpoint, keys.p256dh, keys.auth) to SUBSCRIPTION, then
takes POST /push/<id>: checks the VAPID header (RFC 8292: an ES256 JWT for this service's
origin, expiring within 24 h, verified with the key it names), decrypts the body with http_ece
(RFC 8291, aes128gcm) and appends a JSON line per message to LOG: when, whether it verified
and decrypted, its Topic, Urgency and TTL, and the message. Answers the STATUS codes given
in turn, then 201. Runs with .venv-tools' Python (scripts/setup installs http_ece there)."""
import base64
import http.server
import json
import os
import secrets
import sys
import threading
import time

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils

port, subscription_file, log_file = int(sys.argv[1]), sys.argv[2], sys.argv[3]
statuses = [int(s) for s in sys.argv[4:]]
browser = ec.generate_private_key(ec.SECP256R1())
auth = secrets.token_bytes(16)
origin = f"http://127.0.0.1:{port}"
lock = threading.Lock()


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def vapid_verifies(header):
    """Whether `Authorization: vapid t=JWT, k=KEY` is a JWT for this origin signed by KEY."""
    if not header.startswith("vapid "):
        return False
    fields = dict(part.strip().split("=", 1) for part in header[6:].split(","))
    token, key = fields.get("t", ""), fields.get("k", "")
    head, claims, signature = token.split(".")
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(key))
    raw = unb64(signature)
    der = utils.encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    try:
        public.verify(der, f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return False
    header_json, claims_json = json.loads(unb64(head)), json.loads(unb64(claims))
    now = time.time()
    return (header_json.get("alg") == "ES256" and claims_json.get("aud") == origin
            and now < claims_json.get("exp", 0) <= now + 86400 and str(claims_json.get("sub", "")).startswith(("mailto:", "https:")))


class PushService(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        seen = {"at": time.time(), "path": self.path, "topic": self.headers.get("Topic"), "urgency": self.headers.get("Urgency"),
                "ttl": self.headers.get("TTL"), "encoding": self.headers.get("Content-Encoding")}
        try:
            seen["verified"] = vapid_verifies(self.headers.get("Authorization", ""))
        except Exception as error:  # a header that is no VAPID header
            seen["verified"] = False
            seen["vapid_error"] = str(error)
        try:
            seen["message"] = json.loads(http_ece.decrypt(body, private_key=browser, auth_secret=auth, version="aes128gcm"))
        except Exception as error:
            seen["message"] = None
            seen["decrypt_error"] = str(error)
        with lock:
            status = statuses.pop(0) if statuses else 201
            seen["answered"] = status
            with open(log_file, "a") as log:
                log.write(json.dumps(seen) + "\n")
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()


point = browser.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
with open(subscription_file + ".new", "w") as f:
    json.dump({"endpoint": f"{origin}/push/{secrets.token_hex(8)}", "expirationTime": None,
               "keys": {"p256dh": b64(point), "auth": b64(auth)}}, f)
os.replace(subscription_file + ".new", subscription_file)
server = http.server.ThreadingHTTPServer(("127.0.0.1", port), PushService)
server.daemon_threads = True
print("ready", flush=True)
server.serve_forever()
