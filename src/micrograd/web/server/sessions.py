"""A bounded, thread-safe store of server-side sessions (one per open playground tab).

Memory stays bounded however many tabs are opened: at most ``max_sessions`` live at once,
and a session unused for ``idle_seconds`` is dropped at the next create/get. Every session
is itself bounded by the caps in ``micrograd.web.limits`` (data size, network size,
history length).

When the store is full, a new session takes the place of the least recently used one
only if that one has rested for ``evict_after`` seconds; otherwise the new one is refused
(``StoreFull``, a 503 with a message). So the tabs in use keep training: evicting a busy
tab would reset its training, and with more busy tabs than places each eviction would
evict another in turn, for ever. A tab whose session was evicted gets a 404 and creates
a new one (the page does this by itself, rebuilding the set-up from its URL).

A session may be of a *kind* with a cap of its own (``caps``: ``{"gpt": 3}``, the GPT
tab's sessions, whose steps each build a large graph): ``create(obj, kind)`` counts the
sessions of that kind, and a full kind gives the place of its least recently used
session in the same way (resting ``evict_after`` seconds), else refuses with StoreFull.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict

from ..handlers.errors import StoreFull

__all__ = ["SessionStore", "StoreFull"]


class SessionStore:
    """``create(obj) -> id``, ``get(id) -> obj`` (KeyError when unknown or expired)."""

    def __init__(self, max_sessions=32, idle_seconds=900.0, evict_after=60.0,
                 clock=time.monotonic, caps=None):
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
        self.max_sessions = max_sessions
        self.idle_seconds = float(idle_seconds)
        self.evict_after = float(evict_after)
        self._clock = clock
        self._items = OrderedDict()  # id -> [obj, last_used], least recently used first
        self.caps = dict(caps or {})  # a kind -> the most sessions of that kind
        self._kinds = {}  # id -> its kind, for the sessions of a kind with a cap
        self._lock = threading.Lock()
        self.evicted = 0  # how many sessions were dropped (idle or over the cap)
        self.refused = 0  # how many creations found every place busy

    def _expire(self, now):
        while self._items:
            sid, (_, last) = next(iter(self._items.items()))
            if now - last < self.idle_seconds:
                break
            self._drop(sid)
            self.evicted += 1

    def _drop(self, sid):
        self._kinds.pop(sid, None)
        return self._items.pop(sid, None)

    def _oldest(self, kind):
        """The least recently used session's id (of ``kind``, when given)."""
        if kind is None:
            return next(iter(self._items))
        return next(sid for sid in self._items if self._kinds.get(sid) == kind)

    def _crowded(self, kind):
        """The kind whose places are all taken (``kind``, or None for the store's), or
        False when a session of ``kind`` fits."""
        if kind in self.caps and sum(k == kind for k in self._kinds.values()) \
                >= self.caps[kind]:
            return kind
        return None if len(self._items) >= self.max_sessions else False

    def _full(self, now, kind=None, evict=True):
        """None when a session of ``kind`` fits (after dropping the LRU one of the full
        kind, or of the store, if it rests and ``evict``), else ``(seconds until it may
        be evicted, the full kind)``."""
        self._expire(now)
        for _ in range(2):  # the kind's own places, then the store's
            full = self._crowded(kind)
            if full is False:
                return None
            sid = self._oldest(full)
            last = self._items[sid][1]
            if now - last < self.evict_after:
                return self.evict_after - (now - last), full
            if not evict:
                return None
            self._drop(sid)
            self.evicted += 1
        return None if self._crowded(kind) is False else (self.evict_after, kind)

    def room(self, kind=None):
        """Raise StoreFull now if a create would be refused (before building anything)."""
        with self._lock:
            full = self._full(self._clock(), kind, evict=False)
            if full is not None:
                self.refused += 1
                raise StoreFull(self._message(*full))

    def create(self, obj, kind=None):
        with self._lock:
            now = self._clock()
            full = self._full(now, kind)
            if full is not None:
                self.refused += 1
                raise StoreFull(self._message(*full))
            sid = secrets.token_urlsafe(12)
            self._items[sid] = [obj, now]
            if kind in self.caps:
                self._kinds[sid] = kind
            return sid

    def _message(self, wait, kind=None):
        if kind is not None:
            return (f"the server is busy: all {self.caps[kind]} {kind.upper()} sessions "
                    f"were used in the last {self.evict_after:g} s; try again in "
                    f"{wait:.0f} s, or close another {kind.upper()} tab")
        return (f"the server is busy: all {self.max_sessions} playground sessions were "
                f"used in the last {self.evict_after:g} s; try again in {wait:.0f} s, "
                "or close another playground tab")

    def get(self, sid):
        with self._lock:
            now = self._clock()
            self._expire(now)
            entry = self._items.get(sid)
            if entry is None:
                raise KeyError(sid)
            entry[1] = now
            self._items.move_to_end(sid)
            return entry[0]

    def delete(self, sid):
        with self._lock:
            return self._drop(sid) is not None

    def __len__(self):
        with self._lock:
            return len(self._items)
