"""The GPT tab's lowered runner (web/gpt_runners.py): the static site's sessions train on
the program the site's build lowered by groups, in the JavaScript executor behind the
worker's port (web/pyodide/executor_port.js over web/static/lowered/executor.js), run
here as the worker runs them: Pyodide's Python in node. Held to the eager run: its
first 20 losses to 1e-9, its weights after them (brought back by ``sync``) to 1e-12, its
samples equal; a step whose loss is not finite changes nothing. The program in a built
site's micrograd.zip is the one lowered now, its parameters model.params in order."""

import json
import math
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from micrograd.commands import site
from micrograd.gpt.train import Run
from micrograd.web import lowered_play
from micrograd.web.gpt_runners import PROGRAM, program_text, runner_for
from micrograd.web.gpt_session import GptSession

ROOT = Path(__file__).resolve().parents[1]
DRIVER = ROOT / "tests" / "run_play_in_pyodide.mjs"  # Pyodide in node, the port installed
PACKAGE = ROOT / "src" / "micrograd"
STEPS = 20

SCRIPT = """
import json, math, time
from pathlib import Path
gpt = Path("/home/pyodide/src/micrograd/gpt")
(gpt / "names.txt").write_text({names!r})
from micrograd.web.gpt_runners import PROGRAM, LoweredRunner
from micrograd.gpt.traced import TracedStepError
from micrograd.gpt.train import Run
from micrograd.web.lowered_play import installed
from micrograd.web.gpt_session import GptSession

plain = GptSession(seed=42, steps=1000)  # no program shipped: eager
PROGRAM.write_text({program!r})
s = GptSession(seed=42, steps=1000)
losses = [s.train_one() for _ in range({steps})]
weights = [p.data for p in s.run.model.params]
grads = [p.grad for p in s.run.model.params]
samples = [s.sample(1, 0.5)[0]["name"] for _ in range(5)]
t0 = time.perf_counter()
more = [s.train_one() for _ in range(100)]
rate = 100 / (time.perf_counter() - t0)

run = Run.start(seed=3, steps=10)
for row in run.model.state_dict["lm_head"]:
    for p in row:
        p.data *= 1e6  # logits millions apart: a target's probability is 0
before = [p.data for p in run.model.params]
runner = LoweredRunner(installed(), PROGRAM.read_text(), run)
try:
    runner.step(run)
    refused = None
except TracedStepError as err:
    refused = [repr(err.loss), str(err)]
runner.stale = True  # read the executor's parameters back all the same
runner.sync(run)
print(json.dumps({{"plain": plain.runner.name, "runner": s.runner.name, "losses": losses,
                  "weights": weights, "grads": grads, "samples": samples, "rate": rate,
                  "finite": all(math.isfinite(x) for x in more), "refused": refused,
                  "unchanged": [p.data for p in run.model.params] == before,
                  "done": run.done}}))
"""


@pytest.fixture(scope="module")
def program():
    return program_text()


@pytest.fixture(scope="module")
def in_pyodide(program):
    node = shutil.which("node")
    assert node, "node (20 or later) is part of the test set-up"
    assert (ROOT / "web-runtime" / "node_modules" / "pyodide").is_dir(), \
        "Pyodide is part of the test set-up: npm ci --prefix web-runtime"
    script = SCRIPT.format(names=(PACKAGE / "gpt" / "names.txt").read_text("utf-8"),
                           program=program, steps=STEPS)
    done = subprocess.run([node, str(DRIVER)], input=script, capture_output=True,
                          text=True, timeout=900, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow  # Pyodide in node
def test_the_lowered_run_follows_the_eager_run(in_pyodide):
    out = in_pyodide
    assert out["plain"] == "eager" and out["runner"] == "lowered"
    eager = Run.start(seed=42, steps=1000)
    want = [eager.step() for _ in range(STEPS)]
    assert all(math.isclose(g, w, rel_tol=1e-9) for g, w in zip(out["losses"], want)), \
        (out["losses"], want)
    bad = [(i, a, p.data) for i, (a, p) in enumerate(zip(out["weights"], eager.model.params))
           if not abs(a - p.data) <= 1e-12 * max(1.0, abs(p.data))]
    assert not bad and len(out["weights"]) == len(eager.model.params), bad[:5]
    assert all(g == 0.0 for g in out["grads"])  # as the eager step leaves them
    assert out["samples"] == [eager.sample(0.5) for _ in range(5)]
    assert out["finite"]
    report = ROOT / "test-artifacts"
    report.mkdir(exist_ok=True)
    with open(report / "gpt-lowered-node-steps-per-second.txt", "a") as f:
        f.write(f"Pyodide in node, lowered runner: {out['rate']:.1f} steps/s (100 steps)\n")


@pytest.mark.slow
def test_a_step_whose_loss_is_not_finite_changes_nothing(in_pyodide):
    loss, message = in_pyodide["refused"]
    assert not math.isfinite(float(loss)) and "not a finite number" in message
    assert "no weight was changed" in message
    assert in_pyodide["unchanged"] and in_pyodide["done"] == 0


def test_the_program_is_the_models_in_order(program):
    wire = json.loads(program)
    run = Run.start(seed=42)
    assert wire["version"] == 2 and wire["params"]["size"] == len(run.model.params)
    assert wire["params"]["init"] == [p.data for p in run.model.params]  # in order
    assert wire["optimizer"]["name"] == "adam" and wire["optimizer"]["betas"] == [0.85, 0.99]
    cfg = run.model.config
    assert wire["functions"]["loss"]["inputs"] == cfg.block_size * (2 * cfg.vocab_size + 1)


def test_the_site_ships_the_program_lowered_now(program, tmp_path):
    site.write_sources(tmp_path / "micrograd.zip")
    with zipfile.ZipFile(tmp_path / "micrograd.zip") as zf:
        assert zf.read("micrograd/gpt/program.json").decode("utf-8") == program


def test_without_a_port_or_a_program_the_runner_is_eager(monkeypatch):
    run = Run.start(seed=42, steps=10)
    assert runner_for(run).name == "eager"  # CPython: no port
    assert not PROGRAM.is_file()  # the source tree has none: the site's build makes it
    monkeypatch.setattr(lowered_play, "_PORT", [object()])
    assert runner_for(run).name == "eager"
    s = GptSession(seed=42, steps=10)
    assert s.runner.name == "eager"
    s.runner.sync(s.run)  # a no-op


def test_every_reader_of_the_weights_syncs_first():
    class Recording:
        name = "recording"

        def __init__(self):
            self.synced = 0

        def step(self, run):
            return run.step()

        def sync(self, run):
            self.synced += 1

    runner = Recording()
    s = GptSession(seed=42, steps=10, runner=runner)
    s.train_one()
    s.summary()
    s.mean()
    assert runner.synced == 0  # training and the answers' numbers read no weight
    for read in (lambda: s.sample(2, 0.5), lambda: s.attention("emma"),
                 lambda: s.run.model):  # (the walk reads s.run: handlers/gpt_walk.py)
        before = runner.synced
        read()
        assert runner.synced > before
