r"""Age-and-size priorities inside the fused replay (compiled, numba
``cache=True``): the queue orders whose priority changes with time but
whose every input is known when a job is submitted.

Slurm's multifactor priority without fair-share (seed 002's Edison
configuration, :class:`~opt_sched.priority.multifactor.MultifactorOrder`)
and WoAS over it (:class:`~opt_sched.workflows.woas.WorkflowAwareOrder`)
rank the waiting job ``j`` by its *priority-view* job ``r = rep_j`` (``j``
itself, or its workflow's job):

.. math:: p_r(now) = \Big\lfloor w_{age}\,
          \min\!\big(1, \max(0, (now - e_r)/\mathrm{max\_age})\big)
          + w_{size}\, Z_r \Big\rfloor

with ``e_r`` the time ``r`` became eligible (a job's submission to the
scheduler, a workflow's submit time) and ``Z_r`` its size factor. The queue
is sorted by

- ``(-p_j, s_j)`` (``grouped`` false: ties in submission order ``s``), or
- ``(-p_r, e_r, a_r, s_j)`` (``grouped``, WoAS: the priority view in
  submission order -- ``a_r`` its first job -- then the tasks of one
  workflow in submission order),

exactly the orders the Python objects return (the same floating-point
operations; tested against the stepped engine). An order offers this with
``fused_priority() -> AgeSizePriority`` (after ``attach``); the fused loop
then runs without calling it, and the order's own state (its history) is
not updated.

Each lane keeps its last sorted queue ``qs``; a pass removes the jobs that
left, re-sorts by insertion (priorities move together with time, so the
previous order is almost sorted), and merges the jobs submitted since
(sorted among themselves). A pass costs ``O(m)`` plus the inversions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from . import backfill_kernel as bk

__all__ = ["AgeSizePriority", "sort_lane", "stamp"]


@dataclass(frozen=True)
class AgeSizePriority:
    """The inputs of :func:`sort_lane` (see the module docstring).

    ``rep`` has one entry per job; ``elig``, ``size`` and ``anchor`` one per
    priority-view job (jobs first, then workflows); ``elig`` of a job is
    overwritten when it is submitted."""

    rep: np.ndarray
    elig: np.ndarray
    size: np.ndarray
    anchor: np.ndarray
    grouped: bool
    weight_age: float
    weight_size: float
    max_age: float


@njit(cache=True)
def stamp(j, t, rep, elig, seq, counter):
    """``j`` is submitted at ``t``: its eligibility (if it is its own
    priority-view job) and submission number. Returns the next number."""
    if rep[j] == j:
        elig[j] = t
    seq[j] = counter
    return counter + 1


@njit(cache=True, inline="always")
def _before(a, b, pr, rep, elig, anchor, seq, grouped):
    """Whether job ``a`` sorts before job ``b``."""
    if pr[a] != pr[b]:
        return pr[a] > pr[b]
    if grouped:
        ra, rb = rep[a], rep[b]
        if elig[ra] != elig[rb]:
            return elig[ra] < elig[rb]
        if anchor[ra] != anchor[rb]:
            return anchor[ra] < anchor[rb]
    return seq[a] < seq[b]


@njit(cache=True)
def _insertion_sort(arr, lo, hi, pr, rep, elig, anchor, seq, grouped):
    for i in range(lo + 1, hi):
        j = arr[i]
        p = i - 1
        while p >= lo and _before(j, arr[p], pr, rep, elig, anchor, seq, grouped):
            arr[p + 1] = arr[p]
            p -= 1
        arr[p + 1] = j


@njit(cache=True)
def sort_lane(ji, qj, qs, qsn, base, m, k, now, inq, pr, tmp, rep, elig, size, anchor,
              seq, grouped, w_age, w_size, max_age):
    """Sort lane ``k``'s ``m`` waiting jobs (``qj[base:base + m]``, in
    submission order) into ``qs[base:base + m]``; ``qsn[k]``: how many
    ``qs`` holds; ``inq[j]``: ``j`` is in ``qs``; ``pr``, ``tmp``:
    scratch."""
    # 1. keep the jobs still waiting, with their priority at now
    w = 0
    for i in range(qsn[k]):
        j = qs[base + i]
        if ji[j, bk.J_STATE] != bk.WAITING:
            inq[j] = 0
            continue
        qs[base + w] = j
        w += 1
    for i in range(w):
        j = qs[base + i]
        r = rep[j]
        a = (now - elig[r]) / max_age
        a = min(1.0, max(0.0, a))
        pr[j] = math.floor(w_age * a + w_size * size[r])
    _insertion_sort(qs, base, base + w, pr, rep, elig, anchor, seq, grouped)
    # 2. the jobs submitted since, sorted, merged in
    nt = 0
    for i in range(m):
        j = qj[base + i]
        if inq[j]:
            continue
        inq[j] = 1
        r = rep[j]
        a = (now - elig[r]) / max_age
        a = min(1.0, max(0.0, a))
        pr[j] = math.floor(w_age * a + w_size * size[r])
        tmp[nt] = j
        nt += 1
    if nt:
        _insertion_sort(tmp, 0, nt, pr, rep, elig, anchor, seq, grouped)
        i, o, dst = w - 1, nt - 1, w + nt - 1
        while o >= 0:
            if i >= 0 and _before(tmp[o], qs[base + i], pr, rep, elig, anchor, seq,
                                  grouped):
                qs[base + dst] = qs[base + i]
                i -= 1
            else:
                qs[base + dst] = tmp[o]
                o -= 1
            dst -= 1
    qsn[k] = w + nt
