#!/usr/bin/env python3
"""Plugs in a kernel input device made through uinput from an evemu description, runs a
list of steps (play an evemu recording with its timing, wait for a file), and unplugs it.

Usage: uinput-device.py DESC STEP...
  STEP is play:EVENTS (plays the recording EVENTS with its timing) or wait-for:FILE (waits
  until FILE exists: the test creates it once the program under test is ready, so nothing
  depends on how fast a busy machine is). Prints the device's event node
  (/dev/input/eventN) as soon as the kernel made it, runs the steps in order, then
  destroys the device. Unlike writing into the event node (evemu-play NODE), events sent
  through uinput reach a reader that grabbed the device, as a real device's do. Standard
  library only; x86-64 ioctl numbers.
"""
import fcntl
import os
import struct
import sys
import time

UI_SET_EVBIT, UI_SET_KEYBIT, UI_SET_ABSBIT, UI_SET_PROPBIT = 0x40045564, 0x40045565, 0x40045567, 0x4004556E
UI_DEV_SETUP, UI_ABS_SETUP, UI_DEV_CREATE, UI_DEV_DESTROY = 0x405C5503, 0x401C5504, 0x5501, 0x5502
EV_KEY, EV_ABS = 0x01, 0x03


def ui_get_sysname(length):
    return (2 << 30) | (length << 16) | (ord("U") << 8) | 44


def read_description(path):
    """The name, ids, property bits, event bits per type and axis ranges of an evemu .desc."""
    name, ids, props, bits, axes = "uinput device", (0x18, 0, 0, 0), [], {}, {}
    for line in open(path):
        kind, _, rest = line.partition(": ")
        fields = rest.split()
        if kind == "N":
            name = rest.strip()
        elif kind == "I":
            ids = tuple(int(f, 16) for f in fields[:4])
        elif kind == "P":
            props += [int(f, 16) for f in fields]
        elif kind == "B":
            bits.setdefault(int(fields[0], 16), []).extend(int(f, 16) for f in fields[1:])
        elif kind == "A":
            code = int(fields[0], 16)
            values = [int(f) for f in fields[1:]] + [0] * 6
            axes[code] = values[:5]  # minimum, maximum, fuzz, flat, resolution

    def set_bits(mask):
        return [i * 8 + b for i, byte in enumerate(mask) for b in range(8) if byte >> b & 1]

    return name, ids, set_bits(props), {t: set_bits(m) for t, m in bits.items()}, axes


def play(fd, events_path):
    """Writes the events of an evemu recording with the recording's timing."""
    start, first = time.monotonic(), None
    for line in open(events_path):
        if not line.startswith("E: "):
            continue
        stamp, event_type, code, value = line[3:].split()[:4]
        stamp = float(stamp)
        first = stamp if first is None else first
        delay = start + (stamp - first) - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        os.write(fd, struct.pack("qqHHi", 0, 0, int(event_type, 16), int(code, 16), int(value)))


def main():
    desc, steps = sys.argv[1], sys.argv[2:]
    for step in steps:
        if not step.startswith(("play:", "wait-for:")):
            sys.exit(f"uinput-device: unknown step {step!r} (play:EVENTS or wait-for:FILE)")
    name, ids, props, bits, axes = read_description(desc)
    fd = os.open("/dev/uinput", os.O_WRONLY | os.O_NONBLOCK)
    for event_type in bits.get(0, []):
        if event_type:
            fcntl.ioctl(fd, UI_SET_EVBIT, event_type)
    for code in bits.get(EV_KEY, []):
        fcntl.ioctl(fd, UI_SET_KEYBIT, code)
    for prop in props:
        fcntl.ioctl(fd, UI_SET_PROPBIT, prop)
    for code, (minimum, maximum, fuzz, flat, resolution) in axes.items():
        fcntl.ioctl(fd, UI_SET_ABSBIT, code)
        fcntl.ioctl(fd, UI_ABS_SETUP, struct.pack("HxxiiiiiI", code, 0, minimum, maximum, fuzz, flat, resolution))
    fcntl.ioctl(fd, UI_DEV_SETUP, struct.pack("HHHH80sI", *ids, name.encode()[:79], 0))
    fcntl.ioctl(fd, UI_DEV_CREATE)
    sysname = fcntl.ioctl(fd, ui_get_sysname(64), bytes(64)).split(b"\0")[0].decode()
    directory = f"/sys/devices/virtual/input/{sysname}"
    while True:
        nodes = [entry for entry in os.listdir(directory) if entry.startswith("event")]
        if nodes and os.path.exists(f"/dev/input/{nodes[0]}"):
            break
        time.sleep(0.05)
    print(f"/dev/input/{nodes[0]}", flush=True)
    for step in steps:
        kind, _, argument = step.partition(":")
        if kind == "play":
            play(fd, argument)
        else:
            while not os.path.exists(argument):
                time.sleep(0.05)
    fcntl.ioctl(fd, UI_DEV_DESTROY)
    os.close(fd)


main()
