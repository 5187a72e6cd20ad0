"""Every op of the table, in every mode, against PyTorch float64.

One case per op (``powc`` once per exponent), each with a domain for random points and a
list of edge points. For each case: first derivatives (``grad``), all partial derivatives
up to third order (``gradients(create_graph=True)`` nested, against
``torch.autograd.grad(create_graph=True)``), forward mode (``jvp`` against
``torch.func.jvp`` and against reverse mode), and ``gradcheck`` of first and second
derivatives.
"""

import itertools
import math
import random
import warnings

import pytest
from opinfo import higher_order_cases

from micrograd import ops
from micrograd.autodiff import gradients, grad, jvp
from micrograd.gradcheck import gradcheck
from micrograd.engine import Value

# name: (op key, micrograd function, torch function, range per input, edge points)
CASES = higher_order_cases()

NAMES = list(CASES)


def points(name, count=3):
    """Random points in the case's domain, seeded by the case name."""
    rng = random.Random(f"autodiff-{name}")
    dom = CASES[name][3]
    return [tuple(rng.uniform(lo, hi) for lo, hi in dom) for _ in range(count)]


def same(a, b, rtol=1e-9, atol=1e-12):
    """Close when both finite; otherwise exactly the same inf, or both nan."""
    if math.isfinite(a) and math.isfinite(b):
        return abs(a - b) <= atol + rtol * abs(b)
    return a == b or (math.isnan(a) and math.isnan(b))


def mg_derivs(f, xs, order=3):
    """All partial derivatives of f up to ``order``: {(i, j, ...): value}."""
    vs = [Value(x) for x in xs]
    level = {(): f(*vs)}
    out = {}
    for _ in range(order):
        nxt = {}
        for idx, y in level.items():
            gs = gradients(y, vs, create_graph=True)
            for i, g in enumerate(gs):
                nxt[idx + (i,)] = g
        out.update({idx: g.data for idx, g in nxt.items()})
        level = nxt
    return out


def th_derivs(torch, f, xs, order=3):
    ts = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]
    level = {(): f(*ts)}
    out = {}
    for _ in range(order):
        nxt = {}
        for idx, y in level.items():
            if y.requires_grad:
                gs = torch.autograd.grad(y, ts, create_graph=True, allow_unused=True)
            else:
                gs = [None] * len(ts)
            for i, g in enumerate(gs):
                nxt[idx + (i,)] = torch.zeros((), dtype=torch.float64) if g is None else g
        out.update({idx: g.item() for idx, g in nxt.items()})
        level = nxt
    return out


def torch_jvp(torch, f, xs, ts):
    """torch.func.jvp in float64 (its first call imports a module that warns about
    torch.jit.script; pytest turns warnings into errors)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*torch.jit.script.*is deprecated",
                                category=DeprecationWarning)
        out, t = torch.func.jvp(f, tuple(torch.tensor(x, dtype=torch.float64) for x in xs),
                                tuple(torch.tensor(t, dtype=torch.float64) for t in ts))
    return out, t


def test_every_op_of_the_table_has_a_case():
    assert {c[0] for c in CASES.values()} == set(ops.BUILTIN)


@pytest.mark.parametrize("name", NAMES)
def test_case_builds_its_op(name):
    key, mg, _, dom, _ = CASES[name]
    out = mg(*[Value(1.5) for _ in dom])
    assert out._fn is ops.BUILTIN[key]


@pytest.mark.parametrize("name", NAMES)
def test_first_derivatives_match_torch(torch, name):
    _, mg, th, dom, _ = CASES[name]
    argnums = tuple(range(len(dom)))
    for xs in points(name):
        ours = grad(mg, argnums=argnums)(*xs)
        ref = th_derivs(torch, th, xs, order=1)
        for i in argnums:
            assert same(ours[i], ref[(i,)], rtol=1e-12), (xs, i, ours[i], ref[(i,)])


@pytest.mark.parametrize("name", NAMES)
def test_higher_order_matches_torch(torch, name):
    _, mg, th, _, _ = CASES[name]
    for xs in points(name):
        ours, ref = mg_derivs(mg, xs), th_derivs(torch, th, xs)
        assert ours.keys() == ref.keys()
        for idx in ref:
            assert same(ours[idx], ref[idx], rtol=1e-10), (xs, idx, ours[idx], ref[idx])


@pytest.mark.parametrize("name", NAMES)
def test_higher_order_at_edges_matches_torch(torch, name):
    _, mg, th, _, edges = CASES[name]
    for xs in edges:
        ours, ref = mg_derivs(mg, xs), th_derivs(torch, th, xs)
        for idx in ref:
            assert same(ours[idx], ref[idx], rtol=1e-9), (xs, idx, ours[idx], ref[idx])


@pytest.mark.parametrize("name", NAMES)
def test_forward_mode_matches_torch_and_reverse(torch, name):
    _, mg, th, dom, _ = CASES[name]
    rng = random.Random(name)
    for xs in points(name):
        ts = tuple(rng.uniform(-2, 2) for _ in dom)
        out, tout = jvp(mg, xs, ts)
        tout_ref = torch_jvp(torch, th, xs, ts)[1]
        assert same(tout, tout_ref.item(), rtol=1e-12)
        rev = grad(mg, argnums=tuple(range(len(dom))))(*xs)
        assert same(tout, sum(g * t for g, t in zip(rev, ts)), rtol=1e-12)
        assert out == mg(*[Value(x) for x in xs]).data


@pytest.mark.parametrize("name", NAMES)
def test_gradcheck_first_and_second_order(name):
    _, mg, _, dom, _ = CASES[name]
    n = len(dom)
    for xs in points(name, 2):
        assert gradcheck(mg, xs)
        # second order: the gradient, built as a graph, checked against its own differences
        assert gradcheck(grad(mg, argnums=tuple(range(n))) if n > 1 else grad(mg), xs)


# ---- the conventions at the kinks, pinned exactly -------------------------------------

RELU_KINK = [(-1.0, 0.0), (0.0, 0.0), (-0.0, 0.0), (1.0, 1.0)]
ABS_KINK = [(-1.0, -1.0), (0.0, 0.0), (1.0, 1.0)]


@pytest.mark.parametrize("x,d1", RELU_KINK)
def test_relu_kink_convention(x, d1):
    # relu'(0) = 0 and relu'' = relu''' = 0 everywhere, the kink included: the rule returns
    # a constant, so its derivative is exactly zero
    f = lambda v: v.relu()  # noqa: E731
    assert grad(f)(x) == d1
    assert grad(grad(f))(x) == 0.0
    assert grad(grad(grad(f)))(x) == 0.0
    assert jvp(f, (x,), (1.0,))[1] == d1


@pytest.mark.parametrize("x,d1", RELU_KINK)
def test_relu_kink_convention_is_torchs(torch, x, d1):
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(torch.relu(t), t, create_graph=True)
    (g2,) = torch.autograd.grad(g, t)
    assert (g.item(), g2.item()) == (d1, 0.0)


@pytest.mark.parametrize("x,d1", ABS_KINK)
def test_abs_kink_convention(x, d1):
    f = lambda v: abs(v)  # noqa: E731
    assert grad(f)(x) == d1
    assert grad(grad(f))(x) == 0.0
    assert jvp(f, (x,), (1.0,))[1] == d1


@pytest.mark.parametrize("x,d1", ABS_KINK)
def test_abs_kink_convention_is_torchs(torch, x, d1):
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    (g,) = torch.autograd.grad(torch.abs(t), t, create_graph=True)
    (g2,) = torch.autograd.grad(g, t)
    assert (g.item(), g2.item()) == (d1, 0.0)


def x_pow_y(x, y):
    return x ** y


def test_pow_zero_base_convention():
    # d(x**y)/dy = x**y log x is 0 at x == 0, y >= 0 (torch's convention). Our rule returns
    # that 0 as a constant, so every derivative of it there is 0 as well
    ours = mg_derivs(x_pow_y, (0.0, 2.0))
    assert (ours[(0,)], ours[(1,)], ours[(0, 0)], ours[(0, 0, 0)]) == (0.0, 0.0, 2.0, 0.0)
    assert ours[(1, 0)] == ours[(1, 1)] == ours[(1, 0, 0)] == 0.0


def test_pow_zero_base_against_torch(torch):
    # torch computes the masked branch anyway and its double backward leaks nan
    # (0 * log 0): first derivatives agree exactly; from second order on, ours is 0 where
    # torch has nan
    ours, ref = mg_derivs(x_pow_y, (0.0, 2.0)), th_derivs(torch, x_pow_y, (0.0, 2.0))
    for idx in [(0,), (1,), (0, 0), (0, 0, 0)]:
        assert ours[idx] == ref[idx]
    assert ours[(1, 0)] == ours[(1, 1)] == 0.0
    assert math.isnan(ref[(1, 0)]) and math.isnan(ref[(1, 1)])


def test_named_third_derivatives():
    # the list, closed forms at x = 0.7
    x = 0.7
    t, s = math.tanh(x), 1 / (1 + math.exp(-x))
    d3 = lambda f: grad(grad(grad(f)))(x)  # noqa: E731
    assert math.isclose(d3(lambda v: v.tanh()), -2 * (1 - t * t) * (1 - 3 * t * t), rel_tol=1e-12)
    assert math.isclose(d3(lambda v: v.sigmoid()), s * (1 - s) * (1 - 6 * s + 6 * s * s),
                        rel_tol=1e-12)
    assert math.isclose(d3(lambda v: v.exp()), math.exp(x), rel_tol=1e-15)
    assert math.isclose(d3(lambda v: v.log()), 2 / x ** 3, rel_tol=1e-14)
    assert d3(lambda v: v ** 3) == 6.0
    assert grad(grad(grad(grad(lambda v: v ** 3))))(x) == 0.0


def test_local_rules_run_on_values():
    # every rule of the table, applied to Values, gives a Value graph equal to the float rule
    for name, (_, mg, _, _, _) in CASES.items():
        xs = points(name, 1)[0]
        vs = [Value(x) for x in xs]
        out = mg(*vs)
        on_values = ops.local_grads(out._fn, out._prev, out, out._arg)
        on_floats = ops.local_grads(out._fn, [p.data for p in out._prev], out.data, out._arg)
        assert len(on_values) == len(on_floats) == out._fn.arity
        for a, b in zip(on_values, on_floats):
            assert getattr(a, "data", a) == b, (name, a, b)


def test_third_order_tensor_is_symmetric():
    # mixed partials commute: a check that needs no reference
    f = lambda x, y: (x * y).sin() * y.exp() + x ** y  # noqa: E731
    d = mg_derivs(f, (0.8, 1.3))
    for idx in d:
        for perm in itertools.permutations(idx):
            assert math.isclose(d[idx], d[perm], rel_tol=1e-12, abs_tol=1e-13)
