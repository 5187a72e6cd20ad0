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
                 clock=time.monotonic):
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
        self.max_sessions = max_sessions
        self.idle_seconds = float(idle_seconds)
        self.evict_after = float(evict_after)
        self._clock = clock
        self._items = OrderedDict()  # id -> [obj, last_used], least recently used first
        self._lock = threading.Lock()
        self.evicted = 0  # how many sessions were dropped (idle or over the cap)
        self.refused = 0  # how many creations found every place busy

    def _expire(self, now):
        while self._items:
            sid, (_, last) = next(iter(self._items.items()))
            if now - last < self.idle_seconds:
                break
            del self._items[sid]
            self.evicted += 1

    def _full(self, now):
        """None when a session fits (after dropping the LRU one if it rests), else the
        seconds until the LRU session may be evicted."""
        self._expire(now)
        if len(self._items) < self.max_sessions:
            return None
        _, last = next(iter(self._items.values()))
        if now - last >= self.evict_after:
            self._items.popitem(last=False)
            self.evicted += 1
            return None
        return self.evict_after - (now - last)

    def room(self):
        """Raise StoreFull now if a create would be refused (before building anything)."""
        with self._lock:
            now = self._clock()
            self._expire(now)
            if len(self._items) >= self.max_sessions:
                _, last = next(iter(self._items.values()))
                if now - last < self.evict_after:
                    self.refused += 1
                    raise StoreFull(self._message(self.evict_after - (now - last)))

    def create(self, obj):
        with self._lock:
            now = self._clock()
            wait = self._full(now)
            if wait is not None:
                self.refused += 1
                raise StoreFull(self._message(wait))
            sid = secrets.token_urlsafe(12)
            self._items[sid] = [obj, now]
            return sid

    def _message(self, wait):
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
            return self._items.pop(sid, None) is not None

    def __len__(self):
        with self._lock:
            return len(self._items)
