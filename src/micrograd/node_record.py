"""What a ``Value`` records about how it was made, beyond its inputs: its op, the op's
constant, a label, an op label set by hand; and the op a node built by hand names.

    >>> from micrograd.engine import Value
    >>> a, b = Value(2.0), Value(-3.0)
    >>> e = Value(a.data * b.data, (a, b), '*')   # as the lecture builds a node by hand
    >>> e._op, e._prev == (a, b)
    ('*', True)

Most nodes record their op alone (an entry of the op table, in the node's ``_how``
slot); a node that carries more (the ``n`` of ``x**n``, a label, a hand-set op label)
holds an ``Extra`` record instead. This is the engine's bookkeeping, not the lecture's
algorithm: ``micrograd.engine``'s node properties (``_fn``, ``_arg``, ``label``, ``_op``)
read and set it through the functions here.
"""

from __future__ import annotations

import math

from . import ops as _ops

__all__ = ["Extra", "extra", "fn_of", "arg_of", "label_of", "op_label_of", "with_label",
           "with_op_label", "op_from_label"]


class Extra:
    """How a node was made, when that is more than an op: the op (None for a leaf), its
    constant argument, the node's label, an op label set by hand (None if not). Never
    changed once made: a node that changes gets a new one."""

    __slots__ = ("fn", "arg", "label", "oplabel")

    def __init__(self, fn, arg, label, oplabel):
        self.fn, self.arg, self.label, self.oplabel = fn, arg, label, oplabel


def extra(fn, arg=None, label="", oplabel=None):
    """What goes in a node's ``_how``: the op itself when there is nothing more to say."""
    if arg is None and not label and oplabel is None:
        return fn
    return Extra(fn, arg, label, oplabel)


def fn_of(how):
    """The op a node's ``_how`` names (``Value._fn``); None for a leaf."""
    return how.fn if type(how) is Extra else how


def arg_of(how):
    """The op's constant argument (``Value._arg``: the n of x**n), or None."""
    return how.arg if type(how) is Extra else None


def label_of(how):
    """The node's label (``Value.label``), '' when it has none."""
    return how.label if type(how) is Extra else ""


def op_label_of(how):
    """The short label of the node's op (``Value._op``): '+', '*', '**2', 'tanh', ''."""
    if type(how) is Extra:
        if how.oplabel is not None:
            return how.oplabel  # a node built by hand, or a label set by the user
        how, arg = how.fn, how.arg
    else:
        arg = None
    return "" if how is None else how.label(arg)


def with_label(how, label):
    """``how`` with the node's label set to ``label`` (a str; None for none)."""
    if label is None:
        label = ""
    elif not isinstance(label, str):
        raise TypeError(f"a Value's label must be a str, got {type(label).__name__}: "
                        f"{label!r:.60}")
    if type(how) is Extra:
        return extra(how.fn, how.arg, label, how.oplabel)
    return Extra(how, None, label, None) if label else how


def with_op_label(how, text):
    """``how`` with the node's op label set by hand to ``text``."""
    if type(how) is Extra:
        return Extra(how.fn, how.arg, how.label, text)
    return Extra(how, None, "", text)


def op_from_label(label, prev, data):
    """``(op, arg)`` for a node built by hand, ``Value(data, (a, b), '+')``.

    The label must name an op of the table with that many inputs (``'+'``, ``'*'``,
    ``'tanh'``, ``'**2'``, a key such as ``'relu'``), and ``data`` must be what that op
    gives: such a node then backpropagates like any other. Anything else is refused,
    never drawn as a leaf that silently passes no gradient."""
    n = len(prev)
    if not isinstance(label, str) or not label:
        raise ValueError(
            "a Value built with inputs needs the op that made it, e.g. "
            "Value(a.data * b.data, (a, b), '*')")
    found = None
    for op in _ops.OPS.values():
        if op.arity == n and not op.has_arg and label in (op.name, op.key):
            found, arg = op, None
            break
    if found is None and n == 1 and label.startswith("**"):
        try:
            arg = float(label[2:])
        except ValueError:
            arg = math.nan
        if math.isfinite(arg):
            found = _ops.POWC
            arg = int(arg) if arg.is_integer() else arg
    if found is None:
        known = sorted({op.name for op in _ops.OPS.values() if op.arity == n} |
                       ({"**n"} if n == 1 else set()))
        raise ValueError(
            f"Value(data, children, op): {label!r} is not an op of {n} input"
            f"{'s' if n > 1 else ''} (known: {', '.join(known)}). Build nodes with "
            f"operators and methods (a + b, a.tanh()), or add an op with "
            f"micrograd.engine.define_op")
    want = _ops.forward(found, [p.data for p in prev], arg)
    if not _same_number(want, data):
        raise ValueError(
            f"Value({data!r}, children, {label!r}): {label} of the inputs "
            f"({', '.join(repr(p.data) for p in prev)}) is {want!r}, not {data!r}")
    return found, arg


def _same_number(x, y):
    if x != x or y != y:
        return x != x and y != y
    return x == y or math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-300)
