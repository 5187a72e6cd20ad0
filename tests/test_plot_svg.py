"""The decision boundary as SVG (micrograd.plot_svg), in pure Python: notebook 06's
picture where matplotlib is missing. The picture is read back as a person would read it:
parsed as XML, the plane's coordinates taken from its own tick labels, each background
cell's colour matched with the legend's class colours and compared with the model's
output at that cell's centre, each point's colour with its label."""

import math
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from notebook_runner import mimetypes, run

from micrograd.data import make_blobs, make_moons, train_test_split
from micrograd.engine import Value
from micrograd.nn import MLP
from micrograd.plot_svg import decision_boundary_svg
from micrograd.train import fit

SVG = "{http://www.w3.org/2000/svg}"
ROOT = Path(__file__).resolve().parents[1]


def rgb(text):
    if text == "black":
        return (0, 0, 0)
    return tuple(int(text[k:k + 2], 16) for k in (1, 3, 5))


def tint_of(colour, full):
    """The share f of ``full`` in ``colour`` (colour = white + f (full - white)), or None
    when ``colour`` is no tint of ``full``."""
    shares = [(255 - c) / (255 - f) for c, f in zip(colour, full) if f != 255]
    if not shares or max(shares) - min(shares) > 0.03 or not 0 < shares[0] <= 1.0001:
        return None
    return shares[0]


class Picture:
    """An SVG boundary picture, read back: its cells, points, legend and axes."""

    def __init__(self, text):
        self.root = ET.fromstring(text)  # raises on anything that is not XML
        assert self.root.tag == f"{SVG}svg"
        groups = {g.get("class"): g for g in self.root.iter(f"{SVG}g") if g.get("class")}
        self.cells = [r.attrib for r in groups["cells"].iter(f"{SVG}rect")]
        self.train = [(g.get("data-label"), c.attrib)
                      for g in groups["points train"] for c in g.iter(f"{SVG}circle")]
        self.test = ([(g.get("data-label"), p.attrib) for g in groups["points test"]
                      for p in g.iter(f"{SVG}polygon")] if "points test" in groups else [])
        self.legend = {}  # "train +1" -> its marker's colour
        for mark, text in zip(list(groups["legend"])[0::2], list(groups["legend"])[1::2]):
            self.legend[text.text] = rgb(mark.get("fill") if mark.get("fill") not in
                                         (None, "none") else mark.get("stroke"))
        self.frame = next(r.attrib for r in self.root.iter(f"{SVG}rect")
                          if r.get("class") == "frame")
        ticks = [(t.get("text-anchor"), float(t.get("x")), float(t.get("y")), float(t.text))
                 for t in groups["ticks"].iter(f"{SVG}text")]
        xs = [(x, v) for anchor, x, _, v in ticks if anchor == "middle"]
        ys = [(y, v) for anchor, _, y, v in ticks if anchor == "end"]
        assert len(xs) >= 2 and len(ys) >= 2
        (a, va), (b, vb) = xs[0], xs[-1]
        self.plane_x = lambda p: va + (p - a) * (vb - va) / (b - a)
        (a2, wa), (b2, wb) = ys[0], ys[-1]
        self.plane_y = lambda p: wa + (p - a2) * (wb - wa) / (b2 - a2)
        self.boundary = [p.get("d") for p in self.root.iter(f"{SVG}path")
                         if p.get("class") == "boundary"]

    def cell_centres(self):
        """(x, y, fill) of every cell, a merged rectangle cut back into its cells."""
        side = float(self.cells[0]["height"])
        for r in self.cells:
            x, y, w = float(r["x"]), float(r["y"]), float(r["width"])
            for k in range(round(w / side)):
                yield x + (k + 0.5) * side, y + side / 2, r["fill"]

    def class_of(self, fill):
        """The legend's training class whose colour ``fill`` is a tint of."""
        found = [name for name, full in self.legend.items() if name.startswith("train ")
                 and tint_of(rgb(fill), full) is not None]
        assert len(found) == 1, (fill, found)
        return found[0].split(" ", 1)[1]


def scores(model, x, y):
    v = model([x, y])
    return [u.data for u in v] if isinstance(v, list) else getattr(v, "data", v)


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(80, noise=0.1, seed=3)
    Xtr, Xte, ytr, yte = train_test_split(X, y, seed=0)
    model = MLP(2, [8, 8, 1], activation="relu", output_activation="linear",
                bias_init="zero", seed=7)
    fit(model, Xtr, ytr, loss="hinge", epochs=30, progress=False, runner="eager")
    return model, Xtr, Xte, ytr, yte


def linear(p):
    """A model with a known boundary: x + 2y = 1."""
    return Value(p[0]) + 2 * Value(p[1]) - 1


def sigmoid_mlp():
    return MLP(2, [6, 1], activation="tanh", output_activation="sigmoid", seed=2)


@pytest.mark.parametrize("which", ["trained MLP", "linear", "sigmoid output"])
def test_every_cell_has_the_colour_of_the_class_the_model_gives_its_centre(moons, which):
    model, Xtr, Xte, ytr, yte = moons
    model = {"trained MLP": model, "linear": linear, "sigmoid output": sigmoid_mlp()}[which]
    threshold = 0.5 if which == "sigmoid output" else 0.0
    pic = Picture(decision_boundary_svg(model, Xtr, ytr, Xte, yte, title="moons").text)
    seen, side = set(), float(pic.cells[0]["height"])
    # a cell's centre, found back through the tick labels, is a few thousandths of a
    # unit off: a cell whose score changes sign within that is not judged
    near = 0.01
    for px, py, fill in pic.cell_centres():
        x, y = pic.plane_x(px), pic.plane_y(py)
        around = [scores(model, x + dx, y + dy) - threshold
                  for dx in (-near, 0, near) for dy in (-near, 0, near)]
        if min(around) < 0 <= max(around):
            continue
        want = "+1" if around[4] >= 0 else "-1"
        assert pic.class_of(fill) == want, (which, x, y, around[4], fill)
        seen.add(want)
    assert seen == {"+1", "-1"}  # both classes on the plane: the test saw a boundary
    assert side >= 2 and len(pic.cells) >= 2


def test_a_model_with_several_outputs_colours_each_cell_by_its_largest():
    X, y = make_blobs(60, seed=1, n_classes=3)
    model = MLP(2, [8, 3], activation="tanh", output_activation="linear", seed=4)
    fit(model, X, y, loss="ce", epochs=20, progress=False, runner="eager")
    pic = Picture(decision_boundary_svg(model, X, y, grid=30).text)
    seen = set()
    for px, py, fill in pic.cell_centres():
        s = scores(model, pic.plane_x(px), pic.plane_y(py))
        best = sorted(s)
        if best[-1] - best[-2] < 0.05:  # two outputs too close to judge
            continue
        seen.add(pic.class_of(fill))
        assert pic.class_of(fill) == str(s.index(best[-1]))
    assert seen == {"0", "1", "2"}
    assert not pic.boundary  # the classes' edges are the colours' own
    assert [label for label, _ in pic.train] == [str(c) for c in y]


def test_the_points_are_drawn_in_their_class_colour_train_and_test(moons):
    model, Xtr, Xte, ytr, yte = moons
    pic = Picture(decision_boundary_svg(model, Xtr, ytr, Xte, yte).text)
    assert len(pic.train) == len(Xtr) and len(pic.test) == len(Xte)
    assert set(pic.legend) == {"train -1", "train +1", "test -1", "test +1", "boundary"}
    assert pic.legend["train +1"] != pic.legend["train -1"]
    for (label, circle), want, (x, y) in zip(pic.train, ytr, Xtr):
        assert label == f"{want:+d}"
        assert rgb(circle["fill"]) == pic.legend[f"train {want:+d}"]
        assert math.isclose(pic.plane_x(float(circle["cx"])), x, abs_tol=0.01)
        assert math.isclose(pic.plane_y(float(circle["cy"])), y, abs_tol=0.01)
    for (label, triangle), want in zip(pic.test, yte):
        assert label == f"{want:+d}" and triangle["fill"] == "none"
        assert rgb(triangle["stroke"]) == pic.legend[f"test {want:+d}"]
    # labels 0 and 1: named so, 1 in +1's colour and 0 in -1's
    y01 = [(c + 1) // 2 for c in ytr]
    pic01 = Picture(decision_boundary_svg(model, Xtr, y01).text)
    assert pic01.legend["train 1"] == pic.legend["train +1"]
    assert pic01.legend["train 0"] == pic.legend["train -1"]
    for (label, circle), want in zip(pic01.train, y01):
        assert label == str(want) and rgb(circle["fill"]) == pic01.legend[f"train {want}"]


def test_the_cells_tile_the_frame_and_each_row_merges_its_runs(moons):
    model, Xtr, _, ytr, _ = moons
    pic = Picture(decision_boundary_svg(model, Xtr, ytr, grid=40).text)
    side = float(pic.cells[0]["height"])
    rows = {}
    for r in pic.cells:
        assert float(r["height"]) == side
        rows.setdefault(float(r["y"]), []).append(r)
    f = {k: float(v) for k, v in pic.frame.items() if k in ("x", "y", "width", "height")}
    assert sorted(rows) == [f["y"] + k * side for k in range(len(rows))]
    assert len(rows) * side == f["height"]
    across = []
    for row in rows.values():
        row.sort(key=lambda r: float(r["x"]))
        assert float(row[0]["x"]) == f["x"]
        for a, b in zip(row, row[1:]):
            assert float(a["x"]) + float(a["width"]) == float(b["x"])  # no gap, no overlap
            assert a["fill"] != b["fill"]  # a run of one colour is one rectangle
        assert float(row[-1]["x"]) + float(row[-1]["width"]) == f["x"] + f["width"]
        across.append(round(f["width"] / side))
    assert max(across + [len(rows)]) == 40  # grid cells along the longer side
    assert len(pic.cells) < 40 * len(rows) / 2  # merged: far fewer than the cells


def test_the_boundary_line_is_where_the_score_is_zero():
    X = [[-1.0, -1.0], [2.0, 1.5], [0.0, 2.0], [1.0, -0.5]]
    pic = Picture(decision_boundary_svg(linear, X, [-1, 1, 1, -1], grid=25).text)
    (d,) = pic.boundary
    ends = [tuple(map(float, p.split(","))) for p in d.replace("M", " ").replace("L", " ")
            .split()]
    assert len(ends) >= 20
    for px, py in ends:  # a straight line, found exactly by the interpolation
        x, y = pic.plane_x(px), pic.plane_y(py)
        assert abs(x + 2 * y - 1) < 0.01, (x, y)


def segments(d):
    """A boundary path's segments, ((x, y), (x, y)) in pixels."""
    return [tuple(tuple(map(float, p.split(","))) for p in seg.split("L"))
            for seg in d.split("M")[1:]]


def test_a_saddle_cell_joins_the_corners_its_centre_sides_with():
    """x y + 0.05 = 0: a hyperbola in the 2nd and 4th quadrants. On 6 x 6 cells the
    cell around the origin has its four corners' signs alternating (+ on the diagonal
    x = y, - off it) and its centre positive: the line cuts off the two negative corners;
    the other way round it would cross the middle, where x y + 0.05 is 0.05."""
    X = [[-1.0, -1.0], [1.0, 1.0], [-1.0, 1.0], [1.0, -1.0]]
    pic = Picture(decision_boundary_svg(lambda p: Value(p[0]) * Value(p[1]) + 0.05, X,
                                        [1, 1, -1, -1], grid=6).text)
    (d,) = pic.boundary
    segs = segments(d)
    assert len(segs) >= 8
    for (ax, ay), (bx, by) in segs:  # a chord of the curve: near it, not on it
        x, y = pic.plane_x((ax + bx) / 2), pic.plane_y((ay + by) / 2)
        assert abs(x * y + 0.05) < 0.03, (x, y)


@pytest.mark.parametrize("width", [200, 333, 480, 641])
@pytest.mark.parametrize("shape", ["wide", "tall"])
def test_the_picture_is_width_pixels_wide_the_plane_between_its_margins(width, shape):
    X = [[-2.0, -1.0], [2.0, 1.0], [0.0, 0.5]]
    if shape == "tall":
        X = [[b, a] for a, b in X]
    picture = decision_boundary_svg(linear, X, [-1, 1, 1], title="t", width=width)
    pic = Picture(picture.text)
    assert picture.width == width and pic.root.get("width") == str(width)
    assert pic.root.get("viewBox").split()[:3] == ["0", "0", str(width)]
    left = float(pic.frame["x"])
    right = width - left - float(pic.frame["width"])
    assert left >= 44 and right >= 12  # the y ticks' margin, and the right's
    assert abs((left - 44) - (right - 12)) <= 1  # the pixels left over, split
    if shape == "wide":  # 40 cells across as wide as fits: a pixel more each would not
        assert float(pic.frame["width"]) % 40 == 0
        assert float(pic.frame["width"]) + 40 > width - 44 - 12


def test_the_legend_names_the_boundary_only_when_a_line_is_drawn():
    X = [[-1.0, -1.0], [1.0, 1.0]]
    pic = Picture(decision_boundary_svg(lambda p: Value(1.0), X, [-1, 1]).text)
    assert not pic.boundary  # one class everywhere: no line
    assert set(pic.legend) == {"train -1", "train +1"}
    pic = Picture(decision_boundary_svg(linear, X, [-1, 1]).text)
    assert pic.boundary and "boundary" in pic.legend


def test_the_same_input_gives_the_same_text_and_a_repr_without_an_address(moons):
    model, Xtr, _, ytr, _ = moons
    a = decision_boundary_svg(model, Xtr, ytr, title="a <b> & c")
    b = decision_boundary_svg(model, Xtr, ytr, title="a <b> & c")
    assert a.text == b.text and a._repr_svg_() == a.text
    assert repr(a) == f"<SvgPicture {a.width}x{a.height}: a <b> & c>"
    assert "a &lt;b&gt; &amp; c" in a.text
    Picture(a.text)


def test_save_writes_the_svg(moons, tmp_path):
    model, Xtr, _, ytr, _ = moons
    pic = decision_boundary_svg(model, Xtr, ytr)
    path = tmp_path / "b.svg"
    assert pic.save(path) == path
    assert path.read_text(encoding="utf-8") == pic.text


def three_outputs(p):
    return [Value(p[0]), Value(p[1]), Value(0.0)]


@pytest.mark.parametrize("call, error, words", [
    (lambda: decision_boundary_svg("net", [[0, 0]], [1]), TypeError, "model must be callable"),
    (lambda: decision_boundary_svg(linear, "points", [1]), TypeError, "X must be a list"),
    (lambda: decision_boundary_svg(linear, [0.0, 1.0], [1, -1]), TypeError, "X[0] must be"),
    (lambda: decision_boundary_svg(linear, [[0, 0, 1]], [1]), ValueError, "2-D points"),
    (lambda: decision_boundary_svg(linear, [], []), ValueError, "X is empty"),
    (lambda: decision_boundary_svg(linear, [[0, "a"]], [1]), TypeError, "X[0][1]"),
    (lambda: decision_boundary_svg(linear, [[0, float("nan")]], [1]), ValueError, "finite"),
    (lambda: decision_boundary_svg(linear, [[0, 0], [1, 1]], [1]), ValueError,
     "2 points but 1 labels"),
    (lambda: decision_boundary_svg(linear, [[0, 0]], [0.5]), ValueError, "class label"),
    (lambda: decision_boundary_svg(linear, [[0, 0]], 1), TypeError, "y must be a list"),
    (lambda: decision_boundary_svg(linear, [[0, 0]], [1], X_test=[[1, 1]]), ValueError,
     "X_test and y_test together"),
    (lambda: decision_boundary_svg(linear, [[0, 0]], [1], grid=1), ValueError, "grid"),
    (lambda: decision_boundary_svg(linear, [[0, 0]], [1], grid=1000), ValueError, "grid"),
    (lambda: decision_boundary_svg(linear, [[0, 0]], [1], grid="40"), TypeError, "grid"),
    (lambda: decision_boundary_svg(linear, [[0, 0]], [1], width=10), ValueError, "width"),
    (lambda: decision_boundary_svg(linear, [[0, 0]], [1], grid=200, width=400), ValueError,
     "give width at least 456 or a smaller grid"),
    (lambda: decision_boundary_svg(linear, [[0, 0]], [1], title=3), TypeError, "title"),
    (lambda: decision_boundary_svg(lambda p: "yes", [[0, 0]], [1]), TypeError,
     "must return a number"),
    (lambda: decision_boundary_svg(three_outputs, [[0, 0]], [5]), ValueError,
     "takes labels 0..2"),
])
def test_bad_input_is_refused_with_a_clear_error(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)


BLOCKED = """
import sys

class Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"numpy", "matplotlib", "PIL", "IPython", "torch"}:
            raise ModuleNotFoundError(f"{name} is blocked for this test", name=name)
        return None

sys.meta_path.insert(0, Blocked())
from micrograd.data import make_moons
from micrograd.nn import MLP
from micrograd.plot_svg import decision_boundary_svg
X, y = make_moons(40, seed=0)
text = decision_boundary_svg(MLP(2, [8, 1], seed=0), X, y, X[:5], y[:5], title="t").text
assert text.startswith("<svg") and text.endswith("</svg>")
print(sorted(m for m in sys.modules
             if m.split(".")[0] in {"numpy", "matplotlib", "PIL", "IPython", "torch"}))
"""


def test_it_imports_no_numpy_nor_matplotlib():
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run([sys.executable, "-c", BLOCKED], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


@pytest.mark.slow  # a kernel and the notebook's training: seconds
def test_notebook_06_draws_the_svg_where_matplotlib_is_missing(tmp_path):
    """The browser's path, under CPython: matplotlib (and NumPy) fail to import."""
    hidden = tmp_path / "hidden"
    for package in ("matplotlib", "numpy"):
        (hidden / package).mkdir(parents=True)
        (hidden / package / "__init__.py").write_text(
            f"raise ModuleNotFoundError('{package} is hidden', name='{package}')\n")
    nb = run("06_training_an_mlp.ipynb", tmp_path, extra_path=str(hidden))
    kinds = mimetypes(nb)
    assert "image/svg+xml" in kinds and "image/png" not in kinds
    assert not [o for c in nb.cells for o in c.get("outputs", [])
                if o.output_type == "error"]
    (svg,) = [o.data["image/svg+xml"] for c in nb.cells for o in c.get("outputs", [])
              if "image/svg+xml" in o.get("data", {}) and "micrograd-boundary"
              in o.data["image/svg+xml"]]
    pic = Picture(svg)
    assert len(pic.train) == 100 and not pic.test
    assert "moons, MLP(2, [16, 16, 1]) after 30 steps" in svg
