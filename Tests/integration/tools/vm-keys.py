#!/usr/bin/env python3
"""Types, on the VM's USB keyboard (qemu's usb-kbd, through tools/vm-host.py), the key
events a wedge scanner sends: `clupd scanner-keys --layout LAYOUT CODE | vm-keys.py [PAUSE [DISPLAY HEAD]]`.

Reads binary struct input_event records (24 bytes on x86-64) from stdin, keeps the key
presses and releases, and asks the host to send them at a scanner's pace (PAUSE seconds
between keys, default 0.008), where the VM has more than one keyboard on the one bound to
head HEAD of the display with qemu id DISPLAY. Prints the host's answer.
"""
import json
import os
import struct
import subprocess
import sys

# Linux key codes of the keys a code is typed with, as QEMU numbers them (PC scancode set
# 1, 0x80 added for the extended keys): the main block's codes are the scancodes already.
EXTENDED = {96: 0x9C, 97: 0x9D, 98: 0xB5, 100: 0xB8}  # KP Enter, right Ctrl, KP /, AltGr


def qnum(code):
    if code in EXTENDED:
        return EXTENDED[code]
    if 1 <= code <= 88:
        return code
    sys.exit(f"vm-keys: key code {code} has no QEMU number here")


def main():
    pause = float(sys.argv[1]) if len(sys.argv) > 1 else 0.008
    data, keys = sys.stdin.buffer.read(), []
    for offset in range(0, len(data) - 23, 24):
        _, _, kind, code, value = struct.unpack("<qqHHi", data[offset:offset + 24])
        if kind == 1 and value in (0, 1):
            keys.append([qnum(code), value == 1])
    ask = os.path.join(os.path.dirname(os.path.abspath(__file__)), "vm-ask.py")
    ask_keys = {"clup": "keys", "keys": keys, "pause": pause}
    if len(sys.argv) > 3:
        ask_keys["device"], ask_keys["head"] = sys.argv[2], int(sys.argv[3])
    request = json.dumps(ask_keys)
    sys.exit(subprocess.run([sys.executable, ask, request], timeout=300).returncode)


if __name__ == "__main__":
    main()
