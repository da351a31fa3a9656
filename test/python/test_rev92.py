#!/usr/bin/python3
"""Review 92: matplotlib's native code reached with data it trusts.

Each case crashed a child with the Python layer on: tricontour on a
triangle with a repeated point (a free() of a stack address in
_tri's calculate_boundaries), constrained layout with ratios kiwisolver
cannot solve (an uncaught C++ exception: abort), and an image of no pixels
composited into a PDF (agg divides by its width: SIGFPE), and a line as
wide as inf pixels (agg's rasterizer recursed until the stack ran out).  Run in a process
of their own, so a guard that fails shows as a crash of this test."""

import os
import sys
import unittest
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_mpl_review import run  # noqa: E402


class TriangleTests(unittest.TestCase):

    CODE = '''
        import numpy as np
        import matplotlib.pyplot as plt
        import matplotlib.tri as mtri
        def main():
            x = np.array([0.0, 1.0, 0.0, 1.0, 0.5])
            y = np.array([0.0, 0.0, 1.0, 1.0, 0.5])
            t = mtri.Triangulation(x, y, [[0, 1, 4], [1, 3, 4], [3, 2, 4], TRIANGLE])
            fig, ax = plt.subplots()
            ax.tricontour(t, x + y, levels=3)
            return "drawn"
        '''

    def test_repeated_point_refused(self):
        with self.assertRaisesRegex(ValueError, "three different points"):
            run(self.CODE.replace("TRIANGLE", "[2, 4, 2]"))

    def test_distinct_points_draw(self):
        self.assertEqual(run(self.CODE.replace("TRIANGLE", "[2, 0, 4]")), "drawn")


class LayoutRatioTests(unittest.TestCase):

    CODE = '''
        import io
        import matplotlib.pyplot as plt
        def main():
            fig, axs = plt.subplots(2, 1, layout="constrained", height_ratios=RATIOS)
            buf = io.BytesIO()
            fig.savefig(buf, format="png")
            return len(buf.getvalue()) > 0
        '''

    def test_unsolvable_ratios_not_laid_out(self):
        # the figure is drawn as without the layout, which says why
        for ratios in ("[1e-12, 1e300]", "[0, 1]", "[1e-10, 1e299]"):
            with self.subTest(ratios=ratios):
                with warnings.catch_warnings(record=True) as seen:
                    warnings.simplefilter("always")
                    self.assertIs(run(self.CODE.replace("RATIOS", ratios)), True)
                self.assertTrue(any("constrained layout not applied: height_ratios must be "
                                    "finite, positive" in str(w.message) for w in seen),
                                [str(w.message) for w in seen])

    def test_infinite_ratio_refused_by_matplotlib(self):
        with self.assertRaisesRegex(ValueError, "cannot convert float NaN to integer"):
            run(self.CODE.replace("RATIOS", "[1, float('inf')]"))

    def test_usual_ratios_draw(self):
        self.assertIs(run(self.CODE.replace("RATIOS", "[1, 3]")), True)
        self.assertIs(run(self.CODE.replace('layout="constrained"', 'layout="tight"')
                          .replace("RATIOS", "[1e-12, 1e300]")), True)


class EmptyImageTests(unittest.TestCase):

    def test_image_of_no_pixels_in_pdf(self):
        self.assertGreater(run('''
            import io
            import numpy as np
            import matplotlib.pyplot as plt
            from matplotlib.image import NonUniformImage
            def main():
                fig, ax = plt.subplots(figsize=(2, 2), dpi=10)
                im = NonUniformImage(ax, interpolation="bilinear")
                im.set_data(np.array([1e-300, 1e-300]), np.array([-1.0, -1.0, -1.0]),
                            np.zeros((3, 2)))
                ax.add_image(im)
                ax.imshow(np.zeros((2, 2)))
                ax.set_xlim(1e15, -1)
                buf = io.BytesIO()
                fig.savefig(buf, format="pdf")
                return len(buf.getvalue())
            '''), 0)


class LineWidthTests(unittest.TestCase):
    """A stroke as wide as inf pixels: agg's rasterizer recursed until the
    native stack ran out (the child ended with a RecursionError whose hint
    spoke of nesting)."""

    CODE = '''
        import io
        import matplotlib.pyplot as plt
        import matplotlib.patheffects as pe
        def main():
            fig, ax = plt.subplots()
            ax.plot([0, 1], [0, 1], LINE)
            buf = io.BytesIO()
            fig.savefig(buf, format="png")
            return len(buf.getvalue()) > 0
        '''

    def test_infinite_widths_refused(self):
        for line in ('lw=float("inf")', "lw=1e308",
                     'path_effects=[pe.Stroke(linewidth=float("inf"))]'):
            with self.subTest(line=line):
                with self.assertRaisesRegex(ValueError, r"a line width of .* cannot be drawn; "
                                            r"give linewidth= .* a finite number of points"):
                    run(self.CODE.replace("LINE", line))

    def test_collection_widths_refused(self):
        # review 95: a collection strokes at its own widths
        for draw in ('ax.add_collection(LineCollection([[(0, 0), (1, 1)]], linewidths=[float("inf")]))',
                     'ax.add_collection(LineCollection([[(0, 0), (1, 1)]], linewidths=[1, 1e307]))',
                     'ax.contour([[0, 1], [1, 2]], linewidths=float("inf"))'):
            with self.subTest(draw=draw):
                with self.assertRaisesRegex(ValueError, r"a line width of .* cannot be drawn"):
                    run(self.COLLECTION.replace("DRAW", draw))
        self.assertTrue(run(self.COLLECTION.replace(
            "DRAW", 'ax.add_collection(LineCollection([[(0, 0), (1, 1)]], linewidths=[2, 1e300]))')))

    COLLECTION = '''
        import io
        import matplotlib.pyplot as plt
        from matplotlib.collections import LineCollection
        def main():
            fig, ax = plt.subplots()
            DRAW
            buf = io.BytesIO()
            fig.savefig(buf, format="png")
            return len(buf.getvalue()) > 0
        '''

    def test_finite_widths_draw(self):
        for line in ("lw=1e300", "lw=3", 'lw=float("nan")'):
            with self.subTest(line=line):
                self.assertTrue(run(self.CODE.replace("LINE", line)))


if __name__ == "__main__":
    unittest.main()
