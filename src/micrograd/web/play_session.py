"""One Playground training session (one browser tab): data, network, optimizer, history.

    >>> from micrograd.experiment import Experiment
    >>> from micrograd.web.play_session import PlaySession
    >>> s = PlaySession(Experiment.from_dict({"dataset": "circle", "samples": 100}))
    >>> s.train(5)
    >>> s.step_count
    5

The set-up is an ``micrograd.experiment.Experiment`` (its one validation, its data,
network, loss and optimizer: ``experiment.build``'s pieces). Everything here is computed
by micrograd: the data sets (``micrograd.data``), the input features and the network
(``micrograd.nn.MLP`` on Values), the loss (``micrograd.losses``), the penalties and the
optimizer (``micrograd.optim``). A step
runs the same graph batched by ``micrograd.trace`` when NumPy is there (compiled once
per session), and through the eager engine otherwise (``traced=False``, or a Python
without NumPy, such as the browser's): the same numbers either way. What the page draws
of a session (the boundary, the pictures, the one-point graph) is in ``play_pictures``.

Standard library and micrograd only: no NumPy import here (the tracer brings its own).
"""

from __future__ import annotations

import math
import random

from .. import experiment as _experiment
from ..engine import Value, no_grad
from ..experiment import FEATURES, n_outputs, task
from ..losses import LOSSES
from ..graph import num  # the one wire form for inf and nan
from . import limits, lowered_play


def round_half_even(x, decimals):
    """``x`` rounded as NumPy's ``round`` does: ``x * 10**decimals`` to the nearest
    integer (ties to even), divided back (so a huge x whose product overflows gives
    inf); nan and inf unchanged, the sign of zero kept. The numbers a traced session's
    arrays give when they round themselves, from the eager engine too."""
    scale = 10.0 ** decimals
    y = x * scale
    if not math.isfinite(y):
        return y / scale
    r = round(y) / scale
    return r if r != 0 else math.copysign(0.0, y)


class PlayError(ValueError):
    """An edit a session refuses (a parameter it does not have, a label its loss
    cannot take, a graph too large to draw)."""


def _numpy_available():
    """Whether NumPy can be imported: the tracer compiles without it, but its programs
    run on it (asked of the import system, so this module imports no NumPy itself)."""
    import importlib.util

    try:
        return importlib.util.find_spec("numpy") is not None
    except (ImportError, ValueError):
        return False


class PlaySession:
    """One training session: data, model, optimizer, metrics and their history."""

    def __init__(self, experiment, weights=None, step=0, *, traced=True):
        """A session for a checked ``experiment``; ``weights`` (every parameter, in
        ``names`` order) and ``step`` restore one that was lost (the optimizer's state
        starts afresh). ``traced=False``: train with the eager engine only (what happens
        anyway when NumPy is missing)."""
        self.nparams = experiment.check()
        self.experiment = exp = experiment
        self.use_tracer = traced
        self.loss_spec = LOSSES[exp.loss]
        self.kind = task(exp)
        self.k = n_outputs(exp)
        X, y, ids = _experiment.make_points(exp, self.loss_spec.labels)
        (self.X_train, self.X_test, self.y_train, self.y_test, self.id_train,
         self.id_test) = _experiment.split(exp, X, y, ids)
        self.T_train = [self._target(t) for t in self.y_train]
        self.T_test = [self._target(t) for t in self.y_test]
        # your own points keep at least the plane [-1.1, 1.1]^2: a few drawn points
        # near the middle do not zoom it in
        r = max(max(abs(c) for p in X for c in p), 1.0 if exp.points else 1e-6) * 1.1
        self.extent = [-r, r, -r, r]
        n = limits.GRID
        # grid rows from the top (y = r) down, columns left to right (cell centres)
        self.grid = [[-r + (2 * r) * (j + 0.5) / n, r - (2 * r) * (i + 0.5) / n]
                     for i in range(n) for j in range(n)]
        self.inspect = None  # the followed point: {"x": [x1, x2], "label": ...} or None
        self.reset()
        if weights is not None:
            self.set_weights(weights)
        if step:
            self.step_count = step
            batch = min(exp.batch_size, len(self.X_train)) or len(self.X_train)
            self.seen = step * batch
            self.history = []
            self._record()

    # -- the network on Values: features, then every layer --------------------------------

    def features(self, x):
        """The input features of one point (a pair of Values) as Values."""
        return [FEATURES[f](x[0], x[1]) for f in self.experiment.features]

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

    def _every_output(self, x):
        return [v for layer in self.activations(x) for v in layer]

    def first_sums(self, x):
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

    # -- set-up and edits -----------------------------------------------------------------

    def reset(self, init_seed=None):
        """New weights from ``init_seed`` (the experiment's when None), step 0, same
        data."""
        if init_seed is not None:
            self.experiment = self.experiment.replace(init_seed=init_seed)
        exp = self.experiment
        self.model = _experiment.make_model(exp)
        self.params = self.model.parameters()
        self.names = [f"{'w' if i < len(n.w) else 'b'}{li + 1}.{j + 1}"
                      + (f".{i + 1}" if i < len(n.w) else "")
                      for li, layer in enumerate(self.model.layers)
                      for j, n in enumerate(layer.neurons) for i in range(len(n.w) + 1)]
        for p, name in zip(self.params, self.names):
            p.label = name
        self.opt = _experiment.make_optimizer(exp, self.params)
        self.last_update = [0.0] * len(self.params)
        self.rng = random.Random(exp.init_seed)
        self.order, self.cursor = [], 0
        self._compile()
        self.step_count = 0
        self.diverged_at = None  # the first step whose loss or weights are not finite
        self.seen = 0  # training points used so far (for the epoch count)
        self.history = []
        self._record()

    def set_weights(self, values):
        """Put the given numbers into the parameters (a lost session restored)."""
        if len(values) != len(self.params):
            raise PlayError(f"{len(values)} weights given; this network has "
                            f"{len(self.params)} parameters")
        for p, v in zip(self.params, values):
            p.data = float(v)
        self._record(replace=True)

    def set_weight(self, name, value):
        """Edit one weight or bias by its name (``w1.2.1``: layer 1, neuron 2, input 1)."""
        try:
            i = self.names.index(name)
        except ValueError:
            raise PlayError(f"no parameter {name!r} in this network") from None
        self.params[i].data = float(value)
        self._record(replace=True)

    def set_lr(self, lr):
        """A new learning rate, from the next step on (no reset)."""
        self.opt.lr = lr
        self.experiment.lr = self.opt.lr

    def check_label(self, label):
        """Refuse a followed point's label that this network's loss cannot take."""
        if label is None:
            return
        if self.kind == "regression":
            if not -1 <= label <= 1:
                raise PlayError(f"a regression target lies in [-1, 1], got {label}")
        elif self.k > 1 and (label != int(label) or not 0 <= label < self.k):
            raise PlayError(f"a class is 0 to {self.k - 1}, got {label}")
        elif self.k == 1 and label not in (-1, 1):
            raise PlayError(f"a class is -1 or +1, got {label}")

    # -- training ---------------------------------------------------------------------

    def _batch(self):
        n = len(self.X_train)
        b = self.experiment.batch_size
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
        return self.loss_spec.target(y, self.k) if self.k > 1 else float(y)

    def _sample_loss(self, x, y):
        """One sample's loss, with the target as a traced Value (micrograd.losses)."""
        return self.loss_spec.sample(self.forward(x), y)

    def _penalty(self):
        """The L1 and L2 penalties over the parameters (micrograd.losses), or None."""
        return _experiment.penalty(self.experiment, self.params)

    def _compile(self):
        """Compile the loss, every neuron's output and the first layer's sums into
        batched programs with ``micrograd.trace``, once; without NumPy (or with
        ``traced=False``) every step runs on the eager engine instead."""
        self.traced_loss = self.traced_outputs = self.traced_sums = None
        if getattr(self, "lowered", None) is not None:
            self.lowered.close()
        self.lowered = self.execution_note = self._cells = None
        if not self.use_tracer:
            return
        from ..trace import TraceError, trace, trace_loss  # (the compiler: stdlib only)

        port = lowered_play.installed()  # the static site's executor, beside Python
        if port is None:
            if not _numpy_available():  # no NumPy and no executor: the eager engine
                return
        exp = self.experiment
        X = [self.X_train[0], self.X_train[-1]]
        Y = [self.T_train[0], self.T_train[-1]]
        reg = self._penalty if exp.l1 > 0 or exp.l2 > 0 else None
        try:
            self.traced_loss = trace_loss(self._sample_loss, X, Y, reduction="mean",
                                          regularizer=reg, params=self.params, cache=False)
            self.traced_outputs = trace(self._every_output, X, params=self.params,
                                        cache=False)
            self.traced_sums = trace(self.first_sums, X,
                                     params=self.model.layers[0].parameters(), cache=False)
        except TraceError as e:  # a user's op without a NumPy kernel: the eager engine
            self.traced_loss = self.traced_outputs = self.traced_sums = None
            self.execution_note = f"eager: {e}" if port is not None else None
            return
        if port is not None:  # the static site: the executor runs the lowered programs
            self._lower(port)

    def _lower(self, port):
        """Lower the traced programs for the executor behind ``port``; an op with no
        lowering (a user's ``define_op``) leaves the session on the eager engine, and
        ``execution_note`` says why."""
        from ..trace import LoweringError

        try:
            self.lowered = lowered_play.LoweredPrograms(
                port, self, self.traced_loss, self.traced_outputs, self.traced_sums)
        except LoweringError as e:
            self.execution_note = f"eager: {e}"
        self.traced_loss = self.traced_outputs = self.traced_sums = None

    @property
    def traced(self):
        """Whether the steps run through ``micrograd.trace`` (else the eager engine)."""
        return self.traced_loss is not None or self.lowered is not None

    @property
    def execution(self):
        """How the steps run: "traced" (the traced program on NumPy), "lowered" (the
        lowered program on the JavaScript executor, outside Python) or "eager" (the
        Value graph, sample by sample)."""
        return "lowered" if self.lowered is not None else (
            "traced" if self.traced_loss is not None else "eager")

    def _loss(self, xs, ys):
        """The eager loss of a batch (the path when tracing is unavailable)."""
        outs = [self.forward(x) for x in xs]
        loss = self.loss_spec(outs, ys)
        penalty = self._penalty()
        return loss if penalty is None else loss + penalty

    def train(self, steps, *, record=True):
        """``steps`` optimizer steps, each on one batch; then records the metrics (unless
        ``record`` is false: the server records once after a request's steps)."""
        for _ in range(steps):
            idx = self._batch()
            xs = [self.X_train[i] for i in idx]
            ys = [self.y_train[i] for i in idx]
            self.opt.zero_grad()
            if self.traced_loss is not None:
                self.traced_loss.backward(xs, [self.T_train[i] for i in idx])
            elif self.lowered is not None:
                self.lowered.backward(idx, len(idx) == len(self.X_train))
            else:
                self._loss([[Value(a), Value(b)] for a, b in xs], ys).backward()
            before = [p.data for p in self.params]
            self.opt.step()
            self.last_update = [p.data - b for p, b in zip(self.params, before)]
            self.step_count += 1
            self.seen += len(xs)
        if record:
            self._record()

    @property
    def sizes(self):
        """The layers' widths: the features, each hidden layer, the outputs."""
        exp = self.experiment
        return [len(exp.features)] + list(exp.hidden) + [self.k]

    @property
    def epoch(self):
        return self.seen // len(self.X_train)

    # -- the network evaluated on many points -------------------------------------------

    def outputs_at(self, X, columns=None):
        """Every feature's and neuron's output at each point of X: a list of rows of
        floats (a diverged network's nan kept); ``columns``: only those outputs (a
        slice), or only one (an index: a float per point). One traced pass when the
        session is traced, else the eager engine."""
        if self.traced_outputs is not None:
            rows = self.traced_outputs(X)  # the tracer's array: cut it there
            return (rows if columns is None else rows[:, columns]).tolist()
        if self.lowered is not None:
            if isinstance(columns, int) and columns < 0:  # the executor sends only that tail
                return self.lowered.columns("outputs", X, first=columns)[0]
            if isinstance(columns, slice) and columns.stop is None and columns.step is None \
                    and (columns.start or 0) < 0:
                cols = self.lowered.columns("outputs", X, first=columns.start)
                return [list(r) for r in zip(*cols)]
            cols = self.lowered.columns("outputs", X)
            if isinstance(columns, int):
                return cols[columns]
            return [list(r) for r in zip(*(cols if columns is None else cols[columns]))]
        with no_grad():
            rows = [[v.data for v in self._every_output([Value(a), Value(b)])]
                    for a, b in X]
        return rows if columns is None else [r[columns] for r in rows]

    def on_grid(self, cells, decimals=2):
        """The grid in one pass of the network: the scores at every grid point
        (``scores_at``'s form) and every output at the grid points ``cells`` (indices),
        rounded to ``decimals``: what the boundary and the pictures are drawn from."""
        k = self.k
        scores = -1 if k == 1 else slice(-k, None)
        if self.traced_outputs is not None:
            rows = self.traced_outputs(self.grid)  # the tracer's array: cut it there
            return rows[:, scores].tolist(), rows[cells].round(decimals).tolist()
        if self.lowered is not None and decimals == lowered_play.PICTURE_DECIMALS:
            top = self.lowered.columns("outputs", self.grid, first=-k)
            if self._cells is None or self._cells[0] != cells:
                self._cells = (list(cells), [self.grid[c] for c in cells])
            pics = self.lowered.pictures(self._cells[1])
            return (top[0] if k == 1 else [list(r) for r in zip(*top)],
                    [list(r) for r in zip(*pics)])
        rows = self.outputs_at(self.grid)
        return ([r[scores] for r in rows],
                [[round_half_even(v, decimals) for v in rows[c]] for c in cells])

    def first_sums_at(self, X):
        """Each first-layer neuron's weighted sum at each point of X: a list of rows."""
        if self.traced_sums is not None:
            return self.traced_sums(X).reshape(len(X), -1).tolist()
        if self.lowered is not None:
            return [list(r) for r in zip(*self.lowered.columns("sums", X))]
        with no_grad():
            return [[v.data for v in self.first_sums([Value(a), Value(b)])] for a, b in X]

    def scores_at(self, X):
        """The network's outputs at each point of X: floats (one output) or K logits."""
        return self.outputs_at(X, columns=-1 if self.k == 1 else slice(-self.k, None))

    def _metrics(self, X, y, T):
        """(loss, accuracy) on a set: the mean per-sample loss (the traced program when
        there is one, else the eager batch loss) and the fraction classified right."""
        from ..losses import plain_accuracy as accuracy  # the scores are floats here

        scores = self.scores_at(X)
        if self.traced_loss is not None:
            loss = float(self.traced_loss.per_sample(X, T).mean())
        elif self.lowered is not None:
            per_sample = self.lowered.columns("loss", X)[0]
            loss = math.fsum(per_sample) / len(per_sample)
        else:
            with no_grad():
                loss = self.loss_spec(scores, y).data
        acc = None if self.kind == "regression" else accuracy(scores, y)
        return loss, acc

    def _record(self, replace=False):
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
