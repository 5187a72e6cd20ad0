"""Random compositions of the op table (hypothesis): every mode against torch float64 and
against each other.

A program is a list of instructions over registers that start as the inputs; the same
program runs on micrograd Values and on torch tensors. Ops with a restricted domain get
their argument squashed into it first (``log(softplus(a) + 0.1)``), so every program is
finite at every point.
"""

import math
import warnings

from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd import autodiff
from micrograd.autodiff import grad, hessian, hvp, jacfwd, jacrev, jvp
from micrograd.gradcheck import gradcheck
from micrograd.engine import Value


class MG:  # micrograd backend
    exp = staticmethod(lambda a: a.exp())
    log = staticmethod(lambda a: a.log())
    tanh = staticmethod(lambda a: a.tanh())
    sigmoid = staticmethod(lambda a: a.sigmoid())
    relu = staticmethod(lambda a: a.relu())
    abs = staticmethod(lambda a: abs(a))
    sqrt = staticmethod(lambda a: a.sqrt())
    softplus = staticmethod(lambda a: a.softplus())
    sin = staticmethod(lambda a: a.sin())
    cos = staticmethod(lambda a: a.cos())


def torch_backend(torch):
    F = torch.nn.functional

    class TH:  # torch backend
        exp, log, tanh, sigmoid, relu, abs = (torch.exp, torch.log, torch.tanh,
                                              torch.sigmoid, torch.relu, torch.abs)
        sqrt, softplus, sin, cos = torch.sqrt, F.softplus, torch.sin, torch.cos

    return TH


EXPONENTS = [3, 2, -1, 0.5, -1.5, 1.7]

# name: f(B, a, b, n) -> new register
INSTR = {
    "add": lambda B, a, b, n: a + b,
    "sub": lambda B, a, b, n: a - b,
    "mul": lambda B, a, b, n: a * B.tanh(b),
    "div": lambda B, a, b, n: a / (B.softplus(b) + 0.5),
    "pow": lambda B, a, b, n: (B.softplus(a) + 0.5) ** B.tanh(b),
    "powc": lambda B, a, b, n: (a if n in (2, 3) else B.softplus(a) + 0.5) ** n,
    "exp": lambda B, a, b, n: B.exp(B.tanh(a) * 2),
    "log": lambda B, a, b, n: B.log(B.softplus(a) + 0.1),
    "sqrt": lambda B, a, b, n: B.sqrt(B.softplus(a) + 0.1),
    "tanh": lambda B, a, b, n: B.tanh(a),
    "sigmoid": lambda B, a, b, n: B.sigmoid(a),
    "softplus": lambda B, a, b, n: B.softplus(a),
    "sin": lambda B, a, b, n: B.sin(a),
    "cos": lambda B, a, b, n: B.cos(a),
    "relu": lambda B, a, b, n: B.relu(a),
    "abs": lambda B, a, b, n: B.abs(a),
    "neg": lambda B, a, b, n: -a,
}
SMOOTH = [k for k in INSTR if k not in ("relu", "abs")]


def run(program, B, xs, outputs=1):
    regs = list(xs)
    for name, i, j, k in program:
        a, b = regs[i % len(regs)], regs[j % len(regs)]
        regs.append(INSTR[name](B, a, b, EXPONENTS[k]))
    outs = [regs[-1 - m % len(regs)] * 1.0 + regs[m % len(xs)] * 0.5 for m in range(outputs)]
    return outs


def programs(names):
    instr = st.tuples(st.sampled_from(names), st.integers(0, 20), st.integers(0, 20),
                      st.integers(0, len(EXPONENTS) - 1))
    return st.lists(instr, min_size=1, max_size=7)


coord = st.floats(-2.0, 2.0, allow_nan=False)


def case(names=tuple(INSTR)):
    return st.integers(1, 3).flatmap(
        lambda n: st.tuples(programs(names), st.lists(coord, min_size=n, max_size=n),
                            st.lists(coord, min_size=n, max_size=n)))


def scalar_f(program, B):
    return lambda *xs: run(program, B, xs)[0]


def close(a, b, rtol=1e-8, atol=1e-9):
    if math.isfinite(a) and math.isfinite(b):
        return abs(a - b) <= atol + rtol * abs(b)
    return a == b or (math.isnan(a) and math.isnan(b))


def torch_derivs(torch, f, xs):
    ts = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]
    y = f(*ts)
    g = torch.autograd.grad(y, ts, create_graph=True, allow_unused=True)
    g = [torch.zeros((), dtype=torch.float64) if gi is None else gi for gi in g]
    H = []
    for gi in g:
        if gi.requires_grad:
            row = torch.autograd.grad(gi, ts, retain_graph=True, allow_unused=True)
            H.append([0.0 if r is None else r.item() for r in row])
        else:
            H.append([0.0] * len(ts))
    return y.item(), [gi.item() for gi in g], H


@settings(max_examples=40)
@given(case())
def test_reverse_and_hessian_match_torch(torch, c):
    program, xs, _ = c
    n = len(xs)
    y, g, H = torch_derivs(torch, scalar_f(program, torch_backend(torch)), xs)
    v, ours = autodiff.value_and_grad(scalar_f(program, MG), argnums=tuple(range(n)))(*xs)
    assert close(v, y, rtol=1e-12)
    for i in range(n):
        assert close(ours[i], g[i]), (i, ours[i], g[i])
    Hm = hessian(scalar_f(program, MG))(*xs)
    for i in range(n):
        for j in range(n):
            assert close(Hm[i][j], H[i][j], rtol=1e-7, atol=1e-8), (i, j, Hm[i][j], H[i][j])


@settings(max_examples=40)
@given(case())
def test_forward_equals_reverse_and_torch_jvp(torch, c):
    program, xs, ts = c
    f = scalar_f(program, MG)
    out, tout = jvp(f, tuple(xs), tuple(ts))
    g = grad(f, argnums=tuple(range(len(xs))))(*xs)
    assert close(tout, sum(gi * ti for gi, ti in zip(g, ts)), rtol=1e-10, atol=1e-10)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*torch.jit.script.*is deprecated",
                                category=DeprecationWarning)
        _, tref = torch.func.jvp(scalar_f(program, torch_backend(torch)),
                                 tuple(torch.tensor(x, dtype=torch.float64) for x in xs),
                                 tuple(torch.tensor(t, dtype=torch.float64) for t in ts))
    assert close(tout, tref.item())


@settings(max_examples=30)
@given(case())
def test_hvp_is_hessian_times_vector(c):
    program, xs, vs = c
    f = scalar_f(program, MG)
    H = hessian(f)(*xs)
    hv = hvp(f, tuple(xs), tuple(vs))
    for i in range(len(xs)):
        ref = sum(H[i][j] * vs[j] for j in range(len(xs)))
        assert close(hv[i], ref, rtol=1e-9, atol=1e-9), (i, hv[i], ref)


@settings(max_examples=30)
@given(case(), st.integers(2, 4))
def test_jacfwd_equals_jacrev(c, m):
    program, xs, _ = c
    f = lambda *vs: run(program, MG, vs, outputs=m)  # noqa: E731
    Jf, Jr = jacfwd(f)(*xs), jacrev(f)(*xs)
    assert len(Jf) == len(Jr) == m
    for rf, rr in zip(Jf, Jr):
        for a, b in zip(rf, rr):
            assert close(a, b, rtol=1e-10, atol=1e-10)


@settings(max_examples=30)
@given(case(SMOOTH))
def test_gradcheck_passes_on_smooth_programs(c):
    program, xs, _ = c
    assert gradcheck(scalar_f(program, MG), xs)


@settings(max_examples=40)
@given(case(), st.floats(-3, 3, allow_nan=False))
def test_backward_is_the_engines_backward_bit_for_bit(c, seed):
    program, xs, _ = c
    a = [Value(x) for x in xs]
    b = [Value(x) for x in xs]
    for v, w in zip(a, b):  # leaves accumulate: start from the same nonzero grad
        v.grad = w.grad = 0.25
    ya, yb = run(program, MG, a)[0], run(program, MG, b)[0]
    ya.backward(seed)
    autodiff.backward(yb, seed)
    for v, w in zip(a, b):
        assert v.grad == w.grad or (math.isnan(v.grad) and math.isnan(w.grad))
