"""``strict``: start jobs in strict priority order, no backfilling (Slurm's
``sched/builtin``), over any queue order.

At each pass the waiting jobs are sorted by the queue order
(:mod:`opt_sched.priority`, recomputed at every pass); in that order each
job starts if ``Q_i`` machines of its partition are free now, and the first
job that does not fit blocks its partition for the rest of the pass, so no
job overtakes a higher-priority one. With the ``fcfs`` order this is
exactly :class:`opt_sched.scheduling.FCFS`.

The scheduler calls the order's optional hooks
(:mod:`~opt_sched.priority.observers`): ``observe_submit`` when the engine
submits a job, ``observe_start`` for every start, ``observe_end`` when a
job ends. It is the scheduler the workflow experiments use until the
backfilling schedulers call the hooks too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..scheduling.base import Cluster, JobTable, Start
from .observers import notify_end, notify_start, notify_submit

__all__ = ["StrictOrderScheduler"]


class StrictOrderScheduler:
    """Strict priority order, no backfilling (see the module docstring).

    Parameters
    ----------
    order
        A queue order object or a ``--priority`` spec
        (:func:`opt_sched.priority.get_queue_order`).
    """

    name = "strict"

    def __init__(self, order: object = "fcfs") -> None:
        from . import get_queue_order

        self.order = get_queue_order(order)

    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        self._jobs = jobs
        self._cluster = cluster
        self._nodes = jobs.nodes.tolist()
        self._part = [max(0, p) for p in jobs.partition.tolist()]
        self._queue: dict[int, None] = {}
        self.order.attach(jobs, cluster)

    def submit(self, now: float, job: int) -> None:
        self._queue[job] = None
        notify_submit(self.order, now, job)

    def complete(self, now: float, job: int, killed: bool) -> None:
        notify_end(self.order, now, job, killed)

    def decide(self, now: float) -> Sequence[Start]:
        if not self._queue:
            return []
        cluster = self._cluster
        free = [cluster.free_count(k) for k in range(cluster.num_partitions)]
        blocked = [False] * len(free)
        starts = []
        for job in self.order.sort(list(self._queue), now):
            k = self._part[job]
            if blocked[k]:
                continue
            if self._nodes[job] > free[k]:
                blocked[k] = True
                if all(blocked):
                    break
                continue
            free[k] -= self._nodes[job]
            starts.append(Start(job, partition=k))
        for start in starts:
            del self._queue[start.job]
            notify_start(self.order, now, start.job)
        return starts

    def next_wakeup(self, now: float) -> float:
        return math.inf
