"""micrograd: a scalar-valued reverse-mode autograd engine and a small neural-network library.

``from micrograd.engine import Value`` and ``from micrograd.nn import MLP`` are the
lecture's two imports; the other modules are imported on demand.
"""

__version__ = "0.1.0"

from . import engine as _engine  # noqa: E402
from .engine import (  # noqa: E402
    AnomalyError,
    Value,
    apply_op,
    define_op,
    detect_anomaly,
    enable_grad,
    no_grad,
)


def _draw_svg(value):
    """Jupyter's drawing of a Value: ``draw_dot``'s SVG (which says so when backward()
    has not run yet), imported when first asked."""
    from .viz.digraph import draw_dot

    return draw_dot(value).svg()


_engine._svg_renderer = _draw_svg  # the engine imports nothing above it: it is told

__all__ = ["Value", "no_grad", "enable_grad", "detect_anomaly", "AnomalyError",
           "define_op", "apply_op", "draw_dot", "__version__"]


def __getattr__(name):
    # ``from micrograd import draw_dot``, the lecture's drawing call, without importing
    # the drawing code when only the engine is used.
    if name == "draw_dot":
        from .viz.digraph import draw_dot

        return draw_dot
    raise AttributeError(f"module 'micrograd' has no attribute {name!r}")
