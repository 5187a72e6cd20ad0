"""The engine's modes (``no_grad``, ``enable_grad``, ``detect_anomaly``) are per thread and
per async task, as PyTorch's grad mode is: real threads, blocks that overlap without
nesting, and nothing leaks from one thread to another."""

import asyncio
import math
import threading

import pytest

from micrograd.engine import (
    AnomalyError,
    Value,
    detect_anomaly,
    enable_grad,
    is_grad_enabled,
    no_grad,
)


def square_grad(x=3.0):
    v = Value(x)
    (v * v).backward()
    return v.grad


def run_in_thread(fn):
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


def test_no_grad_blocks_that_overlap_without_nesting_leave_grads_on():
    # A enters, B enters, A exits, B exits: with one process-wide flag saved and restored
    # by each block, B's exit would restore A's "off" and switch gradients off for good
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def thread_a():
        with no_grad():
            a_in.set()
            b_in.wait(5)
        a_out.set()
        seen["a_after"] = square_grad()

    def thread_b():
        a_in.wait(5)
        with no_grad():
            b_in.set()
            a_out.wait(5)
            seen["b_inside"] = is_grad_enabled()
        seen["b_after"] = square_grad()

    ts = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(10)
    assert seen == {"a_after": 6.0, "b_inside": False, "b_after": 6.0}
    assert is_grad_enabled() and square_grad() == 6.0


def test_no_grad_in_one_thread_does_not_stop_another_from_building_graphs():
    inside, done = threading.Event(), threading.Event()

    def evaluator():
        with no_grad():
            inside.set()
            done.wait(5)
            return (Value(2.0) * Value(3.0))._prev

    box = {}
    t = threading.Thread(target=lambda: box.setdefault("prev", evaluator()))
    t.start()
    inside.wait(5)
    grads = [square_grad(float(k)) for k in range(1, 31)]  # the "training loop"
    done.set()
    t.join(10)
    assert grads == [2.0 * k for k in range(1, 31)]
    assert box["prev"] == ()  # the evaluator itself built no graph


def test_a_new_thread_starts_with_gradients_on_even_inside_no_grad():
    with no_grad():
        assert not is_grad_enabled()
        assert run_in_thread(is_grad_enabled) is True
        assert run_in_thread(square_grad) == 6.0
    assert is_grad_enabled()


def test_detect_anomaly_in_one_thread_does_not_raise_in_another():
    inside, done = threading.Event(), threading.Event()

    def watcher():
        with detect_anomaly():
            inside.set()
            done.wait(5)
            with pytest.raises(AnomalyError):
                Value(800.0).exp()  # inf from a finite input: caught here

    t = threading.Thread(target=watcher)
    t.start()
    inside.wait(5)
    try:
        assert Value(800.0).exp().data == math.inf  # not raised in this thread
    finally:
        done.set()
        t.join(10)


def test_enable_grad_inside_no_grad_is_per_thread_too():
    def other():
        with no_grad():
            return is_grad_enabled()

    with no_grad():
        with enable_grad():
            assert run_in_thread(other) is False
            assert is_grad_enabled()
        assert not is_grad_enabled()


def test_modes_are_per_async_task():
    async def evaluating(started, release):
        with no_grad():
            started.set()
            await release.wait()
            return is_grad_enabled()

    async def training(started, release):
        await started.wait()
        g = square_grad()  # runs while the other task is inside no_grad
        release.set()
        return g

    async def main():
        started, release = asyncio.Event(), asyncio.Event()
        return await asyncio.gather(evaluating(started, release), training(started, release))

    assert asyncio.run(main()) == [False, 6.0]
    assert is_grad_enabled()


def test_a_mode_decorates_a_function_as_in_pytorch():
    from micrograd.grad_mode import detect_anomaly, enable_grad, is_grad_enabled, no_grad

    @no_grad()
    def inside(depth):
        """a docstring kept"""
        return [is_grad_enabled()] + (inside(depth - 1) if depth else [])

    assert inside(2) == [False, False, False] and is_grad_enabled()
    assert inside.__name__ == "inside" and inside.__doc__ == "a docstring kept"

    @enable_grad()
    def on():
        return is_grad_enabled()

    with no_grad():
        assert on() is True and not is_grad_enabled()

    @detect_anomaly()
    def boom():
        from micrograd.engine import Value
        return Value(-1.0).log()

    import pytest
    with pytest.raises(FloatingPointError):
        boom()
    assert is_grad_enabled()


def test_a_mode_over_a_generator_function_holds_inside_each_resumption():
    from micrograd.engine import Value
    from micrograd.grad_mode import is_grad_enabled, no_grad

    @no_grad()
    def products(xs):
        for x in xs:
            yield x * 2.0, is_grad_enabled()

    seen = []
    for y, inside in products([Value(1.0), Value(2.0)]):
        seen.append((y.data, y._prev == (), inside, is_grad_enabled()))
    # built without a graph, no_grad on inside, the caller's mode its own between
    assert seen == [(2.0, True, False, True), (4.0, True, False, True)]
