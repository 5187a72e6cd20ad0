"""Pictures: every file is written and is a valid image of the expected size."""

import numpy as np
import pytest
from PIL import Image

from micrograd.data import make_blobs, make_disk, train_test_split
from micrograd.nn import MLP
from micrograd.plot import (animate_boundary, auto_figsize, plot_comparison,
                            plot_decision_boundary, plot_learning_curves, predict_scores,
                            snapshot)
from micrograd.train import fit


def image_info(path):
    with Image.open(path) as im:
        im.verify()  # a valid image file, not just a name
    with Image.open(path) as im:
        return im.format, im.size, getattr(im, "n_frames", 1)


@pytest.fixture(scope="module")
def trained():
    X, y = make_disk(n_samples=40, seed=0)
    Xtr, Xte, ytr, yte = train_test_split(X, y, seed=0)
    model = MLP(2, [5, 1], seed=0)
    frames = [(0, snapshot(model))]
    hist = fit(model, Xtr, ytr, epochs=4, X_test=Xte, y_test=yte, progress=False,
               callbacks=[lambda e, logs, m: frames.append((e, snapshot(m)))])
    return model, (Xtr, Xte, ytr, yte), hist, frames


def test_decision_boundary_png(tmp_path, trained):
    model, (Xtr, Xte, ytr, yte), _, _ = trained
    path = plot_decision_boundary(model, Xtr, ytr, Xte, yte, path=tmp_path / "b.png",
                                  title="disk", figsize=(4, 3), dpi=50)
    assert image_info(path) == ("PNG", (200, 150), 1)
    # automatic size: from the data's extent
    path = plot_decision_boundary(model, Xtr, ytr, path=tmp_path / "auto.png", dpi=50)
    w, h = auto_figsize(((-1.5, -1.5), (1.5, 1.5)))
    assert w == 6.0 and h == 6.5
    fmt, (pw, ph), _ = image_info(path)
    assert fmt == "PNG" and pw == 300 and 150 <= ph <= 325


def test_learning_curves_png(tmp_path, trained):
    _, _, hist, _ = trained
    path = plot_learning_curves(hist, path=tmp_path / "c.png", dpi=40)
    assert image_info(path) == ("PNG", (360, 144), 1)  # default figsize 9 x 3.6 inches
    plot_learning_curves(hist.to_dict(), path=tmp_path / "d.png", dpi=40)
    with pytest.raises(ValueError, match="history is empty"):
        plot_learning_curves({"train_loss": [], "train_acc": []})


def test_animated_gif(tmp_path, trained):
    model, (Xtr, Xte, ytr, yte), _, frames = trained
    path = animate_boundary(model, frames, Xtr, ytr, tmp_path / "a.gif", Xte, yte,
                            grid=20, figsize=(3, 3), dpi=40)
    assert image_info(path) == ("GIF", (120, 120), 5)
    with pytest.raises(ValueError, match="no frames"):
        animate_boundary(model, [], Xtr, ytr, tmp_path / "b.gif")


def test_comparison_png(tmp_path):
    X, y = make_disk(n_samples=30, seed=1)
    models = [MLP(2, [h, 1], seed=1) for h in (1, 2, 9)]
    path = plot_comparison(models, X, y, ["1", "2", "9"], path=tmp_path / "cmp.png",
                           panel=2.0, dpi=50)
    assert image_info(path) == ("PNG", (300, 120), 1)  # 3 panels of 2 in, + 0.4 in title
    with pytest.raises(ValueError, match="3 models but 2 titles"):
        plot_comparison(models, X, y, ["1", "2"])


def test_multiclass_boundary(tmp_path):
    X, y = make_blobs(n_samples=30, n_classes=3, seed=0)
    model = MLP(2, [4, 3], activation="tanh", output_activation="linear", seed=0)
    path = plot_decision_boundary(model, X, y, path=tmp_path / "m.png", figsize=(3, 3),
                                  dpi=50)
    assert image_info(path) == ("PNG", (150, 150), 1)


def test_figure_without_path_is_returned(trained):
    model, (Xtr, _, ytr, _), _, _ = trained
    fig = plot_decision_boundary(model, Xtr, ytr, figsize=(5, 5))
    assert fig.get_size_inches().tolist() == [5.0, 5.0]


@pytest.mark.parametrize("act, out_act, nouts", [
    ("tanh", None, [4, 1]), ("relu", "linear", [5, 5, 1]), ("sigmoid", "sigmoid", [3, 1]),
    ("softplus", "linear", [3, 2]), ("linear", "tanh", [2, 3]),
])
def test_numpy_scores_match_the_value_graph(act, out_act, nouts):
    model = MLP(2, nouts, activation=act, output_activation=out_act, seed=7)
    pts = np.random.default_rng(0).normal(0, 3, size=(25, 2))
    fast = predict_scores(model, pts)
    for p, s in zip(pts, fast):
        out = model(list(p))
        ref = [v.data for v in out] if isinstance(out, list) else out.data
        assert np.allclose(s, ref, rtol=1e-12, atol=1e-12)
    # from a snapshot: the same numbers, without touching the model
    w = snapshot(model)
    shifted = [v + 0.1 for v in w]
    assert not np.allclose(predict_scores(model, pts, shifted), fast)
    assert snapshot(model) == w


def test_generic_callable_model(tmp_path):
    X, y = make_disk(n_samples=20, seed=0)

    def model(x):
        return 1.0 - x[0] ** 2 - x[1] ** 2  # positive inside the unit circle

    scores = predict_scores(model, np.array(X))
    assert np.array_equal(scores > 0, np.array(y) > 0)
    path = plot_decision_boundary(model, X, y, path=tmp_path / "f.png", grid=15,
                                  figsize=(2, 2), dpi=50)
    assert image_info(path)[1] == (100, 100)
    with pytest.raises(TypeError, match="only for an MLP"):
        predict_scores(model, np.array(X), weights=[0.0])


def test_refuses_points_that_are_not_2d(trained):
    model, _, _, _ = trained
    with pytest.raises(ValueError, match="2-D points"):
        plot_decision_boundary(model, [[0.0, 1.0, 2.0]], [1])
