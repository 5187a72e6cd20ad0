"""What a gallery entry is, and what running it gives: plain data, JSON-ready.

An entry (``Mistake``) is the code a learner writes (shipped in ``learner.py``), why it
goes wrong, the corrected line, and a ``run`` that executes that code. ``run()`` gives a
``Result``: what the learner's code did, on each engine it was run on (an ``Outcome``:
its numbers, or the error it raised), what ``micrograd.engine`` gives for the same graph,
and central finite differences of the graph's function, all computed on the call.
"""

from __future__ import annotations

import inspect
import math
import textwrap
from dataclasses import dataclass, field
from typing import Callable

from ..engine import Value
from ..wire import encode

#: the step of the central differences (error about h**2 times the third derivative)
H = 1e-6


@dataclass
class Raised:
    """An exception caught while running a learner's code: its type and message."""

    type: str
    message: str

    @classmethod
    def of(cls, exc):
        text = str(exc)
        return cls(type(exc).__name__, text if len(text) <= 300 else text[:297] + "...")


@dataclass
class Outcome:
    """What one piece of code did on one engine: the graph's value and the grads of its
    leaves, or the error it raised (then ``value`` and ``grads`` hold what was reached
    before it, possibly nothing)."""

    runs_on: str
    value: float | str | None = None
    grads: dict[str, float | str] = field(default_factory=dict)
    error: Raised | None = None

    @property
    def raised(self):
        return self.error is not None


@dataclass
class Result:
    """One run of an entry, every number computed by it.

    ``learner``: the learner's code, once per engine it ran on (the mistake's numbers,
    or its error); ``right``: the same graph on ``micrograd.engine``, done right;
    ``finite_differences``: central differences of the graph's function at the same
    point; ``fixed``: the learner's code with the fix, run on the same example (None
    where the fix is to use ``right``'s code); ``facts``: other measured numbers, named.
    """

    example: str
    learner: list[Outcome]
    right: Outcome
    finite_differences: dict[str, float | str] = field(default_factory=dict)
    fixed: Outcome | None = None
    facts: dict[str, float | int | str] = field(default_factory=dict)

    def on(self, runs_on):
        """The learner's outcome on the engine named ``runs_on``."""
        for o in self.learner:
            if o.runs_on == runs_on:
                return o
        raise KeyError(f"no outcome on {runs_on!r}; there are: "
                       f"{', '.join(o.runs_on for o in self.learner)}")

    def to_dict(self):
        """JSON-ready (``micrograd.wire.encode``: nan and inf as strings); each of the
        learner's outcomes with ``wrong``, its cells that differ from ``right``'s."""
        out = encode(self)
        for o, d in zip(self.learner, out["learner"]):
            d["wrong"] = self.wrong(o)
        return out

    def wrong(self, outcome):
        """The cells of ``outcome`` that differ from ``right``'s: ``"value"`` and the
        leaves whose grad differs (relative 1e-9; nan equals nan). A cell the right
        outcome lacks, or one the outcome never reached, is not compared."""
        cells = []
        if not _same(outcome.value, self.right.value):
            cells.append("value")
        cells += [k for k, g in outcome.grads.items()
                  if k in self.right.grads and not _same(g, self.right.grads[k])]
        return cells

    def report(self):
        """The result as lines of text: one per outcome, then the facts.

            the learner's engine: value 9, grads a 3
            this package's engine (right): value 9, grads a 6
        """
        rows = [("example", self.example)]
        rows += [(o.runs_on, _outcome_text(o)) for o in self.learner]
        rows.append((f"{self.right.runs_on} (right)", _outcome_text(self.right)))
        if self.finite_differences:
            rows.append(("finite differences", "grads " + _grads_text(self.finite_differences)))
        if self.fixed is not None:
            rows.append((self.fixed.runs_on, _outcome_text(self.fixed)))
        rows += [(k, _num_text(v)) for k, v in self.facts.items()]
        return "\n".join(f"{k}: {v}" for k, v in rows)


def _same(a, b):
    """Two cells read the same: equal texts, both nan, or floats within 1e-9 (relative);
    a cell missing on either side is not a difference."""
    if a is None or b is None or a == b:
        return True
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return False


def _num_text(x):
    return f"{x:.6g}" if isinstance(x, float) else str(x)


def _grads_text(grads):
    return ", ".join(f"{k} {_num_text(g)}" for k, g in grads.items())


def _outcome_text(o):
    parts = []
    if o.value is not None:
        parts.append(f"value {_num_text(o.value)}")
    if o.grads:
        parts.append(f"grads {_grads_text(o.grads)}")
    if o.error is not None:
        parts.append(f"raised {o.error.type}: {o.error.message}")
    return ", ".join(parts)


@dataclass(frozen=True)
class Mistake:
    """One entry of the gallery: a classic mistake, the code that makes it, and a run."""

    key: str
    title: str
    code_objects: tuple  # the shipped functions and classes whose source is the code
    why: str
    fix: str  # the corrected line(s)
    trial: Callable[[], Result] = field(repr=False)  # runs the entry: a fresh Result
    fixed_by: object = field(default=None, repr=False)  # shipped code holding the fix
    #: the Walk's set-up (``micrograd.walk_setup.WalkSetup``'s fields) that shows this
    #: mistake step by step, or None where the Walk has no mode for it
    walk: dict | None = field(default=None, repr=False, compare=False)
    #: why a browser's Python cannot run this entry ("" where it can)
    not_in_browser: str = ""

    @property
    def code(self):
        """The learner's code: the source of the shipped objects, as they ran."""
        return "\n\n".join(textwrap.dedent(inspect.getsource(obj)).rstrip()
                           for obj in self.code_objects)

    def run(self):
        """Run the learner's code and the references; a fresh ``Result`` each call."""
        return self.trial()

    def to_dict(self, result=None):
        """JSON-ready: key, title, code, result (run now unless given), why, fix."""
        result = self.run() if result is None else result
        return {"key": self.key, "title": self.title, "code": self.code,
                "result": result.to_dict(), "why": self.why, "fix": self.fix}


# ---------------------------------------------------------------------------------------
# Running code: numbers out, errors caught
# ---------------------------------------------------------------------------------------


def number(x):
    """A leaf's grad or a node's data as the result shows it: a float, or the text of a
    number that is not a real float (a complex number from Python's ``**``)."""
    if isinstance(x, bool):
        return float(x)
    if isinstance(x, (int, float)):
        return float(x)
    if hasattr(x, "item"):  # a 0-d PyTorch tensor
        return number(x.item())
    return repr(x)


def run_graph(runs_on, build, act=None, **point):
    """Build a graph with ``build(Value, **point)`` and run ``act(root)`` on it (default:
    ``root.backward()``). Anything raised is caught into the outcome."""
    out = Outcome(runs_on)
    try:
        root, leaves = build(**point)
        out.value = number(root.data)
        (act or _backward)(root)
    except Exception as exc:  # the learner's code may raise anything: show it
        out.error = Raised.of(exc)
        return out
    out.grads = {k: number(v.grad) for k, v in leaves.items()}
    return out


def _backward(root):
    root.backward()


#: what the reference runs on (``Result.right``): ``micrograd.engine``, done right (a
#: page adds "(right)")
RIGHT = "this package's engine"


def right(build, **point):
    """The graph on ``micrograd.engine``, one ``backward()``: the reference."""
    return run_graph(RIGHT, lambda **p: build(Value, **p), **point)


def point_of(build, **given):
    """The point ``build`` makes its graph at: its defaults, updated by ``given``."""
    params = list(inspect.signature(build).parameters.values())[1:]  # after Value
    return {p.name: given.get(p.name, p.default) for p in params}


def central_differences(build, h=H, **point):
    """(f(x + h) - f(x - h)) / 2h for each leaf of ``build``'s graph, forward passes on
    ``micrograd.engine`` (whose forward values are checked against PyTorch)."""
    point = point_of(build, **point)
    out = {}
    for name in build(Value, **point)[1]:
        x = point[name]
        hi = build(Value, **{**point, name: x + h})[0].data
        lo = build(Value, **{**point, name: x - h})[0].data
        out[name] = (hi - lo) / (2 * h)
    return out


def describe(build, **point):
    """``'L = (a*b + c) * f at a = 2.0, b = -3.0, ...'``: the example's one line, from the
    formula after the colon of ``build``'s docstring and the point."""
    what = inspect.getdoc(build).split(":", 1)[1].strip().rstrip(".").strip("`")
    at = ", ".join(f"{k} = {v!r}" for k, v in point_of(build, **point).items())
    return f"{what} at {at}"
