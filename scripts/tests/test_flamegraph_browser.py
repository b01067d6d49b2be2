#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The flame graph's script in a real browser: headless Chromium, driven
by Selenium, loads the SVG scripts/tools/flamegraph.py draws from the folded
stacks of a `make demo` run (scripts/tests/flame/demo-6.12.folded) and
checks what a person would see: hovering a frame fills the details bar,
clicking one zooms (the frame spans the width, checked on a screenshot,
its ancestors fade, the other frames go), "Reset Zoom" puts every frame
back, "Search" (a prompt) and "?s=" in the URL highlight the matching
frames and give the share they cover.

    /usr/bin/python3 scripts/tests/test_flamegraph_browser.py

Needs chromium, chromium-driver and python3-selenium (scripts/deps/deps.sh);
without them the tests are skipped, or fail with
SLABTRACE_REQUIRE_BROWSER=1 (make check).  The last line is
"flame: N passed, N failed".
"""

import os
import struct
import subprocess
import sys
import tempfile
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tools"))
import flamegraph  # noqa: E402

FOLDED = os.path.join(HERE, "flame", "demo-6.12.folded")
REQUIRED = os.environ.get("SLABTRACE_REQUIRE_BROWSER") == "1"
try:
    from selenium import webdriver
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    HAVE = True
except ImportError:
    HAVE = False

WIDTH = 1200
FULL = WIDTH - 2 * flamegraph.MARGIN


def png_pixels(data):
    """(width, height, rows of (r, g, b)) of an 8-bit RGB/RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, bits, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert bits == 8 and ctype in (2, 6) and not interlace
            bpp = 4 if ctype == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        ftype, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def rgb(fill):
    return tuple(int(v) for v in fill[4:-1].split(","))


@unittest.skipUnless(HAVE or REQUIRED, "no python3-selenium (run with /usr/bin/python3)")
class Browser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="slabtrace-flame.")
        cls.svg = os.path.join(cls.dir, "demo.svg")
        with open(FOLDED) as f:
            text = flamegraph.render(flamegraph.parse(f), "demo", "objects", WIDTH)
        with open(cls.svg, "w") as f:
            f.write(text)
        opts = webdriver.ChromeOptions()
        for arg in ("--headless", "--no-sandbox", "--disable-gpu",
                    "--window-size=%d,400" % WIDTH, "--force-device-scale-factor=1",
                    "--hide-scrollbars"):
            opts.add_argument(arg)
        cls.driver = webdriver.Chrome(options=opts)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        subprocess.run(["rm", "-rf", cls.dir])

    def load(self, query=""):
        self.driver.get("file://" + self.svg + query)
        WebDriverWait(self.driver, 10).until(
            lambda d: d.execute_script("return typeof fg_frames !== 'undefined' && "
                                       "fg_frames.length > 0"))

    def frame(self, name):
        return self.driver.find_element(By.CSS_SELECTOR, 'g.frame[data-name="%s"]' % name)

    def rect(self, name):
        r = self.frame(name).find_element(By.CSS_SELECTOR, "rect")
        return float(r.get_attribute("x")), float(r.get_attribute("width"))

    def text(self, id_):
        return self.driver.find_element(By.ID, id_).text

    def row_pixels(self, name):
        """The screenshot's pixels across the middle of frame @name's row."""
        r = self.frame(name).find_element(By.CSS_SELECTOR, "rect")
        y = int(float(r.get_attribute("y")) + 3)
        _, _, rows = png_pixels(self.driver.get_screenshot_as_png())
        return rows[y], rgb(r.get_attribute("fill"))

    def test_hover_shows_details(self):
        self.load()
        ActionChains(self.driver).move_to_element(
            self.frame("leaky_alloc_buf [leaky]").find_element(By.CSS_SELECTOR, "rect")).perform()
        self.assertEqual(self.text("details"),
                         "Frame: leaky_alloc_buf [leaky] (20 objects, 76.92%)")

    def test_click_zooms_and_reset(self):
        self.load()
        name = "leaky_alloc_buf [leaky]"
        x0, w0 = self.rect(name)
        self.assertAlmostEqual(w0, FULL * 20 / 26, places=2)
        row, fill = self.row_pixels(name)
        self.assertNotEqual(row[WIDTH - flamegraph.MARGIN - 20], fill,
                            "before the zoom the frame ends at 77% of the width")
        self.frame(name).find_element(By.CSS_SELECTOR, "rect").click()
        self.assertEqual(self.rect(name), (flamegraph.MARGIN, FULL))
        self.assertIn("parent", self.frame("keep [leaky]").get_attribute("class"))
        self.assertEqual(self.rect("keep [leaky]"), (flamegraph.MARGIN, FULL))
        self.assertIn("hidden", self.frame("leaky_orphan_buf [leaky]").get_attribute("class"))
        self.assertIn("hidden", self.frame("syscall:openat").get_attribute("class"))
        self.assertTrue(self.driver.find_element(By.ID, "unzoom").is_displayed())
        # The screenshot: the frame's colour from its label's end to the
        # right margin (its label is on the left).
        row, fill = self.row_pixels(name)
        span = row[400:WIDTH - flamegraph.MARGIN - 2]
        self.assertEqual(set(span), {fill}, "the zoomed frame spans the width")
        self.driver.find_element(By.ID, "unzoom").click()
        self.assertAlmostEqual(self.rect(name)[1], w0, places=2)
        self.assertAlmostEqual(self.rect(name)[0], x0, places=2)
        self.assertEqual(self.frame("syscall:openat").get_attribute("class"), "frame")
        self.assertFalse(self.driver.find_element(By.ID, "unzoom").is_displayed())

    def test_search_button(self):
        self.load()
        self.driver.find_element(By.ID, "search").click()
        alert = self.driver.switch_to.alert
        alert.send_keys("orphan")
        alert.accept()
        self.assertEqual(self.text("matched"), "Matched: 19.2%")
        rect = self.frame("leaky_orphan_buf [leaky]").find_element(By.CSS_SELECTOR, "rect")
        self.assertEqual(rect.get_attribute("fill"), flamegraph.MATCH)
        self.assertEqual(self.text("search"), "Reset Search")
        self.driver.find_element(By.ID, "search").click()
        self.assertEqual(self.text("matched"), "")
        self.assertNotEqual(rect.get_attribute("fill"), flamegraph.MATCH)

    def test_search_in_url(self):
        # A regular expression; nested matches count once (every leaky
        # frame is under ctl_write [leaky]).
        self.load("?s=%5C%5Bleaky%5C%5D")
        self.assertEqual(self.text("matched"), "Matched: 96.2%")
        self.load("?s=leaky_(alloc|orphan)_buf")
        self.assertEqual(self.text("matched"), "Matched: 96.2%")
        self.load("?s=syscall:openat")
        self.assertEqual(self.text("matched"), "Matched: 3.8%")


if __name__ == "__main__":
    result = unittest.main(argv=[sys.argv[0], "-v"], exit=False).result
    nfail = len(result.failures) + len(result.errors)
    if REQUIRED and result.skipped:
        nfail += len(result.skipped)
    print("flame: %d passed, %d failed" % (result.testsRun - nfail - len(result.skipped), nfail))
    sys.exit(1 if nfail else 0)
