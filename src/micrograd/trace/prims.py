"""The primitive array instructions of a lowered program: the ONE table.

A lowered program (``micrograd.trace.lowering``) is a flat list of instructions, each
``[prim, out, operand, ...]``: one primitive below applied to float64 buffers. Every
primitive but ``total`` and the row primitives (the last ones, of the grouped lowering,
``lowering_groups``) works element by element; an operand of one element is broadcast
over the others (a parameter read by every sample of a batch). An executor of lowered
programs implements exactly these (the JavaScript one in
``web/static/lowered/executor.js``; a test holds its list to this table, both ways), and
nothing else: the calculus (each op's forward and its one derivative rule) is lowered
into them in Python, once.

``exact`` marks the primitives IEEE 754 rounds correctly (or that round nothing): every
correct executor gives the same bits for them, so a program made of them alone is held
to bit-for-bit agreement with the NumPy backend. The others (the elementary
functions) may differ by an ulp or so between math libraries.
"""

from __future__ import annotations

from typing import NamedTuple

#: ``arity`` of a primitive that takes any number (one or more) of operands
ANY = -1


class Prim(NamedTuple):
    """One primitive: its name, how many operands it reads, and what it computes."""

    name: str
    arity: int       # buffer operands (``ANY``: one or more); ``const`` reads a number
    exact: bool      # correctly rounded (or no rounding): the same bits on every executor
    means: str       # the semantics, in one line


PRIMS = {p.name: p for p in (
    Prim("const", 0, True, "out = c: the number written in the instruction (\"inf\", "
                           "\"-inf\" and \"nan\" as strings, -0.0 kept)"),
    Prim("copy", 1, True, "out = a"),
    Prim("neg", 1, True, "out = -a (the sign of a zero flips too)"),
    Prim("abs", 1, True, "out = |a| (|-0| = 0, |nan| = nan)"),
    Prim("add", 2, True, "out = a + b"),
    Prim("sub", 2, True, "out = a - b"),
    Prim("mul", 2, True, "out = a * b"),
    Prim("div", 2, True, "out = a / b as IEEE division: 1/0 = inf, 1/-0 = -inf, 0/0 = nan"),
    Prim("sqrt", 1, True, "out = IEEE square root: sqrt(-0) = -0, nan below 0"),
    Prim("exp", 1, False, "out = e**a: inf on overflow, 0 on underflow"),
    Prim("log", 1, False, "out = natural log: log(+-0) = -inf, nan below 0"),
    Prim("log1p", 1, False, "out = log(1 + a), accurate near 0"),
    Prim("tanh", 1, False, "out = tanh(a): +-1 for large |a|, tanh(-0) = -0"),
    Prim("sin", 1, False, "out = sin(a): nan at +-inf"),
    Prim("cos", 1, False, "out = cos(a): nan at +-inf"),
    Prim("pow", 2, False, "out = a**b as C99 pow: pow(1, b) = 1 and pow(a, +-0) = 1 even "
                          "for nan; pow(-1, +-inf) = 1; pow(-inf, b) is +-inf or +-0 by "
                          "b's sign and oddness"),
    Prim("rint", 1, True, "out = a rounded to the nearest integer, ties to even (IEEE "
                          "roundToIntegralTiesToEven: rint(-0.5) = -0; inf and nan kept)"),
    Prim("lt", 2, True, "out = 1 where a < b, else 0 (0 where either is nan)"),
    Prim("le", 2, True, "out = 1 where a <= b, else 0"),
    Prim("gt", 2, True, "out = 1 where a > b, else 0"),
    Prim("ge", 2, True, "out = 1 where a >= b, else 0"),
    Prim("eq", 2, True, "out = 1 where a == b, else 0 (-0 == 0; nan equals nothing)"),
    Prim("select", 3, True, "out = b where a != 0, else c (a selection, not a product: "
                            "the branch not taken may be inf or nan)"),
    Prim("sum", ANY, True, "out = a1 + a2 + ... + an, added left to right (a fused chain "
                           "of +)"),
    Prim("total", 1, True, "out (one element) = the sum of all of a's elements, left to "
                           "right (over a batch)"),
    # ---- rows (the grouped lowering, ``lowering_groups``): a buffer is rows of B
    # numbers (one of its size written with B, or a slice of one) or of one number;
    # ``idx`` an index list and ``c`` a list of factors of the wire, by name
    Prim("gather", 2, True, "out row r = a's row idx[r] (a row of one number broadcast "
                            "over a row of B)"),
    Prim("scatter_add", 2, True, "out row idx[r*n + j] += a's row r for j < n = "
                                 "len(idx) / a's rows, in order (into rows of one "
                                 "number: the row's total)"),
    Prim("wscatter_add", 3, True, "scatter_add with factors: out row idx[r*n + j] += "
                                  "c[r*n + j] * a's row r"),
    Prim("sum_rows", 2, True, "out row r = a's rows idx[r*n] + ... + idx[r*n + n-1], "
                              "left to right (a group of fused sums)"),
    Prim("wsum_rows", 3, True, "sum_rows with factors: out row r = c[r*n] * a's row "
                               "idx[r*n] + ..., left to right"),
    Prim("dense", 3, True, "out row r = W[idx[r*m]] * x row 0 + ... + W[idx[r*m + m-1]] "
                           "* x row m-1 (operands x, W, idx), left to right"),
    Prim("dense_dw", 3, True, "out[idx[r*m + j]] += the sum over the batch of g row r "
                              "times x row j (operands g, x, idx), in order"),
    Prim("dense_dx", 3, True, "out row j = W[idx[j]] * g row 0 + ... + W[idx[(k-1)*m + "
                              "j]] * g row k-1 (operands g, W, idx), left to right"),
)}


def check_instruction(ins):
    """Refuse an instruction that is not ``[known prim, out, operands of its arity]``
    (the lowering's own self-check; an executor checks the same when it loads)."""
    prim = PRIMS.get(ins[0])
    if prim is None:
        raise ValueError(f"unknown primitive {ins[0]!r} in {ins!r}")
    n = len(ins) - 2
    if prim.name == "const":
        ok = n == 1
    elif prim.arity == ANY:
        ok = n >= 1
    else:
        ok = n == prim.arity
    if not ok:
        raise ValueError(f"primitive {prim.name!r} takes "
                         f"{'one or more' if prim.arity == ANY else prim.arity} operand(s): "
                         f"{ins!r}")
