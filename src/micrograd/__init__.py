"""micrograd: a scalar-valued reverse-mode autograd engine and a small neural-network library.

``from micrograd.engine import Value`` and ``from micrograd.nn import MLP`` are the
lecture's two imports; the other modules are imported on demand.
"""

__version__ = "0.1.0"

from .engine import AnomalyError, Value, detect_anomaly, enable_grad, no_grad  # noqa: E402

__all__ = ["Value", "no_grad", "enable_grad", "detect_anomaly", "AnomalyError",
           "__version__"]


def __getattr__(name):
    # ``from micrograd import draw_dot``, the lecture's drawing call, without importing
    # the drawing code when only the engine is used.
    if name == "draw_dot":
        from .viz.digraph import draw_dot

        return draw_dot
    raise AttributeError(f"module 'micrograd' has no attribute {name!r}")
