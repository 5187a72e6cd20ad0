"""The Walk's and the Playground's requests, answered without any transport.

One entry point for any driver (the HTTP server, a browser worker, a test)::

    job = dispatch(route, request, sessions)      # a generator: one turn per next()
    outcome = run_to_end(job)                     # or drive it turn by turn yourself

``route`` is a name from :data:`ROUTES` (``"walk"``, ``"mistakes.run"``, ``"play.step"``...),
``request`` a dict of plain data (JSON's kinds: a session's id goes in as ``"sid"``),
``sessions`` the store of sessions, the Playground's and the GPT tab's
(:class:`LocalSessions` for a single user; the server passes its bounded, thread-safe
``SessionStore``). The job yields None at every turn
boundary (one optimizer step, one state to draw) and returns plain data::

    {"ok": True, "answer": {...}}      # the answer: what the HTTP route sends as JSON
    {"ok": False, "error": {"kind": "lost", "message": "...", "field": "sid"}}

Errors are data (``micrograd.web.handlers.errors``: ``invalid``, ``refused``,
``not_found``, ``lost``, ``busy``), never exceptions; an exception out of a job is a
bug. The driver decides what runs between turns: ``micrograd serve`` hands them to the
other tabs (``web/server/schedule.py``), a page's worker to its messages.

    >>> sessions = LocalSessions()
    >>> out = run_to_end(dispatch("walk", {"preset": "lecture"}, sessions))
    >>> {n["name"]: n["grad"] for n in out["answer"]["graph"]["nodes"] if n["leaf"]}
    {'a': 6.0, 'b': -4.0, 'c': -2.0, 'f': 4.0}
    >>> run_to_end(dispatch("play.get", {"sid": "gone"}, sessions))["error"]["kind"]
    'lost'

The handlers use only the standard library and micrograd (no web framework, no
validation library, no threads, no NumPy import of their own; a Playground session
trains through ``micrograd.trace`` when NumPy is there and on the eager engine when it
is not), so the same jobs run in a Python without them, such as the browser's.
"""

from __future__ import annotations

import inspect
import secrets
from collections import OrderedDict

from .. import limits
from ..walkview import run_to_end  # a job's turns all at once: its outcome
from . import gpt, meta, mistakes, play, walk
from .errors import Failure, StoreFull

__all__ = ["ROUTES", "dispatch", "run_to_end", "LocalSessions", "Failure", "StoreFull"]

#: route name -> handler(request, sessions): a plain function (one turn) or a generator
#: function (a turn per yield)
ROUTES = {
    "meta": meta.meta,
    "walk": walk.walk,
    "walk.order": walk.order,
    "walk.nudge": walk.nudge,
    "walk.check": walk.check,
    "mistakes.list": mistakes.entries,
    "mistakes.run": mistakes.run,
    "play.change": play.change,
    "play.create": play.create,
    "play.get": play.get,
    "play.step": play.step,
    "play.lr": play.set_lr,
    "play.reset": play.reset,
    "play.weight": play.set_weight,
    "play.inspect": play.inspect,
    "play.inspect.stop": play.inspect_stop,
    "play.delete": play.delete,
    "play.csv.read": play.csv_read,
    "play.csv.write": play.csv_write,
    "gpt.create": gpt.create,
    "gpt.step": gpt.step,
    "gpt.sample": gpt.sample,
    "gpt.attention": gpt.attention,
    "gpt.walk": gpt.walk,
    "gpt.walk.block": gpt.walk_block,
    "gpt.delete": gpt.delete,
}


def dispatch(route, request, sessions):
    """The job that answers ``request`` on ``route``: a generator that yields None at
    each turn boundary and returns ``{"ok": True, "answer": ...}`` or ``{"ok": False,
    "error": {...}}``. Nothing runs until the first ``next``."""
    handler = ROUTES.get(route)
    if handler is None:
        return _answer(_unknown_route, route, sessions)
    return _answer(handler, request, sessions)


def _unknown_route(route, sessions):
    raise Failure("not_found", f"no such route {route!r}; routes: {', '.join(ROUTES)}")


def _answer(handler, request, sessions):
    try:
        result = handler(request, sessions)
        if inspect.isgenerator(result):
            result = yield from result
    except Failure as failure:
        return {"ok": False, "error": failure.data()}
    return {"ok": True, "answer": result}


class LocalSessions:
    """The sessions of one user (a page's worker, a notebook, a test): at most
    ``max_sessions``, the least recently used dropped to make room, and at most
    ``caps[kind]`` of a kind (the GPT tab's: ``"gpt"``), its least recently used dropped
    in the same way. The server uses its own store instead (``web/server/sessions.py``:
    shared by many tabs, thread-safe, a busy tab never evicted)."""

    #: a session may give its place at once (one user: the oldest is the one left)
    evict_after = 0.0

    def __init__(self, max_sessions=limits.MAX_SESSIONS, caps=None):
        self.max_sessions = max_sessions
        self.caps = {"gpt": limits.MAX_GPT_SESSIONS} if caps is None else dict(caps)
        self._items = OrderedDict()
        self._kinds = {}

    def room(self, kind=None):
        """There is always room: the least recently used session gives its place."""

    def create(self, session, kind=None):
        while kind in self.caps and sum(k == kind for k in self._kinds.values()) \
                >= self.caps[kind]:
            self.delete(next(sid for sid in self._items if self._kinds.get(sid) == kind))
        while len(self._items) >= self.max_sessions:
            self.delete(next(iter(self._items)))
        sid = secrets.token_urlsafe(12)
        self._items[sid] = session
        if kind in self.caps:
            self._kinds[sid] = kind
        return sid

    def get(self, sid):
        session = self._items[sid]  # KeyError: no such session
        self._items.move_to_end(sid)
        return session

    def delete(self, sid):
        self._kinds.pop(sid, None)
        return self._items.pop(sid, None) is not None

    def __len__(self):
        return len(self._items)
