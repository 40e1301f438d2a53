"""Lower bounds for the objectives measured from the releases (SPEC §4, §9):
max flow stretch ``max_i (C_i - r_i) / T_i`` and mean flow time
``(1/n) sum_i (C_i - r_i)``, for HPC-IO with releases (rules 1-5, free
starts, any partition for an unmapped job), optionally on a platform with
:class:`~opt_sched.reservations.Reservations` (nodes held and I/O busy from
time 0: the jobs still running at a window's start). With reservations,
makespan bounds are given too (:func:`reserved_makespan_bounds`): the free
bounds of :mod:`opt_sched.bounds` hold, but ignore what the reservations take.

Derivations: ``models/max-flow-stretch.md``, ``models/mean-flow-time.md``.
Notation as in :mod:`opt_sched.bounds`: ``T_i`` at
:meth:`Instance.bandwidth_of`, ``est_i`` the earliest start (release,
predecessors' chains and, with reservations, the first time ``Q_i`` nodes are
free), operations ``(i, j)`` with heads ``h_ij`` (from ``est_i``), lengths
``p_ij`` and the job's own work ``q_ij`` after them.

Three relaxations, each valid for every feasible schedule:

- **alone** -- job ``i`` run alone from ``est_i``, its I/O phases waiting
  only for the reserved I/O intervals: ``C_i >= ect_i``;
- **I/O node** -- the I/O phases on one preemptive machine that moves volume
  at the total bandwidth (or at ``b_k`` for the jobs mapped on ``k``; 0 in
  reserved intervals); for the flow time each job is one task of volume
  ``V_i`` released at its first head, completed ``>= a_i`` (its compute after
  the last I/O) before ``C_i``;
- **area** -- the nodes as one fluid machine of rate ``P - held(t)``, job
  ``i`` a task of ``Q_i T_i`` node-seconds released at ``est_i``;
- **wide jobs** -- the jobs of one partition that need more than ``P/2``
  nodes never run together: one preemptive machine, job ``i`` a task of
  length ``T_i`` released at ``est_i`` (which already waits for the reserved
  nodes, and they only free up).

Mean flow time: ``sum_i C_i`` is at least each of ``sum_i ect_i``, the SRPT
optimum of the I/O relaxation plus ``sum a_i`` (jobs without I/O counted at
``ect_i``), the SRPT optimum of the area relaxation, and the SRPT optimum of
the wide jobs plus ``ect_i`` of the others
(:func:`opt_sched.rate_profile.srpt_completions`); and the area's *mean
busy time* bound ``area-busy`` (:func:`opt_sched.rate_profile.
mean_busy_times`, ``models/mean-flow-time.md``): job ``i`` holds ``Q_i``
nodes on ``[C_i - T_i, C_i)``, which starts at ``max(est_i, ect_i - T_i)``
or later, so the mean busy time of its area is ``M_i = C_i - T_i / 2`` and
``sum_i C_i >= min sum_i M_i + sum_i T_i / 2`` over the fluid schedules of
the areas ``Q_i T_i``. (The same on the I/O node is never above
``io-srpt``: there the task is the job's whole I/O, ``C_i`` is at least its
completion, and SRPT minimises the completions themselves.)

Max flow stretch (and the reserved makespan): the smallest ``x`` whose
deadlines ``d_i(x) = r_i + x T_i`` (``d_i(x) = x`` for the makespan) pass every
test -- ``ect_i <= d_i``, preemptive EDF of the operations on the I/O node with
deadlines ``d_i - q_ij``, EDF of the areas, EDF of the wide jobs -- bracketed
by bisection; the
largest refuted ``x`` is returned (each refutation is exact for its
relaxation, Horn 1974), so the bound is valid whatever precision the bisection
stops at.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .errors import OptionError
from .instance import Instance
from .objectives import FLOW_OBJECTIVES, check_objective
from .operations import job_operations
from .rate_profile import (
    RateProfile,
    edf_feasible_on,
    mean_busy_times,
    srpt_completions,
)
from .reservations import Reservations

__all__ = [
    "HOLDS_UNDER",
    "HOLDS_UNDER_RESERVED",
    "flow_bounds",
    "flow_lower_bound",
    "max_flow_stretch_bounds",
    "mean_flow_time_bounds",
    "reserved_makespan_bounds",
]

Expired = Callable[[], bool]

HOLDS_UNDER: dict[str, frozenset[str]] = {
    "alone": frozenset({"exclusive", "shared"}),
    "io-srpt": frozenset({"exclusive", "shared"}),
    "area-srpt": frozenset({"exclusive", "shared"}),
    "area-busy": frozenset({"exclusive", "shared"}),
    "wide-srpt": frozenset({"exclusive", "shared"}),
    "deadline-bisection": frozenset({"exclusive", "shared"}),
}
"""Bound name -> the execution models under which it is proven, *without*
reservations: every relaxation here is preemptive (or fluid), and a
``shared`` node moves at most ``b_k`` in all, so a shared schedule is a
fluid schedule of each relaxation (``models/bounds.md``, "Which bounds hold
under which execution model")."""

HOLDS_UNDER_RESERVED: dict[str, frozenset[str]] = {
    name: frozenset({"exclusive"}) for name in HOLDS_UNDER}
"""The same *with* reservations: a reserved I/O interval is a node busy at
full bandwidth (the exclusive rule); under sharing a new phase would share
it instead, so these hold under ``exclusive`` only."""

_PRECISION = 1e-6
"""Relative width at which the bisections stop."""


class _OutOfTimeError(Exception):
    pass


@dataclass(frozen=True)
class _FlowJob:
    """One job as the relaxations see it (times absolute)."""

    release: float
    est: float
    ect: float
    length: float
    nodes: int
    area: float
    partition: int | None
    volume: float
    first_head: float
    last_tail: float
    heads: np.ndarray      # absolute earliest starts of the operations
    volumes: np.ndarray
    tails: np.ndarray      # own work after each operation


def _jobs(instance: Instance, reservations: Reservations | None) -> list[_FlowJob]:
    """Per job: ``est``, ``ect`` (alone), operations (module doc)."""
    jobs = instance.jobs
    platform = instance.platform
    if reservations is not None and platform.num_partitions != 1:
        raise OptionError(f"reservations need a one-partition platform "
                          f"(this one has {platform.num_partitions})")
    if reservations is not None:
        reservations.check_fits(platform.partitions[0].nodes)
    lengths = [job.length(instance.bandwidth_of(job)) for job in jobs]
    est = [0.0] * len(jobs)
    index = instance.index
    for i in instance.topological_order():
        job = jobs[i]
        start = max([job.release] + [est[index[p]] + lengths[index[p]]
                                     for p in job.after])
        if reservations is not None:
            start = max(start, reservations.free_from(platform.partitions[0].nodes,
                                                      job.nodes))
        est[i] = start
    out = []
    for i, job in enumerate(jobs):
        b = instance.bandwidth_of(job)
        ops = job_operations(job)
        durations = ops.durations(b)
        heads = est[i] + ops.heads(b)
        ect = est[i] + lengths[i]
        if reservations is not None and reservations.io_busy and ops.count:
            now = est[i]
            for lag, p in zip(ops.lags.tolist(), durations.tolist()):
                now = reservations.io_first_fit(now + lag, p) + p
            ect = now + ops.tail
        out.append(_FlowJob(
            release=job.release, est=est[i], ect=ect, length=lengths[i],
            nodes=job.nodes, area=job.nodes * lengths[i],
            partition=instance.effective_partition(job),
            volume=float(ops.volumes.sum()),
            first_head=float(heads[0]) if ops.count else est[i],
            last_tail=ops.tail, heads=heads, volumes=ops.volumes,
            tails=ops.tails(b)))
    return out


def _groups(instance: Instance, jobs: list[_FlowJob]
            ) -> list[tuple[list[int], float, float, int]]:
    """Disjoint groups of jobs with their machines: ``(members, bandwidth,
    nodes, partition)``; one group per partition when every job is mapped
    (or there is one partition), else one group over all partitions (total
    bandwidth and nodes; partition -1)."""
    parts = instance.platform.partitions
    if all(job.partition is not None for job in jobs):
        groups: dict[int, list[int]] = {}
        for i, job in enumerate(jobs):
            assert job.partition is not None
            groups.setdefault(job.partition, []).append(i)
        return [(members, parts[k].bandwidth, parts[k].nodes, k)
                for k, members in sorted(groups.items())]
    return [(list(range(len(jobs))), math.fsum(p.bandwidth for p in parts),
             instance.platform.total_nodes, -1)]


def _wide(jobs: list[_FlowJob], group: tuple[list[int], float, float, int]
          ) -> list[int]:
    """The group's jobs that need more than half of its partition's nodes: no
    two of them ever run together (none for the group of several
    partitions, where two may run side by side)."""
    members, _, nodes, k = group
    if k < 0:
        return []
    return [i for i in members if 2 * jobs[i].nodes > nodes and jobs[i].length > 0]


def _profiles(group: tuple[list[int], float, float, int],
              reservations: Reservations | None) -> tuple[RateProfile, RateProfile]:
    """The I/O (volume per second) and node (node-seconds per second) rates
    of a group's machines."""
    _, bandwidth, nodes, _ = group
    if reservations is None:
        return RateProfile.constant(bandwidth), RateProfile.constant(float(nodes))
    return reservations.io_profile(bandwidth), reservations.node_profile(int(nodes))


# -- mean flow time ---------------------------------------------------------------
def mean_flow_time_bounds(instance: Instance, *,
                          reservations: Reservations | None = None,
                          expired: Expired | None = None) -> dict[str, float]:
    """Lower bounds on ``(1/n) sum_i (C_i - r_i)``, by name.

    ``alone`` always; ``io-srpt`` when some job does I/O; ``area-srpt`` and
    ``area-busy``; ``wide-srpt`` when two jobs need more than half a
    partition's nodes (unless ``expired`` cut them short).
    """
    jobs = _jobs(instance, reservations)
    n = len(jobs)
    releases = math.fsum(job.release for job in jobs)
    ect = np.array([job.ect for job in jobs])
    out = {"alone": (math.fsum(ect.tolist()) - releases) / n}
    try:
        io_total = 0.0
        area_total = area_busy_total = 0.0
        wide_total = 0.0
        has_io = has_wide = False
        for group in _groups(instance, jobs):
            _check(expired)
            members = group[0]
            io_rate, node_rate = _profiles(group, reservations)
            with_io = [i for i in members if jobs[i].volume > 0]
            without = [i for i in members if jobs[i].volume <= 0]
            if with_io:
                has_io = True
                done = srpt_completions(
                    io_rate, np.array([jobs[i].first_head for i in with_io]),
                    np.array([jobs[i].volume for i in with_io]))
                io_total += math.fsum(done.tolist()) + math.fsum(
                    jobs[i].last_tail for i in with_io)
            io_total += math.fsum(ect[without].tolist())
            _check(expired)
            done = srpt_completions(node_rate, np.array([jobs[i].est for i in members]),
                                    np.array([jobs[i].area for i in members]))
            area_total += math.fsum(done.tolist())
            _check(expired)
            busy = mean_busy_times(
                node_rate,
                np.array([max(jobs[i].est, jobs[i].ect - jobs[i].length)
                          for i in members]),
                np.array([jobs[i].area for i in members]))
            area_busy_total += math.fsum(busy.tolist()) + math.fsum(
                0.5 * jobs[i].length for i in members)
            wide = _wide(jobs, group)
            rest = sorted(set(members) - set(wide))
            if len(wide) > 1:
                has_wide = True
                done = srpt_completions(RateProfile.constant(1.0),
                                        np.array([jobs[i].est for i in wide]),
                                        np.array([jobs[i].length for i in wide]))
                wide_total += math.fsum(done.tolist())
            else:
                rest = members
            wide_total += math.fsum(ect[rest].tolist())
        if has_wide:
            out["wide-srpt"] = (wide_total - releases) / n
        if has_io:
            out["io-srpt"] = (io_total - releases) / n
        out["area-srpt"] = (area_total - releases) / n
        out["area-busy"] = (area_busy_total - releases) / n
    except _OutOfTimeError:
        pass
    return out


# -- deadline tests (max flow stretch, reserved makespan) -------------------------
def _deadline_tests(instance: Instance, jobs: list[_FlowJob],
                    reservations: Reservations | None, base: np.ndarray,
                    slope: np.ndarray, expired: Expired | None
                    ) -> Callable[[float], bool]:
    """``feasible(x)``: whether deadlines ``d_i = base_i + x slope_i`` pass
    the I/O-node and area EDF tests of every group (module doc)."""
    tests = []
    for group in _groups(instance, jobs):
        members = group[0]
        io_rate, node_rate = _profiles(group, reservations)
        owners = np.concatenate([np.full(jobs[i].volumes.size, i) for i in members]) \
            if members else np.zeros(0, dtype=int)
        owners = owners.astype(int)
        heads = np.concatenate([jobs[i].heads for i in members])
        volumes = np.concatenate([jobs[i].volumes for i in members])
        tails = np.concatenate([jobs[i].tails for i in members])
        est = np.array([jobs[i].est for i in members])
        areas = np.array([jobs[i].area for i in members])
        idx = np.array(members, dtype=int)
        wide = np.array(_wide(jobs, group), dtype=int)
        tests.append((io_rate, node_rate, owners, heads, volumes, tails, est, areas,
                      idx, wide))
    unit = RateProfile.constant(1.0)
    wide_est = np.array([job.est for job in jobs])
    wide_length = np.array([job.length for job in jobs])

    def feasible(x: float) -> bool:
        due = base + x * slope
        for (io_rate, node_rate, owners, heads, volumes, tails, est, areas, idx,
             wide) in tests:
            _check(expired)
            if wide.size > 1 and not edf_feasible_on(unit, wide_est[wide],
                                                     wide_length[wide], due[wide])[0]:
                return False
            if volumes.size and not edf_feasible_on(io_rate, heads, volumes,
                                                    due[owners] - tails)[0]:
                return False
            keep = areas > 0
            if keep.any() and not edf_feasible_on(node_rate, est[keep], areas[keep],
                                                  due[idx][keep])[0]:
                return False
        return True

    return feasible


def _bisect(feasible: Callable[[float], bool], lo: float, hi: float) -> float:
    """Largest ``x`` proven infeasible (or ``lo`` itself, a valid bound, when
    ``lo`` is feasible): doubling ``hi`` until feasible, then bisection to a
    relative width of :data:`_PRECISION`."""
    if feasible(lo):
        return lo
    hi = max(hi, lo * 2.0, lo + 1.0)
    while not feasible(hi):
        lo, hi = hi, 2.0 * hi
    while hi - lo > _PRECISION * max(abs(lo), 1e-300):
        mid = 0.5 * (lo + hi)
        if feasible(mid):
            hi = mid
        else:
            lo = mid
    return lo


def max_flow_stretch_bounds(instance: Instance, *,
                            reservations: Reservations | None = None,
                            expired: Expired | None = None) -> dict[str, float]:
    """Lower bounds on ``max_i (C_i - r_i) / T_i``, by name: ``alone``
    (``max_i (ect_i - r_i) / T_i``, at least 1) and ``deadline-bisection``
    (unless ``expired`` cut it short)."""
    jobs = _jobs(instance, reservations)
    alone = 1.0
    for job in jobs:
        if job.length > 0:
            alone = max(alone, (job.ect - job.release) / job.length)
    out = {"alone": alone}
    positive = [job.length for job in jobs if job.length > 0]
    if not positive:
        return out
    base = np.array([job.release for job in jobs])
    # a job of length 0 has no deadline from the stretch (it counts 1)
    slope = np.array([job.length for job in jobs])
    base = np.where(slope > 0, base, math.inf)
    return out | _deadline_bisection(instance, jobs, reservations, base, slope, alone,
                                     expired)


def _deadline_bisection(instance: Instance, jobs: list[_FlowJob],
                        reservations: Reservations | None, base: np.ndarray,
                        slope: np.ndarray, alone: float,
                        expired: Expired | None) -> dict[str, float]:
    """``{"deadline-bisection": x}``: the smallest ``x`` in ``[alone, 2 alone]``
    (bisected) at which every job meets the deadline ``base_i + x slope_i``
    in the relaxation; ``{}`` when the time runs out."""
    try:
        feasible = _deadline_tests(instance, jobs, reservations, base, slope, expired)
        return {"deadline-bisection": _bisect(feasible, alone, 2.0 * alone)}
    except _OutOfTimeError:
        return {}


def reserved_makespan_bounds(instance: Instance, *,
                             reservations: Reservations | None = None,
                             expired: Expired | None = None) -> dict[str, float]:
    """Lower bounds on ``max_i C_i`` that see the reservations: ``alone``
    (``max_i ect_i``) and ``deadline-bisection`` (every job due at ``x``)."""
    jobs = _jobs(instance, reservations)
    alone = max(job.ect for job in jobs)
    out = {"alone": alone}
    base = np.zeros(len(jobs))
    slope = np.ones(len(jobs))
    return out | _deadline_bisection(instance, jobs, reservations, base, slope, alone,
                                     expired)


# -- front door -------------------------------------------------------------------
def flow_bounds(instance: Instance, objective: str, *,
                reservations: Reservations | None = None,
                expired: Expired | None = None) -> dict[str, float]:
    """Every bound of ``objective`` (a flow objective, or ``"makespan"``
    with reservations), by name."""
    if objective == "makespan":
        return reserved_makespan_bounds(instance, reservations=reservations,
                                        expired=expired)
    check_objective(objective, FLOW_OBJECTIVES)
    if objective == "mean-flow-time":
        return mean_flow_time_bounds(instance, reservations=reservations,
                                     expired=expired)
    return max_flow_stretch_bounds(instance, reservations=reservations,
                                   expired=expired)


def flow_lower_bound(instance: Instance, objective: str, *,
                     reservations: Reservations | None = None,
                     expired: Expired | None = None) -> float:
    """The largest of :func:`flow_bounds`."""
    return max(flow_bounds(instance, objective, reservations=reservations,
                           expired=expired).values())


def _check(expired: Expired | None) -> None:
    if expired is not None and expired():
        raise _OutOfTimeError
