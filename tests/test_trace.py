"""The traced batched path equals the eager engine: op by op, on random graphs, on the demo.

Every check runs the same function twice: eagerly, one sample at a time with the scalar
engine (the reference), and traced, the whole batch at once. Values and every parameter
gradient must agree to 1e-9 relative (only the order of summation differs).
"""

import math
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from opinfo import elementwise_cases

from micrograd import ops
from micrograd.engine import Value
from micrograd.nn import MLP
from micrograd.trace import (NP_FORWARD, BatchLoss, Program, TraceError, clear_cache,
                             np_contributions, np_forward, trace, trace_loss)

# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------


def assert_close(got, want, rtol=1e-9, what=""):
    """Equal to rtol relative, nan where nan, inf where inf (of the same sign)."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, (what, got.shape, want.shape)
    scale = max(1.0, float(np.max(np.abs(want[np.isfinite(want)]), initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * scale * 1e-3,
                               equal_nan=True, err_msg=what)


def eager(fn, params, *batches, reduction="mean", regularizer=None):
    """The reference: one eager graph per sample, summed; returns (outputs, grads)."""
    for p in params:
        p.grad = 0.0
    n = len(batches[0]) if batches else 1
    outs, total = [], None
    for i in range(n):
        args = []
        for b in batches:
            item = b[i]
            if np.ndim(item) == 0:
                args.append(Value(float(item)))
            else:
                args.append([Value(float(v)) for v in item])
        out = fn(*args)
        outs.append(out.data if isinstance(out, Value) else [o.data for o in out])
        total = out if total is None else total + out
    if reduction == "mean":
        total = total * (1.0 / n)
    if regularizer is not None:
        total = total + regularizer()
    total.backward()
    grads = [p.grad for p in params]
    for p in params:
        p.grad = 0.0
    return np.array(outs), np.array(grads), total.data


def traced(fn, params, *batches, reduction="mean"):
    prog = trace(fn, *batches, params=params, cache=False)
    for p in params:
        p.grad = 0.0
    out = prog.backward(*batches, reduction=reduction)
    grads = np.array([p.grad for p in params])
    for p in params:
        p.grad = 0.0
    return out, grads, prog


# edge values for the elementwise comparison of the two backends
def _same(a, b):
    """Elementwise equality for the backends: exact for specials, 1e-13 relative else."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b) or a == 0.0 or b == 0.0:
        return a == b
    return abs(a - b) <= 1e-13 * max(abs(a), abs(b))


# ---------------------------------------------------------------------------------------
# the NumPy backend: every key, elementwise equal to the eager rules
# ---------------------------------------------------------------------------------------


def test_numpy_backend_covers_every_op_of_the_table():
    assert set(NP_FORWARD) == set(ops.BUILTIN)  # user-defined ops bring np_forward


@pytest.mark.parametrize("key", sorted(ops.BUILTIN))
def test_numpy_backend_agrees_with_eager_elementwise(key):
    op = ops.BUILTIN[key]
    cases = elementwise_cases(op)
    bad = []
    with np.errstate(all="ignore"):
        for xs, arg in cases:
            want = op.forward(*xs, arg) if op.has_arg else op.forward(*xs)
            got = float(np_forward(key, tuple(np.array([x]) for x in xs), arg)[0])
            if not _same(got, want):
                bad.append(("forward", xs, arg, got, want))
                continue
            for up in (3.0, math.inf, math.nan):  # an upstream inf/nan: selections hold
                want_d = ops.contributions(op, ops.FLOAT, up, list(xs), want, arg)
                got_d = [float(np.broadcast_to(d, (1,))[0]) for d in np_contributions(
                    key, np.array([up]), tuple(np.array([x]) for x in xs), np.array([want]),
                    arg)]
                for i, (g, w) in enumerate(zip(got_d, want_d)):
                    if not _same(g, w):
                        bad.append((f"d/dx{i} upstream {up}", xs, arg, g, w))
    assert not bad, f"{len(bad)} disagreements, first: {bad[:5]}"


def test_missing_numpy_forward_names_the_op():
    with pytest.raises(TraceError, match="'nope'"):
        np_forward("nope", (np.zeros(1),))


# ---------------------------------------------------------------------------------------
# traced == eager on every op of the table
# ---------------------------------------------------------------------------------------

# a per-op function of one sample (x0, x1) and two parameters, kept in the op's domain
UNARY_DOMAIN = {"log": lambda v: v.abs() + 0.1, "sqrt": lambda v: v.abs() + 0.1}


def _op_fn(key, w, b):
    op = ops.BUILTIN[key]

    def fn(x):
        u = w * x[0] + b          # depends on a parameter and on the sample
        v = x[1] * b + 1.5
        if op.arity == 2:
            if key == "pow":
                return (u.abs() + 0.5) ** v
            return getattr(u, op.method)(v) * w
        if op.has_arg:
            return (u.abs() + 0.2) ** 2.5 + u ** 3 + u ** -1
        arg = UNARY_DOMAIN.get(key, lambda t: t)(u)
        method = {"relu": "relu", "abs": "abs"}.get(key, key)
        return getattr(arg, method)() * v
    return fn


@pytest.mark.parametrize("key", sorted(ops.BUILTIN))
def test_traced_equals_eager_on_every_op(key):
    rng = np.random.default_rng(1)
    w, b = Value(0.7), Value(-0.3)
    X = rng.uniform(-2, 2, size=(9, 2))
    if key in ("relu", "abs"):  # the kinks themselves: u = w*x0 + b = 0 exactly
        X[0, 0] = 0.3 / 0.7
        X[1] = [0.0, 0.0]
    fn = _op_fn(key, w, b)
    want_out, want_g, _ = eager(fn, [w, b], X, reduction="sum")
    got_out, got_g, _ = traced(fn, [w, b], X, reduction="sum")
    assert_close(got_out, want_out, what=f"{key} outputs")
    assert_close(got_g, want_g, what=f"{key} grads")


def test_traced_relu_and_abs_kinks_are_exact():
    # relu'(0) = 0 and abs'(0) = 0 exactly, as in the eager engine, across the batch
    w = Value(1.0)
    X = [-1.0, 0.0, 1.0]
    prog = trace(lambda x: (w * x).relu() + (w * x).abs(), X, params=[w], cache=False)
    out = prog.backward(X, reduction="sum")
    assert out.tolist() == [1.0, 0.0, 2.0]
    # d/dw = (relu'(wx) + sign(wx)) * x per sample: (0 - 1)(-1) + (0 + 0)(0) + (1 + 1)(1)
    assert w.grad == 3.0


def test_ieee_edges_pass_through_the_batched_program():
    w = Value(1.0)
    X = [800.0, -800.0, 0.0, math.inf, -math.inf, math.nan]
    fn = lambda x: (w * x).exp() + (w * x).sigmoid() + (w * x).softplus()  # noqa: E731
    want_out, want_g, _ = eager(fn, [w], X, reduction="sum")
    prog = trace(fn, X, params=[w], cache=False)
    out = prog(X)
    assert_close(out, want_out)
    w.grad = 0.0
    prog.backward(X[:3], reduction="sum")
    assert_close(w.grad, eager(fn, [w], X[:3], reduction="sum")[1][0])


# ---------------------------------------------------------------------------------------
# random graphs (hypothesis): same structure for every sample, random ops and wiring
# ---------------------------------------------------------------------------------------

UNARY = ["exp", "log", "tanh", "sigmoid", "relu", "abs", "sqrt", "softplus", "sin", "cos",
         "powc"]
BINARY = ["add", "mul", "pow", "sum", "dense"]


def _build(recipe, params, x):
    """Run a recipe (a list of instructions) on inputs x and parameters: a Value."""
    nodes = list(x) + list(params) + [Value(0.5)]
    for kind, a, b, extra in recipe:
        u = nodes[a % len(nodes)]
        v = nodes[b % len(nodes)]
        if kind == "exp":
            r = u.tanh().exp()
        elif kind in ("log", "sqrt"):
            r = getattr(u.abs() + 0.25, kind)()
        elif kind == "powc":
            r = (u.abs() + 0.5) ** [2, -1, 0.5, 3, 1.5][extra % 5]
        elif kind in UNARY:
            r = getattr(u, kind)()
        elif kind == "add":
            r = u + v
        elif kind == "mul":
            r = (u * v).tanh()
        elif kind == "pow":
            r = (u.abs() + 0.5) ** v.tanh()
        elif kind == "sum":  # an addition chain (fused into one reduction)
            r = sum((nodes[(a + k) % len(nodes)] for k in range(2 + extra % 4)), u)
        else:  # a dense-like row: parameters times nodes plus a parameter bias
            k = 1 + extra % 3
            r = sum((params[(a + j) % len(params)] * nodes[(b + j) % len(nodes)]
                     for j in range(k)), params[b % len(params)]).tanh()
        nodes.append(r)
    return nodes[-1] + nodes[-2] * 0.5


@st.composite
def recipes(draw):
    n = draw(st.integers(1, 10))
    kinds = st.sampled_from(UNARY + BINARY)
    idx = st.integers(0, 50)
    return [(draw(kinds), draw(idx), draw(idx), draw(st.integers(0, 10))) for _ in range(n)]


@given(recipe=recipes(), seed=st.integers(0, 2**16), batch=st.integers(1, 6))
def test_random_graphs_traced_equals_eager(recipe, seed, batch):
    rng = np.random.default_rng(seed)
    params = [Value(float(v)) for v in rng.uniform(-1, 1, size=3)]
    X = rng.uniform(-2, 2, size=(batch, 2))

    def fn(x):
        return _build(recipe, params, x)

    want_out, want_g, _ = eager(fn, params, X, reduction="mean")
    got_out, got_g, _ = traced(fn, params, X, reduction="mean")
    assert_close(got_out, want_out, what="outputs")
    assert_close(got_g, want_g, what="grads")


# ---------------------------------------------------------------------------------------
# the demo model: MLP(2, [16, 16, 1]), hinge + L2, and training with SGD
# ---------------------------------------------------------------------------------------


def _moons(n=100, seed=0):
    from sklearn.datasets import make_moons
    X, y = make_moons(n_samples=n, noise=0.1, random_state=seed)
    return X, y * 2.0 - 1.0


def _demo():
    model = MLP(2, [16, 16, 1], activation="relu", output_activation="linear", seed=1337,
                bias_init="zero")

    def sample_loss(x, y):
        return (1 + -y * model(x)).relu()

    def l2():
        return 1e-4 * sum(p * p for p in model.parameters())
    return model, sample_loss, l2


def test_demo_model_traced_equals_eager():
    X, Y = _moons()
    model, sample_loss, l2 = _demo()
    params = model.parameters()
    for p in params:  # non-zero biases so every path is exercised
        p.data += 0.01
    want_out, want_g, want_loss = eager(sample_loss, params, X, Y, reduction="mean",
                                        regularizer=l2)
    loss = trace_loss(sample_loss, X, Y, reduction="mean", regularizer=l2, cache=False)
    assert isinstance(loss, BatchLoss)
    got_loss = loss.backward(X, Y)
    got_g = np.array([p.grad for p in params])
    assert_close(got_loss, want_loss, what="loss")
    assert_close(got_g, want_g, what="grads")
    assert loss.value(X, Y) == pytest.approx(want_loss, rel=1e-12)
    assert_close(loss.per_sample(X, Y), want_out, what="per-sample losses")
    # the hidden layers really ran as matrix products
    assert "dense x33" in loss.per_sample.summary()


def test_demo_training_traced_equals_eager_step_by_step():
    X, Y = _moons(40)
    model, sample_loss, l2 = _demo()
    params = model.parameters()
    twin, twin_loss, twin_l2 = _demo()
    tparams = twin.parameters()
    loss = trace_loss(twin_loss, X, Y, regularizer=twin_l2, cache=False)
    for step in range(5):
        _, g, L = eager(sample_loss, params, X, Y, regularizer=l2)
        twin.zero_grad()
        Lt = loss.backward(X, Y)
        assert Lt == pytest.approx(L, rel=1e-9, abs=1e-12)
        assert_close([p.grad for p in tparams], g, what=f"step {step}")
        for p, gp in zip(params, g.tolist()):
            p.data -= 0.1 * gp
        for p in tparams:  # the optimizer only touches .data: the program reads it
            p.data -= 0.1 * p.grad
    assert_close([p.data for p in tparams], [p.data for p in params])


def test_sum_reduction_and_grad_accumulation():
    X, Y = _moons(10)
    model, sample_loss, _ = _demo()
    params = model.parameters()
    _, g_sum, _ = eager(sample_loss, params, X, Y, reduction="sum")
    prog = trace(sample_loss, X, Y, params=params, cache=False)
    model.zero_grad()
    prog.backward(X, Y, reduction="sum")
    prog.backward(X, Y, reduction="sum")  # leaf grads accumulate, like the eager engine
    assert_close([p.grad for p in params], 2 * g_sum)


def test_model_outputs_over_a_grid_and_several_outputs():
    model = MLP(2, [8, 3], seed=0)
    grid = np.stack(np.meshgrid(np.linspace(-2, 2, 50), np.linspace(-2, 2, 50)),
                    -1).reshape(-1, 2)
    prog = trace(model, grid)
    out = prog(grid)
    assert out.shape == (2500, 3)
    for i in (0, 1234, 2499):
        assert_close(out[i], [v.data for v in model(list(grid[i]))])
    # several outputs need explicit output gradients
    with pytest.raises(ValueError, match="grad_outputs"):
        prog.backward(grid)
    model.zero_grad()
    weights = np.ones((2500, 3))
    prog.backward(grid, grad_outputs=weights)
    g = [p.grad for p in model.parameters()]
    model.zero_grad()
    total = None
    for x in grid[:: 1]:
        o = model(list(x))
        s = o[0] + o[1] + o[2]
        total = s if total is None else total + s
    total.backward()
    assert_close(g, [p.grad for p in model.parameters()])


def test_regularizer_only_program_and_batch_loss_without_it():
    w = [Value(0.5), Value(-2.0)]
    reg = trace(lambda: w[0] * w[0] + w[1].abs(), params=w, cache=False)
    assert reg.n_inputs == 0
    out = reg.backward(reduction="sum")
    assert out.tolist() == [2.25]
    assert [p.grad for p in w] == [1.0, -1.0]
    loss = trace_loss(lambda x: w[0] * x, [1.0, 3.0], reduction="sum", cache=False)
    w[0].grad = 0.0
    assert loss.backward([1.0, 3.0]) == 2.0
    assert w[0].grad == 4.0


def test_batch_loss_from_two_programs_equals_the_one_pass_form():
    # trace_loss runs the per-sample graph and the regularizer in one program; a
    # BatchLoss built by hand from the two programs runs them one after the other
    X, Y = _moons(30)
    model, sample_loss, l2 = _demo()
    params = model.parameters()
    for p in params:
        p.data += 0.01
    one = trace_loss(sample_loss, X, Y, regularizer=l2, cache=False)
    two = BatchLoss(trace(sample_loss, X, Y, cache=False), regularizer=trace(l2, cache=False))
    model.zero_grad()
    a = one.backward(X, Y)
    ga = {id(p): p.grad for p in params}
    model.zero_grad()
    b = two.backward(X, Y)
    assert a == pytest.approx(b, rel=1e-15)
    assert [p.grad for p in params] == pytest.approx([ga[id(p)] for p in params],
                                                     rel=1e-13, abs=1e-16)
    assert one.value(X, Y) == pytest.approx(two.value(X, Y), rel=1e-15)


def test_parameter_shared_between_dense_rows_and_ops():
    # weight tying: one parameter in two neurons and in a plain op; grads must add up
    a, b = Value(0.3), Value(-0.6)

    def fn(x):
        h1 = a * x[0] + b * x[1] + a
        h2 = a * x[0] + b * x[1]
        return (h1.tanh() * h2.sigmoid() + a * a) * b

    X = np.random.default_rng(3).normal(size=(6, 2))
    want_out, want_g, _ = eager(fn, [a, b], X)
    got_out, got_g, _ = traced(fn, [a, b], X)
    assert_close(got_out, want_out)
    assert_close(got_g, want_g)


def test_reused_nodes_and_outputs_inside_the_graph():
    w = Value(1.5)

    def fn(x):
        h = w * x
        return [h * h, h + h + h, (h * w).exp()]

    X = [0.1, -0.4, 0.9]
    prog = trace(fn, X, params=[w], cache=False)
    got = prog(X)
    for i, x in enumerate(X):
        assert_close(got[i], [o.data for o in fn(Value(x))])
    w.grad = 0.0
    prog.backward(X, grad_outputs=np.ones((3, 3)))
    g = w.grad
    w.grad = 0.0
    total = None
    for x in X:
        o = fn(Value(x))
        s = o[0] + o[1] + o[2]
        total = s if total is None else total + s
    total.backward()
    assert g == pytest.approx(w.grad, rel=1e-12)


def test_exact_constant_factors_fold_into_sums_and_others_do_not():
    # (a - b) * 0.5 is 0.5 a - 0.5 b to the last bit; (a - b) * 0.1 is not (cancellation):
    # only powers of two may move into a sum's coefficients
    w = Value(1.0)
    X = [1.0 + 2.0 ** -52, 3.0, -0.75]

    def fn(x):  # each difference read once, so that it can be folded
        return [(x - w) * 0.5 + x * -2.0, (x - w) * 0.1]

    prog = trace(fn, X, params=[w], cache=False)
    got = prog(X)
    want = [[o.data for o in fn(Value(x))] for x in X]
    assert got.tolist() == want  # bit for bit
    assert got[0, 1] == (X[0] - 1.0) * 0.1  # the cancelling case, not 0.1 a - 0.1 b
    assert "mul x1" in prog.summary()  # only the 0.1 stayed a product


def test_dense_inputs_read_elsewhere_get_every_gradient():
    # the hidden activations feed the next layer AND a later product: their gradient
    # has two writers (the product's backward runs first), so the dense step must add
    # to it, not write it
    model = MLP(3, [4, 2], activation="tanh", seed=4)
    hidden, top = model.layers

    def fn(x):
        h = hidden(x)
        o = top(h)
        return o[0] * o[1] + h[0] * o[1] + h[3]

    X = np.random.default_rng(5).normal(size=(7, 3))
    params = model.parameters()
    want_out, want_g, _ = eager(fn, params, X)
    got_out, got_g, _ = traced(fn, params, X)
    assert_close(got_out, want_out)
    assert_close(got_g, want_g)


# square layers (as many outputs as inputs): a weight matrix used transposed has the
# right shape there, so only the numbers can tell; every entry of W is distinct


@pytest.mark.parametrize("sizes, activation", [
    ((3, [3, 3, 1]), "tanh"), ((3, [3, 3, 1]), "relu"), ((4, [4, 4, 4]), "tanh"),
    ((2, [2, 2]), "sigmoid"),
])
def test_square_layers_traced_equals_eager(sizes, activation):
    nin, outs = sizes
    model = MLP(nin, outs, activation=activation, seed=11)
    for k, p in enumerate(model.parameters()):  # no two weights alike, W != W.T
        p.data += 0.01 * k
    X = np.random.default_rng(3).normal(size=(9, nin))
    # a weighted sum of the outputs, so that no output gradient equals another
    coefs = [1.0, -2.0, 0.5, 3.0][:outs[-1]]

    def fn(x):
        o = model(x)
        o = o if isinstance(o, list) else [o]
        return sum((c * v for c, v in zip(coefs[1:], o[1:])), coefs[0] * o[0])

    params = model.parameters()
    want_out, want_g, _ = eager(fn, params, X)
    got_out, got_g, prog = traced(fn, params, X)
    # the square layers ran as matrix products (every hidden neuron a dense row)
    dense = re.search(r"dense x(\d+)", prog.summary())
    assert dense and int(dense.group(1)) >= sum(outs[:-1]), prog.summary()
    assert_close(got_out, want_out, what="outputs")
    assert_close(got_g, want_g, what="grads")
    # the gradient of each weight matrix, compared entry by entry in its own layout
    i = 0
    for layer in model.layers:
        for n, neuron in enumerate(layer.neurons):
            w = len(neuron.w)
            assert_close(got_g[i:i + w], want_g[i:i + w], what=f"row {n} of {layer}")
            i += w + 1


def test_square_model_outputs_traced_equal_eager_with_output_gradients():
    model = MLP(4, [4, 4, 4], activation="tanh", seed=2)
    for k, p in enumerate(model.parameters()):
        p.data += 0.01 * k
    X = np.random.default_rng(8).normal(size=(6, 4))
    prog = trace(model, X, cache=False)
    assert_close(prog(X), [[v.data for v in model(list(x))] for x in X])
    G = np.random.default_rng(9).normal(size=(6, 4))  # a different weight per output
    model.zero_grad()
    prog.backward(X, grad_outputs=G)
    got = [p.grad for p in model.parameters()]
    model.zero_grad()
    total = None
    for x, g in zip(X, G):
        s = sum((float(gj) * o for gj, o in zip(g, model(list(x)))), Value(0.0))
        total = s if total is None else total + s
    total.backward()
    assert_close(got, [p.grad for p in model.parameters()])


def test_squares_of_parameters_run_as_one_dense_row():
    # the L2 term: sum(p * p) is a dense row with weights p and inputs p (2 p g each)
    w = [Value(v) for v in (0.5, -1.5, 2.0, 0.25)]
    reg = trace(lambda: 1e-3 * sum(p * p for p in w), params=w, cache=False)
    assert "dense x1" in reg.summary()
    for p in w:
        p.grad = 0.0
    out = reg.backward(reduction="sum")
    assert out.tolist() == pytest.approx([1e-3 * sum(p.data ** 2 for p in w)], rel=1e-15)
    assert [p.grad for p in w] == [2e-3 * p.data for p in w]


def test_squares_of_parameters_inside_the_per_sample_function():
    # a parameters-only dense row inside the per-sample graph: the same for every
    # sample (broadcast), its gradient summed over the batch
    w = [Value(v) for v in (0.5, -1.5, 2.0)]

    def fn(x):
        r = sum(p * p for p in w)  # read twice: its own dense row, not folded away
        return (w[0] * x[0] + w[1] * x[1] + r).tanh() * x[1] + r

    X = np.random.default_rng(6).normal(size=(5, 2))
    want_out, want_g, _ = eager(fn, w, X, reduction="sum")
    got_out, got_g, prog = traced(fn, w, X, reduction="sum")
    assert_close(got_out, want_out)
    assert_close(got_g, want_g)


# ---------------------------------------------------------------------------------------
# refusals: what cannot be traced, and why
# ---------------------------------------------------------------------------------------


def _data_slot_is_plain():
    d = Value.__dict__["data"]
    return not isinstance(d, property) and type(d).__name__ == "member_descriptor"


def test_refuses_control_flow_on_data_and_names_the_line():
    w = Value(1.0)

    def fn(x):
        s = w * x
        if s.data > 0:  # Python control flow on a value: not a program
            return s.relu()
        return s * 2.0

    with pytest.raises(TraceError) as exc:
        trace(fn, [1.0, -1.0], params=[w], cache=False)
    msg = str(exc.value)
    assert "reads .data" in msg and "depends on the sample" in msg
    assert "test_trace.py" in msg and "if s.data > 0" in msg
    assert _data_slot_is_plain()  # the watch was removed
    assert (Value(2.0) * 3).data == 6.0


def test_refuses_python_max_over_values():
    def fn(x):
        m = max(v.data for v in x)  # the classic unstable-softmax shortcut
        return sum(((v - m).exp() for v in x), Value(0.0)).log() + m
    with pytest.raises(TraceError, match="reads .data"):
        trace(fn, [[1.0, 2.0], [3.0, 0.5]], cache=False)
    assert _data_slot_is_plain()


_READERS = {
    "repr()": lambda s: "-" in repr(s),
    "str()": lambda s: str(s).startswith("Value(data=-"),
    "format()": lambda s: "-" in format(s, ""),
    "format() (an f-string)": lambda s: "-" in f"{s}",
    "bool()": lambda s: bool(s),
}


@pytest.mark.parametrize("how", sorted(_READERS))
def test_refuses_decisions_on_the_text_or_truth_of_a_value(how):
    # the decision flips between the samples' signs: without the refusal the program
    # would take the first sample's branch for every sample
    w = Value(1.0)
    read = _READERS[how]
    before = dict(Value.__dict__)

    def fn(x):
        s = w * x
        return s.relu() if read(s) else s * 2.0  # decides on the number, not with ops

    with pytest.raises(TraceError) as exc:
        trace(fn, [1.0, -1.0], params=[w], cache=False)
    msg = str(exc.value)
    assert f"reads {how.split(' ')[0]} of a value that depends on the sample" in msg
    assert "test_trace.py:" in msg and "lambda s:" in msg  # the line that decided
    assert dict(Value.__dict__) == before  # every wrapper was taken off again
    assert repr(Value(2.0)) == "Value(data=2.0, grad=0.0)"


def test_float_of_a_sample_value_is_refused():
    w = Value(1.0)
    # float() works on a Value only if the engine defines __float__; either way a traced
    # function cannot turn a sample-dependent value into a plain number
    err = TraceError if "__float__" in Value.__dict__ else TypeError
    with pytest.raises(err):
        trace(lambda x: x * float(w * x), [1.0, -1.0], params=[w], cache=False)


def test_text_of_a_parameter_is_allowed_while_tracing():
    # a parameter does not depend on the sample: printing it decides nothing per sample
    w = Value(3.0)
    seen = []

    def fn(x):
        seen.append(repr(w) + f"{w}")
        return w * x

    prog = trace(fn, [1.0, 2.0], params=[w], cache=False)
    assert prog([1.0, 2.0]).tolist() == [3.0, 6.0]
    assert seen[0] == "Value(data=3.0, grad=0.0)" * 2


def test_refuses_a_graph_whose_shape_depends_on_the_sample():
    calls = []

    def fn(x):  # decides from outside state, not from .data: caught by the two traces
        calls.append(1)
        return x.tanh() if len(calls) % 2 else x.sigmoid()

    with pytest.raises(TraceError, match="different graphs on samples 0 and 2"):
        trace(fn, [0.1, 0.2, 0.3], cache=False)

    def grows(x):
        calls.append(1)
        out = x
        for _ in range(len(calls)):
            out = out * x
        return out

    with pytest.raises(TraceError, match="different shapes"):
        trace(grows, [0.1, 0.2], cache=False)


def test_refuses_a_per_sample_constant_not_passed_as_input():
    targets = iter([1.0, -1.0])

    def fn(x):
        return (x - next(targets)) ** 2  # the target comes from outside fn's arguments

    with pytest.raises(TraceError, match="constant of the graph differs"):
        trace(fn, [0.5, 0.7], cache=False)


def test_refuses_samples_of_different_lengths_and_bad_returns():
    with pytest.raises(TraceError, match="different shapes"):
        trace(lambda x: sum(x, Value(0.0)), [[1.0, 2.0], [1.0, 2.0, 3.0]], cache=False)
    with pytest.raises(TypeError, match="must return a Value"):
        trace(lambda x: 2.0, [1.0, 2.0], cache=False)
    with pytest.raises(TraceError, match="reads .data"):
        trace(lambda x: x.data * 2, [1.0, 2.0], cache=False)
    with pytest.raises(TypeError, match="flat sequence"):
        trace(lambda x: x, [["a"]], cache=False)
    with pytest.raises(TypeError, match="needs a callable"):
        trace(3, [1.0])
    with pytest.raises(ValueError, match="empty batch"):
        trace(lambda x: x, [], cache=False)


def test_run_time_batch_errors():
    w = Value(1.0)
    prog = trace(lambda x, y: w * x[0] + y, [[1.0, 2.0]], [0.5], params=[w], cache=False)
    with pytest.raises(ValueError, match=r"expected shape \(B, 2\)"):
        prog([[1.0, 2.0, 3.0]], [1.0])
    with pytest.raises(ValueError, match="different lengths"):
        prog([[1.0, 2.0]], [1.0, 2.0])
    with pytest.raises(TypeError, match="takes 2 batch argument"):
        prog([[1.0, 2.0]])
    with pytest.raises(ValueError, match="reduction"):
        prog.backward([[1.0, 2.0]], [1.0], reduction="max")


def test_reading_data_of_a_parameter_is_refused_and_of_a_new_value_allowed():
    # a parameter's number would be frozen into the program, stale after a step
    w = Value(2.0)
    with pytest.raises(TraceError, match="reads .data of a parameter"):
        trace(lambda x: x * w.data, [1.0, 3.0], cache=False)
    # a Value made anew by each call is the same constant in every run
    prog = trace(lambda x: x * Value(2.0).data, [1.0, 3.0], cache=False)
    assert prog([1.0, 3.0]).tolist() == [2.0, 6.0]


# ---------------------------------------------------------------------------------------
# the cache and the rule for tracing again
# ---------------------------------------------------------------------------------------


def test_cache_reuses_a_trace_until_the_parameters_change():
    clear_cache()
    model = MLP(2, [3, 2], seed=0)
    X = [[0.1, 0.2], [0.3, -0.4]]
    p1 = trace(model, X)
    assert trace(model, X) is p1  # same model, same parameters: no retrace
    assert trace(model, [[9.0, 9.0]] * 5) is p1  # a new batch needs no retrace
    model.layers.append(MLP(2, [2], seed=1).layers[0])  # a new architecture...
    assert trace(model, X) is not p1  # ...has new parameters: traced again
    assert trace(model, X, cache=False) is not trace(model, X, cache=False)
    clear_cache()
    assert isinstance(p1, Program)


def test_program_reads_parameters_at_run_time():
    model = MLP(2, [3, 1], seed=0)
    X = [[0.1, 0.2]]
    prog = trace(model, X, cache=False)
    before = prog(X)[0]
    for p in model.parameters():
        p.data *= 2.0
    assert prog(X)[0] == pytest.approx(model(X[0]).data, rel=1e-12)
    assert prog(X)[0] != before


def test_batch_loss_with_a_regularizer_over_other_parameters():
    # the regulariser's parameters need not be the per-sample function's
    w, extra = Value(0.5), Value(2.0)
    X = [1.0, -2.0, 3.0]
    loss = trace_loss(lambda x: (w * x).tanh(), X, reduction="mean",
                      regularizer=lambda: extra * extra * 0.1 + w.abs(), cache=False)
    assert {id(p) for p in loss.params} == {id(w), id(extra)}
    w.grad = extra.grad = 0.0
    got = loss.backward(X)
    got_g = [w.grad, extra.grad]
    _, g, want = eager(lambda x: (w * x).tanh(), [w, extra], X, reduction="mean",
                       regularizer=lambda: extra * extra * 0.1 + w.abs())
    assert got == pytest.approx(want, rel=1e-12)
    assert got_g == pytest.approx(g.tolist(), rel=1e-12)
    assert loss.value(X) == pytest.approx(want, rel=1e-12)


def test_tracing_inside_no_grad_still_records_the_graph():
    from micrograd.engine import no_grad
    w = Value(3.0)
    with no_grad():
        prog = trace(lambda x: w * x, [1.0, 2.0], params=[w], cache=False)
    w.grad = 0.0
    assert prog.backward([1.0, 2.0], reduction="sum").tolist() == [3.0, 6.0]
    assert w.grad == 3.0


def test_the_tracer_imports_nothing_beside_or_above_its_layer():
    # trace sits beside losses, optim and data, below training, io, the web and commands
    import json
    import subprocess
    import sys
    code = "import json, sys, micrograd.trace; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    loaded = {m.split(".")[1] for m in json.loads(out) if m.startswith("micrograd.")}
    upper = {"losses", "optim", "data", "train", "train_runners", "io", "plot", "web",
             "commands", "cli"}
    assert "engine" in loaded and not loaded & upper
