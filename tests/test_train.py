"""The fit loop: learning, history, minibatches, schedules, callbacks, Ctrl-C, engines."""

import math
import os
import signal

import pytest
import torch

from micrograd.data import make_disk, make_moons, train_test_split
from micrograd.losses import get_loss
from micrograd.nn import MLP
from micrograd.optim import SGD, Adam, linear_schedule
from micrograd.train import EagerEngine, History, StopTraining, evaluate, fit


@pytest.fixture
def disk():
    X, y = make_disk(n_samples=60, seed=2)
    return train_test_split(X, y, test_size=0.25, seed=2)


def weights(model):
    return [p.data for p in model.parameters()]


def test_fit_learns_the_disk(disk):
    Xtr, Xte, ytr, yte = disk
    model = MLP(2, [6, 1], seed=0)
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
    # fit with the eager engine is exactly micrograd's demo loop
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
    model = MLP(2, [3, 1], seed=1)
    model.zero_grad()
    loss, acc = EagerEngine().loss_and_grad(model, X, y, get_loss("mse"), 0.01)
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


def test_real_sigint_finishes_the_step_then_stops(disk):
    Xtr, _, ytr, _ = disk
    model = MLP(2, [4, 1], seed=0)
    before = signal.getsignal(signal.SIGINT)

    def press_ctrl_c(epoch, logs, m):
        if epoch == 2:
            os.kill(os.getpid(), signal.SIGINT)

    hist = fit(model, Xtr, ytr, epochs=50, batch_size=5, callbacks=[press_ctrl_c],
               progress=False)
    assert hist.stopped == "interrupted"
    assert before is signal.default_int_handler  # so fit installed its soft handler
    # Ctrl-C came after epoch 2 (2 x 9 steps of 5 points): the next step finishes, then
    # training stops in the middle of epoch 3
    assert hist.steps == 19 and hist.epochs == 3
    assert signal.getsignal(signal.SIGINT) is before  # handler restored


def test_custom_engine_is_used(disk):
    Xtr, Xte, ytr, yte = disk
    calls = {"grad": 0, "eval": 0}

    class CountingEngine(EagerEngine):
        def loss_and_grad(self, model, X, y, loss, l2=0.0):
            calls["grad"] += 1
            assert loss.name == "hinge" and l2 == 0.5
            return super().loss_and_grad(model, X, y, loss, l2)

        def evaluate(self, model, X, y, loss, l2=0.0):
            calls["eval"] += 1
            return super().evaluate(model, X, y, loss, l2)

    model = MLP(2, [4, 1], seed=0)
    fit(model, Xtr, ytr, loss="hinge", l2=0.5, epochs=3, batch_size=20, X_test=Xte,
        y_test=yte, engine=CountingEngine(), progress=False)
    assert calls == {"grad": 9, "eval": 3}

    class ConstantGrad:  # a fake engine: every gradient is 1
        def loss_and_grad(self, model, X, y, loss, l2=0.0):
            for p in model.parameters():
                p.grad += 1.0
            return 0.0, 1.0

        def evaluate(self, model, X, y, loss, l2=0.0):
            return 0.0, 1.0

    model = MLP(2, [4, 1], seed=0)
    w0 = weights(model)
    fit(model, Xtr, ytr, epochs=2, engine=ConstantGrad(), progress=False,
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

    code = ("import sys, micrograd.train, micrograd.losses, micrograd.optim, micrograd.data,"
            " micrograd.io, micrograd.plot, micrograd.commands.demo,"
            " micrograd.commands.train; "
            "heavy = [m for m in ('numpy', 'matplotlib', 'tqdm', 'torch', 'sklearn')"
            " if m in sys.modules]; print(heavy)")
    src = os.path.join(os.path.dirname(__file__), os.pardir, "src")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": src}, check=True)
    assert out.stdout.strip() == "[]"


def _diverging(engine, **kw):
    X, y = make_moons(n_samples=40, seed=3)
    model = MLP(2, [8, 1], activation="relu", output_activation="linear", seed=3)
    hist = fit(model, X, y, loss="hinge", optimizer=SGD(model.parameters(), lr=1e6),
               epochs=60, X_test=X[:10], y_test=y[:10], progress=False, engine=engine, **kw)
    return model, hist


@pytest.mark.parametrize("engine", ["eager", "traced"])
def test_divergence_is_recorded_and_the_default_trains_on(engine):
    model, hist = _diverging(engine)
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


@pytest.mark.parametrize("engine", ["eager", "traced"])
def test_stop_on_nan_stops_after_the_first_bad_epoch(engine, capsys):
    calls = []
    _, full = _diverging(engine)
    model, hist = _diverging(engine, stop_on_nan=True,
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
