"""Exact IO-SCHED on tiny instances by enumerating I/O orders (the referee).

IO-SCHED (SPEC §5): every job is mapped to a partition ``k`` and all jobs of
``k`` start together at ``t_k = max_{i on k} r_i`` (one pack). The only
decision is the order of the I/O phases on each I/O node; each job's own
phases keep their order (SPEC §3 rule 3).

Why enumerating orders is exact. Fix the order in which an I/O node serves
the phases. The *semi-active* schedule of that order starts every phase as
early as the order allows:

- compute phase ``j`` starts when the job's previous I/O phase ends (at
  ``t_k`` for ``j = 0``);
- a zero-volume I/O phase takes no time and does not use the node: it
  starts (and ends) when its compute phase ends;
- the next I/O phase in the order starts at
  ``max(compute end of its job, end of the previous I/O phase on the node)``.

Take any feasible schedule and the order in which its I/O node serves the
phases. Its semi-active schedule for that order has every phase starting no
later (induction along the order and along each job), so every completion
``C_i`` is no larger. Makespan ``max_i C_i`` and, with starts fixed at
``t_k``, max stretch ``max_i (C_i - t_k) / T_i`` are non-decreasing in the
``C_i`` (regular objectives). Hence the best semi-active schedule over all
orders is optimal. Partitions share nothing (own nodes, own I/O node, own
start), so both objectives are the max over partitions of independent
per-partition optima.

The number of orders on a partition whose jobs have ``m_1, ..., m_n``
nonzero I/O phases is the multinomial ``(sum m)! / prod m_i!``. The search
is a depth-first enumeration of order prefixes (children tried by earliest
I/O start, so the first complete order is a greedy one) with two pruning
rules; a prefix is abandoned when, for every completion of it, some job
provably reaches an objective value ``>=`` the best complete order found so
far (no completion can then be strictly better):

- some job, even finishing its remaining work without any further wait;
- the job owning the last I/O phase, which ends at ``>=`` (end of the last
  placed phase) + (sum of the unplaced I/O durations), since the unplaced
  phases follow the placed ones on the node.
``prune=False`` disables it, for cross-checking.

This module deliberately imports nothing from :mod:`opt_sched.simulation`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import OptionError, PlanError
from ..instance import Instance, Job
from ..objectives import OBJECTIVES, check_objective
from ..operations import job_operations, one_pack_partitions
from ..schedule import JobSchedule, Schedule

__all__ = ["OBJECTIVES", "brute_force_io_sched"]


@dataclass(frozen=True)
class _JobPlan:
    """One job of a partition, reduced to what the search needs.

    ``ops[m]`` is the iteration index of the job's ``m``-th nonzero I/O
    phase; ``gap[m]`` is the compute time between the end of the previous
    nonzero I/O phase (or the job's start) and the start of phase ``ops[m]``;
    ``io[m]`` its duration ``v / b``; ``after`` the compute time after the
    last nonzero I/O phase; ``rest[m]`` the job's own work from the end of
    the previous nonzero phase to its completion (``sum gap[m:] + io[m:] +
    after``).
    """

    job: Job
    ops: tuple[int, ...]
    gap: tuple[float, ...]
    io: tuple[float, ...]
    after: float
    rest: tuple[float, ...]
    length: float


def _job_plan(job: Job, bandwidth: float) -> _JobPlan:
    """The job's operations (:func:`opt_sched.operations.job_operations`) on a
    partition of ``bandwidth``."""
    ops = job_operations(job)
    return _JobPlan(job, tuple(ops.iterations.tolist()), tuple(ops.lags.tolist()),
                    tuple(ops.durations(bandwidth).tolist()), ops.tail,
                    tuple(ops.remaining(bandwidth).tolist()), job.length(bandwidth))


def brute_force_io_sched(instance: Instance, objective: str = "makespan",
                         max_phases: int = 12, *, prune: bool = True
                         ) -> tuple[float, Schedule]:
    """Optimal IO-SCHED value and schedule, by enumerating I/O orders.

    Parameters
    ----------
    instance
        Every job mapped to a partition (``partition=None`` is read as 0 on a
        one-partition platform), no dependencies, and the jobs of each
        partition fit it together (``sum Q_i <= P_k``).
    objective
        ``"makespan"`` (``max_i C_i``) or ``"max-stretch"``
        (``max_i (C_i - t_k) / T_i(b_k)``, 1 for a job of length 0).
    max_phases
        Largest number of nonzero I/O phases allowed on one partition.
    prune
        Skip order prefixes that cannot beat the incumbent (exact either way).

    Returns
    -------
    tuple
        The optimal value and a semi-active schedule reaching it (one pack
        per partition, ``info`` holds the number of complete orders visited).

    Raises
    ------
    OptionError
        Unknown objective, a partition with more than ``max_phases`` I/O
        phases, an unmapped job, or dependencies.
    PlanError
        The jobs of a partition do not fit it together.
    """
    check_objective(objective)
    platform = instance.platform
    groups: dict[int, list[Job]] = {}
    for job, k in zip(instance.jobs, one_pack_partitions(instance, "brute force")):
        groups.setdefault(k, []).append(job)

    value = -math.inf
    schedules: dict[str, JobSchedule] = {}
    visited = 0
    for k, jobs in sorted(groups.items()):
        part = platform.partitions[k]
        used = sum(job.nodes for job in jobs)
        if used > part.nodes:
            raise PlanError(f"brute force: partition {k} one pack needs {used} "
                            f"nodes, has {part.nodes}")
        plans = [_job_plan(job, part.bandwidth) for job in jobs]
        phases = sum(len(p.ops) for p in plans)
        if phases > max_phases:
            raise OptionError(f"brute force: partition {k} has {phases} I/O phases, "
                              f"max_phases={max_phases}")
        start = max(job.release for job in jobs)
        best, io_starts, count = _search(plans, start, objective, prune)
        visited += count
        value = max(value, best)
        for plan, starts in zip(plans, io_starts):
            schedules[plan.job.id] = _job_schedule(plan, k, start, starts,
                                                   part.bandwidth)
    packs = tuple((tuple(job.id for job in groups[k]),) if k in groups else ()
                  for k in range(platform.num_partitions))
    schedule = Schedule(tuple(schedules[job.id] for job in instance.jobs),
                        packs=packs, method="brute-force",
                        info={"objective": objective, "orders": visited})
    return value, schedule


def _search(plans: list[_JobPlan], start: float, objective: str, prune: bool
            ) -> tuple[float, list[list[float]], int]:
    """Best objective over all I/O orders of one partition.

    Returns the value, the start time of every nonzero I/O phase (per job, in
    the job's order) in a best order, and the number of complete orders
    evaluated.
    """
    n = len(plans)
    score: Callable[[int, float], float]
    if objective == "makespan":
        def score(i: int, completion: float) -> float:
            return completion
    else:
        def score(i: int, completion: float) -> float:
            length = plans[i].length
            return (completion - start) / length if length > 0 else 1.0

    clock = [start] * n        # end of the job's last placed I/O phase (or start)
    done = [0] * n             # nonzero I/O phases placed, per job
    starts: list[list[float]] = [[] for _ in range(n)]
    total = sum(len(p.ops) for p in plans)
    best_value = math.inf
    best_starts: list[list[float]] = [[] for _ in range(n)]
    evaluated = 0

    def finish_alone() -> float:
        """Objective if every job finished its remaining work without waiting."""
        return max(score(i, clock[i] + plans[i].rest[done[i]]) for i in range(n))

    def node_bound(node_free: float, io_left: float) -> float:
        """The remaining I/O phases follow the placed ones on the node, so the
        last of them ends at ``>= node_free + io_left``, in *one* of the jobs
        that still have phases to place (hence the min over them)."""
        end = node_free + io_left
        return min(score(i, end) for i in range(n) if done[i] < len(plans[i].ops))

    def visit(placed: int, node_free: float, io_left: float) -> None:
        nonlocal best_value, best_starts, evaluated
        if placed == total:
            evaluated += 1
            value = finish_alone()  # no phase left: this is the exact value
            if value < best_value:
                best_value = value
                best_starts = [list(s) for s in starts]
            return
        if prune and max(finish_alone(), node_bound(node_free, io_left)) >= best_value:
            return
        # children by earliest I/O start (then job order): the first leaf is a
        # greedy schedule, a good incumbent for pruning. All are visited.
        children = []
        for i in range(n):
            m = done[i]
            if m < len(plans[i].ops):
                children.append((max(clock[i] + plans[i].gap[m], node_free), i))
        for begin, i in sorted(children):
            m = done[i]
            io = plans[i].io[m]
            saved = clock[i]
            clock[i] = begin + io
            done[i] = m + 1
            starts[i].append(begin)
            visit(placed + 1, begin + io, io_left - io)
            starts[i].pop()
            done[i] = m
            clock[i] = saved

    visit(0, -math.inf, math.fsum(io for p in plans for io in p.io))
    return best_value, best_starts, evaluated


def _job_schedule(plan: _JobPlan, partition: int, start: float,
                  io_starts: list[float], bandwidth: float) -> JobSchedule:
    """The semi-active phase start times of one job, given the start times of
    its nonzero I/O phases."""
    job = plan.job
    compute_starts: list[float] = []
    all_io: list[float] = []
    now = start
    m = 0
    for w, v in zip(job.compute, job.io_volume):
        compute_starts.append(now)
        now += w
        if v > 0:
            begin = max(io_starts[m], now)  # equal up to rounding
            m += 1
            all_io.append(begin)
            now = begin + v / bandwidth
        else:
            all_io.append(now)
    return JobSchedule(job.id, partition, tuple(compute_starts), tuple(all_io))
