"""A primitive added from user code (``define_op``) is known everywhere at once: Value
methods, backward, higher order, forward mode, the tracer, gradcheck, the expression
language and the graph views. The worked examples of docs/engine.md, against PyTorch."""

import math
import random

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from micrograd import ops, viz
from micrograd.autodiff import grad, jvp
from micrograd.gradcheck import gradcheck, gradcheck_report
from micrograd.engine import Value, define_op
from micrograd.expr import parse
from micrograd.trace import NUMPY, TraceError, trace

cube = define_op("cube", lambda x: x**3 if abs(x) < 1e100 else math.copysign(math.inf, x),
                 lambda m, g, x, out: (g * (3.0 * x * x),),
                 formula="x**3", rule="d x**3/dx = 3 x**2", np_forward=lambda x: x**3)

C = math.sqrt(2.0 / math.pi)


def _gelu(x):
    return 0.5 * x * (1.0 + math.tanh(C * (x + 0.044715 * x**3)))


def _gelu_rule(m, g, x, out):
    # d/dx 0.5 x (1 + tanh u), u = C (x + 0.044715 x^3)
    t = m.tanh(C * (x + 0.044715 * x * x * x))
    du = C * (1.0 + 3.0 * 0.044715 * x * x)
    return (g * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du),)


gelu = define_op("gelu", _gelu, _gelu_rule, formula="gelu(x)",
                 rule="d gelu(x)/dx = (1 + tanh u)/2 + x (1 - tanh^2 u) u'/2",
                 np_forward=lambda x: 0.5 * x * (1.0 + np.tanh(C * (x + 0.044715 * x**3))))


def t64(x):
    return torch.tensor(x, dtype=torch.float64, requires_grad=True)


@pytest.mark.parametrize("x", [-2.5, -0.3, 0.0, 0.7, 1.9])
def test_cube_and_gelu_match_torch_with_a_non_unit_upstream(x):
    for ours, theirs in [(cube, lambda t: t**3),
                         (gelu, lambda t: F.gelu(t, approximate="tanh"))]:
        v = Value(x)
        y = ours(v)
        ((y + 1.0) ** 2).backward()
        t = t64(x)
        ty = theirs(t)
        ((ty + 1.0) ** 2).backward()
        assert math.isclose(y.data, ty.item(), rel_tol=1e-12, abs_tol=1e-15)
        assert math.isclose(v.grad, t.grad.item(), rel_tol=1e-10, abs_tol=1e-13)


def test_a_defined_op_is_a_value_method_and_in_the_table():
    x = Value(2.0)
    assert x.cube().data == 8.0 and x.gelu()._fn is ops.OPS["gelu"]
    assert ops.OPS["cube"].formula == "x**3" and "3 x**2" in ops.OPS["cube"].rule
    assert "cube" in ops.FUNCTIONS


def test_second_derivatives_match_torch():
    for ours, theirs in [(cube, lambda t: t**3),
                         (gelu, lambda t: F.gelu(t, approximate="tanh"))]:
        for x in (-1.3, 0.4, 2.2):
            d2 = grad(grad(ours))(x)
            t = t64(x)
            (g1,) = torch.autograd.grad(theirs(t), t, create_graph=True)
            (g2,) = torch.autograd.grad(g1, t)
            assert math.isclose(d2, g2.item(), rel_tol=1e-9, abs_tol=1e-12)


def test_forward_mode_runs_the_same_rule():
    out, t = jvp(lambda x: gelu(x) * x, (0.8,), (1.5,))
    want = grad(lambda x: gelu(x) * x)(0.8) * 1.5
    assert math.isclose(t, want, rel_tol=1e-12)


def test_gradcheck_passes_and_catches_a_wrong_rule(monkeypatch):
    assert gradcheck(lambda x, y: gelu(x * y) + cube(y), [0.3, -1.2])
    monkeypatch.setattr(ops.OPS["cube"], "grad", lambda m, g, x, out: (g * (2.0 * x * x),))
    report = gradcheck_report(lambda x: cube(x), [1.5])
    assert not report.ok and [o["key"] for o in report.ops] == ["cube"]


def test_the_tracer_runs_a_defined_op_with_its_numpy_forward():
    rng = random.Random(0)
    w = Value(0.7)
    X = [[rng.uniform(-2, 2)] for _ in range(16)]

    def loss(x):
        return gelu(x[0] * w) + cube(x[0] - w)

    prog = trace(loss, X, params=[w])
    traced = prog.backward(X, reduction="sum")
    w.grad = 0.0
    eager = 0.0
    for x in X:
        y = loss([Value(x[0])])
        y.backward()
        eager += y.data
    assert math.isclose(float(np.sum(traced)), eager, rel_tol=1e-12)
    want = w.grad
    w.grad = 0.0
    prog.backward(X, reduction="sum")
    assert math.isclose(w.grad, want, rel_tol=1e-12)


def test_a_defined_op_without_numpy_forward_is_a_clear_trace_error():
    square = define_op("square_no_np", lambda x: x * x, lambda m, g, x, out: (g * 2.0 * x,))
    w = Value(0.5)
    with pytest.raises(TraceError, match="'square_no_np' has no NumPy forward"):
        trace(lambda x: square(x[0] * w), [[1.0], [2.0]], params=[w])


def test_the_expression_language_and_the_drawing_know_it():
    root = parse("y = cube(x) + gelu(x)", {"x": 2.0})
    root.backward()
    assert math.isclose(root.data, 8.0 + _gelu(2.0))
    svg = viz.to_svg(root)
    assert "cube" in svg and "gelu" in svg


def test_every_math_namespace_offers_the_same_functions():
    names = {n for n in dir(ops.FLOAT) if not n.startswith("_")}
    assert {"div", "pow", "exp", "log", "sin", "cos", "tanh", "sigmoid", "sqrt", "sign",
            "le", "ge", "eq", "both", "where"} <= names
    for m in (ops.VALUE, NUMPY):
        missing = names - {n for n in dir(m) if not n.startswith("_")}
        assert not missing, (type(m).__name__, missing)


def test_define_op_refuses_clear_mistakes():
    with pytest.raises(ValueError, match="public identifier"):
        define_op("not a name", abs, lambda m, g, x, out: (g,))
    with pytest.raises(ValueError, match="built-in"):
        define_op("tanh", math.tanh, lambda m, g, x, out: (g,), method=False)
    with pytest.raises(ValueError, match="already has a method 'backward'"):
        define_op("backward", abs, lambda m, g, x, out: (g,))
    with pytest.raises(ValueError, match="arity"):
        define_op("triple", lambda a, b, c: a, lambda m, g, a, b, c, out: (g, g, g), arity=3)
    with pytest.raises(TypeError, match="takes 1 input"):
        cube(Value(1.0), Value(2.0))
    with pytest.raises(TypeError, match="input 0 must be a Value or a real number, got str"):
        cube("2")


def test_a_forward_that_returns_no_number_is_named():
    bad = define_op("bad_forward", lambda x: "oops", lambda m, g, x, out: (g,))
    with pytest.raises(TypeError, match="the forward of op 'bad_forward'.*str"):
        bad(Value(1.0))


def test_the_docs_worked_example_prints_what_the_page_says():
    import doctest
    import pathlib

    page = pathlib.Path(__file__).resolve().parents[1] / "docs" / "engine.md"
    result = doctest.testfile(str(page), module_relative=False)
    assert result.attempted >= 5 and result.failed == 0
    x = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    F.gelu(x, approximate="tanh").backward()
    assert round(x.grad.item(), 5) == 0.86737  # the page's number is torch's


# a rule must return one contribution per input: too many was dropped, too few failed to
# unpack without naming the op
two_out = define_op("two_out", lambda x: 2.0 * x, lambda m, g, x, out: (g * 2.0, g),
                    np_forward=lambda x: 2.0 * x)
one_of_two = define_op("one_of_two", lambda x, y: x * y, lambda m, g, x, y, out: (g * y,),
                       arity=2, np_forward=lambda x, y: x * y)
bare = define_op("bare", lambda x: 2.0 * x, lambda m, g, x, out: g * 2.0,
                 np_forward=lambda x: 2.0 * x)

WRONG = [
    (lambda x: two_out(x), ValueError, "op 'two_out': its rule returned 2 contributions for "
                                       "1 input: return one per input, in order"),
    (lambda x: one_of_two(x, x * 3.0), ValueError,
     "op 'one_of_two': its rule returned 1 contribution for 2 inputs"),
    (lambda x: bare(x), TypeError, r"op 'bare': its rule must return one contribution per "
                                   r"input in a tuple, such as \(g \* ...,\), got (float|ndarray)"),
]


@pytest.mark.parametrize("fn, err, message", WRONG, ids=["too many", "too few", "bare"])
@pytest.mark.parametrize("how", ["backward", "create_graph", "jvp", "traced"])
def test_a_rule_with_the_wrong_number_of_contributions_is_named(fn, err, message, how):
    x = Value(1.5)
    with pytest.raises(err, match=message):
        if how == "backward":
            (fn(x) * 1.0).backward()
        elif how == "create_graph":
            fn(x).backward(create_graph=True)
        elif how == "jvp":
            jvp(lambda v: fn(v), (1.5,), (1.0,))
        elif how == "traced":
            w = Value(0.5)
            trace(lambda s: fn(s[0] * w), [[1.0], [2.0]], params=[w]).backward(
                [[1.0], [2.0]])
