#!/usr/bin/python3
"""test/charts.py - a chart drawn in the sandbox shows what a person would see.

A line chart with a title, axis labels, tick labels and a legend is drawn by
sandbox_execute and decoded: its PNG must have the figure's size, must not
be blank (text where the title and tick labels go), must equal what the same
code draws in plain Python (the sandbox's fonts and settings are
matplotlib's), and must match test/charts/reference.png, checked in, within
a tolerance (another freetype draws glyph edges slightly differently).  The
tolerance is checked to matter: the same chart with another title does not
pass it.

  /usr/bin/python3 test/charts.py                    # the test
  /usr/bin/python3 test/charts.py --write-reference  # after a deliberate change
Connects with the PG* environment variables (test/cluster.sh's cluster).
"""
import base64
import io
import os
import sys

import numpy as np
import psycopg2

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "charts", "reference.png")
# root mean square of the difference, 0-255 per channel: what another
# freetype's anti-aliasing moves stays well under it, another title does not
TOLERANCE = 4.0

CHART = '''
import numpy as np
import matplotlib.pyplot as plt
def main(title="Monthly revenue"):
    x = np.arange(1000)
    fig, ax = plt.subplots(figsize=(6.4, 4.8), dpi=100)
    ax.plot(x, np.sin(x / 80.0) * 40 + 100, label="revenue")
    ax.plot(x, np.cos(x / 120.0) * 20 + 90, label="cost")
    ax.set_title(title)
    ax.set_xlabel("day")
    ax.set_ylabel("EUR (thousands)")
    ax.legend(loc="upper right")
    return fig
'''


def decode(png):
    from PIL import Image
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.float64)


def rms(a, b):
    if a.shape != b.shape:
        return float("inf")
    return float(np.sqrt(np.mean((a - b) ** 2)))


def plain(title="Monthly revenue"):
    """The same code in plain Python, outside the sandbox."""
    import matplotlib
    matplotlib.use("agg")
    namespace = {}
    exec(CHART, namespace)
    buf = io.BytesIO()
    namespace["main"](title).savefig(buf, format="png")
    return buf.getvalue()


def main():
    if "--write-reference" in sys.argv:
        with open(REFERENCE, "wb") as f:
            f.write(plain())
        print("wrote", REFERENCE)
        return 0
    conn = psycopg2.connect("")
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("CREATE EXTENSION IF NOT EXISTS pysandbox")
    cur.execute("SELECT sandbox_execute(%s)", (CHART,))
    image = cur.fetchone()[0]["main"]
    failures = []

    def check(ok, what):
        print(("ok   " if ok else "FAIL ") + what)
        if not ok:
            failures.append(what)

    check(image.get("$image") == "image/png", 'the result is {"$image": "image/png", ...}')
    png = base64.b64decode(image["data"])
    check(png[:8] == b"\x89PNG\r\n\x1a\n", "the data is a PNG")
    pixels = decode(png)
    check(pixels.shape == (480, 640, 3), "640 x 480 pixels, as figsize and dpi say (%r)"
          % (pixels.shape,))
    ink = pixels.min(axis=2) < 128            # dark: lines and text
    check(0.01 < ink.mean() < 0.5, "not blank: %.1f %% of the pixels are dark"
          % (100 * ink.mean()))
    check(ink[:40, 200:440].any(), "the title is drawn (dark pixels above the axes)")
    check(ink[440:, 60:600].any(), "the x label and tick labels are drawn (below the axes)")
    check(ink[60:420, :50].any(), "the y label and tick labels are drawn (left of the axes)")
    same = rms(pixels, decode(plain()))
    check(same <= 0.5, "equals the same code in plain Python (rms %.2f)" % same)
    reference = decode(open(REFERENCE, "rb").read())
    diff = rms(pixels, reference)
    check(diff <= TOLERANCE, "matches test/charts/reference.png (rms %.2f <= %.1f)"
          % (diff, TOLERANCE))
    other = rms(decode(plain("Monthly costs")), reference)
    check(other > TOLERANCE, "another title does not match the reference (rms %.2f > %.1f)"
          % (other, TOLERANCE))
    conn.close()
    print("charts: %d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
