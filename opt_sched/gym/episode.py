"""The end of an episode: its schedule as opt_sched objects, the validator,
the metrics and, on request, the certified bracket of the window.

- :func:`episode_instance` / :func:`episode_schedule`: the window as an
  :class:`~opt_sched.instance.Instance` (one partition of ``M`` nodes, each
  job one compute phase of its real run time, release ``r_i`` (the
  stream's times), wall time ``e_i``) and the
  episode's starts as a :class:`~opt_sched.schedule.Schedule` (no machine
  numbers: rule 4 counts nodes).
- :func:`episode_metrics`: with ``C_i = S_i + T_i`` and ``tau = 10`` s,
  ``mean_bounded_slowdown`` ``(1/n) sum max(1, (C_i - r_i) / max(T_i,
  tau))`` (and ``max_``), ``mean_wait`` ``(1/n) sum (S_i - r_i)`` (and
  ``max_``), ``mean_flow_time`` ``(1/n) sum (C_i - r_i)``,
  ``max_flow_stretch`` ``max(1, max (C_i - r_i) / T_i)``, ``makespan``
  ``max C_i``, ``utilisation`` ``sum Q_i T_i / (M max C_i)``: the
  definitions of :mod:`opt_sched.metrics` and :mod:`opt_sched.objectives`,
  times counted from the window's first submit ``r_1``.
- :func:`episode_bracket`: the window bracket of
  :func:`opt_sched.experiments.window.window_gap` (the best clairvoyant
  schedule found and the proven lower bound) for the window instance,
  the episode's schedule as the online one. The episode starts on an empty
  machine, so the window has no running job: ``mode="consecutive"`` over
  all its jobs (``t0 = r_1``; the bracket's values count from it too).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..instance import Instance, Job, Partition, Platform
from ..schedule import JobSchedule, Schedule
from .rewards import TAU
from .workload import JobStream

__all__ = ["BRACKET_OBJECTIVES", "episode_bracket", "episode_instance",
           "episode_metrics", "episode_schedule", "stream_job", "validate_episode"]

BRACKET_OBJECTIVES = ("mean-flow-time",)
"""The objectives bracketed by default (the window gap's objectives:
makespan, max-flow-stretch, mean-flow-time; it has no bounded-slowdown
bound)."""


def episode_metrics(jobs: JobStream, start: np.ndarray) -> dict[str, float]:
    """The episode's metrics (module doc), from its starts."""
    run, submit = jobs.run, jobs.submit
    end = start + run - submit[0]
    start = start - submit[0]
    submit = submit - submit[0]
    flow = end - submit
    wait = start - submit
    bsld = np.maximum(1.0, flow / np.maximum(run, TAU))
    with np.errstate(divide="ignore", invalid="ignore"):
        stretch = np.where(run > 0, flow / np.where(run > 0, run, 1.0), 1.0)
    makespan = float(end.max())
    area = float(np.dot(jobs.nodes, run))
    return {"jobs": len(jobs),
            "mean_bounded_slowdown": float(bsld.mean()),
            "max_bounded_slowdown": float(bsld.max()),
            "mean_wait": float(wait.mean()), "max_wait": float(wait.max()),
            "mean_flow_time": float(flow.mean()),
            "max_flow_stretch": float(max(1.0, stretch.max())),
            "makespan": makespan,
            "utilisation": area / (jobs.machines * makespan) if makespan > 0
            else 1.0}


def stream_job(stream: JobStream, i: int) -> Job:
    """Job ``i`` of a stream as a :class:`~opt_sched.instance.Job`: one
    compute phase of its run time, released at its submit, wall time its
    estimate."""
    estimate = float(stream.estimate[i])
    return Job(str(stream.ids[i]), int(stream.nodes[i]), (float(stream.run[i]),),
               (0.0,), release=float(stream.submit[i]),
               user=f"u{int(stream.user[i])}",
               walltime=estimate if estimate > 0 else None)


def episode_instance(jobs: JobStream, made: Sequence[Job] | None = None
                     ) -> Instance:
    """The window as an instance (module doc); ``made``: its jobs if already
    built (:func:`stream_job`)."""
    platform = Platform((Partition(int(jobs.machines), 1.0),))
    if made is None:
        made = [stream_job(jobs, i) for i in range(len(jobs))]
    return Instance(jobs.name, platform, tuple(made))


def episode_schedule(jobs: JobStream, start: np.ndarray, method: str = "gym"
                     ) -> Schedule:
    """The episode's starts as a schedule (module doc)."""
    starts = start.tolist()
    ends = (start + jobs.run).tolist()
    return Schedule(tuple(JobSchedule(str(job_id), 0, (s,), (e,))
                          for job_id, s, e in zip(jobs.ids, starts, ends)),
                    method=method, execution="exclusive")


def validate_episode(jobs: JobStream, start: np.ndarray, method: str = "gym",
                     made: Sequence[Job] | None = None
                     ) -> tuple[Instance, Schedule]:
    """Check the episode's schedule with opt_sched's validator (``made``: as
    in :func:`episode_instance`).

    Raises
    ------
    InfeasibleScheduleError
        It breaks a rule (a bug of the engine).
    """
    from ..validation import assert_feasible

    instance = episode_instance(jobs, made)
    schedule = episode_schedule(jobs, start, method)
    assert_feasible(instance, schedule)
    return instance, schedule


def episode_bracket(instance: Instance, schedule: Schedule, *,
                    objectives: tuple[str, ...] = BRACKET_OBJECTIVES,
                    time_limit: float = 10.0, seed: int = 0,
                    num_workers: int = 1) -> dict[str, Any]:
    """Per objective: ``online`` (the episode's value), ``best_found``,
    ``lower_bound``, ``at_least`` and ``at_most`` (the gap bracket of
    :func:`~opt_sched.experiments.window.window_gap`), ``found_by`` and
    ``source``. ``time_limit`` is per objective."""
    from ..experiments.window import window_gap

    result = window_gap(instance, schedule, 0, instance.num_jobs, time_limit,
                        objectives=objectives, num_workers=num_workers, seed=seed,
                        mode="consecutive")
    keys = ("online", "best_found", "lower_bound", "at_least", "at_most",
            "found_by", "source")
    return {name: {k: values.get(k) for k in keys}
            for name, values in result["objectives"].items()}
