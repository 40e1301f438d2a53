"""``fcfs``: the submission order itself (the queue as the scheduler
received it: by eligibility time, ties in instance order).

The same rule as ``FCFSOrder`` of :mod:`opt_sched.scheduling.queue_order`;
kept here so that :func:`opt_sched.priority.get_queue_order` answers every
``--priority`` value on its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..scheduling.base import Cluster, JobTable

__all__ = ["SubmissionOrder"]


class SubmissionOrder:
    """First come, first served."""

    name = "fcfs"

    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        pass

    def sort(self, queue: Sequence[int], now: float) -> Sequence[int]:
        return queue
