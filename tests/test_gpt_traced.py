"""The GPT on the tracer (``micrograd.gpt.traced``) against the eager model.

One program of ``block_size`` positions, recorded on the run's first names, serves every
name: on names it was not recorded on, of every length from 1 letter to past the
context, its loss and every gradient are the eager step's (the loss to 1e-12 of itself,
each gradient to 1e-9 of itself plus 1e-15: the softmax's shift is a value of the program
whose gradient, 0 in exact arithmetic, comes out at rounding level). A run's losses
follow the eager run's to 1e-9, step by step, and a step whose loss is not finite
changes nothing.
"""

from __future__ import annotations

import math
import random

import pytest

from micrograd.engine import Value
from micrograd.gpt.model import softmax
from micrograd.gpt.train import Run, loss_of
from micrograd.gpt.traced import TracedRun, TracedStepError, shifted_softmax, value_max

NAMES = ["ava", "olivia", "bo", "x", "maximilianusjo", "christopherjohnson", "emma"]


#: the names the fixture's program is recorded on: none of NAMES
RECORDED = ["liam", "noah"]


@pytest.fixture(scope="module")
def traced():
    run = Run.start(NAMES + RECORDED, seed=7, steps=50)
    run.docs = RECORDED + [d for d in run.docs if d not in RECORDED]
    traced = TracedRun(run)
    yield traced
    traced.close()


def eager_loss_and_grads(run, name):
    for p in run.model.params:
        p.grad = 0.0
    loss = loss_of(run.model, run.tokenizer.encode(name))
    loss.backward()
    grads = [p.grad for p in run.model.params]
    for p in run.model.params:
        p.grad = 0.0
    return loss.data, grads


@pytest.mark.parametrize("name", NAMES)
def test_a_name_not_recorded_gets_the_eager_loss_and_gradients(traced, name):
    run = traced.run
    assert name not in traced.recorded and traced.recorded == tuple(RECORDED)
    want_loss, want = eager_loss_and_grads(run, name)
    got = traced.optimizer.backward(*[[x] for x in traced.inputs(name)])
    grads = [p.grad for p in run.model.params]
    traced.zero_grad()
    assert math.isclose(got, want_loss, rel_tol=1e-12), (got, want_loss)
    bad = [(i, g, w) for i, (g, w) in enumerate(zip(grads, want))
           if not abs(g - w) <= 1e-9 * abs(w) + 1e-15]
    assert not bad, bad[:5]
    # the rows of the letters the name lacks get no gradient at all, as eagerly
    assert sum(g == 0.0 for g in grads) == sum(w == 0.0 for w in want)


def test_a_run_follows_the_eager_run_step_by_step():
    eager = Run.start(seed=42, steps=1000)
    want = [eager.step() for _ in range(20)]
    run = Run.start(seed=42, steps=1000)
    traced = TracedRun(run)
    try:
        got = [traced.step() for _ in range(20)]
    finally:
        traced.close()
    assert all(math.isclose(g, w, rel_tol=1e-9) for g, w in zip(got, want)), (got, want)
    assert run.done == 20
    assert all(p.grad == 0.0 for p in run.model.params)  # as the eager step leaves them
    for a, b in zip(run.model.params, eager.model.params):
        assert abs(a.data - b.data) <= 1e-12 * max(1.0, abs(b.data))
    assert run.sample(0.5) == eager.sample(0.5)  # the weights are the Values' again


def test_the_shift_keeps_exp_finite_and_the_numbers_of_the_softmax():
    rng = random.Random(0)
    for scale in (1.0, 100.0, 1000.0):
        xs = [rng.uniform(-scale, scale) for _ in range(27)]
        top = value_max([Value(x) for x in xs])
        assert abs(top.data - max(xs)) <= 1e-15 * scale
        got = [p.data for p in shifted_softmax([Value(x) for x in xs])]
        want = [p.data for p in softmax([Value(x) for x in xs])]
        assert all(math.isfinite(p) for p in got)
        assert all(math.isclose(g, w, rel_tol=1e-12, abs_tol=1e-300)
                   for g, w in zip(got, want))


def test_a_step_whose_loss_is_not_finite_changes_nothing():
    run = Run.start(NAMES, seed=3, steps=10)
    traced = TracedRun(run)
    try:
        for row in run.model.state_dict["lm_head"]:
            for p in row:
                p.data *= 1e6  # logits millions apart: a target's probability is 0
        before = [p.data for p in run.model.params]
        with pytest.raises(TracedStepError, match="diverged") as err:
            traced.step()
        assert not math.isfinite(err.value.loss)
        assert [p.data for p in run.model.params] == before and run.done == 0
        assert all(p.grad == 0.0 for p in run.model.params)  # no nan grad left behind
    finally:
        traced.close()


def test_the_traced_cli_trains_as_the_eager_one(capsys):
    from micrograd.cli import main

    lines = {}
    for runner in ("eager", "traced"):
        assert main(["gpt", "--steps", "3", "--no-progress", "--no-samples",
                     "--runner", runner]) == 0
        out = capsys.readouterr().out
        lines[runner] = [line for line in out.splitlines() if line.startswith("step ")]
        assert f"runner {runner}" in out
    assert lines["eager"] == lines["traced"] and len(lines["eager"]) == 3


def test_the_cli_stops_a_diverged_traced_run_and_saves_nothing(tmp_path, capsys):
    from micrograd.cli import main
    from micrograd.gpt.weights import save

    run = Run.start(NAMES, seed=3, steps=10)
    for row in run.model.state_dict["lm_head"]:
        for p in row:
            p.data *= 1e6
    save(run.model, run.tokenizer, tmp_path / "huge.json")
    out_file = tmp_path / "out.json"
    code = main(["gpt", "--names", str(_names_file(tmp_path)), "--load",
                 str(tmp_path / "huge.json"), "--steps", "3", "--runner", "traced",
                 "--no-progress", "--save", str(out_file)])
    out = capsys.readouterr()
    assert code == 1 and "diverged" in out.err and "nothing saved" in out.err
    assert "traced loss" in out.err and "no weight or grad was changed" in out.err
    assert "no step trained" in out.out and not out_file.exists()
    assert "Traceback" not in out.err + out.out


def _names_file(tmp_path):
    path = tmp_path / "names.txt"
    path.write_text("\n".join(NAMES) + "\n", encoding="utf-8")
    return path


def test_a_model_whose_program_would_be_too_large_is_refused_before_recording():
    from micrograd.gpt.model import GPTConfig
    from micrograd.gpt.traced import MAX_PROGRAM_NODES, ProgramTooLarge, estimated_nodes

    run = Run.start(NAMES, seed=1, steps=10, block_size=64)
    assert estimated_nodes(run.model.config) > MAX_PROGRAM_NODES
    with pytest.raises(ProgramTooLarge, match="block_size 64"):
        TracedRun(run)  # at once: nothing recorded
    assert estimated_nodes(GPTConfig(vocab_size=27)) < MAX_PROGRAM_NODES / 2


@pytest.mark.parametrize("shape", [dict(), dict(block_size=6), dict(n_layer=2, n_embd=8,
                                                                     n_head=2, block_size=5)])
def test_the_estimate_of_a_programs_size_is_within_a_fifth(shape):
    from micrograd.gpt.traced import estimated_nodes

    run = Run.start(NAMES, seed=1, steps=10, **shape)
    traced = TracedRun(run)
    try:
        got, want = estimated_nodes(run.model.config), traced.loss.per_sample.n_traced
    finally:
        traced.close()
    assert abs(got - want) <= 0.2 * want, (got, want)


def test_the_cli_refuses_a_model_too_large_for_the_traced_runner(tmp_path, capsys):
    from micrograd.cli import main
    from micrograd.gpt.weights import save

    run = Run.start(NAMES, seed=1, steps=10, block_size=64)
    save(run.model, run.tokenizer, tmp_path / "big.json")
    code = main(["gpt", "--names", str(_names_file(tmp_path)), "--load",
                 str(tmp_path / "big.json"), "--steps", "2", "--runner", "traced",
                 "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and "train it eagerly" in err and len(err.strip().splitlines()) == 1


def test_ctrl_c_while_the_model_is_recorded_trains_no_step(tmp_path):
    """A press during the recording (seconds): the run stops before its first step, and
    --save writes the weights as they were, untrained."""
    import json
    import signal
    import subprocess
    import sys

    path = tmp_path / "gpt.json"
    proc = subprocess.Popen([sys.executable, "-m", "micrograd", "gpt", "--steps", "50",
                             "--runner", "traced", "--save", str(path), "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    header = proc.stdout.readline()  # printed just before the recording begins
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert "runner traced" in header and "Traceback" not in err
    assert proc.returncode == 130 and "no step trained" in out
    assert not [line for line in out.splitlines() if line.startswith("step ")]
    assert json.loads(path.read_text())["meta"]["steps"] == 0
