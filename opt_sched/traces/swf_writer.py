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

:func:`write_trace_swf` writes a *trace* (no schedule: ``opt-sched
convert``), every kept job with the fields it was read with, under a
complete SWF 2.2 header (:func:`swf_header`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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

__all__ = ["HEADER_ORDER", "RECOMPUTED_HEADER", "swf_header", "swf_lines",
           "trace_swf_lines", "write_swf", "write_trace_swf"]

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


def swf_lines(instance: Instance, schedule: Schedule, trace: Trace | None = None,
              *, origin: float = 0.0) -> list[str]:
    """The header and job lines of the SWF file (see the module docstring).
    ``origin`` (the conversion's :attr:`TimeOrigin.shift
    <opt_sched.traces.time_origin.TimeOrigin>`) is added to the submit times,
    so the file keeps the trace's own clock."""
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
        fields[SUBMIT] = job.release + origin
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
              trace: Trace | None = None, *, origin: float = 0.0) -> None:
    """Write the schedule as an SWF file, atomically (temp file + rename).

    Raises :class:`~opt_sched.errors.ScheduleFormatError` if the schedule
    does not fit the instance, :class:`~opt_sched.errors.OutputError` if
    ``path`` cannot be written.
    """
    atomic_write_text(path, "\n".join(swf_lines(instance, schedule, trace,
                                                 origin=origin)) + "\n")


# -- a trace as SWF (``opt-sched convert``) ----------------------------------------
HEADER_ORDER: tuple[str, ...] = (
    "Version", "Computer", "Installation", "Acknowledge", "Information",
    "Conversion", "MaxJobs", "MaxRecords", "Preemption", "UnixStartTime",
    "TimeZone", "TimeZoneString", "StartTime", "EndTime", "MaxNodes", "MaxProcs",
    "MaxRuntime", "MaxMemory", "AllowOveruse", "MaxQueues", "Queues", "Queue",
    "MaxPartitions", "Partitions", "Partition", "Note")
"""The header comments SWF 2.2 defines, in the archive's order. Keys of the
source outside this list (a Batsim ``nb_res``, a ``command``) are not SWF
and are not written."""

RECOMPUTED_HEADER: tuple[str, ...] = ("Version", "MaxJobs", "MaxRecords")
"""Header keys written from the file itself, never copied: the version we
write (2.2) and the job lines it holds (the skipped records are gone)."""

_TEXT_DEFAULTS = ("Computer", "Installation")
"""Text keys written as ``unknown`` when the source does not say (the SWF
definition lists them first; a string harms no reader)."""


def _header_line(key: str, value: str) -> list[str]:
    """``; Key: value``, a multi-line value as continuation lines (the SWF
    reader appends a ``;`` line without a key to the previous key)."""
    first, *rest = value.split("\n") if value else [""]
    pad = " " * (len(key) + 2)
    return [f"; {key}: {first}".rstrip()] + [f";{pad} {line}".rstrip() for line in rest]


def swf_header(header: Mapping[str, str], *, jobs: int, machines: int,
               first_submit: float | None, notes: Sequence[str] = ()) -> list[str]:
    """The header comments of an SWF 2.2 file holding ``jobs`` job lines.

    Rules, key by key (:data:`HEADER_ORDER`):

    - ``Version`` is ``2.2``; ``MaxJobs`` = ``MaxRecords`` = ``jobs`` (one
      line per job);
    - every other SWF key of ``header`` is copied as it was read
      (multi-line values such as ``Information`` or ``Note`` included);
    - ``MaxNodes`` / ``MaxProcs`` missing from ``header`` are ``machines``
      (the machine size the trace was read with: one SWF processor is one
      opt_sched machine);
    - ``Computer`` / ``Installation`` missing: ``unknown``;
    - ``UnixStartTime`` missing: ``0`` when the submit times are themselves
      Unix epochs (:func:`~opt_sched.traces.time_origin.clock_epoch`), else
      left out (relative times: the date is unknown), and a ``Note`` says
      which;
    - ``notes`` follow the source's own ``Note`` lines, one ``Note`` each.
    """
    from .time_origin import clock_epoch

    values = {key: header[key] for key in HEADER_ORDER
              if key in header and key not in RECOMPUTED_HEADER and key != "Note"}
    values["Version"] = "2.2"
    values["MaxJobs"] = values["MaxRecords"] = str(jobs)
    derived = []
    for key in ("MaxNodes", "MaxProcs"):
        if key not in values:
            values[key] = str(machines)
            derived.append(key)
    for key in _TEXT_DEFAULTS:
        values.setdefault(key, "unknown")
    extra = list(notes)
    if derived:
        extra.append(f"{' and '.join(derived)} not in the source: the machine size "
                     f"the trace was read with ({machines})")
    if "UnixStartTime" not in values and first_submit is not None:
        if clock_epoch({}, first_submit) == 0:
            values["UnixStartTime"] = "0"
            extra.append("UnixStartTime 0: the submit times are Unix epochs (UTC)")
        else:
            extra.append("UnixStartTime unknown: the source gives relative times")
    lines: list[str] = []
    for key in HEADER_ORDER:
        if key == "Note":
            if "Note" in header:
                lines.extend(_header_line("Note", header["Note"]))
            for note in extra:
                lines.extend(_header_line("Note", note))
        elif key in values:
            lines.extend(_header_line(key, values[key]))
    lines.append(";")
    return lines


def _integers(values: Sequence[str | None]) -> bool:
    """Every value is an integer as the SWF reader writes it (``None``:
    unknown, allowed)."""
    return all(v is None or _exact_integer(v, "") == v for v in values)


def _job_numbers(trace: Trace, column: np.ndarray | None
                 ) -> tuple[list[str], str | None]:
    """Field 1 of each job, and a note when it is not the trace's ids.

    The ids when every one is a non-negative integer (an SWF trace: exact,
    even beyond 2**53; a Batsim workload numbered from 0); else the source's
    SWF job numbers when they are non-negative and distinct; else ``1..n``
    in submit order. (Ids are unique: the readers check it.)
    """
    ids = trace.ids
    if _integers(ids) and not any(i.startswith("-") for i in ids):
        return list(ids), None
    example = next(i for i in ids if _exact_integer(i, "") != i or i.startswith("-"))
    if column is not None and (column >= 0).all() and \
            len(np.unique(column)) == len(column):
        return [_format(x) for x in column], (
            f"field 1: the job numbers of the reader's SWF rows (the log's ids, "
            f"such as {example!r}, are not all integers)")
    return [str(k) for k in range(1, len(ids) + 1)], (
        f"field 1: jobs numbered 1, 2, ... in submit order (the log's ids, such "
        f"as {example!r}, are not all integers)")


def _user_numbers(trace: Trace) -> tuple[list[str], str | None]:
    """Field 12: the users when they are integers, else numbered 1, 2, ...
    in order of first appearance (``-1`` unknown)."""
    if _integers(trace.users):
        return ["-1" if u is None else u for u in trace.users], None
    return ([str(x) for x in _numbering(list(trace.users))],
            "field 12: users numbered 1, 2, ... in order of first appearance")


def _built_rows(trace: Trace) -> tuple[np.ndarray, str]:
    """SWF rows of a trace read without them (a Batsim workload): submit,
    run time, processors (allocated = requested), requested time; status
    unknown (-1); the profile (application) numbered as the executable."""
    rows = np.full((len(trace), 18), -1.0)
    rows[:, SUBMIT] = trace.submit
    rows[:, RUN] = trace.run_time
    rows[:, ALLOCATED] = rows[:, REQ_PROCS] = trace.nodes
    rows[:, REQ_TIME] = trace.walltime
    if any(p is not None for p in trace.profiles):
        rows[:, EXECUTABLE] = _numbering(list(trace.profiles))
    return rows, ("fields 2, 4, 5, 8, 9 from the trace (requested time: the "
                  "estimate read); field 14 numbers the profiles in order of first "
                  "appearance; the others unknown")


def trace_swf_lines(trace: Trace, *, notes: Sequence[str] = ()) -> list[str]:
    """The SWF 2.2 file of ``trace``: :func:`swf_header`, then one line per
    kept job in the trace's (submit) order.

    A trace read from SWF rows (``trace.swf_fields``: SWF, and every log
    read through SWF records) writes them back **unchanged**, so that
    reading the file again with the same options gives the same trace (the
    round trip of ``tests/test_swf_roundtrip.py``); the job number and user
    are written from the exact strings the reader kept. Other traces get
    their fields from the columns (:func:`_built_rows`). Job numbers and
    users that are not integers are numbered (a ``Note`` says so).
    """
    extra = list(notes)
    if trace.swf_fields is not None:
        rows = np.array(trace.swf_fields, dtype=float)
        jobs_column: np.ndarray | None = rows[:, JOB]
    else:
        rows, note = _built_rows(trace)
        jobs_column = None
        extra.append(note)
    numbers, note = _job_numbers(trace, jobs_column)
    if note:
        extra.append(note)
    users, note = _user_numbers(trace)
    if note:
        extra.append(note)
    machines = trace.machine_size or trace.widest
    first = float(trace.submit[0]) if len(trace) else None
    lines = swf_header(trace.header, jobs=len(trace), machines=machines,
                       first_submit=first, notes=extra)
    for k, row in enumerate(rows):
        tokens = [_format(x) for x in row]
        tokens[JOB] = numbers[k]
        tokens[USER] = users[k]
        lines.append(" ".join(tokens))
    return lines


def write_trace_swf(path: str | Path, trace: Trace, *, notes: Sequence[str] = ()
                    ) -> None:
    """Write ``trace`` as an SWF 2.2 file (:func:`trace_swf_lines`),
    atomically; an :class:`~opt_sched.errors.OutputError` if ``path``
    cannot be written."""
    atomic_write_text(path, "\n".join(trace_swf_lines(trace, notes=notes)) + "\n")

