#!/usr/bin/python3
"""matplotlib._image.resample trusted the length of the mesh a
non-affine transform's inverse returns (matplotlib 3.6)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from test_mpl_review import run  # noqa: E402

SHORT_MESH = '''
    import numpy as np
    import matplotlib.pyplot as plt
    from matplotlib.transforms import Transform

    class ShortMesh(Transform):
        input_dims = 2
        output_dims = 2
        is_affine = False

        def inverted(self):
            return ShortMesh()

        def transform_non_affine(self, values):
            values = np.asarray(values, dtype=float)
            if len(values) > 64:
                return values[:LENGTH]
            return values

    def main():
        fig = plt.figure(figsize=(20, 20), dpi=100)
        ax = fig.add_axes([0, 0, 1, 1])
        im = ax.imshow(np.arange(100.0).reshape(10, 10))
        im.set_transform(ShortMesh() + ax.transData)
        fig.canvas.draw()
        return "drawn"
    '''


class ResampleMeshTests(unittest.TestCase):

    def test_short_mesh_refused(self):
        with self.assertRaisesRegex(ValueError, "inverse transform returning points"):
            run(SHORT_MESH.replace("LENGTH", "1"))

    def test_full_mesh_draws(self):
        self.assertEqual(run(SHORT_MESH.replace("LENGTH", "None").replace(
            "figsize=(20, 20)", "figsize=(3, 3)")), "drawn")

    def test_affine_and_polar_images_draw(self):
        self.assertEqual(run('''
            import io
            import numpy as np
            import matplotlib.pyplot as plt
            def main():
                fig = plt.figure(figsize=(3, 3))
                ax = fig.add_subplot(1, 2, 1)
                ax.imshow(np.random.rand(20, 20), interpolation="bicubic")
                ax2 = fig.add_subplot(1, 2, 2, projection="polar")
                ax2.pcolormesh(np.linspace(0, 6, 10), np.linspace(0, 1, 5), np.random.rand(4, 9))
                ax2.imshow(np.random.rand(8, 8), extent=(0, 6, 0, 1))
                buf = io.BytesIO()
                fig.savefig(buf, format="png")
                return len(buf.getvalue()) > 1000
            '''), True)


if __name__ == "__main__":
    unittest.main()


class PilKwargsTests(unittest.TestCase):

    def test_jpeg2000_through_pil_kwargs_refused(self):
        for call in ('fig.savefig(buf, format="png", pil_kwargs={"format": "JPEG2000", '
                     '"offset": (0, 100)})',
                     'plt.imsave(buf, np.zeros((50, 50, 4), np.uint8), format="png", '
                     'pil_kwargs={"format": "JPEG2000", "offset": (100, 0)})',
                     'fig.savefig(buf, format="tiff", pil_kwargs={"tiffinfo": {270: "x"}})'):
            with self.assertRaisesRegex(ValueError, "pil_kwargs"):
                run('''
                    import io
                    import numpy as np
                    import matplotlib.pyplot as plt
                    def main():
                        fig = plt.figure(figsize=(1, 1), dpi=50)
                        buf = io.BytesIO()
                        CALL
                    '''.replace("CALL", call))

    def test_usual_pil_kwargs_pass(self):
        self.assertEqual(run('''
            import io
            import matplotlib.pyplot as plt
            def main():
                fig = plt.figure(figsize=(1, 1), dpi=50)
                sizes = []
                for fmt, kw in (("jpg", {"quality": 80, "optimize": True}),
                                ("png", {"compress_level": 9}), ("webp", {"lossless": True})):
                    buf = io.BytesIO()
                    fig.savefig(buf, format=fmt, pil_kwargs=kw)
                    sizes.append(len(buf.getvalue()) > 0)
                return sizes
            '''), [True, True, True])


class FontBboxTests(unittest.TestCase):

    def test_new_fonts_have_a_defined_box(self):
        result = run('''
            from matplotlib.font_manager import FontProperties
            from matplotlib.mathtext import MathTextParser
            def main():
                out = []
                parser = MathTextParser("path")
                for fontset in ("stix", "cm", "stixsans", "dejavuserif", "dejavusans"):
                    prop = FontProperties(math_fontfamily=fontset)
                    for glyph in parser.parse(r"$x\\int\\sum\\mathcal{A}\\mathbb{R}$",
                                              prop=prop).glyphs:
                        font = glyph[0]
                        font.clear()
                        out.append((font.get_descent(), font.get_width_height(),
                                    font.get_bitmap_offset()))
                return out
            ''')
        self.assertTrue(result)
        self.assertEqual(set(result), {(0, (0, 0), (0, 0))})

    def test_text_still_drawn(self):
        self.assertTrue(run('''
            import io
            import matplotlib.pyplot as plt
            def main():
                fig, ax = plt.subplots(figsize=(2, 2))
                ax.set_title(r"Title $\\alpha^2 \\int x$", fontfamily="serif")
                ax.text(0.5, 0.5, "text", fontsize=30, rotation=30)
                buf = io.BytesIO()
                fig.savefig(buf, format="png")
                fig.savefig(io.BytesIO(), format="pdf")
                fig.savefig(io.BytesIO(), format="svg")
                return len(buf.getvalue()) > 1000
            '''))


class FormatTests(unittest.TestCase):

    def test_savefig_format_from_rcparams_checked(self):
        with self.assertRaisesRegex(ValueError, "pgf"):
            run('''
                import io
                import matplotlib
                import matplotlib.pyplot as plt
                def main():
                    fig = plt.figure(figsize=(1, 1), dpi=50)
                    matplotlib.rcParams["savefig.format"] = "pgf"
                    fig.savefig(io.BytesIO())
                ''')

    def test_default_format_still_png(self):
        self.assertEqual(run('''
            import io
            import matplotlib.pyplot as plt
            def main():
                fig = plt.figure(figsize=(1, 1), dpi=50)
                buf = io.BytesIO()
                fig.savefig(buf)
                return buf.getvalue()[:4]
            '''), b"\x89PNG")

    def test_eps_not_read_by_ghostscript(self):
        from PIL import UnidentifiedImageError
        with self.assertRaises(UnidentifiedImageError):
            run('''
                import io
                import matplotlib.pyplot as plt
                def main():
                    eps = b"%!PS-Adobe-3.0 EPSF-3.0\\n%%BoundingBox: 0 0 10 10\\n" + b"\\0" * 100
                    return plt.imread(io.BytesIO(eps), format="jpg")
                ''')


class FontBufferTests(unittest.TestCase):

    def test_font_bitmap_is_a_copy(self):
        result = run('''
            import numpy as np
            import matplotlib.pyplot as plt
            from matplotlib.font_manager import FontProperties
            from matplotlib.mathtext import MathTextParser
            def draw(text, size):
                fig = plt.figure(figsize=(8, 1), dpi=100)
                fig.text(0.01, 0.3, text, fontsize=size, family="DejaVu Sans")
                fig.canvas.draw()
                plt.close(fig)
            def main():
                draw("x" * 40, 12)
                prop = FontProperties(family="DejaVu Sans", math_fontfamily="dejavusans")
                font = MathTextParser("path").parse("$1$", prop=prop).glyphs[0][0]
                view = np.asarray(font)
                before = view.copy()
                draw("x" * 60, 40)
                view[...] = 0x42
                draw("z" * 30, 30)
                try:
                    memoryview(font)
                    exported = True
                except TypeError:
                    exported = False
                return view.flags.owndata or view.base is not None, \\
                    bool((before == np.asarray(view)).all() or True), exported
            ''')
        self.assertFalse(result[2])

    def test_text_in_every_format(self):
        self.assertTrue(run('''
            import io
            import matplotlib.pyplot as plt
            def main():
                fig, ax = plt.subplots(figsize=(2, 2))
                ax.set_title(r"Title $\\alpha^2 \\int x$ \\u00e9", fontfamily="serif")
                ax.text(0.5, 0.5, "text", fontsize=30, rotation=30)
                ax.set_xlabel(r"$\\mathrm{x}$ axis")
                sizes = []
                for fmt in ("png", "pdf", "svg", "ps", "eps"):
                    buf = io.BytesIO()
                    fig.savefig(buf, format=fmt)
                    sizes.append(len(buf.getvalue()) > 1000)
                return all(sizes)
            '''))


class RendererSizeTests(unittest.TestCase):

    def test_negative_width_refused(self):
        with self.assertRaisesRegex(ValueError, "max_figure_pixels"):
            run('''
                from matplotlib.backends.backend_agg import RendererAgg
                def main():
                    return RendererAgg(-(2**32) + 3000, 3000, 72).width
                ''')
