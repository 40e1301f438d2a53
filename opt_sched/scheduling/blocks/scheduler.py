"""``BlockScheduler``: a :class:`~opt_sched.scheduling.base.Scheduler` whose
pass is written on the building blocks.

A subclass sets :attr:`~BlockScheduler.name` and writes one method,
``schedule(now, blocks)``: the pass at ``now``. The base class forwards the
engine's events to a :class:`~opt_sched.scheduling.blocks.Blocks` made at
``attach``, calls ``schedule`` when a job waits, and returns the jobs the
blocks started. Options of the constructor (keyword arguments) reach it
through :func:`~opt_sched.scheduling.get_scheduler` and the command line's
method specs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..base import Cluster, JobTable, Start
from .toolkit import Blocks

__all__ = ["BlockScheduler"]


class BlockScheduler:
    """Base of the schedulers written on :class:`Blocks` (see the module
    docstring).

    Parameters
    ----------
    rjms_delay
        Seconds added to every estimate in the profile (batsched's
        ``--rjms_delay``; 0 by default, 5 in batsched).
    """

    name = "blocks"

    def __init__(self, rjms_delay: float = 0.0) -> None:
        self.rjms_delay = rjms_delay

    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        self.jobs = jobs
        self.cluster = cluster
        # a subclass whose __init__ does not call ours has no delay
        self.blocks = Blocks(jobs, cluster, getattr(self, "rjms_delay", 0.0))

    def submit(self, now: float, job: int) -> None:
        self.blocks.submit(job)

    def complete(self, now: float, job: int, killed: bool) -> None:
        self.blocks.complete(job)

    def decide(self, now: float) -> Sequence[Start]:
        blocks = self.blocks
        if not blocks.waiting:
            return []
        blocks.begin(now)
        self.schedule(now, blocks)
        return blocks.finish()

    def next_wakeup(self, now: float) -> float:
        return math.inf

    def schedule(self, now: float, blocks: Blocks) -> None:
        """The pass at ``now``: start jobs with the blocks (at least one job
        waits)."""
        raise NotImplementedError(f"{type(self).__name__} has no schedule()")
