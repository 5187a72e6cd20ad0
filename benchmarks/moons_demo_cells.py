"""micrograd's demo notebook (``demo.ipynb`` in the published micrograd repository), its
cells written out again for the benchmark, in this project's words.

Nothing here is fetched or copied: the cells do what the notebook does, in the same
order and with the same operations, so that an engine runs exactly the work a user of
the notebook gives it: scikit-learn's ``make_moons(n_samples=100, noise=0.1)`` under
``np.random.seed(1337)``, labels turned into -1/+1 NumPy integers, ``MLP(2, [16, 16, 1])``
drawn after ``random.seed(1337)``, inputs built as ``Value(x)`` from NumPy scalars, the
svm max-margin loss ``(1 + -yi*scorei).relu()`` averaged plus ``1e-4 * sum(p*p)``, the
accuracy, then 100 steps of ``zero_grad()``, ``backward()`` and SGD with the learning
rate ``1.0 - 0.9*k/100``, printing the loss each step, and the decision boundary drawn
on a grid at the end. Matplotlib draws with its Agg backend (the notebook's
``%matplotlib inline`` shows pictures; here nothing is shown).

Each ``# %% [name]`` line starts a cell. ``benchmarks/engine_worker.py`` runs the cells one
after another in one namespace, as Jupyter does, with a CPU clock around ``training``;
it may set ``STEPS`` (fewer steps on a slow interpreter). Run alone,
``python benchmarks/moons_demo_cells.py`` runs it straight through with whichever
``micrograd`` is on the path (NumPy, scikit-learn and matplotlib needed).
"""

# %% [imports]
import random

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STEPS = globals().get("STEPS", 100)  # the notebook's 100 unless the benchmark says less

# %% [engine]
from micrograd.engine import Value  # noqa: E402
from micrograd.nn import MLP, Layer, Neuron  # noqa: E402, F401  (the notebook's imports)

# %% [seeds]
np.random.seed(1337)
random.seed(1337)

# %% [data]
from sklearn.datasets import make_moons  # noqa: E402

X, y = make_moons(n_samples=100, noise=0.1)
y = y * 2 - 1  # from 0/1 to -1/+1 (still NumPy integers)
plt.figure(figsize=(5, 5))
plt.scatter(X[:, 0], X[:, 1], c=y, s=20, cmap="jet")

# %% [model]
model = MLP(2, [16, 16, 1])  # two hidden layers of 16 relu neurons, a linear output
print(model)
print("number of parameters", len(model.parameters()))


# %% [loss]
def loss(batch_size=None):
    """The whole set (or a random batch), scored: max-margin loss + L2, and accuracy."""
    if batch_size is None:
        Xb, yb = X, y
    else:
        pick = np.random.permutation(X.shape[0])[:batch_size]
        Xb, yb = X[pick], y[pick]
    inputs = [list(map(Value, xrow)) for xrow in Xb]
    scores = list(map(model, inputs))
    margins = [(1 + -yi * scorei).relu() for yi, scorei in zip(yb, scores)]
    data_loss = sum(margins) * (1.0 / len(margins))
    alpha = 1e-4
    reg_loss = alpha * sum((p * p for p in model.parameters()))
    total_loss = data_loss + reg_loss
    accuracy = [(yi > 0) == (scorei.data > 0) for yi, scorei in zip(yb, scores)]
    return total_loss, sum(accuracy) / len(accuracy)


total_loss, acc = loss()
print(total_loss, acc)

# %% [training]
for k in range(STEPS):
    total_loss, acc = loss()                # forward

    model.zero_grad()                       # backward
    total_loss.backward()

    learning_rate = 1.0 - 0.9 * k / 100     # update: plain SGD, a falling rate
    for p in model.parameters():
        p.data -= learning_rate * p.grad

    if k % 1 == 0:
        print(f"step {k} loss {total_loss.data}, accuracy {acc*100}%")

# %% [boundary]
h = 0.25
x_min, x_max = X[:, 0].min() - 1, X[:, 0].max() + 1
y_min, y_max = X[:, 1].min() - 1, X[:, 1].max() + 1
xx, yy = np.meshgrid(np.arange(x_min, x_max, h), np.arange(y_min, y_max, h))
Xmesh = np.c_[xx.ravel(), yy.ravel()]
inputs = [list(map(Value, xrow)) for xrow in Xmesh]
scores = list(map(model, inputs))
Z = np.array([s.data > 0 for s in scores]).reshape(xx.shape)

fig = plt.figure()
plt.contourf(xx, yy, Z, cmap=plt.cm.Spectral, alpha=0.8)
plt.scatter(X[:, 0], X[:, 1], c=y, s=40, cmap=plt.cm.Spectral)
plt.xlim(xx.min(), xx.max())
plt.ylim(yy.min(), yy.max())
