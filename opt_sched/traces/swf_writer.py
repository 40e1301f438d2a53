"""Write a schedule of trace jobs as an SWF file, with our wait and run times.

Each job of the instance becomes one line (instance order, i.e. submit
order). Recomputed from the schedule: field 2 submit time ``r_i``, field 3
wait time ``S_i - r_i``, field 4 run time ``C_i - S_i`` (it includes waits
for the I/O node; a killed job stops at ``killed_at``), field 5 allocated
processors ``Q_i``, field 9 requested time ``e_i`` (``-1`` if none), field
11 status (``0`` "failed" for a job killed at its wall time; otherwise the
trace's status, or ``1``). Field 6 (average CPU time) is ``-1``: it is not
modelled. The other fields are copied from the SWF trace when one is given
(job number, memory, requested processors, user, group, executable, queue,
partition, preceding job, think time). Without an SWF trace: the job number
is the id when every id is a positive integer, else the position (1-based);
the user is the id when it is an integer, else users are numbered 1, 2, ...
in order of appearance; ``exe:N`` / ``group:N`` groups give fields 14 / 13.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..files import atomic_write_text
from ..instance import Instance
from ..schedule import Schedule
from .swf_format import (
    ALLOCATED,
    CPU,
    EXECUTABLE,
    GROUP,
    JOB,
    REQ_PROCS,
    REQ_TIME,
    RUN,
    STATUS,
    SUBMIT,
    USER,
    WAIT,
)
from .trace import Trace

__all__ = ["swf_lines", "write_swf"]

_COPIED_HEADER = ("Computer", "Installation", "UnixStartTime", "TimeZone",
                  "TimeZoneString")


def _format(value: float) -> str:
    value = float(value)
    if value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value)


def _exact_integer(text: str | None, fallback: str) -> str:
    """``text`` when it is an integer as the SWF reader writes it (job numbers
    and users beyond 2**53 are kept exactly as strings, while the raw field
    table holds them as rounded floats), else ``fallback``."""
    if text is None:
        return fallback
    digits = text.removeprefix("-")
    return text if digits.isascii() and digits.isdigit() else fallback


def _numbering(values: list[str | None]) -> list[int]:
    """Integer ids when every value is an integer string, else 1, 2, ..."""
    if all(v is not None and v.isdigit() and int(v) > 0 for v in values):
        return [int(v) for v in values]  # type: ignore[arg-type]
    index: dict[str | None, int] = {}
    out = []
    for v in values:
        if v is None:
            out.append(-1)
            continue
        out.append(index.setdefault(v, len(index) + 1))
    return out


def _group_fields(group: str | None) -> tuple[int, int]:
    """``(group id, executable)`` from ``"group:N"`` / ``"exe:N"``."""
    if group:
        kind, _, number = group.partition(":")
        if number.isdigit():
            if kind == "group":
                return int(number), -1
            if kind == "exe":
                return -1, int(number)
    return -1, -1


def swf_lines(instance: Instance, schedule: Schedule, trace: Trace | None = None
              ) -> list[str]:
    """The header and job lines of the SWF file (see the module docstring)."""
    schedule.check_shape(instance)
    raw = None
    if trace is not None and trace.swf_fields is not None:
        row_of = {job_id: k for k, job_id in enumerate(trace.ids)}
        raw = trace.swf_fields
    numbers = _numbering([job.id for job in instance.jobs])
    users = _numbering([job.user for job in instance.jobs])
    total = instance.platform.total_nodes
    header = [
        "; Version: 2.2",
        f"; Note: written by opt_sched from a schedule of method "
        f"'{schedule.method or '?'}' (execution model '{schedule.execution}')",
        "; Note: fields 3 and 4 are the schedule's wait S-r and run time C-S",
        f"; MaxJobs: {instance.num_jobs}",
        f"; MaxRecords: {instance.num_jobs}",
        f"; MaxNodes: {total}",
        f"; MaxProcs: {total}",
    ]
    if trace is not None:
        header.extend(f"; {key}: {trace.header[key]}" for key in _COPIED_HEADER
                      if key in trace.header and "\n" not in trace.header[key])
    lines = list(header)
    for k, job in enumerate(instance.jobs):
        js = schedule[job.id]
        start = js.start
        end = schedule.completion(instance, job.id)
        copied = raw is not None and job.id in row_of
        if copied:
            fields = np.array(raw[row_of[job.id]], dtype=float)
        else:
            fields = np.full(18, -1.0)
            fields[JOB] = numbers[k]
            fields[REQ_PROCS] = job.nodes
            fields[STATUS] = 1
            fields[USER] = users[k]
            fields[GROUP], fields[EXECUTABLE] = _group_fields(job.group)
        fields[SUBMIT] = job.release
        fields[WAIT] = start - job.release
        fields[RUN] = end - start
        fields[ALLOCATED] = job.nodes
        fields[CPU] = -1
        fields[REQ_TIME] = job.walltime if job.walltime is not None else -1
        if js.killed_at is not None:
            fields[STATUS] = 0
        tokens = [_format(x) for x in fields]
        if copied:
            tokens[JOB] = _exact_integer(job.id, tokens[JOB])
            tokens[USER] = _exact_integer(job.user, tokens[USER])
        lines.append(" ".join(tokens))
    return lines


def write_swf(path: str | Path, instance: Instance, schedule: Schedule,
              trace: Trace | None = None) -> None:
    """Write the schedule as an SWF file, atomically (temp file + rename).

    Raises :class:`~opt_sched.errors.ScheduleFormatError` if the schedule
    does not fit the instance, :class:`~opt_sched.errors.OutputError` if
    ``path`` cannot be written.
    """
    atomic_write_text(path, "\n".join(swf_lines(instance, schedule, trace)) + "\n")
