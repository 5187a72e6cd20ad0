"""Optimizers and schedules step for step against torch.optim (float64)."""

import math
import random

import pytest
import torch

from micrograd.engine import Value
from micrograd.nn import MLP
from micrograd.optim import (OPTIMIZERS, SCHEDULES, SGD, Adam, AdamW, constant_schedule,
                             cosine_schedule, linear_schedule, make_optimizer,
                             momentum_rule, step_schedule)

N_PARAMS = 7
N_STEPS = 6


def run_both(make_ours, make_theirs, change_lr_at=None, seed=0):
    """Same start, same gradients every step; compare parameters after each step."""
    rng = random.Random(seed)
    start = [rng.uniform(-2, 2) for _ in range(N_PARAMS)]
    ours = [Value(x) for x in start]
    theirs = torch.tensor(start, dtype=torch.float64, requires_grad=True)
    opt_a = make_ours(ours)
    opt_b = make_theirs([theirs])
    for k in range(N_STEPS):
        grads = [rng.gauss(0, 1) for _ in range(N_PARAMS)]
        if k == 2:
            grads[0] = 0.0  # a zero gradient on the way
        if change_lr_at is not None and k == change_lr_at:
            opt_a.lr = opt_a.lr * 0.3
            for group in opt_b.param_groups:
                group["lr"] = group["lr"] * 0.3
        opt_a.zero_grad()
        opt_b.zero_grad()
        for p, g in zip(ours, grads):
            p.grad = g
        theirs.grad = torch.tensor(grads, dtype=torch.float64)
        opt_a.step()
        opt_b.step()
        for i, (a, b) in enumerate(zip([p.data for p in ours], theirs.tolist())):
            assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-13), (k, i, a, b)


SGD_CASES = [
    dict(lr=0.1),
    dict(lr=0.05, momentum=0.9),
    dict(lr=0.05, momentum=0.9, dampening=0.3),
    dict(lr=0.05, momentum=0.8, nesterov=True),
    dict(lr=0.1, weight_decay=0.01),
    dict(lr=0.02, momentum=0.95, nesterov=True, weight_decay=0.05),
]


@pytest.mark.parametrize("kw", SGD_CASES, ids=lambda kw: ",".join(kw))
@pytest.mark.parametrize("change_lr", [None, 3])
def test_sgd_matches_torch(kw, change_lr):
    run_both(lambda ps: SGD(ps, **kw), lambda ps: torch.optim.SGD(ps, **kw), change_lr)


ADAM_CASES = [
    dict(lr=0.01),
    dict(lr=0.1, betas=(0.8, 0.99), eps=1e-6),
    dict(lr=0.01, weight_decay=0.1),
    dict(lr=0.01, amsgrad=True),
    dict(lr=0.05, betas=(0.5, 0.9), weight_decay=0.02, amsgrad=True),
]


@pytest.mark.parametrize("kw", ADAM_CASES, ids=lambda kw: ",".join(kw))
@pytest.mark.parametrize("change_lr", [None, 2])
def test_adam_matches_torch(kw, change_lr):
    run_both(lambda ps: Adam(ps, **kw), lambda ps: torch.optim.Adam(ps, **kw), change_lr)


ADAMW_CASES = [
    dict(lr=0.01),  # default weight_decay 0.01, as torch
    dict(lr=0.1, weight_decay=0.3),
    dict(lr=0.01, weight_decay=0.1, amsgrad=True, betas=(0.7, 0.95)),
]


@pytest.mark.parametrize("kw", ADAMW_CASES, ids=lambda kw: ",".join(kw))
@pytest.mark.parametrize("change_lr", [None, 4])
def test_adamw_matches_torch(kw, change_lr):
    run_both(lambda ps: AdamW(ps, **kw), lambda ps: torch.optim.AdamW(ps, **kw), change_lr)


def test_sgd_default_is_micrograds_update():
    model = MLP(2, [3, 1], seed=0)
    params = model.parameters()
    for p in params:
        p.grad = 0.5 * p.data + 0.1
    expect = [p.data - 0.05 * p.grad for p in params]
    SGD(params, lr=0.05).step()
    assert [p.data for p in params] == expect


def test_on_a_real_model_gradient():
    # gradients from backward() of an MLP, Adam three steps: against torch doing the same
    model = MLP(2, [3, 1], seed=3)
    params = model.parameters()
    opt = Adam(params, lr=0.05)
    tparams = torch.tensor([p.data for p in params], dtype=torch.float64,
                           requires_grad=True)
    topt = torch.optim.Adam([tparams], lr=0.05)
    for _ in range(3):
        opt.zero_grad()
        loss = (model([0.5, -1.0]) - 1.0) ** 2
        loss.backward()
        topt.zero_grad()
        tparams.grad = torch.tensor([p.grad for p in params], dtype=torch.float64)
        opt.step()
        topt.step()
    for a, b in zip([p.data for p in params], tparams.tolist()):
        assert math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-13)


def test_zero_grad_and_lr_setter():
    ps = [Value(1.0), Value(2.0)]
    opt = SGD(ps, lr=0.1)
    ps[0].grad = 3.0
    opt.zero_grad()
    assert [p.grad for p in ps] == [0.0, 0.0]
    opt.lr = 0.5
    assert opt.lr == 0.5
    with pytest.raises(ValueError, match="lr must be in"):
        opt.lr = -0.1
    with pytest.raises(TypeError, match="lr must be a number"):
        opt.lr = "fast"


@pytest.mark.parametrize("bad, err, match", [
    (lambda ps: SGD(ps, lr=-1.0), ValueError, "lr must be"),
    (lambda ps: SGD(ps, lr=0.1, momentum=-0.5), ValueError, "momentum"),
    (lambda ps: SGD(ps, lr=0.1, nesterov=True), ValueError, "nesterov"),
    (lambda ps: Adam(ps, betas=(1.0, 0.9)), ValueError, "beta1"),
    (lambda ps: Adam(ps, betas=0.9), TypeError, "betas"),
    (lambda ps: Adam(ps, eps=-1e-8), ValueError, "eps"),
    (lambda ps: AdamW(ps, weight_decay=float("nan")), ValueError, "weight_decay"),
    (lambda ps: SGD([], lr=0.1), ValueError, "empty"),
    (lambda ps: SGD(ps + ps, lr=0.1), ValueError, "twice"),
    (lambda ps: SGD([1.0, 2.0], lr=0.1), TypeError, "not a Value"),
    (lambda ps: make_optimizer("rmsprop", ps, 0.1), ValueError, "unknown optimizer"),
])
def test_bad_arguments(bad, err, match):
    with pytest.raises(err, match=match):
        bad([Value(1.0), Value(2.0)])


def test_make_optimizer_by_name():
    ps = [Value(1.0)]
    for name, cls in OPTIMIZERS.items():
        assert type(make_optimizer(name, ps, 0.1)) is cls
    assert "momentum=0.9" in repr(SGD(ps, lr=0.1, momentum=0.9))


# ---- schedules ------------------------------------------------------------------------


def test_linear_schedule_is_micrograds_demo_exactly():
    lr_at = linear_schedule(1.0, 0.1, 100)
    for k in range(100):
        assert lr_at(k) == 1.0 - 0.9 * k / 100
    assert lr_at(100) == lr_at(500) == 0.1


def torch_lrs(make_sched, steps, base=1.0):
    p = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([p], lr=base)
    sched = make_sched(opt)
    out = []
    for _ in range(steps):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    return out


@pytest.mark.parametrize("ours, theirs", [
    (linear_schedule(0.5, 0.05, 40),
     lambda o: torch.optim.lr_scheduler.LinearLR(o, 1.0, 0.1, total_iters=40)),
    (step_schedule(0.5, 7, 0.5),
     lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=7, gamma=0.5)),
    (cosine_schedule(0.5, 30, min_lr=0.01),
     lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=30, eta_min=0.01)),
], ids=["linear", "step", "cosine"])
def test_schedules_match_torch(ours, theirs):
    ref = torch_lrs(theirs, 31, base=0.5)
    for k, r in enumerate(ref):
        assert math.isclose(ours(k), r, rel_tol=1e-9, abs_tol=1e-12), (k, ours(k), r)


def test_schedule_edges_and_factories():
    assert cosine_schedule(1.0, 10)(10) == 0.0 and cosine_schedule(1.0, 10)(99) == 0.0
    assert step_schedule(1.0, 5)(4) == 1.0 and step_schedule(1.0, 5)(5) == 0.1
    assert constant_schedule(0.3)(1000) == 0.3
    assert SCHEDULES["linear"](1.0, 100)(50) == 1.0 - 0.9 * 50 / 100
    for name, factory in SCHEDULES.items():
        assert factory(0.2, 10)(0) == 0.2, name
    with pytest.raises(ValueError, match="steps must be a positive int"):
        linear_schedule(1.0, 0.1, 0)
    with pytest.raises(ValueError, match="lr must be"):
        cosine_schedule(-1.0, 10)


INF, NAN = float("inf"), float("nan")


@pytest.mark.parametrize("make, name", [
    (lambda ps: SGD(ps, lr=INF), "lr"),
    (lambda ps: SGD(ps, lr=NAN), "lr"),
    (lambda ps: SGD(ps, lr=0.1, momentum=INF), "momentum"),
    (lambda ps: SGD(ps, lr=0.1, dampening=INF), "dampening"),
    (lambda ps: SGD(ps, lr=0.1, weight_decay=INF), "weight_decay"),
    (lambda ps: Adam(ps, lr=INF), "lr"),
    (lambda ps: Adam(ps, eps=INF), "eps"),
    (lambda ps: Adam(ps, eps=NAN), "eps"),
    (lambda ps: AdamW(ps, weight_decay=INF), "weight_decay"),
    (lambda ps: linear_schedule(1.0, INF, 10), "end"),
    (lambda ps: step_schedule(1.0, 5, gamma=INF), "gamma"),
    (lambda ps: cosine_schedule(INF, 10), "lr"),
    (lambda ps: constant_schedule(NAN), "lr"),
])
def test_non_finite_hyperparameters_are_refused(make, name):
    with pytest.raises(ValueError, match=rf"^{name} must be a finite number"):
        make([Value(1.0), Value(2.0)])


def test_lr_setter_refuses_inf():
    opt = Adam([Value(1.0)], lr=0.1)
    for bad in (INF, -INF, NAN):
        with pytest.raises(ValueError, match="lr must be a finite number"):
            opt.lr = bad
    assert opt.lr == 0.1  # unchanged


def test_huge_integer_hyperparameters_are_refused_as_not_finite():
    from micrograd.engine import Value
    from micrograd.nn import MLP
    from micrograd.optim import SGD
    from micrograd.train import fit

    with pytest.raises(ValueError, match="finite"):
        SGD([Value(1.0)], lr=10**400)
    with pytest.raises(ValueError, match="finite"):
        fit(MLP(2, [1], seed=0), [[0.0, 1.0]], [1.0], l2=10**400, progress=False)


# ---- a step applies whole or not at all; grads are read as numbers ---------------------


def test_eps_must_be_positive():
    params = [Value(1.0)]
    for eps in (0, 0.0, -1e-8):
        for cls in (Adam, AdamW):
            with pytest.raises(ValueError, match=r"eps must be in \(0.0, inf\)"):
                cls(params, eps=eps)
    assert Adam(params, eps=1e-300).eps == 1e-300


@pytest.mark.parametrize("make", [
    lambda ps: SGD(ps, lr=0.1, momentum=0.9),
    lambda ps: Adam(ps, lr=0.1),
    lambda ps: AdamW(ps, lr=0.1, amsgrad=True),
])
def test_a_bad_grad_leaves_every_parameter_and_state_as_it_was(make):
    ps = [Value(float(k)) for k in range(5)]
    opt = make(ps)
    for p in ps:
        p.grad = 0.5
    opt.step()  # some state to keep
    before = ([p.data for p in ps], {k: list(v) if isinstance(v, list) else v
                                     for k, v in vars(opt).items()})
    ps[3].grad = "0.1"  # the fourth parameter's grad is not a number
    with pytest.raises(TypeError, match="parameter 3 has a grad of type str"):
        opt.step()
    after = ([p.data for p in ps], {k: list(v) if isinstance(v, list) else v
                                    for k, v in vars(opt).items()})
    assert after == before  # nothing moved, no moment changed, no step counted
    ps[3].grad, kept = 0.5, ps[3].data
    ps[3].data = [kept]  # found only while computing, after three parameters' updates
    with pytest.raises(TypeError, match="data must be a number, got list"):
        opt.step()
    ps[3].data = kept
    after = ([p.data for p in ps], {k: list(v) if isinstance(v, list) else v
                                    for k, v in vars(opt).items()})
    assert after == before


@pytest.mark.parametrize("name", ["sgd", "adam"])
def test_create_graph_grads_are_read_as_numbers(name):
    # backward(create_graph=True) leaves Value grads; torch.optim reads the numbers
    start = [0.3, -1.2]
    ours = [Value(x) for x in start]
    theirs = torch.tensor(start, dtype=torch.float64, requires_grad=True)
    loss = ours[0] * ours[0] * ours[1] + ours[1].tanh()
    loss.backward(create_graph=True)
    assert all(isinstance(p.grad, Value) for p in ours)
    t_loss = theirs[0] * theirs[0] * theirs[1] + theirs[1].tanh()
    t_loss.backward()  # the same numbers (create_graph there warns of a reference cycle)
    opt = make_optimizer(name, ours, lr=0.1)
    t_opt = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam}[name]([theirs], lr=0.1)
    opt.step()
    t_opt.step()
    assert all(type(p.data) is float for p in ours)
    assert [p.data for p in ours] == pytest.approx(theirs.detach().tolist(), abs=1e-15)


def test_adam_with_tiny_eps_and_zero_grad_does_not_divide_by_zero():
    ps = [Value(1.0), Value(2.0)]
    opt = Adam(ps, lr=0.1, eps=1e-12)
    ps[0].grad, ps[1].grad = 0.0, 1.0
    opt.step()
    assert ps[0].data == 1.0 and ps[1].data == pytest.approx(1.9)


# ---- a setting changed after construction is checked as the constructor checks it -----

# (optimizer, setting, bad value, the keyword the constructor refuses it as)
LATE = [
    (Adam, "eps", 0, {"eps": 0}), (Adam, "eps", -1e-8, {"eps": -1e-8}),
    (AdamW, "eps", 0.0, {"eps": 0.0}), (Adam, "betas", (1, 1), {"betas": (1, 1)}),
    (Adam, "betas", (0.9, 1.0), {"betas": (0.9, 1.0)}),
    (AdamW, "betas", (-0.1, 0.9), {"betas": (-0.1, 0.9)}),
    (Adam, "betas", 0.9, {"betas": 0.9}), (Adam, "betas", (NAN, 0.9), {"betas": (NAN, 0.9)}),
    (Adam, "weight_decay", -1, {"weight_decay": -1}),
    (AdamW, "weight_decay", INF, {"weight_decay": INF}),
    (SGD, "momentum", -5, {"momentum": -5}), (SGD, "dampening", -1, {"dampening": -1}),
    (SGD, "weight_decay", -1, {"weight_decay": -1}), (SGD, "momentum", NAN, {"momentum": NAN}),
    (SGD, "momentum", "0.9", {"momentum": "0.9"}), (SGD, "lr", -1, {"lr": -1}),
]


@pytest.mark.parametrize("cls, name, bad, kwargs", LATE,
                         ids=[f"{c.__name__}.{n}={b!r}" for c, n, b, _ in LATE])
def test_a_setting_set_later_is_refused_with_the_constructors_message(cls, name, bad, kwargs):
    ps = [Value(1.0), Value(-2.0)]
    with pytest.raises((ValueError, TypeError)) as at_construction:
        cls(ps, **({"lr": 0.1} | kwargs))
    opt = cls(ps, lr=0.1)
    before = getattr(opt, name)
    with pytest.raises(type(at_construction.value)) as later:
        setattr(opt, name, bad)
    assert str(later.value) == str(at_construction.value)
    assert getattr(opt, name) == before  # the old setting stays
    for p in ps:
        p.grad = 0.0  # a zero grad: the case eps = 0 would divide 0 by 0
    opt.step()
    opt.step()
    assert all(math.isfinite(p.data) for p in ps)


def test_nesterov_is_checked_whichever_setting_changes():
    opt = SGD([Value(1.0)], lr=0.1, momentum=0.9, nesterov=True)
    with pytest.raises(ValueError, match=r"^nesterov needs momentum > 0 \(setting momentum "
                                         r"to 0.0 would leave momentum=0.0, dampening=0.0\)"):
        opt.momentum = 0.0
    with pytest.raises(ValueError, match="^nesterov needs dampening = 0 "):
        opt.dampening = 0.5
    assert (opt.momentum, opt.dampening, opt.nesterov) == (0.9, 0.0, True)
    plain = SGD([Value(1.0)], lr=0.1)
    with pytest.raises(ValueError, match="^nesterov needs momentum > 0"):
        plain.nesterov = True
    assert plain.nesterov is False
    plain.momentum = 0.5
    plain.nesterov = True
    assert plain.nesterov is True


@pytest.mark.parametrize("settings, broken", [
    ({}, None),
    ({"momentum": 0.9, "nesterov": True}, None),
    ({"nesterov": True}, ("nesterov", "nesterov needs momentum > 0")),
    ({"momentum": 0.9, "nesterov": True, "dampening": 0.1},
     ("nesterov", "nesterov needs dampening = 0")),
    ({"momentum": 0.9, "optimizer": "adam"},
     ("momentum", "momentum applies to optimizer sgd only, not adam")),
    ({"nesterov": True, "optimizer": "adamw"},
     ("nesterov", "nesterov applies to optimizer sgd only, not adamw")),
    ({"momentum": 0.0, "optimizer": "adam"}, None),
])
def test_the_momentum_rule(settings, broken):
    assert momentum_rule(**settings) == broken


def test_the_momentum_rule_names_settings_as_its_caller_does():
    flag = {"nesterov": "--nesterov", "momentum": "--momentum"}.get
    assert momentum_rule(nesterov=True, name=flag) == (
        "nesterov", "--nesterov needs --momentum > 0")


def test_the_momentum_rule_reads_which_optimizers_are_sgd_from_the_registry(monkeypatch):
    class Heavy(SGD):
        pass

    monkeypatch.setitem(OPTIMIZERS, "heavy", Heavy)
    assert momentum_rule(momentum=0.9, nesterov=True, optimizer="heavy") is None
    assert momentum_rule(momentum=0.9, optimizer="adam")[1] == (
        "momentum applies to optimizer sgd or heavy only, not adam")


def test_good_settings_set_later_take_effect_as_in_the_constructor():
    a, b = [Value(1.0), Value(-2.0)], [Value(1.0), Value(-2.0)]
    late = Adam(a, lr=0.1)
    late.betas, late.eps, late.weight_decay = [0.5, 0.75], 1e-3, 0.25
    early = Adam(b, lr=0.1, betas=(0.5, 0.75), eps=1e-3, weight_decay=0.25)
    assert late.betas == (0.5, 0.75)
    for _ in range(3):
        for p in a + b:
            p.grad = p.data
        late.step()
        early.step()
    assert [p.data for p in a] == [p.data for p in b]
