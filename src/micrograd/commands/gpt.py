"""``micrograd gpt``: train microgpt's GPT on names, on micrograd's own Value, and sample.

The model is microgpt's (Karpathy, 2026), written over micrograd.engine.Value in
micrograd.gpt: a character tokenizer with a BOS token; 16 embedding dimensions, 4
heads, 1 layer, a context of 16; token and position embeddings, RMSNorm, causal
multi-head attention with a key/value cache, a ReLU MLP, a linear head. One name a
step, the mean cross-entropy of its next characters, Adam (lr 0.01 decaying linearly
to 0 over the steps, betas 0.85/0.99). The same names file and seed give microgpt's
losses. Standard library only (tqdm draws the progress bar when it is installed).
"""

from __future__ import annotations

import argparse
import sys
import time

from ..interrupts import checkpoint, ctrl_c_guard
from .arg_types import capped, positive_float, positive_int, whole

EPILOG = """\
examples:
  micrograd gpt                             # 1000 steps on the packaged names, 20 samples
  micrograd gpt --steps 200 --save gpt.json # train briefly and keep the weights
  micrograd gpt --load gpt.json --samples 10 --temperature 0.8   # sample only
  micrograd gpt --load gpt.json --prefix ma # names that begin with "ma"
  micrograd gpt --names my_names.txt        # any UTF-8 file, one name a line

the names: by default the 5,163 first names of the 1990 US census (public domain),
packaged with micrograd (micrograd/gpt/names.txt; its source and licence beside it).
Each step prints its loss; samples are drawn after training with the same random
generator (so one seed gives one run, samples included), and the share of them that
are not in the names file is printed.

--load: the weights, the model's shape and its characters from a file that --save
wrote (micrograd-gpt JSON); --steps then defaults to 0 (sample only). More steps train
on from the loaded weights with a fresh Adam and a rate decaying over those steps.

--runner: eager (default) builds the name's Value graph at every step and walks it, as
microgpt does: its losses are microgpt's. traced records the model once (a few seconds)
as one program of block_size positions (16 in microgpt's model) and runs every name
through it with NumPy, forward and backward, with Adam on one array: the same losses to
about 1e-14, over 30x faster a step for microgpt's model (docs/performance.md). A traced
loss that is not finite stops the training with nothing saved (that step changes no
weight). A model whose program would be over 400,000 nodes (a block_size or n_layer far
past microgpt's) is refused: train it eagerly.

refused with one line and exit code 2: a names file that is missing, empty, binary, not
UTF-8, larger than 4 MB or with more than 256 distinct characters; a model file that
cannot be loaded (nothing is changed); a name or --prefix with a character the model
never saw; an option out of its range.

exit codes: 0 done; 2 refused input; 1 cannot write --save, or training diverged;
130 interrupted (Ctrl-C stops after the current step; --save still writes what was
trained).
"""

CTRL_C = True  # runs under micrograd.interrupts.CtrlC (see micrograd.cli)

MAX_STEPS = 100_000  # about 2 hours at 15 steps a second
MAX_SAMPLES = 10_000
MAX_TEMPERATURE = 100.0
RUNNERS = ("eager", "traced")

steps_count = capped(whole, MAX_STEPS, "the cap on steps")
samples_count = capped(positive_int, MAX_SAMPLES, "the cap on samples")
temperature_value = capped(positive_float, MAX_TEMPERATURE, "the cap on the temperature")


def _seed(text):
    n = whole(text)
    if not 0 <= n < 2**64:
        raise argparse.ArgumentTypeError(f"must be from 0 to 2**64 - 1, got {text}")
    return n


def _steps(text):
    n = steps_count(text)
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {text}")
    return n


def add_parser(subparsers):
    p = subparsers.add_parser(
        "gpt", help="train microgpt's GPT on names (scalar Values) and sample new names",
        description=__doc__, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    t = p.add_argument_group("training")
    t.add_argument("--names", metavar="FILE",
                   help="UTF-8 text, one name a line (default: the packaged census names)")
    t.add_argument("--steps", type=_steps, default=None, metavar="N",
                   help=f"training steps, one name each, at most {MAX_STEPS:,} "
                        f"(default: 1000; 0 with --load)")
    t.add_argument("--seed", type=_seed, default=42,
                   help="seeds the shuffle of the names, the weights and the samples "
                        "(default: 42, microgpt's)")
    t.add_argument("--runner", choices=RUNNERS, default="eager",
                   help="eager (default): the Value graph at every step; traced: the "
                        "model recorded once, each step run with NumPy")
    t.add_argument("--no-progress", action="store_true", help="no progress bar")
    s = p.add_argument_group("sampling")
    s.add_argument("--samples", type=samples_count, default=20, metavar="N",
                   help=f"names to sample after training, at most {MAX_SAMPLES:,} "
                        f"(default: 20)")
    s.add_argument("--no-samples", action="store_true", help="sample nothing")
    s.add_argument("--temperature", type=temperature_value, default=0.5, metavar="T",
                   help="divides the logits before the softmax: below 1 surer, above 1 "
                        "wilder (default: 0.5)")
    s.add_argument("--prefix", default="", metavar="TEXT",
                   help="every sample begins with these letters (default: none)")
    f = p.add_argument_group("weights")
    f.add_argument("--load", metavar="FILE", help="start from weights that --save wrote")
    f.add_argument("--save", metavar="FILE", help="write the trained weights here (JSON)")
    p.set_defaults(func=run, _parser=p)
    return p


def requires(args):
    """The optional packages this run needs (micrograd.cli checks them before it runs)."""
    return ["numpy"] if args.runner == "traced" else []


def _refuse(problem):
    print(f"micrograd gpt: error: {problem}", file=sys.stderr)
    return 2


class _Refused(Exception):
    """Input that the command refuses: the message is the one line it prints."""


def _start(args):
    """``(run, names, steps)``: the run (``micrograd.gpt.train.Run``), the names read and
    the steps to train; ``_Refused`` for input that cannot be used."""
    from ..gpt.data import NamesFileError, UnknownCharacterError, read_names
    from ..gpt.train import Run
    from ..gpt.weights import ModelFileError, load

    try:
        names = read_names(args.names)
    except NamesFileError as err:
        raise _Refused(f"the names file {err}") from None
    steps = args.steps if args.steps is not None else (0 if args.load else 1000)
    model = tokenizer = None
    if args.load:
        try:
            model, tokenizer, _ = load(args.load)
        except (ModelFileError, FileNotFoundError) as err:
            raise _Refused(f"cannot load {args.load!r}: {err}") from None
    try:
        run = Run.start(names, seed=args.seed, steps=max(steps, 1), model=model,
                        tokenizer=tokenizer)
        run.tokenizer.check(args.prefix, "--prefix")
    except UnknownCharacterError as err:
        raise _Refused(str(err)) from None
    if len(args.prefix) >= run.model.config.block_size:
        raise _Refused(f"--prefix is {len(args.prefix)} letters; the model's context holds "
                       f"{run.model.config.block_size - 1} after BOS")
    return run, names, steps


def _check_save(path):
    from ..files import check_target, error_line

    try:
        check_target(path, example="gpt.json")
    except OSError as err:
        print(f"micrograd gpt: error: {error_line(err)}", file=sys.stderr)
        return False
    return True


class _Bar:
    """The tqdm bar on stderr (none with --no-progress, or without tqdm); ``say``
    prints a line on stdout above it."""

    def __init__(self, steps, on):
        self.bar = None
        if on and steps:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                return
            self.bar = tqdm(total=steps, desc="gpt", unit="step", leave=True,
                            dynamic_ncols=True, file=sys.stderr)

    def step(self, loss):
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix(loss=f"{loss:.4f}", refresh=False)

    def say(self, text):
        if self.bar is not None:
            self.bar.write(text, file=sys.stdout)
        else:
            print(text, flush=True)  # a step's line as it comes, through a pipe too

    def close(self):
        if self.bar is not None:
            self.bar.close()


def _train(run, steps, progress, ctrl_c):
    """Train ``steps`` steps (fewer after Ctrl-C or a loss that is not finite): the
    losses of the steps made, and the error of a traced step refused (or None)."""
    import math

    losses = []
    bar = _Bar(steps, progress)
    try:
        for i in range(steps):
            with ctrl_c.interruptible():  # a second press may cut the loss and the grads
                loss = run.backward()
            run.update()  # never cut: the weights are whole when saved
            losses.append(loss)
            bar.step(loss)
            bar.say(f"step {i + 1:4d} / {steps:4d} | loss {loss:.4f}")
            if ctrl_c.hit or not math.isfinite(loss):
                break
    except KeyboardInterrupt:  # a second press, inside a step: that step is dropped
        ctrl_c.hit = True
        run.zero_grad()
    except FloatingPointError as err:  # the traced runner: that step changed nothing
        return losses, err
    finally:
        bar.close()
    return losses, None


def _summary(losses, seconds):
    if not losses:
        return "no step trained"
    tail = losses[-100:]
    return (f"trained {len(losses)} steps in {seconds:.1f} s "
            f"({len(losses) / max(seconds, 1e-9):.1f} steps/s): loss {losses[0]:.4f} "
            f"at step 1, {losses[-1]:.4f} at step {len(losses)}, mean of the last "
            f"{len(tail)} {sum(tail) / len(tail):.4f}")


def _samples(args, run, names):
    known = set(names)
    drawn = [run.sample(args.temperature, args.prefix) for _ in range(args.samples)]
    print(f"--- {len(drawn)} samples at temperature {args.temperature:g} ---")
    for k, name in enumerate(drawn, 1):
        shown = name or "(empty: BOS came first)"
        print(f"sample {k:2d}: {shown}" + ("" if name not in known else "   (in the list)"))
    new = sum(name not in known for name in drawn)
    print(f"{new} of {len(drawn)} samples ({new / len(drawn):.0%}) are not in the names "
          f"file")


def run(args):
    if args.save and not _check_save(args.save):
        return 1
    checkpoint()
    try:
        r, names, steps = _start(args)
    except _Refused as err:
        return _refuse(err)
    source = args.names or "the packaged census list"
    cfg = r.model.config
    print(f"names: {len(names):,} from {source} | vocab {cfg.vocab_size} | "
          f"{len(r.model.params):,} parameters"
          + (f" (loaded from {args.load})" if args.load else "")
          + f" | {steps} steps | seed {args.seed} | runner {args.runner}")
    with ctrl_c_guard() as ctrl_c:
        ctrl_c.mode = "train"
        try:
            trainer = _trainer(args, r, steps, ctrl_c)
        except ValueError as err:  # ProgramTooLarge: nothing was recorded
            return _refuse(err)
        t0 = time.perf_counter()
        losses, refused = [], None
        try:
            if not ctrl_c.hit:  # Ctrl-C while the model was recorded: no step at all
                losses, refused = _train(trainer, steps, not args.no_progress, ctrl_c)
        finally:
            if trainer is not r:
                trainer.close()  # the weights back in their Values
        seconds = time.perf_counter() - t0
        ctrl_c.mode = "defer"  # the weights are written whole, whatever is pressed now
        if steps:
            print(_summary(losses, seconds))
        if refused is not None:
            print(f"micrograd gpt: error: training diverged: {refused}; nothing saved",
                  file=sys.stderr)
            return 1
        return _finish(args, r, names, losses, ctrl_c)


def _trainer(args, r, steps, ctrl_c):
    """What trains: the run itself (eager), or the run on its traced program (recorded
    here, once; a press of Ctrl-C meanwhile stops before any step; ``ProgramTooLarge``,
    a ValueError, for a model whose program would be over the cap)."""
    if args.runner != "traced" or not steps:
        return r
    from ..gpt.traced import TracedRun

    t0 = time.perf_counter()
    try:
        with ctrl_c.interruptible():
            traced = TracedRun(r)
    except KeyboardInterrupt:
        ctrl_c.hit = True
        return r
    print(f"recorded the model as one program of {r.model.config.block_size} positions "
          f"({traced.loss.per_sample.n_traced:,} nodes) in "
          f"{time.perf_counter() - t0:.1f} s", flush=True)
    return traced


def _finish(args, r, names, losses, ctrl_c):
    import math

    from ..files import error_line
    from ..gpt.weights import save

    if losses and not math.isfinite(losses[-1]):
        print(f"micrograd gpt: error: training diverged (the loss became {losses[-1]}); "
              f"nothing saved", file=sys.stderr)
        return 1
    if args.save:
        meta = {"steps": len(losses), "seed": args.seed, "names": args.names or "packaged",
                "losses": [losses[0], losses[-1]] if losses else []}
        try:
            save(r.model, r.tokenizer, args.save, meta=meta)
        except OSError as err:
            print(f"micrograd gpt: error: {error_line(err)}", file=sys.stderr)
            return 1
        print(f"wrote {args.save}")
    if ctrl_c.hit or ctrl_c.presses:
        return 130
    if not args.no_samples:
        ctrl_c.mode = "raise"
        _samples(args, r, names)
    return 0
