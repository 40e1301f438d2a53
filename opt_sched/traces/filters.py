"""Trace hygiene: the filters a trace-driven study applies, as masks.

Each filter is a documented rule on the SWF fields of the records
(:class:`~opt_sched.traces.reading.TraceRecords`); the reading rules
(:mod:`opt_sched.traces.rules`) apply them in a fixed order and count every
job they skip under one reason (``instances/traces.md``).

- **time range** ``[start, end)``: a job is kept when its submit time
  ``r_i`` (field 2, in the file's own clock) satisfies ``start <= r_i < end``.
- **cancelled before start**: SWF status (field 11) ``5`` and run time
  (field 4) ``<= 0``. The SWF definition gives status ``1`` completed, ``0``
  failed, ``5`` cancelled, and a run time of ``0`` means "ran for less than
  0.5 s" once rounded, ``-1`` unknown: a cancelled job with no positive
  run time never held its processors in the log.
- **zero run time**: field 4 is ``0``.
- **flurries** (:func:`find_flurries`): "a burst of very high activity by a
  single user" (the Parallel Workloads Archive's cleaning notes; Tsafrir and
  Feitelson, *Instability in parallel job scheduling simulation: the role
  of workload flurries*, IPDPS 2006). The archive removes each flurry it
  found by hand (``user=374 and job>14968 and job<28553``); the detector
  here is the parameterised, reproducible version of the same idea.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

__all__ = ["CANCELLED_STATUS", "FAILED_STATUS", "Flurry", "cancelled_unstarted",
           "find_flurries", "outside_time_range", "user_keys"]

CANCELLED_STATUS = 5
"""SWF field 11: cancelled."""

FAILED_STATUS = 0
"""SWF field 11: failed."""

class Flurry(NamedTuple):
    """One user's burst of similar submissions.

    Attributes
    ----------
    user
        The user (as the trace names them).
    size
        The processors of every job of the burst (its "similar jobs").
    jobs
        How many jobs.
    first_line, last_line
        The file lines (or job indices) of its first and last job.
    start, end
        The first and the last submit time (the file's clock).
    lines
        Every job's line.
    """

    user: str
    size: int
    jobs: int
    first_line: int
    last_line: int
    start: float
    end: float
    lines: tuple[int, ...]

    def describe(self) -> str:
        """``user 374: 11740 jobs of 1 processor in 86400 s (lines 12-40000)``."""
        return (f"user {self.user}: {self.jobs} jobs of {self.size} processor"
                f"{'s' if self.size != 1 else ''} in {self.end - self.start:g} s "
                f"(lines {self.first_line}-{self.last_line})")

    def to_dict(self) -> dict[str, object]:
        return {"user": self.user, "size": self.size, "jobs": self.jobs,
                "first_line": self.first_line, "last_line": self.last_line,
                "start": self.start, "end": self.end}


def outside_time_range(submit: np.ndarray, time_range: tuple[float, float] | None
                       ) -> np.ndarray:
    """Jobs whose submit time is not in ``[start, end)`` (none without a range)."""
    if time_range is None:
        return np.zeros(len(submit), dtype=bool)
    start, end = time_range
    return ~((submit >= start) & (submit < end))


def cancelled_unstarted(status: np.ndarray, run: np.ndarray) -> np.ndarray:
    """SWF status 5 with a run time ``<= 0`` (0, or -1 unknown)."""
    return (status == CANCELLED_STATUS) & (run <= 0)


def user_keys(users: Sequence[str | None]) -> np.ndarray:
    """Integer keys of user names (``-1`` for ``None``), for :func:`find_flurries`."""
    codes: dict[str, int] = {}
    return np.fromiter((-1 if user is None else codes.setdefault(user, len(codes))
                        for user in users), dtype=np.int64, count=len(users))


def find_flurries(submit: np.ndarray, users: np.ndarray, sizes: np.ndarray,
                  lines: np.ndarray, candidates: np.ndarray, *, min_jobs: int,
                  gap: float, name: Callable[[int], str] | None = None
                  ) -> list[Flurry]:
    """The flurries among the rows ``candidates`` (a boolean mask).

    Rule: take one user's jobs of one size (processors) in submit order; cut
    them wherever two consecutive submissions are more than ``gap`` seconds
    apart. Every piece of at least ``min_jobs`` jobs is a flurry. A job
    whose user is unknown belongs to no flurry.

    With the defaults of :class:`~opt_sched.traces.reading.TraceReading`
    (``flurry_jobs=100``, ``flurry_gap=60``) a flurry is at least 100 jobs of one
    user, one size, submitted at least one a minute: a script's loop, not a
    person at a terminal.

    Parameters
    ----------
    users
        One numeric key per row (SWF field 12, or :func:`user_keys`); ``-1``
        = unknown.
    name
        ``name(row)``: the user's name for the report (default: the key).

    Returns
    -------
    list[Flurry]
        In the order of their first line.
    """
    rows = np.flatnonzero(candidates & (users != -1))
    if len(rows) < min_jobs:
        return []
    order = np.lexsort((submit[rows], sizes[rows], users[rows]))
    rows = rows[order]
    user_code = users[rows]
    size, time = sizes[rows], submit[rows]
    cut = np.ones(len(rows), dtype=bool)
    cut[1:] = ((user_code[1:] != user_code[:-1]) | (size[1:] != size[:-1])
               | (time[1:] - time[:-1] > gap))
    starts = np.flatnonzero(cut)
    ends = np.append(starts[1:], len(rows))
    found: list[Flurry] = []
    for first, stop in zip(starts.tolist(), ends.tolist()):
        if stop - first < min_jobs:
            continue
        members = rows[first:stop]
        member_lines = tuple(sorted(int(x) for x in lines[members]))
        first_row = int(members[0])
        who = name(first_row) if name is not None else str(int(users[first_row]))
        found.append(Flurry(who, int(size[first]),
                            stop - first, member_lines[0], member_lines[-1],
                            float(time[first]), float(time[stop - 1]),
                            member_lines))
    found.sort(key=lambda flurry: flurry.first_line)
    return found
