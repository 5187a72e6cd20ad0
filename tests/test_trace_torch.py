"""The traced program on PyTorch tensors: the NumPy backend's numbers on the CPU in
float64 (op by op at the edges, random graphs, the demo model, a loss with its
regularizer), and on a GPU behind the ``gpu`` marker (deselected by default; run it
with ``pytest -m gpu`` where CUDA exists)."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given
from opinfo import elementwise_cases
from hypothesis import strategies as st

from micrograd import ops
from micrograd.engine import Value
from micrograd.nn import MLP
from micrograd.trace import TracedAdam, TraceError, np_forward, trace, trace_loss
from micrograd.trace.numpy_backend import NUMPY
from micrograd.trace.torch_backend import TORCH, TORCH_FORWARD

from test_trace import _build, _demo, _moons, _op_fn, _same, recipes


def _both(fn, params, *batches, reduction="mean", **kw):
    """Outputs and grads of the NumPy and the torch program of ``fn``."""
    res = []
    for backend in ("numpy", "torch"):
        prog = trace(fn, *batches, params=params, cache=False, backend=backend, **kw)
        for p in params:
            p.grad = 0.0
        out = prog.backward(*batches, reduction=reduction)
        res.append((out, np.array([p.grad for p in params])))
    return res


def _agree(a, b, rtol=1e-12):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-300, equal_nan=True)


@pytest.mark.parametrize("key", sorted(ops.BUILTIN))
def test_every_op_agrees_with_the_numpy_backend_at_the_edges(key):
    op = ops.BUILTIN[key]
    cases = elementwise_cases(op)
    bad = []
    with np.errstate(all="ignore"):
        for xs, arg in cases:
            nx = [np.array([x]) for x in xs]
            tx = [torch.tensor([x], dtype=torch.float64) for x in xs]
            want = np_forward(key, tuple(nx), arg)
            got = TORCH_FORWARD[key](*tx, arg) if op.has_arg else TORCH_FORWARD[key](*tx)
            if not _same(float(got[0]), float(want[0])):
                bad.append(("forward", xs, arg, float(got[0]), float(want[0])))
                continue
            for up in (3.0, math.inf, math.nan):
                w = ops.contributions(op, NUMPY, np.array([up]), nx, want, arg)
                g = ops.contributions(op, TORCH, torch.tensor([up], dtype=torch.float64),
                                      tx, got, arg)
                for i, (a, b) in enumerate(zip(g, w)):
                    a = float(torch.as_tensor(a).reshape(-1)[0])
                    b = float(np.broadcast_to(b, (1,))[0])
                    if not _same(a, b):
                        bad.append((f"d/dx{i} upstream {up}", xs, arg, a, b))
    assert not bad, f"{len(bad)} disagreements, first: {bad[:5]}"


@pytest.mark.parametrize("key", sorted(ops.BUILTIN))
def test_traced_on_torch_equals_numpy_on_every_op(key):
    w, b = Value(0.7), Value(-0.3)
    X = np.random.default_rng(1).uniform(-2, 2, size=(9, 2))
    (out_n, g_n), (out_t, g_t) = _both(_op_fn(key, w, b), [w, b], X, reduction="sum")
    _agree(out_t, out_n)
    _agree(g_t, g_n)


@given(recipe=recipes(), seed=st.integers(0, 2**16), batch=st.integers(1, 6))
def test_random_graphs_torch_equals_numpy(recipe, seed, batch):
    rng = np.random.default_rng(seed)
    params = [Value(float(v)) for v in rng.uniform(-1, 1, size=3)]
    X = rng.uniform(-2, 2, size=(batch, 2))
    (out_n, g_n), (out_t, g_t) = _both(lambda x: _build(recipe, params, x), params, X)
    _agree(out_t, out_n, rtol=1e-11)
    _agree(g_t, g_n, rtol=1e-11)


def test_demo_loss_with_regularizer_and_adam_on_torch():
    X, Y = _moons(40)
    runs = []
    for backend in ("numpy", "torch"):
        model, sample_loss, l2 = _demo()
        loss = trace_loss(sample_loss, X, Y, regularizer=l2, cache=False, backend=backend)
        with TracedAdam(loss, lr=0.01) as opt:
            losses = [opt.step(X, Y) for _ in range(5)]
        runs.append((losses, [p.data for p in model.parameters()]))
    (ln, pn), (lt, pt) = runs
    _agree(lt, ln)
    _agree(pt, pn)


def test_parameters_only_rows_inside_the_per_sample_graph_on_torch():
    w = [Value(v) for v in (0.5, -1.5, 2.0)]

    def fn(x):
        r = sum(p * p for p in w)  # its own dense row, with parameters as inputs
        return (w[0] * x[0] + w[1] * x[1] + r).tanh() * x[1] + r

    X = np.random.default_rng(6).normal(size=(5, 2))
    (out_n, g_n), (out_t, g_t) = _both(fn, w, X, reduction="sum")
    _agree(out_t, out_n)
    _agree(g_t, g_n)


def test_model_outputs_on_torch():
    model = MLP(3, [5, 2], seed=3)
    X = np.random.default_rng(2).normal(size=(11, 3))
    got = trace(model, X, backend="torch", cache=False)(X)
    want = trace(model, X, cache=False)(X)
    _agree(got, want)


def test_the_cache_keeps_one_program_per_backend():
    from micrograd.trace import clear_cache
    clear_cache()
    model = MLP(2, [3, 1], seed=0)
    X = [[0.1, 0.2], [0.3, -0.4]]
    p_np, p_t = trace(model, X), trace(model, X, backend="torch")
    assert p_np is not p_t and (p_np.backend, p_t.backend) == ("numpy", "torch")
    assert trace(model, X, backend="torch") is p_t
    clear_cache()


def test_bad_backend_and_a_user_op_without_a_torch_kernel():
    w = Value(1.0)
    with pytest.raises(ValueError, match="backend must be 'numpy' or 'torch'"):
        trace(lambda x: w * x, [1.0], params=[w], backend="jax")
    with pytest.raises(ValueError, match="device"):
        trace(lambda x: w * x, [1.0], params=[w], device="cpu")
    from micrograd.engine import define_op
    cube = define_op("cube_torch_test", lambda x: x * x * x,
                     lambda m, g, x, out: (g * 3.0 * x * x,),
                     np_forward=lambda x: x * x * x)
    with pytest.raises(TraceError, match="'cube_torch_test' has no torch forward"):
        trace(lambda x: cube(w * x), [1.0, 2.0], params=[w], backend="torch", cache=False)


@pytest.mark.gpu
def test_the_traced_program_runs_on_a_gpu():
    # deselected by default (addopts -m "not gpu"); `pytest -m gpu` runs it on CUDA
    assert torch.cuda.is_available(), "this test needs a CUDA device"
    X, Y = _moons(64)
    model, sample_loss, l2 = _demo()
    gpu = trace_loss(sample_loss, X, Y, regularizer=l2, cache=False, backend="torch",
                     device="cuda")
    cpu = trace_loss(sample_loss, X, Y, regularizer=l2, cache=False)
    _agree(gpu.value(X, Y), cpu.value(X, Y), rtol=1e-10)
