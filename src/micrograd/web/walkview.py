"""The walk, as the page sees it: a graph with positions and the step-by-step events of
its forward and backward passes, every number computed here with micrograd's engine.

    >>> from micrograd.web.walkview import build, PRESETS
    >>> view = build(PRESETS["lecture"].source)
    >>> [n["grad"] for n in view["nodes"] if n["leaf"] and n["name"] in "abcf"]
    [6.0, -4.0, -2.0, 4.0]

A graph is written in a small, safe language (parsed with ``ast``, never evaluated):
statements separated by ``;`` or new lines; ``name = number`` makes a leaf,
``name = expression`` names an interior node, the last statement is the output::

    a = 2; b = -3; c = 10; e = a + b; f = e * c

Operators ``+ - * / **``, unary ``-``, and the functions tanh, exp, log, relu, sigmoid,
sqrt, abs, softplus, sin, cos. A mistake raises ``ExprError`` whose message points at
the character with a caret.

Backward steps follow the engine (``grad[p] += upstream * local`` in reverse topological
order); the teaching modes change that on purpose: ``assign`` writes ``=`` for ``+=``,
``recursive`` walks by recursion from the root without a topological sort, and
``no_zero_grad`` runs the pass twice without zeroing the leaf grads in between.
"""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass

from .. import ops as _ops
from ..engine import Value, _topo_order
from . import limits
from .numbers import num


class ExprError(ValueError):
    """A mistake in an expression; ``str(err)`` shows the line and a caret under the spot."""

    def __init__(self, message, source="", offset=None):
        self.message = message
        self.offset = offset
        text = message
        if offset is not None and source:
            line_start = source.rfind("\n", 0, offset) + 1
            line_end = source.find("\n", offset)
            line = source[line_start:line_end if line_end >= 0 else len(source)]
            text = f"{message}\n  {line}\n  {' ' * (offset - line_start)}^"
        super().__init__(text)


FUNCTIONS = {
    "tanh": Value.tanh, "exp": Value.exp, "log": Value.log, "relu": Value.relu,
    "sigmoid": Value.sigmoid, "sqrt": Value.sqrt, "abs": Value.abs,
    "softplus": Value.softplus, "sin": Value.sin, "cos": Value.cos,
}

_BINOPS = {ast.Add: lambda x, y: x + y, ast.Sub: lambda x, y: x - y,
           ast.Mult: lambda x, y: x * y, ast.Div: lambda x, y: x / y,
           ast.Pow: lambda x, y: x ** y}

_RULES = {  # how each op's local derivative is made, for the edge panel
    "add": "d(x + y)/dx = d(x + y)/dy = 1: addition copies the upstream grad",
    "mul": "d(x*y)/dx = y, d(x*y)/dy = x: multiplication swaps the inputs' data",
    "pow": "d(x**y)/dx = y*x**(y-1), d(x**y)/dy = x**y * log(x)",
    "powc": "d(x**n)/dx = n * x**(n-1)",
    "exp": "d exp(x)/dx = exp(x) = out",
    "log": "d log(x)/dx = 1/x",
    "tanh": "d tanh(x)/dx = 1 - tanh(x)**2 = 1 - out**2",
    "sigmoid": "d sigmoid(x)/dx = out * (1 - out)",
    "relu": "d relu(x)/dx = 1 if x > 0 else 0",
    "abs": "d |x|/dx = sign(x) (0 at 0)",
    "sqrt": "d sqrt(x)/dx = 1 / (2 sqrt(x))",
    "softplus": "d softplus(x)/dx = sigmoid(x)",
    "sin": "d sin(x)/dx = cos(x)", "cos": "d cos(x)/dx = -sin(x)",
}


def _number(node):
    """The value of a number literal, possibly signed (``-3``, ``+2.5``), else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _number(node.operand)
        return None if v is None else (-v if isinstance(node.op, ast.USub) else v)
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return float(node.value)
    return None


@dataclass
class Parsed:
    root: Value
    leaves: dict        # name -> leaf Value, in order of definition
    names: dict         # id(Value) -> its name


def parse(source, values=None):
    """Build the graph of ``source`` with micrograd Values; ``values`` overrides leaves."""
    if not isinstance(source, str):
        raise ExprError(f"an expression must be text, got {type(source).__name__}")
    if len(source) > limits.MAX_EXPR_CHARS:
        raise ExprError(f"the expression is {len(source)} characters long; the cap is "
                        f"{limits.MAX_EXPR_CHARS}")
    text = source
    segments = []  # (offset of the statement in source, statement text)
    for m in re.finditer(r"[^;\n]+", source):
        seg = m.group(0)
        if seg.strip():
            lead = len(seg) - len(seg.lstrip())
            segments.append((m.start() + lead, seg.strip()))
    if not segments:
        raise ExprError("the expression is empty: write e.g. 'a = 2; b = 3; c = a*b'")
    stmts = []  # (offset, ast statement)
    for base, seg in segments:
        try:
            tree = ast.parse(seg, mode="exec")
        except SyntaxError as err:
            off = None
            if err.offset is not None:
                off = min(base + max(err.offset - 1, 0), len(source))
            raise ExprError(f"syntax error: {err.msg}", source, off) from None
        except (RecursionError, MemoryError, ValueError):
            raise ExprError("the expression is nested too deeply", source, base) from None
        for st in tree.body:
            stmts.append((base, st))

    values = dict(values or {})
    env = {}          # name -> Value
    leaves = {}       # name -> leaf Value
    names = {}        # id(Value) -> name
    count = [0]

    base_of = [0]

    def fail(msg, node):
        raise ExprError(msg, source, base_of[0] + getattr(node, "col_offset", 0))

    def build(node):
        count[0] += 1
        if count[0] > 4 * limits.MAX_GRAPH_NODES:
            fail(f"the expression has more than {limits.MAX_GRAPH_NODES} nodes", node)
        n = _number(node)
        if n is not None:
            return n
        if isinstance(node, ast.Name):
            if node.id not in env:
                if node.id in FUNCTIONS:
                    fail(f"{node.id} is a function: write {node.id}(x)", node)
                fail(f"unknown name {node.id!r}: give it a value first, e.g. '{node.id} = 1'",
                     node)
            return env[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            x, y = build(node.left), build(node.right)
            if not isinstance(x, Value) and not isinstance(y, Value):
                fail("an operation on two numbers: name one of them (e.g. 'k = 3')", node)
            return _BINOPS[type(node.op)](x, y)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            x = build(node.operand)
            return -x if isinstance(node.op, ast.USub) else x
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
                fail("unknown function; use one of " + ", ".join(FUNCTIONS), node)
            if len(node.args) != 1 or node.keywords:
                fail(f"{node.func.id} takes exactly one argument", node)
            x = build(node.args[0])
            if not isinstance(x, Value):
                fail(f"{node.func.id} of a number: name the number first", node)
            return FUNCTIONS[node.func.id](x)
        what = type(node).__name__
        if isinstance(node, ast.Constant):
            what = f"the literal {node.value!r}"
        elif isinstance(node, ast.BinOp):
            what = f"the operator {type(node.op).__name__}"
        fail(f"not allowed here: {what} (use numbers, names, + - * / **, and functions)", node)

    last = None
    for i, (base, st) in enumerate(stmts):
        base_of[0] = base
        if isinstance(st, ast.Assign):
            if len(st.targets) != 1 or not isinstance(st.targets[0], ast.Name):
                fail("assign to one plain name, e.g. 'e = a + b'", st)
            name = st.targets[0].id
            if name in FUNCTIONS:
                fail(f"{name} is a function name; choose another name", st.targets[0])
            if name in env:
                fail(f"{name!r} is already defined", st.targets[0])
            lit = _number(st.value)
            if lit is not None:
                v = values.pop(name, lit)
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    raise ExprError(f"the value of {name!r} must be a number")
                leaf = Value(float(v), label=name)
                env[name] = leaves[name] = leaf
                names[id(leaf)] = name
                last = leaf
                continue
            v = build(st.value)
            if not isinstance(v, Value):
                fail("this is a plain number; write 'name = number' for a leaf", st.value)
            if id(v) in names:  # 'g = e': alias, keep the first name
                env[name] = v
            else:
                v.label = name
                names[id(v)] = name
                env[name] = v
            last = v
        elif isinstance(st, ast.Expr) and i == len(stmts) - 1:
            v = build(st.value)
            if not isinstance(v, Value):
                fail("the output is a plain number; use at least one named leaf", st.value)
            last = v
        else:
            fail("each statement is 'name = expression' (the last may be a bare expression)",
                 st)
    if values:
        raise ExprError(f"no leaf named {sorted(values)[0]!r} in this expression "
                        f"(leaves: {', '.join(leaves) or 'none'})")
    if last is None:
        raise ExprError("the expression is empty")
    if not leaves:
        raise ExprError("no leaves: define at least one, e.g. 'a = 2'")
    nodes = _topo_order(last)
    if len(nodes) > limits.MAX_GRAPH_NODES:
        raise ExprError(f"the graph has {len(nodes)} nodes; the cap is "
                        f"{limits.MAX_GRAPH_NODES}")
    return Parsed(last, leaves, names)


@dataclass(frozen=True)
class Preset:
    key: str
    title: str
    source: str


PRESETS = {p.key: p for p in [
    Preset("sum_times", "(a + b) * c", "a = 2; b = -3; c = 10; e = a + b; f = e * c"),
    Preset("lecture", "L = (a*b + c) * f",
           "a = 2; b = -3; c = 10; f = -2; e = a * b; d = e + c; L = d * f"),
    Preset("neuron", "tanh neuron",
           "x1 = 2; x2 = 0; w1 = -3; w2 = 1; b = 6.8813735870195432; "
           "x1w1 = x1 * w1; x2w2 = x2 * w2; x1w1x2w2 = x1w1 + x2w2; n = x1w1x2w2 + b; "
           "o = tanh(n)"),
    Preset("square", "a * a", "a = 3; f = a * a"),
    Preset("diamond", "diamond d = (a + 1) * (a * 3)", "a = 2; b = a + 1; c = a * 3; d = b * c"),
]}


# ---------------------------------------------------------------------------------------
# Layout: columns by depth (leaves left, root right), rows ordered to follow the inputs.
# ---------------------------------------------------------------------------------------

NODE_W, NODE_H, COL_GAP, ROW_GAP, MARGIN = 150, 56, 60, 22, 16


def _layout(nodes):
    depth = {}
    for v in nodes:  # inputs come before users
        depth[id(v)] = 1 + max((depth[id(p)] for p in v._prev), default=-1)
    # pull each node right next to its first user, so constants sit beside their op
    users = {}
    for v in nodes:
        for p in v._prev:
            users.setdefault(id(p), []).append(v)
    for v in reversed(nodes):
        us = users.get(id(v))
        if us and not v._prev:
            depth[id(v)] = min(depth[id(u)] for u in us) - 1
    cols = {}
    for v in nodes:
        cols.setdefault(depth[id(v)], []).append(v)
    pos = {}
    for d in sorted(cols, reverse=True):  # from the root: order rows by the users' rows
        col = cols[d]
        if d != max(cols):
            def key(v):
                rows = [pos[id(u)][1] for u in users.get(id(v), []) if id(u) in pos]
                return sum(rows) / len(rows) if rows else 0.0
            col.sort(key=key)
        for i, v in enumerate(col):
            pos[id(v)] = (d, i)
    ncols = max(cols) + 1
    nrows = max(len(c) for c in cols.values())
    height = MARGIN * 2 + nrows * NODE_H + (nrows - 1) * ROW_GAP
    out = {}
    for d, col in cols.items():
        top = (height - (len(col) * NODE_H + (len(col) - 1) * ROW_GAP)) / 2
        for i, v in enumerate(col):
            x = MARGIN + d * (NODE_W + COL_GAP) + NODE_W / 2
            y = top + i * (NODE_H + ROW_GAP) + NODE_H / 2
            out[id(v)] = (x, y)
    width = MARGIN * 2 + ncols * NODE_W + (ncols - 1) * COL_GAP
    return out, width, height


# ---------------------------------------------------------------------------------------
# The view: nodes, edges, forward and backward steps.
# ---------------------------------------------------------------------------------------


def _short(x):
    return f"{x:.6g}" if isinstance(x, float) and math.isfinite(x) else str(x)


class _Graph:
    def __init__(self, parsed):
        self.parsed = parsed
        self.nodes = _topo_order(parsed.root)          # inputs first, root last
        self.ids = {id(v): f"n{i}" for i, v in enumerate(self.nodes)}
        self.leaf_ids = {id(v) for v in parsed.leaves.values()}
        k = 0
        self.name = {}
        for v in self.nodes:
            if id(v) in parsed.names:
                self.name[id(v)] = parsed.names[id(v)]
            elif v._fn is None:
                self.name[id(v)] = _short(v.data)   # a constant
            else:
                k += 1
                self.name[id(v)] = f"t{k}"
        self.users = {id(v): [] for v in self.nodes}   # id -> [(user, slot)]
        self.edges = []
        for v in self.nodes:
            for slot, p in enumerate(v._prev):
                eid = f"e{len(self.edges)}"
                self.edges.append((eid, p, v, slot))
                self.users[id(p)].append((v, slot, eid))
        self.edge_id = {(id(p), id(v), slot): eid for eid, p, v, slot in self.edges}

    def is_const(self, v):
        return v._fn is None and id(v) not in self.leaf_ids

    def local(self, v):
        """The local derivatives of node v with respect to each input (the engine's table)."""
        xs = [p.data for p in v._prev]
        return _ops.local_grads(v._fn, xs, v.data, v._arg)

    def formula(self, v):
        nm = self.name
        ins = [nm[id(p)] for p in v._prev]
        key = _ops.KEY[v._fn]
        if key in ("add", "mul", "pow"):
            sym = {"add": "+", "mul": "*", "pow": "**"}[key]
            rhs = f"{ins[0]} {sym} {ins[1]}"
        elif key == "powc":
            rhs = f"{ins[0]}{v._op}"
        else:
            rhs = f"{v._op}({ins[0]})"
        return rhs

    def title(self, v):
        if v._fn is None:
            return self.name[id(v)]
        return f"{self.name[id(v)]} = {self.formula(v)}"


def _forward_steps(g):
    steps = []
    for v in g.nodes:
        if g.is_const(v):
            continue
        nid = g.ids[id(v)]
        if v._fn is None:
            text = f"leaf {g.name[id(v)]}: its value is given"
        else:
            vals = ", ".join(f"{g.name[id(p)]} = {_short(p.data)}" for p in v._prev)
            text = f"{g.title(v)} with {vals}"
        steps.append({"phase": "forward", "node": nid, "data": num(v.data), "text": text,
                      "updates": []})
    return steps


def _push(g, v, grads, assign, seen_note, lost_notes):
    """One visit of v in push form: grad[p] (+)= grad[v] * local for each input edge."""
    ups = []
    gv = grads[id(v)]
    for slot, (p, d) in enumerate(zip(v._prev, g.local(v))):
        before = grads[id(p)]
        contrib = d * gv
        if assign:
            if id(p) in seen_note and before != 0.0:
                lost_notes.append(f"'=' overwrote grad[{g.name[id(p)]}] = {_short(before)} "
                                  f"(an earlier contribution) with {_short(contrib)}")
            grads[id(p)] = contrib
            seen_note.add(id(p))
        else:
            grads[id(p)] = before + contrib
        ups.append({"node": g.ids[id(p)], "from": g.ids[id(v)],
                    "edge": g.edge_id[(id(p), id(v), slot)], "upstream": num(gv),
                    "local": num(d), "contribution": num(contrib), "before": num(before),
                    "after": num(grads[id(p)]), "op": "=" if assign else "+="})
    return ups


def _backward_steps(g, assign=False, recursive=False, passes=1):
    """The backward pass as steps; returns (steps, grads by node id, notes)."""
    grads = {id(v): 0.0 for v in g.nodes}
    steps, notes = [], []
    root = g.parsed.root
    for pass_no in range(passes):
        for v in g.nodes:  # like the engine: interior grads restart every pass
            if v._fn is not None:
                grads[id(v)] = 0.0
        before = grads[id(root)]
        grads[id(root)] = before + 1.0 if root._fn is None else 1.0
        label = f" (pass {pass_no + 1} of {passes})" if passes > 1 else ""
        steps.append({"phase": "backward", "node": g.ids[id(root)],
                      "text": f"seed: grad[{g.name[id(root)]}] = 1{label}",
                      "updates": [{"node": g.ids[id(root)], "from": None, "edge": None,
                                   "seed": True, "upstream": None, "local": None,
                                   "contribution": num(1.0), "before": num(before),
                                   "after": num(grads[id(root)]), "op": "="}]})
        if recursive:
            order = []
            stack = [root]
            while stack:
                v = stack.pop()
                if v._fn is None:
                    continue
                order.append(v)
                if len(order) > limits.MAX_VISITS:
                    raise ExprError(f"recursive backward would visit more than "
                                    f"{limits.MAX_VISITS} nodes on this graph")
                stack.extend(reversed(v._prev))
        else:
            order = [v for v in reversed(g.nodes) if v._fn is not None]
        seen = set()
        for v in order:
            lost = []
            ups = _push(g, v, grads, assign, seen, lost)
            how = "recursion from the root" if recursive else "reverse topological order"
            steps.append({"phase": "backward", "node": g.ids[id(v)],
                          "text": f"visit {g.title(v)} ({how}){label}", "updates": ups,
                          "notes": lost})
            notes.extend(lost)
    return steps, grads, notes


def _true_grads(parsed):
    parsed.root.backward()
    return {id(v): v.grad for v in _topo_order(parsed.root)}


def build(source, values=None, *, assign=False, recursive=False, no_zero_grad=False,
          title=""):
    """The page's view of a graph: layout, steps, final data and grads (see module doc)."""
    parsed = parse(source, values)
    g = _Graph(parsed)
    fwd = _forward_steps(g)
    bwd, grads, notes = _backward_steps(g, assign=assign, recursive=recursive,
                                        passes=2 if no_zero_grad else 1)
    true = _true_grads(parsed)
    if no_zero_grad:
        notes.append("no zero_grad: the second backward pass added onto the first, so every "
                     "leaf grad is now the true one counted twice")
    if recursive and not assign:
        revisited = {}
        for s in bwd:
            if s["text"].startswith("visit"):
                revisited[s["node"]] = revisited.get(s["node"], 0) + 1
        twice = [g.name[id(v)] for v in g.nodes
                 if v._fn is not None and revisited.get(g.ids[id(v)], 0) > (2 if no_zero_grad else 1)]
        if twice:
            notes.append("recursion without a topological sort visited "
                         f"{', '.join(twice)} more than once, each time pushing its grad "
                         "again (or before all its users had pushed into it)")
    pos, width, height = _layout(g.nodes)
    nodes = []
    for v in g.nodes:
        x, y = pos[id(v)]
        nodes.append({"id": g.ids[id(v)], "name": g.name[id(v)], "title": g.title(v),
                      "op": v._op, "leaf": v._fn is None, "const": g.is_const(v),
                      "x": x, "y": y, "w": NODE_W, "h": NODE_H,
                      "data": num(v.data), "grad": num(grads[id(v)]),
                      "true_grad": num(true[id(v)])})
    edges = []
    for eid, p, v, slot in g.edges:
        d = g.local(v)[slot]
        edges.append({"id": eid, "src": g.ids[id(p)], "dst": g.ids[id(v)], "slot": slot,
                      "count": len(v._prev), "local": num(d),
                      "rule": _RULES[_ops.KEY[v._fn]]})
    mismatch = [g.name[id(v)] for v in g.nodes
                if id(v) in g.leaf_ids and grads[id(v)] != true[id(v)]]
    if mismatch and not notes:
        notes.append("these grads differ from the engine's backward(): " + ", ".join(mismatch))
    return {
        "title": title, "source": source.strip(), "root": g.ids[id(parsed.root)],
        "width": width, "height": height, "nodes": nodes, "edges": edges,
        "leaves": [{"id": g.ids[id(v)], "name": n, "value": num(v.data)}
                   for n, v in parsed.leaves.items()],
        "reverse_topo": [g.ids[id(v)] for v in reversed(g.nodes) if not g.is_const(v)],
        "steps": fwd + bwd, "notes": notes,
    }


# ---------------------------------------------------------------------------------------
# The visit-order experiment and the nudge check.
# ---------------------------------------------------------------------------------------


def visit_order(source, order, values=None):
    """Walk the graph backward in the user's ``order`` (node ids such as ``"n3"``).

    A visit of node x gathers ``grad[x] += grad[u] * du/dx`` from every user u of x, with
    u's grad as it is at that moment; the root is seeded with 1 first. A node visited
    before one of its users misses that user's contribution (it had not arrived yet):
    the report names each such path.
    """
    parsed = parse(source, values)
    g = _Graph(parsed)
    by_id = {g.ids[id(v)]: v for v in g.nodes}
    if len(order) > limits.MAX_ORDER_LEN:
        raise ExprError(f"the order has {len(order)} entries; the cap is "
                        f"{limits.MAX_ORDER_LEN}")
    seen = set()
    for nid in order:
        if nid not in by_id:
            raise ExprError(f"unknown node {nid!r} in the order (nodes: "
                            f"{', '.join(by_id)})")
        if nid in seen:
            raise ExprError(f"node {g.name[id(by_id[nid])]} ({nid}) appears twice in the order")
        seen.add(nid)
    root = parsed.root
    true = _true_grads(parsed)
    grads = {id(v): 0.0 for v in g.nodes}
    grads[id(root)] = 1.0
    steps = [{"phase": "backward", "node": g.ids[id(root)],
              "text": f"seed: grad[{g.name[id(root)]}] = 1",
              "updates": [{"node": g.ids[id(root)], "from": None, "edge": None, "seed": True,
                           "upstream": None, "local": None, "contribution": num(1.0),
                           "before": num(0.0), "after": num(1.0), "op": "="}]}]
    done = {id(root)}
    lost = []
    for nid in order:
        v = by_id[nid]
        if v is root:
            steps.append({"phase": "backward", "node": nid, "updates": [],
                          "text": f"visit {g.name[id(v)]}: the root, already seeded"})
            continue
        ups = []
        for u, slot, eid in g.users[id(v)]:
            d = g.local(u)[slot]
            gu = grads[id(u)]
            before = grads[id(v)]
            grads[id(v)] = before + gu * d
            ups.append({"node": nid, "from": g.ids[id(u)], "edge": eid, "upstream": num(gu),
                        "local": num(d), "contribution": num(gu * d), "before": num(before),
                        "after": num(grads[id(v)]), "op": "+="})
            if id(u) not in done:
                missing = true[id(u)] * d
                lost.append({"node": nid, "via": g.ids[id(u)], "edge": eid,
                             "missing": num(missing - gu * d),
                             "reason": f"{g.name[id(v)]} was visited before "
                                       f"{g.name[id(u)]} had received its grad "
                                       f"(grad[{g.name[id(u)]}] was {_short(gu)}, it ends up "
                                       f"{_short(true[id(u)])}): the path through "
                                       f"{g.name[id(u)]} lost {_short(missing - gu * d)}"})
        done.add(id(v))
        steps.append({"phase": "backward", "node": nid, "updates": ups,
                      "text": f"visit {g.name[id(v)]}: gather from its users"})
    never = [g.name[id(v)] for v in g.nodes
             if not g.is_const(v) and v is not root and id(v) not in done]
    leaves_ok = all(grads[id(v)] == true[id(v)] for v in parsed.leaves.values())
    ok = leaves_ok and not lost and not never
    parts = []
    if ok:
        parts.append("every node was visited after all of its users: the grads are right ("
                     + ", ".join(f"grad[{n}] = {_short(grads[id(v)])}"
                                 for n, v in parsed.leaves.items()) + ")")
    else:
        for item in lost:
            parts.append(item["reason"])
        if never:
            parts.append(f"never visited: {', '.join(never)} (their grads stay 0 and their "
                         "inputs get nothing through them)")
        parts.append("result: " + ", ".join(
            f"grad[{n}] = {_short(grads[id(v)])} (right: {_short(true[id(v)])})"
            for n, v in parsed.leaves.items()))
        parts.append("the fix: visit in reverse topological order (every node after all of "
                     "its users)")
    return {"ok": ok, "message": "\n".join(parts), "steps": steps, "lost": lost,
            "never_visited": never,
            "grads": {g.ids[id(v)]: num(grads[id(v)]) for v in g.nodes},
            "true_grads": {g.ids[id(v)]: num(true[id(v)]) for v in g.nodes}}


def nudge(source, leaf, h=1e-4, values=None):
    """The central finite-difference slope (f(x+h) - f(x-h)) / 2h at a leaf, beside its grad."""
    parsed = parse(source, values)
    if leaf not in parsed.leaves:
        raise ExprError(f"no leaf named {leaf!r} (leaves: {', '.join(parsed.leaves)})")
    if not (isinstance(h, (int, float)) and math.isfinite(h) and h > 0):
        raise ExprError(f"h must be a positive finite number, got {h!r}")
    x = parsed.leaves[leaf].data
    base = {n: v.data for n, v in parsed.leaves.items()}
    plus = parse(source, {**base, leaf: x + h}).root.data
    minus = parse(source, {**base, leaf: x - h}).root.data
    slope = (plus - minus) / (2 * h)
    parsed.root.backward()
    grad = parsed.leaves[leaf].grad
    return {"leaf": leaf, "h": h, "f": num(parsed.root.data), "f_plus": num(plus),
            "f_minus": num(minus), "slope": num(slope), "grad": num(grad),
            "difference": num(slope - grad)}
