"""The static site's Playground: sessions trained through the lowered program and the
JavaScript executor (in Pyodide's Python, in node, as the site's worker runs them) against
the served page's sessions (CPython and the tracer on NumPy): the same losses, metrics
and parameters after N steps, within the executor's tested bound for a whole run; the
same state; and an op with no lowering trained eagerly, the state saying so."""

import json
import shutil
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

from micrograd.experiment import Experiment
from micrograd.web.play_pictures import play_state
from micrograd.web.play_session import PlaySession

ROOT = Path(__file__).resolve().parents[1]
DRIVER = ROOT / "tests" / "run_play_in_pyodide.mjs"
STEPS = 30

SETUPS = [
    {"dataset": "disk", "samples": 200, "hidden": [8, 8]},
    {"dataset": "xor", "samples": 120, "hidden": [6], "activation": "relu",
     "optimizer": "adam", "lr": 0.02, "l2": 0.001, "batch_size": 16},
    {"dataset": "spiral", "samples": 150, "hidden": [8], "features": ["x1", "x2", "sin x1"],
     "classes": 3, "loss": "ce", "l1": 0.0005, "optimizer": "sgd",
     "momentum": 0.9},
    {"dataset": "moons", "samples": 100, "hidden": [5], "loss": "bce",
     "features": ["x1", "x2", "x1^2", "x1*x2"]},
]

SCRIPT = """
import json
from micrograd.experiment import Experiment
from micrograd.web.play_session import PlaySession
from micrograd.web.play_pictures import play_state

out = []
for setup in json.loads({setups!r}):
    s = PlaySession(Experiment.from_dict(setup))
    s.train({steps})
    out.append({{"execution": s.execution, "history": s.history,
                 "params": [p.data for p in s.params],
                 "state": play_state(s, points=True)}})
print(json.dumps(out))
"""


def in_pyodide(script):
    node = shutil.which("node")
    assert node, "node (20 or later) is part of the test set-up"
    assert (ROOT / "web-runtime" / "node_modules" / "pyodide").is_dir(), \
        "Pyodide is part of the test set-up: npm ci --prefix web-runtime"
    done = subprocess.run([node, str(DRIVER)], input=script, capture_output=True,
                          text=True, timeout=600, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def served(setup):
    s = PlaySession(Experiment.from_dict(setup))
    s.train(STEPS)
    return s


@pytest.fixture(scope="module")
def static_runs():
    text = in_pyodide(SCRIPT.format(setups=json.dumps(SETUPS), steps=STEPS))
    return json.loads(text.strip().splitlines()[-1])


def close(a, b):
    return np.allclose(np.asarray(a, float), np.asarray(b, float), rtol=1e-9, atol=1e-12)


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
@pytest.mark.parametrize("k", range(len(SETUPS)))
def test_the_static_session_trains_as_the_served_one(static_runs, k):
    got, want = static_runs[k], served(SETUPS[k])
    assert got["execution"] == "lowered" and want.execution == "traced"
    assert len(got["history"]) == len(want.history)
    for g, w in zip(got["history"], want.history):
        assert g[0] == w[0]
        assert close(g[1:3], w[1:3]), (g, w)       # train and test loss
        assert g[3:] == w[3:]                      # accuracies
    assert close(got["params"], [p.data for p in want.params])


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
@pytest.mark.parametrize("k", range(len(SETUPS)))
def test_the_static_state_is_the_served_state(static_runs, k):
    got = static_runs[k]["state"]
    want = json.loads(json.dumps(play_state(served(SETUPS[k]), points=True)))
    assert got.pop("execution") == "lowered" and want.pop("execution") == "traced"
    assert got.pop("engine") == "runner" and want.pop("engine") == "traced"  # old name
    assert set(got) == set(want)
    for key in ("config", "task", "step", "epoch", "lr", "nparams", "diverged"):
        assert got[key] == want[key], key
    for part in ("train", "test"):  # (the data sets' sin and cos: libm's last bit)
        g, w = got["points"][part], want["points"][part]
        assert [p[2:] for p in g] == [p[2:] for p in w]
        assert close([p[:2] for p in g], [p[:2] for p in w])
    for key in ("boundary", "thumbnails", "zero_lines", "network"):
        g, w = json.dumps(got[key]), json.dumps(want[key])
        # the same numbers, rounded for drawing: a last digit may differ at a tie
        assert len(g) == len(w) or abs(len(g) - len(w)) < len(w) // 100, key
    assert close([v for v in got["boundary"]["values"]], want["boundary"]["values"])
    assert got["params"]["state"] == want["params"]["state"]
    assert close([r[1] for r in got["params"]["rows"]], [r[1] for r in want["params"]["rows"]])
    assert close([r[2] for r in got["params"]["rows"]], [r[2] for r in want["params"]["rows"]])


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
def test_an_op_with_no_lowering_trains_eagerly_and_the_state_says_so():
    text = in_pyodide(textwrap.dedent("""
        import json
        from micrograd.engine import define_op
        from micrograd.experiment import Experiment, fields
        from micrograd.web.play_session import PlaySession
        from micrograd.web.play_pictures import play_state

        cube = define_op("cube", lambda x: x ** 3,
                         lambda m, g, x, out: (g * 3.0 * x * x,),
                         np_forward=lambda x: x ** 3)
        fields.FEATURES["x1^2"] = lambda a, b: cube(a)  # a user's op, no lowering
        s = PlaySession(Experiment.from_dict(
            {"dataset": "disk", "samples": 60, "hidden": [3],
             "features": ["x1", "x2", "x1^2"]}))
        s.train(3)
        state = play_state(s)
        print(json.dumps({"execution": state["execution"], "engine": state["engine"],
                          "note": state.get("execution_note"),
                          "old_note": state.get("engine_note"),
                          "params": [p.data for p in s.params]}))
        """))
    got = json.loads(text.strip().splitlines()[-1])
    assert got["execution"] == got["engine"] == "eager"
    assert "cube" in got["note"] and got["note"].startswith("eager")
    assert got["old_note"] == got["note"]


def test_the_executors_rint_is_numpys_round_half_to_even():
    """The pictures are rounded in the executor by the ``rint`` primitive: every tie, the
    zeros' signs, the huge, inf and nan as NumPy's rint (to the bit)."""
    from js_executor import call, run_in_node
    from micrograd.web.lowered_play import rounded_function

    xs = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, -3.5, 0.49999999999999994, -0.4, 0.4,
                   -0.0, 0.0, 2.0 ** 52 + 1, -(2.0 ** 52) - 1, 2.0 ** 53, 4503599627370495.5,
                   1e300, -1e308, np.inf, -np.inf, np.nan, 1.005, 2.675, 157.5, -157.5,
                   5e-324, -5e-324, 0.125, 0.375])
    xs = np.concatenate([xs, np.random.default_rng(0).normal(scale=100, size=500)])
    fn = {"inputs": 1, "buffers": {"o": "B"}, "forward": [["copy", "o", "in0"]],
          "outputs": ["o"]}
    wire = {"format": "micrograd-lowered", "version": 1, "params": {"size": 0, "init": []},
            "state": {}, "optimizer": None,
            "functions": {"rint": {**fn, "forward": [["rint", "o", "in0"]]},
                          "round2": rounded_function(fn, 2)}}
    _, [[r1, r2]] = run_in_node([(wire, [call("rint", xs[:, None]),
                                         call("round2", xs[:, None])])])
    with np.errstate(over="ignore"):  # (1e308 * 100: inf, as the executor's)
        wants = np.rint(xs), np.round(xs, 2)
    for got, want in zip((r1["outputs"][0], r2["outputs"][0]), wants):
        same = (np.isnan(got) & np.isnan(want)) | (
            (got == want) & (np.signbit(got) == np.signbit(want)))
        assert same.all(), (xs[~same][:5], got[~same][:5], want[~same][:5])


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
def test_a_sessions_program_leaves_the_executor_with_it():
    """A set-up made anew or a session dropped frees its program in the executor; the
    tail of the outputs (the scores) is what the executor sends for the metrics."""
    text = in_pyodide(textwrap.dedent("""
        import gc, json
        from micrograd.experiment import Experiment
        from micrograd.web import lowered_play
        from micrograd.web.play_session import PlaySession

        port = lowered_play.installed()
        live = []
        load, drop = port.load, port.drop
        class Counting:
            def __getattr__(self, name):
                return getattr(port, name)
            def load(self, text):
                i = load(text); live.append(i); return i
            def drop(self, i):
                live.remove(i); drop(i)
        lowered_play.install(Counting())
        s = PlaySession(Experiment.from_dict({"dataset": "disk", "samples": 60}))
        one = list(live)
        s.reset(init_seed=3)
        two = list(live)
        scores = s.scores_at(s.X_test)
        rows = s.outputs_at(s.X_test)
        del s
        gc.collect()
        print(json.dumps({"one": one, "two": two, "end": live,
                          "same": scores == [r[-1] for r in rows]}))
        """))
    got = json.loads(text.strip().splitlines()[-1])
    assert len(got["one"]) == 1 and len(got["two"]) == 1 and got["one"] != got["two"]
    assert got["end"] == [] and got["same"]
