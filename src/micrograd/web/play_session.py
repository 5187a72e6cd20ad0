"""The playground's training sessions: data, model, optimizer, and what the page draws.

    >>> from micrograd.web.playground import Playground, PlayConfig
    >>> pg = Playground(PlayConfig(dataset="circle", samples=100, hidden=[4]))
    >>> pg.train(5)
    >>> pg.state()["step"]
    5

Everything here is computed by micrograd: the data sets (``micrograd.data``), the input
features and the network (``micrograd.nn.MLP`` on Values), the loss
(``micrograd.losses``), the penalties and the optimizer (``micrograd.optim``), trained
with the same graph run batched by ``micrograd.trace``. The decision boundary, each
neuron's picture, the metrics and the one-point graph are that network evaluated on a
grid, on the data and on one point.

What TensorFlow Playground has is here (input features, layers and neurons, L1 and L2,
regression, per-neuron pictures, editable weights), and more: three or more classes
(softmax cross-entropy), points added and removed by hand, optimizer state per
parameter, and the full computational graph of one point through the network.
"""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, field

from ..engine import Value, no_grad
from .. import losses as _losses
from .. import nn as _nn
from ..nn import MLP
from . import limits
from ..viz.graph import num  # the one wire form for inf and nan

#: the page's data set name -> (micrograd.data's name, kind); kind is "classes" or
#: "regression"
DATASETS = {"circle": ("disk", "classes"), "moons": ("moons", "classes"),
            "xor": ("xor", "classes"), "spiral": ("spiral", "classes"),
            "blobs": ("blobs", "classes"), "plane": ("plane", "regression"),
            "gaussians": ("gaussians", "regression")}
#: data sets that can have more than two classes
MULTICLASS = ("spiral", "blobs")
MAX_CLASSES = 5
#: the spread of each blob: the page's noise adds to it (so noise 0 is still clusters)
BLOB_SPREAD = 0.5
ACTIVATIONS = list(_nn.ACTIVATIONS)  # the library's activations, linear included
#: loss -> the output activation it wants (each loss of the library names its own)
LOSSES = {name: spec.output_activation for name, spec in _losses.LOSSES.items()}
OPTIMIZERS = ["sgd", "momentum", "adam"]
MOMENTUM = 0.9

#: input features, each a function of the point's two coordinates as Values
FEATURES = {
    "x1": lambda a, b: a,
    "x2": lambda a, b: b,
    "x1^2": lambda a, b: a * a,
    "x2^2": lambda a, b: b * b,
    "x1*x2": lambda a, b: a * b,
    "sin x1": lambda a, b: a.sin(),
    "sin x2": lambda a, b: b.sin(),
}

#: the playground's own caps (beside micrograd.web.limits')
MAX_LAYERS = 6             # hidden layers
MAX_EDITS = 200            # points added by hand, and points removed
MAX_GRAPH_NODES = 2000     # the one-point graph is drawn up to this many nodes
THUMB = 20                 # each neuron's picture is THUMB x THUMB (every other grid cell)


def play_limits():
    """The playground's own caps, for ``GET /api/meta``."""
    return {"max_layers": MAX_LAYERS, "max_classes": MAX_CLASSES, "max_edits": MAX_EDITS,
            "max_graph_nodes": MAX_GRAPH_NODES, "thumb": THUMB}


class PlaygroundError(ValueError):
    """A set-up the playground refuses (over a cap, or not a valid combination)."""


@dataclass
class PlayConfig:
    dataset: str = "circle"
    classes: int = 2
    noise: float = 0.0
    samples: int = 200
    train_ratio: float = 0.5
    seed: int = 1
    features: list = field(default_factory=lambda: ["x1", "x2"])
    hidden: list = field(default_factory=lambda: [4, 2])
    activation: str = "tanh"
    loss: str = "mse"
    optimizer: str = "sgd"
    lr: float = 0.1
    batch_size: int = 0          # 0: the whole training set each step
    l1: float = 0.0
    l2: float = 0.0
    init_seed: int = 0
    added: list = field(default_factory=list)    # [x1, x2, label] put in by hand
    removed: list = field(default_factory=list)  # indices into the generated points


def task(cfg):
    """``"regression"`` or ``"classes"``: what the data set asks of the network."""
    return DATASETS[cfg.dataset][1] if cfg.dataset in DATASETS else "classes"


def n_outputs(cfg):
    return cfg.classes if cfg.loss == "ce" else 1


def check(cfg):
    """Refuse what the schema cannot express (combinations, sizes); raise PlaygroundError.
    Returns the number of parameters."""
    if cfg.dataset not in DATASETS:
        raise PlaygroundError(f"unknown data set {cfg.dataset!r}; choose one of "
                              f"{', '.join(DATASETS)}")
    if task(cfg) == "regression":
        if cfg.loss != "mse":
            raise PlaygroundError(f"the regression set {cfg.dataset!r} is trained with the "
                                  f"squared error: loss must be 'mse', got {cfg.loss!r}")
        if cfg.classes != 2:
            raise PlaygroundError(f"the regression set {cfg.dataset!r} has no classes; "
                                  "leave classes at 2")
    if not 2 <= cfg.classes <= MAX_CLASSES:
        raise PlaygroundError(f"classes must be 2 to {MAX_CLASSES}, got {cfg.classes}")
    if cfg.classes > 2 and cfg.dataset not in MULTICLASS:
        raise PlaygroundError(f"{cfg.dataset!r} has two classes; {cfg.classes} classes "
                              f"need {' or '.join(MULTICLASS)}")
    if cfg.classes > 2 and cfg.loss != "ce":
        raise PlaygroundError(f"{cfg.classes} classes need the softmax cross-entropy "
                              f"loss 'ce', got {cfg.loss!r}")
    if not cfg.features:
        raise PlaygroundError("choose at least one input feature")
    for f in cfg.features:
        if f not in FEATURES:
            raise PlaygroundError(f"unknown feature {f!r}; features: {', '.join(FEATURES)}")
    if len(set(cfg.features)) != len(cfg.features):
        raise PlaygroundError("a feature is listed twice")
    if not cfg.hidden or len(cfg.hidden) > MAX_LAYERS:
        raise PlaygroundError(f"give 1 to {MAX_LAYERS} hidden layers, got {len(cfg.hidden)}")
    for n in cfg.hidden:
        if not 1 <= n <= limits.MAX_NEURONS:
            raise PlaygroundError(f"a hidden layer has 1 to {limits.MAX_NEURONS} neurons, "
                                  f"got {n}")
    sizes = [len(cfg.features)] + list(cfg.hidden) + [n_outputs(cfg)]
    nparams = sum((a + 1) * b for a, b in zip(sizes, sizes[1:]))
    if nparams > limits.MAX_PARAMETERS:
        raise PlaygroundError(f"this network has {nparams} parameters; the cap is "
                              f"{limits.MAX_PARAMETERS}")
    if len(cfg.added) > MAX_EDITS or len(cfg.removed) > MAX_EDITS:
        raise PlaygroundError(f"at most {MAX_EDITS} points added and {MAX_EDITS} removed")
    for p in cfg.added:
        _check_added(cfg, p)
    for i in cfg.removed:
        if not 0 <= i < cfg.samples:
            raise PlaygroundError(f"removed point {i} is not one of the {cfg.samples} "
                                  "generated points")
    total = cfg.samples - len(set(cfg.removed)) + len(cfg.added)
    ntest = round(cfg.samples * (1 - cfg.train_ratio))
    if ntest < 1 or total - ntest < 2:
        raise PlaygroundError(f"{total} points at train ratio {cfg.train_ratio} leave "
                              "no test or too few train points")
    if cfg.batch_size > total - ntest:
        raise PlaygroundError(f"batch size {cfg.batch_size} is larger than the training set "
                              f"({total - ntest} points); 0 means all of it")
    return nparams


def _check_added(cfg, p):
    if len(p) != 3 or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in p):
        raise PlaygroundError(f"an added point is [x1, x2, label] with finite numbers, got {p}")
    if max(abs(p[0]), abs(p[1])) > 10:
        raise PlaygroundError(f"an added point lies within [-10, 10]^2, got {p[:2]}")
    if task(cfg) == "regression":
        if not -1 <= p[2] <= 1:
            raise PlaygroundError(f"a regression target lies in [-1, 1], got {p[2]}")
    elif cfg.loss == "ce":  # class indices, as the points of a K-logit network carry
        if p[2] != int(p[2]) or not 0 <= p[2] < cfg.classes:
            raise PlaygroundError(f"an added point's class is 0 to {cfg.classes - 1}, "
                                  f"got {p[2]}")
    elif p[2] not in (-1, 1):
        raise PlaygroundError(f"an added point's class is -1 or +1, got {p[2]}")


def make_points(cfg, labels):
    """The generated data (before the split) as ``(X, y)``, page labels converted to the
    loss's convention; hand edits applied (removed points dropped, added ones appended)."""
    from .. import data as _data

    name, kind = DATASETS[cfg.dataset]
    if kind == "regression":
        X, y = _data.REGRESSION[name](n_samples=cfg.samples, noise=cfg.noise, seed=cfg.seed)
    else:
        extra = {"n_classes": cfg.classes} if cfg.dataset in MULTICLASS else {}
        noise = math.hypot(BLOB_SPREAD, cfg.noise) if cfg.dataset == "blobs" else cfg.noise
        X, y = _data.make_dataset(name, n_samples=cfg.samples, noise=noise, seed=cfg.seed,
                                  labels=labels, **extra)
    gone = set(cfg.removed)
    keep = [i for i in range(len(X)) if i not in gone]
    X, y = [X[i] for i in keep], [y[i] for i in keep]
    for x1, x2, lab in cfg.added:
        X.append([float(x1), float(x2)])
        if kind == "regression":
            y.append(float(lab))
        elif labels == "index":
            y.append(int(lab))
        else:
            y.append((1 if lab > 0 else 0) if labels == "01" else (1 if lab > 0 else -1))
    return X, y, keep


class Playground:
    """One training session (a browser tab): data, model, optimizer, history."""

    def __init__(self, cfg, weights=None, step=0):
        """A session for ``cfg``; ``weights`` (every parameter, in ``names`` order) and
        ``step`` restore one that was lost (the optimizer's state starts afresh)."""
        from .. import data as _data
        from ..losses import LOSSES as _LOSSES

        self.nparams = check(cfg)
        self.cfg = cfg
        self.spec = _LOSSES[cfg.loss]
        self.kind = task(cfg)
        self.k = n_outputs(cfg)
        X, y, keep = make_points(cfg, self.spec.labels)
        # each point remembers its index among the generated points (-1: added by hand)
        ids = keep + [-1] * len(cfg.added)
        rows = [list(x) + [i] for x, i in zip(X, ids)]
        test_size = round(cfg.samples * (1 - cfg.train_ratio))
        tr, te, self.y_train, self.y_test = _data.train_test_split(
            rows, y, test_size=test_size, seed=cfg.seed, stratify=self.kind == "classes")
        self.X_train = [r[:2] for r in tr]
        self.X_test = [r[:2] for r in te]
        self.id_train = [r[2] for r in tr]
        self.id_test = [r[2] for r in te]
        r = max(max(abs(c) for p in X for c in p), 1e-6) * 1.1
        self.extent = [-r, r, -r, r]
        n = limits.GRID
        # grid rows from the top (y = r) down, columns left to right (cell centres)
        self.grid = [[-r + (2 * r) * (j + 0.5) / n, r - (2 * r) * (i + 0.5) / n]
                     for i in range(n) for j in range(n)]
        self.inspect = None
        self.reset()
        if weights is not None:
            self.set_weights(weights)
        if step:
            self.step_count = step
            self.seen = step * (min(cfg.batch_size, len(self.X_train)) or len(self.X_train))
            self.history = []
            self._record()

    # -- the network on Values: features, then every layer --------------------------------

    def features(self, x):
        """The input features of one point (a pair of Values) as Values."""
        return [FEATURES[f](x[0], x[1]) for f in self.cfg.features]

    def activations(self, x):
        """Every neuron's output for one point: [features, layer 1, ..., output layer]."""
        h = self.features(x)
        acts = [h]
        for layer in self.model.layers:
            h = [neuron(h) for neuron in layer.neurons]
            acts.append(h)
        return acts

    def forward(self, x):
        """The network's output for one point: a Value (one output) or K logits."""
        out = self.activations(x)[-1]
        return out[0] if self.k == 1 else out

    def _all(self, x):
        return [v for layer in self.activations(x) for v in layer]

    # -- training ---------------------------------------------------------------------

    def reset(self, init_seed=None):
        """New weights from ``init_seed`` (the config's when None), step 0, same data."""
        from ..optim import make_optimizer

        cfg = self.cfg
        if init_seed is not None:
            cfg.init_seed = init_seed
        self.model = MLP(len(cfg.features), list(cfg.hidden) + [self.k],
                         activation=cfg.activation, output_activation=LOSSES[cfg.loss],
                         bias_init="uniform",
                         seed=cfg.init_seed)
        self.params = self.model.parameters()
        self.names = [f"{'w' if i < len(n.w) else 'b'}{li + 1}.{j + 1}"
                      + (f".{i + 1}" if i < len(n.w) else "")
                      for li, layer in enumerate(self.model.layers)
                      for j, n in enumerate(layer.neurons) for i in range(len(n.w) + 1)]
        for p, name in zip(self.params, self.names):
            p.label = name
        if cfg.optimizer == "momentum":
            self.opt = make_optimizer("sgd", self.params, lr=cfg.lr, momentum=MOMENTUM)
        else:
            self.opt = make_optimizer(cfg.optimizer, self.params, lr=cfg.lr)
        self.last_update = [0.0] * len(self.params)
        self.rng = random.Random(cfg.init_seed)
        self.order, self.cursor = [], 0
        self._trace()
        self.step_count = 0
        self.diverged_at = None  # the first step whose loss or weights are not finite
        self.seen = 0  # training points used so far (for the epoch count)
        self.history = []
        self._record()

    def set_weights(self, values):
        """Put the given numbers into the parameters (a lost session restored)."""
        if len(values) != len(self.params):
            raise PlaygroundError(f"{len(values)} weights given; this network has "
                                  f"{len(self.params)} parameters")
        for p, v in zip(self.params, values):
            p.data = float(v)
        self._record(replace=True)

    def set_weight(self, name, value):
        """Edit one weight or bias by its name (``w1.2.1``: layer 1, neuron 2, input 1)."""
        try:
            i = self.names.index(name)
        except ValueError:
            raise PlaygroundError(f"no parameter {name!r} in this network") from None
        self.params[i].data = float(value)
        self._record(replace=True)

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

    def _target(self, y):
        return self.spec.target(y, self.k) if self.k > 1 else float(y)

    def _sample_loss(self, x, y):
        """One sample's loss, with the target as a traced Value (micrograd.losses)."""
        return self.spec.sample(self.forward(x), y)

    def _penalty(self):
        """L1 and L2 penalties over the parameters: l1 * sum |p| + l2 * sum p^2."""
        from ..losses import l2_penalty

        terms = []
        if self.cfg.l1 > 0:
            terms.append(self.cfg.l1 * sum((p.abs() for p in self.params[1:]),
                                           self.params[0].abs()))
        if self.cfg.l2 > 0:
            terms.append(l2_penalty(self.params, self.cfg.l2))
        return sum(terms[1:], terms[0])

    def _trace(self):
        """Trace the model and the loss once; every step then runs batched (NumPy)."""
        self.fast = None
        self.probe = None
        self.sums = None
        try:
            from ..trace import TraceError, trace, trace_loss
        except ModuleNotFoundError:  # pragma: no cover - numpy ships with the serve extra
            return
        X = [self.X_train[0], self.X_train[-1]]
        Y = [self._target(self.y_train[0]), self._target(self.y_train[-1])]
        reg = self._penalty if self.cfg.l1 > 0 or self.cfg.l2 > 0 else None
        try:
            self.fast = trace_loss(self._sample_loss, X, Y, reduction="mean",
                                   regularizer=reg, params=self.params, cache=False)
            self.probe = trace(self._all, X, params=self.params, cache=False)
            self.sums = trace(self._first_sums, X, params=self.model.layers[0].parameters(),
                              cache=False)
        except TraceError:  # pragma: no cover - every model here traces
            self.fast = self.probe = self.sums = None

    def _loss(self, xs, ys):
        """The eager loss of a batch (the path when tracing is unavailable)."""
        outs = [self.forward(x) for x in xs]
        loss = self.spec(outs, ys)
        if self.cfg.l1 > 0 or self.cfg.l2 > 0:
            loss = loss + self._penalty()
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
                self.fast.backward(xs, [self._target(t) for t in ys])
            else:
                self._loss([[Value(a), Value(b)] for a, b in xs], ys).backward()
            before = [p.data for p in self.params]
            self.opt.step()
            self.last_update = [p.data - b for p, b in zip(self.params, before)]
            self.step_count += 1
            self.seen += len(xs)
        if record:
            self._record()

    # -- what the page draws -----------------------------------------------------------

    def _run_all(self, X):
        """Every feature's and neuron's output at each point of X: a NumPy array of rows
        (traced), or a list of rows (eager)."""
        if self.probe is not None:
            return self.probe(X)
        with no_grad():
            return [[v.data for v in self._all([Value(a), Value(b)])] for a, b in X]

    def _scores(self, rows):
        """The outputs from _run_all's rows: floats (one output) or lists of K logits."""
        k = self.k
        if not isinstance(rows, list):
            return rows[:, -1].tolist() if k == 1 else rows[:, -k:].tolist()
        return [r[-1] for r in rows] if k == 1 else [r[-k:] for r in rows]

    def _metrics(self, X, y, T):
        """(loss, accuracy) on a set: the mean per-sample loss (the traced program when
        there is one, else the eager batch loss) and the fraction classified right."""
        from ..losses import accuracy

        scores = self._scores(self._run_all(X))
        if self.fast is not None:
            loss = float(self.fast.per_sample(X, T).mean())
        else:
            with no_grad():
                loss = self.spec(scores, y).data
        acc = None if self.kind == "regression" else accuracy(scores, y)
        return loss, acc

    def _record(self, replace=False):
        if not hasattr(self, "T_train"):
            self.T_train = [self._target(t) for t in self.y_train]
            self.T_test = [self._target(t) for t in self.y_test]
        trl, tra = self._metrics(self.X_train, self.y_train, self.T_train)
        tel, tea = self._metrics(self.X_test, self.y_test, self.T_test)
        self.metrics = {"train_loss": num(trl), "test_loss": num(tel),
                        "train_acc": tra, "test_acc": tea}
        row = [self.step_count, num(trl), num(tel), tra, tea]
        if replace and self.history and self.history[-1][0] == self.step_count:
            self.history[-1] = row
        else:
            self.history.append(row)
        if self.diverged_at is None and not (
                math.isfinite(trl) and all(math.isfinite(p.data) for p in self.params)):
            self.diverged_at = self.step_count
        if len(self.history) > limits.MAX_HISTORY:  # thin the older half, keep the end
            half = len(self.history) // 2
            self.history = self.history[:half:2] + self.history[half:]

    def _grid_rows(self):
        """_run_all on the grid, as a NumPy array (a diverged network's nan kept)."""
        import numpy as np

        return np.asarray(self._run_all(self.grid), dtype=np.float64)

    def boundary(self, rows=None):
        """The output on the grid. One output: ``values`` in [-1, 1] (positive for class
        +1). K classes: ``classes`` (the argmax) and ``values`` (its softmax
        probability)."""
        import numpy as np

        rows = self._grid_rows() if rows is None else rows
        out = {"n": limits.GRID, "extent": self.extent}
        # a nan (a diverged network) travels as "NaN", as every number that is not finite
        # does (viz.graph.num), never as 0 or null
        if self.k == 1:
            s = rows[:, -1]
            c = np.tanh(s / 2) if self.spec.name == "bce" else np.clip(s, -1.0, 1.0)
            out["values"] = [num(v) for v in np.round(c, 4).tolist()]  # bce: 2 sigmoid - 1
            return out
        z = rows[:, -self.k:]
        with np.errstate(invalid="ignore", over="ignore"):
            e = np.exp(z - z.max(axis=1, keepdims=True))
            p = e / e.sum(axis=1, keepdims=True)
        bad = ~np.isfinite(z).all(axis=1)
        out["classes"] = [0 if b else int(c) for b, c in zip(bad, z.argmax(axis=1))]
        out["values"] = [num(float("nan")) if b else v
                         for b, v in zip(bad, np.round(p.max(axis=1), 4).tolist())]
        return out

    def thumbnails(self, rows):
        """Each feature's and neuron's output on every other grid cell (THUMB x THUMB),
        by layer: ``[[[values of neuron j]...] for each layer]``; values rounded to 0.01
        (a picture's colour needs no more)."""
        import numpy as np

        n, step = limits.GRID, limits.GRID // THUMB
        cells = [i * n + j for i in range(0, n, step) for j in range(0, n, step)]
        sub = np.round(np.nan_to_num(np.asarray(rows)[cells], nan=0.0, posinf=1.0,
                                     neginf=-1.0), 2).T.tolist()
        sizes = [len(self.cfg.features)] + list(self.cfg.hidden) + [self.k]
        out, col = [], 0
        for size in sizes:
            out.append(sub[col:col + size])
            col += size
        return out

    def _first_sums(self, x):
        """Each first-layer neuron's weighted sum b + w . features(x), before its
        activation (a Value per neuron)."""
        h = self.features(x)
        out = []
        for n in self.model.layers[0].neurons:
            act = n.b
            for wi, xi in zip(n.w, h):
                act = act + wi * xi
            out.append(act)
        return out

    def zero_lines(self):
        """Where each first-layer neuron's weighted sum is 0, per neuron a list of
        segments ``[xa, ya, xb, yb]`` across the plot. With the features x1 and x2 alone
        the set is a straight line, solved exactly; otherwise a curve, traced through
        the grid (marching squares on the sums the engine computes at the grid points)."""
        if sorted(self.cfg.features) == ["x1", "x2"]:
            return self._straight_zero_lines()
        import numpy as np

        if self.sums is not None:
            S = np.asarray(self.sums(self.grid), dtype=np.float64).reshape(len(self.grid), -1)
        else:
            with no_grad():
                S = np.array([[v.data for v in self._first_sums([Value(a), Value(b)])]
                              for a, b in self.grid])
        n = limits.GRID
        x0, x1, y0, y1 = self.extent
        xs = [x0 + (x1 - x0) * (j + 0.5) / n for j in range(n)]
        ys = [y1 - (y1 - y0) * (i + 0.5) / n for i in range(n)]
        return [self._contour(S[:, k].reshape(n, n), xs, ys) for k in range(S.shape[1])]

    @staticmethod
    def _contour(V, xs, ys):
        """Marching squares: the segments where the grid values V cross 0 (only the
        cells whose corners differ in sign are visited)."""
        import numpy as np

        neg = V < 0
        mixed = ((neg[:-1, :-1] != neg[:-1, 1:]) | (neg[:-1, :-1] != neg[1:, :-1])
                 | (neg[:-1, :-1] != neg[1:, 1:]))
        segs = []
        for i, j in zip(*np.nonzero(mixed)):
            corners = [(xs[j], ys[i], V[i, j]), (xs[j + 1], ys[i], V[i, j + 1]),
                       (xs[j + 1], ys[i + 1], V[i + 1, j + 1]),
                       (xs[j], ys[i + 1], V[i + 1, j])]
            pts = []
            for (xa, ya, va), (xb, yb, vb) in zip(corners, corners[1:] + corners[:1]):
                if (va < 0) != (vb < 0) and math.isfinite(va) and math.isfinite(vb):
                    t = va / (va - vb)
                    pts.append((xa + t * (xb - xa), ya + t * (yb - ya)))
            for k in range(0, len(pts) - 1, 2):
                segs.append([round(float(c), 4) for c in (*pts[k], *pts[k + 1])])
        return segs

    def _straight_zero_lines(self):
        ix, iy = self.cfg.features.index("x1"), self.cfg.features.index("x2")
        x0, x1, y0, y1 = self.extent
        lines = []
        for neuron in self.model.layers[0].neurons:
            a, b, c = neuron.w[ix].data, neuron.w[iy].data, neuron.b.data
            pts = []
            if b != 0:
                for x in (x0, x1):
                    pts.append((x, -(a * x + c) / b))
            if a != 0:
                for y in (y0, y1):
                    pts.append((-(b * y + c) / a, y))
            inside = sorted({p for p in pts if x0 - 1e-9 <= p[0] <= x1 + 1e-9
                             and y0 - 1e-9 <= p[1] <= y1 + 1e-9})
            lines.append([[inside[0][0], inside[0][1], inside[-1][0], inside[-1][1]]]
                         if len(inside) >= 2 else [])
        return lines

    def network(self):
        layers = []
        for layer in self.model.layers:
            layers.append({"w": [[num(w.data) for w in n.w] for n in layer.neurons],
                           "b": [num(n.b.data) for n in layer.neurons]})
        return {"sizes": [len(self.cfg.features)] + list(self.cfg.hidden) + [self.k],
                "features": list(self.cfg.features), "layers": layers}

    def parameters_table(self):
        """Each parameter's name, value, grad (of the last step's loss), optimizer state
        and last update: SGD momentum's buffer, or Adam's two moment estimates."""
        opt = self.opt
        rows = []
        for i, (name, p) in enumerate(zip(self.names, self.params)):
            if self.cfg.optimizer == "adam":
                state = [num(opt.m[i]), num(opt.v[i])]
            elif self.cfg.optimizer == "momentum":
                buf = opt.buf[i]
                state = [num(buf if buf is not None else 0.0)]
            else:
                state = []
            rows.append([name, num(p.data), num(p.grad), state, num(self.last_update[i])])
        state_names = {"adam": ["m", "v"], "momentum": ["momentum"]}.get(
            self.cfg.optimizer, [])
        return {"state": state_names, "rows": rows}

    def points(self):
        def label(t):
            if self.kind == "regression":
                return round(float(t), 4)
            if self.k > 1:
                return int(t)
            return 1 if t > 0 else -1

        def pts(X, y, ids):
            return [[x[0], x[1], label(t), i] for x, t, i in zip(X, y, ids)]
        return {"train": pts(self.X_train, self.y_train, self.id_train),
                "test": pts(self.X_test, self.y_test, self.id_test)}

    # -- one point's whole graph --------------------------------------------------------

    def set_inspect(self, x1, x2, label=None):
        """Follow one point through the network: its graph is rebuilt at every state.
        With a label (a data point's) the graph ends in that point's loss."""
        if label is not None:
            if self.kind == "regression":
                if not -1 <= label <= 1:
                    raise PlaygroundError(f"a regression target lies in [-1, 1], got {label}")
            elif self.k > 1 and (label != int(label) or not 0 <= label < self.k):
                raise PlaygroundError(f"a class is 0 to {self.k - 1}, got {label}")
            elif self.k == 1 and label not in (-1, 1):
                raise PlaygroundError(f"a class is -1 or +1, got {label}")
        self.inspect = {"x": [float(x1), float(x2)], "label": label}
        try:
            return self.point_graph()
        except PlaygroundError:
            self.inspect = None
            raise

    def _point_root(self):
        """The graph of the inspected point on copies of the parameters (so drawing it
        never touches the grads the optimizer reads), forward and backward done."""
        shadow = {id(p): Value(p.data, label=p.label) for p in self.params}
        x = [Value(self.inspect["x"][0], label="x1"), Value(self.inspect["x"][1],
                                                            label="x2")]
        h = [FEATURES[f](x[0], x[1]) for f in self.cfg.features]
        for f, v in zip(self.cfg.features, h):
            if not v.label:
                v.label = f
        for li, layer in enumerate(self.model.layers):
            nxt = []
            for j, n in enumerate(layer.neurons):
                act = shadow[id(n.b)]
                for wi, xi in zip(n.w, h):
                    act = act + shadow[id(wi)] * xi
                out = act if n._act is None else n._act(act)
                out.label = (f"h{li + 1}.{j + 1}" if li < len(self.model.layers) - 1
                             else ("out" if self.k == 1 else f"logit{j + 1}"))
                nxt.append(out)
            h = nxt
        out = h[0] if self.k == 1 else h
        label = self.inspect["label"]
        if label is None and self.k == 1:
            root = out
        else:
            if label is None:  # K logits, no label: the loss if the answer were right
                c = max(range(self.k), key=lambda j: h[j].data)
                t = self.spec.target(c, self.k)
                name = f"loss if class {c}"
            elif self.kind == "regression":
                t, name = float(label), "loss"
            elif self.k > 1:
                t, name = self.spec.target(int(label), self.k), "loss"
            else:
                t = (1.0 if label > 0 else 0.0) if self.spec.labels == "01" else float(label)
                name = "loss"
            tv = [Value(v, label=f"y{j + 1}") for j, v in enumerate(t)] if self.k > 1 \
                else Value(t, label="y")
            root = self.spec.sample(out, tv)
            root.label = name
        root.backward()
        return root

    def point_graph(self, layout=True):
        """The inspected point's graph: ``values`` [[data, grad] per node, in the layout's
        order]; with ``layout`` also the drawing's positions (micrograd.viz)."""
        from ..viz import layout as vlayout, layout_to_dict, trace as vtrace

        from ..viz import forward_order

        root = self._point_root()
        order = forward_order(root)  # the order of micrograd.viz's node ids n0, n1, ...
        out = {"x": self.inspect["x"], "label": self.inspect["label"], "n": len(order),
               "values": [[num(v.data), num(v.grad)] for v in order]}
        if layout:
            nodes, edges = vtrace(root)
            if len(order) > MAX_GRAPH_NODES:
                raise PlaygroundError(f"one point's graph has {len(order)} nodes; it is "
                                      f"drawn up to {MAX_GRAPH_NODES}: use a smaller network")
            out["layout"] = layout_to_dict(vlayout((nodes, edges)))
        out["key"] = self._graph_key()
        out["output"] = num(root.data)
        out["root"] = root.label
        return out

    def _graph_key(self):
        c = self.cfg
        return (f"{self.inspect['x']}|{self.inspect['label']}|{c.features}|{c.hidden}|"
                f"{c.activation}|{c.loss}|{self.k}")

    @property
    def epoch(self):
        return self.seen // len(self.X_train)

    def state(self, *, history="all", points=False, graph_layout=False):
        rows = self._grid_rows()
        out = {"config": asdict(self.cfg), "task": self.kind, "step": self.step_count,
               "epoch": self.epoch, "lr": self.opt.lr, "metrics": self.metrics,
               "nparams": self.nparams,
               "engine": "traced" if self.fast is not None else "eager",
               "diverged": self.diverged_at is not None, "diverged_at": self.diverged_at,
               "history": self.history if history == "all" else self.history[-1:],
               "boundary": self.boundary(rows), "thumbnails": self.thumbnails(rows),
               "zero_lines": self.zero_lines(), "network": self.network(),
               "params": self.parameters_table()}
        if points:
            out["points"] = self.points()
        if self.inspect is not None:
            out["graph"] = self.point_graph(layout=graph_layout)
        return out
