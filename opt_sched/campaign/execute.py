"""Run one task: build its instance, run its method, validate, measure.

:func:`resolve_method` is the **one** place that turns a method spec string
into something runnable. It reads the method registry
(:mod:`opt_sched.methods`): every registered heuristic, by its spec string
(``one-pack/<policy>``, ``first-fit+lpt/<policy>``,
``make-pack(S=<s>|alpha)+lpt/<policy>``, and whatever is registered later).

The row of a task (:func:`run_task`) is flat: ``status`` and the method's
summary metrics (:func:`opt_sched.metrics.summary`: ``makespan``,
``max_stretch``, ``mean_stretch``, ``utilisation``, ...), the method's own
extras (``sensibility``, ``predicted_makespan`` for pack plans),
``wall_time`` (seconds to produce the schedule), and the extra metrics the
task asks for (``lower_bound`` and ``gap``; ``stretch:<job>``). Every
schedule passes :func:`opt_sched.validation.assert_feasible` before it is
measured; a schedule of another shape (seed 004's gang schedules, say) is
validated and measured by its execution model's
:class:`~opt_sched.schedule_kinds.ScheduleKind` instead. An exception becomes a
``failed`` row with its one-line message; it never escapes. An experiment
task (:mod:`.experiments`) returns its own row (it validates its schedules
itself), plus ``wall_time``.
"""

from __future__ import annotations

import math
import os
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..instance import Instance
from ..objectives import gap_or_nan
from .sources import build_instance
from .task import InstanceSource, Limits, Task

__all__ = ["MethodRun", "TaskResult", "resolve_method", "run_chunk", "run_task"]


@dataclass
class MethodRun:
    """What a method returns: its schedule and its own extra columns."""

    schedule: Any
    extras: dict[str, Any]


Method = Callable[..., MethodRun]
"""``run(instance, seed, limits, execution=None) -> MethodRun``."""


@dataclass(frozen=True)
class TaskResult:
    """The outcome of one task, as the store records it."""

    key: str
    status: str
    metrics: dict[str, Any]
    error: str | None
    wall_time: float
    worker: str


def resolve_method(spec: str) -> Method:
    """The method named by ``spec``: a spec string of the method registry
    (:mod:`opt_sched.methods`, e.g. ``make-pack(S=1)+lpt/fifo``,
    ``one-pack/stretch``).

    This is the single dispatch point of the campaign layer; the spec
    loader calls it to reject unknown methods early. The extras of a run are
    the method's effective parameters (``sensibility``) and, for pack
    schedules, the contention-free makespan the plan predicts.

    Raises
    ------
    SpecError
        ``spec`` names no known method.
    """
    from .. import methods

    method = methods.method(spec.strip())  # a SpecError names the spec

    def run(instance: Instance, seed: int, limits: Limits,
            execution: Any = None) -> MethodRun:
        from ..heuristics.pack_plan import predicted_makespan

        schedule = method.run(instance, seed=seed, execution=execution)
        extras: dict[str, Any] = dict(method.effective(instance))
        if schedule.packs is not None and method.stage("allocation") is not None:
            extras["predicted_makespan"] = predicted_makespan(instance,
                                                              schedule.packs)
        return MethodRun(schedule, extras)

    return run


# -- per-process caches ----------------------------------------------------------
_BOUNDS: OrderedDict[tuple[InstanceSource, str], float] = OrderedDict()
_BOUNDS_SIZE = 32
_BOUNDS_LOCK = threading.Lock()  # Dask may run chunks in threads of one process


def _makespan_bound(source: InstanceSource, instance: Instance,
                    execution: Any) -> float:
    """The best makespan lower bound of ``instance`` that holds under the
    task's ``execution`` (an :class:`~opt_sched.execution.ExecutionSpec`;
    :func:`opt_sched.bound_models.best_bound_under`; NaN when none does, so
    ``gap`` is NaN too), once per source, model and process (a chunk's tasks
    share their instance)."""
    from ..bound_models import best_bound_under

    key = (source, execution)
    with _BOUNDS_LOCK:
        if key in _BOUNDS:
            _BOUNDS.move_to_end(key)
            return _BOUNDS[key]
    found = best_bound_under(instance, "makespan", execution)
    value = math.nan if found.value is None else float(found.value)
    with _BOUNDS_LOCK:
        _BOUNDS[key] = value
        if len(_BOUNDS) > _BOUNDS_SIZE:
            _BOUNDS.popitem(last=False)
    return value


def _measure_hpc(instance: Instance, schedule: Any) -> dict[str, Any]:
    """The validator (every rule; the execution model's I/O rule), then
    :func:`opt_sched.metrics.summary` on the phase table it checked."""
    from ..metrics import summary
    from ..validation import assert_feasible

    report = assert_feasible(instance, schedule)
    values = summary(instance, schedule, phase_table=report.table)
    return {k: (int(v) if isinstance(v, int) and not isinstance(v, bool)
                else float(v)) for k, v in values.items()}


def _measure(instance: Any, schedule: Any) -> dict[str, Any]:
    """Validate and measure ``schedule``: by its execution model's
    :class:`~opt_sched.schedule_kinds.ScheduleKind` when it has one (a
    schedule of another shape, e.g. seed 004's gang schedules), else as an
    HPC schedule (:func:`_measure_hpc`)."""
    from ..schedule_kinds import kind_of_schedule

    kind = kind_of_schedule(schedule)
    return (_measure_hpc if kind is None else kind.measure)(instance, schedule)


def one_line(err: BaseException) -> str:
    """``Type: first line of the message`` (at most 500 characters)."""
    text = str(err).strip().splitlines()
    message = text[0] if text else ""
    line = f"{type(err).__name__}: {message}" if message else type(err).__name__
    return line[:500]


def worker_name() -> str:
    """``host:pid`` of this process."""
    return f"{socket.gethostname()}:{os.getpid()}"


def run_task(task: Task) -> TaskResult:
    """Run ``task`` and return its row; never raises (a failure is a
    ``failed`` result with the exception's one-line message)."""
    start = time.perf_counter()
    wall = math.nan
    try:
        if task.source.experiment is not None:
            from .experiments import run_experiment

            row: dict[str, Any] = {"status": "ok"}
            row.update(run_experiment(task.source, task.seed))
            wall = time.perf_counter() - start
            row["wall_time"] = wall
            return TaskResult(task.key, "ok", row, None, wall, worker_name())
        instance = build_instance(task.source)
        method = resolve_method(task.method)
        begin = time.perf_counter()
        run = method(instance, task.seed, task.limits, task.execution_spec)
        wall = time.perf_counter() - begin
        row = {"status": "ok"}
        row.update(_measure(instance, run.schedule))
        row.update(run.extras)
        if "lower_bound" in task.metrics:
            bound = _makespan_bound(task.source, instance, task.execution_spec)
            row["lower_bound"] = bound
            row["gap"] = gap_or_nan(row["makespan"], bound)
        if "io_concurrency" in task.metrics:
            from ..metrics import io_concurrency

            row.update(io_concurrency(instance, run.schedule))
        if "job_stretch" in task.metrics:
            for job, stretch in run.schedule.stretches(instance).items():
                row[f"stretch:{job}"] = float(stretch)
        row["wall_time"] = wall
        return TaskResult(task.key, "ok", row, None, wall, worker_name())
    except Exception as err:  # recorded, never raised: the sweep goes on
        if math.isnan(wall):
            wall = time.perf_counter() - start
        return TaskResult(task.key, "failed", {"status": "failed"}, one_line(err),
                          wall, worker_name())


def run_chunk(tasks: list[Task]) -> list[TaskResult]:
    """:func:`run_task` on each task, in order (one worker, one call; the
    tasks of a chunk share their instance, built once)."""
    return [run_task(task) for task in tasks]
