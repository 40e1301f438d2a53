r"""Workflow and system metrics of a replayed workload (seed 002, Paper V
§4.3.1).

Per workflow ``W`` submitted at ``r_W`` (its jobs: the tasks, or the pilot):

- wait :math:`w^W` = start of its first job - ``r_W``;
- runtime :math:`r^W` = end of its last job - start of its first job
  (minimum: the critical path);
- turnaround :math:`t^W = w^W + r^W`;
- intermediate wait = :math:`r^W` - critical path (the time tasks spent
  waiting between dependencies; 0 for a pilot job);
- allocated = machine-seconds its jobs held; work = machine-seconds of its
  tasks (:mod:`~opt_sched.workflows.geometry`); waste = allocated - work.

System, over a window ``[t0, t1)`` of ``N`` machines:

- utilisation = held machine-seconds in the window / ``N (t1 - t0)``;
- *actual* utilisation :math:`(\sum \mathrm{held} - \sum \mathrm{waste}) /
  (N (t1 - t0))`: a pilot job's idle machines do not count (inside a pilot
  the tasks run back to back from its start, as in the earliest schedule);
- slowdown of every regular (non-workflow) job: :math:`(w + r) / r`,
  unbounded as in the paper, summarised by the median per size class in
  core-hours ``[0, 48)``, ``[48, 960)``, ``[960, inf)`` (§4.3.1).

Turnaround speed-up of a method against chained jobs = median turnaround
(chained) / median turnaround (method) (§5.2.1; :func:`speedup`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..instance import Instance
from ..schedule import Schedule
from .submission import PILOT_TASK, SubmittedWorkflow, split_job_id

__all__ = [
    "SLOWDOWN_CLASSES",
    "WorkflowRecord",
    "regular_slowdowns",
    "speedup",
    "utilisation",
    "workflow_records",
]

SLOWDOWN_CLASSES = ((0.0, 48.0), (48.0, 960.0), (960.0, math.inf))
"""Core-hour classes of Paper V §4.3.1."""


@dataclass(frozen=True)
class WorkflowRecord:
    """The metrics of one workflow (seconds, machine-seconds)."""

    id: str
    name: str
    submit: float
    first_start: float
    last_end: float
    critical_path: float
    allocated: float
    work: float

    @property
    def wait(self) -> float:
        return self.first_start - self.submit

    @property
    def runtime(self) -> float:
        return self.last_end - self.first_start

    @property
    def turnaround(self) -> float:
        return self.last_end - self.submit

    @property
    def intermediate_wait(self) -> float:
        return max(0.0, self.runtime - self.critical_path)

    @property
    def waste(self) -> float:
        return self.allocated - self.work


def _times(instance: Instance, schedule: Schedule) -> tuple[dict[str, float],
                                                          dict[str, float]]:
    starts, ends = {}, {}
    for js in schedule.jobs:
        job = instance.job(js.id)
        starts[js.id] = js.start
        ends[js.id] = js.completion(job, instance.bandwidth_of(job))
    return starts, ends


def workflow_records(instance: Instance, schedule: Schedule,
                     workflows: Mapping[str, SubmittedWorkflow]
                     ) -> list[WorkflowRecord]:
    """One :class:`WorkflowRecord` per workflow of ``workflows`` (those of
    a :class:`~opt_sched.workflows.submission.WorkflowWorkload`)."""
    starts, ends = _times(instance, schedule)
    jobs_of: dict[str, list[str]] = {}
    for job in instance.jobs:
        parts = split_job_id(job.id)
        if parts is not None and parts[0] in workflows:
            jobs_of.setdefault(parts[0], []).append(job.id)
    out = []
    for wf_id, sub in workflows.items():
        ids = jobs_of.get(wf_id, [])
        if not ids:
            continue
        allocated = math.fsum(instance.job(i).nodes * (ends[i] - starts[i])
                              for i in ids)
        out.append(WorkflowRecord(
            wf_id, sub.workflow.name, sub.submit, min(starts[i] for i in ids),
            max(ends[i] for i in ids), sub.geometry.critical_path, allocated,
            sub.geometry.work))
    return out


def _work_intervals(instance: Instance, schedule: Schedule,
                    workflows: Mapping[str, SubmittedWorkflow]
                    ) -> tuple[list[tuple[float, float, int]],
                               list[tuple[float, float, int]]]:
    """(held, used) intervals ``(start, end, machines)``: a pilot job holds
    its machines and uses only its tasks' earliest schedule."""
    starts, ends = _times(instance, schedule)
    held, used = [], []
    for job in instance.jobs:
        s, e = starts[job.id], ends[job.id]
        held.append((s, e, job.nodes))
        parts = split_job_id(job.id)
        if parts is not None and parts[1] == PILOT_TASK and parts[0] in workflows:
            geo = workflows[parts[0]].geometry
            sub = workflows[parts[0]].workflow
            for task, q, t0 in zip(sub.tasks, geo.nodes, geo.starts):
                used.append((s + t0, min(e, s + t0 + task.runtime), q))
        else:
            used.append((s, e, job.nodes))
    return held, used


def _area(intervals: Sequence[tuple[float, float, int]], t0: float,
          t1: float) -> float:
    total = 0.0
    for s, e, q in intervals:
        lo, hi = max(s, t0), min(e, t1)
        if hi > lo:
            total += q * (hi - lo)
    return total


def utilisation(instance: Instance, schedule: Schedule,
                workflows: Mapping[str, SubmittedWorkflow] | None = None,
                window: tuple[float, float] | None = None
                ) -> tuple[float, float]:
    """``(utilisation, actual utilisation)`` over ``window`` (default: from
    the first release to the last completion)."""
    held, used = _work_intervals(instance, schedule, workflows or {})
    if window is None:
        t0 = min(job.release for job in instance.jobs)
        t1 = max(e for _, e, _ in held)
    else:
        t0, t1 = window
    capacity = instance.platform.total_nodes * (t1 - t0)
    if capacity <= 0:
        return 0.0, 0.0
    return (float(_area(held, t0, t1) / capacity),
            float(_area(used, t0, t1) / capacity))


def regular_slowdowns(instance: Instance, schedule: Schedule, *,
                      cores_per_node: int = 1,
                      window: tuple[float, float] | None = None,
                      skip_prefixes: Sequence[str] = ("fill-",)
                      ) -> dict[str, float]:
    """Median slowdown ``(w + r)/r`` of the regular jobs (not workflow jobs,
    not ids starting with ``skip_prefixes``) submitted in ``window``, per
    core-hour class (:data:`SLOWDOWN_CLASSES`); keys ``"[lo, hi)"`` and
    ``"all"``; ``nan`` for an empty class."""
    starts, ends = _times(instance, schedule)
    values: list[tuple[float, float]] = []
    for job in instance.jobs:
        if split_job_id(job.id) is not None or job.id.startswith(tuple(skip_prefixes)):
            continue
        if window is not None and not window[0] <= job.release < window[1]:
            continue
        run = ends[job.id] - starts[job.id]
        if run <= 0:
            continue
        core_hours = job.nodes * cores_per_node * run / 3600.0
        values.append((core_hours, (ends[job.id] - job.release) / run))
    out = {}
    for lo, hi in SLOWDOWN_CLASSES:
        sel = [sd for ch, sd in values if lo <= ch < hi]
        label = f"[{lo:g}, {hi:g})"
        out[label] = float(np.median(sel)) if sel else math.nan
    out["all"] = float(np.median([sd for _, sd in values])) if values else math.nan
    return out


def speedup(chained: Sequence[WorkflowRecord], other: Sequence[WorkflowRecord]
            ) -> float:
    """Median turnaround of ``chained`` over that of ``other`` (``nan`` if
    either is empty)."""
    if not chained or not other:
        return math.nan
    a = float(np.median([r.turnaround for r in chained]))
    b = float(np.median([r.turnaround for r in other]))
    return a / b if b > 0 else math.nan
