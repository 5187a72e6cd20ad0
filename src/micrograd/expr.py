"""A small, safe expression language that builds a graph of ``Value`` s.

    >>> from micrograd.expr import parse
    >>> L = parse("a = 2; b = -3; c = 10; f = -2; e = a*b; d = e + c; L = d*f")
    >>> L.data, L.label
    (-8.0, 'L')
    >>> o = parse("tanh(x1*w1 + x2*w2 + b)",
    ...           {"x1": 2, "x2": 0, "w1": -3, "w2": 1, "b": 6.8813735870195432})
    >>> round(o.data, 4)
    0.7071

The text is read by a tokenizer and a Pratt (precedence-climbing) parser written for
this grammar; nothing is ever passed to ``eval``, ``exec`` or Python's ``ast``. The
syntax is a whitelist:

* numbers (``2``, ``-3.5``, ``1e-3``, ``.5``), names (``x1``, ``w_2``), ``#`` comments;
* statements ``name = expr`` or ``expr``, separated by ``;`` or new lines;
* ``+ - * / **``, unary ``-`` and ``+``, parentheses; ``**`` binds tightest and to the
  right, then unary minus, then ``* /``, then ``+ -`` (``-a**2`` is ``-(a**2)``);
* the engine's functions, one argument each: tanh exp log relu sigmoid sqrt abs
  softplus sin cos, and any one-input op added with ``micrograd.engine.define_op``.

Names become node labels. The root is the value of the last statement. With
``override=True`` the given values edit the leaves (they replace the constants assigned
to those names, and a name that is not a leaf is refused), as the web page does. Anything else is
refused with an :class:`ExprError` that names the problem and points at the character.
Limits (keyword arguments): ``max_length`` characters (100,000), ``max_depth`` levels of
nesting of parentheses, unary signs, powers and calls (100; never a RecursionError),
``max_nodes`` graph nodes (5,000).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from numbers import Real

from . import ops as _ops
from .engine import Value, apply_op
from .urltext import UNSIGNED_NUMBER

MAX_LENGTH = 100_000
MAX_DEPTH = 100
MAX_NODES = 5_000

#: the functions of the language: name -> op, read live from the op table (an op added
#: with micrograd.engine.define_op is a function of the language at once)
FUNCTIONS = _ops.FUNCTIONS

_NUMBER = UNSIGNED_NUMBER
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORDISH = re.compile(r"[A-Za-z0-9_.]*")
_DIGITS = frozenset("0123456789")  # str.isdigit() is also true for '²' and other scripts


class ExprError(ValueError):
    """A refused expression: ``message``, the 0-based ``pos`` in the text, ``line`` and
    ``col`` (1-based); ``str()`` shows the line with a caret under the character."""

    def __init__(self, message, text="", pos=0):
        self.message = message
        self.text = text
        self.pos = max(0, min(pos, len(text)))
        start = text.rfind("\n", 0, self.pos) + 1
        self.line = text.count("\n", 0, self.pos) + 1
        self.col = self.pos - start + 1
        end = text.find("\n", self.pos)
        self.snippet, self.caret = _snippet(text[start:end if end >= 0 else len(text)],
                                            self.pos - start)
        super().__init__(f"{message} at line {self.line}, column {self.col}\n"
                         f"  {self.snippet}\n  {self.caret}")


def _snippet(line, col, width=60):
    """The line around ``col`` (at most ``width`` characters) and a caret line."""
    lo = max(0, col - width // 2)
    hi = min(len(line), lo + width)
    lo = max(0, min(lo, hi - width))
    shown = "".join(ch if ch.isprintable() else "?" for ch in line[lo:hi])
    pre = "..." if lo > 0 else ""
    post = "..." if hi < len(line) else ""
    return pre + shown + post, " " * (len(pre) + col - lo) + "^"


@dataclass
class _Tok:
    kind: str  # num name op nl eof
    text: str
    pos: int


def _show(tok):
    if tok.kind == "eof":
        return "the end of the input"
    if tok.kind == "nl":
        return "a new line"
    text = tok.text if len(tok.text) <= 20 else tok.text[:17] + "..."
    if tok.kind == "num":
        return f"number {text}"
    if tok.kind == "name":
        return f"name {text!r}"
    return repr(text)


def tokenize(text):
    """The tokens of ``text``; ``ExprError`` on any character outside the grammar."""
    toks = []
    i, n = 0, len(text)
    depth = 0  # new lines inside parentheses are plain white space
    while i < n:
        ch = text[i]
        if ch == "\n":
            if depth == 0:
                toks.append(_Tok("nl", "\n", i))
            i += 1
        elif ch in " \t\r":
            i += 1
        elif ch == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif ch in _DIGITS or (ch == "." and i + 1 < n and text[i + 1] in _DIGITS):
            m = _NUMBER.match(text, i)
            j = m.end()
            if j < n and (text[j].isalnum() or text[j] in "_."):
                bad = _WORDISH.match(text, i).group()
                raise ExprError(f"malformed number {bad[:30]!r}", text, i)
            toks.append(_Tok("num", m.group(), i))
            i = j
        elif ch.isascii() and (ch.isalpha() or ch == "_"):
            m = _NAME.match(text, i)
            name = m.group()
            if name.startswith("__"):
                raise ExprError(f"name {name[:30]!r} is not allowed (names starting with "
                                "'__' are reserved)", text, i)
            toks.append(_Tok("name", name, i))
            i = m.end()
        elif text.startswith("**", i):
            toks.append(_Tok("op", "**", i))
            i += 2
        elif ch in "+-*/=;,()":
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth = max(0, depth - 1)
            toks.append(_Tok("op", ch, i))
            i += 1
        else:
            shown = ch if ch.isprintable() else f"U+{ord(ch):04X}"
            raise ExprError(f"unexpected character {shown!r} (allowed: numbers, names, "
                            "+ - * / ** ( ) = ; and the functions)", text, i)
    toks.append(_Tok("eof", "", n))
    return toks


@dataclass
class Evaluation:
    """The result of :func:`evaluate`: the ``root`` Value (the last statement), the
    ``names`` bound at the end (name -> Value), and the number of ``nodes`` built."""

    root: object
    names: dict = field(default_factory=dict)
    nodes: int = 0


_BINARY = {"+": 10, "-": 10, "*": 20, "/": 20, "**": 40}
_UNARY_BP = 30


class _Parser:
    def __init__(self, text, values, max_depth, max_nodes, override=False):
        self.Value = Value
        self.text = text
        self.toks = tokenize(text)
        self.i = 0
        self.depth = -1  # the statement's own expression is level 0
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.nodes = 0
        self.values = values
        self.override = override
        self.env = {}

    # -- helpers -------------------------------------------------------------------
    @property
    def tok(self):
        return self.toks[self.i]

    def error(self, message, tok=None):
        raise ExprError(message, self.text, (tok or self.tok).pos)

    def count(self, k, tok):
        self.nodes += k
        if self.nodes > self.max_nodes:
            self.error(f"the expression builds more than {self.max_nodes:,} graph nodes "
                       "(the limit max_nodes)", tok)

    def const(self, x, tok):
        if isinstance(x, float):
            self.count(1, tok)
            return self.Value(x)
        return x

    # -- grammar -------------------------------------------------------------------
    def program(self):
        last = None
        while self.tok.kind != "eof":
            if self.tok.kind == "nl" or (self.tok.kind == "op" and self.tok.text == ";"):
                self.i += 1
                continue
            last = self.statement()
            t = self.tok
            if not (t.kind in ("eof", "nl") or (t.kind == "op" and t.text == ";")):
                self.error(f"unexpected {_show(t)}: expected an operator, ';' or the end")
        if last is None:
            self.error("empty expression: write something like 'a = 2; b = a*a'")
        return self.const(last, self.toks[-1])

    def statement(self):
        t = self.tok
        nxt = self.toks[self.i + 1]
        if t.kind == "name" and nxt.kind == "op" and nxt.text == "=":
            if t.text in FUNCTIONS:
                self.error(f"cannot assign to {t.text!r}: it is a function", t)
            self.i += 2
            if self.tok.kind in ("eof", "nl") or (self.tok.kind == "op" and self.tok.text == ";"):
                self.error(f"nothing to assign to {t.text!r}")
            v = self.expr(0)
            if isinstance(v, float):
                if self.override and t.text in self.values:
                    v = self.values[t.text]  # the given value replaces the constant
                self.count(1, t)
                v = self.Value(v, label=t.text)
            elif not v.label:
                v.label = t.text
            self.env[t.text] = v
            return v
        return self.expr(0)

    def expr(self, min_bp):
        self.depth += 1
        if self.depth > self.max_depth:
            self.error(f"nested too deeply (more than {self.max_depth} levels; the limit "
                       "max_depth)")
        left = self.prefix()
        while True:
            t = self.tok
            if t.kind != "op" or t.text not in _BINARY:
                break
            bp = _BINARY[t.text]
            if bp <= min_bp:
                break
            self.i += 1
            right = self.expr(bp - 1 if t.text == "**" else bp)
            left = self.binary(t, left, right)
        self.depth -= 1
        return left

    def prefix(self):
        t = self.tok
        if t.kind == "num":
            self.i += 1
            return float(t.text)
        if t.kind == "op" and t.text in "+-" and len(t.text) == 1:
            self.i += 1
            v = self.expr(_UNARY_BP)
            if t.text == "+":
                return v
            if isinstance(v, float):
                return -v
            self.count(2, t)  # -x = x * -1: a constant leaf and a product
            return -v
        if t.kind == "op" and t.text == "(":
            self.i += 1
            v = self.expr(0)
            self.expect(")", t)
            return v
        if t.kind == "name":
            self.i += 1
            nxt = self.tok
            if nxt.kind == "op" and nxt.text == "(":
                if t.text not in FUNCTIONS:
                    self.error(f"unknown function {t.text[:30]!r} (functions: "
                               f"{', '.join(FUNCTIONS)})", t)
                self.i += 1
                arg = self.expr(0)
                if self.tok.kind == "op" and self.tok.text == ",":
                    self.error(f"{t.text}() takes one argument")
                self.expect(")", nxt)
                arg = self.const(arg, t)
                self.count(1, t)
                return apply_op(FUNCTIONS[t.text], arg)
            if t.text in FUNCTIONS:
                self.error(f"{t.text!r} is a function: write {t.text}(x)", t)
            if t.text in self.env:
                return self.env[t.text]
            if t.text in self.values:
                self.count(1, t)
                v = self.env[t.text] = self.Value(self.values[t.text], label=t.text)
                return v
            self.error(f"undefined name {t.text[:30]!r}: assign it first ({t.text[:30]} = 1) "
                       "or give its value", t)
        if t.kind == "eof":
            self.error("unexpected end of the input: expected a number, a name or '('")
        self.error(f"unexpected {_show(t)}: expected a number, a name or '('")

    def expect(self, text, opener):
        t = self.tok
        if t.kind == "op" and t.text == text:
            self.i += 1
            return
        self.error(f"expected {text!r} to close the {opener.text!r} at column "
                   f"{opener.pos - self.text.rfind(chr(10), 0, opener.pos)}, "
                   f"found {_show(t)}")

    def binary(self, t, a, b):
        op = t.text
        if op == "**":
            # a float exponent stays a number: the lecture's constant x**n node (powc);
            # a Value exponent makes the two-input pow node
            a = self.const(a, t)
            self.count(1, t)
            return a ** b
        a, b = self.const(a, t), self.const(b, t)
        if op == "+":
            self.count(1, t)
            return a + b
        if op == "*":
            self.count(1, t)
            return a * b
        if op == "-":
            self.count(3, t)  # a + b * -1
            return a - b
        self.count(1, t)  # a primitive division
        return a / b


def _check_values(values):
    out = {}
    for k, v in (values or {}).items():
        if not isinstance(k, str) or not _NAME.fullmatch(k) or k.startswith("__"):
            raise ValueError(f"bad name in values: {k!r} (names look like x1 or w_2)")
        if k in FUNCTIONS:
            raise ValueError(f"bad name in values: {k!r} is a function")
        if isinstance(v, bool) or not isinstance(v, Real):
            raise TypeError(f"the value of {k!r} must be a real number, got "
                            f"{type(v).__name__}")
        try:
            out[k] = float(v) if not isinstance(v, float) else v
        except OverflowError:  # an int beyond float range is +-inf, as in Value(10**400)
            out[k] = float("inf") if v > 0 else float("-inf")
    return out


def leaves(root):
    """The labelled leaves of ``root``'s graph, name -> Value, in topological order: the
    leaves a user can give values to. Constants without a name (the 1 of ``a + 1``) are
    not included, nor a name that labels two leaves (``a = 2; c = a + 1; a = 4; ...``):
    which of them a value should edit would be ambiguous."""
    from .engine import topological_order

    out, twice = {}, set()
    for v in topological_order(root):
        if v._fn is None and v.label:
            if v.label in out and out[v.label] is not v:
                twice.add(v.label)
            out.setdefault(v.label, v)
    return {name: v for name, v in out.items() if name not in twice}


def _labels_two_leaves(root, name):
    from .engine import topological_order

    return len({id(v) for v in topological_order(root) if v._fn is None and v.label == name}) > 1


def _check_leaf_names(values, root, env):
    """ValueError unless every name of ``values`` is a labelled leaf of ``root``."""
    found = leaves(root)
    shown = ", ".join(found) or "none"
    for name in values:
        if name in found:
            continue
        if _labels_two_leaves(root, name):
            raise ValueError(f"{name!r} is assigned more than once, so a value for it is "
                             f"ambiguous: give values only to names assigned once "
                             f"(leaves: {shown})")
        v = env.get(name)
        if v is not None and v._fn is not None:
            raise ValueError(f"{name!r} is computed by the expression, not a leaf: give "
                             f"values to leaves only (leaves: {shown})")
        raise ValueError(f"no leaf named {name!r} in the expression (leaves: {shown})")


def evaluate(text, values=None, *, override=False, max_length=MAX_LENGTH,
             max_depth=MAX_DEPTH, max_nodes=MAX_NODES):
    """Parse ``text`` and build its graph; returns an :class:`Evaluation`.

    ``values``: a dict name -> number for names the text uses without assigning.

    ``override=True`` makes ``values`` edit the leaves, the way the web page does: a
    value also replaces the constant assigned to that name (``"a = 2; b = a*a"`` with
    ``{"a": 5}`` gives b = 25; every constant assignment of the name is replaced), and
    a name that does not end up as a labelled leaf of the root's graph (unknown, unused,
    or computed such as ``b``) raises ``ValueError``. The default (``False``) keeps the
    assignment (``parse("x = 5; x", {"x": 1})`` is 5) and ignores unused names.

    Raises :class:`ExprError` for anything outside the grammar or the limits.
    """
    if not isinstance(text, str):
        raise TypeError(f"expected the expression as a str, got {type(text).__name__}")
    values = _check_values(values)
    if len(text) > max_length:
        raise ExprError(f"the input is {len(text):,} characters long; the limit "
                        f"(max_length) is {max_length:,}", text, max_length)
    p = _Parser(text, values, max_depth, max_nodes, override=bool(override))
    root = p.program()
    if override and values:
        _check_leaf_names(values, root, p.env)
    return Evaluation(root, dict(p.env), p.nodes)


def parse(text, values=None, **limits):
    """Parse ``text`` and return the root ``Value`` (the last statement's value).

        >>> parse("a = 3; f = a*a").data
        9.0
        >>> parse("a = 3; f = a*a", {"a": 5}, override=True).data   # edit a leaf
        25.0
    """
    return evaluate(text, values, **limits).root


def parse_values(spec):
    """``'x=1,y=-2.5'`` -> ``{'x': 1.0, 'y': -2.5}`` (for ``--values``); ExprError if bad."""
    out = {}
    for part in spec.split(","):
        if not part.strip():
            continue
        name, eq, num = part.partition("=")
        name, num = name.strip(), num.strip()
        pos = spec.find(part)
        if not eq or not _NAME.fullmatch(name) or name.startswith("__") or name in FUNCTIONS:
            raise ExprError(f"bad value {part.strip()!r}: write name=number", spec, pos)
        if not _NUMBER.fullmatch(num.lstrip("+-")) or not num:
            raise ExprError(f"bad number {num!r} for {name!r}", spec,
                            pos + part.find("=") + 1)
        out[name] = float(num)
    return out


__all__ = ["parse", "evaluate", "leaves", "Evaluation", "ExprError", "tokenize", "parse_values",
           "FUNCTIONS", "MAX_LENGTH", "MAX_DEPTH", "MAX_NODES"]
