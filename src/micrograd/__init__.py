"""micrograd: a scalar-valued reverse-mode autograd engine and a small neural-network library.

``from micrograd.engine import Value`` and ``from micrograd.nn import MLP`` are the
lecture's two imports; the other modules are imported on demand.
"""

__version__ = "0.1.0"

from .engine import AnomalyError, Value, detect_anomaly, enable_grad, no_grad  # noqa: E402

__all__ = ["Value", "no_grad", "enable_grad", "detect_anomaly", "AnomalyError",
           "__version__"]
