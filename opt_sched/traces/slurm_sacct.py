"""Read Slurm accounting output (``sacct --parsable2 --allocations``).

The file is ``sacct``'s pipe-separated output with its header line, for
example from::

    sacct --allusers --parsable2 --allocations --starttime 2024-03-01 \\
      --format JobID,Submit,Start,End,Elapsed,Timelimit,AllocNodes,ReqNodes,\\
    NCPUS,ReqCPUS,State,User,Group,Account,Partition,QOS,Priority,JobName

Columns are found by their header name (any order, any case); ``JobID``,
``Submit`` and ``State`` are required, with ``End`` or ``Elapsed``, and one
of ``AllocNodes``, ``NNodes``, ``ReqNodes``. ``--parsable``'s trailing ``|``
is accepted. Rules (documented in ``instances/traces.md``):

- one job record (line) = one SWF row (:mod:`.accounting_rows`): submit
  ``Submit``; wait ``Start - Submit``; run ``End - Start`` (the time the
  allocation was held), else ``Elapsed`` (without a ``Start`` column, the
  start is ``End - Elapsed``); allocated ``AllocNodes`` (else
  ``NNodes``); requested ``ReqNodes``; requested time ``Timelimit``
  (``UNLIMITED``/``Partition_Limit``: unknown, ``-1``).
- the machine unit is the node; ``NCPUS``/``ReqCPUS`` are not used (a note
  says so).
- job steps (``123.batch``, ``123.extern``, ``123.0``) are not jobs: counted
  in ``not_jobs``. An array element ``123_4`` is one job; each component
  ``123+0``, ``123+1`` of a heterogeneous job is one job (its own nodes and
  times; the replay does not force the components to start together).
- SWF status (field 11): ``COMPLETED`` 1; ``FAILED``, ``TIMEOUT``,
  ``NODE_FAIL``, ``OUT_OF_MEMORY``, ``BOOT_FAIL``, ``DEADLINE``,
  ``PREEMPTED`` 0 (ended by an error or by the system); ``CANCELLED``
  (``CANCELLED by 1234``) 5. A job that never started (no ``Start``, or
  ``AllocNodes`` 0) has wait ``-1``, run time 0 and allocated ``-1``.
- ``PENDING``, ``RUNNING``, ``SUSPENDED``, ``REQUEUED`` and the other
  transient states, or no ``End``: skipped as ``not_finished``.
  ``REVOKED`` (a federated job's copy that ran on another cluster) is not a
  job of this log: counted in ``not_jobs``.
- dates are read in ``TraceReading.tz`` (UTC by default, with a note).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ..errors import TraceError
from .accounting_rows import AccountingRows, open_log
from .accounting_time import UNKNOWN_WORDS, slurm_duration, slurm_timestamp
from .reading import TraceReading, TraceRecords

if TYPE_CHECKING:
    from .skips import SkipSummary
    from .trace import Trace

__all__ = ["SACCT_STATUS", "read_sacct", "sacct_records", "sniff"]

SACCT_STATUS: dict[str, int] = {
    "COMPLETED": 1,
    "FAILED": 0, "TIMEOUT": 0, "NODE_FAIL": 0, "OUT_OF_MEMORY": 0,
    "BOOT_FAIL": 0, "DEADLINE": 0, "PREEMPTED": 0,
    "CANCELLED": 5,
}
"""Final Slurm state -> SWF status (field 11: 1 completed, 0 failed, 5
cancelled)."""

UNFINISHED: frozenset[str] = frozenset({
    "PENDING", "RUNNING", "SUSPENDED", "REQUEUED", "REQUEUE_FED",
    "REQUEUE_HOLD", "RESIZING", "CONFIGURING", "COMPLETING", "STOPPED",
    "SIGNALING", "STAGE_OUT", "RESV_DEL_HOLD", "SPECIAL_EXIT", "POWER_UP_NODE",
    "UPDATE_DB", "LAUNCH_FAILED", "RECONFIG_FAIL"})
"""Slurm states of a job that had not ended when the log was taken."""

_JOB_ID = re.compile(r"^\d+(?:_(?:\d+|\[[^\]]*\]))?(?:\+\d+)?(?:\.(\S+))?$")
_STEP = "job steps (JobID N.batch, N.extern, N.0, ...)"
_REVOKED = "State REVOKED (a federated job's copy that ran on another cluster)"
_NODE_COLUMNS = ("allocnodes", "nnodes", "reqnodes")
_CPU_COLUMNS = ("ncpus", "alloccpus", "reqcpus")
_T = TypeVar("_T")
_duration = lru_cache(maxsize=1 << 12)(slurm_duration)
"""Durations repeat (time limits): parsed once each."""


def sniff(path: Path, head: str) -> bool:
    """Does ``head`` start with a ``sacct --parsable2`` header (a ``JobID``
    column among pipe-separated names)?"""
    first = next((line for line in head.splitlines() if line.strip()), "")
    names = [name.strip().lower() for name in first.split("|")]
    return len(names) > 1 and "jobid" in names


def read_sacct(path: str | Path, platform: str | Path | None = None,
               reading: TraceReading | None = None
               ) -> tuple[Trace, SkipSummary]:
    """Read ``sacct`` output into a trace and its summary (the reading
    rules of :func:`opt_sched.traces.rules.records_to_trace`); ``platform``
    is not used (the log gives no machine count)."""
    from .rules import records_to_trace

    reading = reading if reading is not None else TraceReading()
    return records_to_trace(sacct_records(path, reading), reading)


class _Line:
    """One data line: its fields by lower-case column name, and errors that
    name the file, the line and the column as the header writes it."""

    def __init__(self, label: str, number: int, names: list[str],
                 lower: list[str], values: list[str]) -> None:
        self.label, self.number = label, number
        self.names = names
        self.values = dict(zip(lower, values))

    def text(self, column: str) -> str | None:
        value = self.values.get(column)
        return None if value is None else value.strip()

    def parse(self, column: str, parser: Callable[[str], _T | None], what: str
              ) -> _T | None:
        value = self.values.get(column)
        if value is None:
            return None
        try:
            return parser(value)
        except ValueError:
            raise self.error(column, what) from None

    def count(self, column: str) -> int | None:
        return self.parse(column, _count, "not a node count")

    def error(self, column: str, what: str) -> TraceError:
        name = next(n for n in self.names if n.lower() == column)
        return TraceError(f"{self.label} line {self.number}: field "
                          f"{name}={self.values[column].strip()!r} is {what}")


def _count(text: str) -> int | None:
    word = text.strip()
    if word.lower() in UNKNOWN_WORDS:
        return None
    value = int(word)
    if value < 0:
        raise ValueError(word)
    return value


def _header(label: str, number: int, line: str) -> tuple[list[str], bool]:
    """The column names, whether lines end with ``|`` (``--parsable``)."""
    names = [name.strip() for name in line.split("|")]
    trailing = len(names) > 1 and names[-1] == ""
    if trailing:
        names.pop()
    lower = [name.lower() for name in names]
    missing = [need for need in ("JobID", "Submit", "State")
               if need.lower() not in lower]
    if "end" not in lower and "elapsed" not in lower:
        missing.append("End or Elapsed")
    if not any(name in lower for name in _NODE_COLUMNS):
        missing.append("AllocNodes, NNodes or ReqNodes")
    if missing:
        raise TraceError(f"{label} line {number}: the sacct header has no column "
                         f"{missing[0]} (read with sacct --parsable2 --format "
                         f"JobID,Submit,Start,End,Elapsed,Timelimit,AllocNodes,"
                         f"ReqNodes,State,User,Group,Partition)")
    return names, trailing


def _state(line: _Line) -> str:
    """The state's first word (``CANCELLED by 1234`` -> ``CANCELLED``)."""
    words = (line.text("state") or "").split()
    state = words[0].rstrip("+").upper() if words else ""
    if state not in SACCT_STATUS and state not in UNFINISHED and state != "REVOKED":
        raise line.error("state", "not a Slurm job state")
    return state


def _add_job(rows: AccountingRows, line: _Line, job_id: str,
             timestamp: Callable[[str], float | None], state: str) -> None:
    """One job line: its SWF row, or a ``not_finished`` skip."""
    def stamp(column: str) -> float | None:
        return line.parse(column, timestamp, "not a time")

    submit, start, end = stamp("submit"), stamp("start"), stamp("end")
    elapsed = line.parse("elapsed", _duration, "not a duration")
    limit = line.parse("timelimit", _duration, "not a duration")
    allocated = line.count("allocnodes")
    if "allocnodes" not in line.values:
        allocated = line.count("nnodes")
    requested = line.count("reqnodes")
    if state in UNFINISHED or (end is None and elapsed is None):
        rows.skip("not_finished", line.number)
        return
    if "start" not in line.values and end is not None and elapsed is not None:
        start = end - elapsed                       # no Start column
    if allocated == 0 or (start is None and "start" in line.values):
        start, run, allocated = None, 0.0, None     # never started
    elif end is not None:
        run = end - start
    else:
        run = elapsed
    rows.add(line.number, job_id, submit=submit, start=start, run=run,
             allocated=allocated, requested=requested, walltime=limit,
             status=SACCT_STATUS[state], user=line.text("user") or None,
             group=line.text("group") or line.text("account") or None,
             executable=line.text("jobname") or None,
             queue=line.text("partition") or None)


def sacct_records(path: str | Path, reading: TraceReading | None = None
                  ) -> TraceRecords:
    """The job records of ``sacct --parsable2`` output as SWF rows.

    Raises
    ------
    TraceError
        A missing column, a line with the wrong number of fields, or a field
        that does not parse: ``jobs.sacct line 7: field Submit='xyz' is not
        a time``.
    OptionError
        ``reading.tz`` is not an IANA time zone.
    """
    reading, text, rows = open_log(path, reading, "sacct")
    label = rows.source
    names: list[str] | None = None
    lower: list[str] = []
    trailing = False
    tz = reading.tz

    @lru_cache(maxsize=1 << 16)
    def timestamp(text: str) -> float | None:
        return slurm_timestamp(text, tz)

    header_text = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        if names is None:
            names, trailing = _header(label, number, raw)
            lower = [name.lower() for name in names]
            header_text = raw.strip()
            continue
        if raw.strip() == header_text:
            rows.not_job("repeated header lines")
            continue
        values = raw.split("|")
        if trailing and len(values) == len(names) + 1 and values[-1].strip() == "":
            values.pop()
        if len(values) != len(names):
            raise TraceError(f"{label} line {number}: {len(values)} fields, "
                             f"expected {len(names)} (the header's columns)")
        line = _Line(label, number, names, lower, values)
        job_id = line.text("jobid") or ""
        match = _JOB_ID.match(job_id)
        if match is None:
            raise line.error("jobid", "not a Slurm job id")
        if match.group(1) is not None:
            rows.not_job(_STEP)
            continue
        state = _state(line)
        if state == "REVOKED":
            rows.not_job(_REVOKED)
            continue
        _add_job(rows, line, job_id, timestamp, state)
    if names is None:
        raise TraceError(f"{label}: no sacct header line (the file is empty)")
    _notes(rows, names, reading.tz)
    return rows.records(reading.tz, "converted from Slurm sacct --parsable2 output; "
                        "machines are nodes; job steps are not jobs")


def _notes(rows: AccountingRows, names: list[str], tz: str | None) -> None:
    lower = {name.lower() for name in names}
    if tz is None:
        rows.notes.append("time zone: UTC (assumed; give --tz)")
    cpus = [name for name in names if name.lower() in _CPU_COLUMNS]
    size = "AllocNodes" if "allocnodes" in lower else "NNodes"
    rows.notes.append(f"machines are nodes ({size}, ReqNodes)"
                      + (f"; {', '.join(cpus)} not used" if cpus else ""))
