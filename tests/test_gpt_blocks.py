"""micrograd.gpt.blocks: one position's graph built eagerly, every node in exactly one
group (a block of the model or an input from outside), the blocks' outputs carrying the
numbers of the model's own forward and backward, and no folded or unfolded view over
its cap."""

import math
import random

import pytest

from micrograd.engine import topological_order
from micrograd.gpt import blocks
from micrograd.gpt.model import GPT, GPTConfig, softmax
from micrograd.gpt.train import Run

NAME = "christopher"


@pytest.fixture(scope="module")
def run():
    return Run.start(seed=42, steps=10)


@pytest.fixture(scope="module")
def graphs(run):
    tokens = run.tokenizer.encode(NAME)
    return {p: blocks.build(run.model, tokens, p) for p in (0, 3, 11)}


def partition_errors(pg):
    """What breaks "each node of the position's graph in exactly one group"."""
    errors = []
    seen = {}
    for g in pg.groups:
        for v in g.nodes:
            if v in seen:
                errors.append(f"a node in {seen[v]} and in {g.name}")
            seen[v] = g.name
    order = set(topological_order(pg.loss))
    missing = [v for v in order if v not in seen]
    if missing:
        errors.append(f"{len(missing)} nodes in no group")
    if set(seen) - order:
        errors.append("a group holds a node outside the graph")
    errors += [f"{v} owned by another group" for g in pg.groups for v in g.nodes
               if pg.owner[v] is not g]
    return errors


def eager(model, tokens, position):
    """The model's own eager pass, every position with its graph (no no_grad), the
    marked blocks' outputs of ``position`` kept; backward on that position's loss."""
    keys, values = model.empty_cache()
    for pos in range(position):
        model.gpt(tokens[pos], pos, keys, values)
    cached = [x for ks, vs in zip(keys[0], values[0]) for x in ks + vs]
    marks = {}
    logits = model.forward(model.state_dict["wte"][tokens[position]], position, keys,
                           values, mark=lambda b, outs: marks.__setitem__(b, list(outs)))
    loss = -softmax(logits)[tokens[position + 1]].log()
    loss.backward()
    marks["loss"] = [loss]
    return marks, cached


# ---------------------------------------------------------------------------------------
# the partition
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("position", [0, 3, 11])
def test_every_node_is_in_exactly_one_group(graphs, position):
    pg = graphs[position]
    assert partition_errors(pg) == []
    assert sum(len(g.nodes) for g in pg.groups) == len(pg.order)
    assert 10_000 < len(pg.order) < 15_000


def test_the_check_catches_a_node_in_two_groups_or_none(run):
    pg = blocks.build(run.model, run.tokenizer.encode("emma"), 2)
    twice = pg.blocks[3].nodes[0]
    pg.blocks[4].nodes.append(twice)
    assert any("and in layer0.attn.k" in e for e in partition_errors(pg))
    pg.blocks[4].nodes.pop()
    assert partition_errors(pg) == []
    gone = pg.blocks[12].nodes.pop()
    assert partition_errors(pg) == ["1 nodes in no group"]
    pg.blocks[12].nodes.append(gone)


def test_the_blocks_hold_what_their_outputs_reach_first(graphs):
    """The sizes the model's code gives (n_embd 16, 4 heads, 27 tokens): a linear row is
    0 + 16 products and 16 sums; the heads grow with the positions seen."""
    sizes = {b.name: len(b.nodes) for b in graphs[3].blocks}
    assert sizes == {
        "embeddings": 16, "rmsnorm": 54, "layer0.attn.rmsnorm": 54,
        "layer0.attn.q": 16 * 33, "layer0.attn.k": 16 * 33, "layer0.attn.v": 16 * 33,
        **{f"layer0.head{h}": 29 + 24 * 3 for h in range(4)},  # 24 more a position
        "layer0.attn": 16 * 33 + 16, "layer0.mlp.rmsnorm": 54,
        "layer0.mlp": 64 * 34 + 16 * 130, "lm_head": 27 * 33, "loss": 113}
    # the inputs: the weights a position reads, and the earlier positions' cache
    inputs = {g.name: len(g.nodes) for g in graphs[3].inputs}
    assert inputs == {"wte": 16, "wpe": 16, "lm_head": 27 * 16,
                      **{f"layer0.attn_w{m}": 256 for m in "qkvo"},
                      "layer0.mlp_fc1": 1024, "layer0.mlp_fc2": 1024, "layer0 cache": 3 * 32}
    assert "layer0 cache" not in {g.name for g in graphs[0].inputs}


def test_a_position_outside_the_name_is_refused(run):
    tokens = run.tokenizer.encode("emma")
    with pytest.raises(blocks.BlockError, match=r"outside 0\.\.4"):
        blocks.build(run.model, tokens, 5)
    with pytest.raises(blocks.BlockError):
        blocks.build(run.model, tokens, -1)


# ---------------------------------------------------------------------------------------
# the numbers: the engine's own
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("position", [0, 3, 11])
def test_the_blocks_outputs_carry_the_models_data_and_grads(run, graphs, position):
    pg = graphs[position]
    model = GPT(run.model.config, weights=run.model.weights())
    marks, cached = eager(model, run.tokenizer.encode(NAME), position)
    assert [b.name for b in pg.blocks] == list(marks)
    for b in pg.blocks:
        assert [v.data for v in b.outputs] == [v.data for v in marks[b.name]], b.name
        assert [v.grad for v in b.outputs] == [v.grad for v in marks[b.name]], b.name
    cache = [g for g in pg.inputs if g.kind == "cache"]
    if position:
        assert [v.grad for v in cache[0].outputs] == [v.grad for v in cached]
        assert any(v.grad != 0 for v in cached)
    # the token's embedding row gets the grad of the sum it feeds
    wte = next(g for g in pg.inputs if g.name == "wte")
    row = wte.outputs[16 * pg.tokens[pg.position]:][:16]  # the token's row
    assert [v.grad for v in row] == [v.grad for v in pg.blocks[0].outputs]


def test_the_model_itself_is_left_alone(run):
    before = [(p.data, p.grad) for p in run.model.params]
    blocks.build(run.model, run.tokenizer.encode("anna"), 2)
    assert [(p.data, p.grad) for p in run.model.params] == before


def test_the_weights_grads_match_central_differences():
    model = GPT(GPTConfig(vocab_size=5, n_embd=8, n_head=2, block_size=4), random.Random(3))
    tokens = [4, 1, 2, 3, 4]
    pg = blocks.build(model, tokens, 2)
    wq = next(g for g in pg.inputs if g.name == "layer0.attn_wq")
    cols = model.config.shapes()["layer0.attn_wq"][1]
    for v in wq.nodes[::9]:
        i, j = divmod(wq.outputs.index(v), cols)  # the copy keeps the rows' order
        w = model.weights()
        h = 1e-6
        w["layer0.attn_wq"][i][j] += h
        up = blocks.build(GPT(model.config, weights=w), tokens, 2).loss.data
        w["layer0.attn_wq"][i][j] -= 2 * h
        down = blocks.build(GPT(model.config, weights=w), tokens, 2).loss.data
        assert math.isclose(v.grad, (up - down) / (2 * h), rel_tol=1e-5, abs_tol=1e-9)


# ---------------------------------------------------------------------------------------
# folded and unfolded: never over the cap
# ---------------------------------------------------------------------------------------

def test_the_folded_graph_is_a_box_a_group_within_the_cap(graphs):
    pg = graphs[11]
    view = blocks.folded(pg, cap=300)
    assert len(view["boxes"]) == len(pg.groups) == 25 <= 300
    assert view["nodes"] == len(pg.order) == sum(b["nodes"] for b in view["boxes"])
    by = {b["id"]: b for b in view["boxes"]}
    loss = by[pg.blocks[-1].id]
    assert loss["data"] == [pg.loss.data] and loss["grad"] == [1.0]
    q = by[pg.blocks[3].id]
    assert q["data"] == [v.data for v in pg.blocks[3].outputs[:blocks.SHOWN]]
    assert q["grad_norm"] == math.sqrt(math.fsum(v.grad ** 2 for v in pg.blocks[3].outputs))
    # the edges: each block after what it reads, each input a rank before its reader
    assert {(e["src"], e["dst"]) for e in view["edges"]} >= {("b0", "b1"), ("b1", "b2"),
                                                             ("b13", "b14"), ("w:wte", "b0")}
    for e in view["edges"]:
        assert by[e["src"]]["rank"] < by[e["dst"]]["rank"]
    with pytest.raises(blocks.BlockError, match="over the cap"):
        blocks.folded(pg, cap=20)


def walk_down(pg, gid, cap, path=()):
    """Every view under block ``gid`` (the parts, then each part...): (path, view)."""
    view = blocks.unfolded(pg, gid, list(path), cap)
    yield path, view
    if view["kind"] == "parts":
        for i in range(len(view["boxes"])):
            yield from walk_down(pg, gid, cap, (*path, i))


@pytest.mark.parametrize("cap", [300, 40, 7])
def test_no_unfolded_view_exceeds_the_cap_and_the_parts_cover_the_block(graphs, cap):
    pg = graphs[3]
    for block in pg.blocks if cap != 7 else pg.blocks[6:7] + pg.blocks[14:]:
        drawn = []
        for _path, view in walk_down(pg, block.id, cap):
            if view["kind"] == "parts":
                assert len(view["boxes"]) <= cap
                assert sum(b["nodes"] for b in view["boxes"]) == view["nodes"]
            else:
                assert len(view["nodes"]) <= cap
                drawn += [n.value for n in view["nodes"]]
        assert sorted(map(id, drawn)) == sorted(map(id, block.nodes)), block.name


def test_an_unfolded_blocks_nodes_carry_what_backward_computed(graphs):
    pg = graphs[11]
    head = pg.blocks[6]
    view = blocks.unfolded(pg, head.id, [], 300)
    assert view["kind"] == "nodes" and len(view["nodes"]) == len(head.nodes) == 293
    for n in view["nodes"]:
        v = n.value
        assert (n.data, n.grad) == (v.data, v.grad) and n.id == f"n{pg.index[v]}"
    ids = {n.id for n in view["nodes"]}
    assert all(e.src in ids and e.dst in ids for e in view["edges"])
    assert [n.label for n in view["nodes"] if n.label.startswith("head0[")] == [
        f"head0[{i}]" for i in range(4)]
    assert {i["from"] for i in view["inputs"]} == {"layer0.attn.q", "layer0.attn.k",
                                                   "layer0.attn.v", "layer0 cache"}


def test_a_block_over_the_cap_opens_in_parts_per_output_and_per_neuron(graphs):
    pg = graphs[3]
    q = blocks.unfolded(pg, pg.blocks[3].id, [], 300)
    assert q["kind"] == "parts" and [b["name"] for b in q["boxes"]] == [
        f"q[{i}]" for i in range(16)]
    assert {b["nodes"] for b in q["boxes"]} == {33}
    assert q["boxes"][5]["data"] == [pg.blocks[3].outputs[5].data]
    mlp = blocks.unfolded(pg, pg.blocks[12].id, [], 300)
    sizes = [b["nodes"] for b in mlp["boxes"]]
    assert sizes == [34] * 64 + [130] * 16  # 64 ReLU neurons, then the 16 outputs
    part = blocks.unfolded(pg, pg.blocks[12].id, [70], 300)
    assert part["kind"] == "nodes" and part["nodes"][-1].label == "mlp[6]"
    with pytest.raises(blocks.BlockError, match="outside 0..79"):
        blocks.unfolded(pg, pg.blocks[12].id, [80], 300)
    with pytest.raises(blocks.BlockError, match="not folded"):
        blocks.unfolded(pg, pg.blocks[0].id, [0], 300)
    with pytest.raises(blocks.BlockError, match="summarized"):
        blocks.unfolded(pg, "w:wte", [], 300)
