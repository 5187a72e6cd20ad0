"""Numbers on the wire: JSON has no inf or nan, so they travel as the strings
``"Infinity"``, ``"-Infinity"`` and ``"NaN"`` (what JavaScript's ``Number()`` reads back).
One convention for the whole page: the graph layout (``micrograd.viz``) uses the same."""

from ..viz.graph import num

__all__ = ["num"]
