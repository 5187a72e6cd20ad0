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

Why a thread of its own for the walk: on one thread, a walk request would wait for the
turn in progress, whatever it is (building the largest session is one long turn), and a
long walk turn would hold every tab's training. On its own thread the walk
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

Jobs end cleanly, whatever happens to them:

* an exception out of a job is its request's (raised where it awaits); one that is not
  an ``Exception`` (``SystemExit``, ``KeyboardInterrupt``) comes as a
  :class:`JobAborted` (the original its ``__cause__``): raised as is, it would stop the
  server's event loop. The work thread goes on with the other jobs. A work thread never
  gets a real Ctrl-C (Python runs signal handlers on the main thread, where
  ``micrograd serve``'s server takes it): a ``KeyboardInterrupt`` there was raised by
  the job's own code;
* a job whose request is cancelled (its client gone) is dropped before its work
  thread's next turn (of any job) and its generator closed there (its ``finally``
  blocks run): a generator is only ever run or closed by the thread that runs its turns;
* :meth:`TurnScheduler.close` (the app's shutdown) answers every job queued or in its
  turn with :class:`SchedulerClosed` (the routes answer it as error data of the kind
  ``unavailable``, a 503), refuses new ones with it, and the work threads close the
  jobs' generators and end; :meth:`TurnScheduler.join` waits for them.

The work threads start with the first job of their kind and end after ``idle_seconds``
with nothing to do (the next job starts one again), so a scheduler nobody closes (an
app used without its lifespan) leaves no thread behind for long.

    >>> turns = TurnScheduler()
    >>> view = await turns.call(WALK, build, source)       # in an async route: one turn
    >>> outcome = await turns.run(sid, job)                # a job of several turns
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import threading
import time
from collections import OrderedDict, deque

#: the lane of the walk routes (every other lane is one playground session, or a new one)
WALK = "walk"
#: the work threads' kinds: the walk's, the sessions'
SESSION = "session"
#: a work thread with nothing to do this many seconds ends (the next job starts another)
IDLE_SECONDS = 10.0
#: the app's shutdown waits at most this long for its work threads to end
JOIN_SECONDS = 5.0

_THREAD_NAMES = {WALK: "micrograd-walk", SESSION: "micrograd-training"}

log = logging.getLogger("micrograd.web")

__all__ = ["WALK", "TurnScheduler", "TurnNote", "SchedulerClosed", "JobAborted"]


class SchedulerClosed(RuntimeError):
    """The scheduler is closed (the server is shutting down): the answer of every job
    queued or in its turn when it closed, and of every job submitted after."""

    def __init__(self, message="the server is shutting down: it takes no more work "
                               "(ask again once it is back)"):
        super().__init__(message)


class JobAborted(RuntimeError):
    """A job's turn raised a BaseException that is not an Exception (``SystemExit``,
    ``KeyboardInterrupt``...), which is its ``__cause__``; its request gets this."""


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
    __slots__ = ("fut", "gen", "loop", "ctx", "note", "lane", "kind", "queued")

    def __init__(self, gen, loop, fut, note, lane):
        self.gen, self.loop, self.fut, self.note, self.lane = gen, loop, fut, note, lane
        self.kind = WALK if lane == WALK else SESSION
        self.queued = False  # in its queue (the work thread's to run or to close)
        self.ctx = contextvars.copy_context()


def _one_turn(fn, args, kwargs):
    return fn(*args, **kwargs)
    yield  # a generator of a single turn  # pragma: no cover


class TurnScheduler:
    """Two work threads: the walk's jobs in rotation on one, the sessions in rotation on
    the other. ``log``: an object with ``job(note)`` and ``turn(lane_kind, start, end,
    waited_since)`` (``web/server/timing.TurnLog``), told of every job and turn;
    ``idle_seconds``: how long a work thread with nothing to do waits before it ends."""

    def __init__(self, log=None, idle_seconds=IDLE_SECONDS):
        self.log = log
        self.idle_seconds = idle_seconds
        self._lock = threading.Lock()
        self._ready = {kind: threading.Condition(self._lock) for kind in (WALK, SESSION)}
        self._walk = deque()            # walk jobs; the next turn is the first one's
        self._lanes = OrderedDict()     # lane -> deque of jobs; the next lane first
        self._workers = dict.fromkeys((WALK, SESSION))  # kind -> its thread, or None
        self._dropped = {WALK: [], SESSION: []}  # cancelled jobs, to close between turns
        self._threads = []              # the work threads started (for join)
        self._closed = False
        self.turns = 0                  # turns run so far

    # -- the request side (in the event loop) ------------------------------------------

    async def call(self, lane, fn, /, *args, **kwargs):
        """``fn(*args, **kwargs)`` as one turn of ``lane``; its result or its exception."""
        return await self.run(lane, _one_turn(fn, args, kwargs))

    async def run(self, lane, gen, note=None):
        """Run the generator ``gen`` one turn (one ``next``) at a time on a work
        thread; its return value, or the exception it raised (:class:`JobAborted` for
        one that is not an ``Exception``; :class:`SchedulerClosed` once the scheduler
        is closed). ``note``: a TurnNote to fill in (one is made when None)."""
        loop = asyncio.get_running_loop()
        note = TurnNote() if note is None else note
        note.queued = time.perf_counter()
        if note.arrival is None:
            note.arrival = note.queued
        note.lane = "walk" if lane == WALK else "session"
        job = _Job(gen, loop, loop.create_future(), note, lane)
        job.fut.add_done_callback(functools.partial(self._forget, job))
        with self._lock:
            refused = self._closed
            if not refused:
                self._queue(job)
        if refused:  # nothing of it ran: its generator is closed here
            gen.close()
            raise SchedulerClosed()
        return await job.fut

    def waiting(self):
        """(walk jobs, session jobs) waiting or running."""
        with self._lock:
            return len(self._walk), sum(len(q) for q in self._lanes.values())

    def close(self):
        """Take no more jobs; answer every job queued or in its turn with
        :class:`SchedulerClosed`. The work threads close the jobs' generators (after
        the turn in progress) and end: :meth:`join` waits for them."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            jobs = [*self._walk, *(job for q in self._lanes.values() for job in q)]
            for ready in self._ready.values():
                ready.notify_all()
        for job in jobs:
            _answer(job, None, SchedulerClosed())

    def join(self, timeout=None):
        """Wait for the work threads to end (after :meth:`close`, or when idle), at most
        ``timeout`` seconds in all; whether they all did."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._lock:
            threads = list(self._threads)
        for thread in threads:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            thread.join(left)
        return not any(thread.is_alive() for thread in threads)

    def _queue(self, job):
        """(lock held) Put ``job`` in its queue; start its work thread if none runs."""
        if job.kind == WALK:
            self._walk.append(job)
        else:
            self._lanes.setdefault(job.lane, deque()).append(job)
        job.queued = True
        if self._workers[job.kind] is None:
            thread = threading.Thread(target=self._serve, args=(job.kind,), daemon=True,
                                      name=_THREAD_NAMES[job.kind])
            self._workers[job.kind] = thread
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
            thread.start()
        else:
            self._ready[job.kind].notify()

    def _forget(self, job, fut):
        """(the event loop) A job's request is cancelled: its work thread drops it and
        closes its generator before its next turn."""
        if not fut.cancelled():
            return
        with self._lock:
            if job.queued and not self._closed:
                self._dropped[job.kind].append(job)
                self._ready[job.kind].notify()

    # -- the work threads ---------------------------------------------------------------

    def _serve(self, kind):
        """A work thread's loop: drop the cancelled jobs, then one turn of the next job
        (the walk: the first job, which then goes to the back; the sessions: the first
        lane's first job, and that lane goes to the back). It ends when the scheduler
        closes (closing the jobs left) or after ``idle_seconds`` with nothing to do."""
        last_end = None  # the end of the last session turn, while sessions wait
        while True:
            with self._lock:
                job, dropped, state = self._next(kind)
            for old in dropped:
                _close(old)
            if state == "end":
                return
            if state == "idle":
                last_end = None  # nothing waited: an idle gap is no hold-up
            if job is None:
                continue
            if kind == WALK:
                done = self._turn(job, "walk")
            else:
                done = self._turn(job, "session", last_end)
                last_end = job.note.end
            with self._lock:
                self.turns += 1
                self._after(job, done)

    def _next(self, kind):
        """(lock held) (the job whose turn is next or None, the jobs to close, "run",
        "idle" or "end")."""
        dropped = [job for job in self._dropped[kind] if job.queued]
        self._dropped[kind] = []
        for job in dropped:
            self._unqueue(job)
        if self._closed:
            left = list(self._walk) if kind == WALK else [
                job for q in self._lanes.values() for job in q]
            for job in left:
                self._unqueue(job)
            return None, dropped + left, "end"
        if dropped:
            return None, dropped, "run"
        queued = self._walk if kind == WALK else self._lanes
        if not queued:
            woken = self._ready[kind].wait(self.idle_seconds)
            if not (woken or queued or self._dropped[kind] or self._closed):
                self._workers[kind] = None  # the next job starts another thread
                return None, [], "end"
            return None, [], "idle"
        job = self._walk[0] if kind == WALK else self._lanes[next(iter(self._lanes))][0]
        return job, [], "run"

    def _unqueue(self, job):
        """(lock held) Take ``job`` out of its queue."""
        if job.kind == WALK:
            self._walk.remove(job)
        else:
            queue = self._lanes[job.lane]
            queue.remove(job)
            if not queue:
                del self._lanes[job.lane]
        job.queued = False

    def _after(self, job, done):
        """(lock held) After a turn of ``job`` (the first of its queue): a walk job goes
        to the back of the walk's queue, a session's lane to the back of the line."""
        if job.kind == WALK:
            self._walk.popleft()
            if not done:
                self._walk.append(job)
        else:
            queue = self._lanes.pop(job.lane)
            if done:
                queue.popleft()
            if queue:                 # this session goes to the back of the line
                self._lanes[job.lane] = queue
        if done:
            job.queued = False

    def _turn(self, job, kind, waited_since=None):
        """One turn of ``job`` on this thread, in the job's own context; whether the
        job is done (its answer or error then handed to its request)."""
        note = job.note
        start = time.perf_counter()
        done, result, error = False, None, None
        if job.fut.cancelled():   # its request is gone: do no more of its work
            done = True
            _close(job)
        else:
            if note.start is None:
                note.start = start
            try:
                job.ctx.run(next, job.gen)
            except StopIteration as stop:
                done, result = True, stop.value
            except Exception as exc:  # noqa: BLE001 - delivered to the request, raised there
                done, error = True, exc
            except BaseException as exc:  # SystemExit, KeyboardInterrupt: the job's too
                done, error = True, _aborted(exc)
        end = time.perf_counter()
        note.end, note.turns = end, note.turns + 1
        note.longest = max(note.longest, end - start)
        if self.log is not None:
            self.log.turn(kind, start, end, waited_since)
            if done:
                self.log.job(note)
        if done:
            _answer(job, result, error)
        return done


def _aborted(exc):
    """A BaseException that is not an Exception, as an error the request can raise (as
    is, awaited in a task, it would stop the server's event loop)."""
    why = f": {exc}" if str(exc) else ""
    error = JobAborted(f"the job raised {type(exc).__name__}{why} (an error of the job's "
                       "own code; the server goes on)")
    error.__cause__ = exc
    return error


def _close(job):
    """Close a job's generator (its ``finally`` blocks run) in its own context, on the
    work thread that runs its turns."""
    try:
        job.ctx.run(job.gen.close)
    except BaseException as exc:  # noqa: BLE001 - nobody waits for a dropped job
        log.warning("closing a dropped job raised %s: %s", type(exc).__name__, exc)


def _answer(job, result, error):
    """Hand ``job``'s result or error to its request (in its event loop)."""
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
