"""The public API of micrograd.autodiff: shapes, types, errors, nesting, .grad hygiene,
gradcheck's report, and the docs page's examples."""

import doctest
import math
from pathlib import Path

import pytest

from micrograd import autodiff, ops
from micrograd import gradcheck as gradcheck_module
from micrograd.autodiff import (backward, grad, gradients, hessian, hvp, jacfwd, jacrev, jvp,
                                value_and_grad)
from micrograd.engine import Value, no_grad
from micrograd.gradcheck import GradcheckError, gradcheck, gradcheck_report
from micrograd.nn import MLP

ROOT = Path(__file__).resolve().parents[1]


def f2(x, y):  # runs with either argument a plain float (argnums leaves the other alone)
    return (x * y).tanh() + x ** 3 * (y * x).exp()


def f2_torch(x, y):  # f2 on tensors, through the tensors' own tanh and exp
    return (x * y).tanh() + x ** 3 * (y * x).exp()


def t64(torch, *xs):
    return [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]


# ---- grad / value_and_grad ------------------------------------------------------------

def test_grad_floats_in_floats_out_and_argnums(torch):
    x, y = 0.7, -0.4
    tx, ty = t64(torch, x, y)
    gx, gy = torch.autograd.grad(f2_torch(tx, ty), [tx, ty])
    assert type(grad(f2)(x, y)) is float
    assert math.isclose(grad(f2)(x, y), gx.item(), rel_tol=1e-14)
    assert math.isclose(grad(f2, argnums=1)(x, y), gy.item(), rel_tol=1e-14)
    g = grad(f2, argnums=(1, 0))(x, y)
    assert isinstance(g, tuple) and len(g) == 2
    assert math.isclose(g[0], gy.item(), rel_tol=1e-14)
    assert math.isclose(g[1], gx.item(), rel_tol=1e-14)
    v, g = value_and_grad(f2)(x, y)
    assert math.isclose(v, f2_torch(tx, ty).item(), rel_tol=1e-12)
    assert grad(lambda a: 3)(1.0) == 0.0  # a constant function
    assert grad(lambda a, n: a ** n)(2.0, 3) == 12.0  # a non-differentiated argument
    assert grad(lambda a, *, k: a * k)(2.0, k=5.0) == 5.0


def test_grad_on_values_gives_a_graph_linked_to_them(torch):
    x, y = Value(0.7), Value(-0.4)
    gx = grad(f2)(x, y)
    assert isinstance(gx, Value)
    assert math.isclose(gx.data, grad(f2)(0.7, -0.4), rel_tol=1e-15)
    # d/dy (df/dx) through the returned graph, against torch
    (dyx,) = gradients(gx, [y])
    tx, ty = t64(torch, 0.7, -0.4)
    (tgx,) = torch.autograd.grad(f2_torch(tx, ty), [tx], create_graph=True)
    (tdyx,) = torch.autograd.grad(tgx, [ty])
    assert math.isclose(dyx.data, tdyx.item(), rel_tol=1e-13)
    assert x.grad == 0.0 and y.grad == 0.0  # nothing wrote .grad


def test_grad_works_inside_no_grad_and_leaves_the_mode_alone():
    with no_grad():
        assert grad(lambda a: a * a)(3.0) == 6.0
        assert (Value(1.0) * 2)._prev == ()  # still no graph outside the transform


def test_grad_of_grad_and_perturbation_confusion():
    assert grad(grad(lambda x: x.sin()))(0.5) == -math.sin(0.5)
    # d/dx [ d/dy (x*y) at y = x ] = d/dx x = 1, not 2: the inner derivative is taken
    # with respect to the inner argument only, although it is the very same Value
    inner = lambda x: grad(lambda y: x * y)(x)  # noqa: E731
    assert grad(inner)(3.0) == 1.0
    assert grad(inner)(Value(3.0)).data == 1.0
    # a closure over an outer variable with a float argument still nests
    outer = lambda y: grad(lambda x: x * x * y)(2.0)  # noqa: E731  (d/dy 4y = 4)
    assert grad(outer)(3.0) == 4.0


@pytest.mark.parametrize("bad,err", [(1.5, TypeError), (-1, ValueError), ((0, 0), ValueError),
                                     ((), TypeError), ("0", TypeError), (True, TypeError)])
def test_grad_rejects_bad_argnums(bad, err):
    with pytest.raises(err, match="argnums"):
        grad(f2, argnums=bad)


def test_grad_errors_name_the_problem():
    with pytest.raises(TypeError, match="argument 0 must be a number or a Value, got str"):
        grad(f2)("1.0", 2.0)
    with pytest.raises(TypeError, match="argument 0 .* got bool"):
        grad(f2)(True, 2.0)
    with pytest.raises(TypeError, match="argnums includes 1 but the function was called "
                                        "with 1 positional"):
        grad(lambda x: x, argnums=1)(1.0)
    with pytest.raises(TypeError, match="one scalar .* got list; for several outputs use"):
        grad(lambda x: [x, x])(1.0)


# ---- gradients / backward: .grad hygiene ------------------------------------------------

def test_gradients_touches_no_grad_and_handles_unused_and_interior():
    a, b = Value(1.5), Value(-2.0)
    a.grad = 7.0
    h = a * b
    y = h.tanh() + a
    ga, gb, gh, unused = gradients(y, [a, b, h, Value(3.0)])
    t = 1 - math.tanh(-3.0) ** 2
    assert math.isclose(ga.data, t * -2.0 + 1.0, rel_tol=1e-15)
    assert math.isclose(gb.data, t * 1.5, rel_tol=1e-15)
    assert math.isclose(gh.data, t, rel_tol=1e-15)
    assert unused.data == 0.0
    assert (a.grad, b.grad, h.grad, y.grad) == (7.0, 0.0, 0.0, 0.0)
    assert isinstance(gradients(y, a), Value)  # a single input gives a single Value
    # a vector-Jacobian product over several outputs
    (g,) = gradients([a * a, a.exp()], [a], grad_outputs=[2.0, -1.0])
    assert math.isclose(g.data, 2.0 * 3.0 - math.exp(1.5), rel_tol=1e-14)


def test_gradients_errors():
    with pytest.raises(TypeError, match=r"inputs\[0\] must be a Value, got float"):
        gradients(Value(1.0), [1.0])
    with pytest.raises(ValueError, match="2 outputs but 1 grad_outputs"):
        gradients([Value(1.0), Value(2.0)], [Value(1.0)], grad_outputs=[1.0])
    with pytest.raises(TypeError, match=r"outputs\[0\] must be a Value or a number, got str"):
        gradients("y", [Value(1.0)])


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_backward_create_graph_matches_torch_pattern(torch):
    # y.backward(create_graph=True); g = x.grad; x.grad = 0; g.backward(): torch's recipe
    x, w = Value(0.8), Value(-1.3)
    y = (x * w).sigmoid() * x.log()
    backward(y, create_graph=True)
    gx, gw = x.grad, w.grad
    assert isinstance(gx, Value) and isinstance(y.grad, Value)
    tx, tw = t64(torch, 0.8, -1.3)
    ty = torch.sigmoid(tx * tw) * torch.log(tx)
    ty.backward(create_graph=True)
    assert math.isclose(gx.data, tx.grad.item(), rel_tol=1e-14)
    assert math.isclose(gw.data, tw.grad.item(), rel_tol=1e-14)
    tgx = tx.grad
    tx.grad, tw.grad = None, None
    tgx.backward()
    x.grad, w.grad = 0.0, 0.0
    gx.backward()
    assert math.isclose(x.grad, tx.grad.item(), rel_tol=1e-13)
    assert math.isclose(w.grad, tw.grad.item(), rel_tol=1e-13)


def test_backward_create_graph_accumulates_into_leaves():
    x = Value(2.0)
    backward(x * x, create_graph=True)
    backward(x * x * x, create_graph=True)  # leaves accumulate, as in PyTorch
    assert isinstance(x.grad, Value) and x.grad.data == 4.0 + 12.0
    assert gradients(x.grad, x).data == 2.0 + 12.0  # d/dx (2x + 3x^2)
    x.grad = 1.0  # a float already there is kept and added
    backward(x * 3.0, create_graph=True)
    assert x.grad.data == 4.0


def test_backward_errors():
    with pytest.raises(TypeError, match="backward needs a Value, got float"):
        backward(1.0)
    with pytest.raises(TypeError, match="grad must be a number or a Value, got str"):
        backward(Value(1.0), "1")


# ---- Jacobians, Hessians, HVP against torch ---------------------------------------------

def test_hessian_and_hvp_match_torch(torch):
    xs = (0.7, -0.4)
    H = hessian(f2)(*xs)
    Ht = torch.autograd.functional.hessian(f2_torch, tuple(
        torch.tensor(x, dtype=torch.float64) for x in xs))
    for i in range(2):
        for j in range(2):
            assert math.isclose(H[i][j], Ht[i][j].item(), rel_tol=1e-13)
    assert math.isclose(hessian(f2, argnums=1)(*xs), Ht[1][1].item(), rel_tol=1e-13)
    v = (0.3, -2.0)
    hv = hvp(f2, xs, v)
    _, hvt = torch.autograd.functional.hvp(
        f2_torch, tuple(torch.tensor(x, dtype=torch.float64) for x in xs),
        tuple(torch.tensor(x, dtype=torch.float64) for x in v))
    for i in range(2):
        assert math.isclose(hv[i], hvt[i].item(), rel_tol=1e-13)


def test_jacobian_shapes():
    f = lambda x, y: [x * y, x + y, x.exp()]  # noqa: E731
    J = jacrev(f)(2.0, 3.0)
    assert J == jacfwd(f)(2.0, 3.0)
    assert J[:2] == [(3.0, 2.0), (1.0, 1.0)] and J[2][1] == 0.0
    assert jacrev(f, argnums=0)(2.0, 3.0) == jacfwd(f, argnums=0)(2.0, 3.0) == [
        3.0, 1.0, math.exp(2.0)]
    assert jacrev(lambda x, y: x * y)(2.0, 3.0) == (3.0, 2.0)
    assert jacfwd(lambda x, y: x * y, argnums=1)(2.0, 3.0) == 2.0


def test_jvp_shapes_and_values_in_values_out():
    out, t = jvp(lambda x, y: x * y, (2.0, 3.0), (1.0, 0.5))
    assert (out, t) == (6.0, 3.0 + 1.0)
    outs, ts = jvp(lambda x: (x.sin(), x), (0.0,), (2.0,))
    assert outs == (0.0, 0.0) and ts == (2.0, 2.0)
    # Value primals: the tangent is a graph, differentiable with respect to them
    x = Value(0.4)
    _, t = jvp(lambda a: a.tanh(), (x,), (1.0,))
    assert isinstance(t, Value)
    assert math.isclose(gradients(t, x).data, -2 * math.tanh(0.4) * (1 - math.tanh(0.4) ** 2),
                        rel_tol=1e-14)


def test_jvp_errors():
    with pytest.raises(ValueError, match="2 primals but 1 tangents"):
        jvp(f2, (1.0, 2.0), (1.0,))
    with pytest.raises(TypeError, match="tuples or lists"):
        jvp(f2, 1.0, 1.0)
    with pytest.raises(TypeError, match=r"tangents\[0\] must be a number or a Value, got str"):
        jvp(lambda x: x, (1.0,), ("1",))


def test_transforms_work_on_an_mlp():
    # an nn model as a function of its input; forward and reverse agree with torch-free
    # central differences via gradcheck
    model = MLP(2, [4, 1], style="lecture", seed=0)  # tanh: smooth, so second order
    f = lambda a, b: model([a, b])  # noqa: E731
    assert gradcheck(f, [0.3, -0.8])
    assert gradcheck(grad(f, argnums=(0, 1)), [0.3, -0.8])


# ---- gradcheck ------------------------------------------------------------------------------

def test_gradcheck_passes_and_checks_second_order():
    assert gradcheck(f2, [0.7, -0.4]) is True
    assert gradcheck(grad(f2, argnums=(0, 1)), [0.7, -0.4])
    assert gradcheck(lambda x: [x.sin(), x * x], [0.3])
    assert gradcheck_report(f2, [0.7, -0.4]).ok


def test_gradcheck_names_a_wrong_unary_rule(monkeypatch):
    # a deliberately wrong rule: d tanh = 1 - out (should be 1 - out^2)
    monkeypatch.setattr(ops.TANH, "grad", lambda m, g, x, out: (g * (1.0 - out),))
    f = lambda x, y: (x * y).tanh() + y.exp()  # noqa: E731
    with pytest.raises(GradcheckError) as info:
        gradcheck(f, [0.5, 1.5])
    report = info.value.report
    assert not report.ok
    assert {(m["name"], m["mode"]) for m in report.mismatches} == {
        ("x", "reverse"), ("x", "forward"), ("y", "reverse"), ("y", "forward")}
    assert [o["key"] for o in report.ops] == ["tanh"]
    assert report.ops[0]["inputs"] == (0.75,)
    assert "op 'tanh'" in str(info.value) and "d out[0] / d x" in str(info.value)


def test_gradcheck_names_a_wrong_binary_rule_and_operand(monkeypatch):
    monkeypatch.setattr(ops.MUL, "grad",
                        lambda m, g, x, y, out: (g * y, g * y))  # d/dy should be x
    with pytest.raises(GradcheckError) as info:
        gradcheck(lambda a, b: (a * b).sin(), [0.5, 2.0])
    report = info.value.report
    assert [m["name"] for m in report.mismatches if m["mode"] == "reverse"] == ["b"]
    assert [(o["key"], o["input"]) for o in report.ops] == [("mul", 1)]


def test_gradcheck_explains_a_dependency_outside_the_graph():
    # x * x.data: the graph sees a constant where f has a second x
    report = gradcheck_report(lambda x: x * x.data, [1.5])
    assert not report.ok and report.ops == [] and report.kinks == []
    assert "outside the graph" in str(report)


def test_gradcheck_reports_a_kink():
    report = gradcheck_report(lambda x: (x - 1.0).relu(), [1.0])
    assert not report.ok
    assert [k["key"] for k in report.kinks] == ["relu"]
    assert "kink" in str(report)


def test_gradcheck_errors():
    with pytest.raises(ValueError, match="not finite"):
        gradcheck(lambda x: x.log(), [-1.0])
    with pytest.raises(TypeError, match=r"inputs\[0\] must be a number or a Value, got str"):
        gradcheck(f2, ["a", 1.0])
    with pytest.raises(ValueError, match="eps must be > 0"):
        gradcheck(f2, [1.0, 1.0], eps=0.0)
    with pytest.raises(ValueError, match="unknown mode"):
        gradcheck(f2, [1.0, 1.0], modes=("sideways",))


def test_deep_graph_needs_no_recursion():
    x = Value(0.1)
    y = x
    for _ in range(5000):
        y = (y * 0.5).sin() + 0.5 * y
    assert math.isfinite(grad(lambda a: _chain(a, 5000))(0.1))
    assert math.isfinite(gradients(y, x, create_graph=True).data)


def _chain(a, n):
    for _ in range(n):
        a = (a * 0.5).sin() + 0.5 * a
    return a


# ---- docs -----------------------------------------------------------------------------------

def test_module_docstrings_run():
    result = doctest.testmod(autodiff)
    assert result.attempted > 10 and result.failed == 0
    result = doctest.testmod(gradcheck_module)
    assert result.attempted >= 2 and result.failed == 0


def test_docs_page_examples_print_what_the_page_says():
    result = doctest.testfile(str(ROOT / "docs" / "derivatives.md"), module_relative=False,
                              optionflags=doctest.ELLIPSIS)
    assert result.attempted > 10 and result.failed == 0


def test_value_backward_create_graph_gives_differentiable_grads(torch):
    # Value.backward(create_graph=True) is autodiff.backward: x.grad is a Value graph
    x = Value(0.3)
    y = x.tanh() * x
    y.backward(create_graph=True)
    g = x.grad
    assert isinstance(g, Value)
    xt = torch.tensor(0.3, dtype=torch.double, requires_grad=True)
    (dt,) = torch.autograd.grad(xt.tanh() * xt, xt, create_graph=True)
    (d2t,) = torch.autograd.grad(dt, xt)
    assert math.isclose(g.data, dt.item(), rel_tol=1e-13)
    x.grad = 0.0
    g.backward()
    assert math.isclose(x.grad, d2t.item(), rel_tol=1e-12)


def test_huge_integer_arguments_become_inf_like_value():
    # Value(10**400) is inf (IEEE), so grad of x*x there is 2*inf = inf, not OverflowError
    assert grad(lambda x: x * x)(10**400) == math.inf
