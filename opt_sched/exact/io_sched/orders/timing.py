"""Semi-active timing of an I/O order, its objective, and the schedule.

For an order ``pi`` of the operations of one node (a sequence of local job
numbers, see :mod:`opt_sched.exact.io_sched.orders`), the semi-active schedule is

.. math::

    s_{\\pi_m} = \\max(e_{\\pi_{m-1}},\\; \\text{ready}_j), \\qquad
    e_{\\pi_m} = s_{\\pi_m} + d_{jq}

with ``ready_j = t_k + lag_j0`` for the first operation of ``j`` and
``ready_j = e_{j,q-1} + lag_jq`` after; ``C_j = e_{j,last} + tail_j``
(``t_k + tail_j`` without operations). Every operation starts as early as the
order allows, so every completion is no later than in any schedule with the
same order (``opt_sched/exact/brute_force.py``): for the makespan and the
max stretch with fixed starts (regular objectives) the order alone fixes the
best value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ....errors import OptionError, SolverError
from ....instance import Instance
from ....operations import phase_starts
from ....schedule import JobSchedule, Schedule
from .node import NodeJobs

__all__ = ["NodeTiming", "objective_value", "order_value", "orders_from_schedule",
           "orders_to_schedule",
           "semi_active"]


@dataclass(frozen=True)
class NodeTiming:
    """Semi-active times of one node: ``op_start[j][q]`` and ``completion[j]``."""

    op_start: tuple[tuple[float, ...], ...]
    completion: tuple[float, ...]


def semi_active(node: NodeJobs, order: Sequence[int]) -> NodeTiming:
    """The semi-active times of ``order`` (module docstring).

    Raises
    ------
    SolverError
        ``order`` does not list every operation of every job exactly once.
    """
    counts = node.counts
    n = node.num_jobs
    if len(order) != sum(counts):
        raise SolverError(f"io order of partition {node.partition}: {len(order)} "
                          f"entries for {sum(counts)} operations")
    lags, durations = node.lags, node.durations
    nxt = [0] * n
    ready = [node.start + (lags[j][0] if counts[j] else 0.0) for j in range(n)]
    starts: list[list[float]] = [[] for _ in range(n)]
    free = node.start
    for j in order:
        q = nxt[j]
        if q >= counts[j]:
            raise SolverError(f"io order of partition {node.partition}: local job {j} "
                              f"listed more than {counts[j]} times")
        begin = ready[j] if ready[j] > free else free
        starts[j].append(begin)
        free = begin + durations[j][q]
        q += 1
        nxt[j] = q
        ready[j] = free + (lags[j][q] if q < counts[j] else node.tails[j])
    completion = tuple(ready[j] if counts[j] else node.start + node.tails[j]
                       for j in range(n))
    return NodeTiming(tuple(tuple(s) for s in starts), completion)


def objective_value(node: NodeJobs, timing: NodeTiming, objective: str) -> float:
    """Makespan ``max_j C_j`` or max stretch ``max_j (C_j - t_k) / T_j``
    (stretch 1 for a job of length 0) of one node."""
    if objective == "makespan":
        return max(timing.completion, default=node.start)
    if objective == "max-stretch":
        return max(((c - node.start) / t if t > 0 else 1.0
                    for c, t in zip(timing.completion, node.lengths)), default=1.0)
    raise OptionError(f"objective={objective!r} is not one of makespan, max-stretch")


def order_value(node: NodeJobs, order: Sequence[int], objective: str) -> float:
    """``objective_value(node, semi_active(node, order), objective)``."""
    return objective_value(node, semi_active(node, order), objective)


def orders_to_schedule(instance: Instance, nodes: Sequence[NodeJobs],
                       orders: Sequence[Sequence[int]], method: str,
                       info: dict | None = None) -> Schedule:
    """The one-pack :class:`Schedule` of one order per node (semi-active).

    Every job of partition ``k`` is in the single pack of ``k``, started at
    ``t_k``. Compute phase ``j`` starts when I/O phase ``j - 1`` ends (at
    ``t_k`` for ``j = 0``); a positive-volume I/O phase starts at
    ``max(its semi-active start, end of its compute)``; a zero-volume one
    starts and ends when its compute ends.
    """
    if len(nodes) != len(orders):
        raise SolverError(f"{len(orders)} orders for {len(nodes)} I/O nodes")
    parts = instance.platform.partitions
    entries: dict[int, JobSchedule] = {}
    packs: list[tuple[tuple[str, ...], ...]] = [
        () for _ in range(instance.platform.num_partitions)]
    for node, order in zip(nodes, orders):
        timing = semi_active(node, order)
        bandwidth = parts[node.partition].bandwidth
        packs[node.partition] = (tuple(instance.jobs[i].id for i in node.members),)
        for j, i in enumerate(node.members):
            job = instance.jobs[i]
            compute_starts, io_starts = phase_starts(job, node.start,
                                                     timing.op_start[j], bandwidth)
            entries[i] = JobSchedule(job.id, node.partition, compute_starts, io_starts)
    if len(entries) != instance.num_jobs:
        raise SolverError(f"orders cover {len(entries)} of {instance.num_jobs} jobs")
    return Schedule(tuple(entries[i] for i in range(instance.num_jobs)),
                    packs=tuple(packs), method=method, info=dict(info or {}))


def orders_from_schedule(nodes: Sequence[NodeJobs], schedule: Schedule
                         ) -> list[list[int]]:
    """The node orders of a one-pack ``schedule``: every node's operations
    sorted by their I/O start (ties by the job's operation index)."""
    instance = nodes[0].instance if nodes else None
    out = []
    for node in nodes:
        assert instance is not None
        ops = []
        for j, i in enumerate(node.members):
            entry = schedule[instance.jobs[i].id]
            job = instance.jobs[i]
            q = 0
            for start, v in zip(entry.io_starts, job.io_volume):
                if v > 0:
                    ops.append((start, q, j))
                    q += 1
        ops.sort()
        out.append([j for _, _, j in ops])
    return out
