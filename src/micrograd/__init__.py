"""micrograd: a scalar-valued reverse-mode autograd engine and a small neural-network library.

``from micrograd.engine import Value`` and ``from micrograd.nn import MLP`` are the
lecture's two imports; the other modules are imported on demand.

Importing the package itself imports nothing else (``from micrograd import Value``
imports the engine when the name is first asked for), so that the ``micrograd`` command
reaches its first line, where it takes charge of Ctrl-C, as early as it can; and it
installs no signal handler (a notebook or a program importing it keeps its own Ctrl-C).
"""

import sys
import types

__version__ = "0.1.0"

#: the names the package offers, and the module each one comes from
_LAZY = {"Value": "engine", "no_grad": "engine", "enable_grad": "engine",
         "detect_anomaly": "engine", "AnomalyError": "engine", "define_op": "engine",
         "apply_op": "engine", "draw_dot": "viz.digraph"}

__all__ = ["Value", "no_grad", "enable_grad", "detect_anomaly", "AnomalyError",
           "define_op", "apply_op", "draw_dot", "__version__"]


def _draw_svg(value):
    """Jupyter's drawing of a Value: ``draw_dot``'s SVG (which says so when backward()
    has not run yet), imported when first asked."""
    from .viz.digraph import draw_dot

    return draw_dot(value).svg()


class _Package(types.ModuleType):
    """The package module: when the import system binds ``micrograd.engine`` to it
    (however the engine was imported), the engine is told its SVG renderer (the engine
    imports nothing above it)."""

    def __setattr__(self, name, value):
        if name == "engine" and isinstance(value, types.ModuleType):
            value._svg_renderer = _draw_svg
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


def __getattr__(name):
    # ``from micrograd import Value`` (and ``draw_dot``, the lecture's drawing call), or
    # ``micrograd.engine`` after a bare ``import micrograd``: the module is imported
    # when the name is first asked for
    from importlib import import_module

    where = _LAZY.get(name)
    if where is not None:
        return getattr(import_module(f"{__name__}.{where}"), name)
    if not name.startswith("_"):
        from importlib.util import find_spec

        if find_spec(f"{__name__}.{name}") is not None:
            return import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'micrograd' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
