"""micrograd.gpt's fast paths give microgpt's numbers and leave Python as they found it:
``linear`` (built by ``engine.affine``, folded) is ``sum()`` over the products to the
bit, forward and backward; a step pauses the cyclic collector and sets it back as it
was, also when the step raises; nothing of a step's graph outlives it. No speed is
asserted here (benchmarks/gpt.py measures it)."""

from __future__ import annotations

import gc
import random

import pytest

from micrograd.engine import Value, no_grad
from micrograd.gpt import train as gpt_train
from micrograd.gpt.model import linear
from micrograd.gpt.train import Run

NAMES = ["anna", "bob", "emma", "li"]


def sum_linear(x, w):  # microgpt's linear
    return [sum(wi * xi for wi, xi in zip(wo, x)) for wo in w]


def graph(rng, lin):
    """A loss over ``lin``'s three outputs, from leaf weights and interior inputs (as the
    model's); the Values whose numbers and grads are compared."""
    w = [[Value(rng.gauss(0, 1)) for _ in range(5)] for _ in range(3)]
    a = [Value(rng.gauss(0, 1)) for _ in range(5)]
    x = [ai * ai + ai for ai in a]
    out = lin(x, w)
    loss = sum(o * o.relu() for o in out) + out[0] * out[2]
    loss.backward()
    return [loss] + out + [wi for row in w for wi in row] + a + x


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_linear_is_the_sum_of_products_to_the_bit(seed):
    got = graph(random.Random(seed), linear)
    want = graph(random.Random(seed), sum_linear)
    assert [v.data for v in got] == [v.data for v in want]
    assert [v.grad for v in got] == [v.grad for v in want]


def test_linear_under_no_grad_gives_the_same_numbers():
    rng = random.Random(3)
    w = [[Value(rng.gauss(0, 1)) for _ in range(4)] for _ in range(2)]
    x = [Value(rng.gauss(0, 1)) for _ in range(4)]
    with no_grad():
        got = [v.data for v in linear(x, w)]
    assert got == [v.data for v in sum_linear(x, w)]


def run():
    return Run.start(NAMES, seed=1, steps=10)


def watch_collector(monkeypatch, raises=False):
    """``loss_of`` made to record whether the collector is on while it runs."""
    seen, real = [], gpt_train.loss_of

    def loss_of(model, tokens):
        seen.append(gc.isenabled())
        if raises:
            raise KeyboardInterrupt
        return real(model, tokens)

    monkeypatch.setattr(gpt_train, "loss_of", loss_of)
    return seen


@pytest.fixture
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if was:
        gc.enable()
    else:
        gc.disable()


def test_a_step_pauses_the_collector_and_sets_it_back(monkeypatch, collector_on):
    seen = watch_collector(monkeypatch)
    r = run()
    r.step()
    r.backward()
    assert seen == [False, False] and gc.isenabled()


def test_the_collector_is_set_back_when_a_step_raises(monkeypatch, collector_on):
    seen = watch_collector(monkeypatch, raises=True)
    with pytest.raises(KeyboardInterrupt):
        run().step()
    assert seen == [False] and gc.isenabled()


def test_a_collector_paused_by_the_caller_stays_paused(monkeypatch, collector_on):
    seen = watch_collector(monkeypatch)
    gc.disable()
    run().step()
    assert seen == [False] and not gc.isenabled()


def test_pause_gc_off_leaves_the_collector_on(monkeypatch, collector_on):
    seen = watch_collector(monkeypatch)
    r = run()
    r.pause_gc = False
    r.step()
    assert seen == [True] and gc.isenabled()


def values_alive():
    return sum(type(o) is Value for o in gc.get_objects())


def test_nothing_of_a_steps_graph_outlives_it(collector_on):
    r = run()
    r.step()
    before = values_alive()
    losses = [r.step() for _ in range(4)]
    assert values_alive() == before
    assert losses == replay(5)[1:]  # the same numbers, the collector paused or not


def replay(steps):
    r = run()
    r.pause_gc = False
    return [r.step() for _ in range(steps)]


def test_forward_marks_each_block_in_order_with_its_outputs():
    """``GPT.forward(mark=)`` names each block as it is built, with its outputs: the
    logits marked last are the ones returned, and marking changes no number."""
    import random

    from micrograd.gpt.model import GPT, GPTConfig

    model = GPT(GPTConfig(vocab_size=5, n_embd=8, n_head=2, n_layer=2), random.Random(1))
    seen = []
    keys, values = model.empty_cache()
    logits = model.forward(model.state_dict["wte"][3], 0, keys, values,
                           mark=lambda block, vs: seen.append((block, vs)))
    names = [b for b, _ in seen]
    layer = ["attn.rmsnorm", "attn.q", "attn.k", "attn.v", "head0", "head1", "attn",
             "mlp.rmsnorm", "mlp"]
    assert names == (["embeddings", "rmsnorm"] + [f"layer0.{n}" for n in layer]
                     + [f"layer1.{n}" for n in layer] + ["lm_head"])
    assert seen[-1][1] is logits
    assert [len(vs) for b, vs in seen if ".head" in b] == [4] * 4
    keys, values = model.empty_cache()
    plain = model.gpt(3, 0, keys, values)
    assert [v.data for v in plain] == [v.data for v in logits]
