"""Edges of the modes and of folded sums that real programs reach:

* a block closed from another thread or task than the one that opened it (a generator
  closed by another thread, an async generator finalised by asyncio's own task) counts
  no more in the opening context from that moment;
* ``@no_grad()`` over a generator function passes ``send``, ``throw`` and ``close`` on
  to the wrapped generator, as PyTorch's wrapper does (side by side with it here);
* ``copy.copy`` / ``copy.deepcopy`` of a neuron's folded sum copy the operators' node:
  the same numbers, inputs and grads, bit for bit, as copies of the operators' graph.
"""

import asyncio
import contextlib
import contextvars
import copy
import inspect
import sys
import threading
import warnings

import pytest

from micrograd import engine_fast, grad_mode, nn
from micrograd.engine import topological_order
from micrograd.engine import Value, detect_anomaly, enable_grad, is_grad_enabled, no_grad


def builds_graph():
    """Whether the engine's own paths build graphs here: ``*`` and ``+`` (written out),
    a unary op (``_make``) and a neuron's sum (``make_affine``)."""
    a, b = Value(2.0), Value(3.0)
    return [(a * b)._prev != (), (a + b)._prev != (), a.tanh()._prev != (),
            nn.affine(a, [b], [a])._prev != ()]


ON, OFF = [True] * 4, [False] * 4


def in_thread(fn):
    box = {}

    def target():
        try:
            box["result"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed back to the test
            box["error"] = e

    t = threading.Thread(target=target)
    t.start()
    t.join(10)
    assert not t.is_alive()
    if "error" in box:
        raise box["error"]
    return box.get("result")


# ---------------------------------------------------------------------------------------
# 1. a block closed from another context
# ---------------------------------------------------------------------------------------


def test_a_generator_closed_by_another_thread_turns_no_grad_off_where_it_opened():
    seen = []
    open_before = set(grad_mode.OPEN)

    def evaluating():
        with no_grad():
            yield
        seen.append("never")  # close() leaves at the yield

    gen = evaluating()
    next(gen)  # the block opens in this thread
    assert not is_grad_enabled() and builds_graph() == OFF
    in_thread(lambda: (gen.close(), is_grad_enabled())[1])  # and closes in another
    assert is_grad_enabled() and builds_graph() == ON
    assert grad_mode.OPEN == open_before  # the engine's first look: the block is gone
    assert seen == []
    with no_grad():  # the next blocks here work as before
        assert not is_grad_enabled()
    assert is_grad_enabled()


def test_a_block_open_in_another_thread_is_seen_there_only():
    # the engine's ops first look whether any block is open anywhere (one set for the
    # process), then ask their own context: a block in another thread makes them ask,
    # and they build graphs here all the same
    entered, leave = threading.Event(), threading.Event()

    def evaluating():
        with no_grad():
            entered.set()
            leave.wait(10)
            return builds_graph()

    box, open_before = {}, set(grad_mode.OPEN)
    t = threading.Thread(target=lambda: box.setdefault("there", evaluating()))
    t.start()
    assert entered.wait(10)
    try:
        assert len(grad_mode.OPEN - open_before) == 1
        assert builds_graph() == ON and is_grad_enabled()
    finally:
        leave.set()
        t.join(10)
    assert box["there"] == OFF and grad_mode.OPEN == open_before


def test_a_block_closed_in_one_thread_and_entered_at_once_in_another_stays_seen():
    # thread A is held inside its close, just after the block stopped being open (at
    # the tick, standing in for a thread switch there); thread B enters the same block
    # object then. A's close must not take B's opening out of what the ops look at first
    block = no_grad()
    b_may_enter, b_inside, a_closed = threading.Event(), threading.Event(), threading.Event()
    real_ticks = grad_mode._ticks

    class SwitchAtTheTick:
        armed = False

        def __next__(self):
            if self.armed:
                self.armed = False
                b_may_enter.set()
                assert b_inside.wait(10)
            return next(real_ticks)

    box = {}

    def b():
        assert b_may_enter.wait(10)
        with block:
            b_inside.set()
            assert a_closed.wait(10)
            box["there"] = (builds_graph(), is_grad_enabled(), block.token in grad_mode.OPEN)

    open_before = set(grad_mode.OPEN)
    ticks = grad_mode._ticks = SwitchAtTheTick()
    try:
        t = threading.Thread(target=b)
        t.start()
        with block:  # thread A
            ticks.armed = True
        a_closed.set()
        t.join(10)
    finally:
        grad_mode._ticks = real_ticks
    assert box["there"] == (OFF, False, True)
    assert grad_mode.OPEN == open_before  # both openings' tokens gone


def test_an_enable_grad_closed_by_another_thread_brings_the_outer_no_grad_back():
    def training():
        with enable_grad():
            yield

    with no_grad():
        gen = training()
        next(gen)
        assert is_grad_enabled() and builds_graph() == ON
        assert in_thread(lambda: (gen.close(), is_grad_enabled())[1]) is True
        assert not is_grad_enabled() and builds_graph() == OFF  # the outer block's again
    assert is_grad_enabled()


def test_detect_anomaly_closed_by_another_thread_stops_checking_where_it_opened():
    def watching():
        with detect_anomaly():
            yield

    gen = watching()
    next(gen)
    with pytest.raises(FloatingPointError):
        Value(800.0).exp()
    in_thread(gen.close)
    assert Value(800.0).exp().data == float("inf")  # no longer raised here


def test_an_async_generator_finalised_by_asyncios_task_leaves_the_task_that_opened_it():
    # dropped while suspended inside its block, the generator is closed by asyncio:
    # aclose() runs in a task of asyncio's own (the loop's finaliser hook)
    async def agen(closed):
        try:
            with no_grad():
                yield 1
                yield 2
        finally:
            closed.set()

    async def main():
        closed = asyncio.Event()
        ag = agen(closed)
        await ag.__anext__()  # the block opens in this task
        inside = (is_grad_enabled(), builds_graph())
        del ag
        await closed.wait()  # finalised elsewhere: asyncio's task ran its finally
        return inside, (is_grad_enabled(), builds_graph())

    assert asyncio.run(main()) == ((False, OFF), (True, ON))


def test_shutdown_asyncgens_closes_the_block_for_the_task_that_opened_it():
    async def agen(seen):
        with no_grad():
            try:
                yield 1
            finally:
                seen.append(is_grad_enabled())  # asyncio's task: inside the block

    async def main():
        seen = []
        ag = agen(seen)
        await ag.__anext__()
        before = is_grad_enabled()
        snapshot = contextvars.copy_context()  # this task's context as it stands now
        await asyncio.get_running_loop().shutdown_asyncgens()
        return before, seen, is_grad_enabled(), builds_graph(), snapshot, ag

    before, seen, after, graphs, snapshot, _ = asyncio.run(main())
    assert (before, seen, after, graphs) == (False, [False], True, ON)
    # a copy of the context taken while the block was open sees it closed too
    assert snapshot.run(is_grad_enabled) is True


def test_a_child_task_sharing_the_opening_context_sees_the_close_too():
    # a task made inside the block starts from a copy of this task's context: the block
    # closed in a third task counts in neither
    async def agen():
        with no_grad():
            yield

    async def child(go):
        await go.wait()
        return is_grad_enabled(), builds_graph()

    async def main():
        ag = agen()
        await ag.__anext__()
        go = asyncio.Event()
        kid = asyncio.create_task(child(go))
        await asyncio.create_task(ag.aclose())
        go.set()
        return await kid, is_grad_enabled()

    assert asyncio.run(main()) == ((True, ON), True)


# ---------------------------------------------------------------------------------------
# 2. @no_grad() over a generator function: send, throw and close, as PyTorch's
# ---------------------------------------------------------------------------------------


def generator_session(decorate, enabled):
    """One session with a decorated generator function; what the caller and the wrapped
    generator see at each step."""
    log = []

    @decorate
    def handles(tag):
        try:
            got = None
            while True:
                try:
                    got = yield (tag, got, enabled())
                except ValueError as e:  # handled: yields again
                    log.append((tag, "caught", str(e), enabled()))
                    got = "after " + str(e)
        except GeneratorExit:
            log.append((tag, "exit", enabled()))
            raise
        finally:
            log.append((tag, "finally", enabled()))

    @decorate
    def returns():
        try:
            yield enabled()
        except KeyError:
            return ("returned", enabled())

    out = []
    g = handles("a")
    out.append((next(g), enabled()))
    out.append((g.send(5), enabled()))
    out.append((g.throw(ValueError("v")), enabled()))
    out.append((g.send(6), enabled()))
    with pytest.raises(TypeError) as raised:  # not handled: out through the wrapper
        g.throw(TypeError("t"))
    out.append((str(raised.value), enabled()))
    h = handles("b")
    next(h)
    h.close()
    out.append(("closed", enabled()))
    r = returns()
    out.append((next(r), enabled()))
    with pytest.raises(StopIteration) as stopped:
        r.throw(KeyError("k"))
    out.append((stopped.value.value, enabled()))
    k = handles("c")
    next(k)
    with pytest.raises(GeneratorExit):
        k.throw(GeneratorExit)
    out.append(("thrown exit", enabled()))
    return out, log


def pytorchs_session(decorate, enabled, outer=contextlib.nullcontext):
    """``generator_session`` with PyTorch's wrapper: it throws with the (type, value,
    traceback) signature, deprecated from Python 3.12 on; that warning is PyTorch's own."""
    with warnings.catch_warnings(), outer():
        warnings.filterwarnings("ignore", r"the \(type, exc, tb\) signature of throw",
                                DeprecationWarning)
        return generator_session(decorate, enabled)


def test_a_decorated_generator_passes_send_throw_and_close_on_as_pytorchs_does(torch):
    ours = generator_session(no_grad(), is_grad_enabled)
    theirs = pytorchs_session(torch.no_grad(), torch.is_grad_enabled)
    assert ours == theirs
    out, log = ours
    assert out == [
        (("a", None, False), True),
        (("a", 5, False), True),
        (("a", "after v", False), True),  # the wrapped generator handled it, went on
        (("a", 6, False), True),
        ("t", True),
        ("closed", True),
        (False, True),
        (("returned", False), True),
        ("thrown exit", True),
    ]
    # the wrapped generator saw what was thrown in, its except and finally inside the mode
    assert log == [
        ("a", "caught", "v", False),
        ("a", "finally", False),
        ("b", "exit", False),
        ("b", "finally", False),
        ("c", "exit", False),
        ("c", "finally", False),
    ]
    assert is_grad_enabled() and builds_graph() == ON


def test_a_decorated_generator_inside_another_mode_as_pytorchs(torch):
    # enable_grad over a generator, driven from inside no_grad: each resumption on
    with no_grad():
        ours = generator_session(enable_grad(), is_grad_enabled)
    theirs = pytorchs_session(torch.enable_grad(), torch.is_grad_enabled, torch.no_grad)
    assert ours == theirs
    assert ours[0][0] == (("a", None, True), False)


def test_a_throw_into_a_decorated_generator_leaves_no_block_open():
    @no_grad()
    def gen():
        while True:
            try:
                yield
            except ValueError:
                pass

    g = gen()
    next(g)
    for _ in range(3):
        g.throw(ValueError())
        assert is_grad_enabled()
    g.close()
    assert is_grad_enabled() and builds_graph() == ON


# ---------------------------------------------------------------------------------------
# 3. copies of a folded sum are copies of the operators' node
# ---------------------------------------------------------------------------------------

W, X, B = 0.7, -0.32, 0.1
K1, K2 = 1.38, 1.03  # (K1 + K2) * X != K1 * X + K2 * X: the order of the sums shows


def twin_sums():
    """``b + w*x`` built folded (the neuron's sum) and by the operators, with its leaves."""
    folded = [Value(W), Value(X), Value(B)]
    plain = [Value(W), Value(X), Value(B)]
    f = nn.affine(folded[2], [folded[0]], [folded[1]])
    assert type(f._how) is float  # folded indeed (reading _how by slot unfolds nothing)
    p = plain[2] + plain[0] * plain[1]
    return (f, folded), (p, plain)


def shape(v, c):
    """What a reader sees of a node and its copy: numbers, ops and which inputs they share."""
    return (v.data, c.data, v._op, c._op, [q.data for q in c._prev],
            [a is b for a, b in zip(v._prev, c._prev)], c._prev[1]._prev == v._prev[1]._prev)


def grads(v, c, leaves):
    return [x.grad for x in leaves] + [v.grad, c.grad, v._prev[1].grad, c._prev[1].grad]


@pytest.mark.parametrize("read_first", [True, False])
def test_a_shallow_copy_of_a_folded_sum_is_the_operators_copy(read_first):
    results = []
    for v, leaves in twin_sums():
        c = copy.copy(v)
        if read_first:
            seen = shape(v, c)
        loss = v * K1 + c * K2
        loss.backward()
        if not read_first:
            seen = shape(v, c)
        results.append((seen, grads(v, c, leaves), loss.data, len(topological_order(loss))))
    assert results[0] == results[1]
    seen, g, _, _ = results[0]
    assert seen[5] == [True, True]  # the copy shares act and the * node
    assert g[-2] == g[-1] == K1 + K2  # the * node's grad: both users'


def test_a_deep_copy_of_folded_sums_is_the_operators_deep_copy():
    results = []
    for v, leaves in twin_sums():
        c = copy.copy(v)
        v2, c2, leaves2 = copy.deepcopy([v, c, leaves])
        loss = v2 * K1 + c2 * K2
        loss.backward()
        results.append((shape(v2, c2), grads(v2, c2, leaves2),
                        [x.grad for x in leaves], v._prev[1] is not v2._prev[1]))
    assert results[0] == results[1]
    assert results[0][2] == [0.0, 0.0, 0.0]  # the originals untouched
    assert results[0][3] is True


def test_copies_of_a_folded_sum_after_backward_carry_its_product_grad():
    results = []
    for v, _ in twin_sums():
        (v * K1).backward()
        c, d = copy.copy(v), copy.deepcopy(v)
        results.append([(n.data, n.grad, n._op, [(q.data, q.grad, q._op) for q in n._prev])
                        for n in (c, d)])
    assert results[0] == results[1]


def test_a_copy_of_a_sum_whose_unfolding_was_cut_short_is_the_operators_node():
    (v, leaves), (p, _) = twin_sums()
    finish = engine_fast._finish.__code__
    lines, first = inspect.getsourcelines(engine_fast._finish)
    cut_at = first + next(i for i, line in enumerate(lines) if "_c = None" in line)

    def tracer(frame, event, arg):
        if frame.f_code is not finish:
            return None

        def local(frame, event, arg):  # at the line after ``v._b = ...``: cut there
            if event == "line" and frame.f_lineno == cut_at:
                raise KeyboardInterrupt
            return local
        return local

    sys.settrace(tracer)
    try:
        with pytest.raises(KeyboardInterrupt):
            v._prev  # noqa: B018 - reading it unfolds: cut short halfway
    finally:
        sys.settrace(None)
    assert v in engine_fast.UNFOLDING and type(v._how) is float  # left half done
    c = copy.copy(v)
    assert not engine_fast.UNFOLDING
    assert [q.data for q in c._prev] == [q.data for q in p._prev]
    assert c._op == "+" and c._prev[1]._op == "*" and c._prev[1] is v._prev[1]
    assert [q.data for q in c._prev[1]._prev] == [W, X]
