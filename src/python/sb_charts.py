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

import base64
import contextlib
import io
import os
import shutil
import sys
import tempfile
import warnings

import sb_guard

# pysandbox.max_figure_pixels of the current call (serve sets it)
MAX_PIXELS = [4000000]
IMAGE_TYPE = "image/png"

_STATE = {"ready": False, "figure": None, "axes": None, "subfigure": None,
          "savefig": None, "gcf": None, "mpl": None, "rc": None}
# figures rendered in this call: id -> (figure, png); the figure is kept so
# that its id is not reused before the call ends
_RENDERED = {}


_HOME = []


@contextlib.contextmanager
def home():
    """matplotlib's config and cache directory for the warm-up: a fresh
    temporary one (MPLCONFIGDIR), removed afterwards; Agg from the start."""
    if _HOME:                   # within another: that one's
        yield _HOME[0]
        return
    saved = {k: os.environ.get(k) for k in ("MPLCONFIGDIR", "MPLBACKEND")}
    path = tempfile.mkdtemp(prefix="pysandbox-matplotlib-")
    _HOME.append(path)
    os.environ["MPLCONFIGDIR"] = path
    os.environ["MPLBACKEND"] = "agg"
    try:
        yield path
    finally:
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
    fm = sys.modules.get("matplotlib.font_manager")
    manager = getattr(fm, "fontManager", None)
    for font in getattr(manager, "ttflist", ()) + getattr(manager, "afmlist", []):
        found.append(os.path.dirname(font.fname))
    found += ["/usr/share/fonts", "/usr/local/share/fonts"]
    return found


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
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure, SubFigure
    _STATE.update(figure=Figure, axes=Axes, subfigure=SubFigure,
                  savefig=Figure.savefig, gcf=plt)
    # plt.show() on Agg only warns that it cannot show anything: the
    # figure is returned, or reported by sandbox_run, instead
    warnings.filterwarnings("ignore", message="Matplotlib is currently using agg")
    warnings.filterwarnings("ignore", message="FigureCanvasAgg is non-interactive")
    _exercise(plt)
    # the settings a call starts with (a workspace's next call too)
    _STATE.update(mpl=mpl, rc=dict(dict.items(mpl.rcParams)))
    _guard(mpl, plt)
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


def _guard(mpl, plt):
    import matplotlib.backend_bases as bases
    import matplotlib.image as image
    from matplotlib.backends import backend_agg

    def savefig(args, kwargs):
        if not _memory_target(_target(args, kwargs, 1, "fname")):
            raise _refuse_path("savefig()")

    def print_figure(args, kwargs):
        if not _memory_target(_target(args, kwargs, 1, "filename")):
            raise _refuse_path("print_figure()")

    def imsave(args, kwargs):
        if not _memory_target(_target(args, kwargs, 0, "fname")):
            raise _refuse_path("imsave()")

    def imread(args, kwargs):
        if type(_target(args, kwargs, 0, "fname")) is not io.BytesIO:
            raise PermissionError("imread() may not read a file or URL: pass the "
                                  "image's bytes as io.BytesIO(data)")

    def backend(args, kwargs):
        name = _target(args, kwargs, 0, "backend")
        if not (isinstance(name, str) and name.lower() == "agg"):
            raise ValueError('matplotlib backend %r is not available in the sandbox: '
                             'figures are drawn with "agg"; return the Figure to get '
                             'a PNG' % (name,))

    _wrap(_STATE["figure"], "savefig", savefig)
    _wrap(bases.FigureCanvasBase, "print_figure", print_figure)
    _wrap(image, "imsave", imsave)
    _wrap(image, "imread", imread)
    _wrap(mpl, "use", backend)
    _wrap(plt, "switch_backend", backend)

    _guard_usetex(mpl)

    renderer = backend_agg.RendererAgg.__init__

    def __init__(self, width, height, dpi):
        pixels = int(width) * int(height)
        if pixels > MAX_PIXELS[0]:
            raise ValueError(
                "figure of %d x %d pixels is larger than pysandbox.max_figure_pixels "
                "(%d pixels); make it smaller with figsize= or dpi="
                % (int(width), int(height), MAX_PIXELS[0]))
        renderer(self, width, height, dpi)
    __init__.__qualname__ = renderer.__qualname__
    backend_agg.RendererAgg.__init__ = __init__


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


def render(figure):
    """The PNG of a Figure (once per call and figure)."""
    done = _RENDERED.get(id(figure))
    if done is not None and done[0] is figure:
        return done[1]
    buf = io.BytesIO()
    _STATE["savefig"](figure, buf, format="png")
    png = buf.getvalue()
    _RENDERED[id(figure)] = (figure, png)
    return png


def image(figure):
    """The JSON form of a figure: {"$image": "image/png", "data": base64}."""
    return {"$image": IMAGE_TYPE, "data": base64.b64encode(render(figure)).decode("ascii")}


def figures():
    """The figures the call left open (pyplot's, in the order of their
    numbers), as images."""
    if not _STATE["ready"]:
        return []
    plt = _STATE["gcf"]
    return [image(plt.figure(num)) for num in plt.get_fignums()]


def end_call():
    """After a call in a child that serves on (a workspace, a held
    function): its figures closed and matplotlib's settings (rcParams,
    plt.style.use) as they were, so that the next call starts with none
    of its figures and the default style."""
    _RENDERED.clear()
    if _STATE["ready"]:
        plt = _STATE["gcf"]
        if plt.get_fignums():
            plt.close("all")
        rc = _STATE["mpl"].rcParams
        if dict(dict.items(rc)) != _STATE["rc"]:
            dict.clear(rc)
            dict.update(rc, _STATE["rc"])
