#!/usr/bin/env python3
"""The guest's side of a VM test: asks the host (tools/vm-host.py) through the virtio-serial
port named clup.qmp, and prints the answer's "return" as JSON.

Usage: vm-ask.py JSON
Exits 1, printing qemu's error, when the answer is an error.
"""
import glob
import json
import os
import sys
import time


def port():
    for name in glob.glob("/sys/class/virtio-ports/*/name"):
        if open(name).read().strip() == "clup.qmp":
            return "/dev/" + os.path.basename(os.path.dirname(name))
    sys.exit("vm-ask: no virtio-serial port clup.qmp (is this the VM of scripts/kernel-vm?)")


def main():
    ask = json.loads(sys.argv[1])
    # An answer to an earlier ask given up on (its asker killed) may still come: each ask
    # carries an id, and answers with another one are skipped.
    ask["id"] = f"{os.getpid()}-{time.monotonic_ns()}"
    fd = os.open(port(), os.O_RDWR)
    os.write(fd, json.dumps(ask).encode() + b"\n")
    buffer, answer = b"", None
    while answer is None or answer.get("id") != ask["id"]:
        while b"\n" not in buffer:
            chunk = os.read(fd, 65536)
            if not chunk:
                sys.exit("vm-ask: the host closed the port")
            buffer += chunk
        line, buffer = buffer.split(b"\n", 1)
        answer = json.loads(line)
    os.close(fd)
    if "error" in answer:
        sys.exit(f"vm-ask: {answer['error'].get('desc', answer['error'])}")
    print(json.dumps(answer["return"]))


if __name__ == "__main__":
    main()
