"""The grouped lowering run by the page's JavaScript executor (in node) equals NumPy's.

``micrograd.trace.lowering_groups.lower_groups`` writes the compiler's batched groups
(the NumPy executor's steps and row layout) as instructions over rows; the executor
(``web/static/lowered/executor.js``) runs them with its row primitives. Held here: on
MLP losses (a regularizer, a mean and a sum, every kind of group) and on a small GPT of
``micrograd.gpt.traced.TracedRun``, the loss and every gradient equal the NumPy
executor's (1e-12 relative) and the parameters after a few optimizer steps equal the
same update on NumPy; the forward of a ``Program`` too; a broken row kernel is caught;
the wire is much smaller than the per-node lowering's.
"""

import json
import re

import js_executor
import numpy as np
import pytest
from js_executor import call, run_in_node

from micrograd.engine import Value
from micrograd.gpt.train import Run
from micrograd.gpt.traced import TracedRun
from micrograd.nn import MLP
from micrograd.trace import AdamUpdate, SGDUpdate, lower, trace, trace_loss
from micrograd.trace.lowering_groups import lower_groups
from micrograd.trace.numpy_backend import UPDATE_MATH

EXECUTOR = js_executor.DRIVER.parent.parent / "src" / "micrograd" / "web" / "static" / \
    "lowered" / "executor.js"
ROW_PRIMS = {"gather", "scatter_add", "wscatter_add", "sum_rows", "wsum_rows", "dense",
             "dense_dw", "dense_dx"}


def close(got, want, rel=1e-12):
    """Equal to ``rel`` relative, measured against the largest of ``want``."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    scale = max(float(np.max(np.abs(want), initial=0.0)), 1e-300)
    return np.all(np.abs(got - want) <= rel * np.maximum(np.abs(want), scale * 1e-3))


def _data(n=24, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.5, 1.5, size=(n, 2))
    return X, np.where((X ** 2).sum(axis=1) < 1.0, 1.0, -1.0)


def _mlp_losses():
    """(label, loss, X, Y): a mean with a regularizer (the once-per-batch graph), a sum
    of hinges, and ops of every kind of rule (exp, log, sigmoid, powc, abs)."""
    X, Y = _data()
    tanh = MLP(2, [8, 8, 1], activation="tanh", output_activation="linear", seed=3)
    p1 = tanh.parameters()
    relu = MLP(2, [6, 5, 1], activation="relu", output_activation="linear", seed=1)
    mixed = MLP(2, [4, 1], activation="sigmoid", output_activation="linear", seed=2)
    w = Value(0.7)

    def odd(x, y):
        s = mixed(x)
        return ((s * w).exp() + 1.0).log() + abs(s - y) ** 1.5 + (x[0] * w).tanh() * s

    yield ("tanh mse + l2, mean", trace_loss(
        lambda x, y: (tanh(x) - y) ** 2, X, Y, params=p1, cache=False,
        regularizer=lambda: 1e-3 * sum(p * p for p in p1)), X, Y)
    yield ("relu hinge, sum", trace_loss(
        lambda x, y: (1 - y * relu(x)).relu(), X, Y, reduction="sum", cache=False), X, Y)
    yield ("exp log powc abs", trace_loss(odd, X, Y, cache=False), X, Y)


MLP_CASES = list(_mlp_losses())


@pytest.mark.parametrize("case", MLP_CASES, ids=[c[0] for c in MLP_CASES])
def test_an_mlp_loss_and_its_gradients_equal_numpys(case):
    _, loss, X, Y = case
    lowered = lower_groups(loss)
    assert lowered.wire["version"] == 2 and lowered.params == loss.params
    fn = lowered.wire["functions"]["loss"]
    used = {ins[0] for k in ("forward", "backward") for ins in fn[k]}
    assert used & ROW_PRIMS, used
    XY = np.column_stack([X, Y])
    _, [[r]] = run_in_node([(json.loads(lowered.to_json()), [call("loss", XY, "grad")])])
    assert "error" not in r, r
    want, want_g = loss.loss_and_grads(loss.param_values(), X, Y)
    assert close(r["value"], want), (r["value"], want)
    assert close(r["grads"], want_g), np.max(np.abs(r["grads"] - want_g))


def _numpy_steps(loss, update, batches, P):
    """The update on NumPy from NumPy's gradients: the loss before each step, and P."""
    state = {k: np.zeros(len(P)) for k in update.state_names}
    losses = []
    for t, batch in enumerate(batches, start=1):
        L, g = loss.loss_and_grads(P, *batch)
        losses.append(L)
        P, new = update.apply(UPDATE_MATH, P.copy(), g, state, t, update.lr)
        state.update(new)
    return losses, P


@pytest.mark.parametrize("update", [lambda: AdamUpdate(lr=0.01),
                                    lambda: SGDUpdate(lr=0.05, momentum=0.9)],
                         ids=["adam", "momentum"])
def test_optimizer_steps_on_an_mlp_give_numpys_parameters(update):
    _, loss, X, Y = MLP_CASES[0]
    lowered = lower_groups(loss, optimizer=update())
    XY = np.column_stack([X, Y])
    _, [res] = run_in_node([(lowered.wire, [call("loss", XY, "step") for _ in range(4)])])
    losses, P = _numpy_steps(loss, update(), [(X, Y)] * 4, loss.param_values())
    assert close([r["value"] for r in res], losses)
    assert close(res[-1]["params"], P)


def test_a_program_forward_and_a_loss_in_one_wire():
    _, loss, X, Y = MLP_CASES[0]
    model = MLP(2, [8, 8, 1], activation="tanh", output_activation="linear", seed=3)
    probe = trace(model, X, cache=False)
    lowered = lower_groups({"loss": loss, "probe": probe})
    grid = np.random.default_rng(5).uniform(-2, 2, size=(50, 2))
    _, [[r]] = run_in_node([(lowered.wire, [call("probe", grid)])])
    assert "error" not in r, r
    P = np.array([p.data for p in lowered.params])
    assert close(r["outputs"][0], probe(grid))
    assert len(P) == len(loss.params) + len(probe.params)


# ---------------------------------------------------------------------------------------
# the GPT of micrograd gpt --runner traced, small
# ---------------------------------------------------------------------------------------

NAMES = ["ava", "olivia", "bo", "emma", "liam", "x"]


@pytest.fixture(scope="module")
def gpt():
    run = Run.start(NAMES, seed=7, steps=20, n_embd=8, n_head=2, n_layer=1, block_size=4)
    traced = TracedRun(run)
    yield traced
    traced.close()


def _gpt_batches(traced, names):
    return [[[x] for x in traced.inputs(n)] for n in names]


def _gpt_calls(traced, names, mode):
    return [call("loss", np.concatenate(traced.inputs(n))[None, :], mode) for n in names]


def test_the_gpt_loss_and_gradients_equal_numpys(gpt):
    lowered = lower_groups(gpt.loss)
    names = ["emma", "bo", "olivia"]
    _, [res] = run_in_node([(lowered.wire, _gpt_calls(gpt, names, "grad"))])
    P = gpt.loss.param_values()
    for r, batch in zip(res, _gpt_batches(gpt, names)):
        assert "error" not in r, r
        want, want_g = gpt.loss.loss_and_grads(P, *batch)
        assert close(r["value"], want), (r["value"], want)
        assert close(r["grads"], want_g), np.max(np.abs(r["grads"] - want_g))
        # the letters a name lacks: their rows of wte get exact zeros, as on NumPy
        assert np.array_equal(r["grads"] == 0.0, want_g == 0.0)


def test_adam_steps_on_the_gpt_give_numpys_parameters(gpt):
    update = lambda: AdamUpdate(lr=0.01, betas=(0.85, 0.99), eps=1e-8)
    lowered = lower_groups(gpt.loss, optimizer=update())
    names = ["liam", "ava", "emma", "x"]
    _, [res] = run_in_node([(lowered.wire, _gpt_calls(gpt, names, "step"))])
    losses, P = _numpy_steps(gpt.loss, update(), _gpt_batches(gpt, names),
                             gpt.loss.param_values())
    assert close([r["value"] for r in res], losses)
    assert close(res[-1]["params"], P)


def test_the_grouped_gpt_is_far_fewer_instructions_than_the_per_node_one(gpt):
    grouped, per_node = lower_groups(gpt.loss).wire, lower(gpt.loss).wire
    count = lambda w: sum(len(w["functions"]["loss"][k]) for k in ("forward", "backward"))
    assert count(grouped) * 20 < count(per_node)
    assert len(json.dumps(grouped)) * 5 < len(json.dumps(per_node))


# ---------------------------------------------------------------------------------------
# the row kernels are what the tests see: a broken one fails them
# ---------------------------------------------------------------------------------------

MUTANTS = {
    # a scatter-add that overwrites instead of adding
    "scatter_add overwrites": ("const d = idx[j] * w;\n          for (let b = 0; b < w; b++) "
                               "o[d + b] += a[s + b];",
                               "const d = idx[j] * w;\n          for (let b = 0; b < w; b++) "
                               "o[d + b] = a[s + b];"),
    # a fused sum that drops its factors
    "wsum_rows without factors": ("o[d + b] += f * a[s + b];", "o[d + b] += a[s + b];"),
    # the dense gradient of the inputs from the first row of weights only
    "dense_dx from row 0": ("const v = W[idx[row + j]], d = j * w;",
                            "const v = W[idx[j]], d = j * w;"),
    # ... and where the weights are a run of P, one number a row (the GPT's B = 1)
    "dense_dx from row 0, a run": ("o[j] += (at >= 0 ? W[at + row + j]",
                                   "o[j] += (at >= 0 ? W[at + j]"),
    # a dense row's weight gradient left out of the last weight of each row
    "dense_dw, a run, short": ("if (at >= 0) for (let j = 0; j < m; j++)",
                               "if (at >= 0) for (let j = 0; j < m - 1; j++)"),
    # a gather that reads the row before
    "gather off by one": ("const s = idx[r] * wa, d = r * w;",
                          "const s = Math.max(idx[r] - 1, 0) * wa, d = r * w;"),
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_a_broken_row_kernel_fails(gpt, mutant, tmp_path, monkeypatch):
    old, new = MUTANTS[mutant]
    text = EXECUTOR.read_text()
    assert text.count(old) == 1, mutant
    (tmp_path / "executor.js").write_text(text.replace(old, new))
    driver = js_executor.DRIVER.read_text()
    driver = re.sub(r'from "[^"]*executor\.js"', 'from "./executor.js"', driver)
    (tmp_path / "run_lowered.mjs").write_text(driver)
    monkeypatch.setattr(js_executor, "DRIVER", tmp_path / "run_lowered.mjs")
    _, mlp, X, Y = MLP_CASES[0]
    jobs = [(lower_groups(gpt.loss).wire, _gpt_calls(gpt, ["olivia"], "grad")),
            (lower_groups(mlp).wire, [call("loss", np.column_stack([X, Y]), "grad")])]
    _, results = run_in_node(jobs)
    wants = [gpt.loss.loss_and_grads(gpt.loss.param_values(), *_gpt_batches(gpt, ["olivia"])[0]),
             mlp.loss_and_grads(mlp.param_values(), X, Y)]
    caught = [("error" in r) or not (close(r["value"], L) and close(r["grads"], g))
              for [r], (L, g) in zip(results, wants)]
    assert any(caught), mutant


def test_a_version_1_program_may_not_use_the_row_primitives():
    _, loss, X, Y = MLP_CASES[1]
    wire = json.loads(json.dumps(lower_groups(loss).wire))
    wire["version"] = 1
    _, [[r]] = run_in_node([(wire, [])])
    assert "error" in r and ("unknown primitive" in r["error"] or "no rows" in r["error"]
                             or "bad size" in r["error"]), r
