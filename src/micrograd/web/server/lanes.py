"""Lanes of jobs that share a work thread by CPU time, not by turns.

A *lane* is a line of jobs run in the order they came (one page's requests, or one
walk); the lanes of a work thread share it. After each turn, its lane is *charged* the
turn's CPU time (the work thread's ``time.thread_time()`` around the turn: time spent
waiting for the processor or for Python's lock is not the lane's), at least
``min_charge`` (a turn, however short, costs its hand-over). The next turn goes to the
waiting lane charged least; among lanes charged alike, to the one that has waited
longest, so lanes whose turns cost alike take turns in rotation. A lane whose turns
are long (a CSV file read, a large network's step) gets fewer of them than a lane whose
turns are short (a small network's step), and as much of the processor.

The charges are measured against a clock (a virtual time) so that leaving the line
neither wipes a debt nor banks a credit. A lane that joins the line (a new one, or one
back after being idle) starts at the clock, or at its account's charge if that is
ahead of the clock (an account: the lane itself, or what several lanes are charged to,
such as a page's walks, each a lane of its own; remembered for the last
``remembered`` accounts that left ahead of the clock). The
clock is the least charge of the lanes waiting, and it also moves on after each turn
by the turn's charge divided by the number of lanes waiting: the share of that time
each waiting lane was due. Without that, lanes made new for each request (a client
that opens a connection per request) would all start at the clock and never move it,
and a lane with any charge would wait behind them for ever.

    >>> lanes = Lanes()
    >>> lanes.push("page A", "a job")
    >>> lane, job = lanes.first()
    >>> lanes.charge(lane, job, seconds=0.004, done=True)
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, deque

#: the least a turn is charged (seconds): turns shorter than this count alike
MIN_CHARGE = 0.001
#: how many lanes that left the line ahead of the clock keep their charge
REMEMBERED = 1024

__all__ = ["Lanes", "MIN_CHARGE", "REMEMBERED"]


class _Line:
    __slots__ = ("charged", "since", "account", "jobs")

    def __init__(self, charged, since, account):
        self.charged, self.since, self.account = charged, since, account
        self.jobs = deque()


class Lanes:
    """Jobs in lanes (any hashable key); :meth:`first` names the next turn's lane and
    job, :meth:`charge` records the turn. Not thread-safe: the scheduler holds its lock
    around every call."""

    def __init__(self, min_charge=MIN_CHARGE, remembered=REMEMBERED):
        self.min_charge = min_charge
        self.remembered = remembered
        self.clock = 0.0
        self._lines = {}               # lane -> _Line, the lanes waiting
        self._left = OrderedDict()     # account -> its charge, when it left ahead of the clock
        self._order = itertools.count()

    def __len__(self):
        """The jobs waiting (or in their turn) in every lane."""
        return sum(len(line.jobs) for line in self._lines.values())

    def __bool__(self):
        return bool(self._lines)

    def jobs(self):
        """Every job waiting, lane by lane."""
        return [job for line in self._lines.values() for job in line.jobs]

    def charged(self, lane):
        """A lane's charge (seconds of CPU, on the clock's scale); None when it is not
        waiting."""
        line = self._lines.get(lane)
        return None if line is None else line.charged

    def push(self, lane, job, account=None):
        """Put ``job`` at the end of ``lane``; a lane new to the line starts at the
        clock, or at its ``account``'s remembered charge (the lane's own when None)
        when that is ahead."""
        line = self._lines.get(lane)
        if line is None:
            account = lane if account is None else account
            start = max(self._left.pop(account, self.clock), self.clock)
            line = self._lines[lane] = _Line(start, next(self._order), account)
        line.jobs.append(job)

    def first(self):
        """``(lane, job)`` of the next turn: the first job of the lane charged least
        (the longest waiting among equals); None when no job waits."""
        if not self._lines:
            return None
        lane, line = min(self._lines.items(), key=lambda item: (item[1].charged,
                                                                item[1].since))
        self.clock = max(self.clock, line.charged)
        return lane, line.jobs[0]

    def charge(self, lane, job, seconds, done):
        """After a turn of ``job`` (the first of ``lane``): charge the lane the turn's
        CPU ``seconds`` (at least ``min_charge``), move the clock on by the share of it
        each waiting lane was due, and drop the job when it is ``done``."""
        line = self._lines[lane]
        cost = max(seconds, self.min_charge)
        self.clock += cost / len(self._lines)
        line.charged += cost
        line.since = next(self._order)  # behind the lanes charged alike
        if done:
            self.remove(lane, job)

    def remove(self, lane, job):
        """Take ``job`` out of ``lane`` (done, cancelled, closed); a lane left empty
        leaves the line, its charge remembered for its account when it is ahead of the
        clock."""
        line = self._lines[lane]
        line.jobs.remove(job)
        if line.jobs:
            return
        del self._lines[lane]
        if line.charged > self.clock:
            left = self._left.pop(line.account, line.charged)
            self._left[line.account] = max(left, line.charged)
            self._forget()

    def _forget(self):
        """Keep at most ``remembered`` charges: those the clock has passed first, then
        the oldest."""
        if len(self._left) <= self.remembered:
            return
        for lane in [k for k, charged in self._left.items() if charged <= self.clock]:
            del self._left[lane]
        while len(self._left) > self.remembered:
            self._left.popitem(last=False)
