"""``PlanScheduler``: a precomputed plan as an online start rule.

This is the batch simulator's start rule (:mod:`opt_sched.simulation`)
written against the Scheduler seam: the plan is lowered to start queues and
gates (:mod:`opt_sched.simulation.program`), and at each instant every
partition starts the jobs at the head of its queue while

.. math:: \\mathrm{gate}(i)\\ \\text{open} \\;\\wedge\\; t \\ge e_i
          \\;\\wedge\\; \\mathrm{free}_k(t) \\ge Q_i
          \\;\\wedge\\; \\forall r:\\ \\mathrm{free}_r(t) \\ge q_{ir}

(a gate opens when the previous pack, or the job's predecessors, have all
completed; ``e_i`` is the earliest start; jobs never overtake in a queue).
Replayed under :class:`~opt_sched.execution.exclusive.Exclusive`, it gives
exactly the schedule of :func:`opt_sched.simulate` (tested), which keeps its
fused compiled kernel for speed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..instance import Instance
from ..simulation.plans import OnePackPlan, Plan
from .base import Cluster, JobTable, Start

__all__ = ["PlanScheduler"]


class PlanScheduler:
    """Start the jobs of ``plan`` (a :class:`~opt_sched.simulation.OnePackPlan`,
    :class:`~opt_sched.simulation.PackPlan` or
    :class:`~opt_sched.simulation.StartsPlan`) in its queues and gates."""

    name = "plan"

    def __init__(self, instance: Instance, plan: Plan | None = None) -> None:
        self.plan = plan if plan is not None else OnePackPlan()
        program = self.plan.lower(instance)
        self.name = f"plan:{self.plan.label}"
        self._queues = [list(q) for q in program.queues]
        self._gate = list(program.gate)
        self._earliest = list(program.earliest)
        self._gate_count = [len(g.awaits) for g in program.gates]
        self._opens: list[list[int]] = [[] for _ in program.partition]
        for g, gate in enumerate(program.gates):
            for i in gate.awaits:
                self._opens[i].append(g)
        self._demands = [dict(job.demands) for job in instance.jobs]
        self._res_free = dict(instance.platform.resources)
        self.packs = program.packs

    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        self._jobs = jobs
        self._cluster = cluster
        self._head = [0] * len(self._queues)
        self._wake = math.inf

    def submit(self, now: float, job: int) -> None:
        pass  # the queues and gates already say when a job may start

    def complete(self, now: float, job: int, killed: bool) -> None:
        for g in self._opens[job]:
            self._gate_count[g] -= 1
        for name, amount in self._demands[job].items():
            self._res_free[name] += amount

    def _fits_resources(self, job: int) -> bool:
        # the kernel's tiny slack, so that demands summing to the capacity fit
        return all(self._res_free[r] * (1 + 1e-12) + 1e-12 >= q
                   for r, q in self._demands[job].items())

    def decide(self, now: float) -> Sequence[Start]:
        starts = []
        self._wake = math.inf
        nodes = self._jobs.nodes
        for k, queue in enumerate(self._queues):
            free = self._cluster.free_count(k)
            head = self._head[k]
            while head < len(queue):
                j = queue[head]
                if self._gate_count[self._gate[j]] > 0:
                    break
                if self._earliest[j] > now:
                    self._wake = min(self._wake, self._earliest[j])
                    break
                if free < nodes[j] or not self._fits_resources(j):
                    break
                free -= int(nodes[j])
                for name, amount in self._demands[j].items():
                    self._res_free[name] -= amount
                starts.append(Start(j, partition=k))
                head += 1
            self._head[k] = head
        return starts

    def next_wakeup(self, now: float) -> float:
        return self._wake
