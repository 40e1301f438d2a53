"""Lower bounds on the makespan and the max stretch (SPEC §7).

Every bound here is a number ``L`` such that *every* schedule satisfying the
rules it assumes has an objective ``>= L``. The derivations, and when each
bound is valid, are in ``models/bounds.md``; the short form:

Notation. Job ``i`` has release ``r_i``, length ``T_i = T_i(b_i)`` where
``b_i`` is :meth:`Instance.bandwidth_of` (its partition's bandwidth when it
is mapped, else the largest bandwidth: the fastest it can ever run).
``est_i`` is its earliest start: ``max(r_i, max_p est_p + T_p)`` over its
predecessors ``p`` (the longest path of the dependency DAG), or ``t_k`` with a
fixed start (below). ``succ_i`` is the longest chain of successors after it:
``max_s (T_s + succ_s)``. I/O phase ``j`` of job ``i`` (``v_ij > 0``) is an
*operation* on the I/O node with

.. math::

    h_{ij} = est_i + \\sum_{j' \\le j} w_{ij'} + \\sum_{j' < j} v_{ij'}/b_i,
    \\quad p_{ij} = v_{ij}/b_i, \\quad
    q_{ij} = \\sum_{j' > j} (w_{ij'} + v_{ij'}/b_i) + succ_i

(head, processing time, tail). In any feasible schedule the operation starts
at ``>= h_ij`` and the makespan is ``>= C_ij + q_ij``.

Makespan bounds (rules 1-5, free starts, any mapping of unmapped jobs):

- ``longest-job``: ``max_i est_i + T_i``.
- ``area``: ``min_i est_i + sum_i Q_i T_i / sum_k P_k``; for jobs mapped on
  ``k`` also ``min_{i on k} est_i + sum_{i on k} Q_i T_i / P_k``.
- ``io-node``: ``H + Qt + sum_i V_i / sum_k b_k`` (``H`` the smallest head,
  ``Qt`` the smallest tail); for jobs mapped on ``k`` also
  ``min h + sum p + min q`` over the operations of ``k``.
- ``jackson-preemptive`` (jobs mapped on a partition): the optimum of the
  one-machine relaxation ``1 | r_j, pmtn | max (C_j + q_j)`` of each I/O
  node, computed by Jackson's preemptive schedule.

Max-stretch bounds:

- ``trivial``: 1. With free starts this is also the optimum (run the jobs one
  after the other), which is why the other bounds need fixed starts.
- ``makespan-ratio`` and ``edf-bisection`` (fixed starts only, the IO-SCHED
  one-pack problem: every job of partition ``k`` starts at
  ``t_k = max_{i on k} r_i``): ``rho >= (LB_k - t_k) / max_{i on k} T_i``
  with ``LB_k`` the Jackson bound of ``k``; and the smallest ``rho`` for which
  the preemptive one-machine problem with releases ``h_ij`` and deadlines
  ``t_k + rho T_i - q_ij`` is feasible (EDF is exact for it, Horn 1974),
  bracketed by bisection; the proven-infeasible end is returned.

Execution models (SPEC §10): :data:`HOLDS_UNDER` says under which models
each bound is proven (``exclusive`` and ``shared``: they use only that a
phase moves at most ``b_k`` and a node at most ``b_k`` in all, with the
fluid-to-preemptive lemma of ``models/bounds.md``); use
:mod:`opt_sched.bound_models` to get the bounds of another model. The
one-machine building blocks (EDF, Jackson) are in
:mod:`opt_sched.one_machine` and re-exported here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .bounds_flow import flow_lower_bound
from .instance import Instance, Job
from .objectives import FLOW_OBJECTIVES, OBJECTIVES, check_objective
from .one_machine import REL_TOL as _REL_TOL
from .one_machine import (
    Expired,
    edf_feasible,
    edf_max_lateness,
    jackson_preemptive_makespan,
)
from .one_machine import OutOfTimeError as _OutOfTimeError
from .operations import (
    heads_and_tails,
    is_one_pack,
    job_operations,
    one_pack_partitions,
    pack_starts,
)

__all__ = [
    "HOLDS_UNDER",
    "OBJECTIVES",
    "Expired",
    "best_makespan_bound",
    "best_max_stretch_bound",
    "edf_feasible",
    "edf_max_lateness",
    "jackson_preemptive_makespan",
    "lower_bound",
    "makespan_bounds",
    "max_stretch_bounds",
]

HOLDS_UNDER: dict[str, frozenset[str]] = {
    "longest-job": frozenset({"exclusive", "shared"}),
    "area": frozenset({"exclusive", "shared"}),
    "io-node": frozenset({"exclusive", "shared"}),
    "jackson-preemptive": frozenset({"exclusive", "shared"}),
    "trivial": frozenset({"exclusive", "shared"}),
    "makespan-ratio": frozenset({"exclusive", "shared"}),
    "edf-bisection": frozenset({"exclusive", "shared"}),
}
"""Bound name -> the execution models (SPEC §10) under which it is proven
(``models/bounds.md``, "Which bounds hold under which execution model").
Every bound here needs only that an I/O phase on node ``k`` never moves
data faster than ``b_k`` and that the node never moves more than ``b_k`` in
all (true of ``exclusive`` and of ``shared``, where ``eta <= 1``): a model
not listed gets none of them (:mod:`opt_sched.bound_models`)."""

_BISECTION_PRECISION = 1e-6
"""Relative width ``(hi - lo) / lo`` at which the max-stretch bisection stops."""


# -- per-job data ---------------------------------------------------------------
def _job_operation_arrays(job: Job, bandwidth: float) -> _Operations:
    """Heads, durations and tails (:mod:`opt_sched.operations`) of the job's
    operations, relative to its start, and its length ``T_i(b)``."""
    ops = job_operations(job)
    return _Operations(ops.heads(bandwidth), ops.durations(bandwidth),
                       ops.tails(bandwidth), job.length(bandwidth))


@dataclass(frozen=True)
class _Operations:
    """The operations of one job, relative to its start (arrays)."""

    head: np.ndarray
    duration: np.ndarray
    tail: np.ndarray
    length: float


@dataclass(frozen=True)
class _JobData:
    """One job with its effective partition (``None``: unmapped), ``T_i``,
    ``est_i``, ``succ_i`` and, once attached, its operations."""

    job: Job
    partition: int | None
    length: float
    est: float
    succ: float
    ops: _Operations | None = None


def _job_data(instance: Instance, fixed_start: bool) -> list[_JobData]:
    """Per job: partition, length ``T_i``, ``est_i`` and ``succ_i`` (no
    operations yet, see :func:`_with_operations`).

    With ``fixed_start`` the instance must be one-pack
    (:func:`opt_sched.operations.is_one_pack`) and ``est_i = t_k``,
    ``succ_i = 0``.
    """
    jobs = instance.jobs
    lengths = [job.length(instance.bandwidth_of(job)) for job in jobs]
    if fixed_start:
        partition = one_pack_partitions(instance, "fixed_start=True")
        starts = pack_starts(instance, partition)
        est, succ = [starts[k] for k in partition], [0.0] * len(jobs)
    else:
        est, succ = heads_and_tails(instance, lengths)
    return [_JobData(job, instance.effective_partition(job), lengths[i], est[i],
                     succ[i]) for i, job in enumerate(jobs)]


def _with_operations(instance: Instance, data: list[_JobData],
                     expired: Expired | None) -> list[_JobData]:
    """``data`` with every job's operations attached."""
    out = []
    for item in data:
        if expired is not None and expired():
            raise _OutOfTimeError
        ops = _job_operation_arrays(item.job, instance.bandwidth_of(item.job))
        out.append(_JobData(item.job, item.partition, item.length, item.est,
                            item.succ, ops))
    return out


def _by_partition(data: list[_JobData]) -> dict[int, list[_JobData]]:
    groups: dict[int, list[_JobData]] = {}
    for item in data:
        if item.partition is not None:
            groups.setdefault(item.partition, []).append(item)
    return groups


def _node_operations(items: list[_JobData]
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Absolute heads, durations, tails and owner lengths ``T_i`` of the
    operations of ``items`` (one I/O node)."""
    if not items:
        empty = np.zeros(0)
        return empty, empty, empty, empty
    ops = [it.ops for it in items]
    assert all(op is not None for op in ops)
    heads = np.concatenate([it.est + op.head for it, op in zip(items, ops)])
    durations = np.concatenate([op.duration for op in ops])
    tails = np.concatenate([op.tail + it.succ for it, op in zip(items, ops)])
    lengths = np.concatenate([np.full(op.duration.size, it.length)
                              for it, op in zip(items, ops)])
    return heads, durations, tails, lengths


# -- makespan -------------------------------------------------------------------
def makespan_bounds(instance: Instance, *, fixed_start: bool = False,
                    expired: Expired | None = None) -> dict[str, float]:
    """Every applicable lower bound on the makespan, by name.

    Valid for every schedule meeting SPEC §3 rules 1-5 (any start times, any
    partition for unmapped jobs). With ``fixed_start=True`` the instance must
    be one-pack (every job mapped, no dependency) and the bounds hold for the
    IO-SCHED problem, where every job of partition ``k`` starts at
    ``t_k = max_{i on k} r_i`` (they are then at least as large).

    ``expired`` (optional): once it returns true, the bounds not yet computed
    are skipped (``longest-job`` and ``area`` are always computed).

    Returns
    -------
    dict
        ``longest-job`` and ``area`` always; ``io-node`` when some job does
        I/O; ``jackson-preemptive`` when some job mapped to a partition does.
    """
    data = _job_data(instance, fixed_start)
    platform = instance.platform
    out = {"longest-job": max(it.est + it.length for it in data)}

    first = min(it.est for it in data)
    work = math.fsum(it.job.nodes * it.length for it in data)
    area = first + work / platform.total_nodes
    for k, items in _by_partition(data).items():
        work_k = math.fsum(it.job.nodes * it.length for it in items)
        area = max(area, min(it.est for it in items)
                   + work_k / platform.partitions[k].nodes)
    out["area"] = area
    try:
        data = _with_operations(instance, data, expired)
        groups = _by_partition(data)
        heads, durations, tails, _ = _node_operations(data)
        if durations.size:
            volume = math.fsum(it.job.total_volume for it in data)
            bandwidth = math.fsum(p.bandwidth for p in platform.partitions)
            io_node = float(heads.min() + tails.min()) + volume / bandwidth
            for items in groups.values():
                h, p, q, _ = _node_operations(items)
                if p.size:
                    io_node = max(io_node, float(h.min() + q.min()) + math.fsum(p))
            out["io-node"] = io_node
        jackson = -math.inf
        for items in groups.values():
            if any(it.ops is not None and it.ops.duration.size for it in items):
                h, p, q, _ = _node_operations(items)
                value = jackson_preemptive_makespan(h, p, q, expired=expired)
                jackson = max(jackson, value)
                out["jackson-preemptive"] = jackson
    except _OutOfTimeError:
        pass
    return out


def best_makespan_bound(instance: Instance, *, fixed_start: bool = False,
                        expired: Expired | None = None) -> tuple[float, str]:
    """The largest of :func:`makespan_bounds`, with its name."""
    return _best(makespan_bounds(instance, fixed_start=fixed_start, expired=expired))


# -- max stretch ----------------------------------------------------------------
def max_stretch_bounds(instance: Instance, *, fixed_start: bool | None = None,
                       expired: Expired | None = None) -> dict[str, float]:
    """Every applicable lower bound on the max stretch ``max_i (C_i - S_i)/T_i``.

    Parameters
    ----------
    fixed_start
        ``True``: the IO-SCHED one-pack problem, every job of partition ``k``
        starts at ``t_k = max_{i on k} r_i`` (requires a mapped instance
        without dependencies, else :class:`OptionError`). ``False``: free
        starts; then only ``trivial`` (= 1) is returned, and it is the
        optimum, since running the jobs one after the other gives every job
        stretch 1. ``None`` (default): ``True`` iff every job is mapped (or
        the platform has one partition) and there is no dependency.

    expired
        Optional: once it returns true, the partitions not yet bounded are
        skipped (each partition's bound is valid on its own).

    Returns
    -------
    dict
        ``trivial``; with fixed starts also ``makespan-ratio`` and, when some
        job does I/O, ``edf-bisection`` (unless ``expired`` cut them short).
    """
    if fixed_start is None:
        fixed_start = is_one_pack(instance)
    out = {"trivial": 1.0}
    if not fixed_start:
        return out
    data = _job_data(instance, fixed_start=True)
    starts = pack_starts(instance, [it.partition for it in data])
    ratio = 1.0
    edf = 1.0
    has_io = False
    try:
        data = _with_operations(instance, data, expired)
        for k, items in _by_partition(data).items():
            heads, durations, tails, lengths = _node_operations(items)
            if not durations.size:
                continue
            longest = max(it.length for it in items)
            jackson = jackson_preemptive_makespan(heads, durations, tails,
                                                  expired=expired)
            ratio_k = max(1.0, (jackson - starts[k]) / longest)
            ratio = max(ratio, ratio_k)
            edf = max(edf, _edf_bisection(starts[k], heads, durations, tails,
                                          lengths, lower=ratio_k, expired=expired))
            has_io = True
    except _OutOfTimeError:
        pass
    out["makespan-ratio"] = ratio
    if has_io:
        out["edf-bisection"] = edf
    return out


def _edf_bisection(start: float, heads: np.ndarray, durations: np.ndarray,
                   tails: np.ndarray, lengths: np.ndarray, *,
                   lower: float = 1.0, expired: Expired | None = None) -> float:
    """Largest ``rho`` proven infeasible for the preemptive relaxation of one
    I/O node with fixed start ``t = start`` (or ``lower`` if none is).

    Operation ``(i, j)`` must complete by ``t + rho T_i - q_ij``. Let
    ``L(rho)`` be the optimal max lateness (:func:`edf_max_lateness`). Each
    operation's lateness falls with slope ``T_i <= T_max`` in ``rho``, so

    - ``L(rho) > 0`` proves ``rho* >= rho + L(rho) / T_max`` (a jump on the
      infeasible side, kept as ``lo``);
    - ``L(rho) <= 0`` proves ``rho + L(rho) / T_max`` feasible (``hi``).

    Bisection with these jumps stops when ``hi - lo <= 1e-6 lo``. ``lo`` only
    ever takes proven values, so it is a valid lower bound. ``lower`` must
    itself be a valid bound (e.g. the makespan ratio).

    Start: ``hi = max_i (1 + (sum p) / T_i)`` is at least the max stretch of
    any non-idling list schedule (a job waits only while the node serves
    other jobs' I/O, at most ``sum p`` in all), hence feasible; it is checked,
    and doubled while (through rounding) it is not.
    """
    t_max = float(lengths.max())
    total = math.fsum(durations.tolist())
    spread = float(np.max(np.abs(heads))) + float(np.max(tails))

    def lateness(rho: float) -> float:
        return edf_max_lateness(heads, durations, start + rho * lengths - tails,
                                expired=expired)

    def tolerance(rho: float) -> float:
        return _REL_TOL * max(1.0, abs(start) + rho * t_max + spread)

    lo = max(1.0, lower)
    late = lateness(lo)
    if late <= tolerance(lo):
        return lo
    lo += (late - tolerance(lo)) / t_max
    hi = max(lo, float(np.max(1.0 + total / lengths)))
    while True:
        late = lateness(hi)
        if late <= tolerance(hi):
            hi = max(lo, hi + min(late, 0.0) / t_max)
            break
        lo = max(lo, hi + (late - tolerance(hi)) / t_max)
        hi = 2.0 * max(hi, lo)
    while hi - lo > _BISECTION_PRECISION * lo:
        mid = 0.5 * (lo + hi)
        late = lateness(mid)
        if late > tolerance(mid):
            lo = min(hi, max(mid, mid + (late - tolerance(mid)) / t_max))
        else:
            hi = max(lo, mid + min(late, 0.0) / t_max)
    return lo


def best_max_stretch_bound(instance: Instance, *, fixed_start: bool | None = None,
                           expired: Expired | None = None) -> tuple[float, str]:
    """The largest of :func:`max_stretch_bounds`, with its name."""
    return _best(max_stretch_bounds(instance, fixed_start=fixed_start,
                                    expired=expired))


# -- front door -----------------------------------------------------------------
def lower_bound(instance: Instance, objective: str, *,
                fixed_start: bool | None = None,
                expired: Expired | None = None) -> float:
    """The best lower bound for ``objective`` (:data:`OBJECTIVES`).

    ``fixed_start`` as in :func:`max_stretch_bounds`; for the makespan
    ``None`` means ``False`` (free-start bounds hold for IO-SCHED too). The
    flow objectives (max flow stretch, mean flow time) are bounded by
    :func:`opt_sched.bounds_flow.flow_lower_bound` (free starts).
    ``expired``: see :func:`makespan_bounds`.
    """
    check_objective(objective)
    if objective in FLOW_OBJECTIVES:  # measured from the releases
        return flow_lower_bound(instance, objective, expired=expired)
    if objective == "makespan":
        return best_makespan_bound(instance, fixed_start=bool(fixed_start),
                                   expired=expired)[0]
    return best_max_stretch_bound(instance, fixed_start=fixed_start,
                                  expired=expired)[0]


def _best(bounds: dict[str, float]) -> tuple[float, str]:
    name = max(bounds, key=bounds.__getitem__)
    return bounds[name], name
