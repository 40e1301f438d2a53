"""Read PBS Pro / OpenPBS / Torque accounting logs.

A log (``server_priv/accounting/YYYYMMDD``) holds one record per line::

    MM/DD/YYYY HH:MM:SS;TYPE;JOB ID;key=value key=value ...

Rules (documented in ``instances/traces.md``):

- a job is its ``E`` (ended) record, one SWF row (:mod:`.accounting_rows`):
  submit ``qtime`` (else ``ctime``); wait ``start - qtime``; run ``end -
  start`` (else ``resources_used.walltime``); allocated = the distinct hosts
  of ``exec_host`` (``n1/0+n1/1+n2/0`` and ``n1/0*8+n2/0*8`` are 2 nodes);
  requested = ``Resource_List.nodect``, else the node count of
  ``Resource_List.nodes`` (``2:ppn=6+host3`` is 3), else the chunks of
  ``Resource_List.select`` (``2:ncpus=8+1:ncpus=4`` is 3); requested time
  ``Resource_List.walltime``. The machine unit is the node.
- SWF status (field 11): 5 when the job has a ``D`` (deleted) record before
  its ``E`` record (``qdel``), else 1 for ``Exit_status=0`` and 0 for any
  other exit status (a failure, a signal, a walltime kill).
- a job with a ``D`` record and no ``S`` or ``E`` record was cancelled
  before it started: one row with status 5, wait ``-1``, run time 0, no
  processors and no user (a ``D`` record names only the requestor); its
  submit time is the date of its ``Q`` record, read in ``--tz``, when the
  log has one. The reading rules then count it (``--cancelled``,
  ``--zero-run-time``). An ``A`` (aborted by the server) record instead of
  the ``D``: the same row with status 0 (failed).
- a job with ``Q`` or ``S`` records but no ``E`` record (or a ``D`` record
  after it started) had not ended when the log was taken: skipped as
  ``not_finished``, at the line of its last record.
- every other record (``Q``, ``S``, ``D`` of a job with an ``E``, ``A``,
  ``R``, ``L``, reservations...) is counted in ``not_jobs`` by type, so
  each line is counted exactly once.
- an array element ``123[4].server`` is one job; job ids are kept as
  written.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import TraceError
from .accounting_rows import AccountingRows, open_log
from .accounting_time import pbs_epoch, pbs_record_time, pbs_walltime
from .reading import TraceReading, TraceRecords

if TYPE_CHECKING:
    from .skips import SkipSummary
    from .trace import Trace

__all__ = ["pbs_records", "read_pbs", "sniff"]

_RECORD = re.compile(r"^(\d{2}/\d{2}/\d{4} \d{2}:\d{2}:\d{2});([A-Za-z]);"
                     r"([^;]*);?(.*)$")
_RECORD_TYPES: dict[str, str] = {
    "Q": "queued", "S": "started", "D": "deleted", "E": "ended", "A": "aborted",
    "R": "rerun", "C": "checkpointed", "T": "restarted", "L": "licenses",
    "M": "moved", "B": "reservation begun", "Y": "reservation confirmed",
    "K": "reservation removed", "k": "reservation removed",
    "U": "reservation requested", "F": "reservation finished",
    "P": "provisioning started", "p": "provisioning ended"}
"""PBS Pro and Torque accounting record types."""

_JOB_RECORDS = frozenset("QSDEARCT")
"""Record types whose id is a job id (the others name licenses,
reservations or provisioning)."""


def sniff(path: Path, head: str) -> bool:
    """Does ``head`` start with a PBS accounting record?"""
    first = next((line for line in head.splitlines() if line.strip()), "")
    return _RECORD.match(first.strip()) is not None


def read_pbs(path: str | Path, platform: str | Path | None = None,
             reading: TraceReading | None = None
             ) -> tuple[Trace, SkipSummary]:
    """Read a PBS/Torque accounting log into a trace and its summary (the
    reading rules of :func:`opt_sched.traces.rules.records_to_trace`);
    ``platform`` is not used (the log gives no machine count)."""
    from .rules import records_to_trace

    reading = reading if reading is not None else TraceReading()
    return records_to_trace(pbs_records(path, reading), reading)


def _values(message: str) -> dict[str, str]:
    """``key=value`` pairs; a word without ``=`` continues the last value."""
    values: dict[str, str] = {}
    last = None
    for word in message.split():
        key, sign, value = word.partition("=")
        if sign:
            values[key] = value
            last = key
        elif last is not None:
            values[last] += " " + word
    return values


def _hosts(exec_host: str | None) -> int | None:
    """Distinct hosts of ``exec_host`` (``n1/0+n1/1+n2/0-3`` -> 2)."""
    if not exec_host:
        return None
    return len({part.split("/")[0] for part in exec_host.split("+") if part})


def _spec_count(spec: str) -> int:
    """Nodes (or chunks) of a ``nodes``/``select`` spec: the leading count
    of each ``+`` part, 1 when it starts with a host name or property."""
    total = 0
    for part in spec.split("+"):
        head = part.split(":")[0].strip()
        total += int(head) if head.isdigit() else 1
    return total


class _Record:
    """One record's fields, with errors naming the file, line and key."""

    def __init__(self, label: str, number: int, values: dict[str, str]) -> None:
        self.label, self.number, self.values = label, number, values

    def error(self, key: str, what: str) -> TraceError:
        return TraceError(f"{self.label} line {self.number}: field "
                          f"{key}={self.values[key]!r} is {what}")

    def epoch(self, key: str) -> float | None:
        try:
            return pbs_epoch(self.values.get(key))
        except ValueError:
            raise self.error(key, "not an epoch (seconds)") from None

    def walltime(self, key: str) -> float | None:
        try:
            return pbs_walltime(self.values.get(key))
        except ValueError:
            raise self.error(key, "not a walltime ([[HH:]MM:]SS)") from None

    def integer(self, key: str) -> int | None:
        text = self.values.get(key)
        if text is None:
            return None
        try:
            return int(text)
        except ValueError:
            raise self.error(key, "not an integer") from None

    def requested(self) -> int | None:
        """``Resource_List.nodect``, else ``nodes``, else ``select``."""
        count = self.integer("Resource_List.nodect")
        if count is not None:
            return count
        for key in ("Resource_List.nodes", "Resource_List.select"):
            spec = self.values.get(key)
            if spec:
                return _spec_count(spec)
        return None


class _Job:
    """What the log says about one job id."""

    __slots__ = ("aborted", "deleted", "ended", "last", "queued", "started")

    def __init__(self) -> None:
        self.queued: tuple[float, str | None] | None = None
        self.deleted: int | None = None
        self.aborted: int | None = None
        self.started = False
        self.ended = False
        self.last = 0


def _add_ended(rows: AccountingRows, record: _Record, job_id: str,
               deleted: bool) -> None:
    """One ``E`` record: its SWF row."""
    values = record.values
    submit = record.epoch("qtime")
    if submit is None:
        submit = record.epoch("ctime")
    start, end = record.epoch("start"), record.epoch("end")
    used = record.walltime("resources_used.walltime")
    allocated = _hosts(values.get("exec_host"))
    if start is None:
        run, allocated = 0.0, None
    else:
        run = end - start if end is not None else used
    exit_status = record.integer("Exit_status")
    if deleted:
        status = 5
    elif exit_status is None:
        status = -1
    else:
        status = 1 if exit_status == 0 else 0
    rows.add(record.number, job_id, submit=submit, start=start, run=run,
             allocated=allocated, requested=record.requested(),
             walltime=record.walltime("Resource_List.walltime"), status=status,
             user=values.get("user"), group=values.get("group"),
             executable=values.get("jobname"), queue=values.get("queue"))


def pbs_records(path: str | Path, reading: TraceReading | None = None
                ) -> TraceRecords:
    """The jobs of a PBS/Torque accounting log as SWF rows.

    Raises
    ------
    TraceError
        A line that is not a record, or a field that does not parse:
        ``20240301 line 4: field qtime='abc' is not an epoch (seconds)``.
    OptionError
        ``reading.tz`` is not an IANA time zone.
    """
    reading, text, rows = open_log(path, reading, "pbs")
    label = rows.source
    jobs: dict[str, _Job] = {}
    tz = reading.tz

    @lru_cache(maxsize=1 << 16)
    def record_time(date: str) -> float:
        return pbs_record_time(date, tz)

    other: list[tuple[str, str]] = []            # (job id, record type) per line
    numbers: list[int] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        match = _RECORD.match(raw.strip())
        if match is None:
            raise TraceError(f"{label} line {number}: not a PBS accounting record "
                             f"(expected MM/DD/YYYY HH:MM:SS;TYPE;JOB ID;"
                             f"key=value ...)")
        date, kind, job_id, message = match.groups()
        try:
            when = record_time(date)
        except ValueError:
            raise TraceError(f"{label} line {number}: field date={date!r} is "
                             f"not a time (MM/DD/YYYY HH:MM:SS)") from None
        if kind not in _JOB_RECORDS:
            other.append((job_id, kind))
            numbers.append(number)
            continue
        job = jobs.setdefault(job_id, _Job())
        job.last = number
        if kind == "E":
            record = _Record(label, number, _values(message))
            _add_ended(rows, record, job_id, job.deleted is not None)
            job.ended = True
            continue
        if kind == "Q" and job.queued is None:
            job.queued = (when, _values(message).get("queue"))
        elif kind in "SRT":
            job.started = True
        elif kind == "D" and job.deleted is None:
            job.deleted = number
        elif kind == "A" and job.aborted is None:
            job.aborted = number
        other.append((job_id, kind))
        numbers.append(number)
    _unended(rows, jobs, other, numbers)
    if reading.tz is None:
        rows.notes.append("time zone: UTC (assumed; give --tz): used for the "
                          "record dates only (qtime, start, end are epochs)")
    rows.notes.append("machines are nodes (exec_host hosts; Resource_List."
                      "nodect, nodes or select)")
    return rows.records(reading.tz, "converted from a PBS/Torque accounting log "
                        "(E records); machines are nodes")


def _unended(rows: AccountingRows, jobs: dict[str, _Job],
             other: list[tuple[str, str]], numbers: list[int]) -> None:
    """Jobs without an ``E`` record, and the count of the other records."""
    used: set[int] = set()
    for job_id, job in jobs.items():
        if job.ended:
            continue
        gone = job.deleted if job.deleted is not None else job.aborted
        if gone is not None and not job.started:
            submit, queue = job.queued if job.queued else (None, None)
            rows.add(gone, job_id, submit=submit, start=None, run=0.0,
                     allocated=None, requested=None, walltime=None,
                     status=5 if gone == job.deleted else 0, user=None,
                     group=None, queue=queue)
        else:
            rows.skip("not_finished", job.last)
            gone = job.last
        used.add(gone)
    for (_, kind), number in zip(other, numbers):
        if number not in used:
            rows.not_job(f"records of type {kind} "
                         f"({_RECORD_TYPES.get(kind, 'unknown type')})")
