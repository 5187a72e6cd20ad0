"""A bounded, thread-safe store of server-side sessions (one per open playground tab).

Memory stays bounded however many tabs are opened: at most ``max_sessions`` live at once
(creating one more evicts the least recently used), and a session unused for
``idle_seconds`` is dropped at the next create/get. Every session is itself bounded by the
caps in ``micrograd.web.limits`` (data size, network size, history length).
A client whose session was evicted gets a 404 with a message and simply creates a new one
(the page does this by itself, rebuilding the set-up from its URL).
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict


class SessionStore:
    """``create(obj) -> id``, ``get(id) -> obj`` (KeyError when unknown or expired)."""

    def __init__(self, max_sessions=32, idle_seconds=900.0, clock=time.monotonic):
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be at least 1, got {max_sessions}")
        self.max_sessions = max_sessions
        self.idle_seconds = float(idle_seconds)
        self._clock = clock
        self._items = OrderedDict()  # id -> [obj, last_used], least recently used first
        self._lock = threading.Lock()
        self.evicted = 0  # how many sessions were dropped (idle or over the cap)

    def _expire(self, now):
        while self._items:
            sid, (_, last) = next(iter(self._items.items()))
            if now - last < self.idle_seconds:
                break
            del self._items[sid]
            self.evicted += 1

    def create(self, obj):
        with self._lock:
            now = self._clock()
            self._expire(now)
            while len(self._items) >= self.max_sessions:
                self._items.popitem(last=False)
                self.evicted += 1
            sid = secrets.token_urlsafe(12)
            self._items[sid] = [obj, now]
            return sid

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
