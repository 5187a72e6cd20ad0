"""``micrograd train``: train an MLP on a toy data set, every choice on the command line.

Writes the model (JSON), the history, the decision boundary, learning curves and an
animated GIF of the boundary to the output folder.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from dataclasses import dataclass

from ..interrupts import checkpoint, ctrl_c_guard
from .. import optim as _optim
from .arg_types import capped, fraction, positive_int
from .field_options import add_field_options
from .runner_option import add_runner_option

EPILOG = """\
examples:
  # micrograd's demo: two moons, relu MLP, hinge loss + L2, linearly decaying lr
  micrograd train --dataset moons --hidden 16,16 --activation relu --loss hinge \\
      --l2 1e-4 --lr 1.0 --schedule linear --epochs 100

  # the circle: inside the unit circle? tanh + MSE, 9 hidden neurons
  micrograd train --dataset disk --samples 200 --hidden 9 --activation tanh --loss mse \\
      --optimizer sgd --lr 0.2 --momentum 0.9 --epochs 200

  # a spiral with Adam, minibatches of 32 and a cosine schedule
  micrograd train --dataset spiral --samples 200 --hidden 16,16 --loss bce \\
      --optimizer adam --lr 0.05 --schedule cosine --epochs 40 --batch-size 32

  # three Gaussian blobs, softmax cross-entropy over 3 outputs
  micrograd train --dataset blobs --classes 3 --hidden 8 --loss ce --optimizer adam \\
      --lr 0.05 --epochs 40 --out blobs-out

losses and labels: mse (tanh output, labels -1/+1), hinge (linear output, -1/+1),
bce (linear output = logit, labels 0/1), ce (K linear outputs = logits, classes 0..K-1).

limits (refused with exit code 2 before any work): each option's range, shown above
(--hidden: layers, neurons and parameters in all); --epochs <= 1,000,000; per step,
eager: points x parameters <= 5,000,000; traced: points x neurons <= 20,000,000.
The options of the data, the model and the training are the fields of the Playground's
set-up (micrograd.experiment), with the defaults and caps of the command line.

Ctrl-C stops after the current step (twice: at once) and still writes history.json,
model.json and the pictures (a press while they are written waits, then skips the
pictures not yet begun); every file is written whole (a temporary file, then renamed).

exit codes: 0 done; 2 refused options; 1 cannot write the output, or training diverged
(the loss became nan/inf: history.json is written, the model is not; try a smaller --lr);
130 interrupted (Ctrl-C; what was trained so far is written); 141 the reader of the
output went away (a closed pipe).
"""

CTRL_C = True  # runs under micrograd.interrupts.CtrlC (see micrograd.cli)

# the choices, read from the library's registries (a schedule added there is offered
# here at once; the experiment's options read theirs the same way)
SCHEDULES = tuple(_optim.SCHEDULES)

# ---------------------------------------------------------------------------------------
# caps of what is not a field of the experiment (the fields' caps are declared with the
# fields: micrograd.experiment's cli=): each keeps a run finite in time and memory
# ---------------------------------------------------------------------------------------

MAX_EPOCHS = 1_000_000
#: the eager runner builds ~2 Values (~140 bytes each) per weight and point of a step
#: (the graph's floats and the interpreter come on top)
MAX_EAGER_WORK = 5_000_000  # points x parameters per step: ~2 GB of memory at most
#: the traced runner keeps a few float64 arrays of the batch's length per neuron
MAX_TRACED_WORK = 20_000_000  # points x neurons: ~160 MB per array

epochs_count = capped(positive_int, MAX_EPOCHS, "the cap on epochs")


def requires(args):
    """The optional packages this run needs (micrograd.cli checks them before it runs)."""
    need = []
    if args.runner == "traced":
        need.append("numpy")
    if not args.no_plots:
        need += ["numpy", "matplotlib"]
        if not args.no_gif:
            need.append("PIL")
    if args.dataset == "digits":
        need.append("sklearn")
    return need


def add_parser(subparsers):
    p = subparsers.add_parser(
        "train", help="train an MLP on a toy data set and write model + pictures",
        description=__doc__, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sections = {name: p.add_argument_group(name) for name in ("data", "model", "training")}
    add_field_options(sections)  # the fields of the experiment, from their declarations
    d, o = sections["data"], sections["training"]
    d.add_argument("--test-fraction", type=fraction, default=0.25, metavar="F",
                   help="share of the points held out for testing, 0 for none "
                        "(default: 0.25)")
    o.add_argument("--schedule", choices=SCHEDULES, default="linear",
                   help="learning-rate schedule over all steps: linear decays to lr/10 "
                        "(micrograd's demo), step divides by 10 at each third, cosine "
                        "anneals to 0 (default: linear)")
    o.add_argument("--epochs", type=epochs_count, default=100,
                   help=f"passes over the training set, at most {MAX_EPOCHS:,} "
                        f"(default: 100)")
    add_runner_option(o, "auto (default): the traced NumPy path (micrograd.trace) where "
                         "it applies; eager: the Value graph at every step")
    w = p.add_argument_group("output")
    w.add_argument("--out", default="train-out", metavar="DIR",
                   help="folder for model.json, history.json and pictures "
                        "(default: ./train-out)")
    w.add_argument("--no-gif", action="store_true", help="skip the animated boundary")
    w.add_argument("--no-plots", action="store_true", help="write no pictures at all")
    w.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run, _parser=p)
    return p


def check_args(args):
    """The combinations of the options (each option's value was checked while it was
    parsed); an error message naming the options, or None: what only scikit-learn's
    digits ask, then the experiment's own checks as the command line reads its fields
    (``check_combinations``: data set, classes and loss; the momentum rule; the
    network's size)."""
    from ..experiment import DIGITS_CLASSES, ExperimentError, check_combinations

    digits = args.dataset == "digits"
    if digits and args.classes is not None and args.classes > DIGITS_CLASSES:
        return f"digits has at most {DIGITS_CLASSES} classes, got --classes {args.classes}"
    if digits and args.noise is not None:
        return "--noise does not apply to digits"
    try:
        check_combinations(experiment_of(args), "cli", _shape(args)[0])
    except ExperimentError as err:
        return str(err)
    return None


def _shape(args):
    """(inputs, outputs, points) of the run the arguments describe (upper bounds)."""
    from ..experiment import DIGITS_PIXELS, n_outputs

    exp = experiment_of(args)
    return DIGITS_PIXELS if args.dataset == "digits" else 2, n_outputs(exp), exp.samples


def _parameters(args):
    """Weights and biases of the MLP the arguments describe."""
    from ..experiment import count_parameters

    return count_parameters(experiment_of(args), _shape(args)[0])


def check_work(args, runner):
    """The per-step size checks (they depend on the runner that will run); a message
    or None."""
    nin, nout, n = _shape(args)
    n_train = n - int(n * args.test_fraction)
    per_step = min(args.batch_size or n_train, n_train)
    if runner == "eager":
        work = per_step * _parameters(args)
        if work > MAX_EAGER_WORK:
            return (f"the eager runner would build a graph of {per_step:,} points x "
                    f"{_parameters(args):,} parameters = {work:,} weight uses per "
                    f"step (the cap is {MAX_EAGER_WORK:,}, about 2 GB); use a smaller "
                    f"--batch-size, --samples or --hidden, or --runner traced")
    else:
        neurons = sum(args.hidden) + nout
        work = n * neurons
        if work > MAX_TRACED_WORK:
            return (f"{n:,} points x {neurons:,} neurons = {work:,} numbers per array; "
                    f"the cap is {MAX_TRACED_WORK:,}: use a smaller --samples or --hidden")
    return None


def _loss(x):
    """0.0159 -> '0.0159'; a blown-up 9.1e+104 stays short."""
    return f"{x:.4f}" if abs(x) < 1e6 else f"{x:.4g}"


def _finite_weights(model):
    return all(math.isfinite(p.data) for p in model.parameters())


def _divergence_message(hist, model, lr):
    if hist.diverged_at is not None:
        bad = hist.train_loss[hist.diverged_at - 1]
        what = f"the loss became {bad} at epoch {hist.diverged_at}"
    else:
        what = f"the weights became nan/inf in the last epoch ({hist.epochs})"
    return (f"training diverged: {what}; model not saved; try a smaller --lr "
            f"(it was {lr:g}), a smaller --l2 / --weight-decay, or --optimizer adam")


def _refuse(args, problem):
    parser = getattr(args, "_parser", None)
    if parser is not None:
        parser.error(problem)  # exits with status 2
    print(f"micrograd train: error: {problem}", file=sys.stderr)
    return 2


def experiment_of(args, points=None):
    """The run as a ``micrograd.experiment.Experiment``, not checked: the options that
    are its fields (one not given, or absent from ``args``, at the command line's
    declared default; the one seed seeds the data, the split and the weights);
    ``points``: the digits loaded, whose number and classes it takes (else at most
    all the digits); ``--test-fraction`` becomes the train ratio that holds out the
    same number of points (``round(F * N)``, at least 1, at most N - 1)."""
    from ..experiment import DIGITS_IMAGES, Experiment
    from .field_options import option_fields

    values = {m["name"]: getattr(args, m["name"]) for m in option_fields()
              if hasattr(args, m["name"])}
    exp = Experiment.from_options(values)
    if points is not None:
        exp = exp.replace(samples=len(points[0]), classes=len(set(points[1])))
    elif args.dataset == "digits":
        exp = exp.replace(samples=min(exp.samples, DIGITS_IMAGES))
    n, fraction = exp.samples, getattr(args, "test_fraction", 0.0)
    n_test = min(max(math.floor(fraction * n + 0.5), 1), n - 1) if fraction > 0 else 0
    return exp.replace(train_ratio=1 - n_test / n)


def _digits(args, labels):
    """scikit-learn's digits, the first ``--samples`` of them (None: not installed)."""
    from ..data import load_digits
    from ..experiment import DIGITS_CLASSES

    try:
        X, y = load_digits(n_classes=args.classes or DIGITS_CLASSES, labels=labels)
    except ImportError as err:
        print(f"micrograd train: {err}", file=sys.stderr)
        return None
    return X[:args.samples], y[:args.samples]


def _own_spread_points(args, exp, labels):
    """blobs with ``--noise``: the command reads it as ``make_blobs`` does, the clusters'
    spread (an Experiment's noise widens blobs' own spread instead), so these points
    are made here; None for every other set."""
    from ..data import make_dataset
    from ..experiment import MULTICLASS, OWN_SPREAD

    if args.dataset not in OWN_SPREAD or args.noise is None:
        return None
    extra = {"n_classes": exp.classes} if args.dataset in MULTICLASS else {}
    return make_dataset(args.dataset, n_samples=exp.samples, noise=args.noise,
                        seed=args.seed, labels=labels, **extra)


@dataclass
class Run:
    """One ``micrograd train`` run: its arguments, what ``build()`` made of them, and
    how it trains (runner, batch, schedule; GIF frames)."""
    args: argparse.Namespace
    built: object  # micrograd.experiment.Built
    runner: object
    batch_size: int | None
    steps: int
    schedule: object
    frames: list
    callbacks: list
    two_d: bool  # points on the plane: a boundary can be drawn


def _prepare(args, spec, runner):
    """Build the run (data, model, optimizer, schedule, GIF frames); None when the
    data cannot be had."""
    from ..experiment import build
    from ..optim import SCHEDULES as SCHEDULE_FACTORIES

    labels = "pm1" if spec.labels == "pm1" else "index"
    if args.dataset == "digits":
        points = _digits(args, labels)
        if points is None:
            return None
        exp = experiment_of(args, points)
    else:
        exp = experiment_of(args)
        points = _own_spread_points(args, exp, labels)
    built = build(exp, points)
    n_train = len(built.X_train)
    bs = args.batch_size if args.batch_size and args.batch_size < n_train else None
    steps = args.epochs * (1 if bs is None else -(-n_train // bs))
    run = Run(args, built, runner, bs, steps,
              SCHEDULE_FACTORIES[args.schedule](exp.lr, steps),
              [], [], len(built.X_train[0]) == 2)
    if not args.no_plots and run.two_d and not args.no_gif:
        from ..plot import snapshot

        every = max(1, args.epochs // 20)
        run.frames.append((0, snapshot(built.model)))
        run.callbacks.append(lambda e, logs, m: run.frames.append((e, snapshot(m)))
                             if e % every == 0 else None)
    return run


def run(args):
    problem = check_args(args)
    if problem:
        return _refuse(args, problem)

    from ..losses import LOSSES as LOSS_SPECS
    from ..train_runners import get_runner

    spec = LOSS_SPECS[args.loss]
    runner = get_runner(args.runner, spec)
    problem = check_work(args, runner.name)
    if problem:
        return _refuse(args, problem)

    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as err:
        print(f"micrograd train: cannot create the output folder {args.out!r}: {err}",
              file=sys.stderr)
        return 1

    checkpoint()  # a press held through the imports stops here: nothing written yet
    r = _prepare(args, spec, runner)
    if r is None:
        return 1
    checkpoint()  # and one held through the set-up (data, model, trace)
    b = r.built
    nin, n_out = len(b.X_train[0]), b.n_outputs
    print(f"{args.dataset}: {len(b.X_train)} train / {len(b.X_test)} test points, "
          f"{b.experiment.classes} classes; MLP({nin}, {args.hidden + [n_out]}) "
          f"{args.activation} -> {spec.output_activation}, "
          f"{len(b.model.parameters())} parameters; "
          f"{args.loss} loss, {b.optimizer!r}, {args.schedule} schedule, {r.steps} steps")
    with ctrl_c_guard() as ctrl_c:  # from here on, no Ctrl-C ends in a traceback
        return _train_and_write(r, ctrl_c)


def _train_and_write(r, ctrl_c):
    """Train, then write history.json, model.json and the pictures; Ctrl-C
    (``micrograd.interrupts.CtrlC``) as the epilog says. Any press makes the exit
    code 130."""
    import json

    from .. import io
    from ..files import atomic_open, error_line
    from ..train import fit
    from ..graph import num

    args, b = r.args, r.built
    model = b.model
    ctrl_c.mode = "train"
    t0 = time.perf_counter()
    hist = fit(model, b.X_train, b.y_train, loss=b.loss, optimizer=b.optimizer,
               epochs=args.epochs, batch_size=r.batch_size, X_test=b.X_test or None,
               y_test=b.y_test or None, l2=b.experiment.l2, schedule=r.schedule,
               callbacks=r.callbacks, progress=not args.no_progress, seed=args.seed,
               desc=args.dataset, runner=r.runner, stop_on_nan=True)
    ctrl_c.mode = "defer"  # the results are written whole, whatever is pressed now
    trained_presses = ctrl_c.presses
    seconds = time.perf_counter() - t0
    last = hist.last()
    if last:
        line = (f"epoch {hist.epochs} loss {_loss(last['train_loss'])} "
                f"acc {last['train_acc']:.1%}")
        if "test_acc" in last:
            line += (f" test_loss {_loss(last['test_loss'])} "
                     f"test_acc {last['test_acc']:.1%}")
    else:
        line = "stopped before the end of the first epoch"
    print(line + f" ({seconds:.1f} s, {hist.stopped}, runner {hist.runner})")

    # the history first: it is what tells what happened, even when the model is lost
    written = []
    hist_path = os.path.join(args.out, "history.json")
    model_path = os.path.join(args.out, "model.json")
    diverged = hist.diverged_at is not None or not _finite_weights(model)
    skipped = False
    try:
        with atomic_open(hist_path, example="history.json") as f:
            json.dump(hist.to_dict(json_safe=True), f, indent=1, allow_nan=False)
        written.append(hist_path)
        if diverged:
            print(f"wrote {hist_path}", file=sys.stderr)
            print(f"micrograd train: error: "
                  f"{_divergence_message(hist, model, b.experiment.lr)}",
                  file=sys.stderr)
            return 1
        if not hist.epochs:
            print(f"wrote {hist_path}; no epoch finished, so no model was saved")
            return 130 if _interrupted(hist, ctrl_c) else 0
        args_meta = {k: v for k, v in vars(args).items() if k not in ("func", "_parser")}
        final = {k: num(v) for k, v in last.items()}  # nan (a cut evaluation) as "NaN"
        io.save(model, model_path, meta={"args": args_meta, "final": final})
        written.insert(0, model_path)
        if not args.no_plots and ctrl_c.presses == trained_presses:
            ctrl_c.mode = "hold"  # a press skips the pictures not yet begun, at the
            try:  # next checkpoint (never inside matplotlib or a file write)
                _pictures(r, hist, last, written)
            except KeyboardInterrupt:
                skipped = True
            ctrl_c.mode = "defer"
        elif not args.no_plots:
            skipped = True
    except OSError as err:
        print(f"micrograd train: error: {error_line(err, args.out)}", file=sys.stderr)
        return 1
    print(f"wrote {len(written)} files to {os.path.abspath(args.out)}: "
          + ", ".join(os.path.basename(p) for p in written))
    if skipped:
        print("Ctrl-C: the remaining pictures were skipped", file=sys.stderr)
    return 130 if _interrupted(hist, ctrl_c) else 0


def _interrupted(hist, ctrl_c):
    """Ctrl-C was pressed at any point: during training, or while saving."""
    return hist.stopped == "interrupted" or ctrl_c.presses > 0


def _pictures(r, hist, last, written):
    """Learning curves, decision boundary and its animation, each appended to
    ``written`` as soon as it is on disk."""
    from .. import plot

    args, b = r.args, r.built
    Xte, yte = b.X_test or None, b.y_test or None
    written.append(plot.plot_learning_curves(
        hist, path=os.path.join(args.out, "curves.png"), title=args.dataset))
    if r.two_d:
        checkpoint()
        written.append(plot.plot_decision_boundary(
            b.model, b.X_train, b.y_train, Xte, yte,
            path=os.path.join(args.out, "boundary.png"),
            title=f"{args.dataset}: train {last['train_acc']:.0%}"))
        if r.frames:
            checkpoint()
            written.append(plot.animate_boundary(
                b.model, r.frames, b.X_train, b.y_train,
                os.path.join(args.out, "boundary.gif"), Xte, yte,
                title=args.dataset + ", epoch {epoch}"))
