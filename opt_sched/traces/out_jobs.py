"""Write a schedule as Batsim's ``out_jobs.csv``, readable by evalys.

Columns, in Batsim's order (Batsim >= 2, ``src/export.cpp``)::

    job_id, workload_name, profile, submission_time,
    requested_number_of_resources, requested_time, success, final_state,
    starting_time, execution_time, finish_time, waiting_time,
    turnaround_time, stretch, allocated_resources, consumed_energy, metadata

With ``S_i`` the start, ``C_i`` the completion (``killed_at`` for a killed
job) and ``r_i`` the release: ``execution_time = C_i - S_i``,
``waiting_time = S_i - r_i``, ``turnaround_time = C_i - r_i`` and
``stretch = turnaround_time / execution_time`` (Batsim's definition, not
SPEC's slowdown). A job killed at its wall time has ``success = 0`` and
``final_state = COMPLETED_WALLTIME_REACHED`` (Batsim's name); every other
job ``1`` and ``COMPLETED_SUCCESSFULLY``. ``allocated_resources`` is the
interval set of the job's machines (``"0-3 7"``); machines of partition
``k`` are numbered after those of partitions ``0..k-1``; empty when the
schedule does not record machines. Energy is not modelled: ``-1``.
A Batsim id ``"w0!7"`` is written as ``job_id = 7``, ``workload_name =
w0``, as Batsim does. Times are written with full precision (``repr``), in
the workload's own clock: ``origin`` (the conversion's
:attr:`~opt_sched.traces.time_origin.TimeOrigin.shift`, 0 by default) is added
to ``submission_time``, ``starting_time`` and ``finish_time``.
The older Batsim file in ``batsim-medium_late`` has a ``hacky_job_id``
column and no ``profile``/``final_state``/``metadata``; evalys and
``compare_out_jobs.py`` read both.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..errors import ScheduleFormatError
from ..files import atomic_write_text
from ..instance import Instance
from ..schedule import MachineSet, Schedule
from .trace import Trace

__all__ = ["OUT_JOBS_COLUMNS", "interval_set", "out_jobs_rows", "parse_interval_set",
           "write_out_jobs"]

OUT_JOBS_COLUMNS: tuple[str, ...] = (
    "job_id", "workload_name", "profile", "submission_time",
    "requested_number_of_resources", "requested_time", "success", "final_state",
    "starting_time", "execution_time", "finish_time", "waiting_time",
    "turnaround_time", "stretch", "allocated_resources", "consumed_energy",
    "metadata")


def interval_set(machines: Iterable[int]) -> str:
    """Batsim's interval-set string: ``[0, 1, 2, 3, 7]`` -> ``"0-3 7"``."""
    return MachineSet.from_machines(machines).interval_string()


def parse_interval_set(text: str) -> MachineSet:
    """The machines of an interval-set string: ``"0 4-6"`` -> ``(0, 4, 5, 6)``
    (a :class:`~opt_sched.schedule.MachineSet`, equal to that tuple).

    Raises :class:`~opt_sched.errors.ScheduleFormatError` on a malformed part.
    """
    try:
        return MachineSet.parse(text)
    except ValueError as err:
        raise ScheduleFormatError(str(err)) from None


def _allocated_resources(machines: Sequence[int] | None, offset: int) -> str:
    """The ``allocated_resources`` column: the interval set of the job's
    machines, numbered from ``offset``; empty without machines. A
    :class:`~opt_sched.schedule.MachineSet` is written from its runs."""
    if machines is None:
        return ""
    if not isinstance(machines, MachineSet):
        machines = MachineSet.from_machines(machines)
    return machines.interval_string(offset)


def _split_id(job_id: str, workload_name: str) -> tuple[str, str]:
    if "!" in job_id:
        workload, name = job_id.split("!", 1)
        return name, workload
    return job_id, workload_name


def out_jobs_rows(instance: Instance, schedule: Schedule,
                  trace: Trace | None = None, *, workload_name: str = "w0",
                  origin: float = 0.0) -> list[dict[str, object]]:
    """One dict per job (instance order) with the :data:`OUT_JOBS_COLUMNS`."""
    schedule.check_shape(instance)
    offsets = [0]
    for part in instance.platform.partitions:
        offsets.append(offsets[-1] + part.nodes)
    profile_of = {}
    if trace is not None:
        profile_of = dict(zip(trace.ids, trace.profiles))
    rows = []
    for job in instance.jobs:
        js = schedule[job.id]
        start = js.start
        end = schedule.completion(instance, job.id)
        execution = end - start
        turnaround = end - job.release
        killed = js.killed_at is not None
        machines = _allocated_resources(js.machines, offsets[js.partition])
        job_name, workload = _split_id(job.id, workload_name)
        rows.append({
            "job_id": job_name,
            "workload_name": workload,
            "profile": profile_of.get(job.id) or "",
            "submission_time": job.release + origin,
            "requested_number_of_resources": job.nodes,
            "requested_time": job.walltime if job.walltime is not None else -1,
            "success": 0 if killed else 1,
            "final_state": ("COMPLETED_WALLTIME_REACHED" if killed
                            else "COMPLETED_SUCCESSFULLY"),
            "starting_time": start + origin,
            "execution_time": execution,
            "finish_time": end + origin,
            "waiting_time": start - job.release,
            "turnaround_time": turnaround,
            "stretch": turnaround / execution if execution > 0 else "",
            "allocated_resources": machines,
            "consumed_energy": -1,
            "metadata": "",
        })
    return rows


def write_out_jobs(path: str | Path, instance: Instance, schedule: Schedule,
                   trace: Trace | None = None, *, workload_name: str = "w0",
                   origin: float = 0.0) -> None:
    """Write ``out_jobs.csv`` atomically (temp file + rename).

    ``trace`` (optional) supplies Batsim profile names; ``origin`` is added
    to the times written (module docstring). Raises
    :class:`~opt_sched.errors.ScheduleFormatError` if the schedule does not
    fit the instance and :class:`~opt_sched.errors.OutputError` if ``path``
    cannot be written.
    """
    try:
        rows = out_jobs_rows(instance, schedule, trace, workload_name=workload_name,
                             origin=origin)
    except KeyError as err:  # pragma: no cover - check_shape catches it first
        raise ScheduleFormatError(f"schedule: job {err.args[0]!r} is missing") \
            from None
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=OUT_JOBS_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(path, buffer.getvalue())
