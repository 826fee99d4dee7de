#!/usr/bin/env python3
"""Renders a `gpuroof report` page in headless Chromium and checks what a user would see.

usage: report_browser_test.py GPUROOF SOURCE_DIR [SHARED_FIXTURES_DIR]

Checks: Chromium renders the page from disk with no console message (the page has no script,
so any message is a problem: a blocked resource, a parse error reported by the browser), and the
screenshot is not blank: it holds the engine colours of the bars (kernel blue #0072b2, H2D orange
#e69f00) over a clear share of its pixels. The same for a `compare --html` page of the example
against itself: its green PASS box and the ratio chart's grey noise-floor bands are visible. And a
multi-trace report (two nsys exports and a Kineto trace from the shared fixtures, else the example
three times): in every SVG chart no two text boxes overlap, measured by the browser itself
(getBBox of each <text>, from a copy of the page with a measuring script). Exits 77 (ctest:
skipped) when Chromium is not
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


MEASURE = """<script>
addEventListener('load', () => {
  const out = [];
  document.querySelectorAll('svg').forEach((svg, chart) => {
    svg.querySelectorAll('text').forEach((text) => {
      const b = text.getBoundingClientRect();
      if (b.width > 0) out.push([chart, text.textContent, b.left, b.top, b.right, b.bottom]);
    });
  });
  const pre = document.createElement('pre');
  pre.id = 'gpuroof-boxes';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


def text_boxes(chromium, page, tmp):
    """[(chart, text, left, top, right, bottom)] of every SVG text as Chromium lays it out."""
    import html
    import json
    with open(page, encoding="utf-8") as f:
        content = f.read()
    measured = os.path.join(tmp, "measured.html")
    with open(measured, "w", encoding="utf-8") as f:
        f.write(content.replace("</body>", MEASURE + "</body>"))
    result = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu",
         f"--user-data-dir={os.path.join(tmp, 'profile-measure')}", "--no-first-run",
         f"--window-size={WIDTH},{HEIGHT}", "--virtual-time-budget=5000", "--dump-dom",
         "file://" + measured],
        capture_output=True, text=True, timeout=240)
    start = result.stdout.find('<pre id="gpuroof-boxes">')
    if start < 0:
        return None
    end = result.stdout.find("</pre>", start)
    return json.loads(html.unescape(result.stdout[start + len('<pre id="gpuroof-boxes">'):end]))


def overlapping(boxes, slack=0.5):
    """Pairs of text boxes of one chart that overlap by more than `slack` px both ways."""
    found = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if a[0] != b[0]:
                continue
            dx = min(a[4], b[4]) - max(a[2], b[2])
            dy = min(a[5], b[5]) - max(a[3], b[3])
            if dx > slack and dy > slack:
                found.append((a[1], b[1]))
    return found


def count(rows, colour, tolerance=24):
    return sum(1 for row in rows for p in row if near(p, colour, tolerance))


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__)
        return 2
    gpuroof, source_dir = sys.argv[1], sys.argv[2]
    fixtures = sys.argv[3] if len(sys.argv) == 4 else ""
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
        # Several traces, many engines: the labels of the bars must never overlap.
        traces = [os.path.join(fixtures, "nsys", "nsys2022_4_streams4.sqlite"),
                  os.path.join(fixtures, "nsys", "nsys2022_1_concurrent.sqlite"),
                  os.path.join(fixtures, "kineto", "hta_rank0_a100.json.gz")]
        if not all(os.path.exists(t) for t in traces):
            print("note: shared fixtures not found; the multi-trace report uses the example 3 times")
            traces = [example, example, example]
        multi = os.path.join(tmp, "multi.html")
        subprocess.run([gpuroof, "report", *traces, "-q", "-o", multi], check=True)
        multi_shot = render(chromium, multi, tmp, "multi")
        boxes = text_boxes(chromium, multi, tmp)
    if boxes is None:
        print("FAIL: the multi-trace report's text boxes could not be measured")
        return 1
    clashes = overlapping(boxes)
    print(f"multi-trace report: {len(boxes)} SVG text boxes, {len(clashes)} overlapping pairs")
    if clashes:
        for a, b in clashes[:10]:
            print(f"FAIL: overlapping labels: {a!r} and {b!r}")
        return 1
    for shot in (report, compare, multi_shot):
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
