"""``ObservedScheduler``: give any scheduler's queue order the optional
hooks (:mod:`~opt_sched.priority.observers`) without changing the
scheduler.

The replay engine talks to the wrapper, which passes every call on to the
scheduler and tells the scheduler's ``order`` (its attribute, as in the
backfilling schedulers' ``order=``):

- ``submit(now, j)``: ``order.observe_submit(now, j)``, then the scheduler;
- ``complete(now, j, killed)``: ``order.observe_end(...)``, then the
  scheduler;
- ``decide(now)``: the scheduler's starts, then ``order.observe_start`` for
  each of them.

Until the backfilling schedulers call the hooks themselves, wrap them so
that history-aware priorities (fair-share usage, the age of chained jobs)
are exact whatever their sorting pattern (conservative backfilling sorts
only when a job ended, so without hooks a job that starts and ends between
two sorts would be missed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..scheduling.base import Cluster, JobTable, Start
from .observers import notify_end, notify_start, notify_submit

__all__ = ["ObservedScheduler"]


class ObservedScheduler:
    """Wrap ``scheduler`` (see the module docstring)."""

    def __init__(self, scheduler: Any) -> None:
        self.scheduler = scheduler
        self.name = getattr(scheduler, "name", type(scheduler).__name__)

    @property
    def order(self) -> Any:
        return getattr(self.scheduler, "order", None)

    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        self.scheduler.attach(jobs, cluster)

    def submit(self, now: float, job: int) -> None:
        notify_submit(self.order, now, job)
        self.scheduler.submit(now, job)

    def complete(self, now: float, job: int, killed: bool) -> None:
        notify_end(self.order, now, job, killed)
        self.scheduler.complete(now, job, killed)

    def decide(self, now: float) -> Sequence[Start]:
        starts = self.scheduler.decide(now)
        order = self.order
        for start in starts:
            notify_start(order, now, start.job)
        return starts

    def next_wakeup(self, now: float) -> float:
        return self.scheduler.next_wakeup(now)
