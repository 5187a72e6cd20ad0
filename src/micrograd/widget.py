"""The Walk inside Jupyter: step a graph forward and backward, click an edge for its
local derivative, try a visit order and see which contributions are lost.

    >>> from micrograd.widget import walk_widget
    >>> walk_widget("diamond")  # shows the widget  # doctest: +SKIP

``walk_widget(what)`` takes a preset name (``sum_times``, ``lecture``, ``neuron``,
``square``, ``diamond``, ``reused``: ``micrograd.walk_setup.PRESETS``, the Walk page's
table), an expression in the ``micrograd.expr`` language (``"a = 2; b = a*a"``), a
``Value``, or a ``WalkSetup`` (a preset or expression with its leaf values, mode and
step, as a Walk link holds them: ``WalkSetup.from_url(...)``). It returns an anywidget
``WalkWidget``: the buttons send a message to the kernel, the kernel runs
:class:`WalkModel`, and the page redraws the state it gets back. Every number comes from
``micrograd.walk`` (the engine's op table); the drawing is ``micrograd.viz``'s SVG.
``WalkModel`` itself needs neither Jupyter nor anywidget, so it can be driven (and
tested) from plain Python:

    >>> from micrograd.widget import WalkModel
    >>> m = WalkModel("sum_times")
    >>> m.run_forward(); m.run_backward()
    >>> m.state()["grads"]["a"]
    10.0

As on the page, a timeline moves to any step, back as well as forward
(:meth:`WalkModel.go_to`, :meth:`~WalkModel.previous`, :meth:`~WalkModel.next`; the
widget's slider and buttons), each mode shows its lesson (``MODES``, the page's table),
and the no-zero_grad mode shows micrograd 0.1.0 beside PyTorch and this package
(``walk_setup.compare_conventions``, the wrong grads marked); each mode says what it
does to this graph (``walk_explain``). :meth:`WalkModel.setup` is the state as a
``WalkSetup``, so ``setup().to_url()`` opens the page at the same step:

    >>> m.go_to(3); m.setup().to_url()
    {'preset': 'sum_times', 'step': '3'}
"""

from __future__ import annotations

import copy
import pathlib

from . import walk as _walk
from . import walk_explain
from .engine import Value
from .walk_setup import MODES, PRESETS, WalkSetup, WalkSetupError, compare_conventions
from .graph import fmt, num
from .graph import fmt4
from .viz.layout import layout
from .viz.svg import render_svg

__all__ = ["PRESETS", "WalkModel", "walk_widget"]

#: the Walk's default set-up (WalkSetup's defaults: its preset, the correct backward pass)
_DEFAULT = WalkSetup()


class WalkModel:
    """The widget's state and its actions, in plain Python.

    Actions: :meth:`step_forward`, :meth:`step_backward`, :meth:`run_forward`,
    :meth:`run_backward`, :meth:`reset`, :meth:`go_to`, :meth:`previous`, :meth:`next`,
    :meth:`set_mode`, :meth:`set_order`, :meth:`select_edge`, :meth:`load`. Each returns
    nothing and never raises for a user's input: a refused action sets ``error`` in
    :meth:`state` instead.
    """

    def __init__(self, what=None, mode=None, order=None):
        # what, mode: None is the Walk's own default (WalkSetup's)
        what = _DEFAULT.preset if what is None else what
        self.error = None
        self.mode = _DEFAULT.mode
        self.order = None
        self.values = {}
        self._load(what)
        self.set_mode(what.mode if isinstance(what, WalkSetup)
                      else _DEFAULT.mode if mode is None else mode)
        if order:
            self.set_order(order)
        if self.error:  # a bad mode or order at construction is the caller's mistake
            raise ValueError(self.error)
        if isinstance(what, WalkSetup):
            self._show_steps(what.step)

    # -- the graph ---------------------------------------------------------------------

    def _load(self, what):
        from .expr import parse

        if isinstance(what, Value):
            root, name, source = what, None, None
        elif isinstance(what, WalkSetup):
            what.check()
            name, source = what.preset, what.source
            root = parse(source, what.values or None, override=True)
            self.values = dict(what.values)
        elif isinstance(what, str):
            key = what.strip()
            if key in PRESETS:
                name, source = key, PRESETS[key].expr
            else:
                name, source = None, key
            root = parse(source)
        else:
            raise TypeError(f"walk_widget takes a preset name, an expression, a Value or "
                            f"a WalkSetup, got {type(what).__name__}")
        if not isinstance(what, WalkSetup):
            self.values = {}
        self.root, self.preset, self.source = root, name, source
        self._layout = layout(root, rankdir="LR", show_grad=True)
        self._rewalk()

    def load(self, what):
        """Load a preset, an expression or a Value; keeps the mode, drops the order."""
        try:
            self._load(what)
        except (TypeError, ValueError) as err:  # expr's errors are ValueErrors
            self.error = f"cannot load {what!r}: {err}"
            return
        self.order = None
        self.error = None
        self._rewalk()

    def _rewalk(self):
        w = walk_explain.label_repeats(_walk.walk(self.root, order=self.order, mode=self.mode))
        self.walk = w
        self.names = w.names
        self.fpos = 0  # forward steps done
        self.bpos = 0  # backward steps done
        self.selected = None
        self.error = None

    # -- actions -----------------------------------------------------------------------

    def reset(self):
        self._rewalk()

    def set_mode(self, mode):
        if mode not in _walk.MODES:
            self.error = f"unknown mode {mode!r}; choose one of {', '.join(_walk.MODES)}"
            return
        self.mode = mode
        if mode != "correct":
            self.order = None
        self._rewalk()

    def set_order(self, order):
        """A visit order (``'d,b,c,a'``, names or ids) for the backward pass; empty or
        None for the reverse topological order. Switches the mode to ``correct``."""
        order = None if order is None or not str(order).strip() else str(order)
        old = (self.order, self.mode)
        self.order, self.mode = order, "correct"
        try:
            self._rewalk()
        except _walk.WalkError as err:
            self.order, self.mode = old
            self._rewalk()
            self.error = str(err)

    def step_forward(self):
        if self.fpos < len(self.walk.forward):
            self.fpos += 1
            self.error = None
        else:
            self.error = "the forward pass is done: step backward now"

    def run_forward(self):
        self.fpos = len(self.walk.forward)
        self.error = None

    def step_backward(self):
        if self.fpos < len(self.walk.forward):
            self.error = ("step forward first: the backward pass needs the data of every "
                          "node")
            return
        if self.bpos < len(self.walk.backward):
            self.bpos += 1
            self.error = None
        else:
            self.error = "the backward pass is done"

    def run_backward(self):
        self.run_forward()
        self.bpos = len(self.walk.backward)

    def _show_steps(self, k):
        """The first ``k`` steps applied: forward steps first, then backward ones."""
        self.fpos = min(k, len(self.walk.forward))
        self.bpos = min(k - self.fpos, len(self.walk.backward))

    def steps_total(self):
        return len(self.walk.forward) + len(self.walk.backward)

    def go_to(self, k):
        """The timeline: show the first ``k`` steps (0 to every step of the forward and
        backward pass), back as well as forward; every number is the walk's at step k."""
        n = self.steps_total()
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= n:
            self.error = f"a step is a whole number 0 to {n}, got {k!r:.40}"
            return
        self._show_steps(k)
        self.error = None

    def previous(self):
        """One step back (a backward step first, then a forward one)."""
        self.go_to(max(0, self.fpos + self.bpos - 1))

    def next(self):
        """One step on, forward pass and backward pass alike."""
        self.go_to(min(self.steps_total(), self.fpos + self.bpos + 1))

    def setup(self):
        """The widget's state as a ``WalkSetup`` (graph, leaf values, mode, step): its
        ``to_url()`` opens the Walk page where the widget is. None for a ``Value``
        walked directly (no text to link to) or a visit order of one's own (the page's
        link has none)."""
        if self.source is None or self.order:
            return None
        graph = {"preset": self.preset} if self.preset else {"preset": None,
                                                              "expr": self.source}
        return WalkSetup(**graph, values=dict(self.values), mode=self.mode,
                         step=self.fpos + self.bpos).check()

    def select_edge(self, edge_id):
        ids = {e.id for e in self._layout_edges()}
        if edge_id is not None and edge_id not in ids:
            self.error = f"no edge {edge_id!r}"
            return
        self.selected = edge_id
        self.error = None

    def handle(self, msg):
        """Apply one message from the page: ``{'action': name, ...}``."""
        if not isinstance(msg, dict):
            self.error = f"a message must be a dict, got {type(msg).__name__}"
            return
        action = msg.get("action")
        simple = {"step_forward": self.step_forward, "step_backward": self.step_backward,
                  "run_forward": self.run_forward, "run_backward": self.run_backward,
                  "reset": self.reset}
        if action in simple:
            simple[action]()
        elif action == "go_to":
            self.go_to(msg.get("step"))
        elif action in ("previous", "next"):
            getattr(self, action)()
        elif action == "set_mode":
            self.set_mode(msg.get("mode"))
        elif action == "set_order":
            self.set_order(msg.get("order"))
        elif action == "select_edge":
            self.select_edge(msg.get("edge"))
        elif action == "load":
            self.load(msg.get("what", ""))
        else:
            self.error = f"unknown action {action!r}"

    # -- what the page shows -----------------------------------------------------------

    def _layout_edges(self):
        return [el.edge for el in self._layout.edges]

    def _known_data(self):
        """id -> data of the nodes computed so far (leaves from the start)."""
        data = {nl.node.id: nl.node.data for nl in self._layout.nodes if nl.node.leaf}
        for s in self.walk.forward[:self.fpos]:
            data[s.node] = s.value
        return data

    def _grads(self):
        """id -> grad after the backward steps done so far. A deposit into a node that
        was already visited is lost (the visit read its grad): it is not shown."""
        grads = {}
        for s in self.walk.backward[:self.bpos]:
            if s.kind == "seed":
                grads[s.node] = s.upstream
            else:  # a visit reads the node's grad: from now on it is shown, 0 or not
                grads.setdefault(s.node, s.upstream)
            for c in s.contributions:
                if not c.lost:
                    grads[c.parent] = c.grad_after
        return grads

    def _current(self):
        if self.bpos:
            return self.walk.backward[self.bpos - 1]
        if self.fpos:
            return self.walk.forward[self.fpos - 1]
        return None

    def phase(self):
        if self.bpos == len(self.walk.backward) and self.bpos:
            return "done"
        if self.bpos:
            return "backward"
        if self.fpos == len(self.walk.forward):
            return "forward done"
        return "forward" if self.fpos else "idle"

    def svg(self):
        """The graph drawn by micrograd.viz with the numbers known at this step."""
        lay = copy.copy(self._layout)
        data, grads = self._known_data(), self._grads()
        nodes = []
        for nl in lay.nodes:
            nl = copy.copy(nl)
            nid = nl.node.id
            cells = list(nl.cells)
            i = 1 if nl.node.label else 0
            cells[i] = f"data {fmt4(data[nid])}" if nid in data else "data ?"
            cells[i + 1] = f"grad {fmt4(grads[nid])}" if nid in grads else "grad ?"
            nl.cells = cells
            nodes.append(nl)
        lay.nodes = nodes
        return render_svg(lay)

    def _scale(self):
        """The timeline's stretches: ``[[name, steps], ...]``, forward then each pass."""
        w, out = self.walk, []
        names = ["forward"] * len(w.forward) + [
            f"backward, pass {s.pass_}" if w.passes > 1 else "backward" for s in w.backward]
        for name in names:
            if out and out[-1][0] == name:
                out[-1][1] += 1
            else:
                out.append([name, 1])
        return out

    def edge_text(self, edge_id):
        e = next(e for e in self._layout_edges() if e.id == edge_id)
        src, dst = self.names[e.src], self.names[e.dst]
        text = (f"edge {src} -> {dst}: local derivative d{dst}/d{src} = {fmt(e.local)}; "
                f"the backward pass adds grad[{dst}] * {fmt(e.local)} into grad[{src}]")
        for s in self.walk.backward[:self.bpos]:
            for c in s.contributions:
                if c.edge == edge_id:
                    text += f". Step {s.step}: {c.text}"
        return text

    def state(self):
        """Everything the page draws, JSON-ready (numbers as from ``graph.num``)."""
        w = self.walk
        cur = self._current()
        done = self.bpos == len(w.backward)
        lost_edges = sorted({c.edge for s in w.backward[:self.bpos] for c in s.contributions
                             if c.lost})
        grads = self._grads()
        try:
            setup = self.setup()
        except WalkSetupError:  # a graph the page's link cannot hold (too long, too many steps)
            setup = None
        return {
            "preset": self.preset, "source": self.source, "mode": self.mode,
            "mode_text": MODES[self.mode].title, "mode_lesson": MODES[self.mode].lesson,
            # what the mode does to this graph (not for a visit order of one's own)
            "mode_explain": "" if self.order else walk_explain.explain(self.root, w)["text"],
            "order": self.order, "presets": {k: p.title for k, p in PRESETS.items()},
            "modes": list(_walk.MODES),
            "mode_titles": {k: m.title for k, m in MODES.items()},
            "phase": self.phase(),
            "step": self.fpos + self.bpos, "steps_total": self.steps_total(),
            "scale": self._scale(),
            "conventions": compare_conventions(self.root)
            if self.mode == "no_zero_grad" else None,
            "link": setup.to_url() if setup is not None else None,
            "forward_done": self.fpos, "forward_total": len(w.forward),
            "backward_done": self.bpos, "backward_total": len(w.backward),
            "current": cur.node if cur is not None else None,
            "text": cur.text if cur is not None else "press step forward",
            "log": [s.text for s in w.forward[:self.fpos]]
                   + [s.text for s in w.backward[:self.bpos]],
            "grads": {self.names[k]: num(v) for k, v in grads.items()},
            "lost_edges": lost_edges,
            "summary": w.summary() if done else [],
            "selected_edge": self.selected,
            "edge_text": self.edge_text(self.selected) if self.selected else "",
            "svg": self.svg(),
            "error": self.error,
        }


_ESM = pathlib.Path(__file__).with_name("widget.js")


_WIDGET_CLASS = []


def _widget_class():
    """The anywidget class, made once (anywidget is imported only when needed)."""
    if _WIDGET_CLASS:
        return _WIDGET_CLASS[0]
    try:
        import anywidget
        import traitlets
    except ImportError:
        raise ImportError("the Walk widget needs anywidget: pip install -e "
                          "'.[notebooks]' in the project's folder") from None

    class WalkWidget(anywidget.AnyWidget):
        """The Walk in a notebook: ``state`` is :meth:`WalkModel.state`, synced to the
        page; the page's buttons arrive as messages for :meth:`WalkModel.handle`."""

        _esm = _ESM
        state = traitlets.Dict().tag(sync=True)

        def __init__(self, model):
            super().__init__()
            self.model = model
            self.state = model.state()
            self.on_msg(self._on_msg)

        def _on_msg(self, _widget, content, _buffers):
            self.model.handle(content)
            self.state = self.model.state()

        def __repr__(self):
            s = self.state
            return (f"WalkWidget({s.get('preset') or s.get('source') or 'a Value'}, "
                    f"mode={s.get('mode')!r}, phase={s.get('phase')!r})")

    _WIDGET_CLASS.append(WalkWidget)
    return WalkWidget


def walk_widget(what=None, mode=None, order=None):
    """The Walk as a Jupyter widget (anywidget); ``what`` and ``mode`` default to the
    Walk's own (``WalkSetup``'s). See the module docstring."""
    return _widget_class()(WalkModel(what, mode=mode, order=order))
