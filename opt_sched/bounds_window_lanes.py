r"""The two-lane bound on a window's mean flow time
(``models/mean-flow-lanes.md``): the I/O interference of a few jobs solved
exactly, the other jobs bounded as before.

Notation of :mod:`opt_sched.bounds_flow`: job ``i`` of the window has
``Q_i`` nodes, release ``r_i``, length ``T_i``, earliest start ``est_i``
(after ``r_i``, once the holds leave ``Q_i`` nodes free), and operations
``q`` (its I/O phases of positive volume, :mod:`opt_sched.operations`) of
lag ``g_q`` (compute since the previous one), duration ``p_q`` and, after
the last, the tail ``a_i``; the I/O node exclusive, busy in the reserved
intervals.

**Lanes.** A *lane* is a set of jobs of which no two can run together:
``Q_i + Q_j > P`` for every pair (a single job is a lane). In every
schedule a lane's jobs run one after the other, in some order. For two
disjoint lanes ``A`` and ``B`` and an order of each, every schedule of the
window restricted to ``G = A \cup B`` gives, per lane, its jobs back to
back in that order, each starting at ``>= est_i`` and ``>=`` the previous
one's completion, and a sequence in which the I/O node serves the
operations of ``G``. For that sequence, the *semi-active* schedule -- each
job as early as its lane allows, each operation at the first time ``>=
max(ready, end of the previous operation in the sequence)`` where it fits
between the busy intervals -- has every operation ending no later
(induction over the sequence; the first fit is monotone in its ready time),
so every completion no later. Hence

.. math::

    \min_{\text{schedules}} \sum_{i \in G} C_i \;\ge\;
    L(A, B) = \min_{\text{orders}} \min_{\text{sequences}}
        \sum_{i \in G} C_i^{\text{semi-active}},

and ``L`` is found by a dynamic programme over the sequences: state
``(a, b)``, the operations of each lane served so far; label ``(s_A, s_B,
f, c)``: where each lane's next lag counts from (the end of its last
operation, or its next job's start ``max(C_prev, est)``), the end ``f`` of
the last operation served and the sum ``c`` of the completions so far.
The future depends on ``(s_A, s_B, f)`` alone, monotonically, so a label
no better in all four than another of its state is dropped (Pareto
fronts). Nodes are not checked between the lanes (``A``'s and ``B``'s jobs
may run beside each other even where the holds would not let them): that
only admits more schedules, so ``L`` stays a lower bound. Labels whose
completions so far plus a lower bound of the rest (each lane's current job
at least its remaining work from ``s``, the next ones back to back from
their ``est``) reach a *ceiling* are dropped too; ``min(L, ceiling)`` is
then still a lower bound whatever the ceiling (if every schedule reaches
it, so does the optimum).

**The bound.** The window's jobs outside ``G`` are bounded by the bounds
of :mod:`opt_sched.bounds_flow` on their own (the window without ``G``,
with the same reservations: dropping jobs only removes constraints), so

.. math::

    \sum_{i \in W} (C_i - r_i) \ge L(A, B) - \sum_{i \in G} r_i
        + |W \setminus G| \cdot \mathrm{LB}(W \setminus G).

Lane ``A``: the jobs with I/O and more than half the nodes (at most
:data:`MOST_WIDE` of them, the earliest by ``est``; every order is tried),
or, without such jobs, the job of most I/O time; lane ``B``: one other job
with I/O, the candidates by I/O time, largest first, while the time lasts.
Where a job of much I/O runs beside a chain of wide jobs, each of its long
I/O phases stalls the wide job running, and with it every later one: no
relaxation that forgets the operations' order sees it (KTH-SP2 window
11968:40 under EASY: on the four jobs of such a group, 36,145 s from
CP-SAT's bound, 42,995 s here, the best schedule 43,413 s).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from .bounds_flow import flow_bounds
from .bounds_window_tindex import first_fit_kernel
from .instance import Instance
from .operations import job_operations
from .reservations import Reservations
from .schedule import Schedule

__all__ = ["HOLDS_UNDER", "MOST_WIDE", "lanes_mean_flow_bound", "lanes_optimum"]

HOLDS_UNDER: dict[str, frozenset[str]] = {"lanes": frozenset({"exclusive"})}
"""The programme serves one operation at a time on the I/O node, the busy
intervals at full bandwidth (the exclusive rule)."""

MOST_WIDE = 4
"""The most wide jobs in lane ``A`` (``4! = 24`` orders)."""


@dataclass(frozen=True)
class _LaneJob:
    """One job of a lane: its operations and what bounds its completion."""

    est: float
    length: float
    lags: tuple[float, ...]
    durations: tuple[float, ...]
    remaining: tuple[float, ...]   # work from the end of operation q - 1
    tail: float


def _lane_job(instance: Instance, i: int, reservations: Reservations | None,
              nodes: int) -> _LaneJob:
    job = instance.jobs[i]
    bandwidth = instance.bandwidth_of(job)
    ops = job_operations(job)
    est = job.release
    if reservations is not None:
        est = max(est, reservations.free_from(nodes, job.nodes))
    return _LaneJob(est=est, length=job.length(bandwidth),
                    lags=tuple(ops.lags.tolist()),
                    durations=tuple(ops.durations(bandwidth).tolist()),
                    remaining=tuple(ops.remaining(bandwidth).tolist()),
                    tail=ops.tail)


def _lane_arrays(jobs: Sequence[_LaneJob]) -> tuple[np.ndarray, np.ndarray]:
    """A lane's jobs in one order as the kernel reads them: per operation
    (numbered on end) ``(lag, duration, last of its job, tail, est of the
    next job or -1, remaining work, job)``; per job ``(est, length)``."""
    ops = []
    for k, job in enumerate(jobs):
        following = jobs[k + 1].est if k + 1 < len(jobs) else -1.0
        for q, (lag, duration) in enumerate(zip(job.lags, job.durations)):
            last = q + 1 == len(job.lags)
            ops.append((lag, duration, float(last), job.tail if last else 0.0,
                        following if last else -1.0, job.remaining[q], float(k)))
    return (np.array(ops, float).reshape(-1, 7),
            np.array([(job.est, job.length) for job in jobs], float).reshape(-1, 2))


@njit(cache=True)
def _still(ops, jobs, a, base):
    """A lower bound of a lane's completions still to come, the lane at
    operation ``a`` from ``base``: its job's remaining work, the next jobs
    back to back from their ``est``."""
    if a == len(ops):
        return 0.0
    completion = base + ops[a, 5]
    total = completion
    for k in range(int(ops[a, 6]) + 1, len(jobs)):
        completion = max(completion, jobs[k, 0]) + jobs[k, 1]
        total += completion
    return total


@njit(cache=True)
def _serve(ops, a, base, free, busy_start, busy_end):
    """Operation ``a`` served after ``free``: its end, the lane's next base,
    the completion it ends (0 if none)."""
    start = first_fit_kernel(max(base + ops[a, 0], free), ops[a, 1],
                             busy_start, busy_end)
    end = start + ops[a, 1]
    if ops[a, 2] == 0.0:
        return end, end, 0.0
    completion = end + ops[a, 3]
    return end, max(completion, ops[a, 4]), completion


@njit(cache=True)
def _push(labels, counts, index, label):
    """Append ``label`` to state ``index``'s labels, growing the buffer."""
    if counts[index] == labels.shape[1]:
        grown = np.empty((labels.shape[0], 2 * labels.shape[1], 4))
        grown[:, :labels.shape[1]] = labels
        labels = grown
    labels[index, counts[index]] = label
    counts[index] += 1
    return labels


@njit(cache=True)
def _lanes_kernel(ops_a, jobs_a, ops_b, jobs_b, busy_start, busy_end, ceiling):
    """``min(ceiling, min over sequences of sum C_i)`` (module doc): the
    states of one diagonal ``a + b = served`` at a time, indexed by ``a``;
    a label ``(s_A, s_B, f, c)``."""
    n_a, n_b = len(ops_a), len(ops_b)
    now = np.empty((n_a + 1, 16, 4))
    now_count = np.zeros(n_a + 1, np.int64)
    now[0, 0] = (jobs_a[0, 0], jobs_b[0, 0], 0.0, 0.0)
    now_count[0] = 1
    best = ceiling
    label = np.empty(4)
    for served in range(n_a + n_b + 1):
        after = np.empty((n_a + 1, now.shape[1], 4))
        after_count = np.zeros(n_a + 1, np.int64)
        for a in range(max(0, served - n_b), min(n_a, served) + 1):
            b = served - a
            m = now_count[a]
            if m == 0:
                continue
            labels = now[a, :m]
            order = np.argsort(labels[:, 0], kind="mergesort")
            kept = np.empty((m, 4))
            n_kept = 0
            for r in order:
                base_a, base_b, free, total = labels[r]
                dominated = False
                for o in range(n_kept):  # kept[o, 0] <= base_a by the sort
                    if kept[o, 1] <= base_b and kept[o, 2] <= free \
                            and kept[o, 3] <= total:
                        dominated = True
                        break
                if dominated:
                    continue
                kept[n_kept] = labels[r]
                n_kept += 1
                if total + _still(ops_a, jobs_a, a, base_a) \
                        + _still(ops_b, jobs_b, b, base_b) >= best:
                    continue
                if a == n_a and b == n_b:
                    best = min(best, total)
                    continue
                if a < n_a:
                    end, base, done = _serve(ops_a, a, base_a, free,
                                             busy_start, busy_end)
                    label[:] = (base, base_b, end, total + done)
                    after = _push(after, after_count, a + 1, label)
                if b < n_b:
                    end, base, done = _serve(ops_b, b, base_b, free,
                                             busy_start, busy_end)
                    label[:] = (base_a, base, end, total + done)
                    after = _push(after, after_count, a, label)
        now, now_count = after, after_count
    return best


def lanes_optimum(instance: Instance, lane_a: Sequence[int], lane_b: Sequence[int], *,
                  reservations: Reservations | None = None,
                  ceiling: float = math.inf,
                  deadline: float = math.inf) -> float | None:
    """``min(ceiling, L(A, B))`` (module doc): a lower bound of ``sum_{i in
    A u B} C_i`` in every schedule of ``instance``, or ``None`` past
    ``deadline`` (``time.perf_counter()``).

    Each lane must be jobs with I/O of which no two fit together
    (``Q_i + Q_j > P``); every order of each is tried.
    """
    nodes = instance.platform.partitions[0].nodes
    for lane in (lane_a, lane_b):
        for i, j in itertools.combinations(lane, 2):
            if instance.jobs[i].nodes + instance.jobs[j].nodes <= nodes:
                raise ValueError(f"lanes: jobs {instance.jobs[i].id} and "
                                 f"{instance.jobs[j].id} fit together")
    data = {i: _lane_job(instance, i, reservations, nodes)
            for i in (*lane_a, *lane_b)}
    if any(not data[i].lags for i in data):
        raise ValueError("lanes: every job needs an I/O phase")
    busy = np.array(reservations.io_busy if reservations is not None else (),
                    float).reshape(-1, 2)
    busy_start, busy_end = busy[:, 0].copy(), busy[:, 1].copy()
    best = ceiling
    for order_a in itertools.permutations(lane_a):
        for order_b in itertools.permutations(lane_b):
            if time.perf_counter() > deadline:
                return None
            best = min(best, _lanes_kernel(*_lane_arrays([data[i] for i in order_a]),
                                           *_lane_arrays([data[i] for i in order_b]),
                                           busy_start, busy_end, best))
    return best


def _io_time(instance: Instance, i: int) -> float:
    job = instance.jobs[i]
    return float(job_operations(job).volumes.sum()) / instance.bandwidth_of(job)


def _rest_sum(instance: Instance, group: set[int],
              reservations: Reservations | None, deadline: float) -> float:
    """``|W - G| LB(W - G)``: the best sum of flows of :func:`flow_bounds` on
    the window without ``group`` (those it finds by ``deadline``; ``alone``
    at least)."""
    rest = tuple(job for i, job in enumerate(instance.jobs) if i not in group)
    if not rest:
        return 0.0
    found = flow_bounds(instance.replace(jobs=rest), "mean-flow-time",
                        reservations=reservations,
                        expired=lambda: time.perf_counter() > deadline)
    return len(rest) * max(found.values())


def lanes_mean_flow_bound(instance: Instance, *,
                          reservations: Reservations | None = None,
                          time_limit: float = 5.0,
                          incumbent: Schedule | None = None) -> dict[str, float]:
    """``{"lanes": bound}`` on the mean flow time (module doc), or ``{}``
    when no group was solved within ``time_limit`` seconds. ``incumbent``:
    a feasible schedule, whose completions on each group are the
    programme's ceiling (any ceiling keeps the bound valid; this one is
    reached by a schedule, so it drops most labels)."""
    deadline = time.perf_counter() + time_limit
    nodes = instance.platform.partitions[0].nodes
    with_io = [i for i, job in enumerate(instance.jobs)
               if job_operations(job).count]
    if len(with_io) < 2:
        return {}
    wide = [i for i in with_io if 2 * instance.jobs[i].nodes > nodes]
    if len(wide) >= 1:
        starts = {i: _lane_job(instance, i, reservations, nodes).est for i in wide}
        lane_a = sorted(wide, key=lambda i: (starts[i], i))[:MOST_WIDE]
    else:
        lane_a = [max(with_io, key=lambda i: _io_time(instance, i))]
    partners = sorted((i for i in with_io if i not in lane_a),
                      key=lambda i: -_io_time(instance, i))
    releases = [job.release for job in instance.jobs]
    completions = None if incumbent is None else incumbent.completions(instance)
    best = -math.inf
    for partner in partners:
        if time.perf_counter() > deadline:
            break
        group = {*lane_a, partner}
        ceiling = math.inf if completions is None \
            else math.fsum(completions[instance.jobs[i].id] for i in group)
        found = lanes_optimum(instance, lane_a, [partner], reservations=reservations,
                              ceiling=ceiling, deadline=deadline)
        if found is None:
            break
        total = (found - sum(releases[i] for i in group)
                 + _rest_sum(instance, group, reservations, deadline))
        best = max(best, total / instance.num_jobs)
    return {} if best == -math.inf else {"lanes": best}
