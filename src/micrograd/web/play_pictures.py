"""What the page draws of a Playground session: the state it is sent after every request.

    >>> from micrograd.web.play_pictures import play_state
    >>> state = play_state(session, points=True)      # a PlaySession
    >>> sorted(state)[:4]
    ['boundary', 'config', 'diverged', 'diverged_at']

The decision boundary (the network on a ``GRID`` x ``GRID`` grid), each feature's and
neuron's picture (every other grid cell), each first-layer neuron's zero line, the
network's weights, the parameter table with the optimizer's state, the data points and
one point's whole computational graph: all are the session's network evaluated by
micrograd (``PlaySession.outputs_at``: one traced pass over the grid, or the eager
engine). Numbers that are not finite travel as ``"NaN"``/``"Infinity"`` (viz's one wire
form).

Standard library only (the browser's Python has no NumPy). Rounding follows NumPy's
``round`` (scale, round half to even, scale back), so the numbers are the ones the
server sent when it drew with NumPy.
"""

from __future__ import annotations

import math
from ..engine import Value
from ..experiment import FEATURES
from ..graph import num  # the one wire form for inf and nan
from . import limits
from .limits import MAX_POINT_GRAPH_NODES, THUMB
from .play_session import PlayError, round_half_even


def boundary(session, scores):
    """The output on the grid (``scores``: ``session.scores_at(session.grid)``). One
    output: ``values`` in [-1, 1] (positive for class +1; a loss on 0/1 labels takes a
    logit: 2 sigmoid - 1). K classes: ``classes`` (the argmax) and ``values`` (its softmax
    probability). A nan (a diverged network) travels as "NaN", never as 0 or null."""
    out = {"n": limits.GRID, "extent": list(session.extent)}
    k = session.k
    if k == 1:
        if session.loss_spec.labels == "01":  # the score is the logit of P(label 1)
            col = [math.tanh(z / 2) for z in scores]
        else:
            col = [-1.0 if z < -1.0 else 1.0 if z > 1.0 else z for z in scores]
        out["values"], out["classes"] = _rounded(col, 4), []
        return out
    classes, values = [], []
    exp, isfinite = math.exp, math.isfinite
    for z in scores:
        top = max(z)
        if not (isfinite(top) and all(isfinite(v) for v in z)):
            classes.append(0)
            values.append(num(float("nan")))
            continue
        total = 0.0
        for v in z:
            total += exp(v - top)
        classes.append(z.index(top))  # the first of equal maxima
        values.append(round_half_even(1.0 / total, 4))  # the top class's exp(0) / total
    out["classes"], out["values"] = classes, values
    return out


def thumbnail_cells():
    """The grid cells of the pictures: every other one, THUMB x THUMB."""
    n, step = limits.GRID, limits.GRID // THUMB
    return [i * n + j for i in range(0, n, step) for j in range(0, n, step)]


def thumbnails(session, rows):
    """Each feature's and neuron's output at the pictures' cells (``rows``: the second
    of ``session.on_grid(thumbnail_cells())``, rounded to 0.01: a picture's colour needs
    no more), by layer: ``[[[values of neuron j]...] for each layer]``; nan drawn
    as 0 and infinities as +-1."""
    columns = [_drawable(list(col)) for col in zip(*rows)]
    out, col = [], 0
    for size in session.sizes:
        out.append(columns[col:col + size])
        col += size
    return out


def _drawable(values, copysign=math.copysign):
    """nan as 0, an infinity as +-1."""
    total = sum(values)
    if total - total == 0:  # every value finite: the usual case, checked at C speed
        return values
    return [v if v - v == 0 else 0.0 if v != v else copysign(1.0, v) for v in values]


def _rounded(values, decimals, copysign=math.copysign):
    """``round_half_even(v, decimals)`` of each value, in the wire form (nan as "NaN")."""
    scale = 10.0 ** decimals
    return [round(v * scale) / scale or copysign(0.0, v) if -1e300 < v < 1e300
            else num(round_half_even(v, decimals)) for v in values]


def zero_lines(session):
    """Where each first-layer neuron's weighted sum is 0, per neuron a list of segments
    ``[xa, ya, xb, yb]`` across the plot. With the features x1 and x2 alone the set is a
    straight line, solved exactly; otherwise a curve, traced through the grid (marching
    squares on the sums the engine computes at the grid points)."""
    if sorted(session.experiment.features) == ["x1", "x2"]:
        return _straight_zero_lines(session)
    sums = session.first_sums_at(session.grid)
    n = limits.GRID
    x0, x1, y0, y1 = session.extent
    xs = [x0 + (x1 - x0) * (j + 0.5) / n for j in range(n)]
    ys = [y1 - (y1 - y0) * (i + 0.5) / n for i in range(n)]
    width = len(sums[0]) if sums else 0
    return [_contour([[sums[i * n + j][k] for j in range(n)] for i in range(n)], xs, ys)
            for k in range(width)]


def _contour(V, xs, ys):
    """Marching squares: the segments where the grid values V (rows of floats) cross 0
    (only the cells whose corners differ in sign are visited, row by row)."""
    segs = []
    for i in range(len(V) - 1):
        top, bottom = V[i], V[i + 1]
        for j in range(len(top) - 1):
            neg = top[j] < 0
            if neg == (top[j + 1] < 0) == (bottom[j] < 0) == (bottom[j + 1] < 0):
                continue
            corners = [(xs[j], ys[i], top[j]), (xs[j + 1], ys[i], top[j + 1]),
                       (xs[j + 1], ys[i + 1], bottom[j + 1]),
                       (xs[j], ys[i + 1], bottom[j])]
            pts = []
            for (xa, ya, va), (xb, yb, vb) in zip(corners, corners[1:] + corners[:1]):
                if (va < 0) != (vb < 0) and math.isfinite(va) and math.isfinite(vb):
                    t = va / (va - vb)
                    pts.append((xa + t * (xb - xa), ya + t * (yb - ya)))
            for k in range(0, len(pts) - 1, 2):
                segs.append([round(float(c), 4) for c in (*pts[k], *pts[k + 1])])
    return segs


def _straight_zero_lines(session):
    ix, iy = session.experiment.features.index("x1"), session.experiment.features.index("x2")
    x0, x1, y0, y1 = session.extent
    lines = []
    for neuron in session.model.layers[0].neurons:
        a, b, c = neuron.w[ix].data, neuron.w[iy].data, neuron.b.data
        pts = []
        if b != 0:
            for x in (x0, x1):
                pts.append((x, -(a * x + c) / b))
        if a != 0:
            for y in (y0, y1):
                pts.append((-(b * y + c) / a, y))
        inside = sorted({p for p in pts if x0 - 1e-9 <= p[0] <= x1 + 1e-9
                         and y0 - 1e-9 <= p[1] <= y1 + 1e-9})
        lines.append([[inside[0][0], inside[0][1], inside[-1][0], inside[-1][1]]]
                     if len(inside) >= 2 else [])
    return lines


def network_view(session):
    """The network's sizes, features, and every layer's weights and biases."""
    layers = []
    for layer in session.model.layers:
        layers.append({"w": [[num(w.data) for w in n.w] for n in layer.neurons],
                       "b": [num(n.b.data) for n in layer.neurons]})
    return {"sizes": session.sizes, "features": list(session.experiment.features),
            "layers": layers}


def parameter_table(session):
    """Each parameter's name, value, grad (of the last step's loss), optimizer state
    and last update: SGD momentum's buffer, or Adam's two moment estimates."""
    opt = session.opt
    if hasattr(opt, "m"):  # Adam, AdamW
        state_names = ["m", "v"]
    elif getattr(opt, "momentum", 0) > 0:
        state_names = ["momentum"]
    else:
        state_names = []
    rows = []
    for i, (name, p) in enumerate(zip(session.names, session.params)):
        if state_names == ["m", "v"]:
            state = [num(opt.m[i]), num(opt.v[i])]
        elif state_names:
            buf = opt.buf[i]
            state = [num(buf if buf is not None else 0.0)]
        else:
            state = []
        rows.append([name, num(p.data), num(p.grad), state, num(session.last_update[i])])
    return {"state": state_names, "rows": rows}


def data_points(session):
    """The train and test points: ``[x1, x2, label, index]`` (index -1: added by hand)."""
    def label(t):
        if session.kind == "regression":
            return round(float(t), 4)
        if session.k > 1:
            return int(t)
        return 1 if t > 0 else -1

    def pts(X, y, ids):
        return [[x[0], x[1], label(t), i] for x, t, i in zip(X, y, ids)]
    return {"train": pts(session.X_train, session.y_train, session.id_train),
            "test": pts(session.X_test, session.y_test, session.id_test)}


# -- one point's whole graph ------------------------------------------------------------


def follow(session, x1, x2, label=None):
    """Follow one point through the network: its graph is rebuilt at every state. With
    a label (a data point's) the graph ends in that point's loss. Returns the graph;
    a refused point leaves the session following none."""
    session.check_label(label)
    session.inspect = {"x": [float(x1), float(x2)], "label": label}
    try:
        return point_graph(session)
    except PlayError:
        session.inspect = None
        raise


def _point_root(session):
    """The graph of the followed point on copies of the parameters (so drawing it never
    touches the grads the optimizer reads), forward and backward done."""
    point = session.inspect
    shadow = {id(p): Value(p.data, label=p.label) for p in session.params}
    x = [Value(point["x"][0], label="x1"), Value(point["x"][1], label="x2")]
    h = [FEATURES[f](x[0], x[1]) for f in session.experiment.features]
    for f, v in zip(session.experiment.features, h):
        if not v.label:
            v.label = f
    k, layers = session.k, session.model.layers
    for li, layer in enumerate(layers):
        nxt = []
        for j, n in enumerate(layer.neurons):
            act = shadow[id(n.b)]
            for wi, xi in zip(n.w, h):
                act = act + shadow[id(wi)] * xi
            out = act if n._act is None else n._act(act)
            out.label = (f"h{li + 1}.{j + 1}" if li < len(layers) - 1
                         else ("out" if k == 1 else f"logit{j + 1}"))
            nxt.append(out)
        h = nxt
    out = h[0] if k == 1 else h
    label, spec = point["label"], session.loss_spec
    if label is None and k == 1:
        root = out
    else:
        if label is None:  # K logits, no label: the loss if the answer were right
            c = max(range(k), key=lambda j: h[j].data)
            t, name = spec.target(c, k), f"loss if class {c}"
        elif session.kind == "regression":
            t, name = float(label), "loss"
        elif k > 1:
            t, name = spec.target(int(label), k), "loss"
        else:
            t = (1.0 if label > 0 else 0.0) if spec.labels == "01" else float(label)
            name = "loss"
        tv = ([Value(v, label=f"y{j + 1}") for j, v in enumerate(t)] if k > 1
              else Value(t, label="y"))
        root = spec.sample(out, tv)
        root.label = name
    root.backward()
    return root


def point_graph(session, layout=True):
    """The followed point's graph: ``values`` [[data, grad] per node, in the layout's
    order]; with ``layout`` also the drawing's positions (micrograd.viz)."""
    from ..viz import forward_order, layout as vlayout, layout_to_dict, nodes_and_edges

    root = _point_root(session)
    order = forward_order(root)  # the order of micrograd.viz's node ids n0, n1, ...
    point = session.inspect
    out = {"x": list(point["x"]), "label": point["label"], "n": len(order),
           "values": [[num(v.data), num(v.grad)] for v in order]}
    out["layout"] = None
    if layout:
        if len(order) > MAX_POINT_GRAPH_NODES:
            raise PlayError(f"one point's graph has {len(order)} nodes; it is drawn up to "
                            f"{MAX_POINT_GRAPH_NODES}: use a smaller network")
        out["layout"] = layout_to_dict(vlayout(nodes_and_edges(root)))
    exp = session.experiment
    out["key"] = (f"{point['x']}|{point['label']}|{exp.features}|{exp.hidden}|"
                  f"{exp.activation}|{exp.loss}|{session.k}")
    out["output"] = num(root.data)
    out["root"] = root.label
    return out


# -- the whole state --------------------------------------------------------------------

#: the state's ``execution`` under its old name, ``engine``, with that field's old values
#: ("runner" was "lowered"): both fields are sent, so a page or a script that reads
#: ``engine`` (and ``engine_note``) keeps working
OLD_ENGINE = {"traced": "traced", "eager": "eager", "lowered": "runner"}


def play_state(session, *, history="all", points=False, graph_layout=False):
    """What the page gets: the accepted set-up, step, metrics, history (``"all"`` or
    ``"last"``), the pictures, the network and its parameter table; with ``points`` the
    data; the followed point's graph (its layout when ``graph_layout``)."""
    grid_scores, pictures = session.on_grid(thumbnail_cells())
    out = {"config": session.experiment.to_dict(), "task": session.kind,
           "step": session.step_count, "epoch": session.epoch, "lr": session.opt.lr,
           "metrics": dict(session.metrics), "nparams": session.nparams,
           "execution": session.execution, "engine": OLD_ENGINE[session.execution],
           "diverged": session.diverged_at is not None,
           "diverged_at": session.diverged_at,
           "history": list(session.history if history == "all" else session.history[-1:]),
           "boundary": boundary(session, grid_scores),
           "thumbnails": thumbnails(session, pictures),
           "zero_lines": zero_lines(session), "network": network_view(session),
           "params": parameter_table(session)}
    if session.execution_note is not None:  # why a session that could run elsewhere is eager
        out["execution_note"] = out["engine_note"] = session.execution_note
    out["points"] = data_points(session) if points else None
    out["graph"] = None if session.inspect is None else point_graph(session, graph_layout)
    return out
