-- charts: matplotlib figures become PNG images (doc/charts.md)
\set VERBOSITY terse
-- the PNG's signature, width and height (its IHDR chunk)
CREATE FUNCTION png_info(png bytea) RETURNS text LANGUAGE sql AS $$
  SELECT CASE WHEN substr(png, 1, 8) = '\x89504e470d0a1a0a'::bytea
    THEN format('png %sx%s',
      (get_byte(png, 16) << 24) + (get_byte(png, 17) << 16) + (get_byte(png, 18) << 8) + get_byte(png, 19),
      (get_byte(png, 20) << 24) + (get_byte(png, 21) << 16) + (get_byte(png, 22) << 8) + get_byte(png, 23))
    ELSE 'not a png' END $$;

-- a returned Figure (or Axes) is {"$image": "image/png", "data": base64}
SELECT r->'main'->>'$image' AS type, png_info(decode(r->'main'->>'data', 'base64'))
FROM sandbox_execute($$
import matplotlib.pyplot as plt
def main():
    fig, ax = plt.subplots(figsize=(4, 3), dpi=50)
    ax.plot([1, 2, 3], [3, 1, 2])
    ax.set_title("Sales")
    return fig
$$) AS r;
SELECT png_info(decode(r->'main'->'axes'->>'data', 'base64')), r->'main'->'n' AS n
FROM sandbox_execute($$
import matplotlib.pyplot as plt
def main():
    fig, ax = plt.subplots(figsize=(2, 1), dpi=100)
    ax.bar(["a", "b"], [1, 2])
    return {"axes": ax, "n": 2}
$$) AS r;
-- pandas' plotting returns Axes
SELECT png_info(decode(sandbox_execute($$
import pandas as pd
def main(t):
    return t.plot(x="day", y="v", figsize=(3, 2), title="by day")
$$, '{"t": {"$query": "SELECT d AS day, d * 1.5 AS v FROM generate_series(1, 30) d"}}')->'main'->>'data', 'base64'));

-- an array of Axes of one figure (df.hist(), plt.subplots(2, 2)) is that
-- figure's one PNG (review 100: the whole figure once per Axes); Axes of
-- two figures stay a list
SELECT png_info(decode(r->'main'->'grid'->>'data', 'base64')) AS grid,
       png_info(decode(r->'main'->'subplots'->>'data', 'base64')) AS subplots,
       jsonb_array_length(r->'main'->'two') AS two
FROM sandbox_execute($$
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
def main():
    df = pd.DataFrame(np.arange(36).reshape(9, 4) * 1.0, columns=list("abcd"))
    f1, grid = plt.subplots(2, 2, figsize=(2, 2), dpi=50)
    f2, a2 = plt.subplots(figsize=(1, 1), dpi=50)
    return {"grid": df.hist(bins=3, figsize=(3, 3)), "subplots": grid,
            "two": [grid[0, 0], a2]}
$$) AS r;

SELECT name, png_info(png) FROM sandbox_rows($$
import numpy as np
import pandas as pd
def main():
    df = pd.DataFrame(np.arange(36).reshape(9, 4) * 1.0, columns=list("abcd"))
    return [("grid", df.hist(bins=3, figsize=(3, 3)))]
$$) AS t(name text, png bytea);

-- sandbox_run reports every figure left open, in order; failed runs none
SELECT r->'returns' AS returns,
       (SELECT array_agg(png_info(decode(f->>'data', 'base64')) ORDER BY i)
        FROM jsonb_array_elements(r->'figures') WITH ORDINALITY AS x(f, i)) AS figures
FROM sandbox_run($$
import matplotlib.pyplot as plt
def main():
    plt.figure(figsize=(2, 1), dpi=100); plt.plot([1, 2])
    plt.figure(figsize=(1, 2), dpi=100); plt.bar(["a"], [1])
    plt.show()
    return "drawn"
$$) AS r;
SELECT r->'ok' AS ok, r->'figures' AS figures, r->'error'->>'message' AS message
FROM sandbox_run($$
import matplotlib.pyplot as plt
def main():
    plt.plot([1, 2])
    raise ValueError("after drawing")
$$) AS r;
SELECT r->'figures' AS figures FROM sandbox_run('def main(): return 1') AS r;
-- figures left open past the output limit say so, not "raw rows" (review
-- 155 F3)
SELECT r->'error'->>'message' AS message, r->'error'->>'hint' AS hint
FROM sandbox_run($$
import matplotlib.pyplot as plt
def main():
    for i in range(12):
        plt.figure(); plt.plot(range(i + 2))
    return "drew 12"
$$, '{}', '{main}', '{"max_output_bytes": 100000}') AS r;
-- a figure returned and left open is in returns only (review 111 F8: both)
SELECT r->'returns'->'main'->>'$image' AS returned, jsonb_array_length(r->'figures') AS figures,
       (r->'usage'->>'output_bytes')::int < 2 * length(r->'returns'->'main'->>'data') AS sent_once
FROM sandbox_run($$
import matplotlib.pyplot as plt
def main():
    fig, ax = plt.subplots(figsize=(2, 1), dpi=100)
    ax.plot([1, 2])
    plt.figure(figsize=(1, 1), dpi=50)
    return fig
$$) AS r;

-- sandbox_rows: a figure in a bytea column is the PNG, in jsonb the image
SELECT name, png_info(png) FROM sandbox_rows($$
import matplotlib.pyplot as plt
def main():
    out = []
    for n in (1, 2):
        fig, ax = plt.subplots(figsize=(n, 1), dpi=100)
        ax.plot(range(n + 1))
        out.append({"name": "chart %d" % n, "png": fig})
    return out
$$, '{}', 'main') AS t(name text, png bytea);
SELECT name, img->>'$image' AS type FROM sandbox_rows($$
import matplotlib.pyplot as plt
def main():
    return [("a", plt.subplots(figsize=(1, 1))[0])]
$$, '{}', 'main') AS t(name text, img jsonb);
SELECT * FROM sandbox_rows($$
import matplotlib.pyplot as plt
def main():
    return [("a", plt.subplots(figsize=(1, 1))[0])]
$$, '{}', 'main') AS t(name text, img text);

-- a function in the language returning bytea, called per row (its held
-- child closes each call's figures)
CREATE FUNCTION spark(n int) RETURNS bytea LANGUAGE pysandbox AS $$
import matplotlib.pyplot as plt
fig, ax = plt.subplots(figsize=(n, 1), dpi=50)
ax.plot(range(n))
return fig
$$;
SELECT n, png_info(spark(n)) FROM generate_series(2, 4) AS n;
CREATE FUNCTION open_figures(n int) RETURNS int LANGUAGE pysandbox AS $$
import matplotlib.pyplot as plt
plt.figure()
return len(plt.get_fignums())
$$;
SELECT n, open_figures(n) FROM generate_series(1, 3) AS n;

-- contours, triangulations and the vector formats: their native parts are
-- loaded in the worker
SELECT sandbox_execute($$
import io
import numpy as np
import matplotlib.pyplot as plt
import matplotlib.tri as tri
def main():
    fig, (a, b) = plt.subplots(1, 2)
    a.contourf(np.arange(16.0).reshape(4, 4))
    b.tricontour(tri.Triangulation([0, 1, 0, 1], [0, 0, 1, 1]), [1, 2, 3, 4])
    sizes = {}
    for fmt in ("pdf", "svg", "eps", "jpg"):
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt)
        sizes[fmt] = len(buf.getvalue()) > 1000
    return sizes
$$);
SELECT sandbox_run($$
import io
import matplotlib.pyplot as plt
def main():
    plt.figure().savefig(io.BytesIO(), format="pgf")
$$)->'error'->>'message';

-- what a figure may not do, and why
SELECT sandbox_run($$
import matplotlib.pyplot as plt
def main():
    plt.plot([1, 2])
    plt.savefig("/tmp/chart.png")
$$)->'error'->>'message';
SELECT sandbox_run($$
import matplotlib.pyplot as plt
def main():
    fig = plt.figure()
    fig.canvas.print_figure("chart.png")
$$)->'error'->>'message';
SELECT sandbox_run($$
import io
import matplotlib.pyplot as plt
def main():
    buf = io.BytesIO()
    plt.plot([1, 2])
    plt.savefig(buf, format="png")
    return len(buf.getvalue()) > 1000
$$)->'returns';
SELECT sandbox_run($$
import numpy as np
import matplotlib.pyplot as plt
def main():
    plt.imsave("/tmp/x.png", np.zeros((2, 2)))
$$)->'error'->>'message';
SELECT sandbox_run($$
import matplotlib.pyplot as plt
def main():
    return plt.imread("/usr/share/matplotlib/mpl-data/images/home.png")
$$)->'error'->>'message';
SELECT sandbox_run($$
import io
import numpy as np
import matplotlib.pyplot as plt
def main():
    buf = io.BytesIO()
    plt.imsave(buf, np.eye(3), format="png")
    return plt.imread(io.BytesIO(buf.getvalue())).shape
$$)->'returns';
SELECT sandbox_run($$
import matplotlib
def main():
    matplotlib.use("TkAgg")
$$)->'error'->>'message';
SELECT sandbox_run($$
import matplotlib.pyplot as plt
def main():
    plt.switch_backend("gtk3agg")
$$)->'error'->>'message';
SELECT sandbox_run($$
import matplotlib.pyplot as plt
def main():
    plt.rcParams["text.usetex"] = True
$$)->'error'->>'message';
SELECT sandbox_run($$
import matplotlib.pyplot as plt
def main():
    plt.title("x", usetex=True)
    return plt.gcf()
$$)->'error'->>'message';
SELECT sandbox_run($$
import matplotlib.pyplot as plt
def main():
    plt.title(r"$\alpha^2 + \sum_i x_i$")
    return plt.gcf()
$$)->'error';
SELECT sandbox_validate('import matplotlib.animation')->'findings'->0->>'message';
-- native code that trusts its arguments is not handed out
SELECT sandbox_run($$
from matplotlib.mathtext import FT2Image
$$)->'error'->>'message';
SELECT sandbox_run($$
from matplotlib.mathtext import MathTextParser
def main():
    return type(MathTextParser("path").parse("$x$").glyphs[0][0])
$$)->'error'->>'message';
SELECT sandbox_run($$
import matplotlib.pyplot as plt
def main():
    renderer = plt.figure().canvas.get_renderer()
    renderer.draw_image(renderer.new_gc(), 0, 0, None)
$$)->'error'->>'message';
-- a cycler as a string: literals only (matplotlib eval()s it)
SELECT sandbox_run($$
import matplotlib.pyplot as plt
def main():
    plt.rcParams["axes.prop_cycle"] = "cycler(color=['r', 'g']) * cycler(lw=[1, 2])"
    plt.rcParams["axes.prop_cycle"] = "cycler(color=[c for c in 'rg'])"
$$)->'error'->>'message';
-- pandas plots with matplotlib only
SELECT sandbox_run($$
import pandas as pd
def main():
    return pd.DataFrame({"a": [1, 2]}).plot(backend="plotly")
$$)->'error'->>'message';
SELECT sandbox_run($$
from matplotlib.backends.backend_tkagg import FigureCanvasTkAgg
$$)->'error'->>'message';
SELECT sandbox_run($$
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
def main():
    fig = Figure(figsize=(1, 1))
    FigureCanvasAgg(fig)
    fig.add_subplot().plot([1, 2])
    return fig
$$)->'returns'->'main'->>'$image';

-- pysandbox.max_figure_pixels, checked before a figure is drawn
SET pysandbox.max_figure_pixels = 100000;
SELECT sandbox_run($$
import matplotlib.pyplot as plt
def main():
    return plt.figure(figsize=(10, 10), dpi=100)
$$)->'error'->>'message';
SELECT sandbox_run($$
import io
import matplotlib.pyplot as plt
def main():
    plt.figure(figsize=(4, 4), dpi=1000)
    plt.savefig(io.BytesIO())
$$)->'error'->>'message';
-- ... also a vector format's images at print_figure's own dpi (review 124
-- F1: an SVG held a 6000 x 6000 image, 9 times the cap)
SELECT sandbox_run($$
import io
import numpy as np
import matplotlib.pyplot as plt
def main():
    fig, ax = plt.subplots(figsize=(3, 3), dpi=50)
    ax.imshow(np.arange(16.0).reshape(4, 4))
    out = io.StringIO()
    fig.canvas.print_figure(out, format="svg", dpi=600)
    return len(out.getvalue())
$$)->'error'->>'message';
-- ... whatever the dpi was lowered to, and whichever canvas writes it: an
-- image's pixels are checked where every writer draws it (review 125 F1)
SELECT r->'error'->>'message' AS message
FROM unnest(ARRAY[
$c$    fig, ax = plt.subplots(figsize=(0.5, 0.5), dpi=600)
    ax.imshow(np.arange(16.0).reshape(4, 4))
    fig.set_dpi(10); fig.set_size_inches(3, 3)
    fig.canvas.print_figure(s, format="svg")$c$,
$c$    plt.rcParams["savefig.dpi"] = 10
    fig, ax = plt.subplots(figsize=(0.5, 0.5), dpi=600)
    ax.imshow(np.arange(16.0).reshape(4, 4)); fig.set_size_inches(3, 3)
    fig.savefig(s, format="svg", dpi="figure")$c$,
$c$    fig, ax = plt.subplots(figsize=(3, 3), dpi=50)
    ax.imshow(np.arange(16.0).reshape(4, 4)); fig.set_dpi(600)
    FigureCanvasSVG(fig).print_svg(s)$c$]) AS body,
     sandbox_run(E'import io\nimport numpy as np\nimport matplotlib.pyplot as plt\n'
                 'from matplotlib.backends.backend_svg import FigureCanvasSVG\n'
                 'def main():\n    s = io.StringIO()\n' || body || E'\n    return len(s.getvalue())\n') AS r;
RESET pysandbox.max_figure_pixels;
-- ... and dpi="figure" is the figure's own, not savefig.dpi (review 125 F2:
-- 4800 x 3200 was refused where 1200 x 800 is drawn)
SELECT sandbox_run($$
import io
import matplotlib.pyplot as plt
def main():
    plt.rcParams["savefig.dpi"] = 400
    fig, ax = plt.subplots(figsize=(12, 8), dpi=100)
    ax.plot([1, 2, 3])
    s = io.BytesIO()
    fig.savefig(s, format="png", dpi="figure")
    plt.close(fig)
    return s.getvalue()[16:24].hex()
$$)->'returns'->>'main' AS png_width_height;
-- (left open, the figure is drawn at savefig.dpi for sandbox_run's figures,
-- and the error says which figure)
SELECT sandbox_run($$
import matplotlib.pyplot as plt
def main():
    plt.rcParams["savefig.dpi"] = 400
    fig, ax = plt.subplots(figsize=(12, 8), dpi=100)
    return 1
$$)->'error'->>'message';
-- and max_output_bytes, like any result
SELECT sandbox_run($$
import matplotlib.pyplot as plt
def main():
    return plt.figure(figsize=(8, 6))
$$, options => '{"max_output_bytes": 2000}')->'error'->>'message';

-- a workspace's next call starts with no figures and the default style
SELECT sandbox_workspace_open() AS ws \gset
SELECT sandbox_run($$
import matplotlib.pyplot as plt
def main(ws):
    plt.style.use("dark_background")
    plt.rcParams["lines.linewidth"] = 7
    ws["fig"] = plt.figure(figsize=(1, 1))
    return [plt.rcParams["lines.linewidth"], plt.get_fignums()]
$$, options => jsonb_build_object('workspace', :'ws')) - 'usage' - 'figures';
SELECT r->'returns' AS returns, jsonb_array_length(r->'figures') AS figures
FROM sandbox_run($$
import matplotlib.pyplot as plt
def main(ws):
    return [plt.rcParams["lines.linewidth"], plt.rcParams["axes.facecolor"], plt.get_fignums(),
            ws["fig"] is not None]
$$, options => jsonb_build_object('workspace', :'ws')) AS r;
-- a list in rcParams changed in place is put back too
SELECT sandbox_execute($$
import matplotlib.pyplot as plt
def main(ws):
    plt.rcParams["font.sans-serif"].insert(0, "Comic Sans")
    return plt.rcParams["font.sans-serif"][0]
$$, options => jsonb_build_object('workspace', :'ws'));
SELECT sandbox_execute($$
import matplotlib.pyplot as plt
def main(ws):
    return plt.rcParams["font.sans-serif"][0]
$$, options => jsonb_build_object('workspace', :'ws'));
SELECT png_info(decode(sandbox_execute($$
def main(ws):
    return ws["fig"]
$$, options => jsonb_build_object('workspace', :'ws'))->'main'->>'data', 'base64'));
SELECT sandbox_workspace_close(:'ws');
-- a part of a chart returned (plt.plot's Line2D list, ax.bar's container)
-- says to return the figure (review 111 F9: the generic message)
SELECT sandbox_execute($$
import matplotlib.pyplot as plt
def main():
    return plt.plot([1, 2, 3])
$$);
SELECT sandbox_execute($$
import matplotlib.pyplot as plt
def main():
    fig, ax = plt.subplots()
    return ax.bar(["a", "b"], [1, 2])
$$);
-- imshow of a pivot of a nullable column gets the nullable types' hint
SELECT sandbox_execute($$
import matplotlib.pyplot as plt
import pandas as pd
def main():
    df = pd.DataFrame({"r": ["a", "a", "b"], "m": [1, 2, 1],
                       "v": pd.array([1.5, None, 2.0], dtype="Float64")})
    pv = df.pivot_table(index="r", columns="m", values="v", aggfunc="sum")
    fig, ax = plt.subplots()
    ax.imshow(pv.values)
    return fig
$$);
-- text in Chinese, Japanese and Korean is drawn with a font of the
-- server's that has it (test/setup.sh installs fonts-wqy-microhei), not as
-- boxes: two titles that differ only in an ideograph give different images,
-- and nothing is warned; characters no font has are named in one warning
-- (review 111 F11: a warning per character, from a file of pysandbox's)
SELECT r->'stderr' AS stderr,
       r->'figures'->0->>'data' <> r->'figures'->1->>'data' AS drawn
FROM sandbox_run($$
import matplotlib.pyplot as plt
def main():
    for title in ("销售额 中 売上 매출", "销售额 丁 売上 매출"):
        fig, ax = plt.subplots(figsize=(3, 1))
        ax.set_title(title)
$$) AS r;
SELECT sandbox_run($$
import matplotlib.pyplot as plt
def main():
    fig, ax = plt.subplots(figsize=(3, 1))
    ax.set_title("\U00013000\U00013001 \U00013000")
$$)->'stderr';
DROP FUNCTION spark(int), open_figures(int), png_info(bytea);
