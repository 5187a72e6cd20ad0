"""A Playground session's programs, lowered and run by the JavaScript executor.

In the static site Python has no NumPy, and the eager engine is too slow to feel live.
There the worker hands Python a *port* to the page's JavaScript executor
(``web/pyodide/executor_port.js`` over ``web/static/lowered/executor.js``) with
``install(port)``; a session then compiles its traced loss, its neurons' outputs and its
first layer's sums once (``micrograd.trace``, standard library only), lowers them into
the primitives of the one table (``micrograd.trace.lower``) and runs every forward and
backward pass there, over Float64Arrays. Python keeps the rest: the batches, the
optimizer's step on the Values, the metrics and every picture; the rules of the
calculus are lowered from ``ops.py``, never written again.

The port (a JavaScript object, or anything with these methods)::

    load(json_text) -> id                    table(id, key, numbers, width)
    setParams(id, numbers)                   grad(id, fn, key, picked or None) -> numbers
    evaluate(id, fn, key or None, numbers, first) -> numbers (output after output,
                                                from output ``first``)
    drop(id)
    train(id, fn, numbers, lr) -> loss or NaN  params(id) -> numbers
                                             (the GPT tab's: ``web/gpt_runners.py``)

Numbers go out as ``array('d')`` (a buffer: every bit kept) and come back as a buffer.
Standard library only.
"""

from __future__ import annotations

import weakref
from array import array

_PORT = []  # the port the worker installed (none in CPython: NumPy runs the programs)


def install(port):
    """Train every new session through ``port`` (the worker calls this once; ``None``
    uninstalls)."""
    _PORT[:] = [] if port is None else [port]


def installed():
    """The installed port, or None."""
    return _PORT[0] if _PORT else None


def _floats(buf):
    """A buffer from the port (a JavaScript Float64Array seen from Python, or a Python
    buffer) as a list of floats."""
    to_py = getattr(buf, "to_py", None)
    if to_py is not None:
        buf = to_py()
    mv = memoryview(buf)
    if mv.format != "d":
        mv = mv.cast("B").cast("d")
    return mv.tolist()


def _flat(rows, width):
    out = array("d")
    for r in rows:
        if width == 1:
            out.append(r)
        else:
            out.extend(r)
    return out


#: the pictures' numbers are rounded to this many decimals (a colour needs no more)
PICTURE_DECIMALS = 2


def rounded_function(fn, decimals):
    """A lowered function's copy whose outputs are rounded to ``decimals`` as NumPy's
    ``round`` does (times 10**decimals, to the nearest integer with ties to even,
    divided back), written in the primitives (``rint``), so the executor rounds the
    pictures it computes and only the rounded numbers cross to Python."""
    scale = 10.0 ** decimals
    out = {**fn, "buffers": dict(fn["buffers"]), "forward": list(fn["forward"])}
    out["buffers"]["round.scale"] = 1
    out["forward"].append(["const", "round.scale", scale])
    outputs = []
    for j, o in enumerate(fn["outputs"]):
        r = f"round.{j}"
        out["buffers"][r] = "B"
        out["forward"] += [["mul", r, o, "round.scale"], ["rint", r, r],
                           ["div", r, r, "round.scale"]]
        outputs.append(r)
    out["outputs"] = outputs
    return out


class LoweredPrograms:
    """A session's loss (``"loss"``), every neuron's output (``"outputs"``) and the
    first layer's sums (``"sums"``), lowered into one program held by the port, with
    the session's train, test and grid points as tables there."""

    def __init__(self, port, session, loss, outputs, sums):
        """Lower the traced programs (``LoweringError`` names an op with no lowering)."""
        from ..trace import lower

        lowered = lower({"loss": loss, "outputs": outputs, "sums": sums})
        fns = lowered.wire["functions"]
        fns["pictures"] = rounded_function(fns["outputs"], PICTURE_DECIMALS)
        where = {id(p): i for i, p in enumerate(session.params)}
        self.params = session.params
        self.order = [where[id(p)] for p in lowered.params]  # the vector P's order
        self.port = port
        self.id = port.load(lowered.to_json())
        # the port's copy goes with the session (deleted, evicted, or set up anew)
        self._drop = weakref.finalize(self, port.drop, self.id)
        width = 2 + (session.k if session.k > 1 else 1)
        self.keys, self.kept = {}, []
        for name, X, T in (("train", session.X_train, session.T_train),
                           ("test", session.X_test, session.T_test),
                           ("grid", session.grid, None)):
            port.table(self.id, name, _flat(X, 2), 2)
            self.keys[id(X)] = name
            if T is not None:
                port.table(self.id, name + ".loss",
                           _flat(([*x, *t] if session.k > 1 else [*x, t]
                                  for x, t in zip(X, T)), width), width)

    def close(self):
        self._drop()

    def _send_params(self):
        ps = self.params
        self.port.setParams(self.id, array("d", [ps[i].data for i in self.order]))

    def backward(self, idx, whole):
        """The loss's gradient over the training points ``idx`` (all of them when
        ``whole``) added into each parameter's ``.grad``; returns the batch's loss."""
        self._send_params()
        out = _floats(self.port.grad(self.id, "loss", "train.loss",
                                     None if whole else array("d", idx)))
        ps = self.params
        for i, g in zip(self.order, out[1:]):
            ps[i].grad += g
        return out[0]

    def columns(self, fn, X, first=0):
        """``fn``'s outputs at the points X (a table's, or any): a list per output,
        from output ``first`` on."""
        self._send_params()
        key = self.keys.get(id(X))
        if fn == "loss" and key is not None:
            key += ".loss"
        flat = _floats(self.port.evaluate(self.id, fn, key,
                                          None if key is not None else _flat(X, 2), first))
        B = len(X)
        return [flat[j:j + B] for j in range(0, len(flat), B)] if B else []

    def pictures(self, points):
        """Every output at ``points`` (a fixed list: kept as a table at its first use),
        rounded to ``PICTURE_DECIMALS`` by the executor: a list per output."""
        if id(points) not in self.keys:
            self.keys[id(points)] = name = f"points{len(self.keys)}"
            self.port.table(self.id, name, _flat(points, 2), 2)
            self.kept.append(points)  # (so that its id stays its own)
        return self.columns("pictures", points)
