"""One table of every primitive op for the tests: how to call it, its PyTorch twin, its
domain, its kinks and its edge cases.

Every per-op test (tests/test_ops_reference.py, the autodiff and trace tests) reads this
table; a new built-in op (``micrograd.ops.BUILTIN``) without an entry here fails
``test_every_op_has_a_spec``.
"""

import math

import torch
from hypothesis import strategies as st

from micrograd.engine import Value

inf, nan = math.inf, math.nan


def floats(lo, hi):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def _softplus_torch(x):
    # log(1 + e^x) exactly; F.softplus switches to x above a threshold (20) and would
    # differ from the true value by ~1e-9 there
    return torch.logaddexp(x, torch.zeros_like(x))


#: key -> how to call the op on Values (``arg`` for ops with a constant), the same in
#: torch, a hypothesis strategy per input (the op's domain), kinks to keep away from in
#: finite differences, and edge cases ``(inputs, arg)``.
SPEC = {
    "add": dict(value=lambda a, b: a + b, torch=lambda a, b: a + b,
                domain=[floats(-10, 10), floats(-10, 10)],
                edges=[((1e308, 1e308), None), ((inf, -inf), None), ((-0.0, 0.0), None)]),
    "mul": dict(value=lambda a, b: a * b, torch=lambda a, b: a * b,
                domain=[floats(-10, 10), floats(-10, 10)],
                edges=[((1e200, 1e200), None), ((0.0, inf), None), ((-2.0, 0.0), None)]),
    "div": dict(value=lambda a, b: a / b, torch=lambda a, b: a / b,
                domain=[floats(-10, 10), floats(0.1, 10)],
                edges=[((1e-300, 1e-300), None), ((1.0, 0.0), None), ((0.0, 0.0), None),
                       ((-1.0, -0.0), None), ((1e300, 1e-300), None), ((inf, 2.0), None),
                       ((2.0, inf), None), ((5e-324, 1e308), None)]),
    "pow": dict(value=lambda a, b: a**b, torch=lambda a, b: a**b,
                domain=[floats(0.1, 5), floats(-3, 3)],
                edges=[((0.0, 0.0), None), ((0.0, -1.0), None), ((0.0, 2.0), None),
                       ((-8.0, 2.0), None), ((-8.0, 1 / 3), None), ((2.0, 2000.0), None),
                       ((4.0, 0.5), None)]),
    "powc": dict(value=lambda a, n: a**n, torch=lambda a, n: a**n,
                 domain=[floats(0.1, 5)],
                 arg=st.sampled_from([-2, -1, -0.5, 0, 0.5, 1, 2, 3, 2.5, 1 / 3]),
                 edges=[((0.0,), -1), ((-0.0,), -1), ((0.0,), 0), ((0.0,), 0.5),
                        ((0.0,), 2), ((-8.0,), 1 / 3), ((-2.0,), 3), ((-2.0,), -2),
                        ((10.0,), 400), ((-10.0,), 401), ((0.0,), -2)]),
    "exp": dict(value=Value.exp, torch=torch.exp, domain=[floats(-20, 20)],
                edges=[((700.0,), None), ((-700.0,), None), ((710.0,), None),
                       ((-750.0,), None), ((inf,), None), ((-inf,), None)]),
    "log": dict(value=Value.log, torch=torch.log, domain=[floats(1e-3, 100)],
                edges=[((1e-300,), None), ((5e-324,), None), ((0.0,), None),
                       ((-1.0,), None), ((inf,), None)]),
    "tanh": dict(value=Value.tanh, torch=torch.tanh, domain=[floats(-10, 10)],
                 edges=[((1e3,), None), ((-1e3,), None), ((0.0,), None), ((20.0,), None)]),
    "sigmoid": dict(value=Value.sigmoid, torch=torch.sigmoid, domain=[floats(-30, 30)],
                    edges=[((1e3,), None), ((-1e3,), None), ((-40.0,), None),
                           ((40.0,), None), ((0.0,), None), ((-745.0,), None)]),
    "relu": dict(value=Value.relu, torch=torch.relu, domain=[floats(-10, 10)], kinks=[0.0],
                 edges=[((-1.0,), None), ((0.0,), None), ((1.0,), None), ((-0.0,), None)]),
    "abs": dict(value=Value.abs, torch=torch.abs, domain=[floats(-10, 10)], kinks=[0.0],
                edges=[((-1.0,), None), ((0.0,), None), ((1.0,), None), ((-inf,), None)]),
    "sqrt": dict(value=Value.sqrt, torch=torch.sqrt, domain=[floats(1e-3, 100)],
                 edges=[((0.0,), None), ((-1.0,), None), ((1e-300,), None), ((inf,), None)]),
    "softplus": dict(value=Value.softplus, torch=_softplus_torch, domain=[floats(-30, 30)],
                     edges=[((1e3,), None), ((-1e3,), None), ((0.0,), None),
                            ((40.0,), None)]),
    "sin": dict(value=Value.sin, torch=torch.sin, domain=[floats(-10, 10)],
                edges=[((0.0,), None), ((inf,), None), ((1e10,), None)]),
    "cos": dict(value=Value.cos, torch=torch.cos, domain=[floats(-10, 10)],
                edges=[((0.0,), None), ((-inf,), None), ((1e10,), None)]),
}
