"""Pictures of training: decision boundaries, learning curves, an animated boundary, and
the 1/2/9-neuron comparison on the circle. Needs matplotlib (``pip install -e '.[demo]'``).

    >>> from micrograd.nn import MLP
    >>> from micrograd.data import make_moons
    >>> from micrograd.plot import plot_decision_boundary
    >>> X, y = make_moons(50, seed=0)
    >>> model = MLP(2, [8, 1], seed=0)
    >>> fig = plot_decision_boundary(model, X, y, figsize=(5, 5))   # no path: a Figure
    >>> fig.get_size_inches().tolist()
    [5.0, 5.0]

matplotlib is imported inside each function, and every figure is drawn on its own Agg
canvas (no pyplot, no window, no global backend switch), so this works on a server and
leaves a notebook's backend alone. With ``path`` a function writes the file (PNG or GIF)
and returns the path; without it returns the ``Figure``. Image sizes are exactly
``figsize * dpi`` pixels (no tight bounding box).

For the background of a boundary picture the model is evaluated on a grid of points
(``grid`` x ``grid``). An ``MLP`` is evaluated with NumPy straight from its weights (the
same arithmetic as the ``Value`` graph, checked by the tests to 1e-12); any other model
is called point by point under ``no_grad``.
"""

from __future__ import annotations

import os

from .files import atomic_path

__all__ = ["plot_decision_boundary", "plot_learning_curves", "animate_boundary",
           "plot_comparison", "snapshot", "predict_scores", "auto_figsize"]

_NEG, _POS = "#d6604d", "#4393c3"  # class -1 / 0 and class +1 / 1


# ---------------------------------------------------------------------------------------
# evaluating a model on many points
# ---------------------------------------------------------------------------------------


def snapshot(model):
    """The model's weights as a list of floats (``parameters()`` order): a GIF frame."""
    return [p.data for p in model.parameters()]


def _np_act(name, np):
    if name == "tanh":
        return np.tanh
    if name == "relu":
        return lambda z: np.maximum(z, 0.0)
    if name == "sigmoid":
        def sig(z):
            e = np.exp(-np.abs(z))
            return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))
        return sig
    if name == "softplus":
        return lambda z: np.logaddexp(0.0, z)
    if name == "linear":
        return lambda z: z
    return None


def _mlp_arrays(model, weights, np):
    """[(W, b, activation)] per layer, from ``weights`` (flat) or the model itself."""
    layers = getattr(model, "layers", None)
    if not layers:
        return None
    flat = iter(weights) if weights is not None else None
    out = []
    for layer in layers:
        neurons = getattr(layer, "neurons", None)
        if not neurons:
            return None
        act = _np_act(getattr(neurons[0], "activation", None), np)
        if act is None or any(n.activation != neurons[0].activation for n in neurons):
            return None
        W, b = [], []
        for n in neurons:
            if flat is None:
                W.append([w.data for w in n.w])
                b.append(n.b.data)
            else:
                W.append([next(flat) for _ in n.w])
                b.append(next(flat))
        out.append((np.array(W, dtype=float), np.array(b, dtype=float), act))
    return out


def predict_scores(model, points, weights=None):
    """The model's outputs on ``points`` (an (n, d) array): shape (n,) for one output,
    (n, K) for K outputs. ``weights`` (a ``snapshot``) replaces the model's own weights
    for this call only (MLPs)."""
    import numpy as np

    pts = np.asarray(points, dtype=float)
    arrays = _mlp_arrays(model, weights, np)
    if arrays is not None:
        h = pts
        for W, b, act in arrays:
            h = act(h @ W.T + b)
        return h[:, 0] if h.shape[1] == 1 else h
    if weights is not None:
        raise TypeError("weights= works only for an MLP")
    from .engine import no_grad

    def num(v):
        return getattr(v, "data", v)

    with no_grad():
        rows = [model(list(map(float, p))) for p in pts]
    if isinstance(rows[0], (list, tuple)):
        return np.array([[num(v) for v in r] for r in rows])
    return np.array([num(r) for r in rows])


def _threshold(model):
    return 0.5 if getattr(model, "output_activation", None) == "sigmoid" else 0.0


def _bounds(*arrays):
    import numpy as np

    arrays = [a for a in arrays if a is not None and len(a)]
    for a in arrays:
        if a.ndim != 2 or a.shape[1] != 2:
            raise ValueError(f"a decision boundary needs 2-D points, got shape {a.shape}")
    pts = np.concatenate(arrays)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    pad = 0.15 * (hi - lo) + 0.1
    return lo - pad, hi + pad


def auto_figsize(bounds, width=6.0):
    """(width, height) in inches for a plot of the box ``bounds`` at equal aspect: the
    height follows the box (between 3 and 6 inches) plus room for the title."""
    (x0, y0), (x1, y1) = bounds
    h = min(max(width * (y1 - y0) / (x1 - x0), 3.0), 6.0)
    return (width, round(h + 0.5, 2))


def _draw_background(ax, model, grid, bounds, weights=None):
    """The predicted scores (binary) or classes over the box.

    Returns ``(artists, binary)``: the new artists (to remove for the next GIF frame)
    and whether the model has one output (a score) rather than one per class."""
    import numpy as np

    lo, hi = bounds
    gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], grid), np.linspace(lo[1], hi[1], grid))
    scores = predict_scores(model, np.c_[gx.ravel(), gy.ravel()], weights)
    if scores.ndim == 1:
        t = _threshold(model)
        scale = 2.0 if t == 0.5 else 1.0
        z = np.clip((scores - t) * scale, -1.0, 1.0).reshape(gx.shape)
        artists = [ax.contourf(gx, gy, z, levels=np.linspace(-1, 1, 11), cmap="RdBu",
                               alpha=0.45, zorder=0)]
        if z.min() < 0 < z.max():
            artists.append(ax.contour(gx, gy, z, levels=[0.0], colors="k", linewidths=1.0,
                                      zorder=1))
        return artists, True
    import matplotlib

    z = scores.argmax(axis=1).reshape(gx.shape)
    # NOTE: pcolormesh, not contourf: contours between classes 0 and 2 would
    # interpolate through a band of class 1
    return [ax.pcolormesh(gx, gy, z % 10, cmap=matplotlib.colormaps["tab10"], vmin=-0.5,
                          vmax=9.5, alpha=0.35, shading="nearest", zorder=0)], False


def _draw_points(ax, X, y, X_test, y_test, binary, bounds):
    import matplotlib
    import numpy as np

    X, y = np.asarray(X, dtype=float), np.asarray(y)
    Xt = None if X_test is None else np.asarray(X_test, dtype=float)
    yt = None if y_test is None else np.asarray(y_test)
    classes = sorted(set(y.tolist()) | (set(yt.tolist()) if yt is not None else set()))
    if binary:
        colors = {c: (_POS if c > 0 else _NEG) for c in classes}
    else:
        cmap = matplotlib.colormaps["tab10"]
        colors = {c: cmap(int(c) % 10) for c in classes}
    signed = binary and min(classes) < 0
    for c in classes:
        name = f"{c:+d}" if signed else f"{c}"
        m = y == c
        ax.scatter(X[m, 0], X[m, 1], s=22, c=[colors[c]], edgecolors="k", linewidths=0.5,
                   label=f"train {name}", zorder=2)
        if yt is not None:
            mt = yt == c
            ax.scatter(Xt[mt, 0], Xt[mt, 1], s=34, marker="^", facecolors="none",
                       edgecolors=[colors[c]], linewidths=1.2, label=f"test {name}",
                       zorder=2)
    lo, hi = bounds
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_aspect("equal", adjustable="box")


def _draw_boundary(ax, model, X, y, X_test, y_test, grid, weights=None, bounds=None):
    """Background of predicted scores / classes, the boundary, and the points."""
    import numpy as np

    if bounds is None:
        bounds = _bounds(np.asarray(X, float), None if X_test is None else
                         np.asarray(X_test, float))
    artists, binary = _draw_background(ax, model, grid, bounds, weights)
    _draw_points(ax, X, y, X_test, y_test, binary, bounds)
    return artists


# ---------------------------------------------------------------------------------------
# figures
# ---------------------------------------------------------------------------------------


def _figure(figsize, dpi):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=dpi)
    FigureCanvasAgg(fig)
    return fig


def _finish(fig, path):
    if path is None:
        return fig
    path = os.fspath(path)
    with atomic_path(path, example="picture.png") as tmp:  # never a half-written picture
        fig.savefig(tmp, dpi=fig.dpi)
    return path


def plot_decision_boundary(model, X, y, X_test=None, y_test=None, path=None, title=None,
                           grid=60, figsize=None, dpi=100):
    """The model's decision regions over the plane, with the training points (filled
    circles) and the test points (hollow triangles); the black line is the boundary
    (score 0, or probability 0.5 for a sigmoid output).

    ``figsize=None`` picks the size from the data's extent: 6 inches wide, the height
    following the aspect ratio (``auto_figsize``)."""
    import numpy as np

    bounds = _bounds(np.asarray(X, float), None if X_test is None else
                     np.asarray(X_test, float))
    fig = _figure(figsize or auto_figsize(bounds), dpi)
    ax = fig.add_subplot(1, 1, 1)
    _draw_boundary(ax, model, X, y, X_test, y_test, grid, bounds=bounds)
    if title:
        ax.set_title(title)
    ax.legend(loc="upper right", fontsize=7, framealpha=0.8)
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.07, top=0.91)
    return _finish(fig, path)


def plot_learning_curves(history, path=None, title=None, figsize=(9, 3.6), dpi=100):
    """Loss (left) and accuracy (right) per epoch, train and (if measured) test."""
    hist = history.to_dict() if hasattr(history, "to_dict") else dict(history)
    n = len(hist["train_loss"])
    if n == 0:
        raise ValueError("the history is empty: train for at least one epoch")
    epochs = list(range(1, n + 1))
    fig = _figure(figsize, dpi)
    ax1, ax2 = fig.subplots(1, 2)
    ax1.plot(epochs, hist["train_loss"], label="train", color=_POS)
    ax2.plot(epochs, [100 * a for a in hist["train_acc"]], label="train", color=_POS)
    if hist.get("test_loss"):
        ax1.plot(epochs, hist["test_loss"], label="test", color=_NEG, linestyle="--")
        ax2.plot(epochs, [100 * a for a in hist["test_acc"]], label="test", color=_NEG,
                 linestyle="--")
    ax1.set_xlabel("epoch")
    ax1.set_ylabel("loss")
    ax1.set_yscale("log" if min(hist["train_loss"]) > 0 else "linear")
    ax2.set_xlabel("epoch")
    ax2.set_ylabel("accuracy (%)")
    ax2.set_ylim(0, 102)
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        ax.legend()
    if title:
        fig.suptitle(title)
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.14, top=0.86, wspace=0.25)
    return _finish(fig, path)


def plot_comparison(models, X, y, titles=None, path=None, X_test=None, y_test=None,
                    title=None, grid=60, panel=4.0, dpi=100):
    """Several models' boundaries on the same data, side by side (the circle's 1, 2 and 9
    hidden neurons). Each panel is ``panel`` inches square."""
    models = list(models)
    if not models:
        raise ValueError("no models to compare")
    titles = list(titles) if titles is not None else [str(i + 1) for i in range(len(models))]
    if len(titles) != len(models):
        raise ValueError(f"{len(models)} models but {len(titles)} titles")
    fig = _figure((panel * len(models), panel + 0.4), dpi)
    axes = fig.subplots(1, len(models), squeeze=False)[0]
    import numpy as np

    bounds = _bounds(np.asarray(X, float), None if X_test is None else
                     np.asarray(X_test, float))
    for ax, model, t in zip(axes, models, titles):
        _draw_boundary(ax, model, X, y, X_test, y_test, grid, bounds=bounds)
        ax.set_title(t, fontsize=10)
    if title:
        fig.suptitle(title)
    fig.subplots_adjust(left=0.04, right=0.98, bottom=0.06, top=0.86, wspace=0.15)
    return _finish(fig, path)


def animate_boundary(model, frames, X, y, path, X_test=None, y_test=None, fps=8,
                     grid=50, figsize=None, dpi=80, title="epoch {epoch}"):
    """An animated GIF of the decision boundary as it evolved during training.

    ``frames`` is a list of ``(epoch, weights)`` pairs, ``weights`` from
    ``snapshot(model)`` (record them with a ``fit`` callback); ``model`` gives the
    architecture. Written with matplotlib's Pillow writer; returns ``path``.
    ``figsize=None`` follows the data's extent, 5 inches wide (``auto_figsize``).
    """
    from matplotlib.animation import PillowWriter

    frames = list(frames)
    if not frames:
        raise ValueError("no frames to animate")
    import numpy as np

    bounds = _bounds(np.asarray(X, float), None if X_test is None else
                     np.asarray(X_test, float))
    fig = _figure(figsize or auto_figsize(bounds, width=5.0), dpi)
    ax = fig.add_subplot(1, 1, 1)
    fig.subplots_adjust(left=0.1, right=0.96, bottom=0.08, top=0.9)
    writer = PillowWriter(fps=fps)
    path = os.fspath(path)
    with atomic_path(path, example="boundary.gif") as tmp, writer.saving(fig, tmp, dpi):
        background = None
        for epoch, weights in frames:
            if background is None:  # first frame: everything
                background = _draw_boundary(ax, model, X, y, X_test, y_test, grid,
                                            weights=weights, bounds=bounds)
            else:  # later frames: only the background changes
                for artist in background:
                    artist.remove()
                background, _ = _draw_background(ax, model, grid, bounds, weights)
            ax.set_title(title.format(epoch=epoch))
            writer.grab_frame()
    return path
