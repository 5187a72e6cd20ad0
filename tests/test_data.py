"""Data sets: shapes, balance, determinism per seed, label conventions, the split."""

import math
import sys
from collections import Counter

import numpy as np
import pytest

from micrograd.data import (DATASETS, DISK_HALF_WIDTH, as_numpy, load_digits, make_blobs,
                            make_circles, make_dataset, make_disk, make_moons, make_spiral,
                            make_xor, train_test_split)

#: every classification set of the registry (the lecture's moons and the Playground's
#: four among them: a set added to DATASETS is tested here without a line more)
TWO_CLASS = list(DATASETS)


@pytest.mark.parametrize("name", TWO_CLASS)
@pytest.mark.parametrize("n", [2, 7, 100])
def test_shapes_labels_and_balance(name, n):
    X, y = make_dataset(name, n_samples=n, seed=3)
    assert len(X) == len(y) == n
    assert all(len(x) == 2 and all(isinstance(v, float) and math.isfinite(v) for v in x)
               for x in X)
    assert set(y) <= {-1, 1}
    counts = Counter(y)
    if name == "xor":  # uniform points: balanced only on average
        assert n < 10 or abs(counts[1] - counts[-1]) <= 0.3 * n
    else:  # constructed to be balanced: halves differ by at most one point
        assert abs(counts[1] - counts[-1]) <= 1


@pytest.mark.parametrize("name", TWO_CLASS)
def test_deterministic_per_seed_and_seeds_differ(name):
    a = make_dataset(name, n_samples=50, seed=11)
    b = make_dataset(name, n_samples=50, seed=11)
    c = make_dataset(name, n_samples=50, seed=12)
    assert a == b
    assert a[0] != c[0]


@pytest.mark.parametrize("name", TWO_CLASS)
def test_zero_one_labels(name):
    X, y = make_dataset(name, n_samples=40, seed=0, labels="01")
    X2, y2 = make_dataset(name, n_samples=40, seed=0)
    assert X == X2
    assert y == [(v + 1) // 2 for v in y2]


def test_disk_is_seed_001s_data_set():
    X, y = make_disk(n_samples=400, seed=5)
    h = DISK_HALF_WIDTH
    assert math.isclose((2 * h) ** 2, 2 * math.pi)  # half the square is inside the circle
    for (x1, x2), c in zip(X, y):
        assert -h <= x1 <= h and -h <= x2 <= h
        assert c == (1 if x1 * x1 + x2 * x2 < 1.0 else -1)
    assert Counter(y) == {1: 200, -1: 200}
    _, y_raw = make_disk(n_samples=2000, seed=5, balanced=False)
    share = y_raw.count(1) / 2000  # about pi / (2 pi) = 1/2 without balancing
    assert 0.45 < share < 0.55


def test_noise_free_geometry():
    X, y = make_moons(n_samples=20, noise=0.0, seed=0)
    for (x1, x2), c in zip(X, y):
        cx, cy = (0.0, 0.0) if c == -1 else (1.0, 0.5)
        assert math.isclose(math.hypot(x1 - cx, x2 - cy), 1.0, rel_tol=1e-12)
    X, y = make_circles(n_samples=20, noise=0.0, factor=0.3, seed=0)
    for (x1, x2), c in zip(X, y):
        assert math.isclose(math.hypot(x1, x2), 1.0 if c == -1 else 0.3, rel_tol=1e-12)
    X, y = make_xor(n_samples=50, seed=0)
    assert all(c == (1 if x1 * x2 > 0 else -1) for (x1, x2), c in zip(X, y))


def test_noise_moves_points():
    clean, _ = make_moons(n_samples=30, noise=0.0, seed=4)
    noisy, _ = make_moons(n_samples=30, noise=0.2, seed=4)
    spread = np.std(np.array(noisy) - np.array(clean))
    assert 0.1 < spread < 0.3


@pytest.mark.parametrize("maker", [make_spiral, make_blobs])
def test_multiclass(maker):
    X, y = maker(n_samples=31, n_classes=3, seed=1)
    assert len(X) == 31 and set(y) == {0, 1, 2}
    counts = Counter(y)
    assert max(counts.values()) - min(counts.values()) <= 1
    with pytest.raises(ValueError, match="labels='pm1' needs 2 classes"):
        maker(n_samples=30, n_classes=3, labels="pm1")


@pytest.mark.parametrize("call, err, match", [
    (lambda: make_moons(n_samples=0), ValueError, "at least 2"),
    (lambda: make_moons(n_samples=2.5), TypeError, "must be an int"),
    (lambda: make_moons(noise=-0.1), ValueError, r"noise must be in \[0.0, inf\)"),
    (lambda: make_moons(noise=float("inf")), ValueError, "noise"),
    (lambda: make_moons(seed="a"), TypeError, "seed must be an int"),
    (lambda: make_moons(labels="+-"), ValueError, "labels must be"),
    (lambda: make_circles(factor=1.5), ValueError, "factor"),
    (lambda: make_spiral(n_classes=1), ValueError, "n_classes"),
    (lambda: make_dataset("mnist"), ValueError, "unknown data set 'mnist'"),
])
def test_bad_arguments(call, err, match):
    with pytest.raises(err, match=match):
        call()


def test_registry_defaults():
    assert {"moons", "circles", "disk", "xor", "spiral", "blobs"} <= set(DATASETS)
    X, _ = make_dataset("moons", n_samples=10, seed=2)
    assert X == make_moons(n_samples=10, noise=0.1, seed=2)[0]


# ---- split ----------------------------------------------------------------------------


@pytest.mark.parametrize("test_size, n_test", [(0.25, 25), (0.5, 50), (10, 10), (0.001, 1)])
def test_split_sizes_and_disjoint(test_size, n_test):
    X, y = make_moons(n_samples=100, seed=0)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=test_size, seed=1)
    assert len(Xte) == len(yte) == n_test
    assert len(Xtr) == len(ytr) == 100 - n_test
    pairs = sorted(map(tuple, Xtr + Xte))
    assert pairs == sorted(map(tuple, X))
    lookup = {tuple(x): c for x, c in zip(X, y)}
    assert all(lookup[tuple(x)] == c for x, c in zip(Xtr + Xte, ytr + yte))


def test_split_stratified_deterministic():
    X, y = make_disk(n_samples=200, seed=0)
    a = train_test_split(X, y, test_size=0.25, seed=7)
    assert a == train_test_split(X, y, test_size=0.25, seed=7)
    assert a != train_test_split(X, y, test_size=0.25, seed=8)
    assert Counter(a[3]) == {1: 25, -1: 25}
    b = train_test_split(X, y, test_size=0.25, seed=7, stratify=False)
    assert len(b[1]) == 50


@pytest.mark.parametrize("kw, match", [
    (dict(test_size=0.0), "fraction in"), (dict(test_size=1.0), "fraction in"),
    (dict(test_size=100), "count in"), (dict(test_size="a"), "number"),
])
def test_split_errors(kw, match):
    X, y = make_moons(n_samples=100, seed=0)
    with pytest.raises((ValueError, TypeError), match=match):
        train_test_split(X, y, **kw)
    with pytest.raises(ValueError, match="X has 100 samples but y has 99"):
        train_test_split(X, y[:-1])


def test_as_numpy():
    X, y = make_moons(n_samples=12, seed=0)
    Xa, ya = as_numpy(X, y)
    assert Xa.shape == (12, 2) and Xa.dtype == np.float64
    assert ya.shape == (12,) and ya.dtype == np.int64
    assert as_numpy(X).shape == (12, 2)


# ---- digits ---------------------------------------------------------------------------


def test_load_digits():
    X, y = load_digits()
    assert len(X) == len(y) == 1797 and len(X[0]) == 64
    assert min(min(r) for r in X) == 0.0 and max(max(r) for r in X) == 1.0
    assert set(y) == set(range(10))
    X3, y3 = load_digits(n_classes=3)
    assert set(y3) == {0, 1, 2}
    _, y2 = load_digits(n_classes=2, labels="pm1")
    assert set(y2) == {-1, 1}
    with pytest.raises(ValueError, match="at most 10"):
        load_digits(n_classes=11)


def test_load_digits_without_scikit_learn(monkeypatch):
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)  # import now fails
    with pytest.raises(ImportError, match=r"pip install -e '\.\[digits\]'"):
        load_digits()
