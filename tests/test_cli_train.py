"""``micrograd train`` and ``micrograd demo``: refusals, outputs, the demo's thresholds."""

import json

import pytest
from PIL import Image

from micrograd.cli import main
from micrograd.commands import demo
from micrograd.io import load


def run_cli(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def image_size(path):
    with Image.open(path) as im:
        im.verify()
    with Image.open(path) as im:
        return im.size, getattr(im, "n_frames", 1)


# ---- refusals: argparse errors, exit code 2, before any work --------------------------


@pytest.mark.parametrize("args, message", [
    (["--lr", "-0.1"], "argument --lr: must be more than 0 and at most 100, got -0.1"),
    (["--lr", "0"], "argument --lr: must be more than 0"),
    (["--lr", "fast"], "argument --lr: value must be a number, got 'fast'"),
    (["--lr", "inf"], "must be finite"),
    (["--hidden", "16,0"], "item 2 of '16,0': a hidden layer has 1 to 4,096 neurons, got 0"),
    (["--hidden", "16,,4"], "item 2 of '16,,4' is '', not a whole number"),
    (["--hidden", "-3"], "a hidden layer has 1 to 4,096 neurons, got -3"),
    (["--dataset", "mnist"], "argument --dataset: invalid choice: 'mnist'"),
    (["--batch-size", "-1"], "argument --batch-size: must be 0 to 100,000, got -1"),
    (["--noise", "-0.5"], "argument --noise: must be 0 to 10, got -0.5"),
    (["--epochs", "0"], "argument --epochs: must be at least 1"),
    (["--samples", "2.5"], "must be a whole number"),
    (["--test-fraction", "1"], "must be in [0, 1)"),
    (["--momentum", "1.5"], "argument --momentum: must be at least 0 and less than 1, got 1.5"),
    (["--classes", "1"], "argument --classes: must be at least 2, got 1"),
    (["--seed", "-1"], "argument --seed: must be 0 to 2,147,483,647, got -1"),
    (["--optimizer", "rmsprop"], "invalid choice: 'rmsprop'"),
    (["--loss", "hinge", "--dataset", "blobs", "--classes", "3"],
     "--loss hinge is for two classes; with 3 classes use --loss ce"),
    (["--classes", "3"], "--classes applies to spiral, blobs and digits, not moons"),
    (["--nesterov"], "--nesterov needs --momentum > 0"),
    (["--optimizer", "adam", "--momentum", "0.9"],
     "--momentum applies to --optimizer sgd only, not adam"),
    (["--optimizer", "adam", "--nesterov"], "--nesterov applies to --optimizer sgd only"),
    (["--samples", "3"], "argument --samples: must be 4 to 100,000, got 3"),
    (["--dataset", "digits", "--classes", "11"], "digits has at most 10 classes"),
    (["--dataset", "digits", "--noise", "0.1"], "--noise does not apply to digits"),
])
def test_train_refuses_nonsense_before_work(tmp_path, capsys, args, message):
    out = tmp_path / "never"
    code, stdout, err = run_cli(["train", *args, "--out", str(out)], capsys)
    assert code == 2
    assert message in err
    assert "usage: micrograd train" in err
    assert not out.exists()  # nothing was done
    assert stdout == ""


def test_train_help_has_examples(capsys):
    code, out, _ = run_cli(["train", "--help"], capsys)
    assert code == 0
    assert "examples:" in out and "micrograd train --dataset moons --hidden 16,16" in out
    for flag in ("--dataset", "--noise", "--samples", "--hidden", "--activation", "--loss",
                 "--optimizer", "--lr", "--schedule", "--epochs", "--batch-size", "--seed",
                 "--test-fraction", "--out"):
        assert flag in out


def test_train_writes_model_history_and_pictures(tmp_path, capsys):
    out = tmp_path / "run"
    code, stdout, _ = run_cli(
        ["train", "--dataset", "disk", "--samples", "40", "--hidden", "4", "--activation",
         "tanh", "--loss", "mse", "--optimizer", "sgd", "--lr", "0.2", "--momentum", "0.9",
         "--nesterov", "--epochs", "4", "--batch-size", "10", "--schedule", "cosine",
         "--out", str(out), "--no-progress"], capsys)
    assert code == 0
    assert "epoch 4 loss" in stdout and "test_acc" in stdout and str(out) in stdout
    model = load(out / "model.json")
    assert model.config()["nouts"] == [4, 1]
    hist = json.loads((out / "history.json").read_text())
    assert hist["epochs"] == 4 and hist["steps"] == 4 * 3  # 30 train points / 10
    (w, h), _ = image_size(out / "boundary.png")  # auto size: 6 in wide at 100 dpi
    assert w == 600 and 350 <= h <= 650
    assert image_size(out / "curves.png")[0] == (900, 360)
    (w, h), frames = image_size(out / "boundary.gif")
    assert w == 400 and 280 <= h <= 520 and frames == 5  # epoch 0 + every epoch


@pytest.mark.parametrize("args", [
    ["--dataset", "blobs", "--classes", "3", "--loss", "ce", "--optimizer", "adam",
     "--hidden", "4"],
    ["--dataset", "xor", "--loss", "bce", "--optimizer", "adamw", "--hidden", "4",
     "--weight-decay", "0.01", "--test-fraction", "0"],
    ["--dataset", "digits", "--classes", "2", "--samples", "30", "--loss", "hinge",
     "--hidden", "2"],
])
def test_train_other_losses_and_data(tmp_path, capsys, args):
    out = tmp_path / "run"
    code, stdout, _ = run_cli(["train", *args, "--epochs", "2", "--samples", "30",
                               "--out", str(out), "--no-progress", "--no-gif"], capsys)
    assert code == 0, stdout
    assert (out / "model.json").exists() and (out / "curves.png").exists()
    assert (out / "boundary.png").exists() == ("digits" not in args)


# ---- demo -----------------------------------------------------------------------------


@pytest.mark.slow
def test_demo_quick_writes_every_picture(tmp_path, capsys):
    out = tmp_path / "demo"
    code, stdout, _ = run_cli(["demo", "--quick", "--out", str(out), "--no-progress"],
                              capsys)
    assert code == 0
    assert "final loss" in stdout and "train acc" in stdout and "test acc" in stdout
    assert "moons MLP(2,16,16,1)" in stdout and "circle 9 hidden" in stdout
    assert str(out) in stdout
    assert image_size(out / "moons_boundary.png")[0][0] == 600
    assert image_size(out / "moons_curves.png") == ((900, 360), 1)
    (w, h), frames = image_size(out / "moons_boundary.gif")  # 5 in wide at 80 dpi
    assert w == 400 and 280 <= h <= 520 and frames == 1 + demo.QUICK_GIF_FRAMES
    assert image_size(out / "circle_comparison.png") == ((1200, 440), 1)
    (w, h), _ = image_size(out / "circle9_boundary.png")
    assert w == 600 and 350 <= h <= 650
    assert image_size(out / "circle9_curves.png") == ((900, 360), 1)
    (w, h), frames = image_size(out / "circle9_boundary.gif")
    assert w == 400 and 280 <= h <= 520 and frames == 1 + demo.QUICK_GIF_FRAMES
    assert load(out / "moons_model.json").config()["nouts"] == [16, 16, 1]
    assert load(out / "circle9_model.json").config()["nouts"] == [9, 1]
    summary = json.loads((out / "summary.json").read_text())
    assert [r["experiment"] for r in summary["rows"]] == [
        "moons MLP(2,16,16,1)", "circle 1 hidden", "circle 2 hidden", "circle 9 hidden"]


def test_demo_help(capsys):
    code, out, _ = run_cli(["demo", "--help"], capsys)
    assert code == 0 and "--out" in out and "micrograd demo --quick" in out


def test_demo_moons_reaches_97_percent():
    """The full moons experiment (100 steps) at the default seed: >= 97% train."""
    res = demo.run_moons(seed=1337, progress=False, gif=False)
    assert res.hist.epochs == 100
    assert res.train_acc >= 0.97
    assert res.test_acc >= 0.9


def test_demo_circle_nine_neurons_reaches_95_percent():
    """Seed 001's 9-neuron network, full length, default seed: >= 95% train."""
    (res,) = demo.run_circle(seed=1337, progress=False, gif=False, hidden=(9,))
    assert res.hist.epochs == demo.CIRCLE["epochs"]
    assert res.train_acc >= 0.95


# ---- caps and divergence ---------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["--lr", "1e6"], "argument --lr: must be more than 0 and at most 100, got 1e6"),
    (["--loss", "bce", "--activation", "softplus", "--lr", "1e4"], "at most 100, got 1e4"),
    (["--l2", "1e308"], "argument --l2: must be 0 to 10, got 1e308"),
    (["--weight-decay", "1e308"], "argument --weight-decay: must be 0 to 10"),
    (["--noise", "1e308"], "argument --noise: must be 0 to 10"),
    (["--samples", "100000000000"], "argument --samples: must be 4 to 100,000"),
    (["--samples", "100001"], "must be 4 to 100,000, got 100001"),
    (["--hidden", "100000000"],
     "item 1 of '100000000': a hidden layer has 1 to 4,096 neurons, got 100,000,000"),
    (["--hidden", ",".join(["2"] * 33)], "give 1 to 32 hidden layers, got 33"),
    (["--hidden", "4096,4096"],
     "--hidden 4096,4096 makes a network of 16,797,697 parameters; the cap is 100,000"),
    (["--dataset", "digits", "--loss", "ce", "--hidden", "1000,100"],
     "parameters; the cap is 100,000"),
    (["--epochs", "1000001"], "argument --epochs: must be at most 1,000,000"),
    (["--samples", "100000", "--hidden", "4096"], "numbers per array; the cap is 20,000,000"),
    (["--samples", "100000", "--runner", "eager"],
     "the eager runner would build a graph of 75,000 points x 337 parameters"),
])
def test_train_caps_refused_before_work(tmp_path, capsys, args, message):
    out = tmp_path / "never"
    code, stdout, err = run_cli(["train", *args, "--out", str(out)], capsys)
    assert code == 2, err
    assert message in err and "Traceback" not in err
    assert not out.exists() and stdout == ""


@pytest.mark.slow  # 4,096 hidden neurons over 4,000 points: 20 s and more
def test_train_at_the_caps_is_accepted(tmp_path, capsys):
    # the biggest values that pass run (kept cheap: 2 epochs of a small model)
    code, out, err = run_cli(["train", "--lr", "100", "--l2", "10", "--weight-decay", "10",
                              "--noise", "10", "--epochs", "2", "--hidden", "4096",
                              "--samples", "4000", "--no-plots", "--no-progress",
                              "--out", str(tmp_path)], capsys)
    assert code in (0, 1), err  # it may well diverge: that is reported, not refused
    assert "must be at most" not in err and (tmp_path / "history.json").exists()
    assert "Traceback" not in err


def test_help_states_the_caps(capsys):
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for cap in ("4 to 100,000; default: 100; digits: 1797", "1 to 32 hidden layers of 1 to "
                "4,096, 100,000 parameters in all", "at most 1,000,000",
                "learning rate: the step size (more than 0 and at most 100",
                "exit codes:", "training diverged"):
        assert cap in text, cap


DIVERGE = ["--l2", "10", "--lr", "100", "--schedule", "constant", "--no-progress"]


@pytest.mark.parametrize("engine", ["traced", "eager"])
def test_train_divergence_writes_history_says_so_and_exits_1(tmp_path, capsys, engine):
    code, out, err = run_cli(["train", *DIVERGE, "--runner", engine, "--out",
                              str(tmp_path)], capsys)
    assert code == 1
    assert "Traceback" not in err
    hist = json.loads((tmp_path / "history.json").read_text())  # strict JSON
    k = hist["diverged_at"]
    assert isinstance(k, int) and hist["stopped"] == "diverged" and hist["epochs"] == k
    assert hist["train_loss"][-1] in ("NaN", "Infinity")
    bad = {"NaN": "nan", "Infinity": "inf"}[hist["train_loss"][-1]]
    assert f"micrograd train: error: training diverged: the loss became {bad}" in err
    assert f"at epoch {k}; model not saved; try a smaller --lr" in err
    assert not (tmp_path / "model.json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history.json"]
    assert f"epoch {k} loss" in out and "diverged, runner " + engine in out


def test_train_cannot_write_output_exits_1(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, out, err = run_cli(["train", "--epochs", "1", "--no-progress",
                              "--out", str(blocker / "sub")], capsys)
    assert code == 1 and "cannot create the output folder" in err
    assert "Traceback" not in err


def test_more_classes_than_points_is_refused_naming_classes(capsys):
    from micrograd.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["train", "--dataset", "blobs", "--loss", "ce", "--classes", "1000",
              "--hidden", "200"])
    assert exit_.value.code == 2
    assert "--classes 1000 is more than the 100 points" in capsys.readouterr().err


# ---- the command's run is the library's recipe it has always been ---------------------


def _reference_model(dataset, n, test_fraction, seed, hidden, loss, epochs, noise=None,
                     classes=None):
    """``micrograd train``'s run written out with the library: data (the data set's own
    noise unless given; blobs' noise is their spread), split, MLP, SGD at lr 1.0 with
    the linear schedule, fit."""
    from micrograd.data import make_dataset, train_test_split
    from micrograd.losses import LOSSES
    from micrograd.nn import MLP
    from micrograd.optim import SGD, linear_schedule
    from micrograd.train import fit

    spec = LOSSES[loss]
    extra = {"n_classes": classes} if classes else {}
    X, y = make_dataset(dataset, n_samples=n, noise=noise, seed=seed,
                        labels="pm1" if spec.labels == "pm1" else "index", **extra)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=test_fraction, seed=seed)
    k = len(set(y)) if spec.outputs == "classes" else 1
    model = MLP(2, hidden + [k], activation="relu", output_activation=spec.output_activation,
                bias_init="uniform", seed=seed)
    opt = SGD(model.parameters(), lr=1.0)
    fit(model, Xtr, ytr, loss=spec, optimizer=opt, epochs=epochs, X_test=Xte, y_test=yte,
        l2=1e-4, schedule=linear_schedule(1.0, 0.1, epochs), progress=False, seed=seed)
    return model, len(Xtr), len(Xte)


@pytest.mark.parametrize("args, ref", [
    # 50 * 0.25 = 12.5 points held out: 13, as train_test_split rounds
    (["--dataset", "moons", "--samples", "50"],
     dict(dataset="moons", n=50, test_fraction=0.25)),
    (["--dataset", "spiral", "--samples", "15", "--test-fraction", "0.1", "--loss", "ce",
      "--classes", "3"],
     dict(dataset="spiral", n=15, test_fraction=0.1, loss="ce", classes=3)),
    # --noise is make_blobs' own: the clusters' spread
    (["--dataset", "blobs", "--samples", "30", "--noise", "0.2"],
     dict(dataset="blobs", n=30, test_fraction=0.25, noise=0.2)),
    (["--dataset", "blobs", "--samples", "30"],
     dict(dataset="blobs", n=30, test_fraction=0.25)),
])
def test_train_runs_the_library_recipe(tmp_path, capsys, args, ref):
    out = tmp_path / "run"
    code, stdout, _ = run_cli(["train", *args, "--hidden", "3", "--epochs", "2", "--seed",
                               "5", "--out", str(out), "--no-progress", "--no-plots"],
                              capsys)
    assert code == 0
    want, n_train, n_test = _reference_model(
        seed=5, hidden=[3], epochs=2, **{"loss": "hinge", **ref})
    assert f"{n_train} train / {n_test} test points" in stdout
    got = load(out / "model.json")
    assert [p.data for p in got.parameters()] == [p.data for p in want.parameters()]
