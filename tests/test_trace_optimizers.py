"""Optimizers on the traced parameter array: the same numbers as micrograd.optim (bit for
bit) and torch.optim, with the parameter Values true whenever read."""

import gc
import math

import numpy as np
import pytest
import torch

from micrograd.engine import Value
from micrograd.nn import MLP
from micrograd.optim import SGD, Adam
from micrograd.trace import NonFiniteLoss, TracedAdam, TracedSGD, trace_loss
from micrograd.trace.bound import BoundValue

X = np.random.default_rng(0).normal(size=(40, 3))
Y = np.sign(X[:, 0] - 0.3 * X[:, 1])


def _setup(seed=1):
    model = MLP(3, [5, 1], activation="tanh", output_activation="linear", seed=seed)
    loss = trace_loss(lambda x, y: (1 - y * model(x)).relu(), X, Y, cache=False,
                      regularizer=lambda: 1e-3 * sum(p * p for p in model.parameters()))
    return model, loss


def _batches(steps, size=8):
    return [slice(3 * k % 32, 3 * k % 32 + size) for k in range(steps)]


CASES = [
    (SGD, TracedSGD, {"lr": 0.1}),
    (SGD, TracedSGD, {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-2}),
    (SGD, TracedSGD, {"lr": 0.05, "momentum": 0.5, "dampening": 0.3}),
    (Adam, TracedAdam, {"lr": 0.01}),
    (Adam, TracedAdam, {"lr": 0.02, "betas": (0.8, 0.99), "eps": 1e-6,
                        "weight_decay": 0.1}),
]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[1].__name__}-{i}" for i, c in
                                             enumerate(CASES)])
def test_same_numbers_as_micrograd_optim_bit_for_bit(case):
    ref_cls, traced_cls, kw = case
    ref_model, ref_loss = _setup()
    model, loss = _setup()
    ref_opt = ref_cls(ref_model.parameters(), **kw)
    opt = traced_cls(loss, **kw)
    for idx in _batches(12):
        ref_opt.zero_grad()
        want = ref_loss.backward(X[idx], Y[idx])
        ref_opt.step()
        assert opt.step(X[idx], Y[idx]) == want
        # true when read: the updated numbers and this batch's gradient
        assert [p.data for p in model.parameters()] == [p.data for p in
                                                         ref_model.parameters()]
        assert [p.grad for p in model.parameters()] == [p.grad for p in
                                                         ref_model.parameters()]
    opt.close()


def test_adam_training_matches_torch():
    model, loss = _setup(seed=3)
    net = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(),
                              torch.nn.Linear(5, 1)).double()
    with torch.no_grad():
        for lin, layer in zip(net[::2], model.layers):
            lin.weight.copy_(torch.tensor([[w.data for w in n.w] for n in layer.neurons],
                                          dtype=torch.float64))
            lin.bias.copy_(torch.tensor([n.b.data for n in layer.neurons],
                                        dtype=torch.float64))
    topt = torch.optim.Adam(net.parameters(), lr=0.01)
    opt = TracedAdam(loss, lr=0.01)
    Xt, Yt = torch.tensor(X), torch.tensor(Y)
    for idx in _batches(10):
        topt.zero_grad()
        out = net(Xt[idx]).squeeze(1)
        ref = torch.relu(1 - Yt[idx] * out).mean() + 1e-3 * sum(
            (p * p).sum() for p in net.parameters())
        ref.backward()
        topt.step()
        assert math.isclose(opt.step(X[idx], Y[idx]), ref.item(), rel_tol=1e-12)
    want = []
    for lin in net[::2]:
        for w_row, b in zip(lin.weight, lin.bias):
            want.extend(w_row.tolist() + [b.item()])
    np.testing.assert_allclose([p.data for p in model.parameters()], want, rtol=1e-10,
                               atol=1e-13)
    opt.close()


def test_values_are_bound_while_open_and_plain_after_close():
    model, loss = _setup()
    params = model.parameters()
    before = [p.data for p in params]
    with TracedAdam(loss, lr=0.01) as opt:
        assert all(type(p) is BoundValue and isinstance(p, Value) for p in params)
        assert [p.data for p in params] == before
        opt.step(X[:8], Y[:8])
        data, grads = [p.data for p in params], [p.grad for p in params]
        assert data != before and all(isinstance(d, float) for d in data)
        # the eager engine works on bound Values, with the optimizer's numbers
        eager = model([0.5, -1.0, 2.0]).data
    assert all(type(p) is Value for p in params)
    assert [p.data for p in params] == data and [p.grad for p in params] == grads
    assert model([0.5, -1.0, 2.0]).data == eager
    with pytest.raises(ValueError, match="closed"):
        opt.step(X[:8], Y[:8])
    opt.close()  # idempotent


def test_a_copy_of_a_bound_model_is_plain_values_with_the_numbers_of_now():
    import copy
    import pickle
    model, loss = _setup()
    with TracedAdam(loss, lr=0.01) as opt:
        opt.step(X[:8], Y[:8])
        snapshot = copy.deepcopy(model)  # e.g. keeping the best weights while training
        pickled = pickle.loads(pickle.dumps(model.parameters()))
        opt.step(X[8:16], Y[8:16])
        now = [p.data for p in model.parameters()]
    for params in (snapshot.parameters(), pickled):
        assert all(type(p) is Value for p in params)
    assert [p.data for p in snapshot.parameters()] == [p.data for p in pickled] != now
    assert snapshot([0.5, -1.0, 2.0]).data != model([0.5, -1.0, 2.0]).data


def test_a_change_by_hand_is_seen_by_the_next_step():
    ref_model, ref_loss = _setup()
    model, loss = _setup()
    ref_opt = SGD(ref_model.parameters(), lr=0.1)
    opt = TracedSGD(loss, lr=0.1)
    for k, idx in enumerate(_batches(4)):
        if k == 2:  # the user edits a weight and clears the grads between two steps
            for m in (ref_model, model):
                m.parameters()[4].data = 0.25
                m.parameters()[0].data += 1.0
            opt.zero_grad()
            assert all(p.grad == 0.0 for p in model.parameters())
        ref_opt.zero_grad()
        ref_loss.backward(X[idx], Y[idx])
        ref_opt.step()
        opt.step(X[idx], Y[idx])
    assert [p.data for p in model.parameters()] == [p.data for p in ref_model.parameters()]
    opt.close()


def test_dropping_the_optimizer_unbinds_and_a_second_one_is_refused():
    model, loss = _setup()
    opt = TracedAdam(loss, lr=0.01)
    with pytest.raises(ValueError, match="another traced optimizer"):
        TracedSGD(loss, lr=0.1)
    opt.step(X[:8], Y[:8])
    data = [p.data for p in model.parameters()]
    del opt
    gc.collect()
    assert all(type(p) is Value for p in model.parameters())
    assert [p.data for p in model.parameters()] == data
    TracedSGD(loss, lr=0.1).close()  # free again


def test_bad_arguments_are_refused_by_name():
    model, loss = _setup()
    refused = []  # keep each refusal (its traceback keeps the half-built optimizer)
    with pytest.raises(TypeError, match="BatchLoss") as e1:
        TracedAdam(model.parameters())
    with pytest.raises(ValueError, match="lr") as e2:
        TracedSGD(loss, lr=-1.0)
    with pytest.raises(TypeError, match="lr must be a number") as e3:
        TracedSGD(loss, lr="0.1")
    with pytest.raises(ValueError, match="eps") as e4:
        TracedAdam(loss, eps=0.0)
    with pytest.raises(ValueError, match="beta2") as e5:
        TracedAdam(loss, betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="nesterov") as e6:
        TracedSGD(loss, lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="lr") as e7:
        TracedSGD(loss, lr=math.inf)
    refused += [e1, e2, e3, e4, e5, e6, e7]
    assert all(type(p) is Value for p in model.parameters())  # nothing was bound


def test_hyperparameters_and_state_read_as_attributes():
    model, loss = _setup()
    with TracedAdam(loss, lr=0.01, betas=(0.8, 0.99), eps=1e-6) as opt:
        opt.step(X[:8], Y[:8])
        assert opt.betas == (0.8, 0.99) and opt.eps == 1e-6 and opt.lr == 0.01
        ref = Adam(_setup()[0].parameters(), lr=0.01, betas=(0.8, 0.99), eps=1e-6)
        assert opt.m.shape == opt.v.shape == (len(ref.params),)
        with pytest.raises(AttributeError, match="no attribute 'buf'"):
            getattr(opt, "buf")  # noqa: B009 - an Adam has no momentum buffer
    with TracedSGD(loss, lr=0.1, momentum=0.9) as opt:
        opt.step(X[:8], Y[:8])
        assert opt.momentum == 0.9 and not opt.nesterov
        assert np.array_equal(opt.buf, [p.grad for p in model.parameters()])  # first step


@pytest.mark.parametrize("case", CASES, ids=[f"{c[1].__name__}-{i}" for i, c in
                                             enumerate(CASES)])
def test_backward_then_apply_grads_is_step_bit_for_bit(case):
    """``step`` in its two halves (the GPT's runner cuts between them: the loss and its
    grads may be cut short, the update never): the same numbers, the grads seen between."""
    _, traced_cls, kw = case
    models, opts = [], []
    for _ in range(2):
        model, loss = _setup()
        models.append(model)
        opts.append(traced_cls(loss, **kw))
    for idx in _batches(6):
        a = opts[0].step(X[idx], Y[idx])
        b = opts[1].backward(X[idx], Y[idx])
        grads = [p.grad for p in models[1].parameters()]
        assert grads == list(opts[0]._store.G) and any(grads)
        opts[1].apply_grads()
        assert a == b
        assert [p.data for p in models[0].parameters()] == \
            [p.data for p in models[1].parameters()]
    assert opts[0].steps == opts[1].steps == 6


def test_a_loss_that_is_not_finite_can_be_refused_before_anything_changes():
    model, loss = _setup()
    opt = TracedAdam(loss, lr=0.01)
    opt.step(X, Y)
    before = [(p.data, p.grad) for p in model.parameters()]
    state = {k: v.copy() for k, v in opt.state.items()}
    with pytest.raises(NonFiniteLoss, match="no update"):
        opt.step(X * math.inf, Y, require_finite=True)
    assert [(p.data, p.grad) for p in model.parameters()] == before and opt.steps == 1
    assert all((opt.state[k] == state[k]).all() for k in state)
    assert not math.isfinite(opt.step(X * math.inf, Y))  # not asked: it updates (with nan)


def test_backward_asked_for_a_finite_loss_leaves_the_grads_and_a_closed_one_says_so():
    model, loss = _setup()
    opt = TracedAdam(loss, lr=0.01)
    opt.backward(X, Y)
    grads = [p.grad for p in model.parameters()]
    with pytest.raises(NonFiniteLoss) as err:
        opt.backward(X * math.inf, Y, require_finite=True)
    assert not math.isfinite(err.value.loss)
    assert [p.grad for p in model.parameters()] == grads  # the last finite ones, kept
    opt.close()
    for call in (lambda: opt.backward(X, Y), opt.apply_grads, lambda: opt.step(X, Y)):
        with pytest.raises(ValueError, match="is closed"):
            call()
