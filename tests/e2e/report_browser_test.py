#!/usr/bin/env python3
"""Renders a `gpuroof report` page in headless Chromium and checks what a user would see.

usage: report_browser_test.py GPUROOF SOURCE_DIR

Checks: Chromium renders the page from disk with no console message (the page has no script,
so any message is a problem: a blocked resource, a parse error reported by the browser), and the
screenshot is not blank: it holds the engine colours of the bars (kernel blue #0072b2, H2D orange
#e69f00) over a clear share of its pixels. The same for a `compare --html` page of the example
against itself: its green PASS box and the ratio chart's grey noise-floor bands are visible. Exits 77 (ctest: skipped) when Chromium is not
installed, saying so on stdout. Standard library only: the PNG is decoded here.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = 77
WIDTH, HEIGHT = 1200, 1000


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def read_png(path):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, width, height, channels = 8, b"", 0, 0, 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour not in (2, 6):
                raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                predictor = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + predictor) & 0xFF
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, channels)])
        previous = line
    return width, height, rows


def near(pixel, colour, tolerance=24):
    return all(abs(p - c) <= tolerance for p, c in zip(pixel, colour))


def render(chromium, page, tmp, name):
    """Screenshot of `page` as (width, height, rows), or a failure message (str)."""
    shot = os.path.join(tmp, name + ".png")
    result = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--user-data-dir={os.path.join(tmp, 'profile-' + name)}", "--no-first-run",
         f"--window-size={WIDTH},{HEIGHT}", f"--screenshot={shot}",
         "--enable-logging=stderr", "--v=0", "file://" + page],
        capture_output=True, text=True, timeout=240)
    console = [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
    if console:
        return f"FAIL: {name}: the page raised console messages:\n" + "\n".join(console)
    if result.returncode != 0 or not os.path.exists(shot):
        return (f"FAIL: {name}: chromium exited {result.returncode} without a screenshot:\n"
                + result.stderr[-4000:])
    return read_png(shot)


def count(rows, colour, tolerance=24):
    return sum(1 for row in rows for p in row if near(p, colour, tolerance))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    gpuroof, source_dir = sys.argv[1], sys.argv[2]
    chromium = find_chromium()
    if chromium is None:
        print("SKIPPED: chromium is not installed (apt-get install chromium); the report page "
              "was not rendered in a browser")
        return SKIP
    example = os.path.join(source_dir, "examples", "frame_pipeline.sqlite")
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "report.html")
        subprocess.run([gpuroof, "report", example, "--units", "2000", "-o", page], check=True)
        report = render(chromium, page, tmp, "report")
        gate = os.path.join(tmp, "compare.html")
        # A profile against itself passes: exit 0, the green status box.
        subprocess.run([gpuroof, "compare", example, example, "-q", "--html", gate],
                       check=True, stdout=subprocess.DEVNULL)
        compare = render(chromium, gate, tmp, "compare")
    for shot in (report, compare):
        if isinstance(shot, str):
            print(shot)
            return 1
    width, height, rows = report
    pixels = width * height
    white = count(rows, (255, 255, 255), 6)
    kernel = count(rows, (0x00, 0x72, 0xB2))
    h2d = count(rows, (0xE6, 0x9F, 0x00))
    print(f"report screenshot {width}x{height}: {100 * (pixels - white) / pixels:.1f} % not "
          f"white, kernel blue {kernel} px, H2D orange {h2d} px")
    # The bars alone are 56 px wide and up to 240 px tall: thousands of pixels each.
    if pixels - white < pixels // 50:
        print("FAIL: the report screenshot is blank")
        return 1
    if kernel < 1000 or h2d < 1000:
        print("FAIL: the engine bars are not visible in the report screenshot")
        return 1
    width, height, rows = compare
    pixels = width * height
    white = count(rows, (255, 255, 255), 6)
    status = count(rows, (0xDA, 0xFB, 0xE1), 4)  # the PASS box's green
    floor = count(rows, (0xEA, 0xEE, 0xF2), 3)   # the charts' noise-floor bands
    print(f"compare screenshot {width}x{height}: {100 * (pixels - white) / pixels:.1f} % not "
          f"white, PASS box {status} px, floor bands {floor} px")
    if pixels - white < pixels // 50:
        print("FAIL: the compare screenshot is blank")
        return 1
    if status < 5000 or floor < 500:
        print("FAIL: the compare page's status box or ratio chart is not visible")
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
