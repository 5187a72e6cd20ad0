"""The modes survive what can happen to a ``with`` block in real programs: an interrupt
(KeyboardInterrupt) at any bytecode of entering or leaving the block, async generators
resumed by another task, and generators that leave their blocks in another order than
they entered them.

The interrupt is injected, not timed: a trace function (``sys.settrace``, with opcode
events on) raises KeyboardInterrupt at the n-th event inside the modes' own code or on
the ``with`` line itself, for every n, as a signal handler's exception would (the
interpreter delivers one at a function's start, after a call and at a loop's jump back:
all among these events).
"""

import asyncio
import os
import sys

import pytest

from micrograd import grad_mode
from micrograd.engine import Value, detect_anomaly, enable_grad, is_grad_enabled, no_grad

GRAD_MODE_FILE = os.path.normcase(os.path.abspath(grad_mode.__file__))


def builds_graph():
    a = Value(2.0)
    return (a * a)._prev != ()


class Injector:
    """A trace function that raises KeyboardInterrupt at its ``at``-th event (counting
    from 0) in the modes' code or in the test functions named in ``names``."""

    def __init__(self, at, names):
        self.at, self.names, self.seen, self.fired = at, names, 0, None

    def watched(self, frame):
        code = frame.f_code
        return (code.co_name in self.names
                or os.path.normcase(os.path.abspath(code.co_filename)) == GRAD_MODE_FILE)

    def __call__(self, frame, event, arg):
        if not self.watched(frame):
            return None
        frame.f_trace_opcodes = True
        return self.local(frame, event, arg)  # the call itself: a function's start

    def local(self, frame, event, arg):
        if event == "exception":
            return self.local
        n, self.seen = self.seen, self.seen + 1
        if n == self.at:
            self.fired = (frame.f_code.co_name, event, frame.f_lineno)
            raise KeyboardInterrupt
        return self.local


def one_block(make):
    with make():
        x = Value(1.0) * 2  # noqa: F841 - the block's body
    return "finished"


def run_injected(make, at, names=("one_block",)):
    injector = Injector(at, names)
    sys.settrace(injector)
    try:
        result = one_block(make)
    except KeyboardInterrupt:
        result = "interrupted"
    finally:
        sys.settrace(None)
    return result, injector


MAKERS = {"no_grad": no_grad, "enable_grad": enable_grad, "detect_anomaly": detect_anomaly}


@pytest.mark.parametrize("outer", [None, "no_grad"])
@pytest.mark.parametrize("name", MAKERS)
def test_an_interrupt_at_any_point_of_a_block_leaves_the_modes_as_they_were(name, outer):
    make = MAKERS[name]
    open_at_start = set(grad_mode.OPEN)
    with (no_grad() if outer else enable_grad()):
        before = grad_mode.current()
        open_before = set(grad_mode.OPEN)  # the outer block: what the hot path sees
        interrupted = 0
        for at in range(10_000):
            result, injector = run_injected(make, at)
            where = injector.fired
            assert grad_mode.current() == before, (name, at, where)
            assert grad_mode.OPEN == open_before, (name, at, where)
            assert is_grad_enabled() == (not outer), (name, at, where)
            assert builds_graph() == (not outer), (name, at, where)
            if result == "finished":
                assert injector.fired is None  # every event of the block was tried
                break
            interrupted += 1
        else:
            pytest.fail("the block never ran to its end")
        # the points tried cover the mode's entry, its exit, and the with line itself
        assert interrupted >= 12, interrupted
    assert grad_mode.current() == 0 and is_grad_enabled()
    assert grad_mode.OPEN == open_at_start


def test_the_injector_does_catch_a_block_left_on():
    # the same injection against a block that sets the mode before its try: (as a
    # generator-based context manager does) leaves it on: the test above would see it
    from contextlib import contextmanager

    made = []

    @contextmanager
    def careless():
        block = no_grad()
        made.append(block)
        block.__enter__()  # no with statement: nothing holds the block's exit yet
        try:
            yield
        finally:
            block.leave()

    leaked, open_before = [], set(grad_mode.OPEN)
    for at in range(200):
        result, _ = run_injected(careless, at, ("one_block", "careless"))
        if grad_mode.current():
            leaked.append(at)
            grad_mode._modes.set(0)
        if result == "finished":
            break
    assert leaked
    for block in made:  # what was left open (or half closed), closed for real
        block.leave()
    assert grad_mode.OPEN == open_before


def test_reading_exit_inside_an_open_block_does_not_close_it():
    block = no_grad()
    with block:
        exit_ = block.__exit__
        del exit_  # dropped: not the with statement's own hold
        assert not is_grad_enabled()
    assert is_grad_enabled()


def test_an_async_generator_entered_in_one_task_and_finished_in_another():
    # wait_for runs the first step in a task of its own (Python 3.11): the block opens
    # in that task's context and closes in the main task's
    async def agen():
        with no_grad():
            yield 1
            yield 2

    async def main():
        ag = agen()
        first = await asyncio.wait_for(ag.__anext__(), 1)
        rest = [x async for x in ag]
        return first, rest, is_grad_enabled(), builds_graph()

    assert asyncio.run(main()) == (1, [2], True, True)
    assert is_grad_enabled()


def test_an_async_generator_handed_to_another_task_midway():
    async def agen():
        with no_grad():
            yield is_grad_enabled()
            yield is_grad_enabled()
        yield is_grad_enabled()

    async def drain(ag):
        return [x async for x in ag]

    async def main():
        ag = agen()
        first = await ag.__anext__()  # the block opens in the main task
        rest = await asyncio.create_task(drain(ag))  # and closes in another one
        return first, rest

    assert asyncio.run(main()) == (False, [False, True])


def test_blocks_left_in_another_order_than_entered():
    # two generators, each suspended inside a block, finished in the order they
    # started: the first one's exit must not bring back the second one's "before"
    def evaluating():
        with no_grad():
            yield

    def training():
        with enable_grad():
            yield

    with no_grad():
        a, b = evaluating(), training()
        next(a)
        next(b)
        assert is_grad_enabled()  # the innermost block, enable_grad, is b's
        next(a, None)  # a leaves its no_grad: b's enable_grad is still open
        assert is_grad_enabled()
        next(b, None)  # b leaves: back to the outer no_grad
        assert not is_grad_enabled()
    assert is_grad_enabled() and builds_graph()


def test_a_generator_suspended_inside_no_grad_turns_gradients_off_in_its_caller(torch):
    # as in PyTorch: the mode belongs to the thread (here: the task), not to the frame
    def ours():
        with no_grad():
            yield is_grad_enabled()
        yield is_grad_enabled()

    def theirs():
        with torch.no_grad():
            yield torch.is_grad_enabled()
        yield torch.is_grad_enabled()

    seen = []
    for gen, enabled in ((ours(), is_grad_enabled), (theirs(), torch.is_grad_enabled)):
        inside = next(gen)
        caller_while_suspended = enabled()
        after = next(gen)
        seen.append((inside, caller_while_suspended, after, enabled()))
    assert seen[0] == seen[1] == (False, False, True, True)


def test_one_block_object_is_one_block_at_a_time():
    block = no_grad()
    with block:
        with pytest.raises(RuntimeError, match="already open"):
            with block:
                pass
        assert not is_grad_enabled()
    assert is_grad_enabled()
    with block:  # once ended, it may be used again
        assert not is_grad_enabled()
    assert is_grad_enabled()


def test_a_block_entered_through_an_exit_stack():
    # ExitStack reads __exit__ from the class, not from the block
    from contextlib import ExitStack

    with ExitStack() as stack:
        stack.enter_context(no_grad())
        assert not is_grad_enabled()
    assert is_grad_enabled() and builds_graph()
