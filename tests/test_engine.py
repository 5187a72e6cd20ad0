"""The engine's graph mechanics: reuse, order, depth, accumulation, modes, bad input."""

import ast
import gc
import math
import pathlib
import random
import subprocess
import sys
from fractions import Fraction

import pytest

from micrograd import engine, ops
from micrograd.chain_rule import sweep
from micrograd.engine import topological_order
from micrograd.engine import AnomalyError, Value, detect_anomaly, enable_grad, no_grad

SRC = pathlib.Path(engine.__file__).resolve().parent


def tensor(torch, x):
    return torch.tensor(x, dtype=torch.float64, requires_grad=True)


# ---- reused nodes: every path's contribution adds up ----


def test_square_of_a_reused_node():
    a = Value(3.0)
    (a * a).backward()
    assert a.grad == 6.0


def test_sum_of_sums():
    a = Value(1.5)
    b = a + a
    c = b + b
    c.backward()
    assert (c.data, b.grad, a.grad) == (6.0, 2.0, 4.0)


def test_diamond():
    a = Value(2.0)
    b = a + 1
    c = a * 3
    d = b * c
    d.backward()
    assert (b.data, c.data, d.data) == (3.0, 6.0, 18.0)
    assert (d.grad, c.grad, b.grad, a.grad) == (1.0, 3.0, 6.0, 15.0)


def test_prev_keeps_inputs_in_order():
    a, b = Value(2.0), Value(3.0)
    assert (a * a)._prev == (a, a)
    assert (a + b)._prev == (a, b) and (b + a)._prev == (b, a)
    assert (a ** b)._prev == (a, b)
    assert a.tanh()._prev == (a,) and (a**2)._prev == (a,)
    assert a._prev == ()


def test_op_labels():
    a, b = Value(2.0), Value(3.0)
    cases = {a + b: "+", a * b: "*", a**2: "**2", a**2.0: "**2", a**-1: "**-1",
             a**0.5: "**0.5", a**b: "**", a.tanh(): "tanh", a.relu(): "ReLU",
             a.exp(): "exp", a.log(): "log", a.sigmoid(): "sigmoid", a: ""}
    for v, label in cases.items():
        assert v._op == label


def test_hand_built_nodes_as_in_the_seeds():
    a, b = Value(2.0), Value(-3.0)
    e = Value(a.data * b.data, (a, b), "*")
    assert (e.data, e._prev, e._op) == (-6.0, (a, b), "*")
    e._op = "times"
    assert e._op == "times"
    with pytest.raises(ValueError, match="at most two inputs"):
        Value(1.0, (a, b, a), "sum3")
    with pytest.raises(TypeError, match="float"):
        Value(1.0, (a, 2.0))


def test_topo_order_puts_inputs_first_and_root_last():
    rng = random.Random(0)
    leaves = [Value(rng.uniform(-1, 1)) for _ in range(5)]
    nodes = list(leaves)
    for _ in range(200):
        x, y = rng.choice(nodes), rng.choice(nodes)
        nodes.append(rng.choice([x + y, x * y, x.tanh(), (x * 0.5).sigmoid()]))
    root = nodes[-1]
    order = topological_order(root)
    pos = {v: i for i, v in enumerate(order)}
    assert len(pos) == len(order), "a node appears twice"
    assert order[-1] is root
    for v in order:
        for p in v._prev:
            assert pos[p] < pos[v]
    # every reachable node, and only those
    seen, stack = set(), [root]
    while stack:
        v = stack.pop()
        if v not in seen:
            seen.add(v)
            stack.extend(v._prev)
    assert seen == set(order)
    assert topological_order(root) == order  # the same order every time


def random_graph(seed, n=300):
    rng = random.Random(seed)
    leaves = [Value(rng.uniform(-1, 1)) for _ in range(6)]
    nodes = list(leaves)
    unary = [Value.tanh, Value.sigmoid, Value.relu, Value.exp, Value.sin, Value.softplus]
    for _ in range(n):
        x, y = rng.choice(nodes[-20:]), rng.choice(nodes)
        pick = rng.randrange(6)
        if pick == 0:
            v = x + y
        elif pick == 1:
            v = x * y
        elif pick == 2:
            v = rng.choice(unary)(x * 0.5)
        elif pick == 3:
            v = (x * x + 1.0) ** rng.choice([0.5, -1, 2])
        elif pick == 4:
            v = x - y / (y * y + 1.0)
        else:
            v = (x.abs() + 0.5) ** y.tanh()
        nodes.append(v)
    return leaves, nodes[-1] * 1.7


@pytest.mark.parametrize("seed", range(5))
def test_fast_paths_agree_with_the_op_table(seed):
    """backward() writes the + and * rules out (engine_fast); the sweep calls every rule
    through the op table. Both must give the very same numbers."""
    leaves, root = random_graph(seed)
    root.backward()
    grads = sweep(reversed(topological_order(root)), {root: 1.0})
    assert [v.grad for v in leaves] == [grads.get(v, 0.0) for v in leaves]


@pytest.mark.parametrize("seed", range(3))
def test_random_graph_against_torch(torch, seed):
    from opinfo import SPEC  # the op table's torch twins (it imports torch)

    leaves, root = random_graph(seed, n=150)
    root.backward()
    # replay the same graph in torch by walking it in order
    ts = {}
    for v in topological_order(root):
        if v._fn is None:
            ts[v] = tensor(torch, v.data)
            continue
        args = [ts[p] for p in v._prev]
        twin = SPEC[v._fn.key]["torch"]  # the op's PyTorch twin, from the one op table
        ts[v] = twin(*args, v._arg) if v._fn.has_arg else twin(*args)
    ts[root].backward()
    assert math.isclose(ts[root].item(), root.data, rel_tol=1e-12)
    for v in leaves:
        t = ts[v].grad if v in ts else None  # None: not reached, or torch's zero grad
        assert math.isclose(v.grad, 0.0 if t is None else t.item(), rel_tol=1e-9,
                            abs_tol=1e-12)


# ---- depth: iterative, linear ----


def chain(n):
    x0, c = Value(0.0), Value(1e-6)
    x = x0
    for _ in range(n):
        x = x + c
    return x0, c, x


@pytest.mark.slow
def test_a_million_op_chain_backpropagates_each_node_once():
    # counted, not timed (benchmarks/big_inputs.py times 1e5 against 1e6): the order
    # holds each node once, and the sweep gives each its one contribution
    n = 1_000_000
    x0, c, x = chain(n)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(100)  # no RecursionError, whatever the recursion limit
    try:
        order = topological_order(x)
        x.backward()
    finally:
        sys.setrecursionlimit(old)
    assert len(order) == len({id(v) for v in order}) == n + 2  # the n sums, x0 and c
    assert order[-1] is x and {id(order[0]), id(order[1])} == {id(x0), id(c)}
    assert (x0.grad, c.grad, x.grad) == (1.0, float(n), 1.0)


def test_deep_chain_under_a_small_recursion_limit():
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(100)
    try:
        x0, c, x = chain(5000)
        x.backward()
        order = topological_order(x)
        x.zero_grad()
    finally:
        sys.setrecursionlimit(old)
    assert len(order) == 5002 and x0.grad == 0.0


def live_values():
    return sum(type(o) is Value for o in gc.get_objects())


def test_a_graph_is_freed_by_reference_counting_alone():
    gc.disable()
    try:
        before = live_values()
        x0, c, x = chain(1000)
        x.backward()
        assert live_values() == before + 1002
        del x
        assert live_values() == before + 2  # no cycles: freed without the GC
    finally:
        gc.enable()


# ---- accumulation ----


def test_two_backward_calls_accumulate_in_the_leaves():
    a = Value(2.0)
    b = a * 3
    c = b * b
    c.backward()
    assert (a.grad, b.grad) == (36.0, 12.0)
    c.backward()
    assert a.grad == 72.0  # leaves accumulate, as in torch
    # NOTE: interior nodes differ on purpose: ours hold the last pass (12), torch's
    # retained interior grads accumulate too (24)
    assert b.grad == 12.0


def test_two_backward_calls_accumulate_like_torch(torch):
    ta = tensor(torch, 2.0)
    tb = ta * 3
    tb.retain_grad()
    tc = tb * tb
    tc.backward(retain_graph=True)
    tc.backward()
    assert ta.grad.item() == 72.0 and tb.grad.item() == 24.0  # the numbers pinned above


def test_zero_grad_between_calls_gives_the_same_grads():
    a = Value(2.0)
    c = (a * 3).tanh()
    c.backward()
    first = a.grad
    a.grad = 0.0
    c.backward()
    assert a.grad == first
    c.zero_grad()
    assert a.grad == 0.0 and c.grad == 0.0


def test_backward_with_an_upstream_grad():
    a = Value(2.0)
    (a * a).backward(2.5)
    assert a.grad == 10.0


def test_backward_of_a_leaf():
    a = Value(2.0)
    a.backward()
    assert a.grad == 1.0


# ---- modes ----


def test_no_grad_builds_no_graph():
    a = Value(2.0)
    with no_grad():
        assert not engine.is_grad_enabled()
        b = (a * 3 + 1).tanh() ** 2
        with enable_grad():
            assert engine.is_grad_enabled()
            c = a * 3
        d = a * 4
    assert engine.is_grad_enabled()
    assert math.isclose(b.data, math.tanh(7.0) ** 2)
    assert b._prev == () and b._op == "" and b._fn is None
    assert d._prev == ()
    assert c._prev[0] is a and c._op == "*"
    b.backward()
    assert a.grad == 0.0


def test_modes_are_restored_after_an_exception():
    with pytest.raises(RuntimeError):
        with no_grad():
            raise RuntimeError
    assert engine.is_grad_enabled()
    with pytest.raises(RuntimeError):
        with detect_anomaly():
            raise RuntimeError
    assert (Value(1000.0).exp()).data == math.inf  # no anomaly check any more


def test_detect_anomaly_forward_names_the_op_and_its_input():
    x = Value(1000.0, label="x")
    with detect_anomaly():
        with pytest.raises(AnomalyError, match=r"exp\(x=1000\.0\)"):
            x.exp()
        with pytest.raises(AnomalyError, match="log"):
            Value(0.0).log()
        nan_in = Value(math.nan)
        assert math.isnan(nan_in.exp().data)  # only where nan/inf FIRST appears
    assert issubclass(AnomalyError, FloatingPointError)


def test_detect_anomaly_backward_names_the_op():
    a = Value(0.0, label="a")
    y = a.sqrt() * 3.0  # sqrt(0) = 0 is fine; its derivative is inf
    with detect_anomaly():
        with pytest.raises(AnomalyError, match=r"backward: op sqrt\(a=0\.0\).*inf"):
            y.backward()
    b = Value(0.0, label="b")
    z = b.log()  # built outside: the forward -inf is not checked
    with detect_anomaly():
        with pytest.raises(AnomalyError, match=r"log\(b=0\.0\)"):
            z.backward()


def test_detect_anomaly_gives_the_same_grads_when_all_is_finite():
    leaves, root = random_graph(7, n=100)
    root.backward()
    plain = [v.grad for v in leaves]
    for v in leaves:
        v.grad = 0.0
    with detect_anomaly():
        root.backward()
    assert [v.grad for v in leaves] == plain


# ---- bad input: a TypeError that names the type ----


@pytest.mark.parametrize("bad,name", [("abc", "str"), (None, "NoneType"), ([1, 2], "list"),
                                      (1 + 2j, "complex"), ({}, "dict")])
def test_value_of_a_non_number(bad, name):
    with pytest.raises(TypeError, match=name):
        Value(bad)


@pytest.mark.parametrize("expr,name", [
    (lambda a: a ** "x", "str"),
    (lambda a: a + "x", "str"),
    (lambda a: "x" - a, "str"),
    (lambda a: None * a, "NoneType"),
    (lambda a: a / [1], "list"),
    (lambda a: [1] ** a, "list"),
    (lambda a: a - None, "NoneType"),
    (lambda a: 1j * a, "complex"),
])
def test_operators_with_a_non_number(expr, name):
    with pytest.raises(TypeError, match=name):
        expr(Value(2.0))


def test_numbers_of_other_types_are_accepted():
    assert Value(3).data == 3.0 and type(Value(3).data) is float
    assert Value(True).data == 1.0
    assert Value(Fraction(1, 4)).data == 0.25
    assert Value(10**400).data == math.inf
    assert (Value(2.0) * Fraction(1, 2)).data == 1.0


def test_no_comparisons():
    with pytest.raises(TypeError):
        Value(1.0) < Value(2.0)  # noqa: B015
    a = Value(1.0)
    assert a == a and a != Value(1.0)  # identity: nodes, not numbers


# ---- operator forms ----


def test_in_place_forms_make_new_nodes():
    a, b = Value(2.0), Value(3.0)
    orig = a
    a += b
    assert a is not orig and orig.data == 2.0 and a.data == 5.0 and a._prev == (orig, b)
    a *= 2
    a -= 1
    a /= 2
    a **= 2
    assert a.data == 20.25
    a.backward()
    assert orig.grad == 9.0 and b.grad == 9.0  # d((2(x+y)-1)/2)^2 = 2 * 4.5 = 9


def test_reflected_forms():
    a = Value(2.0)
    for expr, val, grad in [(lambda a: 2 * a, 4.0, 2.0), (lambda a: 1 - a, -1.0, -1.0),
                            (lambda a: 1 / a, 0.5, -0.25), (lambda a: 3 + a, 5.0, 1.0),
                            (lambda a: 2**a, 4.0, 4.0 * math.log(2.0))]:
        a.grad = 0.0
        y = expr(a)
        y.backward()
        assert y.data == val and math.isclose(a.grad, grad, rel_tol=1e-15)


def test_unary_plus_and_repr():
    a = Value(2.0, label="a")
    assert +a is a
    assert repr(a) == "Value(data=2.0, grad=0.0, label='a')"
    assert repr(Value(-8.0)) == "Value(data=-8.0, grad=0.0)"


# ---- python -O cannot switch validation off ----


def test_no_assert_statements_in_the_package():
    offenders = []
    # the gallery's learner code is the lecture's own, its `assert` in __pow__ included:
    # it is shown and run as the mistake it is, never relied on for validation
    learner = SRC / "mistakes" / "learner.py"
    for path in sorted(p for p in SRC.rglob("*.py") if p != learner):
        tree = ast.parse(path.read_text(), str(path))
        offenders += [f"{path.name}:{n.lineno}" for n in ast.walk(tree)
                      if isinstance(n, ast.Assert)]
    assert not offenders, f"assert vanishes under python -O: {offenders}"


def test_validation_under_python_O():
    code = (
        "from micrograd.engine import Value\n"
        "from micrograd.nn import MLP\n"
        "bad = [lambda: Value('abc'), lambda: Value(2.0) ** 'x', lambda: MLP(2, 3),\n"
        "       lambda: None * Value(1.0)]\n"
        "for f in bad:\n"
        "    try:\n"
        "        f()\n"
        "    except TypeError:\n"
        "        continue\n"
        "    raise SystemExit('no TypeError under -O')\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True,
                         cwd=SRC.parent, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_importing_the_engine_does_not_import_numpy():
    code = ("import sys, micrograd.engine, micrograd.nn, micrograd.ops\n"
            "print('numpy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=SRC.parent, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_numpy_float_data_at_a_kink(np):
    # numpy.float64 has a .data attribute (a memoryview): the kink rules must read the
    # number, not that attribute (an optimizer may leave numpy scalars in .data)
    for method, expected in (("relu", 1.0), ("abs", -1.0)):
        x = Value(0.0)
        x.data = np.float64(-2.0) if method == "abs" else np.float64(2.0)
        getattr(x, method)().backward()
        assert x.grad == expected


# ---- nodes built by hand, as the lecture does, are real op nodes ----


def test_a_hand_built_node_backpropagates_like_an_operator_node():
    a, b = Value(2.0), Value(-3.0)
    e = Value(a.data * b.data, (a, b), "*")
    t = Value(math.tanh(e.data), (e,), "tanh")
    p = Value(e.data ** 2, (e,), "**2")
    (t + p).backward()
    a2, b2 = Value(2.0), Value(-3.0)
    e2 = a2 * b2
    (e2.tanh() + e2**2).backward()
    assert (a.grad, b.grad) == (a2.grad, b2.grad) and a.grad != 0.0
    assert e._fn is ops.MUL and t._fn is ops.TANH and (p._fn, p._arg) == (ops.POWC, 2)
    assert Value(-1.0, (a, b), "add")._fn is ops.ADD  # the op's key works too


def test_a_hand_built_node_that_no_rule_could_backpropagate_is_refused():
    a, b = Value(2.0), Value(3.0)
    with pytest.raises(ValueError, match="'sum3' is not an op of 2 inputs"):
        Value(5.0, (a, b), "sum3")
    with pytest.raises(ValueError, match="needs the op that made it"):
        Value(5.0, (a, b))
    with pytest.raises(ValueError, match=r"\+ of the inputs \(2.0, 3.0\) is 5.0, not 6.0"):
        Value(6.0, (a, b), "+")  # the data does not match the op: no silent wrong grads
    with pytest.raises(TypeError, match="inputs are a tuple of Values, not int"):
        Value(5.0, 5, "+")
    with pytest.raises(TypeError, match="inputs are a tuple of Values, not float"):
        (a * b)._prev = 2.0
    with pytest.raises(TypeError, match="must be Values, got float"):
        Value(5.0, (a, 3.0), "+")


# ---- what a user of PyTorch expects ----


def test_bool_of_a_value_is_its_truth_as_a_number():
    assert not Value(0.0) and not Value(-0.0) and Value(2.0) and Value(math.nan)


def test_a_label_must_be_text():
    with pytest.raises(TypeError, match="label must be a str, got int"):
        Value(1.0, label=5)
    assert Value(1.0, label=None).label == ""


def test_backward_takes_a_number_not_an_array(np):
    x = Value(2.0)
    with pytest.raises(TypeError, match="backward's grad needs a real number.*ndarray"):
        (x * x).backward(grad=np.array([1.0, 2.0]))
    (x * x).backward(grad=np.float64(2.0))
    assert type(x.grad) is float and x.grad == 8.0


def test_huge_ints_become_signed_infinities():
    assert Value(10**400).data == math.inf
    assert Value(-(10**400)).data == -math.inf
    assert (Value(1.0) * -(10**400)).data == -math.inf


def test_the_root_is_seeded_with_plus_equals():
    # backward() twice from a leaf: its grad accumulates, as every leaf's does
    x = Value(3.0)
    x.backward()
    x.backward(grad=2.0)
    assert x.grad == 3.0


# ---- detect_anomaly checks what reaches the grads ----


def test_anomaly_checks_the_contribution_not_the_local_derivative():
    # local derivative 1e300 is finite; the contribution 1e300 * 1e300 = inf is not
    a, b = Value(1e300), Value(1e-300)
    y = (a * b) * 1e300
    with detect_anomaly():
        with pytest.raises(AnomalyError, match="contribution inf"):
            y.backward()


def test_anomaly_does_not_blame_an_op_for_a_nan_it_was_given():
    with detect_anomaly():
        y = Value(math.nan) + 1.0  # the nan came in: not this op's doing
        assert math.isnan(y.data)
        with pytest.raises(AnomalyError, match="from finite inputs"):
            Value(1.0) / 0.0


def test_anomaly_backward_gives_the_same_grads_as_the_fast_path():
    leaves, root = random_graph(7, n=120)
    root.backward()
    fast = [v.grad for v in leaves]
    for v in leaves:
        v.grad = 0.0
    with detect_anomaly():
        root.backward()
    assert [v.grad for v in leaves] == fast
