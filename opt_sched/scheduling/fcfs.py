"""``fcfs``: first come, first served, no backfilling.

The waiting jobs form one queue in submission order; at each pass the head
job starts if ``Q_i`` machines are free, on the lowest-numbered ones, and the
pass goes on with the next; it stops at the first job that does not fit, so
no job ever overtakes an earlier one.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence

from .base import Cluster, JobTable, Start

__all__ = ["FCFS"]


class FCFS:
    """First come, first served (one partition: partition 0, or the job's
    pre-mapped partition)."""

    name = "fcfs"

    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        self._jobs = jobs
        self._cluster = cluster
        self._queue: deque[int] = deque()

    def submit(self, now: float, job: int) -> None:
        self._queue.append(job)

    def complete(self, now: float, job: int, killed: bool) -> None:
        pass

    def decide(self, now: float) -> Sequence[Start]:
        starts = []
        free = {k: self._cluster.free_count(k)
                for k in range(self._cluster.num_partitions)}
        queue = self._queue
        while queue:
            j = queue[0]
            k = max(0, int(self._jobs.partition[j]))
            need = int(self._jobs.nodes[j])
            if free[k] < need:
                break
            free[k] -= need
            queue.popleft()
            starts.append(Start(j, partition=k))
        return starts

    def next_wakeup(self, now: float) -> float:
        return math.inf
