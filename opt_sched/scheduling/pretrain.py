"""Pre-training of the history estimator: one isolated run per job group.

Seed 001 (Workload 1): "the estimator is pre-trained by running jobs in
isolation". :func:`isolated_runs` does that in simulation: for the first job
of every estimator group (:meth:`HistoryEstimator.group
<opt_sched.scheduling.estimators.HistoryEstimator.group>`: user, group,
time limit, nodes), it replays that job *alone* -- released at 0 on an
otherwise empty copy of the platform -- under the same execution model, and
measures what the estimator would: the run time ``C - S`` and the average
throughput ``V / (C - S)``. The result is the ``prior`` option of the
throughput-aware schedulers (``herbein``, ``workload-adaptive`` with
``estimates="history"``).

It is a measurement, not an oracle: under the ``shared`` model a job alone
runs at its own cap (``node_rate``, ``max_rate``) and ``eta(1)``, which is
what a run in isolation shows; the contention it will meet is not in it.
"""

from __future__ import annotations

import dataclasses

from ..instance import Instance
from .base import job_table
from .estimators import HistoryEstimator
from .fcfs import FCFS
from .replay import replay

__all__ = ["isolated_runs"]


def isolated_runs(instance: Instance, execution: object = "exclusive", *,
                  policy: str = "fifo") -> dict[int, tuple[float, float]]:
    """``{job index: (run time, throughput)}`` for the first job of every
    estimator group, each replayed alone under ``execution``: a model name,
    or a callable returning a fresh model (a model instance holds the state
    of one replay and cannot be reused)."""
    groups = HistoryEstimator(job_table(instance))
    seen: set[tuple] = set()
    out: dict[int, tuple[float, float]] = {}
    for i, job in enumerate(instance.jobs):
        key = groups.group(i)
        if key in seen:
            continue
        seen.add(key)
        alone = dataclasses.replace(job, release=0.0, after=())
        single = Instance(f"{instance.name}-alone-{job.id}", instance.platform,
                          (alone,))
        model = execution() if callable(execution) else execution
        schedule = replay(single, FCFS(), model, policy=policy)
        length = schedule.completion(single, alone.id) - schedule.jobs[0].start
        rate = job.total_volume / length if length > 0 else 0.0
        out[i] = (float(length), float(rate))
    return out
