"""How long requests wait for their turns, measured by the server itself (``--timing``).

``micrograd serve --timing`` (``create_app(timing=True)``) turns on two reports, both off
by default:

* every answer of a job carries a ``Server-Timing`` header (the standard one a browser's
  developer tools show): ``wait`` (ms from the request's arrival to its first turn: when
  the event loop read its last byte, ``web/server/connection.py``), ``queue`` (the part
  of it from the job's queueing, once the route had read and checked the body), ``run``
  (its first turn's start to its last's end), ``longest`` (its longest turn) and
  ``turns`` (how many);
* ``GET /api/debug/turns`` (``DELETE`` answers the same and starts afresh: a GET
  changes nothing, and a write from another site is refused): per route, the jobs, their
  turns, the longest turn and the wait (median, p95, max); per work thread, the longest
  turn, and for training the longest *hold*: the longest time a session waited between
  two training turns while something else ran instead.

``benchmarks/serve_latency.py`` reads both.
"""

from __future__ import annotations

import threading
from collections import deque

from fastapi import APIRouter, HTTPException

__all__ = ["ARRIVAL", "NOTE", "TurnLog", "ServerTiming", "router"]

#: the keys, in an ASGI scope's ``state``, of the request's arrival time (perf_counter
#: seconds; set by the connection) and of its job's TurnNote (set by the route)
ARRIVAL = "micrograd.arrival"
NOTE = "micrograd.turn_note"


def _ms(seconds):
    return round(1e3 * seconds, 3)


def _pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else None


class TurnLog:
    """The finished jobs' notes (the last ``keep``) and the work threads' turns."""

    def __init__(self, keep=20000):
        self._lock = threading.Lock()
        self._keep = keep
        self.reset()

    def reset(self):
        with self._lock:
            self._jobs = deque(maxlen=self._keep)
            self._threads = {}  # kind -> [turns, longest turn, longest hold]

    def job(self, note):
        """A job finished (called on its work thread)."""
        with self._lock:
            self._jobs.append((note.route, note.wait, note.turns, note.longest))

    def turn(self, kind, start, end, waited_since=None):
        """A turn of the ``kind`` thread ran from ``start`` to ``end``; a job of that
        thread had been waiting since ``waited_since`` (the previous turn's end), or
        None."""
        with self._lock:
            row = self._threads.setdefault(kind, [0, 0.0, 0.0])
            row[0] += 1
            row[1] = max(row[1], end - start)
            if waited_since is not None:
                row[2] = max(row[2], start - waited_since)

    def summary(self):
        """Plain data: ``routes`` (per route: jobs, turns, longest turn and wait in ms)
        and ``threads`` (per work thread: turns, longest turn and hold in ms)."""
        with self._lock:
            jobs, threads = list(self._jobs), dict(self._threads)
        routes = {}
        for route, wait, turns, longest in jobs:
            r = routes.setdefault(route or "?", {"jobs": 0, "turns": 0, "waits": [],
                                                 "longest_turn_ms": 0.0})
            r["jobs"] += 1
            r["turns"] += turns
            r["longest_turn_ms"] = max(r["longest_turn_ms"], _ms(longest))
            if wait is not None:
                r["waits"].append(wait)
        for r in routes.values():
            waits = r.pop("waits")
            r["wait_ms"] = {"p50": _ms(_pct(waits, 0.5)), "p95": _ms(_pct(waits, 0.95)),
                            "max": _ms(max(waits))} if waits else None
        return {"routes": routes,
                "threads": {k: {"turns": n, "longest_turn_ms": _ms(t),
                                "longest_hold_ms": _ms(h)}
                            for k, (n, t, h) in threads.items()}}


class ServerTiming:
    """ASGI middleware: the ``Server-Timing`` header on every answer of a job."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def timed_send(message):
            note = scope.get("state", {}).get(NOTE)
            if message["type"] == "http.response.start" and note is not None \
                    and note.start is not None:
                value = (f"wait;dur={_ms(note.wait)}, queue;dur={_ms(note.start - note.queued)}, "
                         f"run;dur={_ms(note.end - note.start)}, "
                         f"longest;dur={_ms(note.longest)}, turns;desc=\"{note.turns}\"")
                message = {**message, "headers": [*message.get("headers", ()),
                                                  (b"server-timing", value.encode())]}
            await send(message)

        await self.app(scope, receive, timed_send)


def router(log):
    """``GET /api/debug/turns``: ``log``'s summary; ``DELETE``: the summary, then the log
    starts afresh."""
    debug = APIRouter(include_in_schema=False)

    @debug.get("/api/debug/turns")
    def turns(reset: str | None = None):
        if reset is not None:  # the old way to start afresh: a GET now changes nothing
            raise HTTPException(400, "a GET changes nothing: DELETE /api/debug/turns "
                                     "answers the summary and starts the log afresh")
        return log.summary()

    @debug.delete("/api/debug/turns")
    def turns_reset():
        out = log.summary()
        log.reset()
        return out

    return debug
