"""The engine's speed switch (``MICROGRAD_SPEED``, read once when ``micrograd.engine`` is
imported): off, what runs is ``engine.py`` as it reads (the class body's ``+`` and
``*``, the operators' neuron sum, ``backward()``'s plain loop); on, ``engine_fast``
stands in for them with the same numbers, to the bit.

The switch is read once, so each side runs in a process of its own: the op table's
tests, the fuzz against PyTorch, the seeds' listings, micrograd's drop-in tests and the
engine's own run with the switch off in a pytest of their own (``plain_engine_plugin``
watches that nothing of the speed layer runs there), and both sides compute the same
graphs here and compare every number.
"""

import json
import os
import pathlib
import random
import subprocess
import sys

import pytest

from micrograd import engine, engine_fast, ops
from micrograd.engine import Value, topological_order

ROOT = pathlib.Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"

#: what runs both ways: the op table, the fuzz against PyTorch, the seeds' listings,
#: micrograd's own tests and demo, and the engine's mechanics
BOTH_WAYS = ["tests/test_ops_reference.py", "tests/test_fuzz_torch.py",
             "tests/test_seed_listings.py", "tests/test_micrograd_dropin.py",
             "tests/test_engine.py"]


def run_python(code, speed, **env):
    """``code`` run by this interpreter with ``MICROGRAD_SPEED=speed`` (None: unset)."""
    environ = {k: v for k, v in os.environ.items() if k != "MICROGRAD_SPEED"}
    if speed is not None:
        environ["MICROGRAD_SPEED"] = speed
    environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(TESTS)])
    environ.update(env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=environ, cwd=ROOT, timeout=600)


# ---- the tests, run with the switch off ---------------------------------------------------


@pytest.mark.slow
def test_the_op_table_fuzz_seeds_and_dropin_pass_with_the_speed_switch_off(tmp_path):
    report_path = tmp_path / "plain.json"
    args = [*BOTH_WAYS, "-q", "-p", "plain_engine_plugin", "-p", "no:cacheprovider",
            # the sort and the loop over a million nodes: the same code as any depth
            "--deselect",
            "tests/test_engine.py::test_a_million_op_chain_backpropagates_each_node_once"]
    code = f"import sys, pytest\nsys.exit(pytest.main({args!r}))\n"
    done = run_python(code, "off", MICROGRAD_NO_SKIP="1",
                      PLAIN_ENGINE_REPORT=str(report_path))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(report_path.read_text())
    # the engine there was the plain one: switch off, the class's own + and *, the
    # operators' neuron sum, no folded sum in a network's graph, and not one call into
    # the speed layer's sort, loop, folded sums or written-out nodes
    assert report["speed"] is False
    assert (report["add"], report["mul"]) == ("micrograd.engine", "micrograd.engine")
    assert report["affine"] == "micrograd.engine._affine"
    assert report["folded_sums_in_a_network"] == 0
    assert report["calls"] == dict.fromkeys(report["calls"], 0)
    assert set(report["calls"]) >= {"backward", "interior_order", "push_grads", "make_affine"}
    # and every test ran: none skipped, none failed
    assert report["skipped"] == report["failed"] == report["error"] == 0
    assert report["passed"] >= 240, report


# ---- the same numbers both ways ------------------------------------------------------------


def _random_graph(rng, n=150):
    """A graph over every op of the table, with reused nodes and constants."""
    leaves = [Value(rng.uniform(-1.5, 1.5)) for _ in range(5)]
    nodes = list(leaves)
    unary = sorted(k for k, op in ops.BUILTIN.items() if op.arity == 1 and not op.has_arg)
    for _ in range(n):
        x, y = rng.choice(nodes[-12:]), rng.choice(nodes)
        pick = rng.randrange(8)
        if pick == 0:
            v = x + y
        elif pick == 1:
            v = x * y
        elif pick == 2:
            v = engine.apply_op(ops.BUILTIN[rng.choice(unary)], x * 0.5)
        elif pick == 3:
            v = (x * x + 1.0) ** rng.choice([0.5, -1, 2, 3.0])
        elif pick == 4:
            v = 2.0 * x - y / (y * y + 1.0)
        elif pick == 5:
            v = (x.abs() + 0.5) ** y.sigmoid()
        elif pick == 6:
            v = engine.affine(x, [Value(rng.uniform(-1, 1)) for _ in range(3)], [x, y, x])
        else:
            v = (1 + -x * y).relu()
        nodes.append(v)
    return leaves, nodes[-1] + nodes[-2] * 0.3


def _network_loss(rng, activation):
    from micrograd.nn import MLP

    model = MLP(3, [6, 6, 1], activation=activation, seed=rng.randrange(1000))
    rows = [[Value(rng.uniform(-2, 2)) for _ in range(3)] for _ in range(4)]
    scores = [model(row) for row in rows]
    loss = sum((1 + -s * (1.0 if i % 2 else -1.0)).relu() for i, s in enumerate(scores))
    return model.parameters() + [x for row in rows for x in row], loss


def _every_number(root):
    return [(v.data, v.grad) for v in topological_order(root)]


def report():
    """Every number a set of graphs gives, as ``float.hex``: each op of the table at the
    points where backends part ways, random graphs over every op (reused nodes, a
    neuron's sum over a node feeding several of its terms), networks of ``nn`` and a
    node feeding several terms of one sum; each backpropagated twice with a non-unit
    upstream (interior grads start again, leaf grads accumulate), every node's number
    and grad read after."""
    from opinfo import SPEC, elementwise_cases

    numbers = {}
    for key, op in sorted(ops.BUILTIN.items()):
        rows = []
        for xs, arg in elementwise_cases(op):
            vs = [Value(x) for x in xs]
            y = SPEC[key]["value"](*vs, arg) if op.has_arg else SPEC[key]["value"](*vs)
            (y * 3.0 + vs[0]).backward()
            rows.append([y.data] + [v.grad for v in vs])
        numbers[key] = rows
    rng = random.Random(29)
    for trial in range(12):
        leaves, root = _random_graph(rng)
        root.backward(1.5)
        root.backward(-0.5)
        numbers[f"graph {trial}"] = _every_number(root)
    for activation in ("tanh", "relu", "sigmoid", "softplus", "linear"):
        params, loss = _network_loss(rng, activation)
        loss.backward()
        loss.backward(2.0)
        numbers[f"network {activation}"] = [p.grad for p in params] + _every_number(loss)
    x = Value(0.7)
    ws = [Value(rng.uniform(-1, 1)) for _ in range(6)]
    shared = (engine.affine(Value(0.5), ws, [x] * 6) * x).tanh()
    shared.backward()
    numbers["shared"] = [x.grad] + [w.grad for w in ws] + _every_number(shared)
    def hexes(row):
        return [float.hex(float(n)) for n in (row if isinstance(row, (list, tuple)) else [row])]
    return json.dumps({k: [hexes(row) for row in rows] for k, rows in numbers.items()})


def test_plain_and_fast_give_the_same_numbers_bit_for_bit():
    code = ("import test_engine_plain as t, micrograd.engine as e\n"
            "print(e.SPEED)\nprint(t.report())")
    sides = {}
    for speed in ("off", "on"):
        done = run_python(code, speed)
        assert done.returncode == 0, done.stderr[-3000:]
        switch, numbers = done.stdout.splitlines()
        assert switch == {"off": "False", "on": "True"}[speed]
        sides[speed] = json.loads(numbers)
    assert sides["off"].keys() == sides["on"].keys()
    assert len(sides["off"]["mul"]) > 1000 and len(sides["off"]["network relu"]) > 100
    for key in sides["off"]:
        assert sides["off"][key] == sides["on"][key], key


# ---- what the class holds, and what the switch changes --------------------------------------

SNAPSHOT = """
import builtins, sys
real = builtins.__build_class__
made = {}

def build_class(func, name, *args, **kwargs):
    cls = real(func, name, *args, **kwargs)
    if name == "Value" and cls.__module__ == "micrograd.engine":
        made["body"] = dict(cls.__dict__)  # what the class body bound, as it was made
    return cls

builtins.__build_class__ = build_class
import micrograd.engine, micrograd.engine_fast, micrograd.nn, micrograd.autodiff
import micrograd.gradcheck, micrograd.graph, micrograd.walk, micrograd.expr, micrograd.trace
import micrograd.viz, micrograd.train
builtins.__build_class__ = real
Value = micrograd.engine.Value
after = dict(Value.__dict__)
changed = sorted(k for k in set(made["body"]) | set(after)
                 if made["body"].get(k, 0) is not after.get(k, 0))
ran = []

def profile(frame, event, arg):
    if event == "call" and not ran:
        ran.append(frame.f_code)

a, b = Value(2.0), Value(3.0)
sys.setprofile(profile)
a + b
sys.setprofile(None)
fn = Value.__dict__["__add__"]
print(changed, ran[0] is fn.__code__, fn.__module__, Value.__dict__["__mul__"].__module__)
"""


@pytest.mark.parametrize("speed", ["on", "off"])
def test_add_and_mul_are_the_class_bodys_own(speed):
    # every method the class has after the package is imported is the one its body
    # bound (nothing assigned to the class afterwards), and ``a + b`` runs that one
    done = run_python(SNAPSHOT, speed)
    assert done.returncode == 0, done.stderr[-3000:]
    module = "micrograd.engine_fast" if speed == "on" else "micrograd.engine"
    assert done.stdout.split() == ["[]", "True", module, module]


def test_the_fast_add_and_mul_are_the_speed_layers_in_this_run():
    if not engine.SPEED:
        pytest.skip("the suite runs with MICROGRAD_SPEED=off")
    assert Value.__dict__["__add__"] is engine_fast.add
    assert Value.__dict__["__mul__"] is engine_fast.mul


FOLDED = """
import random
import micrograd.engine as e
from micrograd.nn import MLP
model = MLP(3, [4, 4, 1], seed=0)
out = model([e.Value(0.5), e.Value(-1.0), e.Value(2.0)])
out = out + e.affine(e.Value(1.0), [e.Value(2.0)] * 3, [e.Value(3.0)] * 3)
seen, stack, folded = set(), [out], 0
while stack:  # the raw slots: reading _prev would unfold a folded sum
    v = stack.pop()
    if id(v) not in seen:
        seen.add(id(v))
        folded += type(v._how) is float
        stack.extend(p for p in (v._a, v._b, getattr(v, "_c", None)) if p is not None)
print(folded, len(seen), e.affine.__module__)
"""


def test_no_folded_sum_is_built_with_the_switch_off():
    got = {}
    for speed in ("off", "on"):
        done = run_python(FOLDED, speed)
        assert done.returncode == 0, done.stderr[-3000:]
        got[speed] = done.stdout.split()
    folded, nodes, module = got["off"]
    assert folded == "0" and module == "micrograd.engine"
    folded_on, nodes_on, module_on = got["on"]
    assert int(folded_on) == 4 * 3 + 4 * 4 + 4 + 3 and module_on == "micrograd.engine_fast"
    assert int(nodes) == int(nodes_on) + int(folded_on)  # each folded sum: one node fewer


@pytest.mark.parametrize("value", ["fast", "", "ON", "0", "off "])
def test_a_bad_switch_value_is_a_clear_error(value):
    done = run_python("import micrograd.engine", value)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ValueError: MICROGRAD_SPEED=")
    assert repr(value) in last and "'on'" in last and "'off'" in last


READ_ONCE = """
import os
import micrograd.engine as e
from micrograd import engine_fast
calls = []
real = engine_fast.backward
engine_fast.backward = lambda *args: (calls.append(1), real(*args))[1]
os.environ["MICROGRAD_SPEED"] = "on" if not e.SPEED else "off"  # too late: read at import
x = e.Value(2.0)
(x * x).backward()
print(e.SPEED, len(calls), x.grad)
"""


@pytest.mark.parametrize("speed,want", [(None, "True 1"), ("on", "True 1"),
                                        ("off", "False 0")])
def test_the_switch_is_read_once_at_import(speed, want):
    done = run_python(READ_ONCE, speed)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == [*want.split(), "4.0"]


# ---- the speed layer's sort is the one sort ----------------------------------------------


def _folded_sums(root):
    seen, stack, found = set(), [root], []
    while stack:
        v = stack.pop()
        if id(v) not in seen:
            seen.add(id(v))
            if type(v._how) is float:
                found.append(v)
            stack.extend(p for p in (v._a, v._b) if p is not None)
    return found


@pytest.mark.parametrize("seed", range(6))
def test_the_fast_sort_gives_the_one_sorts_order_of_interior_nodes(seed):
    rng = random.Random(seed)
    _, root = _random_graph(rng) if seed % 2 else _network_loss(rng, "tanh")
    folded = _folded_sums(root)
    assert bool(folded) == engine.SPEED  # a network's sums, an affine over x, y, x
    with engine_fast.ONE_PASS:
        fast = engine_fast.interior_order(root)  # reads folded sums as they are
    assert all(v.grad == 0.0 for v in fast)
    order = topological_order(root)  # unfolds them: each gets its * node as input
    products = {id(v._prev[1]) for v in folded}
    assert fast == [v for v in order if v._a is not None and id(v) not in products]
    for v in folded:  # a folded sum's * node comes just before it in the one sort
        i = order.index(v)
        assert order[i - 1] is v._prev[1]
