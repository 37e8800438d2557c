#!/usr/bin/env python3
"""Sends one signed request to the hub's /v1/events, as a totem would or as an attacker
might, and prints the status and the hub's error code (or the acknowledged seq).

usage: signed-request.py HUB_URL CA_FILE KEY_FILE DEVICE_ID MODE
MODE: ok | replay (the same request twice) | stale (signed 10 minutes ago) |
      tampered (the body changed after signing) | unsigned (no signature headers)"""
import hashlib
import json
import ssl
import sys
import time
import urllib.error
import urllib.request
import secrets

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
import base64

hub, ca, key_file, device, mode = sys.argv[1:6]
key = Ed25519PrivateKey.from_private_bytes(open(key_file, "rb").read())
context = ssl.create_default_context(cafile=ca)
path = "/v1/events"
body = json.dumps({"events": [], "outboxDepth": 0}).encode()
millis = int(time.time() * 1000) - (600_000 if mode == "stale" else 0)
nonce = secrets.token_hex(16)
text = "\n".join(["POST", path, device, str(millis), nonce, hashlib.sha256(body).hexdigest()]).encode()
headers = {"Content-Type": "application/json", "CLup-Device": device, "CLup-Time": str(millis), "CLup-Nonce": nonce,
           "CLup-Signature": base64.b64encode(key.sign(text)).decode()}
if mode == "unsigned":
    headers = {"Content-Type": "application/json"}
if mode == "tampered":
    body = json.dumps({"events": [], "outboxDepth": 1}).encode()


def send():
    request = urllib.request.Request(hub + path, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, context=context, timeout=20) as response:
            return f"{response.status} acknowledged={json.load(response)['acknowledged']}"
    except urllib.error.HTTPError as error:
        return f"{error.code} {json.load(error)['error']['code']}"


first = send()
print(f"{first.split()[0]} then {send()}" if mode == "replay" else first)
