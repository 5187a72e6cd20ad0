"""What each teaching mode does to THIS graph, said with the graph's own names and
numbers: the Walk page, the Jupyter widget and ``micrograd graph`` show these sentences
beside the mode (``walk_setup.MODES`` holds each mode's one general lesson).

    >>> from micrograd.expr import parse
    >>> from micrograd.walk import walk
    >>> from micrograd.walk_setup import PRESETS
    >>> root = parse(PRESETS["lecture"].expr)
    >>> said = explain(root, walk(root, mode="assign"))
    >>> said["text"][:60]
    'Nothing goes wrong here because no node is used twice: each '
    >>> said["offer"]
    {'preset': 'reused', 'label': 'try the reused-node preset (b = a + a; c = b + b)'}

``explain(root, w, focus=None)``: ``w`` is ``micrograd.walk.walk(root, mode=...)``'s
result (its mode is the one explained), ``focus`` the id of the node a sentence names
first (the question's node; default the first leaf). It returns, JSON-ready::

    {"mode": "assign", "text": "...", "offer": {"preset": "reused", "label": ...} | None}

``offer``: where nothing goes wrong on this graph, the preset where the mode's mistake
shows (a page puts a button on it). ``label_repeats(w)``: in the recursive mode, each
visit of a node reached by more than one path says which path it is
(``visit b = a + a (again: path 2 of 2)``).
"""

from __future__ import annotations

from .graph import fmt, nodes_and_edges
from .walk_setup import CONVENTIONS, PRESETS, compare_conventions

__all__ = ["explain", "label_repeats", "OFFER_PRESET"]

#: the preset where every mistake of the walk shows: an inner node used twice
OFFER_PRESET = "reused"


def _offer():
    p = PRESETS[OFFER_PRESET]
    return {"preset": p.key, "label": f"try the reused-node preset ({p.expr.split('; ', 1)[1]})"}


class _Graph:
    """The graph's uses: for each node, the edges out of it (one per input slot)."""

    def __init__(self, root, w):
        self.nodes, self.edges = nodes_and_edges(root)
        self.by_id = {n.id: n for n in self.nodes}
        self.out = {n.id: [e for e in self.edges if e.src == n.id] for n in self.nodes}
        self.said = w.said or w.names
        self.reused = [n.id for n in self.nodes if len(self.out[n.id]) > 1]
        self.inner_reused = [i for i in self.reused if not self.by_id[i].leaf]

    def name(self, nid):
        return self.said.get(nid, nid)

    def users(self, nid):
        """``'by c, twice'``, ``'by b and c'``: who uses the node."""
        dst = [self.name(e.dst) for e in self.out[nid]]
        once = list(dict.fromkeys(dst))
        if len(once) == 1:
            return f"by {once[0]}, {_times(len(dst))}"
        return "by " + _and(once)

    def value(self, nid):
        return f"{self.name(nid)} = {fmt(self.by_id[nid].data)}"


def _times(n):
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def _and(items):
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _focus(g, focus):
    if focus in g.by_id:
        return focus
    leaves = [n.id for n in g.nodes if n.leaf and n.label]
    return leaves[0] if leaves else g.nodes[0].id


def explain(root, w, focus=None):
    """The sentence that says what ``w``'s mode does to the graph of ``root``."""
    g = _Graph(root, w)
    if root._a is None:
        return {"mode": w.mode, "offer": None,
                "text": f"This graph is one leaf, {g.value(g.nodes[0].id)}: its grad is "
                        "the seed, 1, in every mode; nothing is passed on."}
    f = _focus(g, focus)
    text, offer = _BY_MODE[w.mode](g, w, f)
    return {"mode": w.mode, "text": text, "offer": _offer() if offer else None}


def _wrong_list(g, w, first):
    wrong = sorted(w.wrong(), key=lambda t: (t[0] != first, g.nodes.index(g.by_id[t[0]])))
    return "; ".join(f"grad[{g.name(k)}] = {fmt(got)} instead of {fmt(exp)}"
                     for k, got, exp in wrong[:3]) + ("; ..." if len(wrong) > 3 else "")


def _shares(g, w, nid):
    """Each path's share into node ``nid`` (its users' correct grads times the locals)."""
    return [w.expected[e.dst] * e.local for e in g.out[nid]]


def _correct(g, w, f):
    head = f"Here, with {g.value(f)}, "
    if not g.reused:
        return (head + "no node is used twice, so each grad is one path's product of local "
                f"derivatives and the walk ends with grad[{g.name(f)}] = {fmt(w.grads[f])}.",
                False)
    r = f if f in g.reused else g.reused[0]
    shares = _shares(g, w, r)
    return (head + f"{g.name(r)} is used {_times(len(shares))} ({g.users(r)}): its grad adds "
            f"every path's share, grad[{g.name(r)}] = {' + '.join(fmt(s) for s in shares)} = "
            f"{fmt(w.grads[r])}, "
            "and it is passed on only once it is complete.", False)


def _received(w, nid):
    """What node ``nid`` is given in ``w``'s pass, share by share."""
    return [c.contribution for s in w.backward for c in s.contributions if c.parent == nid]


def _assign(g, w, f):
    if not g.reused:
        return (f"Nothing goes wrong here because no node is used twice: each grad "
                f"receives one share, so = gives what += gives (with {g.value(f)}, "
                f"grad[{g.name(f)}] = {fmt(w.grads[f])} either way).", True)
    if w.ok:
        r = f if f in g.reused else g.reused[0]
        return (f"Here, with {g.value(f)}, {g.name(r)} is used {_times(len(g.out[r]))} "
                f"({g.users(r)}), but on "
                f"these values its last share is its whole grad, so = happens to give "
                f"grad[{g.name(r)}] = {fmt(w.grads[r])} as += does.", False)
    bad = {k for k, _, _ in w.wrong()}
    r = next(i for i in reversed([n.id for n in g.nodes]) if i in g.reused and i in bad)
    got = _received(w, r)
    return (f"Here, with {g.value(f)}, {g.name(r)} is used {_times(len(got))} "
            f"({g.users(r)}) and is given "
            f"{_and(fmt(x) for x in got)}: with = it keeps only the last, {fmt(got[-1])}, "
            f"instead of their sum {fmt(sum(got))}, so {_wrong_list(g, w, f)}.", False)


def _recursive(g, w, f):
    visits = {}
    for nid in w.order:
        visits[nid] = visits.get(nid, 0) + 1
    again = [i for i in g.inner_reused if visits.get(i, 0) > 1]
    if again and not w.ok:
        r = again[0]
        held = [fmt(s.upstream) for s in w.backward if s.node == r and s.kind == "visit"]
        return (f"Here, with {g.value(f)}, the inner node {g.name(r)} is reached by "
                f"{visits[r]} paths "
                f"({g.users(r)}), so the recursive backward visits it {_times(visits[r])} "
                f"and pushes on what it holds at each visit ({', then '.join(held)}) "
                f"instead of its grad {fmt(w.expected[r])} once: "
                f"{_wrong_list(g, w, f)}.", False)
    leaves = [i for i in g.reused if g.by_id[i].leaf]
    why = ("no node is used twice" if not g.reused else "no inner node is used twice "
           f"(the leaf {_and(g.name(i) for i in leaves)} is visited once per path, and a "
           "leaf passes nothing on)")
    if w.ok:
        return (f"Nothing goes wrong here because {why}: every inner node is visited once, "
                f"after its only user has pushed all of its grad, so with {g.value(f)} "
                f"grad[{g.name(f)}] = {fmt(w.grads[f])} as in the correct pass.", True)
    return (f"Here, with {g.value(f)}, the visits come in the wrong order: "
            f"{_wrong_list(g, w, f)}.", False)


def _no_zero_grad(g, w, f):
    table = compare_conventions(g.nodes[-1].value, w.passes)
    row = next(r for r in table["rows"] if r["id"] == f)
    mg, pt = (CONVENTIONS[k].title for k in ("micrograd", "pytorch"))
    name = g.name(f)
    said = (f"Here, with {g.value(f)}, the first pass gives grad[{name}] = "
            f"{row['texts']['one_pass']} (right), and the second adds onto it: ")
    inner = [r["name"] for r in table["rows"][1:] if not r["leaf"]
             and r["micrograd"] != r["one_pass"]]
    if row["micrograd"] == row["pytorch"]:
        why = ("this graph has no inner node but the root, which each pass sets to 1"
               if not inner else f"the inner grads that add up ({_and(inner)}) do not "
               f"feed {name}")
        return (said + f"it ends with {row['texts']['micrograd']} under {mg} as under "
                f"{pt}, since {why}.", False)
    grads = (f"the inner grad of {inner[0]} adds up too and pushes its sum on"
             if len(inner) == 1 else f"the inner grads {_and(inner)} add up too and push "
             "their sums on")
    return (said + f"{mg} ends with {row['texts']['micrograd']} ({grads}), {pt} with "
            f"{row['texts']['pytorch']} (only the leaves add up).", False)


_BY_MODE = {"correct": _correct, "assign": _assign, "recursive": _recursive,
            "no_zero_grad": _no_zero_grad}


def label_repeats(w):
    """In place: each backward visit of a node the pass visits more than once (the
    recursive mode: once per path) says which visit it is, in its ``head`` and ``text``
    (``visit b = a + a (path 1 of 2)``, then ``(again: path 2 of 2)``). Returns ``w``."""
    count = {}
    for s in w.backward:
        if s.kind == "visit":
            count[(s.pass_, s.node)] = count.get((s.pass_, s.node), 0) + 1
    seen = {}
    for s in w.backward:
        n = count.get((s.pass_, s.node), 0)
        if s.kind != "visit" or n < 2:
            continue
        k = seen[(s.pass_, s.node)] = seen.get((s.pass_, s.node), 0) + 1
        tag = f" (path 1 of {n})" if k == 1 else f" (again: path {k} of {n})"
        s.text = s.head + tag + s.text[len(s.head):]
        s.head += tag
    return w
