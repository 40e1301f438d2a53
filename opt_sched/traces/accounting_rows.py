"""An accounting log's job records as SWF rows (used by the ``sacct`` and PBS
readers).

Each job record becomes one row of the 18 SWF fields
(:mod:`opt_sched.traces.swf_format`), ``-1`` = unknown:

- field 1 the record's position (1, 2, ...; rows in file order): the log's
  own job id is kept in :attr:`TraceRecords.ids`;
- field 2 the submit time in seconds after ``UnixStartTime``, the first
  known submit of the log (an integer epoch, written in the header);
- field 3 the wait ``start - submit`` (``-1`` for a job that never started);
- fields 4, 5, 8, 9, 11 as the reader gives them (run time, allocated and
  requested machines, requested time, status);
- fields 12, 13, 14, 15: users, groups, job names and queues (partitions)
  numbered 1, 2, ... in order of first appearance; the names are kept in
  :attr:`TraceRecords.users` / :attr:`TraceRecords.groups`;
- fields 6, 7, 10, 16, 17, 18: ``-1`` (not read).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .reading import TraceReading, TraceRecords
from .swf_format import (
    ALLOCATED,
    EXECUTABLE,
    GROUP,
    JOB,
    QUEUE,
    REQ_PROCS,
    REQ_TIME,
    RUN,
    STATUS,
    SUBMIT,
    USER,
    WAIT,
)

__all__ = ["AccountingRows", "log_name", "open_log"]

_SUFFIXES = (".gz", ".sacct", ".pbs", ".psv", ".txt", ".log", ".csv")


def log_name(path: str | Path) -> str:
    """The workload name: the file name without ``.gz`` and one of
    ``.sacct``, ``.pbs``, ``.psv``, ``.txt``, ``.log``, ``.csv``."""
    name = Path(path).name
    if name.lower().endswith(".gz"):
        name = name[:-3]
    for suffix in _SUFFIXES[1:]:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def _known(value: float | None) -> float:
    return -1.0 if value is None else float(value)


@dataclass
class AccountingRows:
    """Mutable builder of the :class:`TraceRecords` of one accounting log."""

    source: str
    name: str
    format: str
    rows: list[list[float]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    users: list[str | None] = field(default_factory=list)
    groups: list[str | None] = field(default_factory=list)
    not_jobs: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, list[int]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    _numbers: dict[str, dict[str, int]] = field(default_factory=dict)

    def number(self, kind: str, name: str | None) -> int:
        """``name``'s number among the ``kind`` names, 1, 2, ... in order of
        first appearance (``-1`` for ``None``)."""
        if name is None:
            return -1
        table = self._numbers.setdefault(kind, {})
        return table.setdefault(name, len(table) + 1)

    def not_job(self, reason: str) -> None:
        """Count one record that is not a job (a step, a queue event)."""
        self.not_jobs[reason] = self.not_jobs.get(reason, 0) + 1

    def skip(self, code: str, line: int) -> None:
        """Count one job the log cannot replay (``not_finished``, ...)."""
        self.skipped.setdefault(code, []).append(line)

    def add(self, line: int, job_id: str, *, submit: float | None,
            start: float | None, run: float | None, allocated: int | None,
            requested: int | None, walltime: float | None, status: int,
            user: str | None, group: str | None, executable: str | None = None,
            queue: str | None = None) -> None:
        """One job record; ``submit`` and ``start`` are Unix epochs."""
        row = [-1.0] * 18
        row[SUBMIT] = _known(submit)
        if submit is not None and start is not None:
            row[WAIT] = start - submit
        row[RUN] = _known(run)
        row[ALLOCATED] = _known(allocated)
        row[REQ_PROCS] = _known(requested)
        row[REQ_TIME] = _known(walltime)
        row[STATUS] = float(status)
        row[USER] = self.number("user", user)
        row[GROUP] = self.number("group", group)
        row[EXECUTABLE] = self.number("executable", executable)
        row[QUEUE] = self.number("queue", queue)
        self.rows.append(row)
        self.lines.append(line)
        self.ids.append(job_id)
        self.users.append(user)
        self.groups.append(group)

    def records(self, tz: str, note: str) -> TraceRecords:
        """Freeze: submit times become seconds after the first known submit
        (``UnixStartTime``); ``note`` names the source format."""
        order = sorted(range(len(self.rows)), key=self.lines.__getitem__)
        fields = np.array([self.rows[k] for k in order],
                          dtype=np.float64).reshape(-1, 18)
        fields[:, JOB] = np.arange(1, len(order) + 1)
        submits = fields[:, SUBMIT]
        known = submits != -1
        origin = math.floor(float(submits[known].min())) if known.any() else 0
        submits[known] -= origin
        header = {"UnixStartTime": str(origin), "TimeZoneString": tz or "UTC",
                  "Note": note}
        def pick(values: list) -> tuple:
            return tuple(values[k] for k in order)

        return TraceRecords(
            self.source, self.name, self.format, fields,
            np.array(pick(self.lines), dtype=np.int64), header, None,
            pick(self.ids), pick(self.users), pick(self.groups),
            dict(self.not_jobs),
            {code: tuple(lines) for code, lines in self.skipped.items()},
            tuple(self.notes))


def open_log(path: str | Path, reading: TraceReading | None, fmt: str
             ) -> tuple[TraceReading, str, AccountingRows]:
    """What both accounting readers start from: the reading (its defaults for
    ``None``; its time zone checked first), the log's text (gunzipped when
    needed; a damaged file is one :class:`~opt_sched.errors.TraceError`) and
    an empty :class:`AccountingRows` of format ``fmt``."""
    from ..errors import TraceError
    from ..json_files import read_text_file
    from .accounting_time import time_zone

    reading = reading if reading is not None else TraceReading()
    path = Path(path)
    time_zone(reading.tz)
    text = read_text_file(path, TraceError, gunzip=True, errors="replace")
    return reading, text, AccountingRows(path.name, log_name(path), fmt)
