#!/usr/bin/env python3
"""Searches a whole block device (free blocks included) for secrets in clear.

Usage: find-secrets.py DEVICE SECRET_FILE...

Each SECRET_FILE holds one secret as its owner keeps it: a raw key (32 bytes), a PEM
private key, or a line of text. Searched for: the bytes as they are, their base64, and for
a PEM the DER inside it and every line of its body (a PEM file left on disk shows them).
Prints each find (which secret, what form, the byte offset), then one line (what was
searched, how much, how long); exits 0 when nothing was found, 1 otherwise.
"""
import base64
import sys
import time

CHUNK = 64 << 20


def needles(path):
    data = open(path, "rb").read()
    name = path.rsplit("/", 1)[-1]
    found = []
    if data.startswith(b"-----BEGIN"):
        body = [line for line in data.splitlines() if line and not line.startswith(b"-----")]
        found += [(name, f"PEM line {i + 1}", line) for i, line in enumerate(body) if len(line) >= 16]
        der = base64.b64decode(b"".join(body))
        found.append((name, "DER", der))
    else:
        # A raw key is 32 bytes, any of them a newline; a text secret loses its line's end.
        secret = data if len(data) == 32 else data.rstrip(b"\n")
        found.append((name, "raw", secret))
        found.append((name, "base64", base64.b64encode(secret)))
    return [(n, form, needle) for n, form, needle in found if len(needle) >= 16]


def main():
    device, files = sys.argv[1], sys.argv[2:]
    wanted = [n for path in files for n in needles(path)]
    overlap = max(len(needle) for _, _, needle in wanted) - 1
    started = time.monotonic()
    hits = []
    offset = 0
    tail = b""
    with open(device, "rb", buffering=0) as disk:
        while True:
            chunk = disk.read(CHUNK)
            if not chunk:
                break
            window = tail + chunk
            base = offset - len(tail)
            for name, form, needle in wanted:
                at = window.find(needle)
                while at >= 0:
                    hits.append((name, form, base + at))
                    at = window.find(needle, at + 1)
            tail = window[-overlap:]
            offset += len(chunk)
    seconds = time.monotonic() - started
    # A find in the overlap is seen twice: once per window.
    hits = sorted(set(hits))
    for name, form, at in hits:
        print(f"found {name} ({form}) at byte {at} of {device}")
    print(f"searched {offset / (1 << 30):.1f} GiB of {device} in {seconds:.0f} s for {len(files)} secrets "
          f"({len(wanted)} forms: raw, base64, PEM lines, DER): {len(hits)} found")
    sys.exit(1 if hits else 0)


if __name__ == "__main__":
    main()
