#!/usr/bin/env python3
"""tests/tools/sweep/check_png.py: is a screenshot of the sweep report blank?

Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what Chromium's --screenshot writes) with the
standard library only, and fails unless enough of it is drawn: a blank or error page is nearly
all one colour, a page of plots has many non-white pixels and many distinct colours (series,
the heatmap's scale, text anti-aliasing).
Usage: check_png.py SCREENSHOT.png [MIN_INK_FRACTION] [MIN_COLOURS]
"""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"FAIL: {path} is not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    channels = {2: 3, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace != 0:
        raise SystemExit(f"FAIL: {path}: unsupported PNG (depth {depth}, colour type {colour}, "
                         f"interlace {interlace})")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    # Bytewise addition mod 256 of whole rows at once (no carry between bytes), for the Up
    # filter, which is nearly every row of a page screenshot: a Python loop per byte would take
    # tens of seconds on a 1200 x 3000 image.
    low = int.from_bytes(b"\x7f" * stride, "big")
    high = int.from_bytes(b"\x80" * stride, "big")
    rows, previous = [], bytes(stride)
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, body = line[0], line[1:]
        if kind == 0:
            row = bytes(body)
        elif kind == 2:
            a, b = int.from_bytes(body, "big"), int.from_bytes(previous, "big")
            row = (((a & low) + (b & low)) ^ ((a ^ b) & high)).to_bytes(stride, "big")
        else:
            row = bytearray(body)
            for i in range(stride):
                left = row[i - channels] if i >= channels else 0
                up = previous[i]
                corner = previous[i - channels] if i >= channels else 0
                if kind == 1:
                    row[i] = (row[i] + left) & 0xFF
                elif kind == 3:
                    row[i] = (row[i] + (left + up) // 2) & 0xFF
                elif kind == 4:
                    p = left + up - corner
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                    pred = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                    row[i] = (row[i] + pred) & 0xFF
            row = bytes(row)
        rows.append(row)
        previous = row
    return width, height, channels, rows


def main():
    path = sys.argv[1]
    min_ink = float(sys.argv[2]) if len(sys.argv) > 2 else 0.01
    min_colours = int(sys.argv[3]) if len(sys.argv) > 3 else 16
    width, height, channels, rows = read_png(path)
    # A pixel is ink when any of its channels is below 240 (anti-aliased grey text counts).
    dark = bytes(1 if v < 240 else 0 for v in range(256))
    ink, colours = 0, set()
    for row in rows:
        r, g, b = row[0::channels], row[1::channels], row[2::channels]
        colours.update(zip(r, g, b))
        mask = (int.from_bytes(r.translate(dark), "big") | int.from_bytes(g.translate(dark), "big")
                | int.from_bytes(b.translate(dark), "big"))
        ink += bin(mask).count("1")
    fraction = ink / (width * height)
    print(f"{path}: {width}x{height}, {fraction:.2%} non-white pixels, {len(colours)} colours")
    if fraction < min_ink or len(colours) < min_colours:
        raise SystemExit(f"FAIL: the screenshot looks blank (need {min_ink:.2%} non-white pixels "
                         f"and {min_colours} colours)")


if __name__ == "__main__":
    main()
