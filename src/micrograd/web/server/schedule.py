"""Turns on two work threads: the walk never waits for training, and every tab gets its share.

All the work of ``micrograd serve`` (the handlers' jobs: ``micrograd.web.handlers``) runs
in bounded *turns*. A request's work is a *job*: a generator that does one turn of work
per ``next`` (one optimizer step, one state to draw, one session to build, one phase of a
big graph's walk, each capped by ``micrograd.web.limits``) and returns its answer. Two
work threads run the turns:

* the **walk thread** runs the walk's jobs (the short, interactive requests of a person
  stepping through a graph), one turn each in rotation, so a small graph's request waits
  for at most one turn of a big graph's, never for the whole of it;
* the **training thread** runs the Playground sessions' jobs, the sessions in rotation
  (round robin by session): a tab asking for 20 steps gets one step, then goes to the
  back of the line behind the other tabs. A session's own requests run in the order
  they came, and a turn is one unit of work (one step), whatever the clock says.

Why a thread of its own for the walk: a walk request that waited for the turn in
progress waited for whatever that turn was (building the largest session takes about a
second), and a long walk turn held every tab's training. On its own thread the walk
*preempts* training: the interpreter hands its lock between running threads every few
milliseconds (``sys.getswitchinterval()``, 5 ms), so a walk request starts at once and
shares the processor with the turn in progress instead of queueing behind it, and
training is never held up for longer than one such slice. Only the walk has such a
thread: the sessions stay on one thread, which keeps their traced buffers out of each
other's way (and micrograd is pure Python: with the lock, more threads add no speed).

Every job runs in a context of its own (``contextvars``): the engine's modes
(``no_grad``, anomaly detection) a job sets stay with that job across its turns, and a
job suspended inside ``no_grad`` never turns gradients off in another job's turn.

Waiting costs no thread: a request waits on an asyncio future in the server's event loop,
so a hundred waiting tabs hold no worker and cannot exhaust a thread pool; the work
threads hand turns on by themselves, without a round trip through the event loop. Each
job carries a :class:`TurnNote` (when it was queued, when its first turn began, its
longest turn), which ``web/server/timing.py`` reports when the server runs with
``--timing``.

    >>> turns = TurnScheduler()
    >>> view = await turns.call(WALK, build, source)       # in an async route: one turn
    >>> outcome = await turns.run(sid, job)                # a job of several turns
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
import time
from collections import OrderedDict, deque

#: the lane of the walk routes (every other lane is one playground session, or a new one)
WALK = "walk"

log = logging.getLogger("micrograd.web")

__all__ = ["WALK", "TurnScheduler", "TurnNote"]


class TurnNote:
    """When a job's request arrived (``arrival``: its last byte, when the connection
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
    __slots__ = ("fut", "gen", "loop", "ctx", "note")

    def __init__(self, gen, loop, fut, note):
        self.gen, self.loop, self.fut, self.note = gen, loop, fut, note
        self.ctx = contextvars.copy_context()


def _one_turn(fn, args, kwargs):
    return fn(*args, **kwargs)
    yield  # a generator of a single turn  # pragma: no cover


class TurnScheduler:
    """Two work threads: the walk's jobs in rotation on one, the sessions in rotation on
    the other. ``log``: an object with ``job(note)`` and ``turn(lane_kind, start, end,
    waited_since)`` (``web/server/timing.TurnLog``), told of every job and turn."""

    def __init__(self, log=None):
        self.log = log
        self._lock = threading.Lock()
        self._walk_ready = threading.Condition(self._lock)
        self._train_ready = threading.Condition(self._lock)
        self._walk = deque()            # walk jobs; the next turn is the first one's
        self._lanes = OrderedDict()     # lane -> deque of jobs; the next lane first
        self._threads = []
        self._closed = False
        self.turns = 0                  # turns run so far

    # -- the request side (in the event loop) ------------------------------------------

    async def call(self, lane, fn, /, *args, **kwargs):
        """``fn(*args, **kwargs)`` as one turn of ``lane``; its result or its exception."""
        return await self.run(lane, _one_turn(fn, args, kwargs))

    async def run(self, lane, gen, note=None):
        """Run the generator ``gen`` one turn (one ``next``) at a time on a work
        thread; its return value, or the exception it raised. ``note``: a TurnNote to
        fill in (one is made when None)."""
        loop = asyncio.get_running_loop()
        note = TurnNote() if note is None else note
        note.queued = time.perf_counter()
        if note.arrival is None:
            note.arrival = note.queued
        note.lane = "walk" if lane == WALK else "session"
        job = _Job(gen, loop, loop.create_future(), note)
        with self._lock:
            if self._closed:
                raise RuntimeError("the turn scheduler is closed")
            if not self._threads:
                self._start()
            if lane == WALK:
                self._walk.append(job)
                self._walk_ready.notify()
            else:
                self._lanes.setdefault(lane, deque()).append(job)
                self._train_ready.notify()
        return await job.fut

    def waiting(self):
        """(walk jobs, session jobs) waiting or running."""
        with self._lock:
            return len(self._walk), sum(len(q) for q in self._lanes.values())

    def close(self):
        with self._lock:
            self._closed = True
            self._walk_ready.notify_all()
            self._train_ready.notify_all()

    def _start(self):
        for name, target in (("micrograd-walk", self._serve_walk),
                             ("micrograd-training", self._serve_training)):
            thread = threading.Thread(target=target, daemon=True, name=name)
            self._threads.append(thread)
            thread.start()

    # -- the work threads ---------------------------------------------------------------

    def _serve_walk(self):
        """The walk's jobs in rotation: one turn, then the job goes to the back."""
        while True:
            with self._lock:
                while not (self._walk or self._closed):
                    self._walk_ready.wait()
                if self._closed:
                    return
                job = self._walk[0]
            done = self._turn(job, "walk")
            with self._lock:
                self.turns += 1
                self._walk.popleft()
                if not done:
                    self._walk.append(job)

    def _serve_training(self):
        """The sessions in rotation: one turn of the first lane's first job, then that
        lane goes to the back of the line."""
        last_end = None
        while True:
            with self._lock:
                while not (self._lanes or self._closed):
                    last_end = None  # nothing waited: an idle gap is no hold-up
                    self._train_ready.wait()
                if self._closed:
                    return
                lane = next(iter(self._lanes))
                job = self._lanes[lane][0]
            done = self._turn(job, "session", last_end)
            last_end = job.note.end if job.note.end is not None else time.perf_counter()
            with self._lock:
                self.turns += 1
                queue = self._lanes.pop(lane)
                if done:
                    queue.popleft()
                if queue:                 # this session goes to the back of the line
                    self._lanes[lane] = queue

    def _turn(self, job, kind, waited_since=None):
        """One turn of ``job`` on this thread, in the job's own context; whether the
        job is done (its answer or error then handed to its request)."""
        note = job.note
        start = time.perf_counter()
        done, result, error = False, None, None
        if job.fut.cancelled():   # its request is gone: do no more of its work
            done = True
        else:
            if note.start is None:
                note.start = start
            try:
                job.ctx.run(next, job.gen)
            except StopIteration as stop:
                done, result = True, stop.value
            except Exception as exc:  # noqa: BLE001 - delivered to the request, raised there
                done, error = True, exc
        end = time.perf_counter()
        note.end, note.turns = end, note.turns + 1
        note.longest = max(note.longest, end - start)
        if self.log is not None:
            self.log.turn(kind, start, end, waited_since)
            if done:
                self.log.job(note)
        if done:
            try:
                job.loop.call_soon_threadsafe(_deliver, job.fut, result, error)
            except RuntimeError:      # its event loop is closed: nobody is waiting
                log.debug("a finished job's event loop is closed")
        return done


def _deliver(fut, result, error):
    if fut.done():
        return
    if error is not None:
        fut.set_exception(error)
    else:
        fut.set_result(result)
