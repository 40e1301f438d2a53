r"""WoAS, the workflow-aware scheduling of seed 002 (Paper V §3,
Algorithms 1-2), as a queue-order wrapper.

The waiting queue has two *views*:

- the **priority view**, seen by the priority engine: each workflow is one
  job, as submitted -- the workflow's width for its critical path
  (requested times), released at the workflow's submit time, owned by its
  user;
- the **scheduler view**, seen by FCFS and backfilling: the workflow's
  task jobs, in the workflow's place in the queue.

:class:`WorkflowAwareOrder` wraps any queue order (the priority engine).
At :meth:`~WorkflowAwareOrder.attach` it adds one *priority-view job* per
workflow to the job table the inner order sees (its geometry computed from
the tasks' requested times and dependencies, i.e. from what the scheduler
knows). At each pass (:meth:`~WorkflowAwareOrder.sort`) it maps every
waiting task to its workflow's job (Algorithm 2's ``show_priority_view``),
asks the inner order to sort that queue, and replaces each workflow job by
its waiting tasks (Algorithm 1's ``show_scheduler_view``), in their
submission order. So every task inherits the workflow's priority: its
geometry factor, and an age counted from the *workflow's* submission, even
after the workflow started (the paper's Algorithm 1 reading, digest B.4).

Differences from the Slurm implementation, by construction of our engine:
a task whose dependencies are not done is not in the queue at all (Slurm
keeps it there, not eligible), so it never counts towards a backfilling
depth limit; the views are rebuilt at every pass, not on lock
acquisition/release, with the same effect.

Workflow tasks are recognised by their ids ``"W::T"``
(:func:`~opt_sched.workflows.submission.split_job_id`); other jobs pass
through unchanged. The inner order's optional hooks
(:mod:`~opt_sched.priority.observers`) receive every event (task indices
are the same in both tables).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np

from ..priority import get_queue_order
from ..priority.observers import notify_end, notify_start, notify_submit
from ..scheduling.base import Cluster, JobTable
from .submission import PILOT_TASK, split_job_id

__all__ = ["WorkflowAwareOrder", "priority_view_table", "woas_order"]


def _peak(starts: list[float], ends: list[float], widths: list[int]) -> int:
    events = sorted([(e, -q) for e, q in zip(ends, widths)]
                    + [(s, q) for s, q in zip(starts, widths)])
    level = peak = 0
    for _, delta in events:
        level += delta
        peak = max(peak, level)
    return peak


def priority_view_table(jobs: JobTable) -> tuple[JobTable, list[int], int]:
    """``(table, representative, n)``: the job table extended with one
    priority-view job per workflow (indices ``n..``), and for every job of
    ``jobs`` the index of the job that represents it in the priority view
    (itself, or its workflow's)."""
    n = len(jobs)
    groups: dict[str, list[int]] = {}
    for i, job_id in enumerate(jobs.ids):
        parts = split_job_id(job_id)
        if parts is not None and parts[1] != PILOT_TASK:
            groups.setdefault(parts[0], []).append(i)
    representative = list(range(n))
    extra: dict[str, list] = {"ids": [], "submit": [], "nodes": [], "estimate": [],
                              "users": [], "groups": [], "partition": []}
    est = jobs.estimate.tolist()
    nodes = jobs.nodes.tolist()
    for k, (wf, members) in enumerate(groups.items()):
        member_set = set(members)
        finish: dict[int, float] = {}
        starts, ends, widths = [], [], []
        for i in sorted(members):  # instance order is topological per workflow
            start = max((finish[p] for p in jobs.after[i] if p in member_set),
                        default=0.0)
            finish[i] = start + est[i]
            starts.append(start)
            ends.append(finish[i])
            widths.append(nodes[i])
        first = min(members)
        extra["ids"].append(wf)
        extra["submit"].append(min(float(jobs.submit[i]) for i in members))
        extra["nodes"].append(_peak(starts, ends, widths))
        extra["estimate"].append(max(ends))
        extra["users"].append(jobs.users[first])
        extra["groups"].append(jobs.groups[first])
        extra["partition"].append(int(jobs.partition[first]))
        for i in members:
            representative[i] = n + k
    values = {}
    for f in dataclasses.fields(JobTable):
        old = getattr(jobs, f.name)
        if f.name == "after":
            values[f.name] = tuple(old) + ((),) * len(groups)
        elif f.name in extra and isinstance(old, np.ndarray):
            array = np.concatenate([old, np.asarray(extra[f.name], dtype=old.dtype)])
            array.setflags(write=False)
            values[f.name] = array
        elif f.name in extra:
            values[f.name] = tuple(old) + tuple(extra[f.name])
        elif isinstance(old, np.ndarray):
            fill = 1 if f.name == "iterations" else 0
            array = np.concatenate([old, np.full(len(groups), fill, dtype=old.dtype)])
            array.setflags(write=False)
            values[f.name] = array
        else:
            values[f.name] = tuple(old) + (None,) * len(groups)
    return JobTable(**values), representative, n


class WorkflowAwareOrder:
    """WoAS over an inner queue order (see the module docstring).

    Parameters
    ----------
    inner
        The priority engine: a queue order or a ``--priority`` spec
        (:func:`opt_sched.priority.get_queue_order`).
    """

    def __init__(self, inner: object = "fcfs") -> None:
        self.inner = get_queue_order(inner)
        self.name = f"woas+{self.inner.name}"

    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        table, self._rep, self._n = priority_view_table(jobs)
        self._table = table
        self._release = table.submit.tolist()
        self._after = jobs.after
        self._eligible: dict[int, float] = {}
        self._ended: dict[int, float] = {}
        self._anchor = list(range(len(table)))
        for job, rep in enumerate(self._rep):
            if rep != job:
                self._anchor[rep] = min(self._anchor[rep], job)
        self.inner.attach(table, cluster)

    # -- hooks: forwarded ----------------------------------------------------------
    def observe_submit(self, now: float, job: int) -> None:
        self._eligible[job] = now
        notify_submit(self.inner, now, job)

    def observe_start(self, now: float, job: int) -> None:
        notify_start(self.inner, now, job)

    def observe_end(self, now: float, job: int, killed: bool) -> None:
        self._ended[job] = now
        notify_end(self.inner, now, job, killed)

    # -- the two views -----------------------------------------------------------
    def _submission_key(self, job: int, now: float) -> tuple[float, int]:
        """Where a priority-view job sits in submission order: a workflow at
        its submit time, any other job at its eligibility time; ties in
        instance order (a workflow at its first task)."""
        if job >= self._n:
            when = self._release[job]
        elif job in self._eligible:
            when = self._eligible[job]
        elif self._after[job]:
            when = now  # eligibility unknown without the hooks: first seen
            self._eligible[job] = now
        else:
            when = self._release[job]
        return when, self._anchor[job]

    def sort(self, queue: Sequence[int], now: float) -> Sequence[int]:
        members: dict[int, list[int]] = {}
        for job in queue:
            members.setdefault(self._rep[job], []).append(job)
        view = [rep for _, rep in sorted(
            (self._submission_key(rep, now), rep) for rep in members)]
        ordered = self.inner.sort(view, now)
        out: list[int] = []
        for rep in ordered:
            out.extend(members[rep])
        return out


def woas_order(inner: object = "fcfs") -> WorkflowAwareOrder:
    """:class:`WorkflowAwareOrder` over ``inner`` (for ``--workflow-mode
    woas``)."""
    return WorkflowAwareOrder(inner)

