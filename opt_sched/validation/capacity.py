r"""Rule 4, node-capacity: nodes and named resources are never oversubscribed.

For every partition ``k`` and time ``t``,
:math:`\sum_{i: k(i)=k,\ S_i \le t < C_i} Q_i \le P_k`; also
:math:`Q_i \le P_{k(i)}`, and a job the instance maps to a partition runs
there. For every named resource ``r`` of the platform,
:math:`\sum_{i: S_i \le t < C_i} d_{ir} \le D_r` (all partitions together;
``d_ir`` from ``job.demands``). When the schedule names the machines each job
holds, :mod:`~opt_sched.validation.machines` also checks them one by one.

The sweeps shorten every job interval at its end by the tolerance of
:math:`C_i` (:mod:`~opt_sched.validation.tolerance`), so a job ending a
rounding error after ``t`` does not collide with one starting at ``t``; a
named resource's amounts get ``max(rel_tol, 1e-12) * max(1, D_r)``. One violation
per job placed wrongly and per maximal episode of overload.
"""

from __future__ import annotations

import numpy as np

from ..instance import Instance
from .report import Collector, format_time, name_list
from .sweep import overload_peaks
from .table import PhaseTable
from .tolerance import PhaseTolerances

__all__ = ["RULE", "check_node_capacity"]

RULE = 4


def _check_placement(instance: Instance, table: PhaseTable, out: Collector) -> None:
    parts = instance.platform.partitions
    for i in np.flatnonzero(table.listed):
        job = instance.jobs[i]
        k = int(table.partition[i])
        if job.partition is not None and job.partition != k:
            out.one(RULE, f"job {job.id} runs on partition {k} but the instance maps "
                    f"it to partition {job.partition}", jobs=(job.id,),
                    time=table.start[i])
        if job.nodes > parts[k].nodes:
            out.one(RULE, f"job {job.id} needs {job.nodes} nodes, more than the "
                    f"{parts[k].nodes} of partition {k}", jobs=(job.id,),
                    time=table.start[i])


def check_node_capacity(instance: Instance, table: PhaseTable, tol: PhaseTolerances,
                        out: Collector) -> None:
    """Rule 4 for node counts and named resources (see the module text)."""
    _check_placement(instance, table, out)
    start, end = table.start, table.end - tol.job
    for k, part in enumerate(instance.platform.partitions):
        mine = np.flatnonzero(table.partition == k)
        count, peaks = overload_peaks(start[mine], end[mine],
                                      table.nodes[mine].astype(float),
                                      float(part.nodes), 0.5, out.room(RULE))
        out.found(RULE, count)
        for t in peaks[:out.room(RULE)]:
            running = mine[(start[mine] <= t) & (t < end[mine])]
            used = int(table.nodes[running].sum())
            detail = [f"{table.ids[i]}: {table.nodes[i]}" for i in running]
            out.add(RULE, f"partition {k} has {used} of {part.nodes} nodes in use at "
                    f"t={format_time(t)} ({name_list(detail)})",
                    jobs=[table.ids[i] for i in running], time=t)
    capacity = instance.platform.resource_capacity
    names = sorted({name for job in instance.jobs for name, _ in job.demands})
    for name in names:
        amount = np.array([job.demand.get(name, 0.0) for job in instance.jobs])
        cap = capacity[name]
        slack = max(tol.rule.rel_tol, 1e-12) * max(1.0, cap)
        count, peaks = overload_peaks(start, end, amount, cap, slack, out.room(RULE))
        out.found(RULE, count)
        for t in peaks[:out.room(RULE)]:
            running = np.flatnonzero((start <= t) & (t < end) & (amount > 0))
            used = float(amount[running].sum())
            detail = [f"{table.ids[i]}: {amount[i]:.6g}" for i in running]
            out.add(RULE, f"resource {name} has {used:.6g} of {cap:.6g} in use at "
                    f"t={format_time(t)} ({name_list(detail)})",
                    jobs=[table.ids[i] for i in running], time=t)
