"""The playground's training sessions: data, model, optimizer, and what the page draws.

    >>> from micrograd.web.playground import Playground, PlayConfig
    >>> pg = Playground(PlayConfig(dataset="circle", samples=100, hidden=[4]))
    >>> pg.train(5)
    >>> pg.state()["step"]
    5

Everything here is computed by micrograd: the data sets (``micrograd.data``), the network
(``micrograd.nn.MLP``), the loss (``micrograd.losses``) and the optimizer
(``micrograd.optim``), trained with ``Value.backward()``. The decision boundary and the
metrics are the same network evaluated on a grid and on the data.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, field

from ..engine import no_grad
from ..nn import MLP
from . import limits
from .numbers import num

#: the page's data set names -> micrograd.data's
DATASETS = {"circle": "disk", "moons": "moons", "xor": "xor", "spiral": "spiral",
            "blobs": "blobs"}
ACTIVATIONS = ["tanh", "relu", "sigmoid", "softplus", "linear"]
#: loss -> the output activation it wants
LOSSES = {"mse": "tanh", "hinge": "linear", "bce": "linear"}
OPTIMIZERS = ["sgd", "adam"]


class PlaygroundError(ValueError):
    """A set-up the playground refuses (over a cap, or not a valid combination)."""


@dataclass
class PlayConfig:
    dataset: str = "circle"
    noise: float = 0.0
    samples: int = 200
    train_ratio: float = 0.5
    seed: int = 1
    hidden: list = field(default_factory=lambda: [9])
    activation: str = "tanh"
    loss: str = "mse"
    optimizer: str = "sgd"
    lr: float = 0.1
    batch_size: int = 0          # 0: the whole training set each step
    l2: float = 0.0
    init_seed: int = 0


def check(cfg):
    """Refuse what the schema cannot express (combinations, sizes); raise PlaygroundError."""
    if cfg.dataset not in DATASETS:
        raise PlaygroundError(f"unknown data set {cfg.dataset!r}; choose one of "
                              f"{', '.join(DATASETS)}")
    if not cfg.hidden or len(cfg.hidden) > limits.MAX_HIDDEN_LAYERS:
        raise PlaygroundError(f"give 1 to {limits.MAX_HIDDEN_LAYERS} hidden layers, got "
                              f"{len(cfg.hidden)}")
    for n in cfg.hidden:
        if not 1 <= n <= limits.MAX_NEURONS:
            raise PlaygroundError(f"a hidden layer has 1 to {limits.MAX_NEURONS} neurons, "
                                  f"got {n}")
    sizes = [2] + list(cfg.hidden) + [1]
    nparams = sum((a + 1) * b for a, b in zip(sizes, sizes[1:]))
    if nparams > limits.MAX_PARAMETERS:
        raise PlaygroundError(f"this network has {nparams} parameters; the cap is "
                              f"{limits.MAX_PARAMETERS}")
    ntest = round(cfg.samples * (1 - cfg.train_ratio))
    if ntest < 1 or cfg.samples - ntest < 2:
        raise PlaygroundError(f"{cfg.samples} samples at train ratio {cfg.train_ratio} leave "
                              "no test or too few train points")
    if cfg.batch_size > cfg.samples - ntest:
        raise PlaygroundError(f"batch size {cfg.batch_size} is larger than the training set "
                              f"({cfg.samples - ntest} points); 0 means all of it")
    return nparams


class Playground:
    """One training session (a browser tab): data, model, optimizer, history."""

    def __init__(self, cfg):
        from .. import data as _data
        from ..losses import LOSSES as _LOSSES

        check(cfg)
        self.cfg = cfg
        self.spec = _LOSSES[cfg.loss]
        X, y = _data.make_dataset(DATASETS[cfg.dataset], n_samples=cfg.samples,
                                  noise=cfg.noise, seed=cfg.seed, labels=self.spec.labels)
        test_size = round(cfg.samples * (1 - cfg.train_ratio))
        self.X_train, self.X_test, self.y_train, self.y_test = _data.train_test_split(
            X, y, test_size=test_size, seed=cfg.seed)
        r = max(max(abs(c) for p in X for c in p), 1e-6) * 1.1
        self.extent = [-r, r, -r, r]
        n = limits.GRID
        # grid rows from the top (y = r) down, columns left to right (cell centres)
        self.grid = [[-r + (2 * r) * (j + 0.5) / n, r - (2 * r) * (i + 0.5) / n]
                     for i in range(n) for j in range(n)]
        self.reset()

    # -- training ---------------------------------------------------------------------

    def reset(self, init_seed=None):
        from ..optim import make_optimizer

        cfg = self.cfg
        if init_seed is not None:
            cfg.init_seed = init_seed
        self.model = MLP(2, list(cfg.hidden) + [1], activation=cfg.activation,
                         output_activation=LOSSES[cfg.loss], bias_init="uniform",
                         seed=cfg.init_seed)
        self.params = self.model.parameters()
        self.opt = make_optimizer(cfg.optimizer, self.params, lr=cfg.lr)
        self.rng = random.Random(cfg.init_seed)
        self.order, self.cursor = [], 0
        self._trace()
        self.step_count = 0
        self.diverged_at = None  # the first step whose loss or weights are not finite
        self.seen = 0  # training points used so far (for the epoch count)
        self.history = []
        self._record()

    def set_lr(self, lr):
        self.opt.lr = lr
        self.cfg.lr = self.opt.lr

    def _batch(self):
        n = len(self.X_train)
        b = self.cfg.batch_size
        if b <= 0 or b >= n:
            return range(n)
        out = []
        while len(out) < b:
            if self.cursor >= len(self.order):
                self.order = list(range(n))
                self.rng.shuffle(self.order)
                self.cursor = 0
            take = min(b - len(out), len(self.order) - self.cursor)
            out.extend(self.order[self.cursor:self.cursor + take])
            self.cursor += take
        return out

    def _sample_loss(self, x, y):
        """One sample's loss, with the target as a traced Value (micrograd.losses)."""
        return self.spec.sample(self.model(x), y)

    def _l2(self):
        from ..losses import l2_penalty

        return l2_penalty(self.params, self.cfg.l2)

    def _trace(self):
        """Trace the model and the loss once; every step then runs batched (NumPy)."""
        self.fast = None
        self.predict = None
        try:
            from ..trace import TraceError, trace, trace_loss
        except ModuleNotFoundError:  # pragma: no cover - numpy ships with the serve extra
            return
        X, Y = self.X_train[:2], [float(t) for t in self.y_train[:2]]
        try:
            self.fast = trace_loss(self._sample_loss, X, Y, reduction="mean",
                                   regularizer=self._l2 if self.cfg.l2 > 0 else None,
                                   params=self.params, cache=False)
            self.predict = trace(self.model, X, params=self.params, cache=False)
        except TraceError:  # pragma: no cover - every model here traces
            self.fast = self.predict = None

    def _loss(self, xs, ys):
        """The eager loss of a batch (the path when tracing is unavailable)."""
        outs = [self.model(x) for x in xs]
        loss = self.spec(outs, ys)
        if self.cfg.l2 > 0:
            loss = loss + self._l2()
        return loss

    def train(self, steps, *, record=True):
        """``steps`` optimizer steps, each on one batch; then records the metrics (unless
        ``record`` is false: the server records once after a request's steps)."""
        for _ in range(steps):
            idx = self._batch()
            xs = [self.X_train[i] for i in idx]
            ys = [self.y_train[i] for i in idx]
            self.opt.zero_grad()
            if self.fast is not None:
                self.fast.backward(xs, [float(t) for t in ys])
            else:
                self._loss(xs, ys).backward()
            self.opt.step()
            self.step_count += 1
            self.seen += len(xs)
        if record:
            self._record()

    # -- what the page draws -----------------------------------------------------------

    def _scores(self, X):
        """The network's output at each point of X (a list of floats)."""
        if self.predict is not None:
            return self.predict(X).tolist()
        with no_grad():
            return [self.model(x).data for x in X]

    def _metrics(self, X, y):
        from ..losses import accuracy

        scores = self._scores(X)
        with no_grad():
            loss = self.spec(scores, y).data
        return loss, accuracy(scores, y)

    def _record(self):
        trl, tra = self._metrics(self.X_train, self.y_train)
        tel, tea = self._metrics(self.X_test, self.y_test)
        self.metrics = {"train_loss": num(trl), "test_loss": num(tel),
                        "train_acc": tra, "test_acc": tea}
        self.history.append([self.step_count, num(trl), num(tel), tra, tea])
        if self.diverged_at is None and not (
                math.isfinite(trl) and all(math.isfinite(p.data) for p in self.params)):
            self.diverged_at = self.step_count
        if len(self.history) > limits.MAX_HISTORY:  # thin the older half, keep the end
            half = len(self.history) // 2
            self.history = self.history[:half:2] + self.history[half:]

    def confidence(self, scores):
        """Scores as the page colours them: in [-1, 1], positive for class +1."""
        out = self.spec.name
        res = []
        for s in scores:
            if out == "bce":
                c = math.tanh(s / 2)  # = 2 sigmoid(s) - 1
            else:
                c = max(-1.0, min(1.0, s)) if not math.isnan(s) else s  # (min(1, nan) is 1)
            # NOTE: a nan score (a diverged network) travels as "NaN", as every number
            # that is not finite does (web/numbers.py), never as 0 or null
            res.append(round(c, 4) if not math.isnan(c) else num(c))
        return res

    def boundary(self):
        return {"n": limits.GRID, "extent": self.extent,
                "values": self.confidence(self._scores(self.grid))}

    def network(self):
        layers = []
        for layer in self.model.layers:
            layers.append({"w": [[num(w.data) for w in n.w] for n in layer.neurons],
                           "b": [num(n.b.data) for n in layer.neurons]})
        return {"sizes": [2] + list(self.cfg.hidden) + [1], "layers": layers}

    def points(self):
        def pts(X, y):
            return [[x[0], x[1], 1 if t > 0 else -1] for x, t in zip(X, y)]
        return {"train": pts(self.X_train, self.y_train), "test": pts(self.X_test, self.y_test)}

    @property
    def epoch(self):
        return self.seen // len(self.X_train)

    def state(self, *, history="all", points=False):
        out = {"config": asdict(self.cfg), "step": self.step_count, "epoch": self.epoch,
               "lr": self.opt.lr, "metrics": self.metrics,
               "engine": "traced" if self.fast is not None else "eager",
               "diverged": self.diverged_at is not None, "diverged_at": self.diverged_at,
               "history": self.history if history == "all" else self.history[-1:],
               "boundary": self.boundary(), "network": self.network()}
        if points:
            out["points"] = self.points()
        return out
