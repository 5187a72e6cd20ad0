"""One Walk, declared once: which graph (a preset or an expression), its leaf values, the
teaching mode, how many steps are shown, the question, and the controls a lesson hides;
with the one table of presets and the one table of modes.

    >>> from micrograd.walk_setup import WalkSetup, PRESETS
    >>> s = WalkSetup.from_url({"preset": "lecture", "v": "a:3", "assign": "1"})
    >>> s.preset, s.values, s.mode                   # the page's old mode key, read
    ('lecture', {'a': 3.0}, 'assign')
    >>> s.to_url()
    {'preset': 'lecture', 'v': 'a:3', 'mode': 'assign'}
    >>> PRESETS["lecture"].expr
    'a = 2; b = -3; c = 10; f = -2; e = a * b; d = e + c; L = d * f'

The Walk page, its link, its requests (``micrograd.web.handlers.walk``: their fields
are made from ``WalkSetup``'s) and the Jupyter widget (``micrograd.widget``) read the
presets and the modes' texts from here. ``WalkSetup.spec()`` is the page's description,
JSON-ready::

    {"presets": [{"key": "sum_times", "title": "(a + b) * c", "expr": "a = 2; ...",
                  "ask": "a"}, ...],
     "modes": [{"key": "correct", "title": "...", "lesson": "..."}, ...],
     "conventions": [{"key": "micrograd", "title": "...", "rule": "..."}, ...],
     "controls": {"graph": "the preset and the expression", ...},
     "fields": [{"name": "preset", "url": "preset", "kind": "choice", "default":
                 "sum_times", "label": ..., "help": ..., "choices": [...]}, ...],
     "limits": {"max_expr_chars": 1000, ...}}

Each field is a set-up field (``micrograd.setup_field``: the one declaration the
experiment's fields use too), of the kinds ``choice``, ``text`` (at most ``max_len``
characters), ``int``, ``choices`` and ``values`` (leaf name -> number; ``name:value,...``
in a link, each name percent-encoded as JavaScript's ``encodeURIComponent`` does). A field
written as a list in a link names its separator (``sep``; ``values`` also ``pair``), the
mode field the older keys that say a mode (``old_keys``: ``OLD_MODE_KEYS``), the preset
that a link names it even at its default (``always``): the page's generic codec
(``web/static/setup_codec.js``) writes a link as ``to_url`` does from these alone. A
field's ``cli`` holds the command line's overrides (``micrograd graph``).

A link is read strictly (``from_url``) or as a learner's page reads it, what it cannot
use left out and said (``from_url(query, notes)``); ``written()`` is the graph's text
with its leaf values in, as the page's expression box shows it:

    >>> notes = []
    >>> s = WalkSetup.from_url({"preset": "lecture", "v": "a:3", "mode": "up"}, notes)
    >>> s.written()[0][:13], s.mode
    ('a = 3; b = -3', 'correct')
    >>> notes[0][:56]
    "left out of the link: unknown teaching mode 'up'; choose"

Adding a preset is one entry in ``PRESETS``; a mode is ``micrograd.walk``'s, with its
title, its lesson and how a hint names its mistake in ``MODES``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from numbers import Real
from urllib.parse import unquote

from . import walk as _walk
from . import walk_modes
from .expr import tokenize
from .graph import fmt, nodes_and_edges
from .setup_field import declare, declared
from .urltext import NUMBER, WHOLE_NUMBER, js_component, js_number
from .wire import encode

__all__ = ["WalkSetup", "WalkSetupError", "Preset", "Mode", "Convention", "PRESETS",
           "MODES", "CONVENTIONS", "compare_conventions", "CONTROLS", "QUESTIONS", "ANSWERS",
           "MAX_EXPR_CHARS", "MAX_NAME_CHARS", "MAX_VALUES", "MAX_STEP"]

MAX_EXPR_CHARS = 1000   # characters in an expression
MAX_NAME_CHARS = 100    # a leaf's name given a value
MAX_VALUES = 100        # leaf values given
MAX_NODE_CHARS = 60     # a node named by a question
MAX_STEP = 2000         # steps of one walk (forward and backward)


@dataclass(frozen=True)
class Preset:
    """A graph of the lecture: its key, its title, its text in ``micrograd.expr``'s
    language, the leaf its question asks about (d root / d ask), and the words put
    before that question (``question_lead``: what the graph is there to show)."""
    key: str
    title: str
    expr: str
    ask: str = ""
    question_lead: str = ""


#: the lecture's graphs, in the order the page lists them
PRESETS = {p.key: p for p in [
    Preset("sum_times", "(a + b) * c", "a = 2; b = -3; c = 10; e = a + b; f = e * c", "a"),
    Preset("lecture", "L = (a*b + c) * f",
           "a = 2; b = -3; c = 10; f = -2; e = a * b; d = e + c; L = d * f", "a"),
    Preset("neuron", "tanh neuron",
           "x1 = 2; x2 = 0; w1 = -3; w2 = 1; b = 6.8813735870195432; "
           "x1w1 = x1 * w1; x2w2 = x2 * w2; x1w1x2w2 = x1w1 + x2w2; n = x1w1x2w2 + b; "
           "o = tanh(n)", "w1"),
    Preset("square", "a * a", "a = 3; f = a * a", "a"),
    Preset("diamond", "diamond: b = a + 1, c = a * 3, d = b * c",
           "a = 2; b = a + 1; c = a * 3; d = b * c", "a",
           question_lead="on the diamond, in the right order,"),
    Preset("reused", "reused inner node: b = a + a, c = b + b",
           "a = 3; b = a + a; c = b + b", "a"),
]}


@dataclass(frozen=True)
class Mode:
    """A teaching mode of ``micrograd.walk``: its title, what a learner should notice,
    and for a mistake, how a hint names it (``mistake``: a learner's answer that is
    this mode's number is said to be this slip)."""
    key: str
    title: str
    lesson: str
    mistake: str = ""


#: one entry per mode of micrograd.walk.MODES, in its order; each lesson is one sentence:
#: what a learner should notice, shown beside the mode on the page and in the widget
MODES = {m.key: m for m in [
    Mode("correct", "correct: reverse topological order, grad += upstream * local",
         "Notice that each node passes its grad on only once it is complete, and that "
         "every path's contribution is added, so a node used twice gets both shares."),
    Mode("assign", "the mistake: grad = instead of += (a reused node keeps its last "
         "share)",
         "Notice that a node used twice keeps only the last contribution it receives: "
         "a * a at 3 gives grad 3, not 6.",
         mistake="writing grad = instead of grad += (a reused node keeps only its last "
                 "contribution)"),
    Mode("recursive", "the mistake: a recursive backward without a topological sort",
         "Notice that a node reached by two paths is visited, and pushes its grad on, "
         "once per path: b = a + a; c = b + b gives grad[a] = 8, not 4, whatever a is.",
         mistake="a recursive backward without a topological sort (a node reached by two "
                 "paths pushes its grad twice)"),
    Mode("no_zero_grad", "the mistake: two backward passes without zero_grad",
         "Notice that the second pass adds onto what the first one left: in PyTorch and "
         "this package only the leaves add up (twice the gradient), while micrograd "
         "0.1.0 also adds into every interior grad and pushes those sums on, so the "
         "leaves get more still.",
         mistake="two backward passes without zero_grad"),
]}

#: the kinds of question the Walk asks, in the lecture's order, with their short titles
#: (asked and checked by micrograd.web.walk_questions)
QUESTIONS = {"value": "a forward value", "local": "a local derivative",
             "grad": "a gradient", "path": "one path's share"}

@dataclass(frozen=True)
class Convention:
    """How an engine runs a second backward pass without ``zero_grad`` (the key is one
    of ``micrograd.walk_modes.CONVENTIONS``): its name and its rule, one sentence."""
    key: str
    title: str
    rule: str


#: the two ways a second pass without zero_grad adds up, shown side by side
CONVENTIONS = {c.key: c for c in [
    Convention("micrograd", "micrograd 0.1.0",
               "backward() sets the root's grad to 1 and adds into every other grad, "
               "interior ones included, so each interior node pushes on the sum of both "
               "passes."),
    Convention("pytorch", "PyTorch and this package",
               "backward() starts every interior grad from zero, so only this pass's "
               "gradient flows through the graph and only the leaves add up (PyTorch "
               "also asks for retain_graph=True before it runs a graph backward twice)."),
]}
#: what the side-by-side table says under its numbers
CONVENTIONS_NOTE = ("The steps above run micrograd 0.1.0. An interior node's "
                    "number under PyTorch and this package is the gradient that flowed "
                    "through it in the last pass, which is this package's .grad there "
                    "(PyTorch keeps no grad on an interior tensor unless retain_grad() "
                    "asks for it).")
#: what the side-by-side table marks
CONVENTIONS_LEGEND = ("marked: a grad that is wrong after the last pass, not the gradient "
                      "of one pass (the first column)")


def compare_conventions(root, passes=2):
    """Backward ``passes`` times without zero_grad, in each of ``CONVENTIONS``, side by
    side: every node's grad after one pass (the correct one, in both: the first pass
    starts from nothing) and after the last, numbers from
    ``micrograd.walk_modes`` (each convention's pass run on one table of grads), texts
    from the walk (a constant is ``constant 3``). ``None`` for a graph that is one leaf
    (nothing is passed on). JSON-ready, through ``micrograd.wire.encode`` (an infinite
    or nan grad as ``"Infinity"``, ``"-Infinity"``, ``"NaN"``, its text ``inf``...)::

        {"passes": 2, "title": "2 backward passes without zero_grad", "note": ...,
         "conventions": [{"key": "micrograd", "title": ..., "rule": ...}, ...],
         "columns": {"one_pass": "after pass 1 (correct)", "micrograd": "after pass 2",
                     "pytorch": "after pass 2"},
         "rows": [{"id": "n0", "name": "a", "leaf": true, "one_pass": 6.0,
                   "micrograd": 24.0, "pytorch": 12.0,
                   "texts": {"one_pass": "6", "micrograd": "24", "pytorch": "12"},
                   "wrong": ["micrograd", "pytorch"]}, ...], "legend": ...}

    Rows go root first, as the backward pass does."""
    if root._a is None:
        return None
    w = _walk.walk(root)
    nodes = nodes_and_edges(root)[0]  # every node after its inputs, the walk's ids
    values = [n.value for n in nodes]
    last = {key: walk_modes.after_passes(values, one_pass, passes)[-1]
            for key, one_pass in walk_modes.CONVENTIONS.items()}
    rows = []
    for n in reversed(nodes):
        row = {"id": n.id, "name": w.said[n.id], "leaf": n.leaf, "one_pass": w.grads[n.id]}
        row.update((key, grads.get(n.value, 0.0)) for key, grads in last.items())
        row["texts"] = {k: fmt(row[k]) for k in ["one_pass", *last]}
        row["wrong"] = [k for k in last if not math.isclose(row[k], row["one_pass"],
                                                             rel_tol=1e-12, abs_tol=1e-300)]
        rows.append(row)
    return {"passes": passes, "title": f"{passes} backward passes without zero_grad",
            "conventions": [{"key": c.key, "title": c.title, "rule": c.rule}
                            for c in CONVENTIONS.values()],
            "columns": {"one_pass": "after pass 1 (correct)",
                        **{c.key: f"after pass {passes}" for c in CONVENTIONS.values()}},
            "note": CONVENTIONS_NOTE, "legend": CONVENTIONS_LEGEND, "rows": encode(rows)}


#: groups of the Walk's controls a lesson link can hide
CONTROLS = {"graph": "the preset and the expression", "values": "the leaf values",
            "modes": "the teaching modes", "steps": "the step buttons",
            "question": "the question", "nudge": "the nudge check",
            "order": "the visit-order experiment",
            "tabs": "the Playground and Mistakes tabs (the Walk alone)"}

#: how a lesson shows the answer to its gradient question: on the graph as the walk
#: reaches it, or hidden (the asked node's grad, and the steps that write it) until the
#: learner has answered it right or given up: a classroom aid, not an exam (the page
#: holds the walk's numbers)
ANSWERS = {"shown": "on the graph as the walk reaches them",
           "hidden": "hidden until the learner has tried"}

#: the older ways to say the mode, each key -> its mode: a link's ``assign=1`` (the page's
#: first links said ``nozero=1``), a request's ``"assign": true``; one at a time
OLD_MODE_KEYS = {"assign": "assign", "recursive": "recursive", "no_zero_grad": "no_zero_grad",
                 "nozero": "no_zero_grad"}

#: a link's lists: ``hide=graph,values``; leaf values as ``name:value`` pairs, each name
#: percent-encoded as JavaScript's ``encodeURIComponent`` does (``v=a:2,b%3A1:-3``)
LINK_SEP = ","
LINK_PAIR = ":"


class WalkSetupError(ValueError):
    """A Walk set-up refused: the message names the field and what it allows;
    ``field`` is the field's name."""

    def __init__(self, message, field=None):
        super().__init__(message)
        self.field = field


@dataclass
class WalkSetup:
    """One Walk: ``preset`` or ``expr`` (exactly one), leaf ``values``, the ``mode``,
    ``step`` (steps shown), the question ``d(of)/d(ask)``, the kinds of ``questions`` asked
    in sequence, controls to ``hide`` (``tabs``: the Walk alone on its page), and whether
    the ``answers`` are shown or hidden until tried."""

    preset: str | None = declare(
        "choice", "sum_times", "preset", "one of the lecture's graphs (none: your own "
        "expression)", choices=tuple(PRESETS), always=True,  # a link names its graph
        cli={})
    expr: str | None = declare(
        "text", None, "expression", "a graph in micrograd.expr's language, e.g. "
        "'a = 2; b = a*a'", max_len=MAX_EXPR_CHARS,
        cli={"max_len": None})  # the language's own caps
    values: dict = declare(
        "values", {}, "leaf values", "a new value for a leaf, by its name", url="v",
        max_len=MAX_VALUES, max_name=MAX_NAME_CHARS,
        cli={"max_len": None, "pairs": (LINK_PAIR, "=")})
    mode: str = declare(
        "choice", "correct", "teaching mode", "the backward pass as written, or one of "
        "its classic mistakes", choices=tuple(MODES), old_keys=OLD_MODE_KEYS, cli={})
    step: int = declare(
        "int", 0, "step", "how many steps of the walk are shown", min=0, max=MAX_STEP)
    ask: str | None = declare(
        "text", None, "question: with respect to", "the node the question asks about "
        "(default: the preset's, or the first leaf)", max_len=MAX_NODE_CHARS)
    of: str | None = declare(
        "text", None, "question: of", "the question's output node (default: the root)",
        max_len=MAX_NODE_CHARS)
    questions: list = declare(
        "choices", list(QUESTIONS), "questions", "the kinds of question asked, in this "
        "order: " + ", ".join(f"{k} ({t})" for k, t in QUESTIONS.items()),
        choices=tuple(QUESTIONS), max_len=len(QUESTIONS))
    hide: list = declare(
        "choices", [], "hidden controls", "controls a lesson hides",
        choices=tuple(CONTROLS), max_len=len(CONTROLS))
    answers: str = declare(
        "choice", "shown", "answers", "the gradient question's answer: shown on the graph "
        "as the walk reaches it, or hidden (the asked node's grad and the steps that "
        "write it) until the learner has answered it right or given up",
        choices=tuple(ANSWERS))

    @property
    def source(self):
        """The graph's text: the preset's, or the expression."""
        return PRESETS[self.preset].expr if self.preset is not None else self.expr

    def check(self, surface=None):
        """Refuse what the Walk cannot show (a ``WalkSetupError`` naming the field);
        returns the set-up. ``surface="cli"``: with the command line's overrides of the
        declaration (a field's ``cli``: no cap on the expression but the language's)."""
        for f in fields(self):
            meta = (declared(f, surface) or declared(f)) if surface else declared(f)
            _check_field(f.name, meta, getattr(self, f.name))
        if (self.preset is None) == (self.expr is None):
            raise WalkSetupError("give exactly one of preset and expr", "preset")
        return self

    @classmethod
    def from_dict(cls, d):
        """A checked set-up from a dict of fields; without ``preset`` and ``expr``, the
        first preset."""
        if not isinstance(d, dict):
            raise WalkSetupError(f"a Walk set-up is a dict, got {type(d).__name__}")
        names = [f.name for f in fields(cls)]
        unknown = [k for k in d if k not in names]
        if unknown:
            raise WalkSetupError(f"unknown field {unknown[0]!r}; the fields are "
                                 f"{', '.join(names)}", str(unknown[0]))
        d = dict(d)
        if d.get("expr") is not None:
            d.setdefault("preset", None)
        return cls(**d).check()

    def to_dict(self):
        return {f.name: _copy(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_url(cls, query, notes=None):
        """A checked set-up from a link's query (strings, as ``URLSearchParams`` gives
        them), each field read by its declaration: its key (``url``), its kind, a list's
        ``sep``; the older mode keys (``assign=1``, ``recursive=1``, ``nozero=1``) are
        read, other keys ignored. What cannot be read is refused (``WalkSetupError``);
        or, given a list ``notes``, left out as a learner's page leaves it out (the
        field's default, or that item of a list), with a sentence in ``notes`` saying
        so: nothing a link asks for is dropped without a word."""
        if not isinstance(query, dict):
            raise WalkSetupError(f"a link's query is a dict of strings, got "
                                 f"{type(query).__name__}")
        d = {}
        for f in fields(cls):
            meta = declared(f)
            text = query.get(meta["url"])
            if not isinstance(text, str) or (text == "" and meta["kind"] != "choices"):
                continue  # absent; "" asks for none of a list (questions=)
            try:
                d[f.name] = _read_text(f.name, meta, text, notes)
                _check_field(f.name, meta, d[f.name])
            except WalkSetupError as err:
                d.pop(f.name, None)
                _left_out(notes, err)
        old = list(dict.fromkeys(mode for key, mode in OLD_MODE_KEYS.items()
                                 if query.get(key) == "1"))
        if len(old) > 1:
            _left_out(notes, WalkSetupError(f"choose one teaching mode at a time (got "
                                            f"{' and '.join(old)})", "mode"))
        if old and "mode" not in d:
            d["mode"] = old[0]
        if d.get("expr") is not None:
            if d.get("preset") is not None and notes is not None:
                notes.append(f"the link gives both an expression and the preset "
                             f"{d['preset']}: the expression is shown")
            d["preset"] = None
        return cls.from_dict(d)

    def to_url(self):
        """The link's query, canonical: ``preset`` or ``expr``, then each field that
        differs from its default (``v``, ``mode``, ``step``, ``ask``, ``of``,
        ``questions``, ``hide``, ``answers``), written by its kind."""
        out = {}
        for f in fields(self):
            x, meta = getattr(self, f.name), declared(f)
            if x is None or (x == meta["default"] and not meta.get("always")):
                continue
            kind = meta["kind"]
            out[meta["url"]] = (
                str(x) if kind == "int" else LINK_SEP.join(x) if kind == "choices" else
                LINK_SEP.join(f"{js_component(k)}{LINK_PAIR}{js_number(v)}"
                              for k, v in x.items()) if kind == "values" else x)
        return out

    def written(self):
        """``(text, values)``: the graph's text as the page's expression box shows it,
        each leaf value written into its name's assignment (``a = 2`` given ``{"a": 3}``
        reads ``a = 3``; every constant assignment of the name, as ``micrograd.expr``'s
        override edits them), and the values that change the graph its text makes (a
        name the text uses without assigning keeps its value; a value the text says
        already is left out: the same graph either way)."""
        return _written(self.source, self.values)

    @classmethod
    def spec(cls):
        """The page's description: presets, modes, controls, fields, caps."""
        return {
            "presets": [{"key": p.key, "title": p.title, "expr": p.expr, "ask": p.ask}
                        for p in PRESETS.values()],
            "modes": [{"key": m.key, "title": m.title, "lesson": m.lesson}
                      for m in MODES.values()],
            "conventions": [{"key": c.key, "title": c.title, "rule": c.rule}
                            for c in CONVENTIONS.values()],
            "controls": dict(CONTROLS), "questions": dict(QUESTIONS),
            "answers": dict(ANSWERS),
            "fields": [_field_spec(f) for f in fields(cls)],
            "limits": {"max_expr_chars": MAX_EXPR_CHARS, "max_name_chars": MAX_NAME_CHARS,
                       "max_values": MAX_VALUES, "max_step": MAX_STEP},
        }

    def replace(self, **changes):
        """A copy with ``changes`` (not checked: call ``check``)."""
        return replace(self, **changes)


# ---------------------------------------------------------------------------------------
# checks and link texts
# ---------------------------------------------------------------------------------------

def _copy(v):
    return dict(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else v


def _check_field(name, meta, x):
    kind = meta["kind"]
    if kind == "choice":
        if not (x is None and name == "preset") and x not in meta["choices"]:
            raise WalkSetupError(f"unknown {meta['label']} {x!r:.60}; choose one of "
                                 f"{', '.join(meta['choices'])}", name)
    elif kind == "text":
        if x is None:
            return
        if not isinstance(x, str):
            raise WalkSetupError(f"{name} must be text, got {type(x).__name__}", name)
        if meta["max_len"] is not None and len(x) > meta["max_len"]:
            raise WalkSetupError(f"{name} is {len(x)} characters long; the cap is "
                                 f"{meta['max_len']}", name)
    elif kind == "int":
        if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= meta["max"]:
            raise WalkSetupError(f"{name} must be a whole number 0 to {meta['max']}, got "
                                 f"{x!r:.40}", name)
    elif kind == "values":
        _check_values(name, meta, x)
    else:  # choices
        if not isinstance(x, list) or any(h not in meta["choices"] for h in x) \
                or len(set(x)) != len(x):
            raise WalkSetupError(f"{name} lists each at most once, among "
                                 f"{', '.join(meta['choices'])}, got {x!r:.60}", name)


def _check_values(name, meta, x):
    if not isinstance(x, dict):
        raise WalkSetupError(f"{name} maps leaf names to numbers, got "
                             f"{type(x).__name__}", name)
    if meta["max_len"] is not None and len(x) > meta["max_len"]:
        raise WalkSetupError(f"at most {meta['max_len']} leaf values, got {len(x)}", name)
    for k, v in x.items():
        if not isinstance(k, str) or not k or len(k) > meta["max_name"]:
            raise WalkSetupError(f"a leaf's name is text of 1 to {meta['max_name']} "
                                 f"characters, got {k!r:.60}", name)
        if isinstance(v, bool) or not isinstance(v, Real) or not math.isfinite(v):
            raise WalkSetupError(f"the value of {k} must be a finite number, got "
                                 f"{v!r:.40}", name)


def _left_out(notes, err):
    """Refuse (no ``notes``), or say in ``notes`` what a link asked for is left out."""
    if notes is None:
        raise err
    notes.append(f"left out of the link: {err}")


def _read_text(name, meta, text, notes=None):
    """A field's value from its text in a link, by its kind (``notes``: the items of a
    list that are not among its choices are left out and said there)."""
    kind = meta["kind"]
    if kind == "int":
        if not WHOLE_NUMBER.fullmatch(text.strip()):
            raise WalkSetupError(f"{name} must be a whole number, got {text!r:.40}", name)
        return int(text)
    if kind == "values":
        return parse_values(text, notes)
    if kind != "choices":
        return text
    out = []
    for item in (x.strip() for x in text.split(LINK_SEP)):
        if notes is not None and item and item not in meta["choices"]:
            notes.append(f"left out of the link: {meta['label']}: {item!r:.40} is not "
                         f"one of {', '.join(meta['choices'])}")
        elif item and (notes is None or item not in out):
            out.append(item)
    return out


def parse_values(text, notes=None, key="v", pairs=(LINK_PAIR,)):
    """Leaf values from their text, ``name:value,...`` (``a:2,b%3A1:-3`` -> {"a": 2.0,
    "b:1": -3.0}: the link's ``v``, each name percent-encoded; ``pairs``: the marks that
    may stand between a name and its value, as the CLI's ``--values`` also reads
    ``name=value``). A part that is no name and number is refused, naming ``key``; or,
    given a list ``notes``, left out and said there."""
    out = {}
    for part in text.split(LINK_SEP):
        if not part.strip():
            continue
        i = max(part.rfind(p) for p in pairs)
        name, number = unquote(part[:max(i, 0)]).strip(), part[i + 1:].strip()
        if i <= 0 or not name:
            problem = f"{key}: {part.strip()!r:.40} is not name{pairs[0]}value"
        elif not NUMBER.fullmatch(number):
            problem = f"{key}: the value of {name:.40} must be a number, got {number!r:.40}"
        else:
            out[name] = float(number)
            continue
        _left_out(notes, WalkSetupError(problem, "values"))
    return out


def _written(source, values):
    """``WalkSetup.written``: each statement ``name = <constant>`` of a name given a value
    rewritten (the tokens of ``micrograd.expr``, so positions are the text's own); a text
    that does not tokenize comes back as it is, every value beside it."""
    try:
        toks = tokenize(source)
    except ValueError:
        return source, dict(values)
    spans, start = {}, 0  # name -> [(first char, end, the constant it says)]
    for i, t in enumerate(toks):
        if t.kind in ("nl", "eof") or t.text == ";":
            st, start = toks[start:i], i + 1
            if len(st) > 2 and st[0].kind == "name" and st[1].text == "=" \
                    and st[0].text in values and _constant(st[2:]) is not None:
                spans.setdefault(st[0].text, []).append(
                    (st[2].pos, st[-1].pos + len(st[-1].text), _constant(st[2:])))
    edits = sorted((a, b, js_number(values[name])) for name, found in spans.items()
                   for a, b, x in found if x != values[name])
    for a, b, text in reversed(edits):
        source = source[:a] + text + source[b:]
    said = {name for name, found in spans.items()
            if all(x == values[name] for _, _, x in found)}
    return source, {k: v for k, v in values.items() if k not in said}


def _constant(toks):
    """The number the tokens say, when the language keeps them a constant (signs, a
    number, parentheses: ``-(2)``); None for anything it makes a node of."""
    sign = 1.0
    while toks and toks[0].kind == "op" and toks[0].text in ("+", "-"):
        sign, toks = -sign if toks[0].text == "-" else sign, toks[1:]
    if len(toks) == 1 and toks[0].kind == "num":
        return sign * float(toks[0].text)
    if len(toks) > 2 and toks[0].text == "(" and toks[-1].text == ")":
        inner = _constant(toks[1:-1])
        return None if inner is None else sign * inner
    return None


def _field_spec(f):
    meta = declared(f)
    out = {k: meta[k] for k in ("name", "url", "kind", "default", "label", "help")}
    for key in ("min", "max", "choices", "max_len"):
        if key in meta:
            out[key] = list(meta[key]) if isinstance(meta[key], tuple) else meta[key]
    if meta["kind"] in ("values", "choices"):  # how a link writes it
        out["sep"] = LINK_SEP
    if meta["kind"] == "values":
        out["pair"] = LINK_PAIR
    if "old_keys" in meta:  # an older link's key=1, or a request's key: true
        out["old_keys"] = dict(meta["old_keys"])
    if meta.get("always"):  # a link writes it even at its default
        out["always"] = True
    return out
