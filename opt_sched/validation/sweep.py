"""Sweep-line passes over half-open intervals ``[start, end)``, vectorised.

Two questions the rules ask of many intervals at once:

- :func:`overload_peaks` -- where does a weighted sum of intervals exceed a
  capacity (node capacity, named resources)?
- :func:`conflicts` -- within groups that must not overlap (the phases of one
  I/O node, the jobs that hold one machine), which interval starts before an
  earlier one of its group has ended?
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

__all__ = ["conflicts", "overload_peaks"]


def overload_peaks(starts: np.ndarray, ends: np.ndarray, amounts: np.ndarray,
                   capacity: float, tol: float, limit: int
                   ) -> tuple[int, list[float]]:
    """Sweep the intervals ``[starts, ends)`` weighted by ``amounts``.

    Returns the number of maximal episodes during which the load exceeds
    ``capacity + tol`` and, for the first ``limit`` ones, the time of each
    episode's peak load. At equal times ends are processed before starts, and
    the load is read after the last event of each time, so touching intervals
    never add up. Empty intervals and zero amounts are ignored (NaN times
    too).
    """
    keep = (ends > starts) & (amounts > 0)
    if not keep.any():
        return 0, []
    times = np.concatenate((starts[keep], ends[keep]))
    delta = np.concatenate((amounts[keep], -amounts[keep]))
    order = np.lexsort((delta, times))
    times, load = times[order], np.cumsum(delta[order])
    last_of_time = np.append(times[1:] != times[:-1], True)
    times, load = times[last_of_time], load[last_of_time]
    over = np.flatnonzero(load > capacity + tol)
    if not len(over):
        return 0, []
    cut = np.flatnonzero(np.diff(over) > 1)
    run_lo = np.concatenate(([over[0]], over[cut + 1]))
    run_hi = np.concatenate((over[cut], [over[-1]]))
    peaks = [float(times[lo + int(np.argmax(load[lo:hi + 1]))])
             for lo, hi in zip(run_lo[:limit], run_hi[:limit])]
    return len(run_lo), peaks


_FEW_GROUPS = 64
"""Below this many groups, a loop over groups beats the rank trick."""


def _conflicts_per_group(order: np.ndarray, bounds: np.ndarray, s: np.ndarray,
                         e: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`conflicts` on sorted arrays, one running maximum per group."""
    late, partner = [], []
    edges = np.concatenate(([0], bounds, [len(s)]))
    for lo, hi in pairwise(edges.tolist()):
        if hi - lo < 2:
            continue
        ends = e[lo:hi]
        reach = np.maximum.accumulate(ends)
        holder = np.maximum.accumulate(np.where(ends == reach, np.arange(hi - lo), 0))
        bad = np.flatnonzero(s[lo + 1:hi] < reach[:-1] - eps) + 1
        late.append(lo + bad)
        partner.append(lo + holder[bad - 1])
    if not late:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    return order[np.concatenate(late)], order[np.concatenate(partner)]


def conflicts(group: np.ndarray, starts: np.ndarray, ends: np.ndarray, eps: float
              ) -> tuple[np.ndarray, np.ndarray]:
    r"""Intervals that start inside an earlier interval of their group.

    Sort each group's intervals by start; interval ``m`` conflicts when
    :math:`s_{(m)} < \max_{l<m} e_{(l)} - \varepsilon`, and its partner is
    the earlier interval that reaches furthest (the latest such one on ties).
    One conflict per offending interval, so every interval that overlaps an
    earlier one is counted once.

    Returns ``(late, partner)``: indices into the input arrays.

    The running maximum restarts at each group without a Python loop: the
    ends are replaced by their rank ``r`` among all ends and the key
    ``group_number * N + r`` is accumulated; a group's keys exceed every key
    of the groups before it, so the running maximum within a group always
    comes from that group.
    """
    size = len(starts)
    if size < 2:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    order = np.lexsort((starts, group))
    g, s, e = group[order], starts[order], ends[order]
    bounds = np.flatnonzero(g[1:] != g[:-1]) + 1
    if len(bounds) < _FEW_GROUPS:
        return _conflicts_per_group(order, bounds, s, e, eps)
    by_end = np.argsort(e, kind="stable")
    rank = np.empty(size, dtype=np.int64)
    rank[by_end] = np.arange(size)
    number = np.concatenate(([0], np.cumsum(g[1:] != g[:-1])))
    running = np.maximum.accumulate(number * size + rank)
    m = np.flatnonzero(g[1:] == g[:-1]) + 1          # has an earlier one in group
    holder = by_end[running[m - 1] - number[m] * size]
    bad = s[m] < e[holder] - eps
    return order[m[bad]], order[holder[bad]]
