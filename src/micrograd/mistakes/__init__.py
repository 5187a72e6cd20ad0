"""A gallery of the classic mistakes of the lecture, each run, never described from memory.

    >>> from micrograd.mistakes import GALLERY, get
    >>> result = get("assign").run()
    >>> result.on("the learner's engine").grads, result.right.grads
    ({'a': 3.0}, {'a': 6.0})

Each entry (a ``Mistake``) has the code a learner writes (``code``: the source of the
buggy engine variant or function shipped in ``micrograd.mistakes.learner``, exactly as
it runs), why it goes wrong and the fix (``why``, ``fix``). ``run()`` executes that code
on its example graph and returns a ``Result``: the learner's numbers or the error raised
(once per engine the code ran on), the right numbers from ``micrograd.engine``, central
finite differences, the learner's code with the fix applied, and other measured facts.
``to_dict()`` is the JSON-ready form (key, title, code, result, why, fix) for a page.
For the page's gallery an entry also names the Walk's set-up that shows it step by step
(``walk``, where the Walk has a mode for it) and says why a browser's Python cannot run
it (``not_in_browser``, where it cannot).

The entries, in ``GALLERY`` order: ``assign``, ``recursive_backward``, ``no_zero_grad``,
``backward_twice``, ``radd_recursion``, ``pow_exponent_no_grad``, ``pow_negative_base``,
``deep_recursive_topo``, ``draw_before_backward``, ``sum_from_zero`` (see docs/mistakes.md).
"""

from __future__ import annotations

from . import gallery as _g
from . import learner as _l
from .gallery import FIXED, LEARNER, OURS, PUBLISHED, TORCH
from .record import Mistake, Outcome, Raised, Result

#: why ``__radd__``'s endless recursion cannot run in a browser's Python
_DEEP_C_STACK = (
    "Each call of `other + self` passes through the interpreter's own code for `+`, so "
    "this recursion fills the WebAssembly stack, which a browser keeps small: it "
    "overflows, ending the page's Python, long before Python's recursion limit. "
    "`micrograd serve` and notebook 09 run it.")

GALLERY = (
    Mistake(
        "assign", "`=` instead of `+=` in `_backward`",
        (_l.AssignValue, _l.square),
        "A node used twice gets one contribution per use, and the chain rule adds them. "
        "With `=` the second contribution overwrites the first: `a*a` at 3 keeps one 3.",
        "self.grad += other.data * out.grad", _g.run_assign, _l.LectureValue.__mul__,
        walk={"preset": "square", "mode": "assign"}),
    Mistake(
        "recursive_backward", "A recursive backward pass without a topological sort",
        (_l.RecursiveValue, _l.twice_reused),
        "A node reached by two paths is visited once per path, and it pushes its grad on "
        "before the second path has added to it: the partial grad of `b` reaches `a` "
        "and then the whole grad reaches it again.",
        "for node in reversed(topo):\n    node._backward()",
        _g.run_recursive_backward, _l.LectureValue.backward,
        walk={"preset": "reused", "values": {"a": 1.0}, "mode": "recursive"}),
    Mistake(
        "no_zero_grad", "No `zero_grad` between backward passes",
        (_l.backward_twice, _l.lecture_L),
        "Grads add up over backward passes. micrograd's published engine keeps every "
        "node's grad, interior ones too, and a second pass pushes the summed grads on "
        "(24); micrograd.engine, like PyTorch, starts the interior grads afresh on each "
        "pass and adds up at the leaves only (12). PyTorch also frees the graph after "
        "a pass: a second one needs `retain_graph=True`.",
        "root.zero_grad()", _g.run_no_zero_grad, _l.zero_grad_between,
        walk={"preset": "lecture", "mode": "no_zero_grad"}),
    Mistake(
        "backward_twice", "Calling `backward()` twice on one graph",
        (_l.backward_twice, _l.neuron),
        "A second `backward()` is not a harmless repeat: micrograd's engines add to "
        "the grads (micrograd.engine doubles the leaves' grads, micrograd's published "
        "engine more than doubles them), and PyTorch refuses, having freed what the "
        "backward pass needs, unless the first call kept it.",
        "root.backward()  # once per forward pass", _g.run_backward_twice),
    Mistake(
        "radd_recursion", "`__radd__` written as `other + self`",
        (_l.BadRaddValue, _l.one_plus_square),
        "For `1 + a` Python asks `int` first, which cannot add a Value, then calls "
        "`a.__radd__(1)`; `other + self` is `1 + a` again, so it calls itself until "
        "the interpreter's recursion limit.",
        "return self + other", _g.run_radd_recursion, _l.LectureValue.__radd__,
        not_in_browser=_DEEP_C_STACK),
    Mistake(
        "pow_exponent_no_grad", "A `Value ** Value` whose exponent gets no gradient",
        (_l.ValuePowValue, _l.power),
        "The lecture's `__pow__` takes only an int or float (an assert). Letting the "
        "exponent be a Value with only the power rule gives the base its grad and the "
        "exponent none: d(a**b)/db = a**b * log(a) is missing.",
        "other.grad += out.data * math.log(self.data) * out.grad",
        _g.run_pow_exponent, _l.LogPowValue),
    Mistake(
        "pow_negative_base", "`Value ** Value` with a negative base",
        (_l.LogPowValue, _l.power),
        "d(a**b)/db = a**b * log(a) has no real value for a < 0: `math.log` raises "
        "ValueError, and Python's float `**` gives a complex number for a fractional "
        "exponent. micrograd.engine follows IEEE like PyTorch: nan, and no error.",
        "y = a**3  # a plain number as the exponent: no log(a) in its rule",
        _g.run_pow_negative_base, _l.cube),
    Mistake(
        "deep_recursive_topo", "A recursive topological sort on a deep graph",
        (_l.LectureValue.backward, _l.chain),
        "`build_topo` calls itself once per level of the graph, and Python stops a "
        "recursion near its limit (1,000 frames by default), so a chain a few "
        "thousand ops deep cannot be sorted. micrograd.engine sorts with a loop.",
        "stack = [(self, False)]\nwhile stack:\n    v, children_placed = stack.pop()",
        _g.run_deep_recursive_topo, _l.IterativeValue),
    Mistake(
        "draw_before_backward", "Drawing the graph before `backward()`",
        (_l.draw_then_backward, _l.lecture_L),
        "A drawing shows the grads as they are when it is made: before `backward()` "
        "every grad is still 0. micrograd's `draw_dot` says so on the picture.",
        "root.backward()\nreturn draw_dot(root)", _g.run_draw_before_backward,
        _l.backward_then_draw),
    Mistake(
        "sum_from_zero", "`sum(...)` starting from the int 0",
        (_l.three_terms, _l.NoRaddValue),
        "`sum` computes `0 + terms[0] + ...`, so `0 + Value` must work. With `__radd__` "
        "it is not a bug: micrograd.engine and the lecture's engine give the right "
        "value and grads, and the graph has two more nodes (the constant 0 and the `+` "
        "that adds it). Without `__radd__` it is a TypeError.",
        "def __radd__(self, other):  # other + self\n    return self + other",
        _g.run_sum_from_zero, _l.LectureValue.__radd__),
)

_BY_KEY = {m.key: m for m in GALLERY}


def get(key):
    """The entry named ``key`` (a ``KeyError`` lists the keys)."""
    try:
        return _BY_KEY[key]
    except (KeyError, TypeError):
        raise KeyError(f"no mistake {key!r}; the gallery has: {', '.join(_BY_KEY)}") from None


def to_dict():
    """The whole gallery, every entry run now, JSON-ready: a list of entries."""
    return [m.to_dict() for m in GALLERY]


__all__ = ["GALLERY", "get", "to_dict", "Mistake", "Result", "Outcome", "Raised",
           "LEARNER", "PUBLISHED", "OURS", "TORCH", "FIXED"]
