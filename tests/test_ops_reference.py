"""Every op of the table, value and gradient, against PyTorch float64 and finite differences.

The tests are generated from the built-in ops (``micrograd.ops.BUILTIN``): each key
needs one entry in ``SPEC`` (tests/opinfo.py: how to call it on Values, its torch twin,
its domain), and then gets

* value and gradient against torch at random points of its domain (hypothesis),
* the gradient against central finite differences at random points,
* its edge cases against torch, nan and inf positions compared exactly,
* its derivative rule run on Values (the rules must work for higher order too).

Gradients always come through a NON-UNIT upstream gradient: ``(f(x) + 1)**2`` at random
points, ``3.0 * f(x)`` at the edges (so a rule that forgets the upstream factor fails).
A new op in the table without an entry here fails ``test_every_op_has_a_spec``.
"""

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from opinfo import SPEC, floats

from micrograd import ops
from micrograd.engine import Value

inf, nan = math.inf, math.nan

KEYS = list(ops.BUILTIN)


def test_every_op_has_a_spec():
    missing = set(ops.BUILTIN) - set(SPEC)
    assert not missing, f"add a SPEC entry (domain, torch twin, edges) for op(s) {missing}"
    assert set(SPEC) == set(ops.BUILTIN)


TINY = 2.3e-308  # the smallest normal float64: subnormal results may differ (torch flushes)


def same(ours, ref, rel=1e-12, abs_=TINY):
    """Equal to ``ref`` up to ``rel``; nan exactly where ref is nan, the same infinities."""
    if math.isnan(ref):
        return math.isnan(ours)
    if math.isinf(ref):
        return ours == ref
    return not math.isnan(ours) and math.isclose(ours, ref, rel_tol=rel, abs_tol=abs_)


def run_ours(key, xs, arg, upstream):
    spec = SPEC[key]
    vs = [Value(x) for x in xs]
    y = spec["value"](*vs, arg) if ops.BUILTIN[key].has_arg else spec["value"](*vs)
    assert y._fn is ops.BUILTIN[key], f"{key}: the Value method made op {y._fn!r}"
    upstream(y).backward()
    return y.data, [v.grad for v in vs]


def run_torch(torch, key, xs, arg, upstream):
    spec = SPEC[key]
    ts = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]
    y = spec["torch"](*ts, arg) if ops.BUILTIN[key].has_arg else spec["torch"](*ts)
    upstream(y).backward()
    return y.item(), [t.grad.item() for t in ts]


def square_plus_one(y):
    return (y + 1) ** 2


def times_three(y):
    return y * 3.0


def check_against_torch(torch, key, xs, arg, upstream, rel=1e-12, grad_abs=TINY):
    val, grads = run_ours(key, xs, arg, upstream)
    tval, tgrads = run_torch(torch, key, xs, arg, upstream)
    where = f"{key}{tuple(xs)}" + (f" arg={arg!r}" if arg is not None else "")
    assert same(val, tval, rel), f"{where}: value {val!r}, torch {tval!r}"
    for i, (g, tg) in enumerate(zip(grads, tgrads)):
        assert same(g, tg, rel, grad_abs), f"{where}: grad of input {i} {g!r}, torch {tg!r}"


def draw_point(data, key):
    spec = SPEC[key]
    xs = [data.draw(s, label=f"x{i}") for i, s in enumerate(spec["domain"])]
    arg = data.draw(spec["arg"], label="arg") if ops.BUILTIN[key].has_arg else None
    return xs, arg


@pytest.mark.parametrize("key", KEYS)
@given(data=st.data())
def test_value_and_grad_match_torch(torch, key, data):
    xs, arg = draw_point(data, key)
    # NOTE: tanh' = 1 - out*out and sigmoid' = out*(1 - out) reuse the output, as torch's
    # rules do; where they are tiny (tanh(8)), one ulp of difference between math.tanh and
    # torch.tanh in ``out`` is a 1e-10 relative difference in the gradient, hence the
    # absolute tolerance (the upstream here is 2(f+1), of order 1).
    check_against_torch(torch, key, xs, arg, square_plus_one, rel=1e-11, grad_abs=1e-14)


@pytest.mark.parametrize("key", KEYS)
@given(data=st.data())
def test_grad_matches_central_differences(key, data):
    xs, arg = draw_point(data, key)
    for k in SPEC[key].get("kinks", []):
        assume(all(abs(x - k) > 1e-3 for x in xs))
    op = ops.BUILTIN[key]

    def f(*p):  # the same upstream as the backward pass: L = 3 f(x)
        return 3.0 * (op.forward(*p, arg) if op.has_arg else op.forward(*p))

    _, grads = run_ours(key, xs, arg, times_three)
    for i, x in enumerate(xs):
        h = 1e-6 * max(1.0, abs(x))
        hi = list(xs)
        lo = list(xs)
        hi[i] += h
        lo[i] -= h
        slope = (f(*hi) - f(*lo)) / (hi[i] - lo[i])
        assert math.isclose(grads[i], slope, rel_tol=1e-5, abs_tol=1e-6), (
            f"{key}{tuple(xs)} arg={arg!r}: grad {grads[i]!r}, finite differences {slope!r}")


EDGES = [(key, xs, arg) for key in KEYS for xs, arg in SPEC[key]["edges"]]


@pytest.mark.parametrize("key,xs,arg", EDGES,
                         ids=[f"{k}{xs}" + (f"^{a:.3g}" if a is not None else "")
                              for k, xs, a in EDGES])
def test_edges_match_torch_exactly(torch, key, xs, arg):
    check_against_torch(torch, key, list(xs), arg, times_three)


@pytest.mark.parametrize("key", KEYS)
@given(data=st.data())
def test_rules_run_on_values(key, data):
    """``op.local`` works on Values too (higher order): same numbers as on floats."""
    xs, arg = draw_point(data, key)
    op = ops.BUILTIN[key]
    out = op.forward(*xs, arg) if op.has_arg else op.forward(*xs)
    on_floats = ops.local_grads(op, xs, out, arg)
    on_values = ops.local_grads(op, [Value(x) for x in xs], Value(out), arg, m=ops.VALUE)
    assert len(on_floats) == len(on_values) == op.arity
    for f, v in zip(on_floats, on_values):
        v = v.data if isinstance(v, Value) else v
        assert same(v, f, rel=1e-13), f"{key}{tuple(xs)}: on Values {v!r}, on floats {f!r}"


@pytest.mark.parametrize("key", KEYS)
@given(data=st.data())
def test_second_derivatives_match_torch(torch, key, data):
    """The rules run on Values build graphs of their own: backpropagating a local
    derivative gives a row of the Hessian, as torch's double backward does."""
    xs, arg = draw_point(data, key)
    for k in SPEC[key].get("kinks", []):
        assume(all(abs(x - k) > 1e-3 for x in xs))
    op = ops.BUILTIN[key]
    vs = [Value(x) for x in xs]
    out = SPEC[key]["value"](*vs, arg) if op.has_arg else SPEC[key]["value"](*vs)
    firsts = ops.local_grads(op, vs, out, arg, m=ops.VALUE)

    ts = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]
    ty = SPEC[key]["torch"](*ts, arg) if op.has_arg else SPEC[key]["torch"](*ts)
    tfirsts = torch.autograd.grad(ty, ts, create_graph=True)
    for i, (d, td) in enumerate(zip(firsts, tfirsts)):
        assert same(d.data if isinstance(d, Value) else d, td.item(), 1e-11, 1e-14)
        for v in vs:
            v.grad = 0.0
        if isinstance(d, Value):
            d.backward()
        row = [v.grad for v in vs]
        if td.requires_grad:
            trow = [0.0 if g is None else g.item()
                    for g in torch.autograd.grad(td, ts, allow_unused=True)]
        else:
            trow = [0.0] * len(ts)
        for j, (h, th) in enumerate(zip(row, trow)):
            assert same(h, th, 1e-10, 1e-12), (
                f"{key}{tuple(xs)} arg={arg!r}: d2/dx{i}dx{j} {h!r}, torch {th!r}")


def test_every_forward_is_ieee_safe():
    """No op raises OverflowError/ValueError/ZeroDivisionError, whatever the input."""
    specials = [0.0, -0.0, 1.0, -1.0, 0.5, -8.0, 1e308, -1e308, 710.0, -710.0, 5e-324, inf,
                -inf, nan]
    for key, op in ops.BUILTIN.items():
        second = specials if (op.arity == 2 or op.has_arg) else [None]
        for x in specials:
            for y in second:
                xs = [x, y] if op.arity == 2 else [x]
                arg = y if op.has_arg else None
                out = op.forward(*xs, arg) if op.has_arg else op.forward(*xs)
                assert isinstance(out, float), (key, xs, arg, out)
                d = ops.local_grads(op, xs, out, arg)
                assert len(d) == op.arity, (key, xs, arg, d)
                assert all(isinstance(v, float) for v in d), (key, xs, arg, d)


# ---- pinned facts at the sharp edges (each also checked against torch above) ----


def test_relu_kink_is_exactly_zero():
    for x, want in [(-1.0, 0.0), (0.0, 0.0), (1.0, 3.0)]:
        a = Value(x)
        (a.relu() * 3.0).backward()
        assert a.grad == want  # exact: relu'(0) = 0, relu'(1) = 1


def test_abs_kink_is_exactly_zero():
    a = Value(0.0)
    (a.abs() * 3.0).backward()
    assert a.grad == 0.0


def test_exp_overflow_is_inf_not_an_error():
    a = Value(710.0)
    y = a.exp()
    assert y.data == inf
    (y * 3.0).backward()
    assert a.grad == inf
    with pytest.raises(OverflowError):
        math.exp(710.0)  # the reason the table has its own exp


def test_sigmoid_keeps_tiny_values():
    # 1 - sigmoid(40) is 0.0 in float64; sigmoid(-40) computed on its own branch is not
    assert math.isclose(Value(-40.0).sigmoid().data, 4.248354255291589e-18, rel_tol=1e-12)
    assert Value(-1e3).sigmoid().data == 0.0 and Value(1e3).sigmoid().data == 1.0


def test_log_and_sqrt_at_the_edge_of_their_domain():
    assert Value(0.0).log().data == -inf
    assert math.isnan(Value(-1.0).log().data)
    a = Value(0.0)
    y = a.sqrt()
    (y * 3.0).backward()
    assert (y.data, a.grad) == (0.0, inf)


def test_pow_conventions():
    assert (Value(0.0) ** -1).data == inf
    assert math.isnan((Value(-8.0) ** (1 / 3)).data)
    a = Value(0.0)
    y = a**0
    y.backward()
    assert (y.data, a.grad) == (1.0, 0.0)  # 0**0 = 1 with derivative 0, as torch


# ---- composite ops: built from the primitives, checked against torch ----

COMPOSITES = {
    "neg": (lambda a, b: -a, lambda a, b: -a),
    "sub": (lambda a, b: a - b, lambda a, b: a - b),
    "sub_number": (lambda a, b: a - 2.5, lambda a, b: a - 2.5),
    "rsub": (lambda a, b: 1 - a, lambda a, b: 1 - a),
    "div": (lambda a, b: a / b, lambda a, b: a / b),
    "div_number": (lambda a, b: a / 4.0, lambda a, b: a / 4.0),
    "rtruediv": (lambda a, b: 1 / b, lambda a, b: 1 / b),
    "rpow": (lambda a, b: 2**a, lambda a, b: 2**a),
    "pow_value": (lambda a, b: b**a, lambda a, b: b**a),
    "radd": (lambda a, b: 3 + a, lambda a, b: 3 + a),
    "rmul": (lambda a, b: 2 * a, lambda a, b: 2 * a),
    "mixed": (lambda a, b: (a * b - 1 / b) / (b + a**2).sqrt(),
              lambda a, b: (a * b - 1 / b) / (b + a**2).sqrt()),
}


@pytest.mark.parametrize("name", COMPOSITES)
@given(a=floats(-3, 3), b=floats(0.2, 4))
def test_composites_match_torch(torch, name, a, b):
    ours, theirs = COMPOSITES[name]
    va, vb = Value(a), Value(b)
    y = ours(va, vb)
    ((y + 1) ** 2).backward()
    ta, tb = (torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in (a, b))
    ty = theirs(ta, tb)
    ((ty + 1) ** 2).backward()
    assert same(y.data, ty.item(), 1e-12)
    for g, t in [(va.grad, ta.grad), (vb.grad, tb.grad)]:
        # abs tolerance: a gradient can cancel to ~1e-16 (``mixed`` at a=-1, b=1)
        assert same(g, 0.0 if t is None else t.item(), 1e-11, 1e-13)


def test_composites_are_built_from_primitives():
    a, b = Value(2.0), Value(4.0)
    assert (a - b)._op == "+" and (a - b)._prev[1]._op == "*"  # a + (b * -1)
    assert (a / b)._fn is ops.DIV  # a primitive, so that it rounds as torch's division
    assert (1 / b)._op == "*" and (1 / b)._prev[0]._op == "**-1"  # b**-1 * 1, as torch
    assert (-a)._op == "*" and (-a)._prev[1].data == -1.0
    r = 2**a
    assert r._fn is ops.POW and r._prev[0].data == 2.0 and r._prev[1] is a
