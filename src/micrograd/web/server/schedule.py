"""Fair turns on one work thread: every tab gets its share, and the walk never waits in line.

All the work of ``micrograd serve`` (the handlers' jobs: ``micrograd.web.handlers``) runs
on one work thread, one bounded *turn* at a time (micrograd is pure Python: with the GIL a
second thread would add no speed, and one thread keeps the sessions' traced buffers and
the engine's modes out of each other's way). A request's work is a *job*: a generator
that does one turn of work per ``next`` (one optimizer step, one state to draw, one
session to build, each capped by ``micrograd.web.limits``) and returns its answer. The
work thread chooses whose turn is next:

* the walk first: a walk request waits at most for the turn in progress (at most
  ``walk_burst`` walk turns in a row while training waits, so a flood of walk requests
  cannot starve the tabs either);
* then the playground sessions in rotation (round robin by session): a tab asking for
  20 steps gets one step, then goes to the back of the line behind the other tabs.
  A session's own requests run in the order they came.

Waiting costs no thread: a request waits on an asyncio future in the server's event loop,
so a hundred waiting tabs hold no worker and cannot exhaust a thread pool; the work
thread hands turns on by itself, without a round trip through the event loop.

    >>> turns = TurnScheduler()
    >>> view = await turns.call(WALK, build, source)       # in an async route: one turn
    >>> outcome = await turns.run(sid, job)                # a job of several turns
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import OrderedDict, deque

#: the lane of the walk routes (every other lane is one playground session, or a new one)
WALK = "walk"

log = logging.getLogger("micrograd.web")


class TurnNote:
    """When a job's request arrived (``arrival``: its first byte, when the connection
    says so, else when it was queued), when it was queued, when its first turn began
    and its last ended (``time.perf_counter`` seconds), how many turns it took and the
    longest one."""

    __slots__ = ("route", "lane", "arrival", "queued", "start", "end", "turns", "longest")

    def __init__(self, route=None, arrival=None):
        self.route, self.arrival, self.lane = route, arrival, None
        self.queued = self.start = self.end = None
        self.turns, self.longest = 0, 0.0

    @property
    def wait(self):
        """Seconds from the request's arrival to its first turn (None before it)."""
        return None if self.start is None else self.start - self.arrival


class _Job:
    __slots__ = ("fut", "gen", "loop", "note")

    def __init__(self, gen, loop, fut, note):
        self.gen, self.loop, self.fut, self.note = gen, loop, fut, note


def _one_turn(fn, args, kwargs):
    return fn(*args, **kwargs)
    yield  # a generator of a single turn  # pragma: no cover


class TurnScheduler:
    """One work thread; turns go to the walk lane first, then to the sessions in
    rotation."""

    def __init__(self, walk_burst=4, log=None):
        self.walk_burst = walk_burst
        self.log = log
        self._cond = threading.Condition()
        self._walk = deque()            # walk jobs, first come first served
        self._lanes = OrderedDict()     # lane -> deque of jobs; the next lane first
        self._walk_streak = 0
        self._thread = None
        self._closed = False
        self.turns = 0                  # turns run so far

    # -- the request side (in the event loop) ------------------------------------------

    async def call(self, lane, fn, /, *args, **kwargs):
        """``fn(*args, **kwargs)`` as one turn of ``lane``; its result or its exception."""
        return await self.run(lane, _one_turn(fn, args, kwargs))

    async def run(self, lane, gen, note=None):
        """Run the generator ``gen`` one turn (one ``next``) at a time on the work
        thread; its return value, or the exception it raised."""
        loop = asyncio.get_running_loop()
        note = TurnNote() if note is None else note
        note.queued = time.perf_counter()
        if note.arrival is None:
            note.arrival = note.queued
        note.lane = "walk" if lane == WALK else "session"
        job = _Job(gen, loop, loop.create_future(), note)
        with self._cond:
            if self._closed:
                raise RuntimeError("the turn scheduler is closed")
            if self._thread is None:
                self._thread = threading.Thread(target=self._serve, daemon=True,
                                                name="micrograd-turns")
                self._thread.start()
            if lane == WALK:
                self._walk.append(job)
            else:
                self._lanes.setdefault(lane, deque()).append(job)
            self._cond.notify()
        return await job.fut

    def waiting(self):
        """(walk jobs, session jobs) waiting or running."""
        with self._cond:
            return len(self._walk), sum(len(q) for q in self._lanes.values())

    def close(self):
        with self._cond:
            self._closed = True
            self._cond.notify()

    # -- the work thread ----------------------------------------------------------------

    def _pick(self):
        """The job whose turn it is, and whether it is a walk job (under the lock)."""
        if self._walk and (self._walk_streak < self.walk_burst or not self._lanes):
            self._walk_streak += 1
            return self._walk[0], None
        self._walk_streak = 0
        lane = next(iter(self._lanes))
        return self._lanes[lane][0], lane

    def _serve(self):
        last_end = None
        while True:
            with self._cond:
                while not (self._walk or self._lanes or self._closed):
                    last_end = None
                    self._cond.wait()
                if self._closed:
                    return
                job, lane = self._pick()
                if not self._lanes:
                    last_end = None
            done, result, error = False, None, None
            note = job.note
            start = time.perf_counter()
            if job.fut.cancelled():   # its request is gone: do no more of its work
                done = True
            else:
                if note.start is None:
                    note.start = start
                try:
                    next(job.gen)
                except StopIteration as stop:
                    done, result = True, stop.value
                except Exception as exc:  # noqa: BLE001 - delivered to the request, raised there
                    done, error = True, exc
            end = time.perf_counter()
            note.end, note.turns = end, note.turns + 1
            note.longest = max(note.longest, end - start)
            if self.log is not None:
                kind = "walk" if lane is None else "session"
                self.log.turn(kind, start, end, last_end if lane is not None else None)
                if done:
                    self.log.job(note)
            if lane is not None:
                last_end = end
            self.turns += 1
            with self._cond:
                queue = self._walk if lane is None else self._lanes[lane]
                if done:
                    queue.popleft()
                if lane is not None:      # this session goes to the back of the line
                    del self._lanes[lane]
                    if queue:
                        self._lanes[lane] = queue
            if done:
                try:
                    job.loop.call_soon_threadsafe(_deliver, job.fut, result, error)
                except RuntimeError:      # its event loop is closed: nobody is waiting
                    log.debug("a finished job's event loop is closed")


def _deliver(fut, result, error):
    if fut.done():
        return
    if error is not None:
        fut.set_exception(error)
    else:
        fut.set_result(result)
