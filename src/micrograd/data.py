"""Small 2-D data sets for classification, in pure Python (lists of floats).

    >>> from micrograd.data import make_moons, train_test_split
    >>> X, y = make_moons(n_samples=100, noise=0.1, seed=1337)
    >>> len(X), X[0][:1] != [], sorted(set(y))
    (100, True, [-1, 1])
    >>> X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, seed=0)
    >>> len(X_train), len(X_test)
    (75, 25)

Every generator takes ``n_samples``, ``noise`` (the standard deviation of Gaussian jitter
added to each coordinate; for ``make_blobs`` the spread of each cluster) and ``seed``
(an int: the same seed gives the same points, on every platform), and returns ``(X, y)``:
``X`` a list of ``[x1, x2]`` lists, ``y`` a list of int labels, in shuffled order.

Labels: two-class sets use ``{-1, +1}`` by default (for a tanh output with MSE, or the
hinge loss); ``labels="01"`` gives ``{0, 1}`` (binary cross-entropy). Sets with more than
two classes use class indices ``0..K-1`` (softmax cross-entropy).

``make_disk`` is the circle experiment's data set: points uniform in a square, labelled by whether
they lie inside the circle of radius 1 centred on the origin; the square's side is
``sqrt(2*pi)``, so half of its area is inside the circle, and by default the two classes
are drawn to exactly half each. ``make_plane`` and ``make_gaussians`` are regression
sets (a float target in [-1, 1], TensorFlow Playground's two), listed in ``REGRESSION``.
``load_digits`` wraps scikit-learn's 8x8 digits (an optional extra). ``as_numpy(X, y)``
converts to arrays when NumPy is wanted.
"""

from __future__ import annotations

import math
import random as _random
from numbers import Real

from . import checks

__all__ = ["make_moons", "make_circles", "make_disk", "make_xor", "make_spiral",
           "make_blobs", "make_dataset", "DATASETS", "make_plane", "make_gaussians",
           "REGRESSION", "train_test_split", "as_numpy", "load_digits"]

_LABELS = (None, "pm1", "01", "index")


# ---------------------------------------------------------------------------------------
# argument checks
# ---------------------------------------------------------------------------------------


def _check_n(n, name="n_samples", low=2):
    return checks.integer(n, name, low=low)


def _check_noise(noise):
    return checks.number(noise, "noise", low=0.0)


def _rng(seed):
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}: {seed!r:.40}")
    return _random.Random(seed)


def _label_map(labels, n_classes):
    """The function class index -> label for the requested convention."""
    if labels not in _LABELS:
        raise ValueError(f"labels must be 'pm1' (-1/+1), '01' or 'index', got {labels!r}")
    if labels is None:
        labels = "pm1" if n_classes == 2 else "index"
    if labels == "pm1":
        if n_classes != 2:
            raise ValueError(f"labels='pm1' needs 2 classes, this set has {n_classes}; "
                             f"use labels='index'")
        return lambda c: 2 * c - 1
    return lambda c: c


def _finish(points, classes, rng, noise, labels, n_classes):
    """Jitter, shuffle, and relabel: the common tail of every generator."""
    to_label = _label_map(labels, n_classes)
    order = list(range(len(points)))
    rng.shuffle(order)
    X, y = [], []
    gauss = rng.gauss
    for i in order:
        x1, x2 = points[i]
        if noise:
            x1 += gauss(0.0, noise)
            x2 += gauss(0.0, noise)
        X.append([x1, x2])
        y.append(to_label(classes[i]))
    return X, y


def _linspace(a, b, n, endpoint=True):
    if n == 1:
        return [a]
    d = (b - a) / ((n - 1) if endpoint else n)
    return [a + i * d for i in range(n)]


# ---------------------------------------------------------------------------------------
# generators
# ---------------------------------------------------------------------------------------


def make_moons(n_samples=100, noise=0.1, seed=0, labels=None):
    """Two interleaving half circles (scikit-learn's ``make_moons`` layout).

    The upper moon (centre (0, 0)) is class -1 (or 0), the lower moon (centre
    (1, 0.5)) class +1; half the points each (the upper one gets the extra point).
    """
    n = _check_n(n_samples)
    noise = _check_noise(noise)
    rng = _rng(seed)
    n_out = n // 2 + n % 2
    n_in = n - n_out
    pts, cls = [], []
    for t in _linspace(0.0, math.pi, n_out):
        pts.append((math.cos(t), math.sin(t)))
        cls.append(0)
    for t in _linspace(0.0, math.pi, n_in):
        pts.append((1.0 - math.cos(t), 0.5 - math.sin(t)))
        cls.append(1)
    return _finish(pts, cls, rng, noise, labels, 2)


def make_circles(n_samples=100, noise=0.05, seed=0, factor=0.5, labels=None):
    """Two concentric rings: the outer of radius 1 is class -1, the inner of radius
    ``factor`` class +1 (scikit-learn's ``make_circles`` layout)."""
    n = _check_n(n_samples)
    noise = _check_noise(noise)
    if isinstance(factor, bool) or not isinstance(factor, Real) or not 0 < factor < 1:
        raise ValueError(f"factor must be a number in (0, 1), got {factor!r}")
    rng = _rng(seed)
    n_out = n // 2 + n % 2
    n_in = n - n_out
    pts, cls = [], []
    for t in _linspace(0.0, 2 * math.pi, n_out, endpoint=False):
        pts.append((math.cos(t), math.sin(t)))
        cls.append(0)
    for t in _linspace(0.0, 2 * math.pi, n_in, endpoint=False):
        pts.append((factor * math.cos(t), factor * math.sin(t)))
        cls.append(1)
    return _finish(pts, cls, rng, noise, labels, 2)


#: half the side of make_disk's square: (2h)^2 = 2*pi, twice the unit circle's area
DISK_HALF_WIDTH = math.sqrt(math.pi / 2.0)


def make_disk(n_samples=100, noise=0.0, seed=0, balanced=True, labels=None):
    """Seed 001's data set: points uniform in the square ``[-h, h]^2`` with
    ``h = sqrt(pi/2)`` (about 1.2533), class +1 inside the circle of radius 1 centred on
    the origin, class -1 outside.

    The square holds twice the circle's area, so about half the points fall inside;
    with ``balanced=True`` (the default) points are drawn until each class has exactly
    its half (each class is still uniform over its region). ``noise`` jitters the points
    after labelling, which blurs the boundary.
    """
    n = _check_n(n_samples)
    noise = _check_noise(noise)
    rng = _rng(seed)
    h = DISK_HALF_WIDTH
    pts, cls = [], []
    if balanced:
        want = [n // 2, n - n // 2]  # outside, inside
        while want[0] or want[1]:
            x1, x2 = rng.uniform(-h, h), rng.uniform(-h, h)
            c = 1 if x1 * x1 + x2 * x2 < 1.0 else 0
            if want[c]:
                want[c] -= 1
                pts.append((x1, x2))
                cls.append(c)
    else:
        for _ in range(n):
            x1, x2 = rng.uniform(-h, h), rng.uniform(-h, h)
            pts.append((x1, x2))
            cls.append(1 if x1 * x1 + x2 * x2 < 1.0 else 0)
    return _finish(pts, cls, rng, noise, labels, 2)


def make_xor(n_samples=100, noise=0.0, seed=0, labels=None):
    """XOR: points uniform in ``[-1, 1]^2``, class +1 where ``x1 * x2 > 0`` (first and
    third quadrants), class -1 elsewhere. ``noise`` jitters the points after labelling."""
    n = _check_n(n_samples)
    noise = _check_noise(noise)
    rng = _rng(seed)
    pts, cls = [], []
    for _ in range(n):
        x1, x2 = rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)
        pts.append((x1, x2))
        cls.append(1 if x1 * x2 > 0 else 0)
    return _finish(pts, cls, rng, noise, labels, 2)


def make_spiral(n_samples=100, noise=0.05, seed=0, n_classes=2, turns=1.0, labels=None):
    """``n_classes`` interleaved spiral arms (CS231n's toy set), each ``turns`` turns
    long, radius growing from 0 to 1; classes take turns, so sizes differ by at most 1."""
    n = _check_n(n_samples)
    noise = _check_noise(noise)
    k = _check_n(n_classes, "n_classes", 2)
    if isinstance(turns, bool) or not isinstance(turns, Real) or not turns > 0:
        raise ValueError(f"turns must be a number > 0, got {turns!r}")
    rng = _rng(seed)
    pts, cls = [], []
    for c in range(k):
        m = n // k + (1 if c < n % k else 0)
        for i in range(m):
            r = (i + 1) / m
            t = 2 * math.pi * (turns * r + c / k)
            pts.append((r * math.cos(t), r * math.sin(t)))
            cls.append(c)
    return _finish(pts, cls, rng, noise, labels, k)


def make_blobs(n_samples=100, noise=0.5, seed=0, n_classes=2, labels=None):
    """``n_classes`` Gaussian clusters of spread ``noise``, centred evenly on the circle
    of radius 2 (so two blobs sit at (2, 0) and (-2, 0)); sizes differ by at most 1."""
    n = _check_n(n_samples)
    noise = _check_noise(noise)
    k = _check_n(n_classes, "n_classes", 2)
    rng = _rng(seed)
    pts, cls = [], []
    for c in range(k):
        m = n // k + (1 if c < n % k else 0)
        cx, cy = 2 * math.cos(2 * math.pi * c / k), 2 * math.sin(2 * math.pi * c / k)
        pts.extend((cx, cy) for _ in range(m))
        cls.extend([c] * m)
    # the cluster spread is the jitter added by _finish
    return _finish(pts, cls, rng, noise, labels, k)


#: name -> (generator, default noise)
DATASETS = {
    "moons": (make_moons, 0.1),
    "circles": (make_circles, 0.05),
    "disk": (make_disk, 0.0),
    "xor": (make_xor, 0.0),
    "spiral": (make_spiral, 0.05),
    "blobs": (make_blobs, 0.5),
}


def make_dataset(name, n_samples=100, noise=None, seed=0, labels=None, **kwargs):
    """A data set of ``DATASETS`` by name; ``noise=None`` takes that set's default."""
    if name not in DATASETS:
        raise ValueError(f"unknown data set {name!r}; choose one of {', '.join(DATASETS)}")
    fn, default_noise = DATASETS[name]
    return fn(n_samples=n_samples, noise=default_noise if noise is None else noise,
              seed=seed, labels=labels, **kwargs)


# ---------------------------------------------------------------------------------------
# regression sets: a real-valued target in [-1, 1] (TensorFlow Playground's two)
# ---------------------------------------------------------------------------------------


def _regression(n_samples, noise, seed, target):
    n = _check_n(n_samples)
    noise = _check_noise(noise)
    rng = _rng(seed)
    X, y = [], []
    for _ in range(n):
        x1, x2 = rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)
        t = target(x1, x2)
        if noise:
            t += rng.gauss(0.0, noise)
        X.append([x1, x2])
        y.append(max(-1.0, min(1.0, t)))
    return X, y


def make_plane(n_samples=100, noise=0.0, seed=0):
    """A tilted plane: points uniform in ``[-1, 1]^2``, target ``(x1 + x2) / 2``.

    ``noise`` is the standard deviation of Gaussian noise added to the target, which is
    then clipped to ``[-1, 1]``. Targets are floats (regression, for a tanh output and
    the squared error)."""
    return _regression(n_samples, noise, seed, lambda a, b: (a + b) / 2.0)


#: (centre x1, centre x2, sign) of make_gaussians' bumps: two rows of three, alternating
_BUMPS = [(-2 / 3, 0.4, 1.0), (0.0, 0.4, -1.0), (2 / 3, 0.4, 1.0),
          (-2 / 3, -0.4, -1.0), (0.0, -0.4, 1.0), (2 / 3, -0.4, -1.0)]


def make_gaussians(n_samples=100, noise=0.0, seed=0):
    """Six Gaussian bumps of alternating sign: points uniform in ``[-1, 1]^2``, target
    the signed bump under each point (the largest in size wins), in ``[-1, 1]``.

    ``noise`` is Gaussian noise on the target (then clipped), as in ``make_plane``."""
    def target(a, b):
        best = 0.0
        for cx, cy, sign in _BUMPS:
            h = sign * math.exp(-((a - cx) ** 2 + (b - cy) ** 2) / (2 * 0.04))
            if abs(h) > abs(best):
                best = h
        return best
    return _regression(n_samples, noise, seed, target)


#: regression sets by name -> generator (targets are floats, no ``labels`` argument)
REGRESSION = {"plane": make_plane, "gaussians": make_gaussians}


# ---------------------------------------------------------------------------------------
# splitting and conversion
# ---------------------------------------------------------------------------------------


def train_test_split(X, y, test_size=0.25, seed=0, stratify=True):
    """Split into ``X_train, X_test, y_train, y_test`` (scikit-learn's order).

    ``test_size`` is a fraction in (0, 1) or a count. With ``stratify`` (the default)
    each class is split in the same proportion, so both parts keep the class balance.
    Deterministic for a given ``seed``.
    """
    X, y = list(X), list(y)
    n = len(X)
    if n != len(y):
        raise ValueError(f"X has {n} samples but y has {len(y)}")
    if n < 2:
        raise ValueError(f"need at least 2 samples to split, got {n}")
    if isinstance(test_size, bool) or not isinstance(test_size, Real):
        raise TypeError(f"test_size must be a number, got {type(test_size).__name__}")
    if isinstance(test_size, int):
        if not 1 <= test_size < n:
            raise ValueError(f"test_size must be a count in 1..{n - 1}, got {test_size}")
        frac = test_size / n
    else:
        if not 0.0 < test_size < 1.0:
            raise ValueError(f"test_size must be a fraction in (0, 1), got {test_size}")
        frac = float(test_size)
    rng = _rng(seed)
    groups = {}
    if stratify:
        for i, c in enumerate(y):
            groups.setdefault(c, []).append(i)
    else:
        groups[None] = list(range(n))
    # the test set has round(frac * n) samples (at least 1, at most n - 1), shared
    # among the classes in proportion to their sizes (largest remainders first)
    total = min(max(int(test_size) if isinstance(test_size, int) else
                    int(math.floor(frac * n + 0.5)), 1), n - 1)
    keys = sorted(groups, key=repr)
    exact = [total * len(groups[k]) / n for k in keys]
    counts = [int(e) for e in exact]
    by_remainder = sorted(range(len(keys)), key=lambda i: (counts[i] - exact[i], i))
    for i in by_remainder[:total - sum(counts)]:
        counts[i] += 1
    test_idx = []
    for key, count in zip(keys, counts):
        idx = groups[key]
        rng.shuffle(idx)
        test_idx.extend(idx[:count])
    test_set = set(test_idx)
    train_idx = [i for i in range(n) if i not in test_set]
    rng.shuffle(train_idx)
    rng.shuffle(test_idx)
    return ([X[i] for i in train_idx], [X[i] for i in test_idx],
            [y[i] for i in train_idx], [y[i] for i in test_idx])


def as_numpy(X, y=None):
    """``X`` as a float64 array of shape (n, d) (and ``y`` as an int array of shape
    (n,)): for plotting or other libraries. Needs NumPy."""
    import numpy as np

    Xa = np.asarray(X, dtype=np.float64)
    if y is None:
        return Xa
    return Xa, np.asarray(y, dtype=np.int64)


def load_digits(n_classes=10, labels="index"):
    """scikit-learn's 8x8 handwritten digits: ``X`` is 64 pixel values scaled to [0, 1],
    ``y`` the digit (``n_classes`` < 10 keeps digits 0..n_classes-1).

    Needs scikit-learn (``pip install -e '.[digits]'``); the data ship inside it, so
    nothing is downloaded.
    """
    k = _check_n(n_classes, "n_classes", 2)
    if k > 10:
        raise ValueError(f"n_classes must be at most 10, got {k}")
    to_label = _label_map(labels, k)
    try:
        from sklearn.datasets import load_digits as _sk_load_digits
    except ImportError as err:
        raise ImportError("load_digits needs scikit-learn: pip install -e '.[digits]' in "
                          "the project's folder (or pip install scikit-learn)") from err
    bunch = _sk_load_digits(n_class=k)
    X = [[float(v) / 16.0 for v in row] for row in bunch.data.tolist()]
    y = [to_label(int(c)) for c in bunch.target.tolist()]
    return X, y
