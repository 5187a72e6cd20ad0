"""The walk as the page sees it: one JSON document per graph, built on micrograd's own
graph modules, so every number, every position and every formatted text comes from the
engine:

* ``micrograd.expr`` parses the text (a safe language, never ``eval``) into Values;
* ``micrograd.viz.layout`` places the records and op nodes (``graph``: the layout's own
  JSON form, ``micrograd.viz.layout_to_dict``, with the formatted cells of each record);
* ``micrograd.walk`` produces the forward and backward step events, the teaching modes,
  the visit-order experiment with its lost contributions, and the nudge check
  (``walk``: the ``Walk`` dataclass as ``micrograd.wire.encode`` sends it, unchanged).

This module adds only what belongs to the page: the editable leaves (and the free
variables an expression uses without assigning), the text of each edge's local
derivative, the neurons a drawing can fold into one box, the reused-node lesson, and the
questions a learner answers (checked here against ``Value.backward()``). The presets
and the modes, with their texts, are the Walk's one table each,
``micrograd.walk_setup.PRESETS`` and ``MODES``.

    >>> from micrograd.web.walkview import build, PRESETS
    >>> view = build(PRESETS["lecture"].expr)
    >>> {n["name"]: n["grad"] for n in view["graph"]["nodes"] if n["leaf"]}
    {'a': 6.0, 'b': -4.0, 'c': -2.0, 'f': 4.0}
"""

from __future__ import annotations

import math

from .. import expr as _expr
from .. import viz as _viz
from .. import walk as _walk
from .. import walk_explain
from ..expr import FUNCTIONS
from ..graph import fmt
from ..graph import fmt4
from ..walk import WalkError
from ..walk_setup import MODES, PRESETS, compare_conventions
from ..wire import encode
from . import limits, walk_questions

__all__ = ["build", "build_in_turns", "visit_order", "nudge", "check", "check_in_turns",
           "PRESETS", "FUNCTIONS", "WalkViewError", "free_names", "run_to_end", "usable"]


class WalkViewError(ValueError):
    """A request the walk refuses (bad expression, unknown leaf, over a cap).

    ``free``: the names the expression uses without assigning, when values for some of
    them are missing (the page then asks for them)."""

    def __init__(self, message, free=None):
        super().__init__(message)
        self.free = free


#: a graph with more nodes than this is built in several turns (``build_in_turns``): its
#: parse, its walk, each sweep of its layout and its texts each take one
TURN_NODES = 60


def run_to_end(job):
    """Drive a job (a generator of turns) through all of its turns at once; its return
    value (a handler's job: its outcome)."""
    while True:
        try:
            next(job)
        except StopIteration as stop:
            return stop.value


#: one-input ops that end a neuron: the drawing can fold the neuron into one box
NEURON_ENDS = ("tanh", "relu", "sigmoid")


def free_names(source):
    """Names the text uses without ever assigning them, in order of first use
    (``tanh(x1*w1 + b)`` -> ``['x1', 'w1', 'b']``); functions are not names."""
    toks = _expr.tokenize(source)
    assigned = {t.text for t, nxt in zip(toks, toks[1:])
                if t.kind == "name" and nxt.kind == "op" and nxt.text == "="}
    out = []
    for t in toks:
        if t.kind == "name" and t.text not in FUNCTIONS and t.text not in assigned \
                and t.text not in out:
            out.append(t.text)
    return out


class _EditableGraph:
    """The parsed graph and its editable leaves."""

    def __init__(self, source, values=None):
        if not isinstance(source, str):
            raise WalkViewError("the expression must be text")
        if len(source) > limits.MAX_EXPR_CHARS:
            raise WalkViewError(f"the expression is {len(source)} characters long; the cap "
                                f"is {limits.MAX_EXPR_CHARS}")
        values = dict(values or {})
        try:
            self.free = free_names(source)
        except ValueError as err:  # an ExprError from the tokenizer
            raise WalkViewError(str(err)) from None
        missing = [n for n in self.free if n not in values]
        if missing:
            raise WalkViewError(
                "give a value for " + ", ".join(missing) + " (the expression uses "
                + ("it" if len(missing) == 1 else "them") + " without assigning)",
                free=self.free)
        try:
            # values edit the labelled leaves (unknown names refused), as `micrograd graph
            # --values` does: one mechanism, in micrograd.expr
            prog = _expr.evaluate(source, values or None, override=True,
                                  max_length=limits.MAX_EXPR_CHARS,
                                  max_depth=limits.MAX_EXPR_DEPTH,
                                  max_nodes=limits.MAX_GRAPH_NODES)
        except ValueError as err:  # an ExprError, or a value for a name that is no leaf
            raise WalkViewError(str(err)) from None
        self.root = prog.root
        self.names = prog.names
        self.nodes, self.edges = _viz.nodes_and_edges(self.root)
        if len(self.nodes) > limits.MAX_GRAPH_NODES:
            raise WalkViewError(f"the graph has {len(self.nodes)} nodes; the cap is "
                                f"{limits.MAX_GRAPH_NODES}")
        # editable leaves: the labelled leaves a value can edit (micrograd.expr.leaves)
        # (in the graph's node order, as the page lists them)
        editable = {id(v) for v in _expr.leaves(self.root).values()}
        self.leaves = {n.value.label: n for n in self.nodes if id(n.value) in editable}
        self.by_id = {n.id: n for n in self.nodes}

    def walk(self, **kwargs):
        try:
            return _walk.walk(self.root, **kwargs)
        except WalkError as err:
            raise WalkViewError(str(err)) from None

    def layout(self, w, rankdir="LR", stack=False, stagger=False):
        """The viz layout (``rankdir``, ``stack``, ``stagger``: micrograd.viz.layout's) with
        the walk's grads in the records. Every node the steps name is named in its
        record (an unnamed op node shows its id, ``n2``), and each record is measured with
        the widest grad text it shows during the walk. (A generator: it yields between
        the layout's sweeps, ``micrograd.viz.layout_in_turns``.)"""
        widest = {}
        for s in w.backward:
            for nid, cell, x in [(s.node, s.cell, s.upstream)] + [
                    (c.parent, c.cell, c.grad_after) for c in s.contributions]:
                if len(cell) > len(widest.get(nid, ("",))[0]):
                    widest[nid] = (cell, x)
        for n in self.nodes:
            if not n.leaf and not n.label:
                n.label = n.id
            final = w.grads[n.id]
            n.grad = widest[n.id][1] if len(widest.get(n.id, ("",))[0]) > len(
                w.grad_cells[n.id]) else final
        lay = _viz.layout_to_dict((yield from _viz.layout_in_turns(
            (self.nodes, self.edges), rankdir=rankdir, stack=stack,
            stagger=stagger)))
        for d in lay["nodes"]:  # the records say the walk's final grads
            d["grad"] = encode(w.grads[d["id"]])
            d["cells"][-1] = w.grad_cells[d["id"]]
        return lay


def _edge_notes(g):
    """``{edge id: text}``: the local derivative on each edge, and the op's rule."""
    names = {n.id: n.name for n in g.nodes}
    count = {}
    for e in g.edges:
        count[e.dst] = count.get(e.dst, 0) + 1
    out = {}
    for e in g.edges:
        src, dst = names[e.src], names[e.dst]
        which = f" (input {e.index + 1} of {count[e.dst]})" if count[e.dst] > 1 else ""
        text = f"edge {src} → {dst}\nlocal derivative ∂{dst}/∂{src}{which} = {fmt(e.local)}"
        # the op's own rule text, from its one entry in the op table
        rule = g.by_id[e.dst].value._fn.rule
        out[e.id] = text + ("\n" + rule if rule else "")
    return out


def _neurons(g):
    """Groups the drawing can fold into one box: an activation (tanh, relu, sigmoid) of
    an op node, with every node that feeds only into it (its weights and bias, its
    products and sums; inputs shared with other neurons stay outside)."""
    users = {n.id: set() for n in g.nodes}
    for e in g.edges:
        users[e.src].add(e.dst)
    groups = []
    for n in g.nodes:
        if n.op_key not in NEURON_ENDS:
            continue
        members = {n.id}
        for m in reversed(g.nodes):  # users before inputs: one backward sweep suffices
            if m.id not in members and users[m.id] and users[m.id] <= members:
                members.add(m.id)
        if len(members) >= 3:  # an activation of a bare leaf is no neuron
            groups.append({"id": f"g{len(groups)}", "output": n.id,
                           "title": f"neuron {n.name}",
                           "members": [m.id for m in g.nodes if m.id in members]})
    return groups


def _lesson(g):
    """Why the recursive backward and a careless visit order survive this graph, or not."""
    users = {n.id: 0 for n in g.nodes}
    for e in g.edges:
        users[e.src] += 1
    inner = [n.name for n in g.nodes if not n.leaf and users[n.id] > 1]
    leaves = [n.name for n in g.nodes if n.leaf and users[n.id] > 1]
    if inner:
        text = (f"Here the inner node{'s' if len(inner) > 1 else ''} "
                f"{', '.join(inner)} {'are' if len(inner) > 1 else 'is'} used more than "
                "once. A recursive backward without a topological sort visits such a node "
                "once per path and pushes its grad on before all of its users have added "
                "theirs, so the nodes below it get too much (or, with a wrong visit order, "
                "too little): with 'recursive backward' on, run all and compare.")
    else:
        text = ("No inner node of this graph is used more than once"
                + (f" (only the leaf {leaves[0]} is reused, and a leaf passes nothing on)"
                   if len(leaves) == 1 else
                   f" (only the leaves {', '.join(leaves)} are reused, and a leaf passes "
                   "nothing on)" if leaves else "")
                + ", so a recursive backward visits every inner node after its only user "
                  "has pushed all of its grad: it happens to get every number right here. "
                  "Try the preset 'reused inner node' (b = a + a; c = b + b), where it "
                  "does not.")
    return {"reused_inner": inner, "text": text}


def _question(g, preset, ask, of):
    """The question under the graph: d(of)/d(ask), by default the preset's."""
    if of:
        of_id = _node(g, of, "of")
    else:
        of_id = g.nodes[-1].id
    if ask:
        wrt_id = _node(g, ask, "ask")
    elif preset is not None and preset.ask and preset.ask in g.leaves:
        wrt_id = g.leaves[preset.ask].id
    elif g.leaves:
        wrt_id = next(iter(g.leaves.values())).id
    else:
        return None
    of_name, wrt_name = g.by_id[of_id].name, g.by_id[wrt_id].name
    if wrt_id != of_id and not any(n.value is g.by_id[wrt_id].value
                                   for n in _viz.nodes_and_edges(g.by_id[of_id].value)[0]):
        raise WalkViewError(f"{wrt_name} does not feed {of_name}, so d{of_name}/d{wrt_name} "
                            f"is 0 whatever the values: ask about a node {of_name} is made "
                            "from")
    shown = list(g.leaves.items())
    if len(shown) > 6:  # a long list would hide the question: the asked leaf, and a pointer
        shown = [(name, n) for name, n in shown if n.id == wrt_id]
    given = ", ".join(f"{name} = {fmt(n.data)}" for name, n in shown)
    if len(g.leaves) > len(shown):
        given += (" and " if given else "") + "the other leaves as set"
    text = (f"with {given}, " if given else "") + f"what is d{of_name}/d{wrt_name}?"
    if preset is not None and preset.question_lead:
        text = f"{preset.question_lead} {text}"
    return {"of": of_id, "wrt": wrt_id, "text": text[0].upper() + text[1:]}


def _node(g, name, what):
    hits = [n.id for n in g.nodes if n.name == name] or [n.id for n in g.nodes
                                                         if n.id == name]
    if len(hits) != 1:
        raise WalkViewError(f"no single node named {name!r} for '{what}' (names: "
                            + ", ".join(dict.fromkeys(n.name for n in g.nodes)) + ")")
    return hits[0]


def usable(source, values, ask, of, notes):
    """For a set-up read from a link: ``{"values", "ask", "of"}`` the graph of ``source``
    can use (a value for a name that is no leaf of it, a question about a node it does
    not have, left out), each left out said in ``notes``. Unchanged when the text does
    not make a graph (the build says why); the names it uses without assigning count
    as leaves (their values come with the link)."""
    out = {"values": dict(values), "ask": ask, "of": of}
    try:
        g = _EditableGraph(source, {name: 1.0 for name in free_names(source)})
    except WalkViewError:
        return out
    for name in values:
        if name not in g.leaves:
            del out["values"][name]
            notes.append(f"left out of the link: a value for {name!r:.40}, which is no leaf "
                         f"of this graph (leaves: {', '.join(g.leaves) or 'none'})")
    for what in ("ask", "of"):
        try:
            if out[what]:
                _node(g, out[what], what)
        except WalkViewError as err:
            notes.append(f"left out of the link: {err}")
            out[what] = None
    return out


def build(source, values=None, **options):
    """The page's document for one graph: ``graph`` (the layout in the page's
    ``rankdir``, its records' cells side by side or ``stack``-ed, its leaves on one rank
    or ``stagger``-ed over two, showing the walk's
    final grads), ``walk`` (the encoded ``Walk``), the leaves, the edges' texts, the
    neurons, the reused-node lesson, what the mode does to this graph
    (``walk_explain.explain``), the question d(of)/d(ask), the sequence of
    ``questions`` of the kinds asked (``walk_questions``; their answers are not sent),
    and in the no-zero_grad mode the two conventions side by side
    (``walk_setup.compare_conventions``; else None). (``build_in_turns``, at once.)"""
    return run_to_end(build_in_turns(source, values, **options))


def build_in_turns(source, values=None, *, mode="correct", title="", preset=None,
                   ask=None, of=None, questions=tuple(walk_questions.KINDS), rankdir="LR",
                   stack=False, stagger=False):
    """``build`` as a job: a generator that yields between its phases (parse, walk, each
    sweep of the layout, texts) when the graph is big (over ``TURN_NODES`` nodes), so a
    server can run other work in between; returns the document. ``mode``: one of
    ``walk_setup.MODES``."""
    g = _EditableGraph(source, values)
    question = _question(g, preset, ask, of)
    big = len(g.nodes) > TURN_NODES
    if big:
        yield
    w = walk_explain.label_repeats(g.walk(mode=mode))  # a repeat visit says so
    if len(w.forward) + len(w.backward) > limits.MAX_STEPS:
        raise WalkViewError(f"this walk has {len(w.forward) + len(w.backward)} steps; the "
                            f"cap is {limits.MAX_STEPS}")
    if big:
        yield
    drawing = g.layout(w, rankdir, stack, stagger)
    graph = (yield from drawing) if big else run_to_end(drawing)
    if big:
        yield
    return {"title": title, "source": source.strip(), "mode": mode,
            "graph": graph, "walk": encode(w),
            "leaves": [{"id": n.id, "name": name, "value": encode(n.value.data)}
                       for name, n in g.leaves.items()],
            "free": g.free, "edge_notes": _edge_notes(g), "neurons": _neurons(g),
            "lesson": _lesson(g), "question": question,
            # what the mode does to this graph, in its own numbers (and where nothing
            # goes wrong, the preset where it does)
            "explain": walk_explain.explain(g.root, w, question and question["wrt"]),
            "questions": walk_questions.ask(g, question, questions),
            # no zero_grad: micrograd's published engine beside PyTorch's and ours
            "conventions": compare_conventions(g.root) if mode == "no_zero_grad" else None}


def visit_order(source, order, values=None):
    """The visit-order experiment: walk backward in the user's order (node ids)."""
    if len(order) > limits.MAX_ORDER_LEN:
        raise WalkViewError(f"the order has {len(order)} entries; the cap is "
                            f"{limits.MAX_ORDER_LEN}")
    g = _EditableGraph(source, values)
    for nid in order:
        if nid not in g.by_id:
            raise WalkViewError(f"unknown node {nid!r} in the order (nodes: "
                                f"{', '.join(n.id for n in g.nodes)})")
    if len(set(order)) != len(order):
        raise WalkViewError("a node appears twice in the order")
    w = g.walk(order=list(order))
    if w.ok:
        message = ("every node was visited after all of its users: the grads are right ("
                   + ", ".join(f"grad[{n}] = {fmt(w.grads[g.leaves[n].id])}"
                               for n in g.leaves) + ")")
    else:
        message = "\n".join(w.notes + [
            "the fix: visit every node after all the nodes that use it (reverse "
            "topological order)"])
    return {"ok": w.ok, "message": message, "walk": encode(w)}


def nudge(source, leaf, h=1e-4, values=None):
    """The central finite-difference slope at a leaf, beside the leaf's grad (the
    encoded ``micrograd.walk.Nudge``)."""
    g = _EditableGraph(source, values)
    if leaf not in g.leaves:
        raise WalkViewError(f"no leaf named {leaf!r} (leaves: {', '.join(g.leaves)})")
    try:
        return encode(_walk.nudge(g.root, g.leaves[leaf].id, h=h, central=True))
    except (WalkError, ValueError) as err:
        raise WalkViewError(str(err)) from None


def check(source, answer, values=None, **options):
    """Check a learner's answer to one of the graph's questions (``kind``: a forward
    value, a local derivative, the gradient d(of)/d(ask), one path's share) against the
    engine's number, computed on a fresh graph of the same text (a grad read off the
    Value itself after ``backward()``). Returns ``{correct, question, hint}`` (and the
    number once correct). An answer within 0.05% (or 0.0005 near zero) counts: the
    learner types decimals. (``check_in_turns``, at once.)"""
    return run_to_end(check_in_turns(source, answer, values, **options))


def check_in_turns(source, answer, values=None, *, preset=None, ask=None, of=None,
                   kind="grad"):
    """``check`` as a job: yields after parsing and before the hint (which walks the
    graph again in each of the teaching modes' mistakes) when the graph is big."""
    if isinstance(answer, bool) or not isinstance(answer, (int, float)) \
            or not math.isfinite(answer):
        raise WalkViewError(f"the answer must be a finite number, got {answer!r}")
    if kind not in walk_questions.KINDS:
        raise WalkViewError(f"unknown kind of question {kind!r:.40}; the kinds are "
                            + ", ".join(walk_questions.KINDS))
    g = _EditableGraph(source, values)
    big = len(g.nodes) > TURN_NODES
    if big:
        yield
    gq = _question(g, preset, ask, of)
    if gq is None:
        raise WalkViewError("this graph has no leaf to ask about")
    asked = walk_questions.ask(g, gq, (kind,))
    if not asked:
        raise WalkViewError(f"this graph has no question of {walk_questions.KINDS[kind]} "
                            "(a path's share is asked where a node is used twice)")
    q = asked[0]
    truth = walk_questions.answer(g, q)
    if not math.isfinite(truth):
        raise WalkViewError(f"the answer is {fmt(truth)} here: pick values where it is a "
                            "number")
    ok = _close(answer, truth)
    if big and not ok:
        yield  # the hint walks the graph again
    if ok:
        hint = ""
    elif kind == "grad":
        hint = _hint(g, q, answer, truth)
    elif truth != 0 and _close(answer, -truth):
        hint = "check the sign"
    else:
        hint = q["hint"]
    out = {"correct": ok, "question": q["text"], "answer": float(answer), "hint": hint}
    out["grad"] = encode(truth) if ok else None
    out["text"] = f"right: {fmt4(truth)}" if ok else "not quite"
    if ok and kind == "grad":
        out["text"] = (f"right: d{g.by_id[q['of']].name}/d{g.by_id[q['wrt']].name} = "
                       f"{fmt4(truth)}")
    return out


def _close(x, y):
    return abs(x - y) <= 5e-4 * max(1.0, abs(y))


def _hint(g, q, answer, truth):
    """A hint that points at the likely slip without giving the number away. Called
    after ``backward()``: every Value of the graph holds its grad."""
    of_name, wrt = g.by_id[q["of"]].name, g.by_id[q["wrt"]].name
    # what each edge out of the asked node delivers: grad[user] * local
    shares = [(g.by_id[e.dst].name, g.by_id[e.dst].value.grad * e.local, e.local)
              for e in g.edges if e.src == q["wrt"] and g.by_id[e.dst].value.grad != 0.0]
    if truth != 0 and _close(answer, -truth):
        return "check the sign: follow each local derivative's sign along the path"
    if len(shares) > 1 and any(_close(answer, s) for _, s, _ in shares):
        users = ", ".join(dict.fromkeys(u for u, _, _ in shares))
        return (f"that is one path's share: {wrt} feeds {len(shares)} inputs (of {users}); "
                "its grad adds every path's contribution (+=)")
    of_v, wrt_v = g.by_id[q["of"]].value, g.by_id[q["wrt"]].value
    sub = {n.value: n.id for n in _viz.nodes_and_edges(of_v)[0]}
    for mode in MODES.values():  # each mistake, as its mode names it
        if not mode.mistake:
            continue
        try:
            got = _walk.walk(of_v, mode=mode.key).grads[sub[wrt_v]]
        except WalkError:  # the recursive walk of a deep graph is over its visit cap
            continue
        if not _close(got, truth) and _close(answer, got):
            return f"that is what {mode.mistake} gives; the engine visits nodes in " \
                   "reverse topological order and adds (+=) every contribution"
    if any(_close(answer, loc) and not _close(loc, s) for _, s, loc in shares):
        return ("that is a local derivative only: multiply it by the grad of the node it "
                f"feeds (the chain rule: grad[{wrt}] += grad[user] · local)")
    return (f"walk it backward: grad[{of_name}] = 1, then every node passes grad · local "
            f"to its inputs; step backward to the nodes that use {wrt} and add up what "
            "each one passes on to it")
