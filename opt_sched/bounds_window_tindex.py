r"""A start-indexed LP bound on the mean flow time of a window, each job
stretched by the running jobs' I/O (``models/time-indexed-lp.md``).

Notation of :mod:`opt_sched.bounds_flow`: job ``i`` has release ``r_i``,
``Q_i`` nodes, earliest start ``est_i``; ``f(t)`` the nodes free of the
holds (non-decreasing). ``A_i(S)``: the completion of job ``i`` *alone*
from start ``S`` with the reservations: its phases in order, each I/O
phase at the first time ``>= ready`` that fits between the busy intervals
(``Reservations.io_first_fit``). Every feasible schedule (SPEC §3,
exclusive I/O) has

    C_i >= A_i(S_i)     and     A_i is non-decreasing,

by induction over the phases (each phase of the schedule is ready no
earlier than the greedy's and is itself a fit). On a grid of ``K`` cells
``[k delta, (k+1) delta)`` (``delta = horizon / K``) the variable
``x_ik = 1`` iff ``S_i`` lies in cell ``k`` (``k = K``: ``S_i >= K
delta``); with ``S_ik = max(k delta, est_i)`` and ``e_ik = floor(A_i(S_ik)
/ delta)``:

.. math::

    \min \sum_{i,k} A_i(S_{ik})\, x_{ik} \quad\text{s.t.}\quad
    \sum_k x_{ik} = 1, \qquad
    \sum_{i,k:\ k \le c < e_{ik}} Q_i\, x_{ik} \le f\big(((c+1)\delta)^-\big)
    \quad (c < K).

A schedule's own ``x`` satisfies the node row of cell ``c``: every job
counted there runs at the instant ``(c+1) delta - epsilon`` (``S_i <
(k+1) delta <= (c+1) delta`` and ``C_i >= A_i(S_ik) >= e_ik delta >= (c+1)
delta``), and the holds leave ``f`` nodes then. So the integer programme's
minimum is at most ``sum_i C_i``, and for any multipliers ``lambda >= 0``
of the node rows (weak duality, the convexity rows kept):

.. math::

    \sum_i C_i \ge \sum_i \min_k \Big(A_i(S_{ik})
        + Q_i \sum_{k \le c < e_{ik}} \lambda_c\Big)
        - \sum_c \lambda_c\, f\big(((c+1)\delta)^-\big).

HiGHS solves the LP relaxation in a fresh interpreter
(:mod:`opt_sched.highs_process`) only to propose ``lambda``; the bound is
computed here from ``lambda`` by that formula, so it holds whatever the
solver's accuracy or time (``lambda = 0`` gives ``sum_i ect_i``).

What it sees that the interval LP (:mod:`opt_sched.bounds_window_lp`) does
not: a job's length *depends on when it starts*. A running job's periodic
I/O leaves the I/O node free in short gaps; a window job started among
them waits at each of its I/O phases, and holds its nodes that much longer.
The other bounds charge each job its delay alone from ``est_i`` only.

Exclusive I/O with reservations only (``A_i`` places each phase alone on
the node, at full bandwidth between the busy intervals); one partition, no
dependencies.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np
from numba import njit

from .bounds_flow import _jobs
from .highs_process import ask, serve
from .instance import Instance
from .operations import job_operations
from .reservations import Reservations

__all__ = ["CELLS", "HOLDS_UNDER", "alone_completions", "lagrangian_bound",
           "time_indexed_mean_flow_bound"]

HOLDS_UNDER: dict[str, frozenset[str]] = {"time-indexed-lp": frozenset({"exclusive"})}
"""``A_i`` puts each I/O phase alone on the node between the busy intervals
(the exclusive rule)."""

CELLS = 400
"""Cells of the grid; twice as many are tried when time is left
(:func:`time_indexed_mean_flow_bound`). On KTH-SP2 window 19514:40 (EASY):
400 cells 10,365 s in 0.6 s, 800 cells 10,457 s in 2.4 s (the LP alone)."""

_GRACE = 15.0
"""Seconds the subprocess may overrun its limit (start-up, imports)."""


@njit(cache=True)
def _alone_kernel(starts, lags, durations, tail, busy_start, busy_end):
    """``A(S)`` for each ``S`` of ``starts`` (module doc): the phases in
    order, each I/O phase at the first fit between the busy intervals
    (sorted, disjoint)."""
    out = np.empty(len(starts))
    m = len(busy_start)
    for j in range(len(starts)):
        now = starts[j]
        for q in range(len(lags)):
            s = now + lags[q]
            p = durations[q]
            if p > 0.0:
                k = np.searchsorted(busy_end, s, side="right")
                while k < m:
                    if s + p <= busy_start[k]:
                        break
                    if busy_end[k] > s:
                        s = busy_end[k]
                    k += 1
            now = s + p
        out[j] = now + tail
    return out


def alone_completions(instance: Instance, reservations: Reservations | None,
                      starts: np.ndarray) -> np.ndarray:
    """``A_i(max(S, est_i))`` for every job ``i`` (rows) and every ``S`` of
    ``starts`` (columns)."""
    res = reservations if reservations is not None else Reservations()
    jobs = _jobs(instance, res)
    busy = np.array(res.io_busy, float).reshape(-1, 2)
    busy_start, busy_end = busy[:, 0].copy(), busy[:, 1].copy()
    out = np.empty((len(jobs), len(starts)))
    for i, (job, flow) in enumerate(zip(instance.jobs, jobs)):
        ops = job_operations(job)
        at = np.maximum(np.asarray(starts, float), flow.est)
        durations = ops.durations(instance.bandwidth_of(job))
        out[i] = _alone_kernel(at, np.asarray(ops.lags, float),
                               np.asarray(durations, float), float(ops.tail),
                               busy_start, busy_end)
    return out


def _lp_data(instance: Instance, reservations: Reservations | None,
             horizon: float | None, cells: int) -> dict[str, np.ndarray]:
    """The columns (``job``, first cell ``first``, one past the last cell
    held ``last``, ``cost``), the nodes ``q`` per job and the right-hand
    sides ``cap`` per cell."""
    res = reservations if reservations is not None else Reservations()
    jobs = _jobs(instance, res)
    ect = np.array([job.ect for job in jobs])
    if horizon is None or not math.isfinite(horizon) or not horizon > ect.max():
        horizon = float(ect.max() + sum(job.length for job in jobs))
    horizon = horizon if horizon > 0 else 1.0  # every job of length 0 at 0
    delta = horizon / cells
    est = np.array([job.est for job in jobs])
    first_cell = np.minimum(np.floor(est / delta).astype(int), cells)
    completions = alone_completions(instance, res, np.arange(cells + 1) * delta)
    job = np.concatenate([np.full(cells + 1 - k, i) for i, k in enumerate(first_cell)])
    first = np.concatenate([np.arange(k, cells + 1) for k in first_cell])
    cost = completions[job, first]
    with np.errstate(over="ignore", invalid="ignore"):
        held = np.floor(cost / delta)
    last = np.where(first < cells, np.clip(held, first, cells), first).astype(int)
    nodes = instance.platform.partitions[0].nodes
    profile = res.node_profile(nodes)
    rate_starts = np.asarray(profile.starts, float)
    ends = (np.arange(cells) + 1) * delta  # the rate just before each cell's end
    cap = np.asarray(profile.rates, float)[
        np.clip(np.searchsorted(rate_starts, ends, side="left") - 1, 0, None)]
    return {"job": job, "first": first, "last": last, "cost": cost,
            "q": np.array([job.nodes for job in jobs], float), "cap": cap,
            "releases": np.array([job.release for job in jobs])}


def lagrangian_bound(data: dict[str, np.ndarray], lam: np.ndarray) -> float:
    """``sum_i min_k (A_i(S_ik) + Q_i sum_{k <= c < e_ik} lambda_c) - sum_c
    lambda_c cap_c`` (module doc), a lower bound of ``sum_i C_i`` for any
    ``lambda`` (negative entries count as 0)."""
    lam = np.maximum(np.asarray(lam, float), 0.0)
    prefix = np.concatenate([[0.0], np.cumsum(lam)])
    job = data["job"]
    held = prefix[data["last"]] - prefix[data["first"]]  # sum of lambda_c held
    reduced = data["cost"] + data["q"][job] * held
    starts = np.flatnonzero(np.r_[True, job[1:] != job[:-1]])
    least = np.minimum.reduceat(reduced, starts)
    return math.fsum(least.tolist()) - math.fsum((lam * data["cap"]).tolist())


def propose_multipliers(data: dict[str, np.ndarray], time_limit: float) -> np.ndarray:
    """The LP relaxation solved by HiGHS; its node rows' negated duals
    (imports highspy: run it in a process without ortools)."""
    import highspy

    job, first, last = data["job"], data["first"], data["last"]
    cells = len(data["cap"])
    m = len(job)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", max(0.1, time_limit))
    h.addVars(m, np.zeros(m), np.ones(m))
    h.changeColsCost(m, np.arange(m, dtype=np.int32), data["cost"])
    n = len(data["q"])
    h.addRows(n, np.ones(n), np.ones(n), m,
              np.searchsorted(job, np.arange(n)).astype(np.int32),
              np.arange(m, dtype=np.int32), np.ones(m))
    # node rows: column c sits in cells first[c] .. last[c] - 1
    span = np.maximum(last - first, 0)
    column = np.repeat(np.arange(m), span)
    cell = np.repeat(first, span) + (np.arange(span.sum())
                                     - np.repeat(np.cumsum(span) - span, span))
    order = np.argsort(cell, kind="stable")
    column, cell = column[order], cell[order]
    row_starts = np.searchsorted(cell, np.arange(cells)).astype(np.int32)
    h.addRows(cells, np.full(cells, -np.inf), data["cap"], len(column), row_starts,
              column.astype(np.int32), data["q"][job[column]])
    h.run()
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return np.zeros(cells)
    return np.maximum(-np.asarray(h.getSolution().row_dual)[n:], 0.0)


def _bound(instance: Instance, reservations: Reservations | None,
           horizon: float | None, cells: int, time_limit: float) -> float | None:
    """The mean-flow-time bound of one grid (``None`` if the LP process
    fails)."""
    data = _lp_data(instance, reservations, horizon, cells)
    out = ask("opt_sched.bounds_window_tindex",
              {key: data[key] for key in ("job", "first", "last", "cost", "q", "cap")},
              time_limit, _GRACE)
    if out is None:
        return None
    total = lagrangian_bound(data, out["lam"])
    return (total - math.fsum(data["releases"].tolist())) / instance.num_jobs


def time_indexed_mean_flow_bound(instance: Instance, *,
                                 reservations: Reservations | None = None,
                                 time_limit: float = 5.0,
                                 horizon: float | None = None,
                                 cells: int = CELLS) -> dict[str, float]:
    """``{"time-indexed-lp": bound}`` on the mean flow time (module doc),
    for a one-partition instance without dependencies (empty otherwise, or
    when the LP process fails). ``horizon``: where the grid ends (e.g. an
    incumbent's makespan; any value is valid, it sets the resolution).
    When the LP ends within a third of ``time_limit``, it is solved again
    with twice the cells in the time left and the larger bound kept."""
    if instance.platform.num_partitions != 1 or instance.has_dependencies \
            or not instance.num_jobs:
        return {}
    began = time.perf_counter()
    bound = _bound(instance, reservations, horizon, cells, time_limit)
    left = time_limit - (time.perf_counter() - began)
    if bound is not None and left > 2.0 / 3.0 * time_limit:
        finer = _bound(instance, reservations, horizon, 2 * cells, left)
        if finer is not None:
            bound = max(bound, finer)
    return {} if bound is None else {"time-indexed-lp": bound}


def _answer(data: dict[str, np.ndarray], limit: float) -> dict[str, np.ndarray]:
    return {"lam": propose_multipliers(data, limit)}


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1:], _answer))
