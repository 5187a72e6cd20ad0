"""One training experiment, declared once: its set-up, its one validation, its link, and
``build()`` to data, model, loss and optimizer.

    >>> from micrograd.experiment import Experiment, build
    >>> exp = Experiment.from_url({"ds": "circle", "n": "100", "hidden": "4"})
    >>> exp.dataset, exp.samples, exp.hidden          # the page's old name read as an alias
    ('disk', 100, [4])
    >>> b = build(exp)
    >>> len(b.X_train), len(b.X_test), b.model.nouts, b.loss.name
    (50, 50, [4, 1], 'mse')

The Playground, ``micrograd train`` and ``micrograd demo`` all set up an experiment
here; the page draws its controls from :meth:`Experiment.spec`, the HTTP schema is
derived from the same fields, a link is :meth:`Experiment.to_url`, and ``micrograd
train``'s options that are fields are made from their declarations (what the command
line reads differently, its defaults and caps, is written in the declaration's
``cli=``; its values become an experiment by :meth:`Experiment.from_options`). The
names are the library's (``data.DATASETS`` and ``data.REGRESSION``, ``losses.LOSSES``,
``optim.OPTIMIZERS``, ``nn.ACTIVATIONS``): a data set, loss, optimizer or activation
registered there is offered here at once. The page's older names stay readable as
aliases (``ds=circle`` is ``disk``; ``opt=momentum`` is ``sgd`` with momentum 0.9), so
every link already shared opens the same set-up.

Where each part lives: ``experiment`` (the class: each field declared once with its
metadata), ``fields`` (what a field is made of: the caps, the names, the groups,
``declare``, and ``declared``: a field as the page or the command line reads it),
``validation`` (the one validation, for the page and the command line), ``links`` (the
dict, the link, the page's ``spec`` and the command line's options), ``build`` (data,
model, loss, optimizer). The fields, by group:

* data: ``dataset``, ``classes``, ``noise`` (jitter added to the points; blobs keep their
  clusters' own spread, which the noise widens), ``samples``, ``train_ratio``, ``seed``
  (of the data and the split), ``added`` (points put in by hand, ``[x1, x2, label]``),
  ``removed`` (indices of generated points taken out), ``batch_size`` (0: all);
* ``features``: the network's inputs, functions of the point (``FEATURES``);
* network: ``hidden`` sizes, ``activation``, ``bias_init``, ``init_seed``;
* ``loss``; optimizer: ``optimizer``, ``momentum``, ``nesterov``, ``weight_decay``,
  ``lr``; penalties: ``l1``, ``l2``.

``Experiment.spec()`` is the page's description of all this, JSON-ready, in this shape
(kept stable: the page's code is written against it)::

    {"fields": [{"name": "dataset", "url": "ds", "kind": "choice", "default": "disk",
                 "label": "data set", "help": "...", "group": "data", "place": "data",
                 "keeps_weights": false, "choices": ["moons", ...],
                 "choice_labels": {"disk": "circle", ...}},
                {"name": "classes", "url": "k", "kind": "int", "default": 2, ...,
                 "min": 2, "max": 5},
                {"name": "lr", ..., "kind": "number", "min": 0, "min_exclusive": true,
                 "max": 10},
                {"name": "hidden", ..., "kind": "ints", "min": 1, "max": 32,
                 "max_len": 6}, ...],
     "regression": ["plane", "gaussians"],      # data sets with a float target
     "multiclass": ["spiral", "blobs"],         # data sets that take classes > 2
     "own": ["own", "own_regression"],          # the sets of your own points
     "regression_loss": "mse",                  # the loss of every regression set
     "groups": [{"name": "data", "text": "data set and its settings", "place": "data"},
                ..., {"name": "lr", "text": "learning rate", "place": "bar"}, ...],
     "output_activation": {"mse": "tanh", "hinge": "linear", ...},
     "losses": {"mse": {"labels": "pm1", "outputs": "one", "output_activation": "tanh",
                        "help": "..."}, ...},
     "aliases": {"dataset": {"circle": "disk"},
                 "optimizer": {"momentum": {"optimizer": "sgd", "momentum": 0.9}}},
     "limits": {"max_samples": 2000, "max_layers": 6, ...}}

A field's ``kind`` is one of ``choice`` (one of ``choices``), ``int``, ``number``,
``bool`` (``1`` or ``0`` in a link), ``ints`` (a comma list of whole numbers, each in
``min``..``max``, at most ``max_len``), ``choices`` (several of ``choices``, comma
list), ``points`` (``x1:x2:label;...`` in a link) and ``indices`` (a comma list).
``min``/``max`` are inclusive unless ``min_exclusive``/``max_exclusive`` says so.
``keeps_weights``: changing the field keeps the network's weights (its shape stays);
``group``: the control group a lesson link can hide (``groups``: in the page's order,
each with its text and its ``place``: ``data``, ``network``, ``bar`` or null, no control
in the form); ``place``: where the field's control goes (its group's, unless the field
names its own: the batch sits in the bar, hidden with the data).
"""


from .build import (Built, build, make_model, make_optimizer, make_points, penalty,
                    split)
from .validation import (check_combinations, item_problem, length_problem, range_text,
                         value_problem)
from .experiment import Experiment
from .fields import (ALIASES, CLI_DATASETS, DATASETS, DIGITS_CLASSES, DIGITS_IMAGES,
                     DIGITS_PIXELS, FEATURES, MAX_CLASSES, MAX_EDITS, MAX_LAYERS,
                     MAX_NEURONS, MAX_PARAMETERS, MAX_SAMPLES, MAX_SEED, MULTICLASS,
                     OWN_SPREAD, REGRESSION, Depends, ExperimentError, count_parameters,
                     default_noise, n_outputs, n_test, task)
from ..setup_field import declared

__all__ = ["Experiment", "ExperimentError", "Built", "build", "make_points", "split",
           "make_model", "make_optimizer", "penalty", "task", "n_outputs", "n_test",
           "count_parameters", "default_noise", "declared", "Depends",
           "check_combinations", "value_problem", "item_problem", "length_problem",
           "range_text", "FEATURES", "DATASETS", "REGRESSION", "MULTICLASS", "OWN_SPREAD",
           "ALIASES", "MAX_SAMPLES", "MAX_LAYERS", "MAX_NEURONS", "MAX_PARAMETERS",
           "MAX_EDITS", "MAX_CLASSES", "MAX_SEED", "CLI_DATASETS", "DIGITS_IMAGES",
           "DIGITS_PIXELS", "DIGITS_CLASSES"]
