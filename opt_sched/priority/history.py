"""What a history-aware priority knows about the jobs: when each became
eligible, and the decayed usage of every (account, user).

Two sources, the first one preferred:

1. the hooks of :mod:`~opt_sched.priority.observers` (``observe_submit``,
   ``observe_start``, ``observe_end``), called by the scheduler: exact;
2. otherwise, at every ``sort``, the difference between the cluster's
   running jobs now and at the previous ``sort`` (:meth:`JobHistory.sync`):
   a job that appeared started at its recorded start, one that disappeared
   ended at ``now`` (a job that started and ended between two sorts
   started at the sort that last saw it waiting), and a waiting job seen
   for the first time became
   eligible at ``max(r_i, ends of its predecessors)`` (or ``now`` if a
   predecessor's end is unknown). This is exact when the scheduler sorts at
   every instant where a job ends (EASY and conservative backfilling do),
   and otherwise charges a finished job until the next sort.

Usage is in node-seconds (:class:`~opt_sched.priority.usage.DecayedUsage`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..scheduling.base import Cluster, JobTable
from .tree import TargetTree
from .usage import DEFAULT_HALF_LIFE, DecayedUsage

__all__ = ["JobHistory"]


class JobHistory:
    """Eligibility times and usage (see the module docstring)."""

    def __init__(self, half_life: float = DEFAULT_HALF_LIFE) -> None:
        self.usage = DecayedUsage(half_life)
        self.half_life = self.usage.half_life

    def attach(self, jobs: JobTable, cluster: Cluster,
               tree: TargetTree | None = None) -> None:
        """Start of a replay; ``tree`` receives every job's (account,
        user)."""
        self.usage = DecayedUsage(self.half_life)
        self.jobs = jobs
        self.cluster = cluster
        self.tree = tree if tree is not None else TargetTree()
        self.owner = self.tree.add_jobs(jobs.groups, jobs.users)
        self.nodes = jobs.nodes.tolist()
        self.release = jobs.submit.tolist()
        self.eligible: dict[int, float] = {}
        self.eligible_times = np.array(jobs.submit, dtype=float)
        """Every job's eligibility time (its release until known), for
        vectorised priorities."""
        self.ended: dict[int, float] = {}
        self._hooked = False
        self._seen_running: set[int] = set()
        self._last_queue: dict[int, float] = {}

    # -- the observer hooks ------------------------------------------------------
    def observe_submit(self, now: float, job: int) -> None:
        self._hooked = True
        self.eligible[job] = now
        self.eligible_times[job] = now

    def observe_start(self, now: float, job: int) -> None:
        self._hooked = True
        self.usage.start(now, job, self.owner[job], self.nodes[job])

    def observe_end(self, now: float, job: int, killed: bool) -> None:
        self._hooked = True
        self.usage.end(now, job)
        self.ended[job] = now

    # -- fallback ----------------------------------------------------------------
    def sync(self, queue: Sequence[int], now: float) -> None:
        """Infer the events since the previous call from the cluster (only
        when no hook was ever called)."""
        if self._hooked:
            return
        running = self.cluster.running
        waiting = set(queue)
        for job in self._seen_running - set(running):
            self.usage.end(now, job)
            self.ended[job] = now
        for job, seen in self._last_queue.items():
            # started and ended between two sorts: it started right after
            # the sort that last saw it waiting
            if job not in waiting and job not in running:
                self.usage.start(seen, job, self.owner[job], self.nodes[job])
                self.usage.end(now, job)
                self.ended[job] = now
        for job, run in running.items():
            if job not in self._seen_running:
                self.usage.start(run.start, job, self.owner[job], self.nodes[job])
        self._seen_running = set(running)
        self._last_queue = dict.fromkeys(queue, now)
        after = self.jobs.after
        for job in queue:
            if job in self.eligible:
                continue
            when = self.release[job]
            for pred in after[job]:
                end = self.ended.get(pred)
                when = now if end is None else max(when, end)
            self.eligible[job] = self.eligible_times[job] = min(when, now)

    def eligible_time(self, job: int) -> float:
        """When ``job`` became eligible (its release if unknown)."""
        return self.eligible.get(job, self.release[job])


class FollowsHistory:
    """The three observer hooks of a queue order
    (:mod:`opt_sched.priority.observers`), passed to its :class:`JobHistory`
    ``self.history``: the orders that rank by usage and age follow the jobs'
    lives through it."""

    history: JobHistory

    def observe_submit(self, now: float, job: int) -> None:
        self.history.observe_submit(now, job)

    def observe_start(self, now: float, job: int) -> None:
        self.history.observe_start(now, job)

    def observe_end(self, now: float, job: int, killed: bool) -> None:
        self.history.observe_end(now, job, killed)
