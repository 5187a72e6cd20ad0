"""The tracer's intermediate form: the nodes of a recorded graph and of a compiled one.

A graph is a list of nodes in topological order; a node names its inputs by their
positions in that list. Recording produces ``InputNode``, ``LeafNode`` and ``OpNode``
nodes. The compiler turns each ``LeafNode`` into a ``ParamNode`` or a ``ConstNode`` (by
comparing two traces), fuses chains of ``+`` into ``SumNode`` nodes and
parameter-times-node sums into ``DenseNode`` rows, and marks the nodes it fused away as
``None``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

NO_INPUTS = ()


class TraceError(ValueError):
    """A function cannot be traced into a program (the message names the cause)."""


class LoweringError(TraceError):
    """A traced program cannot be lowered into primitive instructions (an op whose
    forward or rule has no lowering; the message names it): run it in Python."""


@dataclass(frozen=True, slots=True)
class InputNode:
    """Column ``index`` of the flattened per-sample inputs."""

    index: int
    inputs = NO_INPUTS

    def describe(self):
        return f"input #{self.index}"


@dataclass(frozen=True, slots=True)
class LeafNode:
    """A leaf that is not an input: a parameter or a constant (told apart later)."""

    inputs = NO_INPUTS

    def describe(self):
        return "a parameter or constant"


@dataclass(frozen=True, slots=True)
class OpNode:
    """A primitive of the op table (``key`` into ``micrograd.ops.OPS``) applied to the
    nodes at positions ``inputs``; ``arg`` is the op's constant (the n of x**n)."""

    key: str
    arg: object
    inputs: tuple

    def describe(self):
        exponent = f" (exponent {self.arg!r})" if self.arg is not None else ""
        return f"op {self.key}{exponent} of nodes {list(self.inputs)}"

    def same_as(self, other):
        """Same op, same wiring, same constant (nan equals nan)."""
        if not isinstance(other, OpNode) or (self.key, self.inputs) != (other.key, other.inputs):
            return False
        if self.arg is None or other.arg is None:
            return self.arg is other.arg
        return same_number(self.arg, other.arg)


@dataclass(frozen=True, slots=True)
class ParamNode:
    """Parameter number ``index`` of the program: read from its Value at every run."""

    index: int
    inputs = NO_INPUTS


@dataclass(frozen=True, slots=True)
class ConstNode:
    """A number frozen into the program (the ``1`` of ``1 - y*s``)."""

    value: float
    inputs = NO_INPUTS


@dataclass(frozen=True, slots=True)
class SumNode:
    """An n-ary sum: a chain of ``+`` nodes (and exact constant factors such as the
    ``-1`` of ``a - b``) fused into one reduction, ``sum_j coefs[j] * node[inputs[j]]``;
    ``coefs`` None when every coefficient is 1."""

    inputs: tuple
    coefs: tuple | None = None


@dataclass(frozen=True, slots=True)
class DenseNode:
    """One row of a dense layer: ``sum_j P[weights[j]] * node[inputs[j]] (+ P[bias])``."""

    inputs: tuple
    weights: tuple
    bias: int | None


class Recording(NamedTuple):
    """One run of the traced function on one sample."""

    nodes: list          # InputNode | LeafNode | OpNode, in topological order
    leaves: dict         # position of a LeafNode -> the Value found there
    outputs: tuple       # positions of the outputs
    single: bool         # fn returned one Value (not a list)
    widths: tuple        # per argument: how many numbers one sample gives
    scalars: tuple       # per argument: a number (True) or a sequence (False)
    reads: tuple = ()    # numbers read by user code from values not of the sample


def no_numpy_kernel(key):
    """The message of the TraceError for an op the NumPy backend cannot run."""
    return (f"op {key!r} has no NumPy forward: give np_forward= to define_op (or add it "
            f"to micrograd.trace.NP_FORWARD) to trace it")


def same_number(a, b):
    """Equal numbers, or both nan."""
    return a == b or (math.isnan(a) and math.isnan(b))
