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

from .. import data as _data
from ..interrupts import checkpoint, ctrl_c_guard
from .. import losses as _losses
from .. import nn as _nn
from .. import optim as _optim
from .arg_types import capped, fraction, nonneg_float, positive_float, positive_int
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

limits (refused with exit code 2 before any work): --samples <= 100,000;
--hidden: at most 32 layers of at most 4,096 neurons, 100,000 parameters in all;
--epochs <= 1,000,000; --lr <= 100; --l2, --weight-decay, --noise <= 10; per step,
eager: points x parameters <= 5,000,000; traced: points x neurons <= 20,000,000.

Ctrl-C stops after the current step (twice: at once) and still writes history.json,
model.json and the pictures (a press while they are written waits, then skips the
pictures not yet begun); every file is written whole (a temporary file, then renamed).

exit codes: 0 done; 2 refused options; 1 cannot write the output, or training diverged
(the loss became nan/inf: history.json is written, the model is not; try a smaller --lr);
130 interrupted (Ctrl-C; what was trained so far is written); 141 the reader of the
output went away (a closed pipe).
"""

CTRL_C = True  # runs under micrograd.interrupts.CtrlC (see micrograd.cli)

# the choices, read from the library's registries (a data set, activation, loss,
# optimizer or schedule added there is offered here at once)
DATASETS = (*_data.DATASETS, "digits")  # digits: scikit-learn's, loaded on demand
ACTIVATIONS = tuple(a for a in _nn.ACTIVATIONS if a != "linear")  # hidden layers
LOSSES = tuple(_losses.LOSSES)
OPTIMIZERS = tuple(_optim.OPTIMIZERS)
SCHEDULES = tuple(_optim.SCHEDULES)

# ---------------------------------------------------------------------------------------
# caps: each keeps a run finite in time and memory on a laptop (the traced runner's
# set-up grows faster than linearly with the parameters)
# ---------------------------------------------------------------------------------------

MAX_SAMPLES = 100_000  # points generated (lists of floats: ~30 MB, generated in < 1 s)
MAX_LAYER = 4_096  # neurons per hidden layer
MAX_LAYERS = 32  # hidden layers
MAX_PARAMS = 100_000  # weights + biases of the whole MLP (~14 MB of Values, < 1 min set-up)
MAX_EPOCHS = 1_000_000
MAX_LR = 100.0  # the demo uses 1.0 (sgd) or 0.01 (adam); at 100 every run here blows up
MAX_PENALTY = 10.0  # --l2 and --weight-decay: 1 already pulls every weight to about 0
MAX_NOISE = 10.0  # the data sets live in about [-2, 2]^2: noise 10 is already pure noise
#: the eager runner builds ~2 Values (~140 bytes each) per weight and point of a step
#: (the graph's floats and the interpreter come on top)
MAX_EAGER_WORK = 5_000_000  # points x parameters per step: ~2 GB of memory at most
#: the traced runner keeps a few float64 arrays of the batch's length per neuron
MAX_TRACED_WORK = 20_000_000  # points x neurons: ~160 MB per array


# ---------------------------------------------------------------------------------------
# argument types: refuse nonsense while parsing, before any work
# ---------------------------------------------------------------------------------------


def hidden_sizes(text):
    """``"16,16"`` -> [16, 16]; points at the bad item."""
    items = text.split(",")
    sizes = []
    for i, item in enumerate(items):
        item = item.strip()
        try:
            n = int(item)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"item {i + 1} of {text!r} is {item!r}, not a whole number "
                f"(write sizes like 16,16)") from None
        if n < 1:
            raise argparse.ArgumentTypeError(
                f"item {i + 1} of {text!r} is {n}: a layer needs at least 1 neuron")
        if n > MAX_LAYER:
            raise argparse.ArgumentTypeError(
                f"item {i + 1} of {text!r} is {n:,}: at most {MAX_LAYER:,} neurons per layer")
        sizes.append(n)
    if len(sizes) > MAX_LAYERS:
        raise argparse.ArgumentTypeError(
            f"{len(sizes)} hidden layers: at most {MAX_LAYERS}")
    return sizes


samples_count = capped(positive_int, MAX_SAMPLES, "the cap on generated points")
epochs_count = capped(positive_int, MAX_EPOCHS, "the cap on epochs")
learning_rate = capped(positive_float, MAX_LR, "larger steps only diverge")
penalty = capped(nonneg_float, MAX_PENALTY, "larger values only shrink every weight to 0")
noise_level = capped(nonneg_float, MAX_NOISE, "the points live in about [-2, 2]")


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
    d = p.add_argument_group("data")
    d.add_argument("--dataset", choices=DATASETS, default="moons",
                   help="the data set (default: moons)")
    d.add_argument("--samples", type=samples_count, default=None, metavar="N",
                   help=f"points to generate, at most {MAX_SAMPLES:,} (default: 100; "
                        f"digits: how many of the 1797 images to use, default all)")
    d.add_argument("--noise", type=noise_level, default=None,
                   help=f"noise (std. dev.) of the points, at most {MAX_NOISE:g} "
                        f"(default: the data set's own)")
    d.add_argument("--classes", type=positive_int, default=None, metavar="K",
                   help="classes for spiral / blobs / digits (default 2; digits 10)")
    d.add_argument("--test-fraction", type=fraction, default=0.25, metavar="F",
                   help="share of the points held out for testing, 0 for none "
                        "(default: 0.25)")
    m = p.add_argument_group("model")
    m.add_argument("--hidden", type=hidden_sizes, default=[16, 16], metavar="SIZES",
                   help=f"hidden layer sizes, comma-separated (default: 16,16); at most "
                        f"{MAX_LAYERS} layers of {MAX_LAYER:,}, {MAX_PARAMS:,} parameters "
                        f"in all")
    m.add_argument("--activation", choices=ACTIVATIONS, default="relu",
                   help="hidden-layer activation (default: relu)")
    o = p.add_argument_group("training")
    o.add_argument("--loss", choices=LOSSES, default="hinge",
                   help="loss function, see below (default: hinge)")
    o.add_argument("--l2", type=penalty, default=1e-4, metavar="ALPHA",
                   help=f"L2 penalty alpha*sum(p^2), at most {MAX_PENALTY:g} "
                        f"(default: 1e-4)")
    o.add_argument("--optimizer", choices=OPTIMIZERS, default="sgd",
                   help="optimizer (default: sgd)")
    o.add_argument("--lr", type=learning_rate, default=None,
                   help=f"learning rate, at most {MAX_LR:g} (default: 1.0 for sgd, 0.01 "
                        f"for adam/adamw)")
    o.add_argument("--momentum", type=fraction, default=0.0,
                   help="sgd momentum (default: 0)")
    o.add_argument("--nesterov", action="store_true", help="sgd Nesterov momentum")
    o.add_argument("--weight-decay", type=penalty, default=0.0, metavar="WD",
                   help=f"optimizer weight decay, at most {MAX_PENALTY:g} (default: 0; "
                        f"adamw decouples it)")
    o.add_argument("--schedule", choices=SCHEDULES, default="linear",
                   help="learning-rate schedule over all steps: linear decays to lr/10 "
                        "(micrograd's demo), step divides by 10 at each third, cosine "
                        "anneals to 0 (default: linear)")
    o.add_argument("--epochs", type=epochs_count, default=100,
                   help=f"passes over the training set, at most {MAX_EPOCHS:,} "
                        f"(default: 100)")
    o.add_argument("--batch-size", type=positive_int, default=None, metavar="B",
                   help="samples per step (default: the full batch)")
    o.add_argument("--seed", type=int, default=1337,
                   help="seed of data, split, weights and batches (default: 1337)")
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
    """Cross-option checks; returns an error message or None."""
    from ..experiment import MULTICLASS

    # a loss with one output scores two classes; the sets whose generator takes a count
    one_output = _losses.get_loss(args.loss).outputs == "one"
    many = [name for name in MULTICLASS if name in _data.DATASETS] + ["digits"]
    k = args.classes
    if k is not None and args.dataset not in many:
        return f"--classes applies to {', '.join(many[:-1])} and {many[-1]}, not {args.dataset}"
    if k is not None and k < 2:
        return f"--classes must be at least 2, got {k}"
    if args.dataset == "digits":
        k = 10 if k is None else k
        if k > 10:
            return f"digits has at most 10 classes, got --classes {k}"
        if args.noise is not None:
            return "--noise does not apply to digits"
    k = k or 2
    if one_output and k > 2:
        multi = [n for n, spec in _losses.LOSSES.items() if spec.outputs == "classes"]
        return (f"--loss {args.loss} is for two classes; with {k} classes use --loss "
                f"{' or '.join(multi)}")
    if args.nesterov and (args.optimizer != "sgd" or args.momentum <= 0):
        return "--nesterov needs --optimizer sgd and --momentum > 0"
    if args.momentum and args.optimizer != "sgd":
        return "--momentum applies to --optimizer sgd only"
    if args.samples is not None and args.samples < 4:
        return f"--samples must be at least 4, got {args.samples}"
    n_points = _shape(args)[2]
    if k > n_points:
        return f"--classes {k} is more than the {n_points} points of the data set"
    n_params = count_parameters(args)
    if n_params > MAX_PARAMS:
        what = f"--hidden {','.join(map(str, args.hidden))}"
        if not one_output:
            what += f" with {k} classes"
        return (f"{what} makes an MLP of {n_params:,} parameters; the cap is "
                f"{MAX_PARAMS:,}")
    return None


def _shape(args):
    """(inputs, outputs, points) of the run the arguments describe (upper bounds)."""
    digits = args.dataset == "digits"
    nin = 64 if digits else 2
    k = args.classes or (10 if digits else 2)
    nout = 1 if _losses.get_loss(args.loss).outputs == "one" else k
    n = min(args.samples or 1797, 1797) if digits else (args.samples or 100)
    return nin, nout, n


def count_parameters(args):
    """Weights and biases of the MLP the arguments describe."""
    nin, nout, _ = _shape(args)
    sizes = [nin] + list(args.hidden) + [nout]
    return sum((a + 1) * b for a, b in zip(sizes, sizes[1:]))


def check_work(args, runner):
    """The per-step size checks (they depend on the runner that will run); a message
    or None."""
    nin, nout, n = _shape(args)
    n_train = n - int(n * args.test_fraction)
    per_step = min(args.batch_size or n_train, n_train)
    if runner == "eager":
        work = per_step * count_parameters(args)
        if work > MAX_EAGER_WORK:
            return (f"the eager runner would build a graph of {per_step:,} points x "
                    f"{count_parameters(args):,} parameters = {work:,} weight uses per "
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


def experiment_of(args, n_points, n_classes, lr):
    """The run as a ``micrograd.experiment.Experiment``: the one seed seeds the data, the
    split and the weights; ``--test-fraction`` becomes the train ratio that holds out
    the same number of points (``round(F * N)``, at least 1, at most N - 1)."""
    from ..experiment import Experiment, default_noise

    n_test = 0
    if args.test_fraction > 0:
        n_test = min(max(math.floor(args.test_fraction * n_points + 0.5), 1), n_points - 1)
    digits = args.dataset == "digits"
    noise = 0.0 if digits else (default_noise(args.dataset) if args.noise is None
                                else args.noise)
    return Experiment(
        dataset=args.dataset, classes=n_classes, noise=noise, samples=n_points,
        train_ratio=1 - n_test / n_points, seed=args.seed, hidden=list(args.hidden),
        activation=args.activation, init_seed=args.seed, loss=args.loss,
        optimizer=args.optimizer, momentum=args.momentum, nesterov=args.nesterov,
        weight_decay=args.weight_decay, lr=lr, l2=args.l2)


def _digits(args, labels):
    """scikit-learn's digits, the first ``--samples`` of them (None: not installed)."""
    from ..data import load_digits

    try:
        X, y = load_digits(n_classes=args.classes or 10, labels=labels)
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

    lr = args.lr if args.lr is not None else (1.0 if args.optimizer == "sgd" else 0.01)
    labels = "pm1" if spec.labels == "pm1" else "index"
    if args.dataset == "digits":
        points = _digits(args, labels)
        if points is None:
            return None
        exp = experiment_of(args, len(points[0]), len(set(points[1])), lr)
    else:
        exp = experiment_of(args, args.samples or 100, args.classes or 2, lr)
        points = _own_spread_points(args, exp, labels)
    built = build(exp, points)
    n_train = len(built.X_train)
    bs = args.batch_size if args.batch_size and args.batch_size < n_train else None
    steps = args.epochs * (1 if bs is None else -(-n_train // bs))
    run = Run(args, built, runner, bs, steps, SCHEDULE_FACTORIES[args.schedule](lr, steps),
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
