"""The code listings of seeds 002 and 003 run unchanged and print the seeds' numbers.

Inside each test, the lines between ``# --- listing`` and ``# --- end`` are the seed's
listing as printed (only laid out on several lines); the assertions read what it printed.
"""

import math

from micrograd.engine import Value


def printed(capsys):
    return capsys.readouterr().out.split()


# ---- seed 002, section 02: the slope by nudging (plain Python) ----


def test_002_slope_of_a_parabola_by_nudging(capsys):
    # --- listing
    def f(x): return 3*x**2 - 4*x + 5  # noqa: E704
    h = 0.0001
    x = 3.0
    slope = (f(x + h) - f(x)) / h
    print(slope)  # ≈ 14.0 (and indeed f'(x) = 6x − 4, so f'(3) = 14)
    # --- end
    (out,) = printed(capsys)
    assert abs(float(out) - 14.0) < 1e-3  # one-sided difference: 14 + 3h

    # the nudge check, then the same function on a Value: backward gives 14 exactly
    v = Value(3.0)
    f(v).backward()
    assert v.grad == 14.0


def test_002_slopes_of_a_times_b_plus_c(capsys):
    # --- listing
    h = 0.0001
    a, b, c = 2.0, -3.0, 10.0
    d1 = a*b + c
    d2 = (a + h)*b + c  # nudge a
    print((d2 - d1) / h)  # -3.0 → dd/da = b
    d2 = a*(b + h) + c  # nudge b
    print((d2 - d1) / h)  # 2.0 → dd/db = a
    d2 = a*b + (c + h)  # nudge c
    print((d2 - d1) / h)  # 1.0 → dd/dc = 1
    # --- end
    slopes = [float(s) for s in printed(capsys)]
    for got, want in zip(slopes, [-3.0, 2.0, 1.0], strict=True):
        assert abs(got - want) < 1e-9

    va, vb, vc = Value(a), Value(b), Value(c)
    (va * vb + vc).backward()
    assert (va.grad, vb.grad, vc.grad) == (-3.0, 2.0, 1.0)


# ---- seed 002, section 05: backward() on the section 03 expression ----


def test_002_backward_prints_the_hand_worked_grads(capsys):
    # --- listing
    a = Value(2.0)
    b = Value(-3.0)
    c = Value(10.0)
    f = Value(-2.0)
    e = a * b  # -6
    d = e + c  # 4
    L = d * f  # -8
    L.backward()
    print(a.grad, b.grad, c.grad, f.grad)  # 6.0 -4.0 -2.0 4.0
    # --- end
    assert capsys.readouterr().out == "6.0 -4.0 -2.0 4.0\n"
    assert (e.data, d.data, L.data) == (-6.0, 4.0, -8.0)
    assert (e.grad, d.grad, L.grad) == (-2.0, -2.0, 1.0)


def test_002_the_same_thing_in_pytorch(capsys):
    # --- listing
    import torch
    a = torch.tensor([2.0], dtype=torch.double, requires_grad=True)
    b = torch.tensor([-3.0], dtype=torch.double, requires_grad=True)
    c = torch.tensor([10.0], dtype=torch.double, requires_grad=True)
    f = torch.tensor([-2.0], dtype=torch.double, requires_grad=True)
    e = a * b
    d = e + c
    L = d * f
    L.backward()
    print(a.grad.item(), b.grad.item(), c.grad.item(), f.grad.item())  # 6.0 -4.0 -2.0 4.0
    # --- end
    assert capsys.readouterr().out == "6.0 -4.0 -2.0 4.0\n"


# ---- seed 003: the hand-written topological sort and backward loop on our Values ----

# --- listing
def build_topo(root):
    order, visited = [], set()
    def visit(v):  # noqa: E306
        if v in visited: return  # noqa: E701
        visited.add(v)
        for p in v._prev: visit(p)  # noqa: E701
        order.append(v)
    visit(root)
    return order


def backward(root):
    order = build_topo(root)
    root.grad = 1.0
    for v in reversed(order):
        v._backward()  # pushes contributions to parents using +=
# --- end


def test_003_a_plus_b_times_c(capsys):
    a, b, c = Value(2.0), Value(-3.0), Value(10.0)
    e = a + b
    f = e * c
    backward(f)
    print(a.grad, b.grad, c.grad)
    assert capsys.readouterr().out == "10.0 10.0 -1.0\n"
    assert (e.data, f.data, e.grad) == (-1.0, -10.0, 10.0)


def test_003_a_times_a():
    a = Value(3.0)
    f = a * a
    backward(f)
    assert (f.data, a.grad) == (9.0, 6.0)  # 3 + 3, thanks to +=


def test_003_diamond():
    a = Value(2.0)
    b = a + 1
    c = a * 3
    d = b * c
    backward(d)
    assert (b.data, c.data, d.data, a.grad) == (3.0, 6.0, 18.0, 15.0)


def test_003_diamond_in_a_wrong_order_loses_a_path():
    """The widget's lesson: visit b before d has pushed into it, and b's path is lost."""
    a = Value(2.0)
    b = a + 1
    c = a * 3
    d = b * c
    d.grad = 1.0
    for v in [b, d, c, a]:  # b visited while its grad is still 0: wrong
        v._backward()
    assert a.grad == 9.0  # only the c path (b * 3); the right answer is 15
    order = build_topo(d)
    assert order.index(b) < order.index(d) and order.index(c) < order.index(d)


def test_003_tanh_neuron():
    x1, x2 = Value(2.0), Value(0.0)
    w1, w2 = Value(-3.0), Value(1.0)
    b = Value(6.8813735870195432)
    n = x1 * w1 + x2 * w2 + b
    o = n.tanh()
    backward(o)
    assert math.isclose(n.data, 0.8813735870195432, rel_tol=1e-15)
    assert math.isclose(o.data, math.sqrt(0.5), rel_tol=1e-15)
    # NOTE: do/dw1 = (1 - tanh(n)**2) * x1 "= 0.5 * 2 = 1.0" in the seed; in float64
    # math.tanh(n) squared is a hair above 0.5, so w1.grad is 0.9999999999999996
    assert abs(w1.grad - 1.0) < 1e-12
    assert w1.grad == (1 - math.tanh(n.data) ** 2) * 2.0
    assert w2.grad == 0.0  # x2 = 0: the bottom branch contributes nothing
    assert math.isclose(x1.grad, -1.5, rel_tol=1e-14)
    assert math.isclose(x2.grad, 0.5, rel_tol=1e-14)

    # backward() gives the very same numbers as the seed's loop
    grads = [v.grad for v in (x1, x2, w1, w2, b)]
    for v in (x1, x2, w1, w2, b):
        v.grad = 0.0
    o.backward()
    assert [v.grad for v in (x1, x2, w1, w2, b)] == grads
