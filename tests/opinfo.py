"""One table of every primitive op for the tests: how to call it, its PyTorch twin, its
domain, its kinks and its edge cases.

Every per-op test (tests/test_ops_reference.py, the autodiff and trace tests) reads this
table; a new built-in op (``micrograd.ops.BUILTIN``) without an entry here fails
``test_every_op_has_a_spec``.
"""

import importlib
import math

from hypothesis import strategies as st

from micrograd.engine import Value

inf, nan = math.inf, math.nan


class _Torch:
    """A PyTorch function by name (``torch.exp``, ``F.softplus``), looked up in torch when
    called: the table, and the tests that read it without calling a twin, load where torch
    is missing (Pyodide's Python). A call without torch fails with the ImportError."""

    def __init__(self, *path):
        self._path = path

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Torch(*self._path, name)

    def __call__(self, *args, **kwargs):
        found = importlib.import_module("torch")
        for name in self._path:
            found = getattr(found, name)
        return found(*args, **kwargs)

    def __repr__(self):
        return ".".join(("torch", *self._path))


torch = _Torch()
F = torch.nn.functional


def floats(lo, hi):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def _softplus_torch(x):
    # log(1 + e^x) exactly; F.softplus switches to x above a threshold (20) and would
    # differ from the true value by ~1e-9 there
    return torch.logaddexp(x, torch.zeros_like(x))


#: key -> how to call the op on Values (``arg`` for ops with a constant), the same in
#: torch, a hypothesis strategy per input (the op's domain), kinks to keep away from in
#: finite differences, edge cases ``(inputs, arg)``, and ``higher``: the ranges and edge
#: points where derivatives up to third order are compared (``powc``: one per exponent).
SPEC = {
    "add": dict(value=lambda a, b: a + b, torch=lambda a, b: a + b,
                domain=[floats(-10, 10), floats(-10, 10)],
                edges=[((1e308, 1e308), None), ((inf, -inf), None), ((-0.0, 0.0), None)],
                higher=dict(domain=[(-3, 3), (-3, 3)],
                            edges=[(0.0, -0.0), (-1000.0, 1000.0), (1e+308, 1e+308)])),
    "mul": dict(value=lambda a, b: a * b, torch=lambda a, b: a * b,
                domain=[floats(-10, 10), floats(-10, 10)],
                edges=[((1e200, 1e200), None), ((0.0, inf), None), ((-2.0, 0.0), None)],
                higher=dict(domain=[(-3, 3), (-3, 3)],
                            edges=[(0.0, 0.0), (-0.0, 2.0), (1e+200, 1e+200)])),
    "div": dict(value=lambda a, b: a / b, torch=lambda a, b: a / b,
                domain=[floats(-10, 10), floats(0.1, 10)],
                edges=[((1e-300, 1e-300), None), ((1.0, 0.0), None), ((0.0, 0.0), None),
                       ((-1.0, -0.0), None), ((1e300, 1e-300), None), ((inf, 2.0), None),
                       ((2.0, inf), None), ((5e-324, 1e308), None)],
                higher=dict(domain=[(-3, 3), (0.3, 3)],
                            edges=[(1.0, 2.0), (1e-300, 1e-300), (0.0, 1.0), (-2.0, -0.5)])),
    "pow": dict(value=lambda a, b: a**b, torch=lambda a, b: a**b,
                domain=[floats(0.1, 5), floats(-3, 3)],
                edges=[((0.0, 0.0), None), ((0.0, -1.0), None), ((0.0, 2.0), None),
                       ((-8.0, 2.0), None), ((-8.0, 1 / 3), None), ((2.0, 2000.0), None),
                       ((4.0, 0.5), None)],
                higher=dict(domain=[(0.3, 3), (-2, 2)],
                            edges=[(2.0, 0.0), (1.0, 0.5), (-2.0, 2.0), (-2.0, 3.0),
                                   (1e-08, 2.0)])),
    "powc": dict(value=lambda a, n: a**n, torch=lambda a, n: a**n,
                 domain=[floats(0.1, 5)],
                 arg=st.sampled_from([-2, -1, -0.5, 0, 0.5, 1, 2, 3, 2.5, 1 / 3]),
                 edges=[((0.0,), -1), ((-0.0,), -1), ((0.0,), 0), ((0.0,), 0.5),
                        ((0.0,), 2), ((-8.0,), 1 / 3), ((-2.0,), 3), ((-2.0,), -2),
                        ((10.0,), 400), ((-10.0,), 401), ((0.0,), -2)],
                higher=[
                    dict(n=3, domain=[(-3, 3)], edges=[(0.0,), (-0.0,), (-2.0,), (1e+103,)]),
                    dict(n=2, domain=[(-3, 3)], edges=[(0.0,), (-1.0,)]),
                    dict(n=1, domain=[(-3, 3)], edges=[(0.0,), (-1.0,)]),
                    dict(n=0, domain=[(-3, 3)], edges=[(0.0,), (2.0,)]),
                    dict(n=-1, domain=[(0.3, 3)], edges=[(-2.0,), (1e-100,)]),
                    dict(n=0.5, domain=[(0.3, 3)], edges=[(4.0,), (1e-08,)]),
                    dict(n=-1.5, domain=[(0.3, 3)], edges=[(0.0001,)]),
                    dict(n=1.7, domain=[(0.3, 3)], edges=[(0.001,)]),
                ]),
    "exp": dict(value=Value.exp, torch=torch.exp, domain=[floats(-20, 20)],
                edges=[((700.0,), None), ((-700.0,), None), ((710.0,), None),
                       ((-750.0,), None), ((inf,), None), ((-inf,), None)],
                higher=dict(domain=[(-3, 3)], edges=[(0.0,), (-700.0,), (700.0,), (-800.0,)])),
    "log": dict(value=Value.log, torch=torch.log, domain=[floats(1e-3, 100)],
                edges=[((1e-300,), None), ((5e-324,), None), ((0.0,), None),
                       ((-1.0,), None), ((inf,), None)],
                higher=dict(domain=[(0.2, 5)], edges=[(1.0,), (1e-300,), (1e+300,), (0.0,)])),
    "tanh": dict(value=Value.tanh, torch=torch.tanh, domain=[floats(-10, 10)],
                 edges=[((1e3,), None), ((-1e3,), None), ((0.0,), None), ((20.0,), None)],
                higher=dict(domain=[(-3, 3)], edges=[(0.0,), (-20.0,), (20.0,), (400.0,)])),
    "sigmoid": dict(value=Value.sigmoid, torch=torch.sigmoid, domain=[floats(-30, 30)],
                    edges=[((1e3,), None), ((-1e3,), None), ((-40.0,), None),
                           ((40.0,), None), ((0.0,), None), ((-745.0,), None)],
                higher=dict(domain=[(-5, 5)],
                            edges=[(0.0,), (-40.0,), (40.0,), (-800.0,), (800.0,)])),
    "relu": dict(value=Value.relu, torch=torch.relu, domain=[floats(-10, 10)], kinks=[0.0],
                 edges=[((-1.0,), None), ((0.0,), None), ((1.0,), None), ((-0.0,), None)],
                higher=dict(domain=[(-3, 3)], edges=[(-1.0,), (0.0,), (-0.0,), (1.0,)])),
    "abs": dict(value=Value.abs, torch=torch.abs, domain=[floats(-10, 10)], kinks=[0.0],
                edges=[((-1.0,), None), ((0.0,), None), ((1.0,), None), ((-inf,), None)],
                higher=dict(domain=[(-3, 3)], edges=[(-1.0,), (0.0,), (1.0,)])),
    "sqrt": dict(value=Value.sqrt, torch=torch.sqrt, domain=[floats(1e-3, 100)],
                 edges=[((0.0,), None), ((-1.0,), None), ((1e-300,), None), ((inf,), None)],
                higher=dict(domain=[(0.2, 5)], edges=[(4.0,), (1e-300,), (0.0,)])),
    "softplus": dict(value=Value.softplus, torch=_softplus_torch, domain=[floats(-30, 30)],
                     edges=[((1e3,), None), ((-1e3,), None), ((0.0,), None),
                            ((40.0,), None)],
                higher=dict(domain=[(-5, 5)], edges=[(0.0,), (-40.0,), (-800.0,), (15.0,)],
                            # below the threshold 20, F.softplus is log(1 + e^x) and its
                            # double backward stays finite where logaddexp's is nan
                            torch=F.softplus)),
    "sin": dict(value=Value.sin, torch=torch.sin, domain=[floats(-10, 10)],
                edges=[((0.0,), None), ((inf,), None), ((1e10,), None)],
                higher=dict(domain=[(-4, 4)], edges=[(0.0,), (1.5707963267948966,), (1000000.0,)])),
    "cos": dict(value=Value.cos, torch=torch.cos, domain=[floats(-10, 10)],
                edges=[((0.0,), None), ((-inf,), None), ((1e10,), None)],
                higher=dict(domain=[(-4, 4)], edges=[(0.0,), (3.141592653589793,), (-1000000.0,)])),
}


def higher_order_cases():
    """``name -> (key, ours, torch twin, ranges, edge points)`` for the derivative tests of
    every order: one case per op, ``powc`` once per exponent (``powc3``, ``powc-1.5``)."""
    cases = {}
    for key, spec in SPEC.items():
        if key == "powc":
            for h in spec["higher"]:
                n = h["n"]
                cases[f"powc{n}"] = (key, lambda a, n=n: a**n, lambda a, n=n: a**n,
                                     h["domain"], h["edges"])
        else:
            h = spec["higher"]
            cases[key] = (key, spec["value"], h.get("torch", spec["torch"]), h["domain"],
                          h["edges"])
    return cases


#: numbers where backends most often part ways: kinks, overflow edges, specials
BACKEND_POINTS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, 1e-300, -1e-300, 1e-8,
                  40.0, -40.0, 100.0, -100.0, 700.0, -700.0, 710.0, -710.0, 800.0, -800.0,
                  1e308, -1e308, inf, -inf, nan, math.pi, -2.5, 0.3333333333333333]
BACKEND_EXPONENTS = [2, 3, -1, -2, 0, 0.5, -0.5, 1.0 / 3.0, 2.5, 1, 0.0, 400, -401]


def elementwise_cases(op, seed=0):
    """``[(inputs, arg)]`` to compare two backends of ``op`` on: every pair (or exponent)
    of the points above and 20 random ones."""
    import random

    rng = random.Random(seed)
    pool = BACKEND_POINTS + [rng.uniform(-5, 5) for _ in range(20)]
    if op.arity == 2:
        return [((x, y), None) for x in pool for y in pool]
    if op.has_arg:
        return [((x,), n) for x in pool for n in BACKEND_EXPONENTS]
    return [((x,), None) for x in pool]
