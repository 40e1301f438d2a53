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

and, for sets ``E`` of jobs, the count rows

.. math::

    \sum_{i \in E,\,k:\ k \le c < e_{ik}} x_{ik} \le m_E\big(f(((c+1)\delta)^-)\big),

``m_E(f)`` the most jobs of ``E`` that fit on ``f`` nodes together
(:func:`opt_sched.bounds_window_lp.most_running`). A schedule's own ``x``
satisfies the rows of cell ``c``: every job counted there runs at the
instant ``(c+1) delta - epsilon`` (``S_i < (k+1) delta <= (c+1) delta``
and ``C_i >= A_i(S_ik) >= e_ik delta >= (c+1) delta``), and the holds
leave ``f`` nodes then. So the integer programme's minimum is at most
``sum_i C_i``, and for any multipliers ``lambda >= 0`` of the node rows
and ``mu >= 0`` of the count rows (weak duality, the convexity rows kept):

.. math::

    \sum_i C_i \ge \sum_i \min_k \Big(A_i(S_{ik})
        + Q_i \sum_{k \le c < e_{ik}} \lambda_c
        + \sum_{(E, c):\ i \in E,\ k \le c < e_{ik}} \mu_{E,c}\Big)
        - \sum_c \lambda_c\, f\big(((c+1)\delta)^-\big)
        - \sum_{(E, c)} \mu_{E,c}\, m_E\big(f(((c+1)\delta)^-)\big).

HiGHS solves the LP relaxation (in this process, or in a fresh interpreter
where highspy and ortools cannot share one: :mod:`opt_sched.highs_process`),
the count rows added while the LP point violates some, only to propose
``lambda`` and ``mu``; the bound is computed here from them by that
formula (``m_E`` recomputed here), so it holds whatever the solver's
accuracy or time (zero multipliers give ``sum_i ect_i``).

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
from .bounds_window_lp import most_running
from .highs_process import ask, load_highspy, run_interruptibly, serve
from .instance import Instance
from .operations import job_operations
from .reservations import Reservations

__all__ = ["ALPHAS", "CELLS", "HOLDS_UNDER", "MIP_CELLS", "MIP_MARGIN",
           "ORDER_CELLS_LEAST", "ORDER_COLUMNS",
           "agrees_with_its_solution", "alone_completions", "deadline_certificate",
           "first_fit_kernel", "lagrangian_bound", "start_orders",
           "time_indexed_mean_flow_bound", "time_indexed_mip_bound",
           "time_indexed_stretch_bound"]

HOLDS_UNDER: dict[str, frozenset[str]] = {
    name: frozenset({"exclusive"})
    for name in ("time-indexed-lp", "time-indexed-mip", "time-indexed-edf")}
"""``A_i`` puts each I/O phase alone on the node between the busy intervals
(the exclusive rule)."""

CELLS = 400
"""Cells of the grid; twice as many are tried when time is left
(:func:`time_indexed_mean_flow_bound`). On KTH-SP2 window 19514:40 (EASY):
400 cells 10,365 s in 0.6 s, 800 cells 10,457 s in 2.4 s (the LP alone)."""

MIP_CELLS = 100
"""Cells of the programme solved as a MIP (:func:`time_indexed_mip_bound`);
twice as many when that ends within a third of its time. On KTH-SP2
windows 608, 1744 and 4016:40 (EASY) HiGHS solves 100 cells in 2-4 s and
150 in 5-8 s; 200 often reach 15 s."""

MIP_MARGIN = 1e-6
"""What :func:`time_indexed_mip_bound` takes off HiGHS's dual bound,
relative: its LP solves are exact only to their tolerances (1e-7)."""

ORDER_COLUMNS = 120_000
"""The most columns (about jobs x cells) of the LP whose alpha-points are
orders (:func:`start_orders`): on a window of ``n`` jobs its grid has
``min(cells, ORDER_COLUMNS // n)`` cells (at least :data:`ORDER_CELLS_LEAST`).
FCFS window 5720:40 of KTH-SP2 (748 jobs): at 400 cells the LP finds no
solution in 2 s, at 160 it does, and its alpha-point order under EASY is
the best list schedule (91,970 s, SPT EASY 109,161); 307 jobs at 390 cells
are solved in 1.4 s. Orders only: any grid gives valid lists."""

ORDER_CELLS_LEAST = 20
"""The fewest cells of that grid."""

ALPHAS = (0.2, 0.5, 0.8)
"""The alpha-points of :func:`start_orders`."""

_GRACE = 15.0
"""Seconds the subprocess may overrun its limit (start-up, imports)."""

_CUTS_PER_ROUND = 100
"""The most count rows added between two solves."""

Counts = tuple[np.ndarray, np.ndarray, np.ndarray]
"""Count rows: their cells, their 0/1 member sets (rows), their
multipliers."""


@njit(cache=True, inline="always")
def first_fit_kernel(ready, duration, busy_start, busy_end):
    """``Reservations.io_first_fit`` compiled: the first ``s >= ready`` with
    ``[s, s + duration)`` clear of the busy intervals (sorted, disjoint)."""
    s = ready
    if duration <= 0.0:
        return s
    k = np.searchsorted(busy_end, s, side="right")
    while k < len(busy_start):
        if s + duration <= busy_start[k]:
            break
        if busy_end[k] > s:
            s = busy_end[k]
        k += 1
    return s


@njit(cache=True)
def _alone_kernel(starts, lags, durations, tail, busy_start, busy_end):
    """``A(S)`` for each ``S`` of ``starts`` (module doc): the phases in
    order, each I/O phase at the first fit between the busy intervals
    (sorted, disjoint)."""
    out = np.empty(len(starts))
    for j in range(len(starts)):
        now = starts[j]
        for q in range(len(lags)):
            now = first_fit_kernel(now + lags[q], durations[q], busy_start,
                                   busy_end) + durations[q]
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
    held ``last``, ``cost``, the earliest start ``start`` in the cell), the
    nodes ``q`` per job and the right-hand sides ``cap`` per cell."""
    res = reservations if reservations is not None else Reservations()
    jobs = _jobs(instance, res)
    ect = np.array([job.ect for job in jobs])
    if horizon is None or not math.isfinite(horizon) or not horizon > ect.max():
        horizon = float(ect.max() + sum(job.length for job in jobs))
    horizon = horizon if horizon > 0 else 1.0  # every job of length 0 at 0
    delta = horizon / cells
    est = np.array([job.est for job in jobs])
    # the cells' bounds are these floats b_k = k delta; every rounding below
    # is checked against them (a start maps to the k with b_k <= S < b_k+1)
    bound_of = np.arange(cells + 1) * delta
    first_cell = np.floor(est / delta).astype(int)
    first_cell -= bound_of[np.minimum(first_cell, cells)] > est
    first_cell = np.minimum(first_cell, cells)
    completions = alone_completions(instance, res, bound_of)
    job = np.concatenate([np.full(cells + 1 - k, i) for i, k in enumerate(first_cell)])
    first = np.concatenate([np.arange(k, cells + 1) for k in first_cell])
    cost = completions[job, first]
    held = np.minimum(np.floor(cost / delta), cells).astype(int)
    held -= bound_of[held] > cost  # b_e <= A_i(S_ik): held until then
    last = np.where(first < cells, np.clip(held, first, cells), first)
    nodes = instance.platform.partitions[0].nodes
    profile = res.node_profile(nodes)
    rate_starts = np.asarray(profile.starts, float)
    cap = np.asarray(profile.rates, float)[  # the rate just before each b_c+1
        np.clip(np.searchsorted(rate_starts, bound_of[1:], side="left") - 1, 0, None)]
    return {"job": job, "first": first, "last": last, "cost": cost,
            "start": np.maximum(bound_of[first], est[job]),
            "q": np.array([job.nodes for job in jobs], float), "cap": cap,
            "releases": np.array([job.release for job in jobs]),
            "length": np.array([job.length for job in jobs])}


def lagrangian_bound(data: dict[str, np.ndarray], lam: np.ndarray,
                     counts: Counts | None = None) -> float:
    """``sum_i min_k (A_i(S_ik) + Q_i sum_{k <= c < e_ik} lambda_c + sum of
    mu over the count rows holding the column) - sum_c lambda_c cap_c - sum
    mu m_E(cap_c)`` (module doc), a lower bound of ``sum_i C_i`` for any
    multipliers (negative entries count as 0). ``counts``: the count rows
    ``(cells, sets, mu)``, ``sets[r]`` the 0/1 members of row ``r``."""
    lam = np.maximum(np.asarray(lam, float), 0.0)
    prefix = np.concatenate([[0.0], np.cumsum(lam)])
    job, first, last = data["job"], data["first"], data["last"]
    held = prefix[last] - prefix[first]  # sum of lambda_c over the cells held
    reduced = data["cost"] + data["q"][job] * held
    rhs = math.fsum((lam * data["cap"]).tolist())
    if counts is not None:
        cells, sets, mu = counts
        mu = np.maximum(np.asarray(mu, float), 0.0)
        paid = []
        for cell, members, weight in zip(np.asarray(cells, int).tolist(),
                                         np.asarray(sets, bool), mu.tolist()):
            if weight <= 0:
                continue
            holds_cell = members[job] & (first <= cell) & (cell < last)
            reduced = reduced + weight * holds_cell
            paid.append(weight * most_running(data["q"], members, data["cap"][cell]))
        rhs += math.fsum(paid)
    least = np.minimum.reduceat(reduced, _first_columns(job))
    return math.fsum(least.tolist()) - rhs


@njit(cache=True)
def _count_cuts_kernel(running, nodes, cap):
    """For each cell ``c`` the set ``E`` of largest violation ``sum_E y_ic -
    m_E(cap_c)`` among the prefixes of the jobs by ``y_ic`` (most running
    first, ties more nodes first): ``(violation, members)`` per cell."""
    n, cells = running.shape
    violation = np.zeros(cells)
    members = np.zeros((cells, n), np.bool_)
    for c in range(cells):
        y = running[:, c]
        order = np.argsort(-(y * 1e6 + nodes * 1e-3))
        total = 0.0
        chosen = np.empty(0)
        best = 1e-6
        size_best = 0
        for size in range(1, n + 1):
            i = order[size - 1]
            if y[i] <= 1e-9:
                break
            total += y[i]
            chosen = np.sort(np.append(chosen, nodes[i]))
            fit = np.searchsorted(np.cumsum(chosen), cap[c] + 1e-9, side="right")
            if total - fit > best:
                best = total - fit
                size_best = size
        violation[c] = best if size_best else 0.0
        for r in range(size_best):
            members[c, order[r]] = True
    return violation, members


def _node_lp(highspy, data: dict[str, np.ndarray], cost: np.ndarray, *, slack: bool):
    """A HiGHS model of the programme's LP relaxation (module doc): the
    columns with ``cost``, the convexity rows, the node rows (each with a
    slack of cost 1 if ``slack``: the phase-1 LP of a deadline test).
    Returns it with the node rows' nonzeros ``(column, cell)``."""
    job, first, last = data["job"], data["first"], data["last"]
    q, cap = data["q"], data["cap"]
    cells, m, n = len(cap), len(job), len(q)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.addVars(m, np.zeros(m), np.ones(m))
    h.changeColsCost(m, np.arange(m, dtype=np.int32), cost)
    h.addRows(n, np.ones(n), np.ones(n), m,
              np.searchsorted(job, np.arange(n)).astype(np.int32),
              np.arange(m, dtype=np.int32), np.ones(m))
    # node rows: column j sits in cells first[j] .. last[j] - 1
    span = np.maximum(last - first, 0)
    column = np.repeat(np.arange(m), span)
    cell = np.repeat(first, span) + (np.arange(span.sum())
                                     - np.repeat(np.cumsum(span) - span, span))
    order = np.argsort(cell, kind="stable")
    column, cell = column[order], cell[order]
    h.addRows(cells, np.full(cells, -np.inf), cap, len(column),
              np.searchsorted(cell, np.arange(cells)).astype(np.int32),
              column.astype(np.int32), q[job[column]])
    if slack:  # z_c >= 0 of cost 1 in node row c: load_c - z_c <= cap_c
        h.addVars(cells, np.zeros(cells), np.full(cells, np.inf))
        h.changeColsCost(cells, np.arange(m, m + cells, dtype=np.int32), np.ones(cells))
        for c in range(cells):
            h.changeCoeff(n + c, m + c, -1.0)
    return h, column, cell


def propose_multipliers(data: dict[str, np.ndarray], time_limit: float
                        ) -> tuple[np.ndarray, Counts, np.ndarray]:
    """The LP relaxation solved by HiGHS, count rows added while violated
    (at most :data:`_CUTS_PER_ROUND` a round) until ``time_limit``; the
    negated duals of its node rows, its count rows (cells, sets, duals)
    and its solution ``x``, at the last optimal solve (``x`` empty without
    one; imports highspy: call it through
    :func:`~opt_sched.highs_process.ask`)."""
    highspy = load_highspy()

    stop = time.perf_counter() + time_limit
    job, first, last, q = data["job"], data["first"], data["last"], data["q"]
    cap = data["cap"]
    cells = len(cap)
    n = len(q)
    h, column, cell = _node_lp(highspy, data, data["cost"], slack=False)
    cut_cells: list[int] = []
    cut_sets: list[np.ndarray] = []
    answer: tuple[np.ndarray, Counts, np.ndarray] = (np.zeros(cells), _no_counts(n),
                                                     np.zeros(0))
    while True:
        h.setOptionValue("time_limit", max(0.1, stop - time.perf_counter()))
        run_interruptibly(h)
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return answer
        solution = h.getSolution()
        duals = np.maximum(-np.asarray(solution.row_dual)[n:], 0.0)
        x = np.asarray(solution.col_value)
        answer = (duals[:cells], (np.array(cut_cells, int),
                                  np.array(cut_sets, bool).reshape(-1, n),
                                  duals[cells:]), x)
        if time.perf_counter() >= stop:
            return answer
        running = np.zeros((n, cells))
        np.add.at(running, (job[column], cell), x[column])
        violation, members = _count_cuts_kernel(running, q, cap)
        chosen = np.argsort(-violation)[:_CUTS_PER_ROUND]
        chosen = chosen[violation[chosen] > 0]
        if not len(chosen):
            return answer
        for c in chosen.tolist():
            cols = np.flatnonzero(members[c][job] & (first <= c) & (c < last))
            h.addRow(-np.inf, most_running(q, members[c], cap[c]), len(cols),
                     cols.astype(np.int32), np.ones(len(cols)))
            cut_cells.append(c)
            cut_sets.append(members[c])


def propose_mip_bound(data: dict[str, np.ndarray], time_limit: float) -> float:
    """HiGHS's dual bound on the programme as a MIP (``x`` binary: the count
    rows then hold by themselves), at its end or its time limit; ``-inf``
    without one (imports highspy: call it through
    :func:`~opt_sched.highs_process.ask`)."""
    highspy = load_highspy()
    h, _, _ = _node_lp(highspy, data, data["cost"], slack=False)
    m = len(data["job"])
    h.changeColsIntegrality(m, np.arange(m, dtype=np.int32),
                            np.full(m, highspy.HighsVarType.kInteger, dtype=np.uint8))
    h.setOptionValue("time_limit", max(0.1, time_limit))
    run_interruptibly(h)
    status = h.getModelStatus()
    if status in (highspy.HighsModelStatus.kInfeasible,
                  highspy.HighsModelStatus.kModelError,
                  highspy.HighsModelStatus.kSolveError):
        return -math.inf
    bound = float(h.getInfo().mip_dual_bound)
    if not math.isfinite(bound) or not agrees_with_its_solution(h, data["cost"]):
        return -math.inf
    return bound


def agrees_with_its_solution(h, cost: np.ndarray) -> bool:
    """Whether the objective HiGHS reports is its own solution's cost
    ``sum_j cost_j x_j`` (within ``10^-6`` relative), or it has no solution.
    A solver that contradicts itself proves nothing: HiGHS 1.16, given the
    MIP on an object that had solved the LP and taken added rows, reported
    an optimum below the cost of the solution it returned, and below the
    fresh model's proven bound (``models/time-indexed-lp.md``)."""
    solution = h.getSolution()
    if not solution.value_valid:
        return True
    own = math.fsum((np.asarray(solution.col_value) * cost).tolist())
    reported = float(h.getInfo().objective_function_value)
    return abs(reported - own) <= 1e-6 * max(1.0, abs(own))


def _mip_answer(data: dict[str, np.ndarray], limit: float) -> dict[str, np.ndarray]:
    """The coarse grid's MIP bound, and the fine grid's in the time left
    when the coarse one took at most a third of ``limit``."""
    began = time.perf_counter()
    out = {"mip": np.array(propose_mip_bound({key: data[key] for key in _SENT}, limit))}
    left = limit - (time.perf_counter() - began)
    if "fine_job" in data and left > 2.0 / 3.0 * limit:
        out["fine_mip"] = np.array(propose_mip_bound(
            {key: data["fine_" + key] for key in _SENT}, left))
    return out


def _no_counts(n: int) -> Counts:
    """No count row (for ``n`` jobs)."""
    return np.zeros(0, int), np.zeros((0, n), bool), np.zeros(0)


def _first_columns(job: np.ndarray) -> np.ndarray:
    """The index of each job's first column (the columns are by job)."""
    return np.flatnonzero(np.r_[True, job[1:] != job[:-1]])


_SENT = ("job", "first", "last", "cost", "q", "cap")
"""The arrays of a grid that the LP process needs."""


def _solved(instance: Instance, reservations: Reservations | None,
            horizon: float | None, cells: int, time_limit: float
            ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray] | None]:
    """One grid's data and the LP process's answer (``None`` if it
    failed)."""
    data = _lp_data(instance, reservations, horizon, cells)
    out = ask(_answer, {key: data[key] for key in _SENT},
              time_limit, _GRACE)
    return data, out


def _flow_bound(instance: Instance, data: dict[str, np.ndarray],
                out: dict[str, np.ndarray], prefix: str = "") -> float:
    """The mean-flow-time bound of a grid's ``data`` from the multipliers of
    the LP process's answer ``out`` (its keys with ``prefix``)."""
    total = lagrangian_bound(data, out[prefix + "lam"],
                             (out[prefix + "count_cells"], out[prefix + "count_sets"],
                              out[prefix + "count_mu"]))
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
    When the LP ends within a third of ``time_limit``, the same process
    solves it again with twice the cells in the time left, and the larger
    bound is kept."""
    if instance.platform.num_partitions != 1 or instance.has_dependencies \
            or not instance.num_jobs:
        return {}
    if instance.num_jobs == 1:  # the programme's optimum is A(est) = ect: no LP
        (job,) = _jobs(instance, reservations)
        return {"time-indexed-lp": job.ect - job.release}
    coarse = _lp_data(instance, reservations, horizon, cells)
    fine = _lp_data(instance, reservations, horizon, 2 * cells)
    out = ask(_answer,
              {**{key: coarse[key] for key in _SENT},
               **{"fine_" + key: fine[key] for key in _SENT}}, time_limit, _GRACE)
    if out is None:
        return {}
    bound = _flow_bound(instance, coarse, out)
    if "fine_lam" in out:
        bound = max(bound, _flow_bound(instance, fine, out, "fine_"))
    return {"time-indexed-lp": bound}


def time_indexed_mip_bound(instance: Instance, *,
                           reservations: Reservations | None = None,
                           time_limit: float = 10.0,
                           horizon: float | None = None,
                           cells: int = MIP_CELLS) -> dict[str, float]:
    """``{"time-indexed-mip": bound}`` on the mean flow time: the programme
    of the module doc with ``x`` binary, the bound HiGHS proves on it (its
    dual bound at its end or its time limit, less :data:`MIP_MARGIN`
    relative) -- every schedule's own ``x`` is a solution, so its minimum
    is at most ``sum_i C_i`` (``models/time-indexed-lp.md``, "The
    programme as a MIP"). Unlike the LP's, this bound is the solver's word,
    as CP-SAT's is: no multipliers to check it by. Empty where the LP's
    would be, or without an answer. Twice the cells in the time left when
    the first solve ends within a third of ``time_limit``; the larger bound
    is kept."""
    if instance.platform.num_partitions != 1 or instance.has_dependencies \
            or instance.num_jobs < 2:
        return {}
    coarse = _lp_data(instance, reservations, horizon, cells)
    fine = _lp_data(instance, reservations, horizon, 2 * cells)
    out = ask(_answer,
              {**{key: coarse[key] for key in _SENT},
               **{"fine_" + key: fine[key] for key in _SENT},
               "mip": np.array(1.0)}, time_limit, _GRACE)
    if out is None:
        return {}
    total = max(float(out["mip"]), float(out.get("fine_mip", -math.inf)))
    if not math.isfinite(total):
        return {}
    total -= MIP_MARGIN * abs(total)
    return {"time-indexed-mip":
            (total - math.fsum(coarse["releases"].tolist())) / instance.num_jobs}


def start_orders(instance: Instance, *, reservations: Reservations | None = None,
                 horizon: float | None = None, time_limit: float = 2.0,
                 cells: int = CELLS) -> dict[str, tuple[int, ...]]:
    """Priority lists from the LP relaxation's solution (Hall, Schulz,
    Shmoys and Wein's list scheduling by alpha-points): for each ``alpha``
    of :data:`ALPHAS`, the jobs by the earliest start at which the LP has
    started ``alpha`` of them (ties by index), named ``lp-alpha20`` etc.
    Empty when the LP has no solution in ``time_limit``. The grid has at most
    ``cells`` cells, fewer on a large window (:data:`ORDER_COLUMNS`). Orders
    only: the schedules are built and validated by the window's
    simulator."""
    if instance.platform.num_partitions != 1 or instance.has_dependencies \
            or instance.num_jobs < 2:  # one job: nothing to order
        return {}
    cells = min(cells, max(ORDER_CELLS_LEAST, ORDER_COLUMNS // instance.num_jobs))
    data, out = _solved(instance, reservations, horizon, cells, time_limit)
    if out is None or len(out["x"]) != len(data["job"]):
        return {}
    job, x, start = data["job"], np.maximum(out["x"], 0.0), data["start"]
    edges = np.r_[_first_columns(job), len(job)]
    orders = {}
    for alpha in ALPHAS:
        points = []
        for a, b in zip(edges[:-1].tolist(), edges[1:].tolist()):
            started = np.cumsum(x[a:b])
            k = int(np.searchsorted(started, alpha * started[-1], side="left"))
            points.append(float(start[a + min(k, b - a - 1)]))
        orders[f"lp-alpha{round(100 * alpha)}"] = tuple(
            sorted(range(len(points)), key=lambda i: (points[i], i)))
    return orders


def _allowed(data: dict[str, np.ndarray], stretch: float) -> np.ndarray:
    """The columns that meet the deadlines of ``stretch``: ``A_i(S_ik) <= r_i
    + stretch T_i`` (every column of a job of length 0, whose stretch counts
    1)."""
    job, length = data["job"], data["length"]
    return (data["cost"] <= data["releases"][job] + stretch * length[job]) \
        | (length[job] <= 0)


def deadline_certificate(data: dict[str, np.ndarray], stretch: float,
                         lam: np.ndarray) -> float:
    """``sum_i min_{k allowed} Q_i sum_{k <= c < e_ik} lambda_c - sum_c
    lambda_c cap_c`` over the columns that meet the deadlines of
    ``stretch``: positive (``inf`` if a job has none) proves that no
    schedule has a max flow stretch ``<= stretch`` (module doc)."""
    lam = np.maximum(np.asarray(lam, float), 0.0)
    prefix = np.concatenate([[0.0], np.cumsum(lam)])
    job = data["job"]
    held = data["q"][job] * (prefix[data["last"]] - prefix[data["first"]])
    held = np.where(_allowed(data, stretch), held, np.inf)
    least = np.minimum.reduceat(held, _first_columns(job))
    if np.isinf(least).any():
        return math.inf
    return math.fsum(least.tolist()) - math.fsum((lam * data["cap"]).tolist())


def propose_refutation(data: dict[str, np.ndarray], lower: float, upper: float,
                       time_limit: float, steps: int = 30
                       ) -> tuple[float, np.ndarray]:
    """Bisection over the stretch in ``[lower, upper]`` with the phase-1 LP
    of the deadline test (node rows with slacks of cost 1, the columns that
    miss a deadline fixed to 0): a positive optimum refutes the stretch,
    and its node rows' negated duals are the certificate. Returns the
    largest refuted stretch and its ``lambda`` (``nan`` if ``lower`` is
    not refuted; imports highspy: call it through
    :func:`~opt_sched.highs_process.ask`)."""
    highspy = load_highspy()

    stop = time.perf_counter() + time_limit
    m, n, cells = len(data["job"]), len(data["q"]), len(data["cap"])
    h, _, _ = _node_lp(highspy, data, np.zeros(m), slack=True)
    every = np.arange(m, dtype=np.int32)

    def refuted(stretch: float) -> np.ndarray | None:
        allowed = _allowed(data, stretch)
        h.changeColsBounds(m, every, np.zeros(m), allowed.astype(float))
        h.setOptionValue("time_limit", max(0.1, stop - time.perf_counter()))
        run_interruptibly(h)
        status = h.getModelStatus()
        if status == highspy.HighsModelStatus.kInfeasible:
            return np.zeros(cells)  # a job misses its deadline in every cell
        if status != highspy.HighsModelStatus.kOptimal \
                or h.getInfo().objective_function_value <= 1e-7:
            return None
        return np.maximum(-np.asarray(h.getSolution().row_dual)[n:n + cells], 0.0)

    best = refuted(lower)
    if best is None:
        return math.nan, np.zeros(cells)
    lo, hi = lower, upper
    for _ in range(steps):
        if time.perf_counter() >= stop:
            break
        mid = (lo + hi) / 2
        lam = refuted(mid)
        if lam is None:
            hi = mid
        else:
            lo, best = mid, lam
    return lo, best


def time_indexed_stretch_bound(instance: Instance, lower: float, upper: float, *,
                               reservations: Reservations | None = None,
                               horizon: float | None = None,
                               time_limit: float = 5.0,
                               cells: int = CELLS) -> dict[str, float]:
    """``{"time-indexed-edf": x}`` on the max flow stretch: the largest
    ``x`` in ``[lower, upper]`` whose deadlines ``d_i = r_i + x T_i`` the
    programme of the module doc cannot meet (the columns with ``A_i(S_ik)
    > d_i`` removed), proven by the certificate of
    :func:`deadline_certificate`, checked here. Empty if ``lower`` is not
    refuted, or for a platform of several partitions or dependencies.
    ``horizon``: where the grid ends (any value is valid); by default the
    latest deadline at ``upper``."""
    if instance.platform.num_partitions != 1 or instance.has_dependencies \
            or instance.num_jobs < 2 or not upper > lower:
        return {}  # one job: its deadline test is the alone bound's
    jobs = _jobs(instance, reservations)
    latest = max(job.release + upper * job.length for job in jobs)
    horizon = latest if horizon is None else min(horizon, latest)
    data = _lp_data(instance, reservations, horizon, cells)
    out = ask(_answer,
              {**{key: data[key] for key in (*_SENT, "releases", "length")},
               "stretch_range": np.array([lower, upper])}, time_limit, _GRACE)
    if out is None or not math.isfinite(float(out["stretch"])):
        return {}
    stretch = float(out["stretch"])
    paid = math.fsum((np.maximum(out["lam"], 0.0) * data["cap"]).tolist())
    margin = 1e-9 * (1.0 + paid)  # the certificate's float noise
    if not deadline_certificate(data, stretch, out["lam"]) > margin:
        return {}
    return {"time-indexed-edf": stretch}


def _answer(data: dict[str, np.ndarray], limit: float) -> dict[str, np.ndarray]:
    if data.pop("mip", None) is not None:
        return _mip_answer(data, limit)
    if "stretch_range" in data:
        lower, upper = data.pop("stretch_range").tolist()
        stretch, lam = propose_refutation(data, lower, upper, limit)
        return {"stretch": np.array(stretch), "lam": lam}
    began = time.perf_counter()
    out = _lp_answer({key: data[key] for key in _SENT}, limit)
    left = limit - (time.perf_counter() - began)
    if "fine_job" in data and left > 2.0 / 3.0 * limit:  # a finer grid in the rest
        fine = _lp_answer({key: data["fine_" + key] for key in _SENT}, left)
        out.update({"fine_" + key: value for key, value in fine.items()})
    return out


def _lp_answer(data: dict[str, np.ndarray], limit: float) -> dict[str, np.ndarray]:
    lam, (cells, sets, mu), x = propose_multipliers(data, limit)
    return {"lam": lam, "count_cells": cells, "count_sets": sets, "count_mu": mu,
            "x": x}


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1:], _answer))
