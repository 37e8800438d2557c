#!/usr/bin/env python3
"""The host's side of a VM test: answers the guest's asks about what qemu sees.

Usage: vm-host.py QMP_SOCKET GUEST_SOCKET EXCHANGE_DIR

Connects to qemu's QMP monitor and to the guest's virtio-serial port (qemu's chardev
socket), once qemu made them. Each line the guest writes is a JSON object:
- a QMP command ({"execute": ...}), passed to qemu; its answer (the "return" or "error"
  line, events skipped) goes back to the guest as one line;
- {"clup": "screen", "device": ID, "head": N, "png": PATH, "rotation": DEGREES}: qemu's
  screendump of that head (what reached the display), compared pixel by pixel with the PNG
  at PATH (a path in EXCHANGE_DIR, which the guest mounts at the same path) turned by
  ROTATION degrees clockwise as clupd turns its screens; answers {"return": {"width", "height",
  "lit", "differing"}} (lit: pixels that are not black; differing only with a PNG);
- {"clup": "keys", "keys": [[QNUM, DOWN], ...], "pause": SECONDS, "device": ID, "head": N}:
  each key pressed or released in turn on the VM's keyboard (QMP input-send-event, QEMU's
  key numbers), with PAUSE between them, as a scanner types; where the VM has more than
  one keyboard, on the one bound to head N of display ID (usb-kbd,display=ID: qemu sends
  events to a console's keyboard, not to a device; without ID, to a keyboard bound to none);
- {"clup": "tap", "x": X, "y": Y, "hold": SECONDS, "device": ID, "head": N}: a finger on
  the VM's tablet (usb-tablet, 0…32767 on each axis) at X, Y for HOLD seconds (a tap rests
  about a tenth of a second: timed here, as the guest's asks take longer than that under
  emulation); sent to head N of display ID where the tablet is bound to it
  (usb-tablet,display=ID), as the totem in a box binds its tablet and its scanner;
- {"clup": "serial", "socket": NAME, "text": TEXT}: TEXT written to the chardev socket
  NAME (in the folder of QMP_SOCKET), which a VM's serial device reads.
Standard library only; runs until either socket closes.
"""
import importlib.util
import json
import os
import socket
import sys
import time


def connect(path, deadline):
    while True:
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(path)
            return sock
        except OSError:
            sock.close()
            if time.time() > deadline:
                raise
            time.sleep(0.1)  # not a wait on progress: qemu has not made its socket yet


class Lines:
    def __init__(self, sock):
        self.sock, self.buffer = sock, b""

    def read(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line

    def write(self, obj):
        self.sock.sendall(json.dumps(obj).encode() + b"\n")


def qmp_ask(qmp, command):
    qmp.write(command)
    while True:
        line = qmp.read()
        if line is None:
            raise EOFError("qemu closed its monitor")
        answer = json.loads(line)
        if "return" in answer or "error" in answer:
            return answer


def read_ppm(path):
    data = open(path, "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:
        while pos < len(data) and data[pos:pos + 1].isspace():
            pos += 1
        if pos >= len(data):
            raise ValueError(f"{path}: a PPM header cut short ({len(data)} bytes)")
        if data[pos:pos + 1] == b"#":
            pos = data.index(b"\n", pos)
            continue
        end = pos
        while end < len(data) and not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    assert fields[0] == b"P6" and fields[3] == b"255", f"not an 8-bit PPM: {fields}"
    width, height = int(fields[1]), int(fields[2])
    pixels = data[pos + 1:pos + 1 + width * height * 3]
    if len(pixels) != width * height * 3:
        raise ValueError(f"{path}: {len(pixels)} bytes of pixels for {width}x{height}")
    return width, height, pixels


def read_png(path):
    """8-bit RGB or RGBA PNG as (width, height, RGB bytes), with fb-matches-png.py's reader."""
    spec = importlib.util.spec_from_file_location("fb", os.path.join(os.path.dirname(__file__), "fb-matches-png.py"))
    fb = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fb)
    width, height, channels, rows = fb.read_png(path)
    if channels == 3:
        return width, height, b"".join(rows)
    out = bytearray()
    for row in rows:
        line = bytearray(row)
        del line[3::4]
        out += line
    return width, height, bytes(out)


def source(rotation, x, y, width, height):
    """The pixel of a picture of width x height (the turned size) that lands at (x, y)."""
    if rotation == 90:
        return y, height - 1 - x
    if rotation == 180:
        return width - 1 - x, height - 1 - y
    if rotation == 270:
        return width - 1 - y, x
    return x, y


def screen(qmp, exchange, ask):
    dump = os.path.join(exchange, "screendump.ppm")
    arguments = {"filename": dump}
    if "device" in ask:
        arguments["device"] = ask["device"]
        arguments["head"] = int(ask.get("head", 0))
    answer = qmp_ask(qmp, {"execute": "screendump", "arguments": arguments})
    if "error" in answer:
        return answer
    width, height, pixels = read_ppm(dump)
    lit = sum(1 for i in range(0, len(pixels), 3) if pixels[i:i + 3] != b"\0\0\0")
    result = {"width": width, "height": height, "lit": lit}
    if ask.get("png"):
        png_width, png_height, drawn = read_png(ask["png"])
        rotation = int(ask.get("rotation", 0))
        turned = (png_height, png_width) if rotation in (90, 270) else (png_width, png_height)
        if turned != (width, height):
            return {"error": {"desc": f"the screen is {width}x{height}, the PNG {png_width}x{png_height} turned {rotation}"}}
        differing = 0
        for y in range(height):
            for x in range(width):
                sx, sy = source(rotation, x, y, png_width, png_height)
                at, there = (y * width + x) * 3, (sy * png_width + sx) * 3
                if pixels[at:at + 3] != drawn[there:there + 3]:
                    differing += 1
        result["differing"] = differing
        if differing:
            import shutil; shutil.copy(dump, dump + ".differing.ppm"); shutil.copy(ask["png"], dump + ".differing.png")
    return {"return": result}


def keys(qmp, ask):
    pause = float(ask.get("pause", 0.01))
    for number, down in ask["keys"]:
        key = {"type": "key", "data": {"down": bool(down), "key": {"type": "number", "data": int(number)}}}
        arguments = {"events": [key]}
        if "device" in ask:
            arguments["device"], arguments["head"] = ask["device"], int(ask.get("head", 0))
        answer = qmp_ask(qmp, {"execute": "input-send-event", "arguments": arguments})
        if "error" in answer:
            return answer
        time.sleep(pause)  # the scanner's pace between keys, not a wait on progress
    return {"return": {"keys": len(ask["keys"])}}


def tap(qmp, ask):
    def button(down):
        return {"type": "btn", "data": {"down": down, "button": "left"}}

    def send(events):
        arguments = {"events": events}
        if "device" in ask:
            arguments["device"], arguments["head"] = ask["device"], int(ask.get("head", 0))
        return qmp_ask(qmp, {"execute": "input-send-event", "arguments": arguments})
    position = [{"type": "abs", "data": {"axis": axis, "value": int(ask[axis])}} for axis in ("x", "y")]
    answer = send(position + [button(True)])
    if "error" in answer:
        return answer
    time.sleep(float(ask.get("hold", 0.1)))  # the finger resting on the panel, not a wait on progress
    return send([button(False)])


serial_sockets = {}


def serial(folder, ask):
    name = os.path.basename(ask["socket"])
    if name not in serial_sockets:
        serial_sockets[name] = connect(os.path.join(folder, name), time.time() + 10)
    serial_sockets[name].sendall(ask["text"].encode())
    return {"return": {"bytes": len(ask["text"].encode())}}


def main():
    qmp_path, guest_path, exchange = sys.argv[1:4]
    deadline = time.time() + 120
    qmp = Lines(connect(qmp_path, deadline))
    qmp.read()  # the greeting
    qmp_ask(qmp, {"execute": "qmp_capabilities"})
    guest = Lines(connect(guest_path, deadline))
    while True:
        line = guest.read()
        if line is None:
            return
        ask = {}
        try:
            ask = json.loads(line)
            kind = ask.get("clup")
            if kind == "screen":
                answer = screen(qmp, exchange, ask)
            elif kind == "keys":
                answer = keys(qmp, ask)
            elif kind == "tap":
                answer = tap(qmp, ask)
            elif kind == "serial":
                answer = serial(os.path.dirname(qmp_path), ask)
            else:
                answer = qmp_ask(qmp, ask)
        except EOFError:
            return
        except Exception as error:  # the guest hears what went wrong rather than waiting for ever
            answer = {"error": {"desc": f"{type(error).__name__}: {error}"}}
        if "id" in ask:
            answer["id"] = ask["id"]
        guest.write(answer)


if __name__ == "__main__":
    main()
