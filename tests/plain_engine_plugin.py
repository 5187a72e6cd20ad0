"""A pytest plugin for a run with the engine's speed switch off (``MICROGRAD_SPEED=off``):
``tests/test_engine_plain.py`` runs test files in a pytest of their own with ``-p
plain_engine_plugin``, and reads what this plugin saw.

It watches the speed layer: every function of ``micrograd.engine_fast`` that builds or
reads a folded sum, writes ``+``/``*`` out or runs ``backward()``'s fast loop is
counted; and it looks at what the engine is made of (``SPEED``, the class's own ``+``
and ``*``, ``affine``) and at a network's graph, slot by slot, for a folded sum. At the
end of the session it writes all of it, with the counts of tests passed, failed and
skipped, to the JSON file named by ``PLAIN_ENGINE_REPORT``.
"""

import json
import os

import micrograd.engine as engine
from micrograd import engine_fast

#: what only the speed layer runs: none of it may run with the switch off
WATCHED = ("backward", "interior_order", "push_grads", "make_affine", "leaf", "unfold",
           "unfolded_inputs")
CALLS = dict.fromkeys(WATCHED, 0)
_ORIGINAL = {}


def _counted(name):
    original = _ORIGINAL[name] = getattr(engine_fast, name)

    def counted(*args, **kwargs):
        CALLS[name] += 1
        return original(*args, **kwargs)
    return counted


def folded_sums_in_a_network():
    """The folded sums in an ``nn`` network's graph, found through the raw slots (reading
    ``_prev`` would unfold them)."""
    from micrograd.nn import MLP

    model = MLP(3, [4, 4, 1], seed=0)
    out = model([engine.Value(0.5), engine.Value(-1.0), engine.Value(2.0)])
    seen, stack, folded = set(), [out], 0
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        folded += type(v._how) is float
        stack.extend(p for p in (v._a, v._b) if p is not None)
    return folded


def pytest_configure(config):
    for name in WATCHED:
        setattr(engine_fast, name, _counted(name))
    config._plain_engine = {
        "speed": engine.SPEED,
        "add": engine.Value.__dict__["__add__"].__module__,
        "mul": engine.Value.__dict__["__mul__"].__module__,
        "affine": f"{engine.affine.__module__}.{engine.affine.__qualname__}",
        "folded_sums_in_a_network": folded_sums_in_a_network(),
    }


def pytest_sessionfinish(session, exitstatus):
    for name, original in _ORIGINAL.items():
        setattr(engine_fast, name, original)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    stats = reporter.stats if reporter else {}
    report = dict(session.config._plain_engine, calls=CALLS,
                  **{k: len(stats.get(k, [])) for k in ("passed", "failed", "skipped",
                                                          "error", "xfailed")})
    with open(os.environ["PLAIN_ENGINE_REPORT"], "w") as f:
        json.dump(report, f)
