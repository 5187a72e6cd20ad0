"""The lecture's ``draw_dot(root)`` and ``trace(root)``, with no Graphviz binary.

The lecture (and micrograd's ``trace_graph`` notebook) draws a graph with::

    from micrograd.viz import draw_dot      # or: from micrograd import draw_dot
    dot = draw_dot(L)                       # format='svg', rankdir='LR'
    dot                                     # Jupyter shows the drawing inline
    dot.render("graph")                     # writes graph.svg
    print(dot.source)                       # the DOT text

There ``draw_dot`` returns a ``graphviz.Digraph``, which needs the ``dot`` program that a
fresh machine lacks. Here it returns a :class:`Digraph` with the same three things a
learner uses (inline display, ``.render(filename)``, ``.source``), drawn by this
package's own layout and renderers (SVG, PNG, DOT, JSON).

A drawing made before ``backward()`` shows every grad as 0, which puzzles everyone
once. When that is the case the drawing carries a visible note saying so.

The lecture's ``trace(root)`` (two sets: the Values and the ``(child, parent)`` pairs) is
``value_sets``; ``trace`` here is the lecture's name for it, kept as an alias.
"""

from __future__ import annotations

import base64
import json
import os
import tempfile

from .dot import to_dot
from ..graph import check_root
from .jsonform import layout_to_dict
from .layout import CHAR_W, FONT_SIZE, layout
from .svg import render_svg

FORMATS = ("svg", "png", "dot", "json")
RANKDIRS = ("LR", "TB")
NOTE = ("every grad is still 0: backward() has not run yet "
        "(call root.backward(), then draw again)")
NOTE_COLOR = "#b00020"
NOTE_BAND = 26.0  # px of the band above the drawing that holds the note


def value_sets(root):
    """The lecture's ``trace``: ``(nodes, edges)``, a set of every Value reachable from
    ``root`` and a set of ``(child, parent)`` pairs, the child feeding the parent.

    Iterative, so a graph of any depth works. A reused input (``a*a``) is one pair, as
    in the lecture (a set cannot hold it twice); ``micrograd.graph.nodes_and_edges``
    keeps both edges and the drawing shows both.
    """
    check_root(root)
    nodes, edges = set(), set()
    stack = [root]
    while stack:
        v = stack.pop()
        if v in nodes:
            continue
        nodes.add(v)
        for child in v._prev:
            edges.add((child, v))
            stack.append(child)
    return nodes, edges


#: the lecture's name for ``value_sets`` (its ``draw_dot`` calls ``trace(root)``)
trace = value_sets


def grads_never_computed(root):
    """True when every grad in the graph of ``root`` is 0, the root's included: the
    drawing was made before ``backward()`` (after it, the root's grad is 1)."""
    nodes, _ = value_sets(root)
    return all(v.grad == 0.0 for v in nodes)


def _check_format(fmt, what="format"):
    if not isinstance(fmt, str):
        raise TypeError(f"{what} must be a str, got {type(fmt).__name__}")
    f = fmt.lower().lstrip(".")
    if f not in FORMATS:
        raise ValueError(f"unknown {what} {fmt!r}; choose one of {', '.join(FORMATS)}")
    return f


def _write_atomic(path, data):
    """Write bytes to ``path`` through a temporary file in the same folder, then rename."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".draw_dot-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


class Digraph:
    """A drawn graph, like ``graphviz.Digraph`` to a learner: displays inline in Jupyter,
    ``.source`` is the DOT text, ``.render(filename)`` writes a file, ``.pipe()`` returns
    the bytes. Drawn when created: later changes to the Values (a ``backward()``) need a
    new ``draw_dot``."""

    def __init__(self, root, format="svg", rankdir="LR", show_grad=True):
        check_root(root)
        self.format = _check_format(format)
        if rankdir not in RANKDIRS:
            raise ValueError(f"rankdir must be 'LR' or 'TB', got {rankdir!r}")
        self.rankdir = rankdir
        self.show_grad = bool(show_grad)
        self.root = root
        self.note = NOTE if self.show_grad and grads_never_computed(root) else None
        self._layout = layout(root, rankdir=rankdir, show_grad=self.show_grad)
        self._svg = None

    # -- the texts ---------------------------------------------------------------------

    @property
    def source(self):
        """The DOT text (``dot -Tsvg`` draws it where Graphviz is installed)."""
        text = to_dot(self.root, rankdir=self.rankdir, show_grad=self.show_grad)
        if self.note:
            head, rest = text.split("\n", 1)
            text = (f"{head}\n  labelloc=t;\n  fontcolor=\"{NOTE_COLOR}\";\n"
                    f"  label=\"{self.note}\";\n{rest}")
        return text

    def svg(self):
        """The drawing as self-contained SVG text (with the note above it, if any)."""
        if self._svg is None:
            inner = render_svg(self._layout)
            if self.note:
                inner = self._with_note(inner)
            self._svg = inner
        return self._svg

    def _with_note(self, inner):
        lay = self._layout
        w = max(lay.width, len(self.note) * CHAR_W + 16)
        h = lay.height + NOTE_BAND
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" '
                f'viewBox="0 0 {w:.0f} {h:.0f}" font-family="monospace" '
                f'font-size="{FONT_SIZE:.0f}" class="micrograd-draw-dot">'
                f'<rect x="0" y="0" width="{w:.0f}" height="{h:.0f}" fill="white"/>'
                f'<text class="note" x="8" y="{NOTE_BAND / 2:.0f}" '
                f'dominant-baseline="central" fill="{NOTE_COLOR}">{self.note}</text>'
                f'<g transform="translate(0,{NOTE_BAND:.0f})">{inner}</g></svg>')

    def to_dict(self):
        """The laid-out graph as a JSON-ready dict (docs/graphs.md), plus ``note``."""
        d = layout_to_dict(self._layout)
        d["note"] = self.note
        return d

    def png(self):
        """The drawing as PNG bytes (matplotlib's Agg canvas; the note above it)."""
        from .png import render_png

        fd, tmp = tempfile.mkstemp(suffix=".png")
        os.close(fd)
        try:
            render_png(self._layout, tmp)
            if self.note:
                self._add_png_note(tmp)
            with open(tmp, "rb") as f:
                return f.read()
        finally:
            os.unlink(tmp)

    def _add_png_note(self, path):
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.image import imread

        img = imread(path)
        dpi = 100
        band = 40
        h, w = img.shape[0], img.shape[1]
        w2 = max(w, int(len(self.note) * 8.5) + 20)
        fig = Figure(figsize=(w2 / dpi, (h + band) / dpi), dpi=dpi)
        FigureCanvasAgg(fig)
        fig.figimage(img, xo=0, yo=0)
        fig.text(10 / w2, 1 - (band / 2) / (h + band), self.note, color=NOTE_COLOR,
                 family="monospace", fontsize=10, va="center")
        fig.savefig(path, dpi=dpi, facecolor="white")

    # -- Graphviz's API ----------------------------------------------------------------

    def pipe(self, format=None):
        """The drawing in ``format`` (default: this graph's) as bytes."""
        f = self.format if format is None else _check_format(format)
        if f == "svg":
            return self.svg().encode("utf-8")
        if f == "png":
            return self.png()
        if f == "dot":
            return self.source.encode("utf-8")
        return json.dumps(self.to_dict(), indent=1, allow_nan=False).encode("utf-8")

    def render(self, filename="graph", format=None):
        """Write the drawing to a file and return its path.

        The format is ``format=`` if given, else the file's extension if it is one of
        svg, png, dot, json, else this graph's ``format`` (the lecture's
        ``draw_dot(root, format='png').render('graph')`` writes ``graph.png``, as Graphviz
        does). The file is written atomically.
        """
        if not isinstance(filename, (str, os.PathLike)):
            raise TypeError(f"filename must be a str or path, got {type(filename).__name__}")
        path = os.fspath(filename)
        ext = os.path.splitext(path)[1].lower().lstrip(".")
        if format is not None:
            f = _check_format(format)
            if ext != f:
                path = f"{path}.{f}"
        elif ext in FORMATS:
            f = ext
        else:
            f = self.format
            path = f"{path}.{f}"
        folder = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(folder):
            raise FileNotFoundError(f"no such folder: {folder}")
        return _write_atomic(path, self.pipe(f))

    def save(self, filename="graph.dot"):
        """Write the DOT source to ``filename`` (Graphviz's ``save``); return the path."""
        return _write_atomic(os.fspath(filename), self.source.encode("utf-8"))

    # -- Jupyter -----------------------------------------------------------------------

    def _repr_svg_(self):
        return self.svg()

    def _repr_mimebundle_(self, include=None, exclude=None):
        bundle = {"image/svg+xml": self.svg(), "text/plain": repr(self)}
        if self.format == "png":
            bundle["image/png"] = base64.b64encode(self.png()).decode("ascii")
        if include:
            bundle = {k: v for k, v in bundle.items() if k in include}
        if exclude:
            bundle = {k: v for k, v in bundle.items() if k not in exclude}
        return bundle

    def __repr__(self):
        n, e = len(self._layout.nodes), len(self._layout.edges)
        note = "; grads not computed yet" if self.note else ""
        return (f"<micrograd Digraph: {n} values, {e} edges, format={self.format!r}, "
                f"rankdir={self.rankdir!r}{note}>")


def draw_dot(root, format="svg", rankdir="LR", show_grad=True):
    """The lecture's ``draw_dot``: the graph of ``root`` as a :class:`Digraph`.

    ``format``: 'svg' (default), 'png', 'dot' or 'json', used by ``render``;
    ``rankdir``: 'LR' (left to right, the default) or 'TB' (top to bottom).

        >>> from micrograd.engine import Value
        >>> a = Value(2.0, label="a"); b = Value(-3.0, label="b")
        >>> L = a * b; L.label = "L"
        >>> draw_dot(L).note is not None        # drawn before backward()
        True
        >>> L.backward()
        >>> dot = draw_dot(L)
        >>> dot.note is None, dot.source.startswith("digraph")
        (True, True)
    """
    return Digraph(root, format=format, rankdir=rankdir, show_grad=show_grad)


__all__ = ["FORMATS", "NOTE", "Digraph", "draw_dot", "grads_never_computed", "value_sets",
           "trace"]
