#!/usr/bin/env python3
"""Compares a framebuffer's bytes with a PNG of the screen, pixel by pixel.

Usage: fb-matches-png.py FRAMEBUFFER PNG WIDTH HEIGHT BPP LINE_LENGTH R_OFF R_LEN G_OFF G_LEN B_OFF B_LEN
Prints how many pixels differ (after keeping, of each PNG colour, the bits the
framebuffer holds) and exits 0 only when none does. Reads 8-bit RGB or RGBA PNGs,
as cairo writes them; standard library only.
"""
import struct
import sys
import zlib


def read_png(path):
    """An 8-bit RGB or RGBA PNG (as cairo writes them) as (width, height, channels, rows);
    also read by png-same.py and vm-host.py. Rows filtered with Sub and Up are undone a
    whole row at a time: a 1280x720 screen is read in about a second."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), f"unsupported PNG: depth {depth}, colour type {colour}"
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride = zlib.decompress(idat), width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for x in range(channels, stride):
                line[x] = (line[x] + line[x - channels]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous))
        elif kind in (3, 4):
            for x in range(stride):
                left = line[x - channels] if x >= channels else 0
                up, corner = previous[x], previous[x - channels] if x >= channels else 0
                if kind == 3:
                    line[x] = (line[x] + (left + up) // 2) & 0xFF
                else:
                    p = left + up - corner
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                    line[x] = (line[x] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, channels, rows


def main():
    fb_path, png_path = sys.argv[1:3]
    width, height, bpp, line_length, r_off, r_len, g_off, g_len, b_off, b_len = map(int, sys.argv[3:])
    png_width, png_height, channels, rows = read_png(png_path)
    assert (png_width, png_height) == (width, height), f"PNG is {png_width}x{png_height}, framebuffer {width}x{height}"
    fb = open(fb_path, "rb").read(line_length * height)
    step, differing = bpp // 8, 0
    for y in range(height):
        for x in range(width):
            value = int.from_bytes(fb[y * line_length + x * step:y * line_length + (x + 1) * step], "little")
            r, g, b = rows[y][x * channels:x * channels + 3]
            got = [(value >> off) & ((1 << n) - 1) for off, n in ((r_off, r_len), (g_off, g_len), (b_off, b_len))]
            want = [c >> (8 - n) for c, n in ((r, r_len), (g, g_len), (b, b_len))]
            differing += got != want
    print(differing)
    sys.exit(0 if differing == 0 else 1)


if __name__ == "__main__":
    main()
