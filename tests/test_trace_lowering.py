"""Lowered programs run by the page's JavaScript executor (in node) equal the NumPy backend.

``micrograd.trace.lower`` writes a traced program as primitive instructions; the executor
(``web/static/lowered/executor.js``) implements exactly the primitive table. Held here: the
two lists of primitives are the same; every op at the backends' edge points, with an
upstream inf and nan too, bit for bit where the primitives round correctly; random
graphs of every op (the fuzz's corpus) and 20 steps of a 2-8-8-1 tanh MLP with SGD,
momentum and Adam, per element within the fuzz's rounding bound and with non-finite
numbers equal exactly; and the lowering works in a Python without NumPy.
"""

import json
import math
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from js_executor import call, run_in_node
from opinfo import BACKEND_EXPONENTS, SPEC, elementwise_cases
from test_fuzz_torch import COMPOSITE, EXPONENTS, NAMES, SPECIAL, agree, rounding_bounds

from micrograd import ops
from micrograd.engine import Value, define_op
from micrograd.nn import MLP
from micrograd.trace import (LOWERED_FORWARD, PRIMS, AdamUpdate, LoweringError, SGDUpdate,
                             lower, lower_op, np_contributions, np_forward, trace, trace_loss)
from micrograd.trace.numpy_backend import UPDATE_MATH

ROOT = Path(__file__).resolve().parent.parent

# ---------------------------------------------------------------------------------------
# the table: one list of primitives, in Python and in the executor
# ---------------------------------------------------------------------------------------


def test_the_executor_implements_exactly_the_primitive_table():
    executor, _ = run_in_node([])
    assert sorted(set(PRIMS) - set(executor["prims"])) == [], "missing from executor.js"
    assert sorted(set(executor["prims"]) - set(PRIMS)) == [], "in executor.js, not in prims.py"
    assert set(executor["arity"]) == set(PRIMS)
    assert {k: p.arity for k, p in PRIMS.items()} == executor["arity"]


def test_every_built_in_op_has_a_lowered_forward():
    assert set(LOWERED_FORWARD) == set(ops.BUILTIN)


# ---------------------------------------------------------------------------------------
# every op at the edges, with an upstream inf and nan
# ---------------------------------------------------------------------------------------

UPSTREAMS = (3.0, math.inf, math.nan)


def _op_groups():
    """(key, arg, inputs (n, arity)) for every op, one group per exponent of powc."""
    for key, op in sorted(ops.BUILTIN.items()):
        cases = elementwise_cases(op)
        if not op.has_arg:
            yield key, None, np.array([xs for xs, _ in cases])
            continue
        for n in BACKEND_EXPONENTS:
            yield key, n, np.array([xs for xs, a in cases if a == n and type(a) is type(n)])


def _same_bits(a, b):
    """Equal to the bit, a zero's sign included (any nan equals any nan)."""
    both_nan = np.isnan(a) & np.isnan(b)
    return both_nan | ((a == b) & (np.signbit(a) == np.signbit(b)))


def _within_bound(got, want, bound=None):
    bound = np.zeros_like(want) if bound is None else bound
    return np.array([agree(float(g), float(w), float(b)) for g, w, b in zip(got, want, bound)])


def test_every_op_agrees_with_the_numpy_backend_at_the_edges():
    groups = list(_op_groups())
    jobs = []
    for key, arg, xs in groups:
        rows = np.concatenate([np.column_stack([xs, np.full(len(xs), up)]) for up in UPSTREAMS])
        jobs.append((lower_op(key, arg).wire, [call("op", rows)]))
    _, results = run_in_node(jobs)
    bad, exact_ops = [], set()
    with np.errstate(all="ignore"):
        for (key, arg, xs), (wire, _), [res] in zip(groups, jobs, results):
            assert "error" not in res, (key, res)
            rows = np.concatenate([np.column_stack([xs, np.full(len(xs), up)])
                                   for up in UPSTREAMS])
            cols = tuple(rows[:, i] for i in range(xs.shape[1]))
            out = np_forward(key, cols, arg)
            want = [out] + [np.broadcast_to(c, out.shape) for c in np_contributions(
                key, rows[:, -1], cols, out, arg)]
            fn = wire["functions"]["op"]
            exact = all(PRIMS[ins[0]].exact for ins in fn["forward"])
            if exact:
                exact_ops.add(key)
            for k, (got, w) in enumerate(zip(res["outputs"], want)):
                ok = _same_bits(got, w) if exact else _within_bound(got, w)
                for i in np.flatnonzero(~ok)[:3]:
                    bad.append((key, arg, "out" if k == 0 else f"d{k - 1}", rows[i].tolist(),
                                got[i], w[i]))
    assert not bad, f"{len(bad)} disagreements, first: {bad[:6]}"
    # the ops written with correctly rounded primitives alone were held to the bit
    assert {"add", "mul", "div", "relu", "abs", "sqrt"} <= exact_ops


def test_pow_is_c99_pow_where_javascript_differs():
    # Math.pow(1, nan) and Math.pow(-1, +-inf) are NaN in JavaScript, 1 in C and NumPy
    rows = [[1.0, math.nan, 1.0], [-1.0, math.inf, 1.0], [-1.0, -math.inf, 1.0],
            [math.nan, 0.0, 1.0], [-math.inf, 0.5, 1.0], [-math.inf, -3.0, 1.0],
            [-0.0, 3.0, 1.0], [0.0, -1.0, 1.0]]
    _, [[res]] = run_in_node([(lower_op("pow").wire, [call("op", rows)])])
    want = [1.0, 1.0, 1.0, 1.0, math.inf, -0.0, -0.0, math.inf]
    assert _same_bits(res["outputs"][0], np.array(want)).all(), res["outputs"][0]


# ---------------------------------------------------------------------------------------
# the fuzz's corpus: random graphs of every op, leaves at the kinks and the extremes
# ---------------------------------------------------------------------------------------

GRAPHS = 800


def _random_graph(rng):
    """A graph as the fuzz draws one: 1-3 leaves (special points or uniform in [-4, 4]),
    1-10 steps of any op or composite, inputs reused."""
    leaves = [rng.choice(SPECIAL) if rng.random() < 0.5 else rng.uniform(-4, 4)
              for _ in range(rng.randint(1, 3))]
    steps, n = [], len(leaves)
    for _ in range(rng.randint(1, 10)):
        name = rng.choice(NAMES)
        arity = 2 if name in ("sub", *(k for k, o in ops.BUILTIN.items() if o.arity == 2)) \
            else 1
        steps.append((name, tuple(rng.randrange(n) for _ in range(arity)),
                      rng.choice(EXPONENTS) if name == "powc" else None))
        n += 1
    return leaves, steps


def _build(xs, steps):
    """The fuzz's graph on the Values ``xs`` (its last node times 3)."""
    nodes = list(xs)
    for name, ins, arg in steps:
        f = COMPOSITE.get(name) or SPEC[name]["value"]
        args = [nodes[i] for i in ins]
        nodes.append(f(*args, arg) if arg is not None else f(*args))
    return nodes[-1] * 3.0


def test_random_graphs_of_every_op_agree_with_the_numpy_backend():
    rng = random.Random(20240519)
    cases, jobs = [], []
    for _ in range(GRAPHS):
        leaves, steps = _random_graph(rng)
        params = [Value(x) for x in leaves]
        loss = trace_loss(lambda p=params, s=steps: _build(p, s), reduction="sum",
                          params=params, cache=False)
        cases.append((leaves, steps, loss))
        jobs.append((lower(loss).wire, [call("loss", np.zeros((1, 0)), "grad")]))
    _, results = run_in_node(jobs)
    bad = []
    for (leaves, steps, loss), [res] in zip(cases, results):
        assert "error" not in res, res
        with np.errstate(all="ignore"):
            want, want_g = loss.loss_and_grads(np.array(leaves))
        vs = [Value(x) for x in leaves]
        y = _build(vs, steps)
        y.backward()
        bound = rounding_bounds(y)
        where = f"leaves={leaves} steps={steps}"
        if not agree(res["value"], want):
            bad.append(f"value {res['value']!r}, NumPy {want!r}: {where}")
        for i, (g, w) in enumerate(zip(res["grads"], want_g)):
            if not agree(float(g), float(w), bound.get(vs[i], 0.0)):
                bad.append(f"grad of leaf {i}: {g!r}, NumPy {w!r}: {where}")
    assert not bad, f"{len(bad)} disagreements of {GRAPHS} graphs, first: {bad[:5]}"


# ---------------------------------------------------------------------------------------
# real training: 20 steps of a 2-8-8-1 tanh MLP over 200 points
# ---------------------------------------------------------------------------------------

STEPS = 20
L2 = 1e-3


def _circle(n=200, seed=0):
    r = np.random.default_rng(seed)
    X = r.uniform(-1.5, 1.5, size=(n, 2))
    return X, np.where((X ** 2).sum(axis=1) < 1.0, 1.0, -1.0)


def _mlp_loss(seed=1):
    X, Y = _circle()
    model = MLP(2, [8, 8, 1], activation="tanh", output_activation="linear", seed=seed)
    params = model.parameters()
    loss = trace_loss(lambda x, y: (model(x) - y) ** 2, X, Y, params=params, cache=False,
                      regularizer=lambda: L2 * sum(p * p for p in params))
    return model, loss, X, Y


def _eager_bound(model, P, X, Y):
    """The fuzz's rounding bound of every parameter's grad of the batch loss at P."""
    params = model.parameters()
    for p, x in zip(params, P.tolist()):
        p.data, p.grad = x, 0.0
    terms = [(model([Value(a), Value(b)]) - float(y)) ** 2 for (a, b), y in zip(X, Y)]
    total = sum(terms[1:], terms[0]) * (1.0 / len(X)) + L2 * sum(p * p for p in params)
    total.backward()
    bound = rounding_bounds(total)
    return np.array([bound.get(p, 0.0) for p in params])


UPDATES = {"sgd": lambda: SGDUpdate(lr=0.1),
           "momentum": lambda: SGDUpdate(lr=0.05, momentum=0.9),
           "adam": lambda: AdamUpdate(lr=0.01)}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(UPDATES))
def test_twenty_training_steps_agree_with_the_numpy_backend(name):
    model, loss, X, Y = _mlp_loss()
    lowered = lower(loss, optimizer=UPDATES[name]())
    assert lowered.params == loss.params
    _, [res] = run_in_node([(lowered.wire, [call("loss", np.column_stack([X, Y]), "step")
                                            for _ in range(STEPS)])])
    update = UPDATES[name]()
    state = {k: np.zeros(len(loss.params)) for k in update.state_names}
    P = loss.param_values()
    for k, r in enumerate(res):
        assert "error" not in r, r
        # this step's loss and gradient, at the executor's parameters, against NumPy's
        want, want_g = loss.loss_and_grads(P, X, Y)
        assert agree(r["value"], want), (k, r["value"], want)
        ok = _within_bound(r["grads"], want_g, _eager_bound(model, P, X, Y))
        assert ok.all(), (k, np.flatnonzero(~ok), r["grads"][~ok], want_g[~ok])
        # the update: the same rule on NumPy from the same gradient
        want_P, new = update.apply(UPDATE_MATH, P.copy(), r["grads"].copy(),
                                   {s: v.copy() for s, v in state.items()}, k + 1, update.lr)
        state.update(new)
        if name == "adam":  # bias corrections from pow: an ulp apart at most
            np.testing.assert_allclose(r["params"], want_P, rtol=0, atol=1e-15)
        else:  # products and differences only: to the bit
            assert np.array_equal(r["params"], want_P), k
        P = r["params"]
    # and the whole run against the traced optimizer on NumPy, step for step
    _, ref_loss, _, _ = _mlp_loss()
    from micrograd.trace import TracedAdam, TracedSGD
    opt = (TracedAdam(ref_loss, lr=0.01) if name == "adam" else
           TracedSGD(ref_loss, **UPDATES[name]().options()))
    losses = [opt.step(X, Y) for _ in range(STEPS)]
    np.testing.assert_allclose([r["value"] for r in res], losses, rtol=1e-9)
    np.testing.assert_allclose(res[-1]["params"], [p.data for p in ref_loss.params],
                               rtol=1e-9, atol=1e-12)
    opt.close()


def test_a_traced_optimizer_hands_its_state_to_the_executor():
    # three Adam steps on NumPy, then the executor carries on from the same step and moments
    from micrograd.trace import TracedAdam
    _, loss, X, Y = _mlp_loss()
    with TracedAdam(loss, lr=0.01) as opt:
        for _ in range(3):
            opt.step(X, Y)
        lowered = lower(loss, optimizer=opt)
        _, [res] = run_in_node([(lowered.wire, [call("loss", np.column_stack([X, Y]),
                                                     "step") for _ in range(2)])])
        want = [opt.step(X, Y) for _ in range(2)]
        np.testing.assert_allclose([r["value"] for r in res], want, rtol=1e-12)
        np.testing.assert_allclose(res[-1]["params"], [p.data for p in loss.params],
                                   rtol=1e-12, atol=1e-15)
    assert lowered.wire["state"]["t"]["init"] == [3.0]


def test_the_boundary_grid_runs_the_same_forward_on_2500_points():
    model, loss, X, Y = _mlp_loss()
    probe = trace(model, X, params=model.parameters(), cache=False)
    lowered = lower({"loss": loss, "probe": probe}, optimizer=AdamUpdate(lr=0.01))
    g = np.linspace(-1.5, 1.5, 50)
    grid = np.array([[a, b] for b in g for a in g])
    _, [res] = run_in_node([(lowered.wire, [call("loss", np.column_stack([X, Y]), "step"),
                                            call("probe", grid)])])
    trained = res[0]["params"]
    for p, x in zip(lowered.params, trained.tolist()):  # the executor's trained weights
        p.data = x
    want = probe(grid)
    assert res[1]["outputs"][0].shape == (2500,)
    assert _within_bound(res[1]["outputs"][0], want).all()


def test_parts_that_do_not_depend_on_the_sample_count_once_per_sample():
    # tanh(w) and w*w are the same for every sample: their gradient is summed over the
    # batch; the constant output w*2 is one number per sample; the regularizer once
    w, v = Value(0.3), Value(-1.2)
    X = np.array([[0.5], [-2.0], [1.5]])
    Y = np.array([1.0, 0.0, -1.0])
    fns = {"loss": trace_loss(lambda x, y: w.tanh() * x[0] + (w * v).exp() * y + v, X, Y,
                              params=[w, v], regularizer=lambda: 0.5 * w * w, cache=False),
           "const": trace(lambda x: [w * 2.0, x[0] * v], X, params=[w, v], cache=False)}
    lowered = lower(fns)
    _, [res] = run_in_node([(lowered.wire, [call("loss", np.column_stack([X, Y]), "grad"),
                                            call("const", X)])])
    want, want_g = fns["loss"].loss_and_grads(fns["loss"].param_values(), X, Y)
    assert agree(res[0]["value"], want)
    assert _within_bound(res[0]["grads"], want_g).all(), (res[0]["grads"], want_g)
    const, times = res[1]["outputs"]
    assert const.tolist() == [0.6] * 3 and times.tolist() == (X[:, 0] * -1.2).tolist()


# ---------------------------------------------------------------------------------------
# what cannot be lowered, and the wire
# ---------------------------------------------------------------------------------------

@pytest.fixture
def user_ops():
    """Two user-defined ops for one test, taken out of the table after it."""
    made = {"square": define_op("square_unlowered", lambda x: x * x,
                                lambda m, g, x, out: (g * 2.0 * x,),
                                np_forward=lambda x: x * x, method=False),
            "branchy": define_op("branchy_rule", lambda x: x,
                                 lambda m, g, x, out: (g if x > 0 else 0.0,),
                                 np_forward=lambda x: x, method=False)}
    yield made
    for f in made.values():
        ops.OPS.pop(f.op.key, None)
        LOWERED_FORWARD.pop(f.op.key, None)


def test_an_op_without_a_lowering_is_refused_by_name_and_lowers_once_given_one(user_ops):
    square = user_ops["square"]
    w = Value(0.5)
    prog = trace(lambda x: square(x[0] * w), [[1.0], [2.0]], params=[w], cache=False)
    assert prog([[3.0]]).tolist() == [2.25]  # NumPy runs it
    with pytest.raises(LoweringError, match="op 'square_unlowered' has no lowering"):
        lower(prog)
    LOWERED_FORWARD["square_unlowered"] = lambda m, x: x * x
    wire = lower(prog).wire
    _, [[res]] = run_in_node([(wire, [call("forward", [[3.0], [-1.0]])])])
    assert res["outputs"][0].tolist() == [2.25, 0.25]


def test_a_rule_that_decides_on_a_value_is_refused_by_name(user_ops):
    branchy = user_ops["branchy"]
    w = Value(0.5)
    prog = trace(lambda x: branchy(x[0] * w), [[1.0], [2.0]], params=[w], cache=False)
    LOWERED_FORWARD["branchy_rule"] = lambda m, x: x
    with pytest.raises(LoweringError, match="rule of op 'branchy_rule'.*numbers of an"):
        lower(trace_loss(lambda x: branchy(x[0] * w), [[1.0], [2.0]], params=[w],
                         cache=False))
    lower(prog)  # its forward alone lowers


def test_the_wire_is_strict_json_with_non_finite_numbers_as_strings():
    w = Value(math.inf)
    prog = trace(lambda x: x[0] * math.nan + w + (-0.0) * x[0], [[1.0], [2.0]], params=[w],
                 cache=False)
    lowered = lower(prog)
    text = lowered.to_json()
    assert "NaN" not in text and "Infinity" not in text
    wire = json.loads(text)
    assert wire["params"]["init"] == ["inf"]
    consts = [ins[2] for ins in wire["functions"]["forward"]["forward"] if ins[0] == "const"]
    assert "nan" in consts and -0.0 in consts
    _, [[res]] = run_in_node([(wire, [call("forward", [[1.0]])])])
    assert math.isnan(res["outputs"][0][0])


def test_the_executor_refuses_a_bad_program_naming_what_is_wrong():
    w = Value(0.5)
    wire = lower(trace(lambda x: (x[0] * w).tanh(), [[1.0], [2.0]], params=[w],
                       cache=False)).wire
    unknown = json.loads(json.dumps(wire))
    unknown["functions"]["forward"]["forward"][-1][0] = "frobnicate"
    sizes = json.loads(json.dumps(wire))
    sizes["functions"]["forward"]["forward"].append(["add", ["P", 0], "in0", "in0"])
    _, results = run_in_node([(unknown, []), (sizes, [call("forward", [[1.0], [2.0]])])])
    assert 'unknown primitive "frobnicate"' in results[0][0]["error"]
    assert "an operand of 2 for 1" in results[1][0]["error"]


# ---------------------------------------------------------------------------------------
# without NumPy: the compiler and the lowering use the standard library only
# ---------------------------------------------------------------------------------------

NO_NUMPY = r'''
import sys
from pathlib import Path

class NoNumpy:
    """Refuse NumPy (and torch) as a Python without them would."""
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("numpy", "torch"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, NoNumpy())
import json
import re
import random

from micrograd.engine import Value
from micrograd.nn import MLP
from micrograd.trace import AdamUpdate, lower, trace, trace_loss

# the lecture's neuron: o = tanh(x1 w1 + x2 w2 + b)
w1, w2, b = Value(-3.0), Value(1.0), Value(6.8813735870195432)
neuron = trace_loss(lambda x: (x[0] * w1 + x[1] * w2 + b).tanh(), [[2.0, 0.0], [1.0, 1.0]],
                    reduction="sum", params=[w1, w2, b])
rng = random.Random(0)
X = [[rng.uniform(-1.5, 1.5), rng.uniform(-1.5, 1.5)] for _ in range(200)]
Y = [1.0 if a * a + b * b < 1.0 else -1.0 for a, b in X]
model = MLP(2, [8, 8, 1], activation="tanh", output_activation="linear", seed=3)
loss = trace_loss(lambda x, y: (model(x) - y) ** 2, X, Y, params=model.parameters())
probe = trace(model, X, params=model.parameters())
print(json.dumps({
    "neuron": lower(neuron).wire,
    "mlp": lower({"loss": loss, "probe": probe}, optimizer=AdamUpdate(lr=0.01)).wire,
    "X": X, "Y": Y,
    "loaded": sorted(m for m in sys.modules if m.split(".")[0] in ("numpy", "torch")),
}))
'''


def _in_pyodide(script):
    """Run ``script`` on Pyodide's Python (3.14, no NumPy) in node; its output."""
    node = shutil.which("node")
    assert node, "node is part of the test set-up: bash scripts/test.sh installs it"
    assert (ROOT / "web-runtime" / "node_modules" / "pyodide").is_dir(), \
        "Pyodide is part of the test set-up: npm ci --prefix web-runtime (scripts/test.sh)"
    done = subprocess.run([node, str(ROOT / "tests" / "run_in_pyodide.mjs")], input=script,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
def test_tracing_and_lowering_work_in_a_python_without_numpy():
    done = subprocess.run([sys.executable, "-c", NO_NUMPY], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)
    assert out["loaded"] == []
    # the browser's Python (Pyodide) writes the same program, to the byte
    assert json.loads(_in_pyodide(NO_NUMPY)) == out
    X, Y = np.array(out["X"]), np.array(out["Y"])
    _, [neuron, mlp] = run_in_node([
        (out["neuron"], [call("loss", [[2.0, 0.0]], "grad")]),
        (out["mlp"], [call("loss", np.column_stack([X, Y]), "grad"), call("probe", X)])])
    # the lecture's numbers: o = 0.7071, do/dn = 0.5, so w1 = x1 * 0.5, w2 = x2 * 0.5
    assert math.isclose(neuron[0]["value"], 0.7071067811865476, rel_tol=1e-12)
    np.testing.assert_allclose(neuron[0]["grads"], [1.0, 0.0, 0.5], atol=1e-12)
    # the MLP lowered without NumPy, against the NumPy backend here
    model = MLP(2, [8, 8, 1], activation="tanh", output_activation="linear", seed=3)
    loss = trace_loss(lambda x, y: (model(x) - y) ** 2, X, Y, params=model.parameters(),
                      cache=False)
    want, want_g = loss.loss_and_grads(loss.param_values(), X, Y)
    assert agree(mlp[0]["value"], want)
    assert _within_bound(mlp[0]["grads"], want_g).all()
    assert _within_bound(mlp[1]["outputs"][0], trace(model, X, cache=False)(X)).all()


def test_numpy_is_imported_when_a_program_first_runs():
    code = ("import sys\n"
            "from micrograd.nn import MLP\n"
            "from micrograd.trace import lower, trace\n"
            "model = MLP(2, [3, 1], seed=0)\n"
            "prog = trace(model, [[0.0, 1.0], [1.0, 0.0]])\n"
            "lower(prog)\n"
            "before = 'numpy' in sys.modules\n"
            "prog([[0.5, 0.5]])\n"
            "print(before, 'micrograd.trace.numpy_backend' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["False", "True"]


def test_the_docs_table_names_every_primitive():
    text = (ROOT / "docs" / "performance.md").read_text()
    table = text.split("**The primitives**")[1].split("**The wire form**")[0]
    named = {name for row in table.splitlines() if row.startswith("| `")
             for name in re.findall(r"`([a-z0-9_]+)`", row.split("|")[1])}
    assert named == set(PRIMS)


def test_fit_without_numpy_still_takes_the_eager_runner():
    # the tracer imports without NumPy now; the traced runner of fit still needs it
    code = ("import sys\n"
            "sys.modules['numpy'] = None\n"
            "from micrograd.train_runners import EagerRunner, get_runner\n"
            "assert isinstance(get_runner('auto'), EagerRunner)\n"
            "try:\n"
            "    get_runner('traced')\n"
            "except ModuleNotFoundError as e:\n"
            "    print(e.name)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["numpy"]
