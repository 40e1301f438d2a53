"""The availability profile of a partition (compiled, numba ``cache=True``):
which machines, and how much I/O bandwidth, are expected to be free at
every future time.

This is the data structure of Batsim's reference scheduler, batsched
(``src/schedule.cpp``, class ``Schedule``), rewritten on arrays. Time from
``now`` on is cut into *slices* ``[t_i, t_{i+1})`` (the last one
unbounded). For the profile ``k`` (one per partition): ``times[k, i] =
t_i``; ``free[k, i]`` is the set ``F_i`` of machines free in slice ``i``, a
bit set of ``W`` 64-bit words (bit ``m % 64`` of word ``m // 64`` is machine
``m``); ``bw[k, i]`` is the free bandwidth ``B_i`` when the profile tracks
bandwidth. ``nsl`` slices are in use; the caller provides the capacity (two
more slices per allocation added). Running jobs occupy their machines
until their *estimated* end ``S_j + e_j``; reservations occupy theirs over
``[s_j, s_j + e_j)``. Adjacent slices with equal contents are merged, so
the profile is a function of time (batsched merges slices holding the same
jobs; the answers are the same, see :func:`first_fit`).

First fit (batsched ``Schedule::add_job_first_fit``): the earliest slice
start ``t_a`` (``now`` or a later boundary) such that

.. math:: \\Big|\\bigcap_{i:\\,[t_i,t_{i+1}) \\cap [t_a, t_a+e_j) \\ne
          \\emptyset} F_i\\Big| \\ge Q_j
          \\quad\\text{and}\\quad
          \\min_i B_i \\ge \\beta_j ,

the job taking the ``Q_j`` lowest-numbered machines of that intersection
(batsched's ``BasicResourceSelector``: ``available.left(Q)``): the
lowest-numbered machines that stay free for the job's whole requested time.
An anchor whose own slice lacks room is skipped, and the scan of an anchor
stops at the first slice where the intersection drops below ``Q_j``
(batsched's two loops). A redundant boundary between equal slices never
changes the answer: if a job fits at the later of two equal slices it fits
at the earlier one, over a window whose free machines are a superset.

A running job still running at its estimated end (possible only when jobs
are not killed at their wall time) is expected to end *any moment now*: its
machines are free in the profile from ``now`` on but busy *at* ``now``
(``busy[k]``, ``busy_bw``); a job starts now only on machines also not busy
now. This is what batsched's zero-length first slice ``[now, now)`` does
for a job whose estimated end is exactly ``now``.

Times are floats. batsched computes its schedule in exact rationals
(``src/exact_numbers.hpp``: GMP ``mpq_rational``), so it compares a window
end ``t_a + e_j`` with the slice bounds exactly, where the sum is rounded
here; two ends closer than one ulp may compare equal here and not there
(none does in the Batsim reference data). Batsim's own clock is a double.

Every function takes whole arrays and indices, never array views: a view
costs two atomic reference-count updates in compiled code, which dominated
the replay time when the functions took rows.
"""

from __future__ import annotations

import math

import numpy as np
from numba import config, njit

__all__ = ["BW_TOL", "add", "advance", "count_row", "first_fit", "fit_now",
           "lowest_row", "machines_of", "remove", "words_for"]

BW_TOL = 1e-9
"""Relative tolerance of bandwidth comparisons (sums of floats)."""

_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_ONE = np.uint64(1)
_S1 = np.uint64(1)
_S2 = np.uint64(2)
_S4 = np.uint64(4)
_S56 = np.uint64(56)


def words_for(machines: int) -> int:
    """``W``: 64-bit words per machine set."""
    return max(1, (machines + 63) // 64)


@njit(cache=True, inline="always")
def _popcount(x):
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    return np.int64((x * _H01) >> _S56)


if config.DISABLE_JIT:
    # The kernels run as Python (opt_sched.kernels): numpy would warn of the
    # multiply's intended wrap-around, so count the bits directly.
    def _popcount(x):
        return np.int64(int(x).bit_count())


@njit(cache=True, inline="always")
def count_row(rows, r):
    """``|rows[r]|``."""
    c = 0
    for w in range(rows.shape[1]):
        c += _popcount(rows[r, w])
    return c


@njit(cache=True, inline="always")
def _count_slice(free, k, i):
    c = 0
    for w in range(free.shape[2]):
        c += _popcount(free[k, i, w])
    return c


@njit(cache=True)
def lowest_row(rows, r, count, out, o):
    """``out[o]`` = the ``count`` lowest machines of ``rows[r]`` (which has
    as many)."""
    need = count
    for w in range(rows.shape[1]):
        x = rows[r, w]
        if need == 0:
            out[o, w] = 0
            continue
        c = _popcount(x)
        if c <= need:
            out[o, w] = x
            need -= c
        else:
            y = x
            for _ in range(need):
                y &= y - _ONE
            out[o, w] = x ^ y
            need = 0


@njit(cache=True)
def machines_of(rows, r, out, o):
    """Write the machine numbers of ``rows[r]`` into ``out[o:]``,
    increasing; return how many."""
    c = 0
    for w in range(rows.shape[1]):
        x = rows[r, w]
        b = 64 * w
        while x:
            if x & _ONE:
                out[o + c] = b
                c += 1
            x >>= _S1
            b += 1
    return c


@njit(cache=True)
def _same(free, bw, k, a, b, track):
    for w in range(free.shape[2]):
        if free[k, a, w] != free[k, b, w]:
            return False
    return not track or bw[k, a] == bw[k, b]


@njit(cache=True)
def _delete(times, free, bw, k, nsl, i):
    for r in range(i, nsl - 1):
        times[k, r] = times[k, r + 1]
        bw[k, r] = bw[k, r + 1]
        for w in range(free.shape[2]):
            free[k, r, w] = free[k, r + 1, w]
    return nsl - 1


@njit(cache=True)
def _split(times, free, bw, k, nsl, t):
    """Index of the slice starting at ``t`` (``t > times[k, 0]``, finite),
    splitting the slice containing it if needed; and the new ``nsl``."""
    lo, hi = 0, nsl
    while lo < hi:  # first slice starting after t
        mid = (lo + hi) // 2
        if times[k, mid] <= t:
            lo = mid + 1
        else:
            hi = mid
    i = lo - 1
    if times[k, i] == t:
        return i, nsl
    for r in range(nsl, i + 1, -1):
        times[k, r] = times[k, r - 1]
        bw[k, r] = bw[k, r - 1]
        for w in range(free.shape[2]):
            free[k, r, w] = free[k, r - 1, w]
    times[k, i + 1] = t
    bw[k, i + 1] = bw[k, i]
    for w in range(free.shape[2]):
        free[k, i + 1, w] = free[k, i, w]
    return i + 1, nsl + 1


@njit(cache=True)
def _merge(times, free, bw, k, nsl, lo, hi, track):
    """Merge equal neighbours among slices ``lo-1 .. hi``."""
    i = min(hi, nsl - 1)
    stop = max(lo, 1)
    while i >= stop:
        if _same(free, bw, k, i, i - 1, track):
            nsl = _delete(times, free, bw, k, nsl, i)
        i -= 1
    return nsl


@njit(cache=True)
def advance(times, free, bw, k, nsl, now):
    """Make ``now`` the start of profile ``k`` (batsched
    ``update_first_slice``): slices that ended by ``now`` are dropped.
    Returns the new ``nsl``."""
    if nsl > 1 and times[k, 1] <= now:
        cut = 1
        while cut + 1 < nsl and times[k, cut + 1] <= now:
            cut += 1
        for r in range(nsl - cut):
            times[k, r] = times[k, r + cut]
            bw[k, r] = bw[k, r + cut]
            for w in range(free.shape[2]):
                free[k, r, w] = free[k, r + cut, w]
        nsl -= cut
    if now > times[k, 0]:
        times[k, 0] = now
    return nsl


@njit(cache=True)
def _apply(times, free, bw, k, nsl, start, end, masks, s, demand, track, sign):
    if end <= start or end <= times[k, 0]:
        return nsl
    lo = 0
    if start > times[k, 0]:
        lo, nsl = _split(times, free, bw, k, nsl, start)
    hi = nsl
    if end < math.inf:
        hi, nsl = _split(times, free, bw, k, nsl, end)
    W = free.shape[2]
    for i in range(lo, hi):
        if sign > 0:
            for w in range(W):
                free[k, i, w] &= ~masks[s, w]
        else:
            for w in range(W):
                free[k, i, w] |= masks[s, w]
        if track:
            bw[k, i] -= sign * demand
    return _merge(times, free, bw, k, nsl, lo, hi, track)


@njit(cache=True)
def add(times, free, bw, k, nsl, start, end, masks, s, demand, track):
    """Occupy the machines ``masks[s]`` (and ``demand``) over ``[start,
    end)`` in profile ``k``; ``start`` is ``now`` or a slice start. Returns
    the new ``nsl``."""
    return _apply(times, free, bw, k, nsl, start, end, masks, s, demand, track, 1)


@njit(cache=True)
def remove(times, free, bw, k, nsl, start, end, masks, s, demand, track):
    """Free ``masks[s]`` (and ``demand``) over ``[start, end)`` again.
    Merged slices may hide the allocation's bounds: they are split there
    first. Returns the new ``nsl``."""
    return _apply(times, free, bw, k, nsl, start, end, masks, s, demand, track, -1)


@njit(cache=True)
def fit_now(times, free, bw, k, nsl, busy, busy_bw, nodes, length, demand, track,
            tol, scratch, out, o):
    """Whether a job fits now in profile ``k``: ``nodes`` machines free now
    and over ``[now, now + length)``, and its bandwidth; ``out[o]`` gets the
    lowest such machines (``scratch[0]`` is overwritten). Same as a
    :func:`first_fit` that starts now, faster."""
    W = free.shape[2]
    for w in range(W):
        scratch[0, w] = free[k, 0, w] & ~busy[k, w]
    if count_row(scratch, 0) < nodes:
        return False
    end = times[k, 0] + length
    i = 1
    while i < nsl and times[k, i] < end:
        for w in range(W):
            scratch[0, w] &= free[k, i, w]
        if count_row(scratch, 0) < nodes:
            return False
        i += 1
    if track and demand > 0.0:
        if bw[k, 0] - busy_bw + tol < demand:
            return False
        for r in range(i):
            if bw[k, r] + tol < demand:
                return False
    lowest_row(scratch, 0, nodes, out, o)
    return True


@njit(cache=True)
def first_fit(times, free, bw, k, nsl, busy, busy_bw, nodes, length, demand, track,
              tol, scratch, out, o):
    """Where a job of ``nodes`` machines, estimate ``length`` and bandwidth
    ``demand`` fits first in profile ``k``: ``(slice index, starts now)``
    with the machines in ``out[o]`` (``scratch[0]`` is overwritten); slice
    index ``-1`` if it never fits."""
    W = free.shape[2]
    check = track and demand > 0.0
    for a in range(nsl):
        if _count_slice(free, k, a) < nodes:
            continue
        if check and bw[k, a] + tol < demand:
            continue
        for w in range(W):
            scratch[0, w] = free[k, a, w]
        end = times[k, a] + length
        i = a + 1
        ok = True
        while i < nsl and times[k, i] < end:
            for w in range(W):
                scratch[0, w] &= free[k, i, w]
            if count_row(scratch, 0) < nodes or (check and bw[k, i] + tol < demand):
                ok = False
                break
            i += 1
        if not ok:
            continue
        if a == 0:
            for w in range(W):
                out[o, w] = scratch[0, w] & ~busy[k, w]
            if count_row(out, o) >= nodes and (
                    not check or bw[k, 0] - busy_bw + tol >= demand):
                for w in range(W):
                    scratch[0, w] = out[o, w]
                lowest_row(scratch, 0, nodes, out, o)
                return 0, True
        lowest_row(scratch, 0, nodes, out, o)
        return a, False
    return -1, False
