#!/usr/bin/python3
"""Unit tests for charts (src/python/sb_charts.py) and the guards it adds.

Run with Debian's interpreter: /usr/bin/python3 test/python/test_charts.py
matplotlib is prepared as the worker prepares it; the guards of a call are
switched on and off around each test (sb_guard.set_pandas_guard), as
serve() does.  No OS layer is involved: this is the Python layer alone.
"""

import io
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "src", "python"))

import sb_charts  # noqa: E402
import sb_guard  # noqa: E402
import sb_harden  # noqa: E402

CWD = os.getcwd()
with sb_charts.home() as HOME:
    import matplotlib  # noqa: E402
    READY = sb_charts.prepare()
sb_harden.harden_pandas()
sb_harden.harden_native_loads()
sb_harden.harden_processes()

import matplotlib.pyplot as plt  # noqa: E402


class ChartTests(unittest.TestCase):

    def setUp(self):
        sb_guard.set_pandas_guard(True)
        sb_charts.MAX_PIXELS[0] = 4000000

    def tearDown(self):
        sb_guard.leave_call()
        sb_charts.end_call()

    def test_warm_up_leaves_nothing(self):
        self.assertTrue(READY)
        self.assertFalse(os.path.exists(HOME))
        self.assertEqual(os.getcwd(), CWD)
        self.assertNotIn("MPLCONFIGDIR", os.environ)
        self.assertEqual(matplotlib.get_backend().lower(), "agg")

    def test_figures_and_axes_become_png(self):
        fig, ax = plt.subplots(figsize=(2, 1), dpi=50)
        sub = fig.subfigures(1, 1) if hasattr(fig, "subfigures") else fig
        for value in (fig, ax, sub):
            self.assertIs(sb_charts.figure_of(value), fig)
        for value in (1, "fig", plt, [fig]):
            self.assertIsNone(sb_charts.figure_of(value))
        png = sb_charts.render(fig)
        self.assertEqual(png[:8], b"\x89PNG\r\n\x1a\n")
        self.assertEqual((int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")),
                         (100, 50))
        self.assertIs(sb_charts.render(fig), png)     # once per call
        image = sb_charts.image(fig)
        self.assertEqual(sorted(image), ["$image", "data"])
        self.assertEqual(image["$image"], "image/png")

    def test_figures_left_open_in_order(self):
        plt.figure(figsize=(1, 1), dpi=10)
        plt.figure(figsize=(2, 1), dpi=10)
        shown = sb_charts.figures()
        self.assertEqual(len(shown), 2)
        sb_charts.end_call()
        self.assertEqual(plt.get_fignums(), [])
        self.assertEqual(sb_charts.figures(), [])

    def test_pixels(self):
        sb_charts.MAX_PIXELS[0] = 10000
        fig = plt.figure(figsize=(2, 2), dpi=100)
        with self.assertRaises(ValueError) as caught:
            sb_charts.render(fig)
        self.assertEqual(str(caught.exception),
                         "figure of 200 x 200 pixels is larger than pysandbox.max_figure_pixels "
                         "(10000 pixels); make it smaller with figsize= or dpi= (at this "
                         "figsize, dpi=50 fits)")
        small = plt.figure(figsize=(1, 1), dpi=50)
        with self.assertRaises(ValueError):
            small.savefig(io.BytesIO(), format="pdf", dpi=1000)   # no Agg renderer for a PDF
        sb_charts.render(small)

    def test_files_and_formats(self):
        fig = plt.figure(figsize=(1, 1), dpi=20)
        for call in (lambda: fig.savefig("/nonexistent/x.png"),
                     lambda: fig.canvas.print_figure("x.png"),
                     lambda: matplotlib.image.imsave("x.png", [[0.0]]),
                     lambda: matplotlib.cbook.to_filehandle("x.txt", "w"),
                     lambda: matplotlib.image.imread("/usr/share/x.png")):
            with self.assertRaises(PermissionError):
                call()
        with self.assertRaises(ValueError) as caught:
            fig.savefig(io.BytesIO(), format="pgf")
        self.assertIn('format "pgf" is not available in the sandbox', str(caught.exception))
        fig.savefig(io.BytesIO(), format="svg")
        with self.assertRaises(ValueError):
            matplotlib.use("TkAgg")
        matplotlib.use("Agg")
        # the guards are the Python layer's: off with it
        sb_guard.set_pandas_guard(False)
        with self.assertRaises(FileNotFoundError):
            fig.savefig("/nonexistent/x.png")

    def test_cycler_strings_are_literals(self):
        plt.rcParams["axes.prop_cycle"] = "cycler(color=['r', 'g']) + cycler(lw=[1, -2])"
        for text in ("cycler(color=[c for c in 'rg'])", "cycler('color', x)",
                     "[(g := (g.gi_frame for _ in [0]))]"):
            with self.subTest(text):
                with self.assertRaises(ValueError) as caught:
                    plt.rcParams["axes.prop_cycle"] = text
                self.assertIn("may only call cycler() on literal values", str(caught.exception))
        plt.style.use("ggplot")         # styles matplotlib ships pass

    def test_usetex_and_programs(self):
        with self.assertRaises(ValueError):
            plt.rcParams["text.usetex"] = True
        import subprocess
        with self.assertRaises(PermissionError) as caught:
            subprocess.run(["true"])
        self.assertEqual(str(caught.exception),
                         'running a program ("true") is not allowed in the sandbox')

    def test_workspace_reset(self):
        plt.rcParams["font.sans-serif"].insert(0, "Comic Sans")
        plt.rcParams["lines.linewidth"] = 7
        plt.rcParams.validate["lines.linewidth"] = str
        plt.figure()
        sb_charts.end_call()
        self.assertNotEqual(plt.rcParams["font.sans-serif"][0], "Comic Sans")
        self.assertEqual(plt.rcParams["lines.linewidth"], 1.5)
        self.assertIsNot(plt.rcParams.validate["lines.linewidth"], str)
        self.assertEqual(plt.get_fignums(), [])
        # a held function's calls: figures only
        plt.rcParams["lines.linewidth"] = 3
        plt.figure()
        sb_charts.end_call(full=False)
        self.assertEqual(plt.get_fignums(), [])
        self.assertEqual(plt.rcParams["lines.linewidth"], 3)

    def test_native_entry_points_refused(self):
        import matplotlib.mathtext as mathtext
        proxy = sb_guard.SbModule(mathtext, {"matplotlib"})
        with self.assertRaises(AttributeError) as caught:
            proxy.FT2Image
        self.assertIn("it hands its arguments to native code unchecked", str(caught.exception))
        glyph = mathtext.MathTextParser("path").parse("$x$").glyphs[0]
        with self.assertRaises(TypeError):
            sb_guard.sb_type(glyph[0])
        self.assertEqual(sb_guard.attribute_problem("set_charmap")[0], "forbidden-attribute")
        renderer = plt.figure(figsize=(1, 1), dpi=10).canvas.get_renderer()
        namespace = {"__name__": "__sandbox__", "renderer": renderer}
        with self.assertRaises(PermissionError):
            exec("renderer.draw_image(renderer.new_gc(), 0, 0, None)", namespace)

    def test_lazy_native_code(self):
        name = next((m for m in ("_lzma", "_bz2", "_curses", "_dbm", "audioop")
                     if m not in sys.modules), None)
        if name is None:
            self.skipTest("every candidate extension is loaded")
        with self.assertRaises(sb_guard.NativeCodeNotLoaded) as caught:
            __import__(name)
        self.assertIn('needs native code (%s) that was not loaded before the call' % name,
                      str(caught.exception))
        sys.modules.pop(name, None)

    def test_pandas_plots_with_matplotlib_only(self):
        import pandas as pd
        frame = pd.DataFrame({"a": [1, 2]})
        self.assertIs(sb_charts.figure_of(frame.plot()), plt.gcf())
        with self.assertRaises(ValueError) as caught:
            frame.plot(backend="plotly")
        self.assertEqual(str(caught.exception), 'pandas plotting backend "plotly" is not '
                         'available in the sandbox; plots are drawn with "matplotlib"')


if __name__ == "__main__":
    unittest.main()
