"""``one-pack/<policy>``: every partition runs its jobs as one pack, the
IO-SCHED setting of seed 003 §6.1 (e.g. ``tucan5``).

Supported when every job is mapped to a partition (or the platform has one
partition), the jobs of each partition fit it together, no job depends on a
job of its own partition, the partitions do not wait on each other in a
cycle, and no job demands named resources.
"""

from __future__ import annotations

from ..instance import Instance
from ..operations import overfull_partition
from .entries import Method, MethodEntry
from .packs import resource_reason

__all__ = ["ONE_PACK"]


def _build(instance: Instance, method: Method, seed: int):
    from ..simulation import OnePackPlan

    return OnePackPlan()


def _partition_cycle(instance: Instance, part: list[int]) -> tuple[int, int] | None:
    """Two partitions whose packs wait on each other (through dependencies),
    or None."""
    count = instance.platform.num_partitions
    reach = [[False] * count for _ in range(count)]
    for i, job in enumerate(instance.jobs):
        for dep in job.after:
            reach[part[instance.index[dep]]][part[i]] = True
    for m in range(count):  # transitive closure (R is small)
        for a in range(count):
            if reach[a][m]:
                for b in range(count):
                    if reach[m][b]:
                        reach[a][b] = True
    for a in range(count):
        for b in range(a + 1, count):
            if reach[a][b] and reach[b][a]:
                return a, b
    return None


def _supports(instance: Instance, method: Method) -> str | None:
    reason = resource_reason(instance, "one-pack")
    if reason:
        return reason
    platform = instance.platform
    if platform.num_partitions > 1:
        loose = next((job for job in instance.jobs if job.partition is None), None)
        if loose is not None:
            return (f"job {loose.id!r} is not mapped to a partition (one-pack "
                    f"needs every job mapped, or a single partition)")
    part = [0 if job.partition is None else job.partition for job in instance.jobs]
    full = overfull_partition(instance, part)
    if full is not None:
        k, used, nodes = full
        return (f"the jobs of partition {k} need {used} nodes together, more "
                f"than its {nodes}")
    for i, job in enumerate(instance.jobs):
        for dep in job.after:
            if part[instance.index[dep]] == part[i]:
                return (f"job {job.id!r} depends on job {dep!r} of its own "
                        f"partition {part[i]}, so they cannot start together")
    cycle = _partition_cycle(instance, part)
    if cycle is not None:
        return (f"partitions {cycle[0]} and {cycle[1]} wait on each other through "
                f"dependencies")
    return None


ONE_PACK = MethodEntry(
    name="one-pack",
    summary="each partition runs all its jobs as one pack (IO-SCHED, seed 003 "
            "§6.1)",
    build=_build, supports=_supports, policy=True, problems=("io-sched",),
    defaults=("one-pack/*",), warm_starts=("one-pack/*",), warm_rank=0)
