"""Exact HPC-IO with releases on tiny instances, by enumeration (the referee
of the flow objectives).

HPC-IO (SPEC §5): map every job to a partition and choose its start, under
rules 1-5. For a *regular* objective (non-decreasing in every completion
``C_i``: makespan, max flow stretch ``max_i (C_i - r_i) / T_i``, mean flow
time) the search below is exact.

The decisions, once the mapping is fixed, are per partition: the order ``pi``
in which its jobs start, and the order ``sigma`` in which its I/O node serves
the I/O phases (each job's own phases in their order). The *earliest*
schedule of ``(pi, sigma)`` is simulated event by event: at each instant, the
next job of ``pi`` starts when it is released and ``Q_i`` nodes are free (jobs
ending at that instant have freed theirs), the next phase of ``sigma`` starts
when its job is ready for it (its previous compute done) and the node is
free; a compute phase starts as soon as the I/O before it ends. If nothing
can happen any more while work is left, the orders deadlock and are skipped.

Why this is exact. Take an optimal schedule, ``pi`` its order of job starts
and ``sigma`` its I/O order. By induction over its events in time order, the
earliest schedule of ``(pi, sigma)`` starts every job and phase no later: a
job's predecessors in ``pi`` start no later, and at its start time in the
optimal schedule the jobs still running in the simulated one are a subset of
those running there (they started no later and end no later), so its nodes
are free by then; a phase's job is ready no later and the phase before it on
the node ends no later. Jobs start in ``pi`` order at non-decreasing times,
so checking the free nodes at each start is enough for rule 4 (a job started
later checks again, with the earlier ones counted). Hence every completion
is no later, and a regular objective no larger. Partitions share nothing, so
the best orders of each partition are found separately (a max objective is
the max, a sum objective the sum, of the partitions' parts), and the mapping
is enumerated.

Cost: ``prod_k n_k! * (sum m)! / prod m_i!`` simulations for the mappings, so
2-4 jobs with a few I/O phases. This module imports nothing from
:mod:`opt_sched.simulation` or the exact models it referees.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

from ..errors import OptionError
from ..instance import Instance, Job
from ..objectives import check_objective
from ..operations import allowed_partitions, job_operations, phase_starts
from ..reservations import Reservations
from ..schedule import JobSchedule, Schedule

__all__ = ["OBJECTIVES", "brute_force_hpc_io"]

OBJECTIVES = ("makespan", "max-flow-stretch", "mean-flow-time")
"""The regular objectives this enumeration is exact for."""


@dataclass(frozen=True)
class _Plan:
    """One job on one partition: lags before each nonzero I/O phase, their
    durations, the compute after the last one."""

    index: int
    job: Job
    nodes: int
    release: float
    lags: tuple[float, ...]
    durations: tuple[float, ...]
    tail: float
    length: float  # T_i at Instance.bandwidth_of (the objective's)


def brute_force_hpc_io(instance: Instance, objective: str = "mean-flow-time",
                       max_phases: int = 8, max_jobs: int = 5, *,
                       reservations: Reservations | None = None
                       ) -> tuple[float, Schedule]:
    """Optimal HPC-IO value and a schedule reaching it (module doc).

    Parameters
    ----------
    instance
        No dependencies; at most ``max_jobs`` jobs and ``max_phases`` nonzero
        I/O phases in all.
    objective
        ``"makespan"``, ``"max-flow-stretch"`` or ``"mean-flow-time"``.
    reservations
        Nodes held and I/O busy intervals from time 0 (one partition,
        :mod:`opt_sched.reservations`): a job starts only when the nodes
        left free by the reservations and the running jobs suffice, an I/O
        phase at the first time ``>=`` its turn where it fits between the
        busy intervals (the exactness argument is unchanged: the optimal
        schedule's phase start is itself such a fit).

    Raises
    ------
    OptionError
        Another objective, dependencies, or an instance beyond the limits.
    """
    check_objective(objective, OBJECTIVES)
    if instance.has_dependencies:
        raise OptionError("brute force hpc-io: dependencies are not supported")
    phases = sum(job_operations(job).count for job in instance.jobs)
    if instance.num_jobs > max_jobs or phases > max_phases:
        raise OptionError(f"brute force hpc-io: {instance.num_jobs} jobs and {phases} "
                          f"I/O phases, limits {max_jobs} and {max_phases}")
    parts = instance.platform.partitions
    if reservations is not None:
        if len(parts) != 1:
            raise OptionError("brute force hpc-io: reservations need one partition")
        reservations.check_fits(parts[0].nodes)
    allowed = allowed_partitions(instance)
    best_value = math.inf
    best: dict[int, tuple[int, float, list[float]]] = {}
    visited = 0
    cache: dict[tuple[int, tuple[int, ...]], tuple[float, dict, int]] = {}
    for mapping in itertools.product(*allowed):
        value = -math.inf if objective != "mean-flow-time" else 0.0
        chosen: dict[int, tuple[int, float, list[float]]] = {}
        for k in range(len(parts)):
            members = tuple(i for i in range(instance.num_jobs) if mapping[i] == k)
            if not members:
                continue
            key = (k, members)
            if key not in cache:
                cache[key] = _best_orders(instance, k, members, objective,
                                          reservations)
            part_value, part_times, count = cache[key]
            visited += count
            if objective == "mean-flow-time":
                value += part_value
            else:
                value = max(value, part_value)
            chosen.update(part_times)
        if value < best_value:
            best_value, best = value, chosen
    if objective == "mean-flow-time":
        best_value /= instance.num_jobs
    out = []
    for i, job in enumerate(instance.jobs):
        k, start, io_starts = best[i]
        out.append(_job_schedule(job, k, start, io_starts, parts[k].bandwidth))
    schedule = Schedule(tuple(out), method="brute-force-hpc-io",
                        info={"objective": objective, "simulations": visited})
    return float(best_value), schedule


def _plans(instance: Instance, k: int, members: tuple[int, ...]) -> list[_Plan]:
    bandwidth = instance.platform.partitions[k].bandwidth
    out = []
    for i in members:
        job = instance.jobs[i]
        ops = job_operations(job)
        out.append(_Plan(i, job, job.nodes, job.release, tuple(ops.lags.tolist()),
                         tuple(ops.durations(bandwidth).tolist()), ops.tail,
                         job.length(instance.bandwidth_of(job))))
    return out


def _best_orders(instance: Instance, k: int, members: tuple[int, ...],
                 objective: str, reservations: Reservations | None
                 ) -> tuple[float, dict, int]:
    """The best ``(pi, sigma)`` of partition ``k`` for its ``members``: its
    part of the objective, ``{job: (k, start, I/O starts)}`` and the number of
    simulations."""
    plans = _plans(instance, k, members)
    capacity = instance.platform.partitions[k].nodes
    tokens = [m for m, plan in enumerate(plans) for _ in plan.durations]
    best_value = math.inf
    best_times: dict = {}
    count = 0
    for pi in itertools.permutations(range(len(plans))):
        for sigma in _multiset_orders(tokens):
            count += 1
            times = _simulate(plans, capacity, pi, sigma, reservations)
            if times is None:
                continue
            starts, completions, io_starts = times
            value = _part_value(plans, completions, objective)
            if value < best_value:
                best_value = value
                best_times = {plans[m].index: (k, starts[m], io_starts[m])
                              for m in range(len(plans))}
    return best_value, best_times, count


def _multiset_orders(tokens: list[int]):
    """Every distinct order of the multiset ``tokens``."""
    seen: set[tuple[int, ...]] = set()
    for order in itertools.permutations(tokens):
        if order not in seen:
            seen.add(order)
            yield order


def _part_value(plans: list[_Plan], completions: list[float], objective: str) -> float:
    if objective == "makespan":
        return max(completions)
    flows = [c - plan.release for plan, c in zip(plans, completions)]
    if objective == "mean-flow-time":
        return math.fsum(flows)  # the sum; divided by n at the end
    value = 1.0
    for plan, flow in zip(plans, flows):
        if plan.length > 0:
            value = max(value, flow / plan.length)
    return value


def _simulate(plans: list[_Plan], capacity: int, pi: tuple[int, ...],
              sigma: tuple[int, ...], reservations: Reservations | None = None
              ) -> tuple[list[float], list[float], list[list[float]]] | None:
    """The earliest schedule of ``(pi, sigma)`` (module doc), or ``None`` if
    the orders deadlock: job starts, completions, I/O starts."""
    n = len(plans)
    start = [math.nan] * n
    completion = [math.nan] * n
    ready = [math.nan] * n          # when the job's next I/O phase may start
    done_ops = [0] * n
    io_starts: list[list[float]] = [[] for _ in range(n)]
    next_job = 0
    next_op = 0
    node_free = -math.inf
    holds = reservations.node_holds if reservations is not None else ()
    t = min(plan.release for plan in plans)
    while True:
        fit = math.inf  # when the next I/O phase fits between busy intervals
        moved = True
        while moved:
            moved = False
            while next_job < n:
                m = pi[next_job]
                used = sum(plans[j].nodes for j in range(n)
                           if start[j] <= t and not completion[j] <= t) \
                    + sum(q for end, q in holds if end > t)
                if plans[m].release <= t and used + plans[m].nodes <= capacity:
                    start[m] = t
                    if plans[m].durations:
                        ready[m] = t + plans[m].lags[0]
                    else:
                        completion[m] = t + plans[m].tail
                    next_job += 1
                    moved = True
                else:
                    break
            if next_op < len(sigma):
                m = sigma[next_op]
                q = done_ops[m]
                d = plans[m].durations[q]
                fit = math.inf
                if start[m] <= t and ready[m] <= t and node_free <= t:
                    fit = t if reservations is None else \
                        reservations.io_first_fit(t, d)
                if fit <= t:
                    io_starts[m].append(t)
                    node_free = t + d
                    done_ops[m] = q + 1
                    if q + 1 < len(plans[m].durations):
                        ready[m] = t + d + plans[m].lags[q + 1]
                    else:
                        ready[m] = math.inf
                        completion[m] = t + d + plans[m].tail
                    next_op += 1
                    moved = True
        if next_job == n and next_op == len(sigma):
            return start, completion, io_starts
        candidates = [x for x in completion if x > t]
        candidates += [end for end, _ in holds if end > t]
        if t < fit < math.inf:
            candidates.append(fit)
        if next_job < n and plans[pi[next_job]].release > t:
            candidates.append(plans[pi[next_job]].release)
        if node_free > t:
            candidates.append(node_free)
        if next_op < len(sigma):
            m = sigma[next_op]
            if ready[m] > t and ready[m] < math.inf:
                candidates.append(ready[m])
        if not candidates:
            return None
        t = min(candidates)


def _job_schedule(job: Job, partition: int, start: float, io_starts: list[float],
                  bandwidth: float) -> JobSchedule:
    """Phase starts: compute right after the previous I/O, each nonzero I/O
    phase at its simulated start, a zero-volume one when its compute ends
    (:func:`opt_sched.operations.phase_starts`)."""
    compute_starts, all_io = phase_starts(job, start, io_starts, bandwidth)
    return JobSchedule(job.id, partition, compute_starts, all_io)
