"""Charts: matplotlib figures as PNG images (doc/charts.md).

In the worker, when matplotlib is allowed, prepare() imports it with the
Agg backend, pyplot and what drawing a figure loads (fonts, the renderer,
the PNG writer, pandas' plotting), draws and saves a figure once, and then
guards it: a child can load no native code and write no file, so all of
that must be in memory before the first child is forked.  matplotlib's
configuration and font cache go to a temporary directory for the warm-up,
removed afterwards: nothing is written to the server's home directory, and
no user's matplotlibrc is read.

In a child, a Figure (or Axes) a function returns becomes a PNG: in JSON
{"$image": "image/png", "data": "<base64>"}, in a bytea column the PNG
bytes.  sandbox_run asks for the figures the call left open (figures()).
Every figure is rendered within max_figure_pixels (set per call).

The guards, like sb_guard's, are the Python layer's explanations, not the
boundary (Landlock stops writes; seccomp stops programs):
- savefig, print_figure and imsave write only to io.BytesIO / io.StringIO;
  imread reads only from them;
- the backend stays Agg (matplotlib.use, pyplot.switch_backend);
- a library that runs a program (usetex's latex, fc-list) gets a
  PermissionError instead of the process ending on a blocked system call.
"""

import ast
import base64
import contextlib
import copy
import io
import os
import re
import shutil
import sys
import tempfile
import warnings

import sb_guard

# pysandbox.max_figure_pixels of the current call (serve sets it)
MAX_PIXELS = [4000000]
IMAGE_TYPE = "image/png"

_STATE = {"ready": False, "figure": None, "axes": None, "subfigure": None,
          "savefig": None, "gcf": None, "mpl": None, "rc": None, "rc_default": None,
          "rc_orig": None, "validate": None, "gcf_figs": None}
# figures rendered in this call: id -> (figure, png); the figure is kept so
# that its id is not reused before the call ends
_RENDERED = {}
# where matplotlib's native code ran out of memory in this process, or None
# (native_out_of_memory)
_NATIVE_OOM = [None]


def native_out_of_memory():
    """The native method of matplotlib's renderer that ran out of memory
    in this process (review 155 F1: after Agg's "In draw_path: Out of
    memory", caught by the code or not, the C heap was corrupt and the
    workspace's next call crashed), or None.  The runtime ends the process
    with the call that saw it."""
    return _NATIVE_OOM[0]


def _noting_out_of_memory(method, what):
    """method, noting a MemoryError it raises (native_out_of_memory)."""
    def noting(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except MemoryError:
            if _NATIVE_OOM[0] is None:
                _NATIVE_OOM[0] = what
            raise
    noting.__name__ = getattr(method, "__name__", what)
    noting.__qualname__ = getattr(method, "__qualname__", what)
    noting.__doc__ = getattr(method, "__doc__", None)
    return noting


_HOME = []


@contextlib.contextmanager
def home():
    """matplotlib's config and cache directory for the warm-up: a fresh
    temporary one (MPLCONFIGDIR, also the working directory meanwhile),
    removed afterwards; Agg from the start."""
    if _HOME:                   # within another: that one's
        yield _HOME[0]
        return
    saved = {k: os.environ.get(k) for k in ("MPLCONFIGDIR", "MPLBACKEND", "MATPLOTLIBRC")}
    path = tempfile.mkdtemp(prefix="pysandbox-matplotlib-")
    _HOME.append(path)
    os.environ["MPLCONFIGDIR"] = path
    os.environ["MPLBACKEND"] = "agg"
    os.environ.pop("MATPLOTLIBRC", None)
    # matplotlib reads ./matplotlibrc first: the worker's directory is the
    # data directory
    cwd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
    os.chdir(path)
    try:
        yield path
    finally:
        os.fchdir(cwd)
        os.close(cwd)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(path, ignore_errors=True)
        _HOME.clear()


# matplotlib's modules that figures need, imported in the worker: several
# load native code, which a child cannot
_MODULES = ("matplotlib.pyplot", "matplotlib.backends.backend_agg",
            "matplotlib.backends.backend_pdf", "matplotlib.backends.backend_svg",
            "matplotlib.backends.backend_ps", "matplotlib._ttconv", "matplotlib._qhull",
            "matplotlib._tri", "contourpy", "matplotlib.textpath", "matplotlib.texmanager",
            "matplotlib.dates", "matplotlib.ticker", "matplotlib.colors",
            "matplotlib.cm", "matplotlib.patches", "matplotlib.lines",
            "matplotlib.gridspec", "matplotlib.tri", "matplotlib.contour",
            "matplotlib.image", "matplotlib.style", "matplotlib.font_manager",
            "matplotlib.mathtext", "matplotlib.table", "matplotlib.colorbar",
            "matplotlib.markers", "matplotlib.scale", "matplotlib.transforms")


def read_paths(allowed_tops):
    """Directories a child reads for figures: matplotlib's data (fonts,
    styles) and the system's fonts, when matplotlib is allowed."""
    if "matplotlib" not in allowed_tops:
        return []
    found = []
    mpl = sys.modules.get("matplotlib")
    if mpl is not None:
        found.append(mpl.get_data_path())
    else:
        import importlib.util
        spec = importlib.util.find_spec("matplotlib")
        for location in (spec.submodule_search_locations or ()) if spec else ():
            found.append(os.path.join(location, "mpl-data"))
    return found + list(FONT_DIRS)


# where a child may read fonts; prepare() drops the fonts found elsewhere
# (a user's ~/.fonts), which it could not open
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts")


def _fonts_readable(mpl):
    """Only the fonts a child can read: matplotlib's and the system's."""
    fm = sys.modules.get("matplotlib.font_manager")
    manager = getattr(fm, "fontManager", None)
    if manager is None:
        return
    dirs = [os.path.realpath(d) + os.sep for d in (mpl.get_data_path(),) + FONT_DIRS]
    for name in ("ttflist", "afmlist"):
        fonts = getattr(manager, name, None)
        if type(fonts) is list:
            fonts[:] = [f for f in fonts
                        if any(os.path.realpath(f.fname).startswith(d) for d in dirs)]


# characters a chart's text often holds that matplotlib's own font (DejaVu
# Sans) lacks: CJK ideographs, kana, hangul (中, あ, 가); and the families
# that may hold them, to open only those (a server may have hundreds)
_FALLBACK_PROBES = (0x4E2D, 0x3042, 0xAC00)
_FALLBACK_NAMES = re.compile(
    r"CJK|WenQuanYi|Droid Sans Fallback|Source Han|Noto (Sans|Serif) (SC|TC|HK|JP|KR)|"
    r"AR PL|IPA|Takao|VL Gothic|Nanum|Baekmuk|Un(Dotum|Batang)|Unifont|Sarasa|LXGW|"
    r"Hei|Song|Ming|Kai|Gothic|Mincho", re.IGNORECASE)


def _font_fallbacks():
    """The server's fonts that hold CJK text, as paths, first the one that
    holds the most of _FALLBACK_PROBES; matplotlib falls back to them, glyph
    by glyph (3.6+), after the fonts a text asks for, whatever font.family
    says: a title in Chinese is drawn, not boxes (review 111 F11)."""
    fm = sys.modules.get("matplotlib.font_manager")
    ft2font = sys.modules.get("matplotlib.ft2font")
    manager = getattr(fm, "fontManager", None)
    if manager is None or ft2font is None:
        return []
    found = []
    seen = set()
    for entry in manager.ttflist:
        if entry.name in seen or not _FALLBACK_NAMES.search(entry.name) or \
                entry.style != "normal":
            continue
        seen.add(entry.name)
        try:
            charmap = ft2font.FT2Font(entry.fname).get_charmap()
        except Exception:  # an unreadable font: matplotlib skips it too
            continue
        held = sum(probe in charmap for probe in _FALLBACK_PROBES)
        if held:
            found.append((-held, len(found), entry.fname))
    found.sort()
    paths = []
    for _held, _order, path in found[:2]:
        if path not in paths:
            paths.append(path)
    return paths


def _add_font_fallbacks(fm, paths):
    """Every text matplotlib draws with TrueType fonts gets paths after its
    own fonts (FontManager._find_fonts_by_props feeds get_font, whose
    fallback list it is)."""
    cls = fm.FontManager
    original = getattr(cls, "_find_fonts_by_props", None)
    if original is None or not paths:
        return
    paths = tuple(paths)

    def _find_fonts_by_props(self, prop, fontext="ttf", *args, **kwargs):
        found = original(self, prop, fontext, *args, **kwargs)
        if fontext == "ttf":
            found = list(found) + [path for path in paths if path not in found]
        return found
    _find_fonts_by_props.__qualname__ = original.__qualname__
    cls._find_fonts_by_props = _find_fonts_by_props


def prepare():
    """In the worker (or its preloaded process), after matplotlib was
    imported: Agg, the modules figures need, one figure drawn and saved,
    then the guards.  Returns whether matplotlib is ready."""
    mpl = sys.modules.get("matplotlib")
    if mpl is None or _STATE["ready"]:
        return _STATE["ready"]
    import importlib
    mpl.use("agg", force=True)
    for name in _MODULES:
        try:
            importlib.import_module(name)
        except Exception:  # another version without it: left out
            pass
    import matplotlib.pyplot as plt
    from matplotlib._pylab_helpers import Gcf
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure, SubFigure
    _STATE.update(figure=Figure, axes=Axes, subfigure=SubFigure,
                  savefig=Figure.savefig, gcf=plt, gcf_figs=Gcf.figs)
    # plt.show() on Agg only warns that it cannot show anything: the
    # figure is returned, or reported by sandbox_run, instead
    warnings.filterwarnings("ignore", message="Matplotlib is currently using agg")
    warnings.filterwarnings("ignore", message="FigureCanvasAgg is non-interactive")
    try:
        import PIL.Image
        PIL.Image.init()        # its image formats (some native), for savefig
    except Exception:  # no Pillow: matplotlib would not have imported
        pass
    _fonts_readable(mpl)
    _add_font_fallbacks(sys.modules.get("matplotlib.font_manager"), _font_fallbacks())
    _exercise(plt)
    # the settings a call starts with (a workspace's next call too)
    _STATE.update(mpl=mpl, rc=copy.deepcopy(dict(dict.items(mpl.rcParams))),
                  rc_default=copy.deepcopy(dict(dict.items(mpl.rcParamsDefault))),
                  rc_orig=copy.deepcopy(dict(dict.items(mpl.rcParamsOrig))))
    _guard(mpl, plt)
    _STATE["validate"] = dict(mpl.rcParams.validate)    # with the guarded ones
    _STATE["ready"] = True
    return True


def _exercise(plt):
    """What a typical chart loads: text in every font size of the default
    style (fonts, glyph caches), lines, bars, a legend, dates, pandas'
    plotting, the PNG writer."""
    import numpy as np
    import pandas as pd
    fig, (left, right) = plt.subplots(1, 2, figsize=(6, 3))
    left.plot([1, 2, 3], [2.5, 1, 3], marker="o", label="line")
    left.bar(["a", "b"], [1, 2], label="bars")
    left.scatter([1.5], [2])
    left.set_title("Title")
    left.set_xlabel("x")
    left.set_ylabel("y")
    left.legend()
    right.hist(np.arange(20) % 7, bins=5)
    right.imshow(np.arange(16.0).reshape(4, 4))
    fig.suptitle("Figure")
    fig.tight_layout()
    render(fig)
    frame = pd.DataFrame({"v": np.arange(10.0)},
                         index=pd.date_range("2024-01-01", periods=10, freq="D"))
    axes = frame.plot(title="pandas")
    frame.plot(kind="bar", ax=axes)
    render(axes.figure)
    _RENDERED.clear()
    plt.close("all")


def _memory_target(obj):
    return type(obj) is io.BytesIO or type(obj) is io.StringIO


def _refuse_path(call):
    return PermissionError(
        "%s may not write to a file: return the Figure (or Axes) to get a PNG, "
        "or pass an io.BytesIO" % call)


def _wrap(owner, name, check):
    """Put check(args, kwargs) in front of owner.name (a function)."""
    original = getattr(owner, name)

    def guarded(*args, **kwargs):
        if sb_guard.guard_on():
            check(args, kwargs)
        return original(*args, **kwargs)
    guarded.__name__ = getattr(original, "__name__", name)
    guarded.__qualname__ = getattr(original, "__qualname__", name)
    guarded.__doc__ = getattr(original, "__doc__", None)
    setattr(owner, name, guarded)


def _target(args, kwargs, position, keyword):
    return args[position] if len(args) > position else kwargs.get(keyword)


# what savefig may write: raster formats and the vector writers imported
# above; not pgf (it runs LaTeX in a temporary directory)
FORMATS = frozenset({"png", "jpg", "jpeg", "tif", "tiff", "webp", "raw", "rgba",
                     "pdf", "svg", "svgz", "ps", "eps"})


def _check_pixels(width, height, dpi=None):
    pixels = int(width) * int(height)
    # a negative size made the product negative, and RendererAgg's native
    # code takes the width modulo 2**32: RendererAgg(-2**32 + 3000, 3000, 72)
    # was a 3000 x 3000 buffer
    if int(width) < 0 or int(height) < 0 or pixels > MAX_PIXELS[0]:
        fits = ""
        try:
            inches = (float(width) / float(dpi)) * (float(height) / float(dpi))
            most = int((MAX_PIXELS[0] / inches) ** 0.5) if inches > 0 else 0
            if most >= 1 and int(width) >= 0 and int(height) >= 0:
                # dpi=300 by habit: the dpi that fits at this figsize, in one step
                fits = " (at this figsize, dpi=%d fits)" % most
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            pass
        raise ValueError(
            "figure of %d x %d pixels is larger than pysandbox.max_figure_pixels "
            "(%d pixels); make it smaller with figsize= or dpi=%s"
            % (int(width), int(height), MAX_PIXELS[0], fits))


def _from_user_code(extra=0):
    """Whether the caller of the function calling this is the sandboxed
    code (its globals are the call's namespace, named __sandbox__); extra
    frames of the sandbox's own wrappers in between are skipped."""
    return sys._getframe(2 + extra).f_globals.get("__name__") == "__sandbox__"


def _library_only(method, what):
    """method, refused when user code calls it (a library's call passes)."""
    def guarded(*args, **kwargs):
        if sb_guard.guard_on() and _from_user_code():
            raise PermissionError(
                "%s is not available to sandboxed code: it hands its arguments to "
                "native code unchecked; draw with the Axes methods (plot, imshow, "
                "pcolormesh, ...)" % what)
        return method(*args, **kwargs)
    guarded.__name__ = getattr(method, "__name__", what)
    guarded.__doc__ = getattr(method, "__doc__", None)
    return guarded


def _no_blitting(method):
    def refused(*args, **kwargs):
        if sb_guard.guard_on():
            raise PermissionError("copy_from_bbox() and restore_region() are not available in "
                                  "the sandbox: they serve interactive figures; draw the "
                                  "figure again instead")
        return method(*args, **kwargs)
    refused.__name__ = getattr(method, "__name__", "refused")
    return refused


def _checked_quad_mesh(method):
    """draw_quad_mesh trusts meshWidth and meshHeight against its
    coordinates (matplotlib 3.6): checked on the array handed to it."""
    import numpy as np

    def draw_quad_mesh(gc, master_transform, mesh_width, mesh_height, coordinates,
                       *args, **kwargs):
        coords = np.ascontiguousarray(coordinates, dtype=np.float64)
        if coords.shape != (int(mesh_height) + 1, int(mesh_width) + 1, 2):
            raise ValueError("draw_quad_mesh: coordinates of shape %r do not fit a %d x %d mesh"
                             % (coords.shape, int(mesh_width), int(mesh_height)))
        return method(gc, master_transform, int(mesh_width), int(mesh_height), coords,
                      *args, **kwargs)
    return draw_quad_mesh


def _check_line_widths(renderer, widths):
    """Line widths in points that agg's rasterizer can stroke: as wide as
    inf pixels (or nearly) it recursed until the native stack ran out."""
    import numpy as np
    points = np.asarray(widths, dtype=np.float64).ravel()
    pixels = points * (float(renderer.dpi) / 72.0)
    if points.size and np.nanmax(np.abs(pixels), initial=0.0) > 1e304:
        worst = float(points[np.nanargmax(np.abs(pixels))])
        raise ValueError(
            "a line width of %r points (%r pixels at %g dpi) cannot be drawn; give "
            "linewidth= (lw=, linewidths=, or a path effect's linewidth=) a finite number of "
            "points" % (worst, worst * float(renderer.dpi) / 72.0, float(renderer.dpi)))


def _checked_path_collection(renderer, method):
    """draw_path_collection strokes each path at its own width (a
    LineCollection's linewidths=[inf], contour's linewidths=inf): checked,
    and handed on as the array checked (review 95)."""
    import numpy as np

    def draw_path_collection(gc, master_transform, paths, all_transforms, offsets,
                             offset_trans, facecolors, edgecolors, linewidths, *args, **kwargs):
        if sb_guard.guard_on():
            linewidths = np.array(linewidths, dtype=np.float64)
            _check_line_widths(renderer, linewidths)
        return method(gc, master_transform, paths, all_transforms, offsets, offset_trans,
                      facecolors, edgecolors, linewidths, *args, **kwargs)
    return draw_path_collection


def _checked_image(method):
    """draw_image reads shape[0] x shape[1] x 4 bytes of the image whatever
    its last dimension (matplotlib 3.6): an image of (h, w, 1) bytes was read
    past its end into the figure (the worker's memory as pixels), or the
    worker crashed.  Checked on the array handed to it, whoever calls: a
    library frame between the code and the method (pd.Series.apply(
    renderer.draw_image, args=...), Series.map of a functools.partial,
    np.vectorize) passes the caller test of _library_only."""
    import numpy as np

    def draw_image(gc, x, y, im):
        image = np.ascontiguousarray(im, dtype=np.uint8)
        if image.ndim != 3 or image.shape[2] != 4:
            raise ValueError("draw_image: an image of shape %r is not allowed: it takes an "
                             "(h, w, 4) RGBA array of bytes" % (image.shape,))
        return method(gc, x, y, image)
    return draw_image


def _checked_filter(post_processing):
    """An agg_filter function whose image is checked as draw_image's is
    (_checked_image), made bytes as matplotlib makes a float image, and
    whose offsets are whole numbers the native code's int takes."""
    import numpy as np

    def checked(image, dpi):
        img, ox, oy = post_processing(image, dpi)
        img = np.asarray(img)
        if img.dtype.kind == "f":
            img = np.asarray(img * 255., np.uint8)
        img = np.ascontiguousarray(img, dtype=np.uint8)
        if img.ndim != 3 or img.shape[2] != 4:
            raise ValueError("an agg_filter's image of shape %r is not allowed: it returns an "
                             "(h, w, 4) RGBA array, as it was given" % (img.shape,))
        ox, oy = int(ox), int(oy)
        if abs(ox) > 2**24 or abs(oy) > 2**24:
            raise ValueError("an agg_filter's offsets must be within 2**24 pixels")
        return img, ox, oy
    checked.__name__ = getattr(post_processing, "__name__", "agg_filter")
    return checked


# the renderer's methods bound straight to its native code (_update_methods)
_RENDERER_NATIVE = ("draw_gouraud_triangle", "draw_gouraud_triangles", "draw_image",
                    "draw_markers", "draw_path_collection", "draw_quad_mesh",
                    "copy_from_bbox")


def _guard(mpl, plt):
    import matplotlib.backend_bases as bases
    import matplotlib.cbook as cbook
    import matplotlib.image as image
    from matplotlib.backends import backend_agg

    def savefig(args, kwargs):
        if not _memory_target(_target(args, kwargs, 1, "fname")):
            raise _refuse_path("savefig()")

    def print_figure(args, kwargs):
        if not _memory_target(_target(args, kwargs, 1, "filename")):
            raise _refuse_path("print_figure()")
        chosen = kwargs.get("backend")
        if chosen is not None and not (type(chosen) is str and chosen.lower() == "agg"):
            # print_figure imports the module it names ("module://os"), a
            # real import outside the allowlist, and a failed lookup on it
            # left the real module in the AttributeError
            raise ValueError('savefig(backend=%r) is not allowed in the sandbox: figures '
                             'are drawn with "agg"; choose the file type with format=' % (chosen,))
        fmt = kwargs.get("format")
        if fmt is None:
            # what print_figure would take (a BytesIO has no file name):
            # rcParams["savefig.format"] = "pgf" made its LaTeX directory
            fmt = kwargs["format"] = str(mpl.rcParams["savefig.format"])
        if fmt is not None and (type(fmt) is not str or fmt.lower() not in FORMATS):
            raise ValueError('format "%s" is not available in the sandbox; use one of: %s'
                             % (fmt, ", ".join(sorted(FORMATS))))

    def imsave(args, kwargs):
        if not _memory_target(_target(args, kwargs, 0, "fname")):
            raise _refuse_path("imsave()")

    def imread(args, kwargs):
        if type(_target(args, kwargs, 0, "fname")) is not io.BytesIO:
            raise PermissionError("imread() may not read a file or URL: pass the "
                                  "image's bytes as io.BytesIO(data)")

    def backend(args, kwargs):
        name = _target(args, kwargs, 0, "backend")
        if name is None:
            name = kwargs.get("newbackend")
        if not (type(name) is str and name.lower() == "agg"):
            raise ValueError('matplotlib backend %r is not available in the sandbox: '
                             'figures are drawn with "agg"; return the Figure to get '
                             'a PNG' % (name,))

    readable = _readable_dirs(mpl)

    def file_handle(args, kwargs):
        target = _target(args, kwargs, 0, "fname")
        if target is None:
            target = kwargs.get("path_or_file")
        mode = _target(args, kwargs, 1, "flag") or kwargs.get("mode") or "r"
        if isinstance(target, (str, bytes, os.PathLike)):
            if any(c in str(mode) for c in "wax+"):
                raise _refuse_path("matplotlib")
            # matplotlib itself opens its files with open(); these hand
            # the code an open file of any path it names.  Decided on the
            # path, not on the caller's frame: a library calling the code's
            # function (pd.Series([path]).map(cbook.to_filehandle), or
            # apply, transform, rolling) is the caller then
            if not _readable_path(target, readable):
                raise PermissionError("matplotlib may not read a file named by the code in "
                                      "the sandbox: pass the data in memory, as "
                                      "io.BytesIO(data) or io.StringIO(text)")

    _wrap(bases.FigureCanvasBase, "print_figure", print_figure)
    _guard_imsave(image, imsave)
    _wrap(image, "imread", imread)
    _wrap(mpl, "use", backend)
    _wrap(plt, "switch_backend", backend)
    _wrap(cbook, "to_filehandle", file_handle)
    _wrap(cbook, "open_file_cm", file_handle)

    # savefig: the path, and the pixels at the dpi asked for, in any format
    # (a PDF's images are drawn without the Agg renderer)
    original_savefig = _STATE["figure"].savefig

    def check_dpi(figure, dpi):
        # the dpi print_figure draws at, found as matplotlib 3.6 finds it
        # (review 125 F1, F2: "figure" is the dpi the canvas was made with,
        # not one lowered since, and an explicit "figure" is not
        # savefig.dpi)
        if dpi is None:
            dpi = mpl.rcParams["savefig.dpi"]
        if dpi == "figure":
            dpi = getattr(figure, "_original_dpi", figure.dpi)
        width, height = figure.get_size_inches()
        _check_pixels(width * float(dpi), height * float(dpi), dpi)

    def guarded_savefig(self, *args, **kwargs):
        if sb_guard.guard_on():
            savefig((self,) + args, kwargs)
        check_dpi(self, kwargs.get("dpi"))
        return original_savefig(self, *args, **kwargs)
    guarded_savefig.__qualname__ = original_savefig.__qualname__
    guarded_savefig.__doc__ = original_savefig.__doc__
    _STATE["figure"].savefig = guarded_savefig

    # ... and print_figure, which savefig calls and the code may call
    # itself: an SVG or PDF at print_figure(dpi=600) held a 6000 x 6000
    # image (review 124 F1)
    original_print_figure = bases.FigureCanvasBase.print_figure

    def guarded_print_figure(self, *args, **kwargs):
        check_dpi(self.figure, _target(args, kwargs, 1, "dpi"))
        return original_print_figure(self, *args, **kwargs)
    guarded_print_figure.__qualname__ = original_print_figure.__qualname__
    guarded_print_figure.__doc__ = original_print_figure.__doc__
    bases.FigureCanvasBase.print_figure = guarded_print_figure

    renderer_init = backend_agg.RendererAgg.__init__

    def __init__(self, width, height, dpi):
        _check_pixels(width, height, dpi)
        renderer_init(self, width, height, dpi)
    __init__.__qualname__ = renderer_init.__qualname__
    backend_agg.RendererAgg.__init__ = __init__

    draw_path = backend_agg.RendererAgg.draw_path
    noting_draw_path = _noting_out_of_memory(draw_path, "renderer.draw_path()")

    def checked_draw_path(self, gc, path, transform, rgbFace=None):
        # agg's rasterizer, stroking a line as wide as inf pixels
        # (lw=float("inf"), a path effect's) or nearly (1e307 points at 100
        # dpi), split a segment whose ends became INT_MIN without end, until
        # the native stack ran out (review 92); 1e306 pixels still draw.
        # The native code gets a plain copy of the context checked: a
        # context of the code's own answered get_linewidth() twice
        if sb_guard.guard_on():
            plain = bases.GraphicsContextBase()
            plain.copy_properties(gc)
            gc = plain
            _check_line_widths(self, [gc.get_linewidth()])
        return noting_draw_path(self, gc, path, transform, rgbFace)
    checked_draw_path.__qualname__ = draw_path.__qualname__
    checked_draw_path.__doc__ = draw_path.__doc__
    backend_agg.RendererAgg.draw_path = checked_draw_path

    update_methods = backend_agg.RendererAgg._update_methods

    def _update_methods(self):
        update_methods(self)
        for name in _RENDERER_NATIVE:
            method = self.__dict__.get(name)
            if method is not None:
                if name == "draw_quad_mesh":
                    method = _checked_quad_mesh(method)
                elif name == "draw_path_collection":
                    method = _checked_path_collection(self, method)
                elif name == "draw_image":
                    method = _checked_image(method)
                method = _noting_out_of_memory(method, "renderer.%s()" % name)
                setattr(self, name, _library_only(method, "renderer.%s()" % name))
        # blitting (copy a region, restore it) is for interactive figures;
        # its region size overflows (65536 x 16384 is 2**32 bytes: a heap
        # overflow), and a library function in between passes the caller
        # check: refused in calls, whoever calls
        self.copy_from_bbox = _no_blitting(self.__dict__.get("copy_from_bbox"))
    backend_agg.RendererAgg._update_methods = _update_methods
    for owner, name in ((backend_agg.RendererAgg, "draw_text_image"),):
        if name in owner.__dict__:
            setattr(owner, name, _library_only(
                _noting_out_of_memory(owner.__dict__[name], "renderer.%s()" % name),
                "%s()" % name))
    # an agg_filter's image: stop_filter hands what the filter returned to
    # the native draw_image itself, past the checked one (review 169 F1:
    # (h, w, 1) bytes read as (h, w, 4), the heap drawn into the figure)
    stop_filter = backend_agg.RendererAgg.__dict__.get("stop_filter")
    if stop_filter is not None:
        def checked_stop_filter(self, post_processing):
            return stop_filter(self, _checked_filter(post_processing))
        checked_stop_filter.__qualname__ = stop_filter.__qualname__
        checked_stop_filter.__doc__ = stop_filter.__doc__
        backend_agg.RendererAgg.stop_filter = checked_stop_filter
    # the rest of a renderer's drawing (an agg_filter's image: stop_filter),
    # and a new renderer's canvas: its native code's out-of-memory noted,
    # whoever calls (review 156)
    for name in ("draw_text", "draw_mathtext", "draw_tex", "stop_filter", "__init__"):
        if name in backend_agg.RendererAgg.__dict__:
            setattr(backend_agg.RendererAgg, name, _noting_out_of_memory(
                backend_agg.RendererAgg.__dict__[name], "renderer.%s()" % name))
    for owner, name in ((backend_agg.RendererAgg, "restore_region"),
                        (backend_agg.FigureCanvasAgg, "copy_from_bbox"),
                        (backend_agg.FigureCanvasAgg, "restore_region")):
        if name in owner.__dict__:
            setattr(owner, name, _no_blitting(owner.__dict__[name]))

    _guard_artist_list()
    _guard_usetex(mpl)
    _guard_file_reads(mpl)
    _guard_qhull()
    _guard_path_collections()
    _guard_triangulation()
    _guard_resample()
    _guard_layout_ratios()
    _guard_fonts()
    _guard_pil_formats()
    _guard_cycler(mpl)
    _guard_str_method_formatter()
    _guard_pandas_plotting()

    # native entry points that trust their arguments, and what writes files
    # or registers backends, never handed out by a module proxy
    refused = "it hands its arguments to native code unchecked"
    for module_name, names, reason in (
            ("matplotlib.ft2font", ("FT2Font", "FT2Image"), refused),
            ("matplotlib.image", ("resample",), refused),
            ("matplotlib.font_manager", ("get_font",),
             "font objects are native code that trusts its arguments; choose fonts "
             "with fontfamily= or rcParams"),
            ("matplotlib.font_manager", ("json_dump", "json_load"), "it reads or writes files"),
            ("matplotlib.backend_bases", ("register_backend",),
             "figures are drawn with the formats matplotlib has"),
            # the canvas classes of the other backends (pgf runs LaTeX in a
            # new directory, ps a distiller), imported by name
            ("matplotlib.backend_bases", ("get_registered_canvas_class",),
             "it imports other backends; savefig(buf, format=...) draws every format "
             "available"),
            ("matplotlib.cbook", ("get_sample_data",),
             "it opens any file it is given by path; pass data in memory"),
            ("matplotlib._type1font", ("Type1Font",), "it reads or writes files"),
            ("matplotlib.font_manager", ("list_fonts", "findSystemFonts", "is_opentype_cff_font",
                                         "win32FontDirectory", "get_fontext_synonyms",
                                         "get_fontconfig_fonts", "win32InstalledFonts",
                                         "OSXInstalledFonts"),
             "it lists directories or reads files by path; choose fonts by name"),
            ("matplotlib.texmanager", ("TexManager",), _NO_LATEX)):
        module = sys.modules.get(module_name)
        for name in names:
            obj = getattr(module, name, None)
            if obj is not None:
                sb_guard.refuse(obj, reason)


# Pillow's save options that savefig(pil_kwargs=) and imsave(pil_kwargs=) may
# pass (every raster format matplotlib writes goes through image.imsave):
# not "format", which chose any writer Pillow has (JPEG 2000 with
# offset=(0, 100) overflowed a heap buffer in Pillow 9.4's encoder), nor the
# options handed to native code as raw bytes or tags (exif, icc_profile,
# tiffinfo, qtables)
PIL_OPTIONS = frozenset({"quality", "optimize", "progressive", "compress_level", "dpi",
                         "pnginfo", "lossless", "method", "subsampling"})


def _guard_imsave(image, check):
    """image.imsave: the target (check) and pil_kwargs, which it hands to
    Pillow's save: only PIL_OPTIONS, in a copy made here (a dict the code
    keeps could change after the check)."""
    original = image.imsave

    def imsave(*args, **kwargs):
        if sb_guard.guard_on():
            check(args, kwargs)
            # imsave's own format= chose any writer Pillow has as well
            # (format="jpeg2000", "icns", "spider", ...): only FORMATS; when
            # not given, what imsave would take for a file object
            if len(args) > 5:
                args = list(args)
                fmt = args[5]
            else:
                fmt = kwargs.get("format")
            if fmt is None:
                import matplotlib
                fmt = str(matplotlib.rcParams["savefig.format"])
                if type(args) is list:
                    args[5] = fmt
                else:
                    kwargs["format"] = fmt
            if type(fmt) is not str or fmt.lower() not in FORMATS:
                raise ValueError('format "%s" is not available in the sandbox; use one of: %s'
                                 % (fmt, ", ".join(sorted(FORMATS))))
            args = tuple(args)
            options = kwargs.get("pil_kwargs")
            if options is not None:
                if type(options) is not dict:
                    raise TypeError("pil_kwargs that is not a dict is not allowed")
                options = dict(options)
                refused = sorted(repr(k) for k in options
                                 if type(k) is not str or k not in PIL_OPTIONS)
                if refused:
                    raise ValueError("pil_kwargs %s are not allowed in the sandbox; allowed: %s"
                                     % (", ".join(refused), ", ".join(sorted(PIL_OPTIONS))))
                kwargs["pil_kwargs"] = options
        return original(*args, **kwargs)
    imsave.__name__ = getattr(original, "__name__", "imsave")
    imsave.__qualname__ = getattr(original, "__qualname__", "imsave")
    imsave.__doc__ = getattr(original, "__doc__", None)
    image.imsave = imsave


# the Axes' sublists (ax.lines, ax.images, ...) call the Axes method they
# were made with by name: type(ax.images)(obj, "x", "__setstate__").insert(0, d)
# called any method of any object with a "_children" (an Axes took the
# code's dict as its __dict__, its private state)
_ARTIST_LIST_ADDERS = frozenset({"add_artist", "add_collection", "add_image", "add_line",
                                 "add_patch", "add_table", "add_container", "add_text"})


def _guard_artist_list():
    from matplotlib.axes import _base
    artist_list = getattr(_base._AxesBase, "ArtistList", None)
    if artist_list is None or "__init__" not in artist_list.__dict__:
        return
    init = artist_list.__dict__["__init__"]

    def __init__(self, axes, prop_name, add_name, *args, **kwargs):
        if sb_guard.guard_on() and not (isinstance(axes, _base._AxesBase)
                                        and add_name in _ARTIST_LIST_ADDERS):
            raise TypeError("making an Axes.ArtistList is not allowed: the Axes makes them "
                            "(ax.lines, ax.images, ...); add artists with the Axes methods "
                            "(ax.add_line, ax.add_patch)")
        init(self, axes, prop_name, add_name, *args, **kwargs)
    __init__.__qualname__ = init.__qualname__
    __init__.__doc__ = init.__doc__
    artist_list.__init__ = __init__


def _readable_path(path, readable):
    """Is path (str, bytes or os.PathLike) under one of the readable
    directories (matplotlib's data, the font directories)?"""
    try:
        real = os.path.realpath(os.fspath(path))
    except (TypeError, ValueError):
        return False
    if isinstance(real, bytes):
        real = os.fsdecode(real)
    return any(real.startswith(d) for d in readable)


def _readable_dirs(mpl):
    return [os.path.realpath(d) + os.sep for d in (mpl.get_data_path(),) + FONT_DIRS]


def _guard_file_reads(mpl):
    """matplotlib reads files with the real open(): rc files and styles
    (rc_file, rc_params_from_file, rc_context(fname=), style.use(path),
    whose warnings and errors quote the lines they cannot parse), fonts
    (FontProperties(fname=), fontManager.addfont).  In a call, only its
    own data and the font directories, and only matplotlib's own styles
    by path."""
    stylelib = os.path.realpath(os.path.join(mpl.get_data_path(), "stylelib")) + os.sep
    readable = _readable_dirs(mpl)

    def check(path, allowed, what):
        if not sb_guard.guard_on():
            return
        try:
            real = os.path.realpath(os.fspath(path))
        except TypeError:
            return              # a file object: matplotlib reads what it is given
        if isinstance(real, bytes):
            real = os.fsdecode(real)
        if not any(real.startswith(d) for d in allowed):
            raise PermissionError("%s may not read a file by path in the sandbox: use a "
                                  "style's name (plt.style.use(\"ggplot\")), a dict of "
                                  "settings, or a font by its family name" % what)

    rc_in_file = mpl._rc_params_in_file

    def _rc_params_in_file(fname, *args, **kwargs):
        check(fname, [stylelib], "matplotlib's rc and style files")
        return rc_in_file(fname, *args, **kwargs)
    _rc_params_in_file.__qualname__ = rc_in_file.__qualname__
    _rc_params_in_file.__doc__ = rc_in_file.__doc__
    mpl._rc_params_in_file = _rc_params_in_file

    fm = sys.modules.get("matplotlib.font_manager")
    if fm is None:
        return
    set_file = fm.FontProperties.set_file

    def checked_set_file(self, file):
        if file is not None:
            check(file, readable, "FontProperties(fname=)")
        return set_file(self, file)
    checked_set_file.__qualname__ = set_file.__qualname__
    checked_set_file.__doc__ = set_file.__doc__
    fm.FontProperties.set_file = checked_set_file
    addfont = fm.FontManager.addfont

    def checked_addfont(self, path):
        check(path, readable, "fontManager.addfont()")
        return addfont(self, path)
    checked_addfont.__qualname__ = addfont.__qualname__
    checked_addfont.__doc__ = addfont.__doc__
    fm.FontManager.addfont = checked_addfont


def _guard_qhull():
    """matplotlib's Delaunay triangulation (qhull, for tri.Triangulation
    without triangles) opens /dev/null for writing to hide qhull's messages
    unless Python runs verbose, and a child may open nothing for writing:
    around the call Python's verbose flag is set, and qhull writes a
    message, if it has one, to the child's stderr."""
    qhull = sys.modules.get("matplotlib._qhull")
    if qhull is None or not hasattr(qhull, "delaunay"):
        return
    try:
        import ctypes
        verbose = ctypes.c_int.in_dll(ctypes.pythonapi, "Py_VerboseFlag")
    except (ImportError, ValueError, AttributeError):
        return
    delaunay = qhull.delaunay

    def guarded(x, y, *args):
        saved = verbose.value
        verbose.value = 1
        try:
            return delaunay(x, y, *args)
        finally:
            verbose.value = saved
    guarded.__name__ = "delaunay"
    guarded.__doc__ = delaunay.__doc__
    qhull.delaunay = guarded


def _guard_path_collections():
    """matplotlib's native get_path_collection_extents reads the paths'
    len() again after its Python wrapper checked it and takes path i %
    len: a sequence of the code's whose length went from 1 to 0 divided by
    zero (SIGFPE), and its __getitem__ ran the code in the middle of the
    native loop (review 161 F2).  The paths go to the native functions as a
    list of their own, read first, and none is refused."""
    path = sys.modules.get("matplotlib._path")
    if path is None:
        return

    def wrap(name, at, empty_refused):
        real = getattr(path, name, None)
        if real is None:
            return

        def checked(*args):
            if len(args) > at:
                paths = list(args[at])
                if empty_refused and not paths:
                    raise ValueError("No paths provided")
                args = args[:at] + (paths,) + args[at + 1:]
            return real(*args)
        checked.__name__ = name
        checked.__doc__ = real.__doc__
        setattr(path, name, checked)
    # (master_transform, paths, ...); (x, y, radius, master_transform, paths, ...)
    wrap("get_path_collection_extents", 1, True)
    wrap("point_in_path_collection", 4, False)


def _guard_triangulation():
    """tri.Triangulation checks x, y and triangles in __init__ only; they
    are plain attributes (triangles set, or changed in place, afterwards),
    and its C++ Triangulation (matplotlib 3.6), made by
    get_cpp_triangulation and sharing the arrays, trusts the indices: reads
    and writes outside x and y (SIGSEGV, heap reads in
    calculate_plane_coefficients).  get_cpp_triangulation checks them on
    each call and builds the C++ object from private copies, again when
    they changed; the native classes are never handed out by type()."""
    try:
        import weakref
        import numpy as np
        import matplotlib._tri as native
        from matplotlib.tri import triangulation
    except ImportError:
        return
    cls = triangulation.Triangulation
    original = cls.get_cpp_triangulation
    built = weakref.WeakKeyDictionary()     # Triangulation -> (arrays, C++ object)

    def indices(value, name, shape, low, high):
        arr = np.asarray(value)
        if arr.dtype.kind not in "iu" or arr.ndim != 2 or arr.shape[1] != shape[1] or \
                (shape[0] is not None and arr.shape[0] != shape[0]):
            raise ValueError("Triangulation: %s must be an integer array of shape (%s, %d), "
                             "not %s %r" % (name, "N" if shape[0] is None else shape[0],
                                            shape[1], arr.dtype, arr.shape))
        if arr.size and (arr.min() < low or arr.max() >= high):
            raise ValueError("Triangulation: %s must be in the range %d <= i < %d"
                             % (name, low, high))
        return np.array(arr, dtype=np.int32, order="C")

    def get_cpp_triangulation(self):
        if not sb_guard.guard_on():
            return original(self)
        x = np.array(self.x, dtype=np.float64, order="C")
        y = np.array(self.y, dtype=np.float64, order="C")
        if x.ndim != 1 or x.shape != y.shape:
            raise ValueError("Triangulation: x and y must be equal-length 1D arrays, not of "
                             "shapes %r and %r" % (x.shape, y.shape))
        triangles = indices(self.triangles, "triangles", (None, 3), 0, len(x))
        if len(triangles) and ((triangles[:, 0] == triangles[:, 1]) |
                               (triangles[:, 1] == triangles[:, 2]) |
                               (triangles[:, 0] == triangles[:, 2])).any():
            # calculate_boundaries() erased end() of a std::set for a
            # triangle [2, 4, 2] (tricontour): a free() of a stack address
            # (review 92)
            raise ValueError("Triangulation: each triangle must have three different points")
        count = len(triangles)
        mask = None
        if self.mask is not None:
            mask = np.array(self.mask, dtype=bool, order="C")
            if mask.shape != (count,):
                raise ValueError("Triangulation: mask must be a 1D array as long as triangles")
        edges = vars(self).get("_edges")
        if edges is not None:
            edges = indices(edges, "edges", (None, 2), 0, len(x))
        neighbors = vars(self).get("_neighbors")
        if neighbors is not None:
            neighbors = indices(neighbors, "neighbors", (count, 3), -1, count)
        state = (x, y, triangles, mask, edges, neighbors)
        done = built.get(self)
        if done is not None and vars(self).get("_cpp_triangulation") is done[1] and all(
                (a is None and b is None) or (a is not None and b is not None and
                                              a.shape == b.shape and np.array_equal(a, b))
                for a, b in zip(done[0], state)):
            return done[1]
        cpp = native.Triangulation(x, y, triangles, mask, edges, neighbors,
                                   not self.is_delaunay)
        self._cpp_triangulation = cpp
        built[self] = (state, cpp)
        return cpp
    get_cpp_triangulation.__qualname__ = original.__qualname__
    get_cpp_triangulation.__doc__ = original.__doc__
    cls.get_cpp_triangulation = get_cpp_triangulation
    for name in ("Triangulation", "TriContourGenerator", "TrapezoidMapTriFinder"):
        obj = getattr(native, name, None)
        if obj is not None:
            sb_guard.refuse(obj, "it hands its arguments to native code unchecked; use "
                                 "matplotlib.tri.Triangulation")


MAX_FILTER_RADIUS = 256    # matplotlib's default filterrad is 4


def _guard_layout_ratios():
    """Constrained layout hands a grid's width and height ratios to
    kiwisolver, whose addConstraint (1.4.4) lets its InternalSolverError
    ("The objective is unbounded") escape as a C++ exception: the child
    aborted for height_ratios=[1e-12, 1e300] (review 92).  A layout grid's
    ratios must be finite, positive and within a factor of 1e9; for others
    the figure is drawn without the layout, with a warning."""
    try:
        import warnings
        import numpy as np
        from matplotlib import _layoutgrid
    except ImportError:
        return
    cls = _layoutgrid.LayoutGrid
    original = cls.__init__

    def __init__(self, parent=None, parent_pos=(0, 0), parent_inner=False, name='',
                 ncols=1, nrows=1, h_pad=None, w_pad=None, width_ratios=None,
                 height_ratios=None):
        # before the original, whose constraints reach the solver at once;
        # it gets the arrays checked, not the objects again
        checked = {}
        for what, ratios in (("width_ratios", width_ratios), ("height_ratios", height_ratios)):
            if ratios is None or not sb_guard.guard_on():
                checked[what] = ratios
                continue
            ratios = checked[what] = np.atleast_1d(np.array(ratios, dtype=np.float64))
            if ratios.size and not (np.isfinite(ratios).all() and ratios.min() > 0 and
                                    ratios.max() <= ratios.min() * 1e9):
                # Figure.draw passes over a ValueError of its layout engine
                # and draws the figure as laid out before: the warning is
                # what the code sees
                message = ("constrained layout not applied: %s must be finite, positive and "
                           "within a factor of 1e9 of each other, not %s; use layout=\"tight\" "
                           "or no layout for others"
                           % (what, np.array2string(ratios, threshold=8)))
                warnings.warn(message, UserWarning, stacklevel=2)
                raise ValueError(message)
        original(self, parent, parent_pos, parent_inner, name, ncols, nrows, h_pad, w_pad,
                 checked["width_ratios"], checked["height_ratios"])
    __init__.__qualname__ = original.__qualname__
    __init__.__doc__ = original.__doc__
    cls.__init__ = __init__


def _guard_resample():
    """matplotlib._image.resample (matplotlib 3.6), for a transform that is
    not affine, asks transform.inverted().transform() for the source point
    of each output pixel and reads out_height * out_width points of what it
    returns, whatever its length: an image drawn with the code's Transform
    subclass (im.set_transform(MyTransform() + ax.transData)) returning
    fewer points read the worker's heap as coordinates (SIGSEGV for a large
    figure).  Whoever calls it, the transform is handed to the native code
    frozen: its is_affine read once, an affine one as its 3 x 3 matrix, any
    other through a wrapper whose inverse checks the mesh it returns."""
    native = sys.modules.get("matplotlib._image")
    if native is None or not hasattr(native, "resample"):
        return
    import numpy as np
    from matplotlib.transforms import Affine2D
    resample = _noting_out_of_memory(native.resample, "image.resample()")

    class CheckedInverse:
        def __init__(self, inverse, count):
            self.inverse, self.count = inverse, count

        def transform(self, values):
            mesh = np.array(self.inverse.transform(values), dtype=np.float64, order="C")
            if mesh.shape != (self.count, 2):
                raise ValueError("image resampling: an inverse transform returning points of "
                                 "shape %r for %d points is not allowed"
                                 % (mesh.shape, self.count))
            return mesh

    class CheckedMesh:
        is_affine = False

        def __init__(self, transform, count):
            self.transform, self.count = transform, count

        def inverted(self):
            return CheckedInverse(self.transform.inverted(), self.count)

    def checked(input_array, output_array, transform, *args, **kwargs):
        radius = args[4] if len(args) > 4 else kwargs.get("radius")
        if radius is not None and sb_guard.guard_on() and \
                not 0 < float(radius) <= MAX_FILTER_RADIUS:
            # agg sizes its filter table (2 * ceil(radius) * 256 weights)
            # in 32 bits: filterrad=2**24+1 wrapped to a 1 KiB table, which
            # normalize() then read and rescaled gigabytes past (review 86)
            raise ValueError("an image filter radius (filterrad) of %r is not allowed in the "
                             "sandbox; use one in (0, %d]" % (radius, MAX_FILTER_RADIUS))
        if sb_guard.guard_on() and (0 in np.shape(input_array)[:2] or
                                    0 in np.shape(output_array)[:2]):
            # agg's wrap mode divides by the width: SIGFPE for an image of
            # no pixels, composited into a PDF/SVG/PS (review 92); it draws
            # nothing anyway
            return None
        if type(output_array) is np.ndarray and output_array.ndim in (2, 3) and \
                output_array.shape[0] * output_array.shape[1] > MAX_PIXELS[0]:
            # every writer's images come here at the size they are drawn
            # (an SVG's or PDF's at its dpi, whatever canvas writes it:
            # review 125 F1), before any pixel of them is written
            raise ValueError(
                "an image drawn at %d x %d pixels is larger than pysandbox.max_figure_pixels "
                "(%d pixels); save the figure at a lower dpi= or make it smaller with figsize="
                % (output_array.shape[1], output_array.shape[0], MAX_PIXELS[0]))
        if transform is not None and sb_guard.guard_on():
            if type(output_array) is not np.ndarray or output_array.ndim not in (2, 3):
                raise ValueError("image resampling: an output that is not a 2D or 3D array is "
                                 "not allowed")
            if bool(transform.is_affine):
                transform = Affine2D(np.array(transform, dtype=np.float64))
            else:
                transform = CheckedMesh(transform,
                                        output_array.shape[0] * output_array.shape[1])
        return resample(input_array, output_array, transform, *args, **kwargs)
    checked.__name__ = "resample"
    checked.__doc__ = resample.__doc__
    native.resample = checked


class _Font:
    """An FT2Font as matplotlib's font_manager hands it out in the worker:
    every attribute is the font's, but not its buffer.  FT2Font (matplotlib
    3.6) exports its glyph bitmap through the buffer protocol, and the next
    text drawn with the same cached font deletes that bitmap for a larger
    one: np.asarray(font) of a font mathtext hands out
    (MathTextParser("path").parse(s).glyphs) read and wrote freed memory.
    np.asarray() of this gets a copy (the Agg renderer's draw_text_image
    too); memoryview() nothing."""
    __slots__ = ("_font",)

    def __init__(self, font):
        object.__setattr__(self, "_font", font)

    def __getattr__(self, name):
        if name == "get_image":
            # FT2Font.get_image() is an array over the font's bitmap with no
            # base: freed by the next larger text (matplotlib.artist.getp(font,
            # "image") reached it, since getp builds the name); a copy
            return self._copied_image
        return getattr(self._font, name)

    def _copied_image(self):
        import numpy as np
        return np.array(self._font.get_image(), copy=True)

    def __setattr__(self, name, value):
        raise AttributeError("font objects are read-only in the sandbox")

    def __array__(self, dtype=None, copy=None):
        import numpy as np
        image = np.array(self._font, copy=True)     # exported, copied, released
        return image if dtype is None else image.astype(dtype)

    def __repr__(self):
        return repr(self._font)


def _guard_fonts():
    """The fonts font_manager makes (get_font goes through _get_font, looked
    up at each call) are handed out as _Font, one per FT2Font (kept, so
    that ids are not reused).  Also, FT2Font leaves its bounding box
    uninitialised until set_text(): get_descent(), get_width_height() and
    get_bitmap_offset() of a font mathtext handed out returned the heap's
    old bytes (pointers, strings); each font gets an empty text once, which
    zeroes the box."""
    fm = sys.modules.get("matplotlib.font_manager")
    cached = getattr(fm, "_get_font", None)
    if cached is None:
        return
    fonts = {}

    def _get_font(*args, **kwargs):
        font = cached(*args, **kwargs)
        done = fonts.get(id(font))
        if done is None or done[0] is not font:
            font.set_text("", 0.0)
            done = fonts[id(font)] = (font, _Font(font))
        return done[1]
    for name in ("cache_clear", "cache_info", "__wrapped__"):
        if hasattr(cached, name):
            setattr(_get_font, name, getattr(cached, name))
    _get_font.__doc__ = cached.__doc__
    fm._get_font = _get_font
    sb_guard.refuse(_Font, "font objects are made by matplotlib; choose fonts with "
                           "fontfamily= or rcParams")


def _guard_pil_formats():
    """imread(io.BytesIO(data)) opens any format Pillow identifies in the
    data, whatever format= says: an EPS file is read by running Ghostscript
    on a temporary file, which a child may not create (seccomp ended it).
    Pillow's EPS reader is unregistered (matplotlib writes EPS itself)."""
    image = sys.modules.get("PIL.Image")
    if image is None:
        return
    for name in ("EPS",):
        if name in getattr(image, "ID", ()):
            image.ID.remove(name)
        getattr(image, "OPEN", {}).pop(name, None)


def _guard_str_method_formatter():
    """ticker.StrMethodFormatter (also what set_major_formatter("{x}") and
    colorbar(format="{x}") make) calls self.fmt.format(x=..., pos=...) in
    matplotlib, out of the compiled guard's sight: the format is checked as
    a literal one, when it formats (fmt is a plain attribute the code may
    set)."""
    import matplotlib.ticker as ticker
    original = ticker.StrMethodFormatter.__call__

    def __call__(self, x, pos=None):
        if not sb_guard.guard_on():
            return original(self, x, pos)
        # fmt read once (a property could answer twice), checked, used
        fmt = self.fmt
        if not isinstance(fmt, str):
            raise TypeError("StrMethodFormatter's format must be a string")
        fmt = str.__str__(fmt)
        problem = sb_guard.format_string_problem(fmt)
        if problem is not None:
            raise AttributeError(problem + " (in StrMethodFormatter)")
        return fmt.format(x=x, pos=pos)
    __call__.__qualname__ = original.__qualname__
    ticker.StrMethodFormatter.__call__ = __call__


def _guard_cycler(mpl):
    """rcParams["axes.prop_cycle"] as a string is eval()'d by matplotlib
    (rcsetup.validate_cycler), which refuses only dunder names: frames
    reached from a generator walk up to its module's globals.  In a call
    the string may only be cycler() calls on literals, combined with + and
    *, which every style matplotlib ships is."""
    import matplotlib.rcsetup as rcsetup
    original = rcsetup.validate_cycler

    def literal(node):
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, (ast.List, ast.Tuple)):
            return all(literal(e) for e in node.elts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return literal(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult)):
            return literal(node.left) and literal(node.right)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "cycler":
            return all(literal(a) for a in node.args) and \
                all(k.arg is not None and literal(k.value) for k in node.keywords)
        return False

    def validate_cycler(s):
        if isinstance(s, str) and sb_guard.guard_on():
            try:
                tree = ast.parse(s, mode="eval")
            except (SyntaxError, ValueError):
                tree = None
            if tree is not None and not literal(tree.body):
                raise ValueError("a cycler given as a string may only call cycler() on "
                                 "literal values; pass cycler(color=[...]) itself")
        return original(s)
    validate_cycler.__qualname__ = original.__qualname__
    validate_cycler.__doc__ = original.__doc__
    rcsetup.validate_cycler = validate_cycler
    for table in (getattr(rcsetup, "_validators", {}), mpl.rcParams.validate):
        for key, check in list(table.items()):
            if check is original:
                table[key] = validate_cycler
    # matplotlib.defaultParams (also rcsetup.defaultParams) holds
    # [default, validator] lists made at import: the original validator,
    # called directly, eval()'d any string (a review found this escape)
    for owner in (mpl, rcsetup):
        table = vars(owner).get("defaultParams")
        for entry in table.values() if isinstance(table, dict) else ():
            if isinstance(entry, list) and len(entry) == 2 and entry[1] is original:
                entry[1] = validate_cycler

    # and wherever else the original is referenced, its eval() is checked:
    # validate_cycler finds "eval" in its module's globals before the builtins
    def checked_eval(source, globals=None, locals=None):
        if sb_guard.guard_on():
            try:
                tree = ast.parse(source, mode="eval") if isinstance(source, str) else None
            except (SyntaxError, ValueError):
                tree = None
            if tree is None or not literal(tree.body):
                raise ValueError("a cycler given as a string may only call cycler() on "
                                 "literal values; pass cycler(color=[...]) itself")
        return eval(source, globals, locals)
    rcsetup.eval = checked_eval


def _guard_pandas_plotting():
    """pandas plots with the module named by the option plotting.backend,
    which it imports by name: in a call, only matplotlib."""
    try:
        import pandas
        import pandas.plotting._core as core
    except ImportError:
        return
    original = core._get_plot_backend

    def _get_plot_backend(backend=None):
        if sb_guard.guard_on():
            name = backend if backend is not None else pandas.get_option("plotting.backend")
            if type(name) is not str or name != "matplotlib":
                raise ValueError('pandas plotting backend "%s" is not available in the '
                                 'sandbox; plots are drawn with "matplotlib"' % (name,))
        return original(backend)
    _get_plot_backend.__qualname__ = original.__qualname__
    core._get_plot_backend = _get_plot_backend


_NO_LATEX = ('LaTeX (text.usetex) is not available in the sandbox: write math as '
             'mathtext between dollar signs, e.g. "$x^2$", with usetex off')


def _guard_usetex(mpl):
    """text.usetex runs latex, and its cache makes directories: refused
    where it is set (rcParams) and where it would start (TexManager)."""
    validate = mpl.rcParams.validate.get("text.usetex")

    def usetex(value):
        value = validate(value)
        if value and sb_guard.guard_on():
            raise ValueError(_NO_LATEX)
        return value
    if validate is not None:
        mpl.rcParams.validate["text.usetex"] = usetex
    import matplotlib.texmanager as texmanager
    original = texmanager.TexManager.__new__

    def __new__(cls, *args, **kwargs):
        if sb_guard.guard_on():
            raise RuntimeError(_NO_LATEX)
        return original(cls, *args, **kwargs)
    texmanager.TexManager.__new__ = __new__


def ready():
    """Whether prepare() made matplotlib ready in this worker."""
    return _STATE["ready"]


def figure_of(value):
    """The Figure to render for value (a Figure, SubFigure or Axes), or
    None for anything else."""
    if not _STATE["ready"]:
        return None
    if isinstance(value, (_STATE["axes"], _STATE["subfigure"])):
        value = value.figure
        if isinstance(value, _STATE["subfigure"]):
            value = value.figure
    return value if isinstance(value, _STATE["figure"]) else None


def one_figure(values):
    """The Figure when values (a list, a tuple or an array of objects) are
    two or more Axes (or Figures) of one Figure, else None: df.hist(),
    df.plot(subplots=True) and plt.subplots(2, 2) give such an array, and it
    is one chart (review 100: a PNG of the whole figure per Axes)."""
    if not _STATE["ready"]:
        return None
    if type(values) is not list and type(values) is not tuple:
        if values.dtype != object or values.size < 2 or figure_of(values.flat[0]) is None:
            return None
        values = values.ravel().tolist()
    if len(values) < 2:
        return None
    figure = figure_of(values[0])
    if figure is None:
        return None
    for v in values[1:]:
        if figure_of(v) is not figure:
            return None
    return figure


def render(figure):
    """The PNG of a Figure (once per call and figure)."""
    done = _RENDERED.get(id(figure))
    if done is not None and done[0] is figure:
        return done[1]
    buf = io.BytesIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _STATE["savefig"](figure, buf, format="png")
    _missing_glyphs(figure, caught)
    png = buf.getvalue()
    _RENDERED[id(figure)] = (figure, png)
    return png


_GLYPH_MISSING = re.compile(r"Glyph (\d+) \(.*\) missing from current font\.")


def _missing_glyphs(figure, caught):
    """The warnings of drawing figure, shown again, but matplotlib's one per
    character no font has (named by the wrapper around its caller, a file
    of pysandbox's): one that names the characters and what to do."""
    missing = []
    shown = set()
    for w in caught:
        m = _GLYPH_MISSING.match(str(w.message))
        if m is None:
            if (str(w.message), w.category, w.filename, w.lineno) not in shown:
                shown.add((str(w.message), w.category, w.filename, w.lineno))
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        elif chr(int(m.group(1))) not in missing:
            missing.append(chr(int(m.group(1))))
    if missing:
        number = getattr(figure, "number", None)
        warnings.warn_explicit(
            "%s's text holds characters no font on the server has, drawn as empty boxes: %s. "
            "Use other characters, or have the server's administrator install a font that "
            "has them (for Chinese, Japanese and Korean on Debian: fonts-noto-cjk or "
            "fonts-wqy-microhei), which charts then use where the default font lacks a "
            "character" % ("figure %d" % number if type(number) is int else "a figure",
                           ", ".join(repr(c) for c in missing[:10]) +
                           (" and %d more" % (len(missing) - 10) if len(missing) > 10 else "")),
            UserWarning, "<figure>", 0)


def image(figure):
    """The JSON form of a figure: {"$image": "image/png", "data": base64}."""
    return {"$image": IMAGE_TYPE, "data": base64.b64encode(render(figure)).decode("ascii")}


def any_open():
    """Did the call leave a figure open?"""
    return bool(_STATE["ready"] and _STATE["gcf"].get_fignums())


def figures():
    """The figures the call left open (pyplot's, in the order of their
    numbers), as images, but those its result holds already: a figure
    returned and left open was sent twice, twice against the output limit
    (review 111 F8)."""
    if not _STATE["ready"]:
        return []
    plt = _STATE["gcf"]
    shown = []
    for num in plt.get_fignums():
        figure = plt.figure(num)
        done = _RENDERED.get(id(figure))
        if done is None or done[0] is not figure:
            try:
                shown.append(image(figure))
            except MemoryError:
                # after main() returned: say which figure (review 155 F2:
                # the input query's hint was given)
                raise MemoryError("figure %d, left open when the call ended, could not be drawn "
                                  "for sandbox_run's figures within the memory limit; close "
                                  "the figures not needed with plt.close(fig), or make them "
                                  "smaller (figsize, dpi, fewer points)" % num) from None
            except ValueError as exc:
                # after main() returned: no line of the code's to show
                raise ValueError("figure %d, left open when the call ended, could not be drawn "
                                 "for sandbox_run's figures: %s; close a figure not needed "
                                 "with plt.close(fig)" % (num, exc)) from None
    return shown


def end_call(full=True):
    """After a call in a child that serves on: its figures closed (without
    running anything of theirs), and with full (a workspace, whose next call
    may be different code) matplotlib's settings as they were when the
    worker warmed up: rcParams, their defaults and their validators, so
    that a workspace's next call starts with none of the last one's figures
    and the default style.  A workspace's registries (colormaps, units,
    scales, projections) are put back by sb_state."""
    _RENDERED.clear()
    if not _STATE["ready"]:
        return
    if _STATE["gcf_figs"]:      # pyplot's figures (an OrderedDict it keeps)
        _STATE["gcf_figs"].clear()
    if full:
        mpl = _STATE["mpl"]
        for live, saved in ((mpl.rcParams, _STATE["rc"]),
                            (mpl.rcParamsDefault, _STATE["rc_default"]),
                            (mpl.rcParamsOrig, _STATE["rc_orig"])):
            dict.clear(live)
            dict.update(live, copy.deepcopy(saved))
        dict.clear(mpl.rcParams.validate)
        dict.update(mpl.rcParams.validate, _STATE["validate"])
