"""The GPT tab's walk on one position: the answers of ``gpt.walk`` and ``gpt.walk.block``
made from ``micrograd.gpt.blocks`` (the graph built, folded, answered, dropped).

Each request builds the position's graph again on the session's current weights (a copy
of them: the run's own grads are never touched), about 11,000 to 15,000 nodes, and
keeps nothing of it: what it answers is plain data. No answer holds more boxes, or
nodes, than the graph cap the Walk keeps (``limits.MAX_GRAPH_NODES``): the folded
position is a box a block and a box an input (~25); a block unfolded is its nodes, laid
out by ``micrograd.viz`` as the Walk's graph is, or, over the cap, a box a part.
"""

from __future__ import annotations

from ...gpt import blocks
from ...graph import num
from ...viz import layout_in_turns, layout_to_dict
from .. import limits
from .errors import Failure

__all__ = ["position_graph", "walk_answer", "block_answer", "CAP"]

#: the most boxes (or nodes) one answer holds: the Walk's graph cap
CAP = limits.MAX_GRAPH_NODES


def position_graph(session, name, position):
    """``(tokens, position, graph)`` of ``name`` at ``position`` (None: the last) on the
    session's weights; a position outside the name is refused in words."""
    run = session.run
    tokens = run.tokenizer.encode(name)  # UnknownCharacterError: the caller's
    n = blocks.positions(tokens, run.model.config.block_size)
    if position is None:
        position = n - 1
    if not 0 <= position < n:
        raise Failure("refused", f"position {position} is outside 0..{n - 1}: "
                                 f"\"{name}\" gives {n} position{'s' if n != 1 else ''} "
                                 "(<BOS> then each letter, each predicting the next)",
                      field="position")
    return tokens, position, blocks.build(run.model, tokens, position)


def _label(tokenizer, token):
    return "<BOS>" if token == tokenizer.bos else tokenizer.decode([token])


def _about(session, name, pg):
    """What every walk answer says of the position it shows."""
    tok = session.run.tokenizer
    n = blocks.positions(pg.tokens, session.run.model.config.block_size)
    return {"step": session.done, "name": name, "position": pg.position, "positions": n,
            "tokens": [_label(tok, t) for t in pg.tokens[:n]],
            "token": _label(tok, pg.tokens[pg.position]),
            "target": _label(tok, pg.tokens[pg.position + 1]),
            "loss": num(pg.loss.data), "graph_nodes": len(pg.order), "cap": CAP}


def walk_answer(session, name, pg):
    """The position folded: a box a block, a box an input from outside."""
    view = blocks.folded(pg, CAP)
    nb = len(pg.blocks)
    note = (f"The graph of this position's loss holds {len(pg.order):,} nodes, each with "
            f"its data and its grad after backward(). It is folded into {nb} blocks (one "
            f"box each: how many nodes it holds, its outputs' first numbers and their "
            f"norms) and {len(pg.inputs)} inputs from outside them (the weights, a box a "
            "matrix" + (", and the keys and values of the earlier positions" if any(
                g.kind == "cache" for g in pg.inputs) else "") + "), summarized. Choose a "
            f"block to unfold it; one of more than {CAP} nodes opens folded one level "
            "down.")
    return {**_about(session, name, pg), "boxes": view["boxes"], "edges": view["edges"],
            "note": note}


def block_answer(session, name, pg, block, path, layout):
    """Block ``block`` (an id of the folded answer) down ``path``: its nodes laid out,
    or its parts. (A generator: it yields between the layout's sweeps.)"""
    try:
        view = blocks.unfolded(pg, block, path, CAP)
    except blocks.BlockError as err:
        raise Failure("refused", str(err), field="path" if path else "block") from None
    out = {**_about(session, name, pg), "block": block, "path": list(path),
           "title": view["block"], "kind": view["kind"], "graph": None, "inputs": None,
           "boxes": None, "edges": None}
    if view["kind"] == "parts":
        n = len(view["boxes"])
        out.update(boxes=view["boxes"], edges=view["edges"], nodes=view["nodes"],
                   note=f"These {view['nodes']:,} nodes are more than the {CAP} drawn at "
                        f"once, so they are folded one level down into {n} parts: each "
                        "part is one node that others read or that is given out (an "
                        "output, a neuron's sum after its ReLU, an exp of the softmax) "
                        "with the nodes that feed only it. Choose a part to unfold it.")
        return out
    lay = yield from layout_in_turns((view["nodes"], view["edges"]), **layout)
    outside = ", ".join(f"{i['count']} from {i['from']}" for i in view["inputs"])
    out.update(graph=layout_to_dict(lay), nodes=len(view["nodes"]), inputs=view["inputs"],
               note=f"All {len(view['nodes'])} nodes of this part of the graph, each with "
                    "its data and its grad" + (f"; what feeds them from outside is not "
                                               f"drawn: {outside}." if outside else "."))
    return out
