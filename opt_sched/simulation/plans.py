"""Plans: what a heuristic decides before the simulator executes it.

A plan says where each job runs and when it may start; the simulator decides
the rest (the order of I/O phases, by a policy). Each plan checks itself
against the instance in :meth:`lower` and raises
:class:`~opt_sched.errors.PlanError` with a one-line message naming the job
or field, then becomes a :class:`~opt_sched.simulation.program.Program`.

- :class:`OnePackPlan` -- every partition runs its jobs as one pack.
- :class:`PackPlan` -- ordered packs per partition (seed 003, Make-Pack).
- :class:`StartsPlan` -- a partition and a planned start per job (list
  schedules, the average-bandwidth planning model, exact-model starts).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol

from ..errors import PlanError
from ..instance import Instance
from ..schedule import Packs
from .program import Program, from_packs, from_starts

__all__ = ["OnePackPlan", "PackPlan", "Plan", "StartsPlan", "check_ids"]


class Plan(Protocol):
    """Anything the simulator can execute."""

    label: str

    def lower(self, instance: Instance) -> Program:
        """Check the plan against ``instance`` and lower it for the kernel."""
        ...


def _default_partition(instance: Instance, job_index: int, plan: str) -> int:
    """The job's partition (:meth:`Instance.effective_partition`)."""
    job = instance.jobs[job_index]
    partition = instance.effective_partition(job)
    if partition is not None:
        return partition
    raise PlanError(f"job {job.id!r}: partition is not set and {plan} cannot choose "
                    f"one among {instance.platform.num_partitions} partitions")


def _check_partition(instance: Instance, job_id: str, k: object, where: str) -> int:
    """Return ``k`` if it is a partition of the platform that ``job_id`` fits."""
    count = instance.platform.num_partitions
    if (isinstance(k, bool) or not isinstance(k, numbers.Integral)
            or not 0 <= k < count):
        raise PlanError(f"{where}: partition={k!r} does not exist "
                        f"(platform has {count})")
    k = int(k)
    job = instance.job(job_id)
    if job.partition is not None and job.partition != k:
        raise PlanError(f"{where}: partition={k} but the instance maps job "
                        f"{job_id!r} to partition {job.partition}")
    if job.nodes > instance.platform.partitions[k].nodes:
        raise PlanError(f"{where}: nodes={job.nodes} exceeds partition {k} "
                        f"({instance.platform.partitions[k].nodes} nodes)")
    return k


def check_ids(instance: Instance, ids: Sequence[str], what: str) -> None:
    """Every id known, and every job of the instance present exactly once.

    Raises
    ------
    PlanError
        ``{what}: job 'x' is not in the instance``, ``appears twice`` or ``is
        missing`` (the first missing one, and how many more).
    """
    seen: set[str] = set()
    for job_id in ids:
        if job_id not in instance.index:
            raise PlanError(f"{what}: job {job_id!r} is not in the instance "
                            f"{instance.name!r}")
        if job_id in seen:
            raise PlanError(f"{what}: job {job_id!r} appears twice")
        seen.add(job_id)
    missing = [job.id for job in instance.jobs if job.id not in seen]
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise PlanError(f"{what}: job {missing[0]!r} is missing{more}")


@dataclass(frozen=True)
class OnePackPlan:
    """Each partition runs all its jobs as one pack (the IO-SCHED setting).

    Job ``i`` runs on ``job.partition`` (partition 0 on a single-partition
    platform). The jobs of partition ``k`` all start at
    ``max(max_i r_i, completions of their predecessors on other
    partitions)``; a dependency inside a partition is a :class:`PlanError`.
    """

    label: ClassVar[str] = "one-pack"

    def lower(self, instance: Instance) -> Program:
        parts: list[list[str]] = [[] for _ in instance.platform.partitions]
        for i, job in enumerate(instance.jobs):
            k = _default_partition(instance, i, "OnePackPlan")
            _check_partition(instance, job.id, k, f"OnePackPlan: job {job.id!r}")
            parts[k].append(job.id)
        return PackPlan(tuple((tuple(p),) if p else () for p in parts)).lower(instance)


@dataclass(frozen=True)
class PackPlan:
    """Ordered packs per partition (SPEC §3 rule 6).

    ``packs[k]`` is the ordered sequence of packs of partition ``k``, each a
    sequence of job ids; a mapping ``{k: packs}`` is accepted too and missing
    partitions get no pack. Every job appears in exactly one pack, a pack's
    width ``sum_{i in p} Q_i`` fits ``P_k``, and no job depends on a job of its
    own pack. Pack ``p+1`` of ``k`` starts when every job of pack ``p`` has
    completed, and not before the releases and predecessors of its jobs.
    """

    packs: Packs
    label: ClassVar[str] = "packs"

    def __init__(self, packs: Sequence[Sequence[Sequence[str]]]
                 | Mapping[int, Sequence[Sequence[str]]]) -> None:
        if isinstance(packs, Mapping):
            for k in packs:
                if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 0:
                    raise PlanError(f"PackPlan: partition={k!r} is not an index")
            width = max(packs, default=-1) + 1
            packs = [packs.get(k, ()) for k in range(int(width))]
        if isinstance(packs, str) or not isinstance(packs, Sequence):
            raise PlanError(f"PackPlan: packs={packs!r} is not a list per partition")
        normal = []
        for k, part in enumerate(packs):
            if isinstance(part, str) or not isinstance(part, Sequence):
                raise PlanError(f"PackPlan: packs[{k}]={part!r} is not a list of packs")
            row = []
            for p, pack in enumerate(part):
                if isinstance(pack, str) or not isinstance(pack, Sequence):
                    raise PlanError(
                        f"PackPlan: packs[{k}][{p}]={pack!r} is not a list of job ids")
                row.append(tuple(pack))
            normal.append(tuple(row))
        object.__setattr__(self, "packs", tuple(normal))

    def lower(self, instance: Instance) -> Program:
        count = instance.platform.num_partitions
        if len(self.packs) > count:
            k = len(self.packs) - 1
            raise PlanError(f"PackPlan: partition={k} does not exist "
                            f"(platform has {count})")
        check_ids(instance, [i for part in self.packs for pack in part for i in pack],
                   "PackPlan")
        for k, part in enumerate(self.packs):
            size = instance.platform.partitions[k].nodes
            for p, pack in enumerate(part):
                if not pack:
                    raise PlanError(f"PackPlan: pack {p} of partition {k} is empty")
                for job_id in pack:
                    _check_partition(instance, job_id, k, f"PackPlan: job {job_id!r}")
                width = sum(instance.job(job_id).nodes for job_id in pack)
                if width > size:
                    raise PlanError(f"PackPlan: pack {p} of partition {k} needs "
                                    f"nodes={width} > {size}")
        full = self.packs + ((),) * (count - len(self.packs))
        return from_packs(instance, full)


@dataclass(frozen=True)
class StartsPlan:
    """A partition and a planned start time per job.

    Job ``i`` starts at the earliest time ``t >= start_i``, ``t >= r_i`` and
    ``t >=`` its predecessors' completions at which its partition has ``Q_i``
    free nodes. The jobs of a partition start in the order of their planned
    starts (ties by instance order) and *never overtake*: a job that could
    fit waits while an earlier-planned job of its partition waits for nodes.
    This keeps the plan's order, like a conservative reservation, and makes
    the execution of a feasible plan whose jobs run no longer than planned
    start every job at its planned time. For the ordering only, a planned
    start is first raised to the job's release and to its predecessors'
    (ties by instance order as far as the dependencies allow), so a plan that
    lists a job before its predecessor cannot deadlock; see
    :func:`~opt_sched.simulation.program.from_starts`.

    ``partition`` may be omitted (``None``) when every job is mapped in the
    instance or the platform has one partition.
    """

    start: Mapping[str, float]
    partition: Mapping[str, int] | None = None
    label: ClassVar[str] = "starts"

    def lower(self, instance: Instance) -> Program:
        if not isinstance(self.start, Mapping):
            raise PlanError(f"StartsPlan: start={self.start!r} is not a mapping id -> "
                            f"time")
        check_ids(instance, list(self.start), "StartsPlan start")
        starts = []
        for job in instance.jobs:
            value = self.start[job.id]
            if (isinstance(value, bool) or not isinstance(value, numbers.Real)
                    or not math.isfinite(value)):
                raise PlanError(f"StartsPlan: job {job.id!r}: start={value!r} is not "
                                f"a finite number")
            starts.append(float(value))
        if self.partition is None:
            parts = [_default_partition(instance, i, "StartsPlan")
                     for i in range(instance.num_jobs)]
        else:
            if not isinstance(self.partition, Mapping):
                raise PlanError(f"StartsPlan: partition={self.partition!r} is not a "
                                f"mapping id -> partition")
            check_ids(instance, list(self.partition), "StartsPlan partition")
            parts = [self.partition[job.id] for job in instance.jobs]
        parts = [_check_partition(instance, job.id, k, f"StartsPlan: job {job.id!r}")
                 for job, k in zip(instance.jobs, parts)]
        return from_starts(instance, parts, starts, instance.platform.num_partitions)
