"""The availability profile of one partition: which machines (and how much
I/O bandwidth) are expected to be free at every future time.

This is the data structure of Batsim's reference scheduler, batsched
(``src/schedule.cpp``, class ``Schedule``), rewritten: time from ``now`` on
is cut into *slices* ``[t_k, t_{k+1})`` (the last one unbounded); slice
``k`` has a set ``F_k`` of free machines (a Python ``int`` used as a bit
set: bit ``m`` is machine ``m``) and, when the profile tracks bandwidth, a
free bandwidth ``B_k``. Running jobs occupy their machines until their
*estimated* end ``S_i + e_i``; reservations occupy theirs over
``[s_i, s_i + e_i)``. Adjacent slices with equal contents are merged, so the
profile is a function of time only (batsched merges slices that hold the
same jobs; the two forms give the same answers, see :meth:`first_fit`).

First fit (batsched ``Schedule::add_job_first_fit``): the earliest slice
start ``t_a`` (``now`` or a later boundary) such that

.. math:: \\Big|\\bigcap_{k:\\,[t_k,t_{k+1}) \\cap [t_a, t_a+e_i) \\ne
          \\emptyset} F_k\\Big| \\ge Q_i
          \\quad\\text{and}\\quad
          \\min_k B_k \\ge \\beta_i ,

and the job takes the ``Q_i`` lowest-numbered machines of that
intersection (batsched's ``BasicResourceSelector``: ``available.left(Q)``):
the lowest-numbered machines that stay free for the job's whole requested
time.

A running job still running at its estimated end (possible only when jobs
are not killed at their wall time) is expected to end *any moment now*: its
machines are free in the profile from ``now`` on, but busy *at* ``now``
(``busy_now``); a job fits now only on machines that are also not busy now.
This is what batsched's zero-length first slice ``[now, now)`` does for a
job whose estimated end is exactly ``now``.
"""

from __future__ import annotations

import math
from bisect import bisect_right

__all__ = ["BW_TOL", "Profile", "lowest_machines", "mask_of"]

BW_TOL = 1e-9
"""Relative tolerance of bandwidth comparisons (sums of floats)."""


def lowest_machines(mask: int, count: int) -> tuple[int, tuple[int, ...]]:
    """The ``count`` lowest set bits of ``mask``: ``(their mask, their
    numbers in increasing order)``. ``mask`` must hold at least ``count``."""
    taken = 0
    numbers = []
    for _ in range(count):
        low = mask & -mask
        numbers.append(low.bit_length() - 1)
        taken |= low
        mask ^= low
    return taken, tuple(numbers)


def mask_of(machines: tuple[int, ...]) -> int:
    """The bit set of ``machines``."""
    mask = 0
    for m in machines:
        mask |= 1 << m
    return mask


class Profile:
    """Expected free machines (and bandwidth) of one partition over time.

    Parameters
    ----------
    size
        ``P_k``, the machines (numbered ``0..P_k-1``).
    now
        The start of the profile.
    bandwidth
        The capacity of the tracked bandwidth, or ``None`` (not tracked:
        every demand fits).
    """

    __slots__ = ("busy_bw", "busy_now", "bw", "capacity", "free", "size", "times",
                 "tol")

    def __init__(self, size: int, now: float = 0.0,
                 bandwidth: float | None = None) -> None:
        self.size = size
        self.times = [now]
        self.free = [(1 << size) - 1]
        self.capacity = bandwidth
        self.bw = None if bandwidth is None else [bandwidth]
        self.tol = 0.0 if bandwidth is None else BW_TOL * max(bandwidth, 1.0)
        self.busy_now = 0
        self.busy_bw = 0.0

    # -- time -----------------------------------------------------------------------
    def advance(self, now: float, busy_now: int = 0, busy_bw: float = 0.0) -> None:
        """Make ``now`` the start of the profile (batsched
        ``update_first_slice``): slices that ended by ``now`` are dropped.
        ``busy_now``/``busy_bw``: the machines and bandwidth of running jobs
        past their estimated end (busy now, expected free from now on)."""
        times = self.times
        if len(times) > 1 and times[1] <= now:
            cut = bisect_right(times, now) - 1
            del times[:cut]
            del self.free[:cut]
            if self.bw is not None:
                del self.bw[:cut]
        if now > times[0]:
            times[0] = now
        self.busy_now = busy_now
        self.busy_bw = busy_bw

    @property
    def now(self) -> float:
        return self.times[0]

    def free_now(self) -> int:
        """The machines free now (first slice, less ``busy_now``)."""
        return self.free[0] & ~self.busy_now

    # -- queries --------------------------------------------------------------------
    def fit_now(self, nodes: int, length: float, demand: float = 0.0) -> int | None:
        """The machines a job would take if it started now (the lowest-
        numbered ``nodes`` machines free over ``[now, now + length)`` and
        now), or ``None`` if it does not fit now. Same as
        ``first_fit(...)[2]`` when that starts now, only faster."""
        free, times = self.free, self.times
        mask = free[0] & ~self.busy_now
        if mask.bit_count() < nodes:
            return None
        end = times[0] + length
        last = len(times)
        k = 1
        while k < last and times[k] < end:
            mask &= free[k]
            if mask.bit_count() < nodes:
                return None
            k += 1
        if self.bw is not None and demand > 0.0:
            tol = self.tol
            if self.bw[0] - self.busy_bw + tol < demand:
                return None
            if min(self.bw[:k]) + tol < demand:
                return None
        return mask if mask.bit_count() == nodes else lowest_machines(mask, nodes)[0]

    def first_fit(self, nodes: int, length: float, demand: float = 0.0
                  ) -> tuple[int, float, int, bool] | None:
        """Where a job of ``nodes`` machines, estimated ``length`` and
        bandwidth ``demand`` fits first: ``(slice index, start, machines
        mask, starts now)``, or ``None`` if it never fits.

        Anchors are slice starts; an anchor whose own slice lacks room is
        skipped, and the scan of an anchor stops at the first slice where
        the intersection drops below ``nodes`` (batsched's two loops). A
        redundant boundary between equal slices never changes the answer:
        if a job fits at the later of two equal slices it fits at the
        earlier one over a window whose free machines are a superset.
        """
        free, times = self.free, self.times
        bw = self.bw
        track = bw is not None and demand > 0.0
        tol = self.tol
        last = len(times)
        for a in range(last):
            mask = free[a]
            if mask.bit_count() < nodes:
                continue
            if track and bw[a] + tol < demand:
                continue
            end = times[a] + length
            k = a + 1
            ok = True
            while k < last and times[k] < end:
                mask &= free[k]
                if mask.bit_count() < nodes or (track and bw[k] + tol < demand):
                    ok = False
                    break
                k += 1
            if not ok:
                continue
            if a == 0:
                now_mask = mask & ~self.busy_now
                if (now_mask.bit_count() >= nodes
                        and (not track or bw[0] - self.busy_bw + tol >= demand)):
                    return 0, times[0], lowest_machines(now_mask, nodes)[0], True
                return 0, times[0], lowest_machines(mask, nodes)[0], False
            return a, times[a], lowest_machines(mask, nodes)[0], False
        return None

    # -- updates --------------------------------------------------------------------
    def _split(self, t: float) -> int:
        """Index of the slice starting at ``t`` (``t > now``, finite),
        splitting the slice containing it if needed."""
        times = self.times
        k = bisect_right(times, t) - 1
        if times[k] == t:
            return k
        times.insert(k + 1, t)
        self.free.insert(k + 1, self.free[k])
        if self.bw is not None:
            self.bw.insert(k + 1, self.bw[k])
        return k + 1

    def add(self, start: float, end: float, mask: int, demand: float = 0.0) -> None:
        """Occupy ``mask`` (and ``demand``) over ``[start, end)``, ``start``
        a slice start (as returned by :meth:`first_fit`) or ``now``."""
        times = self.times
        if end <= start or end <= times[0]:
            return
        lo = 0 if start <= times[0] else self._split(start)
        hi = self._split(end) if end < math.inf else len(times)
        free = self.free
        keep = ~mask
        for k in range(lo, hi):
            free[k] &= keep
        if self.bw is not None and demand:
            bw = self.bw
            for k in range(lo, hi):
                bw[k] -= demand
        self._merge(lo, hi)

    def remove(self, start: float, end: float, mask: int, demand: float = 0.0) -> None:
        """Free ``mask`` (and ``demand``) over ``[start, end)`` again (a
        running job that ended, or a reservation that is dropped)."""
        times = self.times
        if end <= times[0] or end <= start:
            return
        # merged slices may hide the allocation's bounds: split there first
        lo = 0 if start <= times[0] else self._split(start)
        hi = self._split(end) if end < math.inf else len(times)
        free = self.free
        for k in range(lo, hi):
            free[k] |= mask
        if self.bw is not None and demand:
            bw = self.bw
            for k in range(lo, hi):
                bw[k] += demand
        self._merge(lo, hi)

    def _merge(self, lo: int, hi: int) -> None:
        """Merge equal neighbours among slices ``lo-1 .. hi``."""
        times, free, bw = self.times, self.free, self.bw
        k = min(hi, len(times) - 1)
        stop = max(lo, 1)
        while k >= stop:
            if free[k] == free[k - 1] and (bw is None or bw[k] == bw[k - 1]):
                del times[k]
                del free[k]
                if bw is not None:
                    del bw[k]
            k -= 1

    def __repr__(self) -> str:
        parts = []
        for k, t in enumerate(self.times):
            bw = "" if self.bw is None else f" bw={self.bw[k]:g}"
            parts.append(f"[{t:g}: {self.free[k]:b}{bw}]")
        return "Profile(" + " ".join(parts) + ")"
