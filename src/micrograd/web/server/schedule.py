"""Turns on two work threads: the walk never waits for training, and every tab gets its share.

All the work of ``micrograd serve`` (the handlers' jobs: ``micrograd.web.handlers``) runs
in bounded *turns*. A request's work is a *job*: a generator that does one turn of work
per ``next`` (one optimizer step, one state to draw, one session to build, one phase of a
big graph's walk, each capped by ``micrograd.web.limits``) and returns its answer. Two
work threads run the turns:

* the **walk thread** runs the walk's jobs (the short, interactive requests of a person
  stepping through a graph), a turn at a time, so a small graph's request waits for a
  turn of a big graph's, never for the whole of it;
* the **training thread** runs the pages' jobs (the Playground's sessions, a CSV file
  read, the gallery's runs) in *lanes*, one a page (``web/routers/answers.py`` says
  which lane a request is in): a page's requests run in the order they came, and the
  lanes share the thread by CPU time (``web/server/lanes.py``): each turn is charged to
  its lane, and the next turn is the waiting lane's charged least. A tab asking for 20
  steps gets one step, then waits behind the tabs charged less; a turn is one unit of
  work (one step), and a lane whose turns are long gets fewer of them.

The walk's jobs share their thread the same way, each job a lane of its own (so jobs
charged alike take turns in rotation), charged to its page's account:
a page that has had much of the walk's thread lately starts its next walk behind the
pages that have not. A walk job that needs more than one turn (a big graph's) holds its
graph, its steps and its layout between turns, several megabytes: such walks are
counted, at most ``walks`` at once and ``walks_per_page`` from one page
(``limits.MAX_WALKS_IN_TURNS``...), and one beyond is answered :class:`Busy` after its
first turn (its parse) and closed, so the walks stay inside the server's memory bound
and a plain walk waits for a few turns, not for a hundred.

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
* a walk beyond the walks allowed in turns is answered :class:`Busy` (``retry_after``:
  when to ask again; the routes answer it as error data of the kind ``busy``, a 503)
  after its first turn, and its generator closed there;
* :meth:`TurnScheduler.close` (the app's shutdown) answers every job queued or in its
  turn with :class:`SchedulerClosed` (the routes answer it as error data of the kind
  ``unavailable``, a 503), refuses new ones with it, and the work threads close the
  jobs' generators and end; :meth:`TurnScheduler.join` waits for them.

The work threads start with the first job of their kind and end after ``idle_seconds``
with nothing to do (the next job starts one again), so a scheduler nobody closes (an
app used without its lifespan) leaves no thread behind for long.

    >>> turns = TurnScheduler()
    >>> view = await turns.call(WALK, build, source)       # in an async route: one turn
    >>> outcome = await turns.run(lane, job, page=page)    # a job of several turns
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import threading
import time

from .. import limits
from .lanes import Lanes

#: the lane of the walk routes (their jobs run on the walk's thread, each a lane of its
#: own); every other lane is a page's, on the training thread
WALK = "walk"
#: the work threads' kinds: the walk's, the sessions'
SESSION = "session"
#: a work thread with nothing to do this many seconds ends (the next job starts another)
IDLE_SECONDS = 10.0
#: the app's shutdown waits at most this long for its work threads to end
JOIN_SECONDS = 5.0

_THREAD_NAMES = {WALK: "micrograd-walk", SESSION: "micrograd-training"}

log = logging.getLogger("micrograd.web")

#: seconds a client refused for too many walks in turns is told to wait
WALKS_RETRY = 2

__all__ = ["WALK", "TurnScheduler", "TurnNote", "SchedulerClosed", "JobAborted", "Busy"]


class SchedulerClosed(RuntimeError):
    """The scheduler is closed (the server is shutting down): the answer of every job
    queued or in its turn when it closed, and of every job submitted after."""

    def __init__(self, message="the server is shutting down: it takes no more work "
                               "(ask again once it is back)"):
        super().__init__(message)


class Busy(RuntimeError):
    """The job was refused for want of room (too many walks in turns): its request gets
    this; ``retry_after``: the seconds after which to ask again."""

    def __init__(self, message, retry_after=WALKS_RETRY):
        super().__init__(message)
        self.retry_after = retry_after


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
    __slots__ = ("fut", "gen", "loop", "ctx", "note", "lane", "kind", "queued", "page",
                 "held")

    def __init__(self, gen, loop, fut, note, lane, page):
        self.gen, self.loop, self.fut, self.note, self.page = gen, loop, fut, note, page
        self.kind = WALK if lane == WALK else SESSION
        self.lane = self if lane == WALK else lane  # a walk job is a lane of its own
        self.queued = False  # in its queue (the work thread's to run or to close)
        self.held = False    # a walk counted in turns (its graph held between them)
        self.ctx = contextvars.copy_context()


def _one_turn(fn, args, kwargs):
    return fn(*args, **kwargs)
    yield  # a generator of a single turn  # pragma: no cover


class TurnScheduler:
    """Two work threads: the walk's jobs on one, the pages' lanes on the other, each
    shared by CPU time (``web/server/lanes.py``). ``log``: an object with ``job(note)``
    and ``turn(lane_kind, start, end, waited_since)`` (``web/server/timing.TurnLog``),
    told of every job and turn; ``idle_seconds``: how long a work thread with nothing to
    do waits before it ends; ``walks`` / ``walks_per_page``: how many walk jobs may be
    in turns at once, in all and from one page (a job beyond is answered :class:`Busy`);
    ``min_charge``: the least a turn is charged (``lanes.MIN_CHARGE``)."""

    def __init__(self, log=None, idle_seconds=IDLE_SECONDS, *,
                 walks=limits.MAX_WALKS_IN_TURNS,
                 walks_per_page=limits.MAX_WALKS_IN_TURNS_PER_PAGE, **lanes):
        self.log = log
        self.idle_seconds = idle_seconds
        self.walks, self.walks_per_page = walks, walks_per_page
        self._lock = threading.Lock()
        self._ready = {kind: threading.Condition(self._lock) for kind in (WALK, SESSION)}
        self._lanes = {kind: Lanes(**lanes) for kind in (WALK, SESSION)}  # jobs waiting
        self._held = {}                 # page -> its walk jobs in turns
        self._workers = dict.fromkeys((WALK, SESSION))  # kind -> its thread, or None
        self._dropped = {WALK: [], SESSION: []}  # cancelled jobs, to close between turns
        self._threads = []              # the work threads started (for join)
        self._closed = False
        self.turns = 0                  # turns run so far

    # -- the request side (in the event loop) ------------------------------------------

    async def call(self, lane, fn, /, *args, **kwargs):
        """``fn(*args, **kwargs)`` as one turn of ``lane``; its result or its exception."""
        return await self.run(lane, _one_turn(fn, args, kwargs))

    async def run(self, lane, gen, note=None, page=None):
        """Run the generator ``gen`` one turn (one ``next``) at a time on a work
        thread, in ``lane`` (:data:`WALK`, or a page's lane: any hashable key); its
        return value, or the exception it raised (:class:`JobAborted` for one that is
        not an ``Exception``; :class:`SchedulerClosed` once the scheduler is closed;
        :class:`Busy` for a walk beyond the walks in turns allowed). ``note``: a
        TurnNote to fill in (one is made when None); ``page``: the page a walk comes
        from (its walks in turns are counted; None: the lane)."""
        loop = asyncio.get_running_loop()
        note = TurnNote() if note is None else note
        note.queued = time.perf_counter()
        if note.arrival is None:
            note.arrival = note.queued
        note.lane = "walk" if lane == WALK else "session"
        job = _Job(gen, loop, loop.create_future(), note, lane,
                   lane if page is None else page)
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
            return len(self._lanes[WALK]), len(self._lanes[SESSION])

    def walks_in_turns(self):
        """How many walk jobs are in turns (counted against ``walks``)."""
        with self._lock:
            return sum(self._held.values())

    def close(self):
        """Take no more jobs; answer every job queued or in its turn with
        :class:`SchedulerClosed`. The work threads close the jobs' generators (after
        the turn in progress) and end: :meth:`join` waits for them."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            jobs = [job for lanes in self._lanes.values() for job in lanes.jobs()]
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
        """(lock held) Put ``job`` in its lane; start its work thread if none runs."""
        # a walk is a lane of its own, charged to its page's account
        self._lanes[job.kind].push(job.lane, job, job.page if job.kind == WALK else None)
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
        (the first job of the lane charged least), charged to its lane. It ends when the
        scheduler closes (closing the jobs left) or after ``idle_seconds`` with nothing
        to do."""
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
                done, cpu = self._turn(job, "walk")
            else:
                done, cpu = self._turn(job, "session", last_end)
                last_end = job.note.end
            with self._lock:
                self.turns += 1
                busy = None if done or kind != WALK else self._hold(job)
                self._after(job, done or busy is not None, cpu)
            if busy is not None:  # refused: nothing more of it runs
                _close(job)
                _answer(job, None, busy)

    def _next(self, kind):
        """(lock held) (the job whose turn is next or None, the jobs to close, "run",
        "idle" or "end")."""
        lanes = self._lanes[kind]
        dropped = [job for job in self._dropped[kind] if job.queued]
        self._dropped[kind] = []
        for job in dropped:
            self._unqueue(job)
        if self._closed:
            left = lanes.jobs()
            for job in left:
                self._unqueue(job)
            return None, dropped + left, "end"
        if dropped:
            return None, dropped, "run"
        if not lanes:
            woken = self._ready[kind].wait(self.idle_seconds)
            if not (woken or lanes or self._dropped[kind] or self._closed):
                self._workers[kind] = None  # the next job starts another thread
                return None, [], "end"
            return None, [], "idle"
        _, job = lanes.first()
        return job, [], "run"

    def _hold(self, job):
        """(lock held) A walk job not done after a turn holds its graph until its next:
        on its first turn, count it (None), or a :class:`Busy` refusal when ``walks``
        are in turns already, or ``walks_per_page`` from its page."""
        if job.held or job.note.turns != 1:
            return None
        total, mine = sum(self._held.values()), self._held.get(job.page, 0)
        if total >= self.walks or mine >= self.walks_per_page:
            whose = (f"all {self.walks} allowed at once" if total >= self.walks else
                     f"{mine} from this page, the most one page may have")
            return Busy(f"the server is busy with walks of big graphs: {total} are in "
                        f"progress ({whose}); ask again in {WALKS_RETRY} s")
        self._held[job.page] = mine + 1
        job.held = True
        return None

    def _release(self, job):
        """(lock held) ``job`` leaves its lane: a walk counted in turns is no longer."""
        job.queued = False
        if job.held:
            job.held = False
            left = self._held.pop(job.page) - 1
            if left:
                self._held[job.page] = left

    def _unqueue(self, job):
        """(lock held) Take ``job`` out of its lane."""
        self._lanes[job.kind].remove(job.lane, job)
        self._release(job)

    def _after(self, job, done, cpu):
        """(lock held) After a turn of ``job`` (the first of its lane): the lane is
        charged the turn's ``cpu`` seconds, and the job leaves it when ``done``."""
        self._lanes[job.kind].charge(job.lane, job, cpu, done)
        if done:
            self._release(job)

    def _turn(self, job, kind, waited_since=None):
        """One turn of ``job`` on this thread, in the job's own context: (whether the
        job is done, the turn's CPU seconds on this thread). A job done has its answer
        or error handed to its request."""
        note = job.note
        start, cpu = time.perf_counter(), time.thread_time()
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
        end, cpu = time.perf_counter(), time.thread_time() - cpu
        note.end, note.turns = end, note.turns + 1
        note.longest = max(note.longest, end - start)
        if self.log is not None:
            self.log.turn(kind, start, end, waited_since)
            if done:
                self.log.job(note)
        if done:
            _answer(job, result, error)
        return done, cpu


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
