"""One-machine building blocks of the lower bounds: preemptive EDF
(``1 | r_j, pmtn | L_max``, Horn 1974) and Jackson's preemptive schedule
(``1 | r_j, pmtn | max (C_j + q_j)``, Jackson 1955).

They depend on nothing else of the package, so that :mod:`opt_sched.bounds`,
:mod:`opt_sched.rate_profile` and :mod:`opt_sched.bounds_flow` all import
them without an import cycle (:mod:`opt_sched.bounds` re-exports them).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from numba import njit

from .errors import OptionError

__all__ = [
    "REL_TOL",
    "Expired",
    "OutOfTimeError",
    "edf_feasible",
    "edf_max_lateness",
    "jackson_preemptive_makespan",
    "scale",
]

Expired = Callable[[], bool]
"""``expired()`` is true once the caller's time is up: the bounds computed so
far are returned (each is valid on its own) and the rest is skipped."""


class OutOfTimeError(Exception):
    """Raised inside a bound computation when ``expired()`` turns true."""


REL_TOL = 1e-9
"""Relative tolerance of the EDF feasibility test (times scaled by the horizon)."""



# -- one-machine building blocks ------------------------------------------------
def edf_max_lateness(releases: Sequence[float] | np.ndarray,
                     durations: Sequence[float] | np.ndarray,
                     deadlines: Sequence[float] | np.ndarray, *,
                     expired: Expired | None = None) -> float:
    """Optimal ``L_max`` of ``1 | r_j, pmtn | L_max`` by preemptive EDF.

    At every moment the machine runs, among the released unfinished
    operations, the one with the earliest deadline, preempting when a more
    urgent operation is released. This minimises the maximum lateness
    ``max_j (C_j - d_j)`` over all preemptive schedules (Horn 1974). An
    operation of zero duration is placed at its release (``C_j = r_j``), which
    a preemptive schedule can always do. ``O(n log n)`` with a binary heap,
    compiled (numba); ``expired`` is asked once, before the sweep.

    Parameters
    ----------
    releases, durations, deadlines
        ``r_j``, ``p_j >= 0`` and ``d_j``, one entry per operation.

    Returns
    -------
    float
        ``max_j (C_j - d_j)``; ``-inf`` when there is no operation.

    Examples
    --------
    >>> edf_max_lateness([0, 1], [3, 1], [10, 2])
    0.0
    """
    r = np.asarray(releases, dtype=float)
    p = np.asarray(durations, dtype=float)
    d = np.asarray(deadlines, dtype=float)
    if not (r.shape == p.shape == d.shape) or r.ndim != 1:
        raise OptionError(f"edf: releases, durations, deadlines have shapes "
                          f"{r.shape}, {p.shape}, {d.shape}; expected equal 1-D")
    if p.size and p.min() < 0:
        raise OptionError(f"edf: durations min={p.min():g} must be >= 0")
    worst = -math.inf
    zero = p == 0
    if zero.any():
        worst = float(np.max(r[zero] - d[zero]))
    keep = ~zero
    if not keep.any():
        return worst
    if expired is not None and expired():
        raise OutOfTimeError
    order = np.argsort(r[keep], kind="stable")
    return max(worst, float(_edf_kernel(r[keep][order], p[keep][order],
                                        d[keep][order])))


@njit(cache=True)
def _edf_kernel(rel, dur, due):
    """Preemptive EDF over operations sorted by release (positive durations):
    ``max_j (C_j - d_j)``. A binary heap of positions keyed by ``(d, position)``
    holds the released unfinished operations with their remaining work."""
    n = rel.shape[0]
    heap = np.empty(n, np.int64)
    left = dur.copy()
    size = 0
    worst = -np.inf
    time = rel[0]
    nxt = 0
    while nxt < n or size > 0:
        if size == 0 and time < rel[nxt]:
            time = rel[nxt]
        while nxt < n and rel[nxt] <= time:
            # push nxt
            i = size
            size += 1
            while i > 0:
                parent = (i - 1) >> 1
                q = heap[parent]
                if due[nxt] < due[q] or (due[nxt] == due[q] and nxt < q):
                    heap[i] = q
                    i = parent
                else:
                    break
            heap[i] = nxt
            nxt += 1
        top = heap[0]
        next_release = rel[nxt] if nxt < n else np.inf
        if time + left[top] <= next_release:
            time += left[top]
            if time - due[top] > worst:
                worst = time - due[top]
            # pop the root
            size -= 1
            if size > 0:
                last = heap[size]
                i = 0
                while True:
                    c = 2 * i + 1
                    if c >= size:
                        break
                    hc = heap[c]
                    if c + 1 < size:
                        hr = heap[c + 1]
                        if due[hr] < due[hc] or (due[hr] == due[hc] and hr < hc):
                            c += 1
                            hc = hr
                    if due[hc] < due[last] or (due[hc] == due[last] and hc < last):
                        heap[i] = hc
                        i = c
                    else:
                        break
                heap[i] = last
        else:  # run until the next release, which may preempt
            left[top] -= next_release - time
            time = next_release
    return worst


def edf_feasible(releases: Sequence[float] | np.ndarray,
                 durations: Sequence[float] | np.ndarray,
                 deadlines: Sequence[float] | np.ndarray, *,
                 rel_tol: float = REL_TOL) -> bool:
    """Whether operations with releases and deadlines fit one preemptive machine.

    Exact (Horn 1974): a preemptive schedule meeting every deadline exists iff
    preemptive EDF meets them, i.e. iff :func:`edf_max_lateness` ``<= 0``
    (here ``<= rel_tol * max(1, |times|)`` to absorb rounding).

    Examples
    --------
    >>> edf_feasible([0, 0], [2, 2], [4, 3]), edf_feasible([0, 0], [2, 2], [3, 3])
    (True, False)
    """
    lateness = edf_max_lateness(releases, durations, deadlines)
    return lateness <= rel_tol * scale(releases, deadlines)


def jackson_preemptive_makespan(heads: Sequence[float] | np.ndarray,
                                durations: Sequence[float] | np.ndarray,
                                tails: Sequence[float] | np.ndarray, *,
                                expired: Expired | None = None) -> float:
    """Optimum of ``1 | r_j, pmtn | max_j (C_j + q_j)`` (Jackson's preemptive
    schedule: always run the released operation with the largest tail).

    This is preemptive EDF with deadlines ``d_j = -q_j`` (Jackson 1955; used
    as the bound of Carlier 1982). When the operations are the I/O phases of
    one I/O node, with heads and tails as in the module docstring, the value
    is a lower bound on the makespan of every feasible schedule.

    Returns
    -------
    float
        ``max_j (C_j + q_j)`` of the preemptive schedule, 0.0 with no
        operation.

    Examples
    --------
    >>> jackson_preemptive_makespan([0, 1, 2], [4, 2, 1], [1, 5, 0])
    8.0
    """
    tails_array = np.asarray(tails, dtype=float)
    value = edf_max_lateness(heads, durations, -tails_array, expired=expired)
    return 0.0 if value == -math.inf else value


def scale(*arrays: Sequence[float] | np.ndarray) -> float:
    """``max(1, max |x|)`` over the arrays: the horizon for relative tolerances."""
    scale = 1.0
    for array in arrays:
        values = np.asarray(array, dtype=float)
        if values.size:
            scale = max(scale, float(np.max(np.abs(values))))
    return scale
