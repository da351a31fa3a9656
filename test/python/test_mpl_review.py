#!/usr/bin/python3
"""matplotlib's Python surface (a review): payloads run in-process with the
Python layer as a call has it (validator, compiled guards, restricted
builtins and imports, the libraries' guards on).  No OS layer."""

import io
import os
import sys
import unittest

from sb_incall import run as run_in_call  # noqa: E402 - src/python on sys.path, hardened
import sb_guard  # noqa: E402
import matplotlib  # noqa: E402

ALLOWED = ["io", "warnings", "numpy", "pandas", "matplotlib"]


def run(source):
    return run_in_call(source, ALLOWED)


class MatplotlibReviewTests(unittest.TestCase):

    def assertRefused(self, source, errors=(PermissionError, ValueError, AttributeError,
                                            TypeError, ImportError)):
        with self.assertRaises(errors):
            result = run(source)
            raise AssertionError("not refused: %r" % (result,))

    def test_default_params_cycler_eval(self):
        self.assertRefused('''
            import matplotlib
            def main():
                box = []
                check = matplotlib.defaultParams["axes.prop_cycle"][1]
                walk = ("[(g := (g.gi_frame.f_back.f_back.f_back for _ in [0])),"
                        " [f.f_back.f_locals['box'].append(f.f_globals) for f in g]]")
                try:
                    check(walk)
                except ValueError:
                    pass
                return box[0]["os"]
            ''', errors=(IndexError, ValueError))

    def test_cycler_literals_still_work(self):
        self.assertEqual(run('''
            import matplotlib
            def main():
                check = matplotlib.defaultParams["axes.prop_cycle"][1]
                c = check("cycler(color=['r', 'g'])")
                matplotlib.rcParams["axes.prop_cycle"] = "cycler('color', ['b'])"
                return len(c)
            '''), 2)

    def test_savefig_backend_imports_modules(self):
        self.assertRefused('''
            import io
            import matplotlib.pyplot as plt
            def main():
                plt.figure().savefig(io.BytesIO(), format="png", backend="module://os")
            ''', errors=ValueError)

    def test_attribute_error_object_hidden(self):
        # however the exception reaches the code: a decorator's wrapper, a
        # staticmethod __exit__, __exit__(self, *exc), a CallbackRegistry handler
        self.assertIsNone(run('''
            from matplotlib import cbook
            box = []
            def keep(method):
                def wrapper(*args):
                    box.append(args[2])
                    return True
                return wrapper
            class Catch:
                def __enter__(self):
                    return self
                @keep
                def __exit__(self, t, e, tb):
                    return True
            class Star:
                def __enter__(self):
                    return self
                def __exit__(self, *exc):
                    box.append(exc[1])
                    return True
            def main():
                with Catch():
                    cbook.nope
                with Star():
                    cbook.nope
                reg = cbook.CallbackRegistry(exception_handler=box.append)
                def boom():
                    return cbook.nope
                reg.connect("go", boom)
                reg.process("go")
                assert len(box) == 3, box
                assert all(e.name == "nope" for e in box)
                return [e.obj for e in box if e.obj is not None] or None
            '''))

    def test_files_by_path(self):
        for body in (
                'return cbook.get_sample_data("/usr/lib/python3.11/os.py").read()',
                'return cbook.open_file_cm("/usr/lib/python3.11/os.py").read()',
                'return cbook.to_filehandle("/usr/lib/python3.11/os.py").read()',
                'return matplotlib.rc_params_from_file("/usr/lib/python3.11/os.py")',
                'return matplotlib.rc_file("/usr/lib/python3.11/os.py")',
                'return plt.style.use("/usr/lib/python3.11/os.py")',
                'return font_manager.FontProperties(fname="/usr/lib/python3.11/os.py")',
                'return font_manager.fontManager.addfont("/usr/lib/python3.11/os.py")',
                'return font_manager.list_fonts("/usr/lib/python3.11", ["py"])',
                'return backend_bases.get_registered_canvas_class("pgf")'):
            with self.subTest(body=body):
                self.assertRefused('''
                    import matplotlib
                    import matplotlib.pyplot as plt
                    from matplotlib import cbook, font_manager, backend_bases
                    def main():
                        %s
                    ''' % body, errors=(PermissionError, OSError, AttributeError))

    def test_file_io_class_refused(self):
        # type() of an open file's raw stream: FileIO opens any path or fd
        with open(__file__, "rb") as f:
            with self.assertRaises(TypeError):
                sb_guard.sb_type(f.raw)

    def test_styles_and_fonts_still_work(self):
        self.assertTrue(run('''
            import io
            import matplotlib.pyplot as plt
            from matplotlib import font_manager
            def main():
                plt.style.use("ggplot")
                with plt.style.context("seaborn-v0_8-darkgrid" if "seaborn-v0_8-darkgrid" in plt.style.available else "classic"):
                    fig, ax = plt.subplots()
                    ax.set_title("x", fontproperties=font_manager.FontProperties(family="serif"))
                    path = font_manager.findfont("DejaVu Sans")
                    ax.set_xlabel("y", fontproperties=font_manager.FontProperties(fname=path))
                    buf = io.BytesIO()
                    fig.savefig(buf, format="pdf")
                    fig.savefig(buf, format="svg")
                    fig.savefig(buf, format="png")
                return len(buf.getvalue()) > 100
            '''))


if __name__ == "__main__":
    unittest.main()
