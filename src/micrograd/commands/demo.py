"""``micrograd demo``: train two small networks and draw what they learned.

1. micrograd's demo: two moons (100 points, noise 0.1), micrograd's network
   MLP(2, [16, 16, 1]) (relu hidden layers, a linear output, zero biases), max-margin
   loss + 1e-4 L2, SGD with the learning rate 1.0 - 0.9*k/100, 100 full-batch steps.
2. Seed 001's circle: points in a square labelled by whether they lie inside the unit
   circle; the lecture's network (style="lecture": tanh everywhere, random biases) with
   1, 2 and 9 hidden neurons and mean squared error.

Examples:
  micrograd demo                       # everything, pictures in ./demo-out
  micrograd demo --out /tmp/demo       # elsewhere
  micrograd demo --quick --no-gif      # a few seconds: fewer steps, no animation
  micrograd demo --runner eager        # every step through the Value graph (slower)

Runners: by default ("auto") training runs on micrograd.trace, which traces the scalar
Value graph of one sample once and runs it over the whole batch with NumPy; the numbers
equal the eager Value engine's to about 1e-12. "--runner eager" builds and walks the
Value graph at every step, as the lecture does. ("--engine" is the option's old name.)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

from .runner_option import add_runner_option

CTRL_C = True  # runs under micrograd.interrupts.CtrlC (see micrograd.cli)

#: the defaults of the two experiments, in one place
MOONS = dict(
    n_samples=100,      # micrograd's demo
    noise=0.1,
    n_test=100,         # a fresh draw of the same moons, for the test accuracy
    hidden=[16, 16],
    epochs=100,         # = steps: full batch
    lr_start=1.0,       # lr = 1.0 - 0.9*k/100
    lr_end=0.1,
    l2=1e-4,
)
CIRCLE = dict(
    n_samples=200,      # the circle: uniform in a square, half inside the unit circle
    test_size=0.25,     # 150 train / 50 test
    hidden=(1, 2, 9),   # the circle experiment's three networks
    epochs=200,
    lr=0.2,             # SGD with momentum, full batch
    momentum=0.9,
)
QUICK_EPOCHS = {"moons": 10, "circle": 20}
GIF_FRAMES = 20         # frames after the first one
QUICK_GIF_FRAMES = 5


def requires(args):
    """The optional packages this run needs (micrograd.cli checks them before it runs)."""
    need = ["numpy", "matplotlib"]  # the pictures
    if not args.no_progress:
        need.append("tqdm")
    if not args.no_gif:
        need.append("PIL")
    return need


def add_parser(subparsers):
    p = subparsers.add_parser(
        "demo", help="train on two moons and on the circle (1, 2, 9 neurons), write pictures",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", default="demo-out", metavar="DIR",
                   help="folder for the pictures and models (default: ./demo-out)")
    p.add_argument("--seed", type=int, default=1337,
                   help="seed of the data and the initial weights (default: 1337)")
    p.add_argument("--quick", action="store_true",
                   help="a few epochs only (a smoke test; accuracies stay low)")
    p.add_argument("--no-gif", action="store_true", help="skip the animated GIFs")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.add_argument("--only", choices=("moons", "circle"),
                   help="run one of the two experiments")
    add_runner_option(p, "auto (default): the traced NumPy path where it applies; eager: "
                         "the Value graph at every step")
    p.set_defaults(func=run)
    return p


# ---------------------------------------------------------------------------------------
# the experiments (also used by the tests)
# ---------------------------------------------------------------------------------------


class Result:
    """One trained network: the model, its data, history and final numbers."""

    def __init__(self, name, model, hist, data, loss, l2, seconds, runner=None):
        from ..train import evaluate

        self.name, self.model, self.hist, self.data = name, model, hist, data
        self.loss, self.l2, self.seconds = loss, l2, seconds
        Xtr, Xte, ytr, yte = data
        self.final_loss, self.train_acc = evaluate(model, Xtr, ytr, loss, l2, runner)
        self.test_loss, self.test_acc = evaluate(model, Xte, yte, loss, l2, runner)
        self.frames = []


def _gif_callback(frames, every):
    from ..plot import snapshot

    def record(epoch, logs, model):
        if epoch % every == 0:
            frames.append((epoch, snapshot(model)))

    return record


def moons_experiment(seed=1337):
    """micrograd's demo as an Experiment: all 100 points train (the test set is a fresh
    draw, ``seed + 1``), micrograd's network (relu, linear output, zero biases)."""
    from ..experiment import Experiment

    c = MOONS
    return Experiment(dataset="moons", noise=c["noise"], samples=c["n_samples"],
                      train_ratio=1.0, seed=seed, hidden=list(c["hidden"]),
                      activation="relu", bias_init="zero", init_seed=seed, loss="hinge",
                      optimizer="sgd", lr=c["lr_start"], l2=c["l2"])


def circle_experiment(hidden, seed=1337):
    """The circle experiment as an Experiment: the lecture's network (tanh everywhere,
    random biases) with ``hidden`` neurons, mean squared error, SGD with momentum."""
    from ..experiment import Experiment

    c = CIRCLE
    return Experiment(dataset="disk", samples=c["n_samples"],
                      train_ratio=1 - c["test_size"], seed=seed, hidden=[hidden],
                      activation="tanh", init_seed=seed, loss="mse", optimizer="sgd",
                      momentum=c["momentum"], lr=c["lr"])


def _runner_keyword(runner, engine):
    """``runner=``, or its old name ``engine=`` (deprecated) in its place."""
    if engine is None:
        return runner
    warnings.warn("the keyword engine= is deprecated: use runner= (the same values; the "
                  "old name goes in the next release)", DeprecationWarning, stacklevel=3)
    if runner != "auto":
        raise TypeError("give runner= only (engine= is its old name), not both")
    return engine


def run_moons(seed=1337, epochs=None, progress=True, gif=True, runner="auto",
              gif_frames=GIF_FRAMES, *, engine=None):
    """micrograd's demo; returns a ``Result``. (``engine=`` is ``runner``'s deprecated
    old name.)"""
    runner = _runner_keyword(runner, engine)
    from ..experiment import build, make_points
    from ..optim import linear_schedule
    from ..plot import snapshot
    from ..train import fit

    c = MOONS
    epochs = c["epochs"] if epochs is None else epochs
    exp = moons_experiment(seed)
    b = build(exp)
    Xte, yte, _ = make_points(exp.replace(seed=seed + 1, samples=c["n_test"]))
    model = b.model
    frames = [(0, snapshot(model))] if gif else []
    t0 = time.perf_counter()
    hist = fit(model, b.X_train, b.y_train, loss=b.loss, l2=exp.l2, optimizer=b.optimizer,
               schedule=linear_schedule(c["lr_start"], c["lr_end"], c["epochs"]),
               epochs=epochs, X_test=Xte, y_test=yte, progress=progress,
               desc="moons  MLP(2,16,16,1)", runner=runner,
               callbacks=[_gif_callback(frames, max(1, epochs // gif_frames))] if gif else [])
    res = Result("moons", model, hist, (b.X_train, Xte, b.y_train, yte), exp.loss, exp.l2,
                 time.perf_counter() - t0, runner)
    res.frames = frames
    return res


def run_circle(seed=1337, epochs=None, progress=True, gif=True, runner="auto",
               hidden=None, gif_frames=GIF_FRAMES, *, engine=None):
    """The circle experiment; returns one ``Result`` per hidden size. (``engine=`` is
    ``runner``'s deprecated old name.)"""
    runner = _runner_keyword(runner, engine)
    from ..experiment import build
    from ..plot import snapshot
    from ..train import fit

    c = CIRCLE
    epochs = c["epochs"] if epochs is None else epochs
    results = []
    for h in (c["hidden"] if hidden is None else hidden):
        b = build(circle_experiment(h, seed))
        data = (b.X_train, b.X_test, b.y_train, b.y_test)
        model = b.model
        frames = [(0, snapshot(model))] if gif and h == max(c["hidden"]) else []
        cbs = [_gif_callback(frames, max(1, epochs // gif_frames))] if frames else []
        t0 = time.perf_counter()
        hist = fit(model, b.X_train, b.y_train, loss=b.loss, epochs=epochs,
                   X_test=b.X_test, y_test=b.y_test, optimizer=b.optimizer,
                   progress=progress, desc=f"circle {h} hidden neuron{'s' * (h > 1)}",
                   runner=runner, callbacks=cbs)
        res = Result(f"circle{h}", model, hist, data, "mse", 0.0, time.perf_counter() - t0,
                     runner)
        res.frames = frames
        results.append(res)
    return results


# ---------------------------------------------------------------------------------------
# output
# ---------------------------------------------------------------------------------------


def summary_table(rows):
    """The summary as text: one line per (name, params, epochs, loss, train, test,
    seconds, runner)."""
    head = (f"{'experiment':<22}{'params':>7}{'epochs':>8}{'final loss':>12}"
            f"{'train acc':>11}{'test acc':>10}{'time':>9}  runner")
    lines = [head, "-" * len(head)]
    for name, params, epochs, loss, tr, te, secs, runner in rows:
        lines.append(f"{name:<22}{params:>7}{epochs:>8}{loss:>12.4f}{tr:>10.1%} "
                     f"{te:>9.1%}{secs:>8.1f}s  {runner}")
    return "\n".join(lines)


def _row(label, res):
    return (label, len(res.model.parameters()), res.hist.epochs, res.final_loss,
            res.train_acc, res.test_acc, res.seconds, res.hist.runner)


def write_pictures(res, out, stem, title, gif=True):
    """Boundary PNG, learning curves, GIF (if frames) and model JSON; returns paths."""
    from .. import io, plot
    from ..interrupts import checkpoint  # a press held while a picture is drawn: here

    Xtr, Xte, ytr, yte = res.data
    checkpoint()
    paths = [plot.plot_decision_boundary(res.model, Xtr, ytr, Xte, yte,
                                         path=os.path.join(out, f"{stem}_boundary.png"),
                                         title=f"{title}: train {res.train_acc:.0%}, "
                                               f"test {res.test_acc:.0%}")]
    checkpoint()
    paths.append(plot.plot_learning_curves(
        res.hist, path=os.path.join(out, f"{stem}_curves.png"), title=title))
    if gif and res.frames:
        checkpoint()
        paths.append(plot.animate_boundary(res.model, res.frames, Xtr, ytr,
                                           os.path.join(out, f"{stem}_boundary.gif"),
                                           Xte, yte, title=title + ", epoch {epoch}"))
    model_path = os.path.join(out, f"{stem}_model.json")
    io.save(res.model, model_path, meta={
        "experiment": stem, "loss": res.loss, "l2": res.l2, "epochs": res.hist.epochs,
        "train_acc": res.train_acc, "test_acc": res.test_acc})
    paths.append(model_path)
    return paths


def run(args):
    import json

    from ..files import atomic_open
    from ..interrupts import checkpoint

    out = args.out
    try:
        os.makedirs(out, exist_ok=True)
    except OSError as err:
        print(f"micrograd demo: cannot create the output folder {out!r}: {err}",
              file=sys.stderr)
        return 1
    progress = not args.no_progress
    gif = not args.no_gif
    rows, written, timing = [], [], {}
    stopped = False

    if args.only in (None, "moons"):
        t0 = time.perf_counter()
        res = run_moons(args.seed, QUICK_EPOCHS["moons"] if args.quick else None, progress,
                        gif, runner=args.runner,
                        gif_frames=QUICK_GIF_FRAMES if args.quick else GIF_FRAMES)
        written += write_pictures(res, out, "moons", "two moons, MLP(2,16,16,1)", gif)
        timing["moons"] = time.perf_counter() - t0
        rows.append(_row("moons MLP(2,16,16,1)", res))
        stopped = stopped or res.hist.stopped == "interrupted"

    if args.only in (None, "circle") and not stopped:
        from ..plot import plot_comparison

        checkpoint()
        t0 = time.perf_counter()
        results = run_circle(args.seed, QUICK_EPOCHS["circle"] if args.quick else None,
                             progress, gif, runner=args.runner,
                             gif_frames=QUICK_GIF_FRAMES if args.quick else GIF_FRAMES)
        Xtr, Xte, ytr, yte = results[0].data
        checkpoint()
        written.append(plot_comparison(
            [r.model for r in results], Xtr, ytr,
            [f"{r.name[6:]} hidden: train {r.train_acc:.0%}, test {r.test_acc:.0%}"
             for r in results],
            path=os.path.join(out, "circle_comparison.png"), X_test=Xte, y_test=yte,
            title="inside the unit circle? tanh + MSE, 1 / 2 / 9 hidden neurons"))
        for r in results:
            h = r.name[6:]
            if r.frames:  # the widest network gets the full set of pictures
                written += write_pictures(r, out, r.name, f"circle, {h} hidden neurons",
                                          gif)
            rows.append(_row(f"circle {h} hidden", r))
        timing["circle"] = time.perf_counter() - t0

    table = summary_table(rows)
    print()
    print(table)
    keys = ("experiment", "params", "epochs", "final_loss", "train_acc", "test_acc",
            "train_seconds", "runner")
    # each row's runner also under its old key, engine, for the scripts that read it
    summary = {"rows": [{**dict(zip(keys, r)), "engine": r[-1]} for r in rows],
               "seconds_with_pictures": timing, "seed": args.seed, "quick": args.quick}
    summary_path = os.path.join(out, "summary.json")
    with atomic_open(summary_path) as f:
        json.dump(summary, f, indent=2)
    written.append(summary_path)
    if any(r[-1] == "traced" for r in rows):
        print("runner traced: micrograd.trace ran each scalar Value graph over the whole "
              "batch with NumPy (--runner eager for the Value-by-Value engine)")
    print("\ntime with pictures: " + ", ".join(f"{k} {v:.1f} s" for k, v in timing.items()))
    print(f"wrote {len(written)} files to {os.path.abspath(out)}:")
    for path in written:
        print(f"  {os.path.basename(path)}")
    return 130 if stopped else 0
