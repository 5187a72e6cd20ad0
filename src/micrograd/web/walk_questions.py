"""The Walk's questions, in the lecture's order: a forward value, a local derivative, a
gradient, and the share one path carries when a node is used more than once.

    value  Forward: with a = 2, b = -3, what is e = a*b?
    local  L = d*f: looking at this node alone, what is its local derivative dL/dd?
    grad   With a = 2, b = -3, c = 10, f = -2, what is dL/da?
    path   a feeds b and c: how much of dd/da arrives through c?

Each question is asked of the graph the learner sees and answered by the engine: a node's
``data``, an edge's local derivative from the op table, ``Value.backward()``'s grads.
A kind that does not apply to a graph (a path question where the asked node is used
once) is left out. The answers are not in the questions: ``answer`` gives one to the
checker only. A set-up that names the node asked about (``ask``) is a teacher's aim: its
questions start at that node's own (``aimed``: the gradient, then one path's share).
"""

from __future__ import annotations

from ..graph import describe_op, fmt
from ..walk_setup import QUESTIONS as KINDS


#: the ids a question names: the node (value), the edge (local, path), of and wrt
_IDS = ("node", "edge", "of", "wrt")

#: a teacher's aimed question (a set-up that names ``ask``) first: the asked node's own
#: kinds, then the rest in the lecture's order
AIMED = ("grad", "path")


def aimed(questions):
    """``ask``'s questions with the asked node's own (its gradient, one path's share)
    first, the forward value and the local derivative after them: a lesson link that
    names ``ask`` opens at the teacher's question."""
    return sorted(questions, key=lambda q: q["kind"] not in AIMED)


def ask(g, grad_question, kinds=tuple(KINDS)):
    """The questions about graph ``g`` (walkview's editable graph) of the given kinds,
    in ``KINDS``' order; ``grad_question`` is walkview's d(of)/d(ask) (or None)."""
    names = {n.id: n.name for n in g.nodes}
    makers = {"value": _value, "local": _local, "grad": _grad, "path": _path}
    out = []
    for kind in KINDS:
        if kind in kinds and grad_question is not None:
            q = makers[kind](g, grad_question, names)
            if q is not None:  # one shape for every kind: what does not apply is None
                out.append({"kind": kind, "title": KINDS[kind], "text": q["text"],
                            "hint": q["hint"], **{k: q.get(k) for k in _IDS}})
    return out


def answer(g, q):
    """The engine's number for question ``q`` (one of ``ask``'s). The grads are read
    after ``backward()`` from the question's output node, on ``g``'s own Values."""
    if q["kind"] == "value":
        return g.by_id[q["node"]].value.data
    if q["kind"] == "local":
        return _edge(g, q["edge"]).local
    g.by_id[q["of"]].value.backward()
    if q["kind"] == "grad":
        return g.by_id[q["wrt"]].value.grad
    e = _edge(g, q["edge"])
    return g.by_id[e.dst].value.grad * e.local


def _edge(g, eid):
    return next(e for e in g.edges if e.id == eid)


def _given(g, ids):
    """``a = 2, b = -3``: the values of the leaves among ``ids``, named."""
    leaves = {n.id: name for name, n in g.leaves.items()}
    return ", ".join(f"{leaves[i]} = {fmt(g.by_id[i].data)}" for i in dict.fromkeys(ids)
                     if i in leaves)


def _on_path(g, of_id, wrt_id):
    """The ids of the nodes on some path from ``wrt_id`` up to ``of_id``."""
    return {n.id for n in g.nodes if _feeds(g, wrt_id, n.id) and _feeds(g, n.id, of_id)}


def _feeds(g, src, dst):
    """Whether node ``src`` is ``dst`` or one of its inputs, at any depth."""
    stack, seen = [dst], set()
    while stack:
        cur = stack.pop()
        if cur == src:
            return True
        if cur not in seen:
            seen.add(cur)
            stack.extend(g.by_id[cur].inputs)
    return False


def _value(g, gq, names):
    """The first node of the forward pass on the asked path (else the first op node)."""
    path = _on_path(g, gq["of"], gq["wrt"])
    ops = [n for n in g.nodes if not n.leaf]
    if not ops:
        return None
    n = next((m for m in ops if m.id in path), ops[0])
    given = _given(g, n.inputs)
    text = (f"Forward: with {given}, what is " if given else "Forward: what is ") + \
        f"{n.name} = {describe_op(n, names)}?"
    return {"node": n.id, "text": text,
            "hint": f"apply the op to its inputs' values: {n.name} = {describe_op(n, names)}"}


def _local(g, gq, names):
    """The output node's local derivative with respect to its input on the asked path."""
    of = g.by_id[gq["of"]]
    if of.leaf:
        return None
    path = _on_path(g, gq["of"], gq["wrt"])
    into = [e for e in g.edges if e.dst == of.id]
    e = next((x for x in into if x.src in path), into[0])
    which = f" (its input {e.index + 1} of {len(into)})" if \
        sum(x.src == e.src for x in into) > 1 else ""
    rule = of.value._fn.rule or "the op's derivative, at this node's inputs"
    return {"edge": e.id,
            "text": f"{of.name} = {describe_op(of, names)}: looking at this node alone, "
                    f"what is its local derivative ∂{of.name}/∂{names[e.src]}{which}?",
            "hint": rule}


def _grad(g, gq, names):
    of, wrt = names[gq["of"]], names[gq["wrt"]]
    return {"of": gq["of"], "wrt": gq["wrt"], "text": gq["text"],
            "hint": f"multiply the local derivatives along the path from {of} down to "
                    f"{wrt}; where {wrt} is used more than once, add the paths"}


def _path(g, gq, names):
    """Where the asked node feeds two or more inputs on the way to the output: the share
    through the last of them."""
    path = _on_path(g, gq["of"], gq["wrt"])
    uses = [e for e in g.edges if e.src == gq["wrt"] and e.dst in path]
    if len(uses) < 2:
        return None
    e = uses[-1]
    wrt, dst, of = names[gq["wrt"]], names[e.dst], names[gq["of"]]
    twice = sum(x.dst == e.dst for x in uses) > 1
    where = f"input {e.index + 1} of {dst}" if twice else dst
    users = ", ".join(dict.fromkeys(names[x.dst] for x in uses))
    return {"of": gq["of"], "wrt": gq["wrt"], "edge": e.id,
            "text": f"{wrt} is used {len(uses)} times on the way to {of} (by {users}): "
                    f"how much of d{of}/d{wrt} arrives through {where}?",
            "hint": f"one use's share is grad[{dst}] times the local derivative on that "
                    f"edge, ∂{dst}/∂{wrt}: the chain rule along one path"}
