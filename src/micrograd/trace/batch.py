"""``Batch``: a batch as a program reads it, the one shape the compiler and its backends
share. The backend packs it (``runtime.pack``, with NumPy); the program passes it on to
its executor, reading only the batch size."""

from __future__ import annotations

from typing import NamedTuple


class Batch(NamedTuple):
    """A batch as the program reads it: one row per sample, the arguments side by side."""

    X: object       # a NumPy array of shape (B, n_inputs)
    size: int       # B
