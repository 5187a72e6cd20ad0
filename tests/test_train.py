"""The fit loop: learning, history, minibatches, schedules, callbacks, Ctrl-C, runners."""

import math
import os
import random
import signal

import pytest
import torch

from micrograd.data import make_disk, make_moons, train_test_split
from micrograd.engine import Value
from micrograd.losses import get_loss
from micrograd.nn import MLP
from micrograd.optim import SGD, Adam, linear_schedule
from micrograd.train import History, StopTraining, evaluate, fit
from micrograd.train_runners import EagerRunner


@pytest.fixture
def disk():
    X, y = make_disk(n_samples=60, seed=2)
    return train_test_split(X, y, test_size=0.25, seed=2)


def weights(model):
    return [p.data for p in model.parameters()]


def test_fit_learns_the_disk(disk):
    Xtr, Xte, ytr, yte = disk
    model = MLP(2, [6, 1], style="lecture", seed=0)
    before, _ = evaluate(model, Xtr, ytr, "mse")
    hist = fit(model, Xtr, ytr, loss="mse", epochs=60, X_test=Xte, y_test=yte,
               optimizer=SGD(model.parameters(), lr=0.2, momentum=0.9), progress=False)
    assert hist.stopped == "completed" and hist.epochs == 60 and hist.steps == 60
    for key in History.KEYS:
        assert len(getattr(hist, key)) == 60, key
    assert hist.train_loss[-1] < 0.5 * before
    assert hist.train_acc[-1] >= 0.9
    after_loss, after_acc = evaluate(model, Xtr, ytr, "mse")
    assert after_loss < hist.train_loss[0]
    assert hist.time == sorted(hist.time)
    d = hist.to_dict()
    assert d["epochs"] == 60 and d["stopped"] == "completed"
    assert "60 epochs" in repr(hist)


def test_full_batch_matches_a_hand_written_loop():
    # fit with the eager runner is exactly micrograd's demo loop
    X, y = make_moons(n_samples=20, seed=1)
    a = MLP(2, [4, 1], activation="relu", output_activation="linear", seed=5)
    b = MLP(2, [4, 1], activation="relu", output_activation="linear", seed=5)
    fit(a, X, y, loss="hinge", l2=1e-4, optimizer=SGD(a.parameters(), lr=1.0),
        schedule=linear_schedule(1.0, 0.1, 5), epochs=5, progress=False)
    for k in range(5):
        scores = [b(x) for x in X]
        losses = [(1 + -yi * si).relu() for yi, si in zip(y, scores)]
        data_loss = sum(losses) * (1.0 / len(losses))
        reg = 1e-4 * sum(p * p for p in b.parameters())
        total = data_loss + reg
        b.zero_grad()
        total.backward()
        lr = 1.0 - 0.9 * k / 5
        for p in b.parameters():
            p.data -= lr * p.grad
    for wa, wb in zip(weights(a), weights(b)):
        assert math.isclose(wa, wb, rel_tol=1e-12, abs_tol=1e-14)


def test_eager_gradients_match_torch():
    X, y = make_moons(n_samples=8, seed=0)
    model = MLP(2, [3, 1], style="lecture", seed=1)
    model.zero_grad()
    loss, acc = EagerRunner().loss_and_grad(model, X, y, get_loss("mse"), 0.01)
    # the same network in torch
    W1 = torch.tensor([[w.data for w in n.w] for n in model.layers[0].neurons],
                      dtype=torch.float64, requires_grad=True)
    b1 = torch.tensor([n.b.data for n in model.layers[0].neurons], dtype=torch.float64,
                      requires_grad=True)
    W2 = torch.tensor([[w.data for w in n.w] for n in model.layers[1].neurons],
                      dtype=torch.float64, requires_grad=True)
    b2 = torch.tensor([n.b.data for n in model.layers[1].neurons], dtype=torch.float64,
                      requires_grad=True)
    Xt = torch.tensor(X, dtype=torch.float64)
    out = torch.tanh(torch.tanh(Xt @ W1.T + b1) @ W2.T + b2)[:, 0]
    ref = ((out - torch.tensor(y, dtype=torch.float64)) ** 2).mean() + 0.01 * sum(
        (t * t).sum() for t in (W1, b1, W2, b2))
    ref.backward()
    assert math.isclose(loss, ref.item(), rel_tol=1e-12)
    tgrads = []
    for Wt, bt in ((W1, b1), (W2, b2)):
        for i in range(Wt.shape[0]):
            tgrads += Wt.grad[i].tolist() + [bt.grad[i].item()]
    for g, t in zip([p.grad for p in model.parameters()], tgrads):
        assert math.isclose(g, t, rel_tol=1e-10, abs_tol=1e-13)
    assert 0.0 <= acc <= 1.0


def test_minibatches_and_schedule(disk):
    Xtr, _, ytr, _ = disk  # 45 points
    model = MLP(2, [4, 1], seed=0)
    seen = []
    sched = linear_schedule(0.5, 0.05, 30)
    hist = fit(model, Xtr, ytr, epochs=6, batch_size=10, schedule=sched, progress=False,
               optimizer=Adam(model.parameters(), lr=0.5),
               callbacks=[lambda e, logs, m: seen.append(logs["lr"])])
    assert hist.steps == 6 * 5  # ceil(45 / 10) steps per epoch
    assert hist.lr == seen == [sched(5 * e - 1) for e in range(1, 7)]


def test_minibatch_order_depends_on_seed(disk):
    Xtr, _, ytr, _ = disk
    runs = []
    for seed in (0, 0, 1):
        model = MLP(2, [4, 1], seed=0)
        fit(model, Xtr, ytr, epochs=2, batch_size=8, seed=seed, progress=False)
        runs.append(weights(model))
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]


def test_callback_stops(disk):
    Xtr, _, ytr, _ = disk
    model = MLP(2, [4, 1], seed=0)
    calls = []

    def cb(epoch, logs, m):
        calls.append(epoch)
        assert m is model and logs["epoch"] == epoch
        return epoch == 3

    hist = fit(model, Xtr, ytr, epochs=10, callbacks=cb, progress=False)
    assert hist.stopped == "callback" and hist.epochs == 3 and calls == [1, 2, 3]

    def raiser(epoch, logs, m):
        if epoch == 2:
            raise StopTraining

    hist = fit(model, Xtr, ytr, epochs=10, callbacks=[raiser], progress=False)
    assert hist.stopped == "callback" and hist.epochs == 2

    # every callback runs after every epoch; one asking to stop is enough, whatever the
    # others after it return
    later = []
    hist = fit(model, Xtr, ytr, epochs=10, progress=False,
               callbacks=[lambda e, logs, m: e == 2, lambda e, logs, m: later.append(e)])
    assert hist.stopped == "callback" and hist.epochs == 2 and later == [1, 2]


def test_keyboard_interrupt_keeps_the_model_as_trained(disk, capsys):
    Xtr, _, ytr, _ = disk
    ref = MLP(2, [4, 1], seed=0)
    fit(ref, Xtr, ytr, epochs=4, progress=False)  # four full epochs, uninterrupted

    model = MLP(2, [4, 1], seed=0)

    def ctrl_c(epoch, logs, m):
        if epoch == 4:
            raise KeyboardInterrupt

    hist = fit(model, Xtr, ytr, epochs=50, callbacks=[ctrl_c], progress=False)
    assert hist.stopped == "interrupted" and hist.epochs == 4 and hist.steps == 4
    assert weights(model) == weights(ref)
    assert "interrupted after epoch 4" in capsys.readouterr().err


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler for the test, whatever this process inherited: a test
    run in a background job starts with SIGINT ignored, and fit rightly leaves an
    ignored SIGINT alone."""
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def press_ctrl_c():
    os.kill(os.getpid(), signal.SIGINT)


def test_real_sigint_finishes_the_step_then_stops(disk, python_sigint):
    Xtr, _, ytr, _ = disk
    model = MLP(2, [4, 1], seed=0)

    def ctrl_c_after_epoch_2(epoch, logs, m):
        if epoch == 2:
            press_ctrl_c()

    hist = fit(model, Xtr, ytr, epochs=50, batch_size=5, callbacks=[ctrl_c_after_epoch_2],
               progress=False)
    assert hist.stopped == "interrupted"
    # Ctrl-C came after epoch 2 (2 x 9 steps of 5 points): the next step finishes, then
    # training stops in the middle of epoch 3
    assert hist.steps == 19 and hist.epochs == 3
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_ignored_sigint_is_left_alone(disk):
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a background job
    try:
        model = MLP(2, [4, 1], seed=0)
        hist = fit(model, *disk[::2], epochs=3, progress=False,
                   callbacks=[lambda e, logs, m: press_ctrl_c()])
        assert hist.stopped == "completed" and hist.epochs == 3
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


class PressingRunner(EagerRunner):
    """Presses Ctrl-C twice, 'by hand', in the middle of step ``at``, once its gradients
    are computed: a double tap."""

    def __init__(self, at):
        self.at, self.calls = at, 0

    def loss_and_grad(self, model, X, y, loss, l2=0.0):
        self.calls += 1
        out = super().loss_and_grad(model, X, y, loss, l2)
        if self.calls == self.at:
            assert any(p.grad != 0.0 for p in model.parameters())
            press_ctrl_c()
            press_ctrl_c()  # raises KeyboardInterrupt here, inside the step
            raise AssertionError("the second press should have interrupted the step")
        return out


def test_second_press_abandons_the_step_and_keeps_history_even(disk, python_sigint):
    Xtr, Xte, ytr, yte = disk
    ref = MLP(2, [4, 1], seed=0)  # exactly the steps that completed: 9 + 4 of 5 points
    fit(ref, Xtr, ytr, epochs=1, batch_size=5, seed=3, runner="eager", progress=False)
    ref_opt = SGD(ref.parameters(), lr=0.1)
    model = MLP(2, [4, 1], seed=0)
    hist = fit(model, Xtr, ytr, epochs=50, batch_size=5, X_test=Xte, y_test=yte, seed=3,
               runner=PressingRunner(at=9 + 5), progress=False)
    assert hist.stopped == "interrupted" and hist.steps == 9 + 4
    assert hist.epochs == 2  # the partial epoch is recorded ...
    for key in History.KEYS:  # ... in every list, its evaluation cut short (nan)
        assert len(getattr(hist, key)) == 2, key
    assert math.isnan(hist.test_loss[-1]) and math.isnan(hist.test_acc[-1])
    assert not math.isnan(hist.test_loss[0])
    # the model holds the weights of the 13 completed steps, with no trace of the 14th
    rng_order = list(range(len(Xtr)))
    rng = random.Random(3)
    rng.shuffle(rng_order)  # epoch 1's order was used by ref; epoch 2's comes next
    rng.shuffle(rng_order)
    for start in range(0, 20, 5):
        idx = rng_order[start:start + 5]
        ref_opt.zero_grad()
        EagerRunner().loss_and_grad(ref, [Xtr[i] for i in idx], [ytr[i] for i in idx],
                                    get_loss("mse"), 0.0)
        ref_opt.step()
    assert weights(model) == weights(ref)
    assert all(p.grad == 0.0 for p in model.parameters())  # no half-made gradient left


def test_second_press_in_the_first_step_records_no_epoch(disk, python_sigint):
    Xtr, Xte, ytr, yte = disk
    model = MLP(2, [4, 1], seed=0)
    before = weights(model)
    hist = fit(model, Xtr, ytr, epochs=5, batch_size=5, X_test=Xte, y_test=yte,
               runner=PressingRunner(at=1), progress=False)
    assert hist.stopped == "interrupted" and hist.steps == 0 and hist.epochs == 0
    assert all(getattr(hist, k) == [] for k in History.KEYS)
    assert weights(model) == before


def test_history_is_evened_out_after_an_interrupt_anywhere():
    # a program's own SIGINT handler may raise in the middle of recording an epoch:
    # fit then drops the partly recorded epoch
    hist = History()
    hist._record(0.5, 0.9, 0.1, (0.6, 0.8), 1.0)
    hist.train_loss.append(0.4)  # epoch 2 cut after its first number
    hist.train_acc.append(0.95)
    hist._even_out()
    assert all(len(getattr(hist, k)) == 1 for k in History.KEYS) and hist.epochs == 1
    no_test = History()
    no_test._record(0.5, 0.9, 0.1, None, 1.0)
    no_test._record(0.4, 0.9, 0.1, None, 2.0)
    no_test.time.pop()
    no_test._even_out()
    assert no_test.epochs == 1 and no_test.test_loss == [] and no_test.lr == [0.1]


def test_an_interrupt_inside_the_bookkeeping_leaves_even_history(disk):
    # under a program's own SIGINT handler (fit's guard stays out of the way) a
    # KeyboardInterrupt may land anywhere: here, between the appends of epoch 3's record
    # (a trace function raises it on that line, as a signal handler would)
    import inspect
    import sys

    lines, start = inspect.getsourcelines(History._record)
    cut = start + next(i for i, line in enumerate(lines) if "self.train_acc.append" in line)
    seen = []

    def local(frame, event, arg):
        if event == "line" and frame.f_lineno == cut:
            seen.append(cut)
            if len(seen) == 3:
                raise KeyboardInterrupt
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code is History._record.__code__ else None

    Xtr, Xte, ytr, yte = disk
    model = MLP(2, [4, 1], seed=0)
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, lambda signum, frame: None)  # the program's own
    sys.settrace(tracer)
    try:
        hist = fit(model, Xtr, ytr, epochs=10, X_test=Xte, y_test=yte, progress=False)
    finally:
        sys.settrace(None)
        signal.signal(signal.SIGINT, before)
    assert hist.stopped == "interrupted" and hist.steps == 3
    for key in History.KEYS:  # epoch 3's half record dropped: two epochs everywhere
        assert len(getattr(hist, key)) == 2, key


class PressingSGD(SGD):
    """Plain SGD that presses Ctrl-C twice in the middle of its third update, after the
    first parameter has moved."""

    def step(self):
        for i, p in enumerate(self.params):
            if self.steps == 2 and i == 1:
                press_ctrl_c()
                press_ctrl_c()
            p.data -= self.lr * p.grad
        self.steps += 1


def test_presses_never_cut_an_optimizer_step_short(disk, python_sigint):
    Xtr, _, ytr, _ = disk
    model, ref = MLP(2, [4, 1], seed=0), MLP(2, [4, 1], seed=0)
    hist = fit(model, Xtr, ytr, epochs=10, optimizer=PressingSGD(model.parameters(), lr=0.1),
               progress=False)
    fit(ref, Xtr, ytr, epochs=3, optimizer=SGD(ref.parameters(), lr=0.1), progress=False)
    assert hist.stopped == "interrupted" and hist.steps == 3 and hist.epochs == 3
    assert weights(model) == weights(ref)  # the third step applied whole


def test_custom_runner_is_used(disk):
    Xtr, Xte, ytr, yte = disk
    calls = {"grad": 0, "eval": 0}

    class CountingRunner(EagerRunner):
        def loss_and_grad(self, model, X, y, loss, l2=0.0):
            calls["grad"] += 1
            assert loss.name == "hinge" and l2 == 0.5
            return super().loss_and_grad(model, X, y, loss, l2)

        def evaluate(self, model, X, y, loss, l2=0.0):
            calls["eval"] += 1
            return super().evaluate(model, X, y, loss, l2)

    model = MLP(2, [4, 1], seed=0)
    fit(model, Xtr, ytr, loss="hinge", l2=0.5, epochs=3, batch_size=20, X_test=Xte,
        y_test=yte, runner=CountingRunner(), progress=False)
    assert calls == {"grad": 9, "eval": 3}

    class ConstantGrad:  # a fake runner: every gradient is 1
        def loss_and_grad(self, model, X, y, loss, l2=0.0):
            for p in model.parameters():
                p.grad += 1.0
            return 0.0, 1.0

        def evaluate(self, model, X, y, loss, l2=0.0):
            return 0.0, 1.0

    model = MLP(2, [4, 1], seed=0)
    w0 = weights(model)
    fit(model, Xtr, ytr, epochs=2, runner=ConstantGrad(), progress=False,
        optimizer=SGD(model.parameters(), lr=0.1))
    assert all(math.isclose(a, b - 0.2, abs_tol=1e-15) for a, b in zip(weights(model), w0))


def test_progress_bar_shows_numbers(disk, capsys):
    Xtr, Xte, ytr, yte = disk
    model = MLP(2, [3, 1], seed=0)
    fit(model, Xtr, ytr, epochs=2, X_test=Xte, y_test=yte, desc="disk-run")
    err = capsys.readouterr().err
    assert "disk-run" in err and "loss=" in err and "test_acc=" in err
    fit(model, Xtr, ytr, epochs=2, progress=False)
    assert capsys.readouterr().err == ""


def test_zero_epochs_and_cross_entropy():
    X = [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    y = [0, 1, 2]
    model = MLP(2, [3], activation="linear", seed=0)
    assert fit(model, X, y, loss="ce", epochs=0, progress=False).epochs == 0
    hist = fit(model, X, y, loss="ce", epochs=30, progress=False,
               optimizer=Adam(model.parameters(), lr=0.1))
    assert hist.train_loss[-1] < hist.train_loss[0]


@pytest.mark.parametrize("kw, err, match", [
    (dict(epochs=-1), ValueError, "epochs must be at least 0"),
    (dict(batch_size=0), ValueError, "batch_size must be at least 1"),
    (dict(l2=-1.0), ValueError, "l2 must be"),
    (dict(l2=float("inf")), ValueError, "l2 must be a finite number"),
    (dict(l2=float("nan")), ValueError, "l2 must be a finite number"),
    (dict(X_test=[[0.0, 0.0]]), ValueError, "both X_test and y_test"),
    (dict(optimizer="sgd"), TypeError, "micrograd.optim optimizer"),
    (dict(loss="nll"), ValueError, "unknown loss"),
])
def test_bad_arguments(kw, err, match):
    model = MLP(2, [2, 1], seed=0)
    with pytest.raises(err, match=match):
        fit(model, [[0.0, 0.0], [1.0, 1.0]], [1, -1], progress=False, **kw)
    with pytest.raises(ValueError, match="X has 2 samples but y has 1"):
        fit(model, [[0.0, 0.0], [1.0, 1.0]], [1], progress=False)


def test_gc_is_paused_during_training_and_restored(disk):
    import gc

    Xtr, _, ytr, _ = disk
    states = []
    model = MLP(2, [3, 1], seed=0)
    assert gc.isenabled()
    fit(model, Xtr, ytr, epochs=1, progress=False,
        callbacks=[lambda e, logs, m: states.append(gc.isenabled())])
    fit(model, Xtr, ytr, epochs=1, progress=False, pause_gc=False,
        callbacks=[lambda e, logs, m: states.append(gc.isenabled())])
    assert states == [False, True]
    assert gc.isenabled()
    gc.disable()
    try:
        fit(model, Xtr, ytr, epochs=1, progress=False)
        assert not gc.isenabled()  # a caller's choice is kept
    finally:
        gc.enable()


def test_training_modules_import_no_numpy_or_matplotlib():
    import subprocess
    import sys

    code = ("import sys, micrograd.train, micrograd.train_runners, micrograd.interrupts,"
            " micrograd.losses, micrograd.optim, micrograd.data,"
            " micrograd.io, micrograd.plot, micrograd.commands.demo,"
            " micrograd.commands.train; "
            "heavy = [m for m in ('numpy', 'matplotlib', 'tqdm', 'torch', 'sklearn')"
            " if m in sys.modules]; print(heavy)")
    src = os.path.join(os.path.dirname(__file__), os.pardir, "src")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": src}, check=True)
    assert out.stdout.strip() == "[]"


def _diverging(runner, **kw):
    X, y = make_moons(n_samples=40, seed=3)
    model = MLP(2, [8, 1], activation="relu", output_activation="linear", seed=3)
    hist = fit(model, X, y, loss="hinge", optimizer=SGD(model.parameters(), lr=1e6),
               epochs=60, X_test=X[:10], y_test=y[:10], progress=False, runner=runner, **kw)
    return model, hist


@pytest.mark.parametrize("runner", ["eager", "traced"])
def test_divergence_is_recorded_and_the_default_trains_on(runner):
    model, hist = _diverging(runner)
    assert hist.stopped == "completed" and hist.epochs == 60  # default unchanged
    k = hist.diverged_at
    assert k is not None and 1 < k <= 60
    assert all(math.isfinite(x) for x in hist.train_loss[:k - 1])
    assert not math.isfinite(hist.train_loss[k - 1])
    assert not all(math.isfinite(w) for w in weights(model))
    d = hist.to_dict()
    assert d["diverged_at"] == k
    safe = hist.to_dict(json_safe=True)
    assert safe["train_loss"][k - 1] in ("NaN", "Infinity", "-Infinity")
    assert safe["train_loss"][:k - 1] == hist.train_loss[:k - 1]
    import json
    json.dumps(safe, allow_nan=False)  # strict JSON


@pytest.mark.parametrize("runner", ["eager", "traced"])
def test_stop_on_nan_stops_after_the_first_bad_epoch(runner, capsys):
    calls = []
    _, full = _diverging(runner)
    model, hist = _diverging(runner, stop_on_nan=True,
                             callbacks=[lambda e, logs, m: calls.append(e)])
    assert hist.stopped == "diverged" and hist.epochs == hist.diverged_at == full.diverged_at
    assert calls == list(range(1, hist.diverged_at))  # not called for the bad epoch
    bad = hist.train_loss[-1]
    assert not math.isfinite(bad)
    assert f"the loss became {bad} at epoch {hist.diverged_at}" in capsys.readouterr().err


def test_finite_training_has_no_divergence(disk):
    Xtr, Xte, ytr, yte = disk
    model = MLP(2, [4, 1], seed=0)
    hist = fit(model, Xtr, ytr, epochs=3, progress=False, stop_on_nan=True)
    assert hist.diverged_at is None and hist.stopped == "completed"
    assert hist.to_dict(json_safe=True)["train_loss"] == hist.train_loss


# ---- silent mistakes are refused ------------------------------------------------------


def test_an_optimizer_of_another_model_is_refused(disk):
    Xtr, _, ytr, _ = disk
    model, other = MLP(2, [4, 1], seed=0), MLP(2, [4, 1], seed=1)
    before = weights(model)
    with pytest.raises(ValueError, match="holds 17 of its 17 parameters from outside"):
        fit(model, Xtr, ytr, optimizer=SGD(other.parameters(), lr=0.1), epochs=2,
            progress=False)
    assert weights(model) == before
    extra = Value(1.0)  # the model's parameters and one more: refused as well
    with pytest.raises(ValueError, match="holds 1 of its 18 parameters from outside"):
        fit(model, Xtr, ytr, optimizer=SGD(model.parameters() + [extra], lr=0.1),
            epochs=1, progress=False)
    assert weights(model) == before
    # a subset of the model's own parameters (the rest frozen) is fine
    last = model.layers[-1].parameters()
    fit(model, Xtr, ytr, optimizer=SGD(last, lr=0.1), epochs=2, progress=False)
    assert weights(model)[:-len(last)] == before[:-len(last)]
    assert weights(model)[-len(last):] != before[-len(last):]


@pytest.mark.parametrize("runner", ["eager", "traced"])
def test_cross_entropy_on_one_output_is_refused_in_every_runner(disk, runner):
    Xtr, _, ytr, _ = disk
    labels = [int(v > 0) for v in ytr]
    model = MLP(2, [4, 1], seed=0)
    for call in (lambda: fit(model, Xtr, labels, loss="ce", runner=runner, epochs=1,
                             progress=False),
                 lambda: evaluate(model, Xtr, labels, "ce", runner=runner)):
        with pytest.raises(ValueError, match="'ce' needs one output .* per class, at least "
                                             "2, but the model has 1 output"):
            call()
    two = MLP(2, [4, 2], seed=0)  # two logits: trains, both runners give the same loss
    loss, acc = evaluate(two, Xtr, labels, "ce", runner=runner)
    ref = torch.nn.functional.cross_entropy(
        torch.tensor([[v.data for v in two(x)] for x in Xtr], dtype=torch.float64),
        torch.tensor(labels))
    assert loss == pytest.approx(ref.item(), rel=1e-12) and 0.0 <= acc <= 1.0


@pytest.mark.parametrize("runner", ["eager", "traced"])
def test_regression_targets_get_no_made_up_accuracy(runner):
    X = [[0.1 * k, 0.2] for k in range(8)]
    y = [5.0 if k % 2 else 7.0 for k in range(8)]
    model = MLP(2, [4, 1], output_activation="linear", seed=0)
    hist = fit(model, X, y, loss="mse", runner=runner, epochs=3, progress=False,
               optimizer=SGD(model.parameters(), lr=0.01))
    assert all(math.isnan(a) for a in hist.train_acc)
    assert all(math.isfinite(v) for v in hist.train_loss)
    assert hist.train_loss[-1] < hist.train_loss[0]
