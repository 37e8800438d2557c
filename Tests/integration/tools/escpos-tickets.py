#!/usr/bin/env python3
"""Reads the ESC/POS bytes a thermal printer was sent, as the printer would: one ticket per
ESC @ (initialise) ... GS V (cut). For each ticket prints a line of JSON: its text lines
(in code page 850, ASCII for the number), whether it was cut, and the paths of its
GS v 0 bitmaps written as PBM images (a white border added) for zbarimg to read.

  escpos-tickets.py PRINTED.bin OUTDIR
"""
import json
import os
import sys


def pbm(raster, border=16):
    row_bytes, height, bits = raster
    width = row_bytes * 8 + 2 * border
    out_row = (width + 7) // 8
    image = bytearray(out_row * (height + 2 * border))
    for y in range(height):
        for x in range(row_bytes * 8):
            if bits[y * row_bytes + x // 8] & (0x80 >> (x % 8)):
                px, py = x + border, y + border
                image[py * out_row + px // 8] |= 0x80 >> (px % 8)
    return b"P4\n%d %d\n" % (width, height + 2 * border) + bytes(image)


def tickets(data):
    """Splits DATA at each ESC @ and reads each piece; raises ValueError on a command it does not know."""
    found, i, current = [], 0, None
    text = bytearray()

    def need(count):
        if i + count > len(data):
            raise ValueError(f"truncated command at byte {i}")

    while i < len(data):
        byte = data[i]
        if byte == 0x1B:
            need(2)
            command = data[i + 1]
            if command == 0x40:
                text = bytearray()
                current = {"lines": [], "rasters": [], "cut": False}
                found.append(current)
                i += 2
                continue
            if current is None:
                raise ValueError(f"bytes before ESC @ at byte {i}")
            if command in (0x61, 0x64, 0x45, 0x74):
                need(3)
                i += 3
                continue
            raise ValueError(f"unknown command ESC {command:#04x} at byte {i}")
        if current is None:
            raise ValueError(f"bytes before ESC @ at byte {i}")
        if byte == 0x1D:
            need(2)
            command = data[i + 1]
            if command == 0x21:
                need(3)
                i += 3
            elif command == 0x56:
                need(4)
                current["cut"] = True
                i += 4
            elif command == 0x76:
                need(8)
                row_bytes = data[i + 4] | data[i + 5] << 8
                height = data[i + 6] | data[i + 7] << 8
                need(8 + row_bytes * height)
                current["rasters"].append((row_bytes, height, data[i + 8:i + 8 + row_bytes * height]))
                i += 8 + row_bytes * height
            elif command == 0x28:
                need(5)
                length = data[i + 3] | data[i + 4] << 8
                need(5 + length)
                i += 5 + length
            else:
                raise ValueError(f"unknown command GS {command:#04x} at byte {i}")
        elif byte == 0x0A:
            if text:
                current["lines"].append(text.decode("cp850"))
            text = bytearray()
            i += 1
        else:
            text.append(byte)
            i += 1
    return found


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    try:
        read = tickets(data)
    except ValueError as error:
        sys.exit(f"escpos-tickets: {error}")
    os.makedirs(sys.argv[2], exist_ok=True)
    for number, ticket in enumerate(read, 1):
        paths = []
        for index, raster in enumerate(ticket["rasters"], 1):
            path = os.path.join(sys.argv[2], f"ticket-{number}-bitmap-{index}.pbm")
            with open(path, "wb") as f:
                f.write(pbm(raster))
            paths.append(path)
        print(json.dumps({"lines": ticket["lines"], "cut": ticket["cut"], "bitmaps": paths}, ensure_ascii=False))


if __name__ == "__main__":
    main()
