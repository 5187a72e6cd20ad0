"""The page and the lecture's notebooks, linked both ways, declared once.

From the page to the notebook that teaches what it shows: ``NOTEBOOKS`` (each
notebook's title), ``WALK``, ``PLAY`` and ``MISTAKES`` (rules: the first whose
``when`` the part's state matches gives its notebooks). ``spec()`` is that table as the
page reads it (``GET /api/meta``'s ``notebooks``): the Walk matches a rule's ``when``
against its set-up's fields (``WalkSetup``'s names), the gallery against an entry's
``key``; the page holds no key of its own.

    >>> [r["notebooks"] for r in spec()["walk"] if r["when"] == {"preset": "lecture"}]
    [['03_backprop_by_hand', '07_pytorch_side_by_side']]

In the static site (``micrograd site DIR``) a notebook opens in JupyterLite's page,
``DIR/notebooks/notebooks/index.html?path=NAME.ipynb`` (``spec()["site"]``), when the site
ships it (the page reads the notebooks' listing, ``DIR/notebooks/api/contents/all.json``;
``--no-notebooks`` ships none); served by ``micrograd serve``, the page names the notebook
and how to open it in Jupyter (``spec()["local"]``).

From a notebook to the page in the same state: ``STOPS``, by notebook, the cells after
which a markdown cell links to the page (``page_cell``), its link written by the set-ups'
own link writers (``WalkSetup.to_url``, ``Experiment.to_url``) and read back by their
readers in the tests. The relative link goes from ``DIR/notebooks/<app>/index.html`` to
``DIR/index.html``; JupyterLab rewrites a relative link of a markdown cell into a link to
its own files (``notebooks/files/index.html``, which is no page) unless the link is one
it cannot decode, so the link carries ``?%FF`` (a byte that is no UTF-8 text, in the query
the page ignores; ``SITE_MARK``). For a Jupyter on the learner's machine the cell gives
``micrograd serve``'s default address with the same fragment (``SERVED``).
``scripts/notebook_links.py`` writes the cells from this table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlencode

from ..experiment import Experiment
from ..walk_setup import WalkSetup

#: each notebook the page links to: its title (the notebook's first heading, as text)
NOTEBOOKS = {
    "01_derivative_as_a_nudge": "1. The derivative as a nudge",
    "02_value_and_its_graph": "2. Value and its graph",
    "03_backprop_by_hand": "3. Backpropagation, by hand and then automatically",
    "04_a_neuron": "4. A neuron with tanh",
    "05_topological_sort_and_plus_equals": "5. The topological sort, and why +=",
    "06_training_an_mlp": "6. A multi-layer perceptron, trained",
    "07_pytorch_side_by_side": "7. The same computation in PyTorch",
    "08_walk_widget": "8. The Walk, inside Jupyter",
    "09_classic_mistakes": "9. The classic mistakes, run",
    "10_everything_else_is_efficiency": "10. Everything else is just efficiency",
    "11_from_micrograd_to_a_gpt": "11. From micrograd to a GPT",
}

_TOPO, _MISTAKES = "05_topological_sort_and_plus_equals", "09_classic_mistakes"

#: the Walk: {fields of its set-up: value} -> notebooks, the first match wins (a mode's
#: mistake before the graph; an expression of your own: the Walk inside Jupyter)
WALK = (
    ({"mode": "assign"}, (_TOPO, _MISTAKES)),
    ({"mode": "recursive"}, (_TOPO, _MISTAKES)),
    ({"mode": "no_zero_grad"}, (_TOPO, _MISTAKES)),
    ({"preset": "sum_times"}, ("03_backprop_by_hand",)),
    ({"preset": "lecture"}, ("03_backprop_by_hand", "07_pytorch_side_by_side")),
    ({"preset": "neuron"}, ("04_a_neuron", "07_pytorch_side_by_side")),
    ({"preset": "square"}, (_TOPO, "08_walk_widget")),
    ({"preset": "diamond"}, (_TOPO, "08_walk_widget")),
    ({"preset": "reused"}, (_TOPO,)),
    ({}, ("08_walk_widget",)),
)
#: the Playground: training an MLP, and the traced path that makes it fast
PLAY = (({}, ("06_training_an_mlp", "10_everything_else_is_efficiency")),)
#: the gallery of mistakes, by an entry's key: notebook 09 runs every entry; 05 teaches
#: the three the Walk has a mode for
MISTAKES = (
    ({"key": "assign"}, (_MISTAKES, _TOPO)),
    ({"key": "recursive_backward"}, (_MISTAKES, _TOPO)),
    ({"key": "no_zero_grad"}, (_MISTAKES, _TOPO)),
    ({"key": "backward_twice"}, (_MISTAKES, "07_pytorch_side_by_side")),
    ({}, (_MISTAKES,)),
)

#: the static site's notebooks (micrograd.commands.site_notebooks.FOLDER), JupyterLite's
#: one-notebook page in it, and its listing of the notebooks shipped
SITE = {"open": "notebooks/notebooks/index.html?path=",
        "listing": "notebooks/api/contents/all.json"}
#: served by ``micrograd serve``: the notebooks are the project's notebooks/ folder
LOCAL = {"folder": "notebooks/", "command": "jupyter lab notebooks/"}
#: from a notebook in the static site (DIR/notebooks/<app>/index.html) to the page; the
#: query JupyterLab cannot decode keeps it from rewriting the link (module docstring)
SITE_PAGE = "../../index.html"
SITE_MARK = "?%FF"
#: ``micrograd serve``'s address by default: the page for a Jupyter on your machine
SERVED = "http://127.0.0.1:8000/"
#: the page's tab key and the gallery's entry key in its fragment (static/app.js,
#: static/gallery.js)
PAGE_KEY, MISTAKE_KEY = "page", "mistake"


def _rules(rules):
    return [{"when": dict(when), "notebooks": list(names)} for when, names in rules]


def spec():
    """The page's side, JSON-ready: the notebooks' titles and files, each part's rules,
    where the static site keeps them and how to open them locally."""
    return {"notebooks": [{"name": n, "file": n + ".ipynb", "title": t}
                          for n, t in NOTEBOOKS.items()],
            "walk": _rules(WALK), "play": _rules(PLAY), "mistakes": _rules(MISTAKES),
            "site": dict(SITE), "local": dict(LOCAL)}


def notebooks_for(part, state):
    """The notebooks of the first rule of ``part`` ("walk", "play", "mistakes") that
    ``state`` (a dict) matches, as the page finds them."""
    rules = {"walk": WALK, "play": PLAY, "mistakes": MISTAKES}[part]
    for when, names in rules:
        if all(state.get(k) == v for k, v in when.items()):
            return list(names)
    return []


# ---------------------------------------------------------------------------------------
# from a notebook to the page
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stop:
    """A markdown cell of a notebook, after the cell of id ``after``: ``text`` links
    to the page's ``page`` (walk, play or mistakes) in the state ``state`` (the set-up's
    fields: ``WalkSetup.from_dict``'s or ``Experiment.from_dict``'s; a gallery entry's
    ``key``)."""
    after: str
    text: str
    page: str
    state: dict = field(default_factory=dict)

    def fragment(self):
        """The page's fragment, written by the set-up's own link writer."""
        return fragment(self.page, self.state)


def fragment(page, state):
    """``page=...&...``: the page's fragment for this state (what its URL says)."""
    if page == "walk":
        query = WalkSetup.from_dict(state).to_url()
    elif page == "play":
        query = Experiment.from_dict(state).to_url()
    elif page == "mistakes":
        query = {MISTAKE_KEY: state["key"]} if state else {}
    else:
        raise ValueError(f"no page {page!r}")
    return urlencode({PAGE_KEY: page, **query}, safe=":,;")


def page_cell(stop):
    """The markdown of ``stop``'s cell: the static site's link, and the served page's."""
    frag = stop.fragment()
    return (f"**On the page:** [{stop.text}]({SITE_PAGE}{SITE_MARK}#{frag}) (the static "
            f"site's page, in a new tab). With Jupyter on your own machine, run "
            f"`micrograd serve` and open [the same state]({SERVED}#{frag}).")


def cell_id(stop):
    """The id of ``stop``'s cell in its notebook."""
    return f"page-after-{stop.after}"


_LECTURE = {"preset": "lecture"}
#: the moons of notebooks 06 and 10 as the Playground trains them: micrograd's demo
#: (relu 16-16, a linear output, the hinge loss with L2 1e-4, SGD at 1.0, 100 points)
MOONS = {"dataset": "moons", "samples": 100, "noise": 0.1, "seed": 0, "train_ratio": 0.9,
         "hidden": [16, 16], "activation": "relu", "bias_init": "zero",
         "init_seed": 1337, "loss": "hinge", "l2": 1e-4, "optimizer": "sgd", "lr": 1.0}

#: notebook 10's moons: the same network with the lecture's uniform biases, no penalty
MOONS_10 = {**MOONS, "seed": 1, "bias_init": "uniform", "init_seed": 0, "l2": 0.0}

#: notebook 11's Walk: the loss at one position of the GPT, its target the first token
SOFTMAX_LOSS = ("l0 = 2; l1 = 1; l2 = -1; e0 = exp(l0); e1 = exp(l1); e2 = exp(l2); "
                "s = e0 + e1 + e2; p0 = e0 / s; loss = -log(p0)")

#: each notebook's cells that link to the page, in order
STOPS = {
    "01_derivative_as_a_nudge": (
        Stop("cell-00", "the Walk on `d = a*b + c`, with its nudge check", "walk",
             {"expr": "a = 2; b = -3; c = 10; d = a*b + c"}),),
    "02_value_and_its_graph": (
        Stop("cell-00", "the Walk: the lecture's graph, its forward pass done", "walk",
             {**_LECTURE, "step": 3}),),
    "03_backprop_by_hand": (
        Stop("cell-00", "the Walk: `L = (a*b + c) * f`, node by node, with its questions",
             "walk", _LECTURE),
        Stop("cell-10", "the Walk: the same backward pass, every step done", "walk",
             {**_LECTURE, "step": 11}),),
    "04_a_neuron": (
        Stop("cell-00", "the Walk: the tanh neuron", "walk", {"preset": "neuron"}),
        Stop("cell-04", "the Walk: the neuron with tanh written from exp", "walk",
             {"expr": "x1 = 2; x2 = 0; w1 = -3; w2 = 1; b = 6.8813735870195432; "
                      "n = x1*w1 + x2*w2 + b; e = exp(2*n); o = (e - 1) / (e + 1)"}),),
    "05_topological_sort_and_plus_equals": (
        Stop("cell-00", "the Walk: the diamond, and its visit-order experiment", "walk",
             {"preset": "diamond"}),
        Stop("cell-08", "the Walk: `a * a` with `=` instead of `+=`", "walk",
             {"preset": "square", "mode": "assign"}),
        Stop("cell-12", "the Walk: the reused inner node, recursive backward", "walk",
             {"preset": "reused", "values": {"a": 1.0}, "mode": "recursive"}),
        Stop("cell-14", "the Walk: two backward passes without `zero_grad`", "walk",
             {**_LECTURE, "mode": "no_zero_grad"}),),
    "06_training_an_mlp": (
        Stop("cell-00", "the Playground: the moons, micrograd's demo network, trained "
             "live (its rate stays at 1.0)", "play", MOONS),),
    "07_pytorch_side_by_side": (
        Stop("cell-00", "the Walk: the lecture's neuron, as micrograd computes it",
             "walk", {"preset": "neuron"}),),
    "08_walk_widget": (
        Stop("cell-00", "the Walk page: the same graph, the same steps", "walk",
             {"preset": "sum_times"}),),
    "09_classic_mistakes": (
        Stop("cell-00", "the Mistakes: this gallery, each entry run", "mistakes"),),
    "10_everything_else_is_efficiency": (
        Stop("cell-00", "the Playground: these moons trained live (traced where NumPy "
             "is, as served by micrograd serve)", "play", MOONS_10),),
    "11_from_micrograd_to_a_gpt": (
        Stop("cell-00", "the Walk: a softmax over three logits and its cross-entropy, the "
             "last nodes of each position of the GPT", "walk", {"expr": SOFTMAX_LOSS}),),
    "exercises": (
        Stop("cell-04", "the Walk: `L = (a*b + c) * f`, with its questions", "walk",
             _LECTURE),
        Stop("cell-13", "the Walk: `a * a`, a node used twice (`+=`)", "walk",
             {"preset": "square"}),
        Stop("cell-20", "the Playground: a network trained live", "play", MOONS),),
}
#: the teacher's copy has the student's cells, ids and all
STOPS["exercises_solutions"] = STOPS["exercises"]
