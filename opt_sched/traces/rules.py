"""The reading rules: :class:`TraceRecords` -> a :class:`Trace`, every record counted.

One set of rules for every log format (SWF, ``sacct``, PBS; the format's
reader only turns the file into SWF rows). Field numbers are the SWF's
(1-based, :mod:`opt_sched.traces.swf_format`). Documented in
``instances/traces.md``.

Job size ``Q_i`` (``--job-size``)
    ``allocated``: field 5, else field 8 when field 5 is ``-1``;
    ``requested``: field 8, else field 5. One SWF processor is one opt_sched
    machine. The records whose two fields are both known and differ are
    listed (:attr:`SkipSummary.size_changes`): the two readings differ on
    exactly these jobs.

Skips (each record gets the first that matches, in this order)
    the format's own (``records.skipped``, e.g. ``not_finished``); a used
    field (2, 4, 5, 8, 9) negative other than ``-1``; submit time unknown;
    outside ``--time-range``; cancelled before it started
    (``--cancelled drop-unstarted``: status 5, run time ``<= 0``); run time
    unknown; run time 0 (``--zero-run-time drop``); processors unknown or
    0; wider than the machine; in a flurry (``--flurries drop``, among the
    jobs left by the rules before it, :func:`~opt_sched.traces.filters.find_flurries`).

Kept jobs
    failed (status 0) and cancelled (status 5) jobs that ran are replayed as
    they ran: their logged run time. A run time of 0 kept
    (``--zero-run-time keep``) becomes 1 s, the smallest SWF time unit (the
    SWF definition: 0 means "ran for less than 0.5 s"): the data model needs
    a positive wall time (SPEC §9), and a zero-length job holds no machine.

Estimates ``e_i``
    field 9; unknown (``-1`` or ``0``): the run time; shorter than the run
    time: raised to it (``overrun="extend"``) or kept (``"keep"``). Both
    counted as adjustments.

Order, names, limits
    rows sorted by submit time (ties keep file order); ids, users and groups
    from ``records.ids/users/groups`` when given, else fields 1, 12 and 14
    (``exe:N``) or 13 (``group:N``) as exact integers; ids must be unique.
    The limits of the data model (:mod:`opt_sched.limits`) apply to the used
    fields, and without a machine size a job wider than ``MAX_MACHINES`` is
    refused (:class:`~opt_sched.errors.TraceError` naming the line).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from ..errors import TraceError
from ..instance import _shown
from ..limits import MAX_COUNT, MAX_MACHINES, MAX_VALUE, MIN_NORMAL
from .filters import (
    CANCELLED_STATUS,
    FAILED_STATUS,
    Flurry,
    cancelled_unstarted,
    find_flurries,
    outside_time_range,
    user_keys,
)
from .reading import TraceReading, TraceRecords
from .skips import ReadingRule, SizeChange, SkipCounter, SkipSummary
from .swf_format import (
    ALLOCATED,
    EXECUTABLE,
    GROUP,
    JOB,
    REQ_PROCS,
    REQ_TIME,
    RUN,
    STATUS,
    SUBMIT,
    SWF_FIELDS,
    USER,
)
from .trace import Trace

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["ZERO_RUN_TIME_KEPT", "job_sizes", "records_to_trace"]

Token = Callable[[int, int], str]
"""``token(line, column)``: field ``column`` (0-based) of file line ``line``
as written, for error messages and exact integers (SWF)."""

ZERO_RUN_TIME_KEPT = 1.0
"""The run time (s) of a job logged with run time 0 under
``--zero-run-time keep``."""

_LIMITED_FIELDS: tuple[tuple[int, float], ...] = (
    (SUBMIT, MAX_VALUE), (RUN, MAX_VALUE), (REQ_TIME, MAX_VALUE),
    (ALLOCATED, MAX_COUNT), (REQ_PROCS, MAX_COUNT))
"""The used fields (0-based column, largest value)."""

_SIZE_TEXT = {"allocated": "allocated processors (SWF field 5, else field 8)",
              "requested": "requested processors (SWF field 8, else field 5)"}


def job_sizes(fields: np.ndarray, job_size: str) -> np.ndarray:
    """``Q_i`` of every row: field 5 else 8 (``allocated``), or 8 else 5."""
    first, second = ((ALLOCATED, REQ_PROCS) if job_size == "allocated"
                     else (REQ_PROCS, ALLOCATED))
    primary = fields[:, first]
    return np.where(primary == -1, fields[:, second], primary)


# -- messages ---------------------------------------------------------------------
def _field_text(fields: np.ndarray, row: int, column: int, line: int,
                token: Token | None) -> str:
    """``field 5 (allocated processors)='abc'`` (SWF) or ``allocated
    processors=12`` (other formats: the value, not a field of their file)."""
    if token is not None:
        text = _shown(token(line, column))
        return f"field {column + 1} ({SWF_FIELDS[column]})={text}"
    value = float(fields[row, column])
    shown = int(value) if value.is_integer() and abs(value) < 2.0**63 else value
    return f"{SWF_FIELDS[column]}={_shown(shown)}"


def _limit_text(high: float) -> str:
    """``1e+15`` for a time limit, ``1,000,000,000`` for a count."""
    return f"{high:,}" if isinstance(high, int) else f"{high:g}"


def _check_limits(label: str, fields: np.ndarray, lines: np.ndarray,
                  token: Token | None) -> None:
    """Refuse a used field beyond the limits of the data model (a submit
    time of ``1e308`` or ``2**63`` processors), naming the first such line.

    A time must be at most ``MAX_VALUE`` and not subnormal; a processor count
    at most ``MAX_COUNT``. Negative values are left to the skip rules.
    """
    first: tuple[int, int, int, str] | None = None
    for column, high in _LIMITED_FIELDS:
        values = fields[:, column]
        tiny = (values != 0) & (np.abs(values) < MIN_NORMAL)
        for mask, problem in ((values > high, "exceeds the limit " + _limit_text(high)),
                              (tiny, f"is below the limit {MIN_NORMAL:g} (the "
                                     f"smallest non-zero value allowed)")):
            rows = np.flatnonzero(mask)
            if len(rows):
                row = int(rows[np.argmin(lines[rows])])
                if first is None or lines[row] < first[0]:
                    first = (int(lines[row]), row, column, problem)
    if first is not None:
        line, row, column, problem = first
        raise TraceError(f"{label} line {line}: "
                         f"{_field_text(fields, row, column, line, token)} {problem}")


def _check_machine(label: str, fields: np.ndarray, processors: np.ndarray,
                   keep: np.ndarray, lines: np.ndarray, job_size: str,
                   token: Token | None) -> None:
    """Without a machine size the machine is sized to the widest job: refuse
    a job wider than ``MAX_MACHINES`` up front (a replay holds state per
    machine; 10**8 machines would run for minutes)."""
    rows = np.flatnonzero(keep & (processors > MAX_MACHINES))
    if len(rows):
        row = int(rows[0])
        first, second = ((ALLOCATED, REQ_PROCS) if job_size == "allocated"
                         else (REQ_PROCS, ALLOCATED))
        column = first if fields[row, first] != -1 else second
        line = int(lines[row])
        raise TraceError(f"{label} line {line}: "
                         f"{_field_text(fields, row, column, line, token)} exceeds "
                         f"the limit {MAX_MACHINES:,} machines (the file has no "
                         f"machine size, so the machine would be sized to this job)")


# -- exact identifiers ------------------------------------------------------------
def _integer(text: str) -> int:
    """An integer field as written, exactly (``"9007199254740993"`` stays
    odd: a float would round it); ``"1.0"`` or ``"1e3"`` through float."""
    try:
        return int(text)
    except ValueError:
        return int(float(text))


def _exact_column(values: np.ndarray, lines: np.ndarray, column: int,
                  token: Token | None) -> list[int]:
    """Integer field ``column`` of the rows ``values`` (file lines
    ``lines``), exactly: a value of 2**53 or more is re-read from the text
    when ``token`` is given, so two job numbers above 2**53 never collide
    through a float."""
    large = np.abs(values) >= 2.0**53
    if not large.any():
        return values.astype(np.int64).tolist()
    out = np.where(large, 0, values).astype(np.int64).tolist()
    for row in np.flatnonzero(large).tolist():
        out[row] = (_integer(token(int(lines[row]), column)) if token is not None
                    else int(values[row]))
    return out


def _users(fields: np.ndarray, lines: np.ndarray, token: Token | None
           ) -> list[str | None]:
    return [None if u == -1 else str(u)
            for u in _exact_column(fields[:, USER], lines, USER, token)]


def _identifiers(fields: np.ndarray, lines: np.ndarray, token: Token | None
                 ) -> tuple[list[str], list[str | None], list[str | None]]:
    """Job ids, users and groups from SWF fields 1, 12, 14 and 13."""
    job, exe, group = (_exact_column(fields[:, k], lines, k, token)
                       for k in (JOB, EXECUTABLE, GROUP))
    groups = [f"exe:{e}" if e != -1 else (f"group:{g}" if g != -1 else None)
              for e, g in zip(exe, group)]
    return [str(x) for x in job], _users(fields, lines, token), groups


def _check_unique(label: str, ids: Sequence[str], lines: np.ndarray, swf: bool
                  ) -> None:
    if len(set(ids)) == len(ids):
        return
    seen: dict[str, int] = {}
    what = "field 1 (job number)" if swf else "job id"
    for job_id, number in zip(ids, lines):
        if job_id in seen:
            first, second = sorted((seen[job_id], int(number)))
            raise TraceError(f"{label} line {second}: {what}={job_id!r} repeats "
                             f"line {first}")
        seen[job_id] = int(number)


def _user_keys(records: TraceRecords, fields: np.ndarray, lines: np.ndarray,
               token: Token | None
               ) -> tuple[np.ndarray, Callable[[int], str] | None]:
    """Numeric user keys for the flurry detector, and the name of a row's user."""
    if records.users is not None:
        names = records.users
        return user_keys(names), lambda row: str(names[row])
    column = fields[:, USER]
    if (np.abs(column) < 2.0**53).all():
        return column, None              # exact: the user numbers themselves
    names = _users(fields, lines, token)
    return user_keys(names), lambda row: str(names[row])


# -- the rules --------------------------------------------------------------------
def _lines_text(lines: Sequence[int], limit: int = 10) -> str:
    shown = ", ".join(str(x) for x in lines[:limit])
    return f"lines {shown}" + (", ..." if len(lines) > limit else "")


def _size_changes(records: TraceRecords, token: Token | None) -> list[SizeChange]:
    fields, lines = records.fields, records.lines
    a, r = fields[:, ALLOCATED], fields[:, REQ_PROCS]
    rows = np.flatnonzero((a != -1) & (r != -1) & (a != r))
    if not len(rows):
        return []
    if records.ids is not None:
        ids = [records.ids[k] for k in rows.tolist()]
    else:
        ids = [str(x) for x in _exact_column(fields[rows, JOB], lines[rows], JOB,
                                             token)]
    return [SizeChange(int(lines[k]), job_id, int(a[k]), int(r[k]))
            for k, job_id in zip(rows.tolist(), ids)]


def _own_skips(records: TraceRecords, counter: SkipCounter) -> tuple[np.ndarray, int]:
    """Count the format's own skipped records; the rows of ``fields`` among
    them (skipped already) and the number of records outside ``fields``."""
    taken = np.zeros(len(records.fields), dtype=bool)
    outside = 0
    for code, where in records.skipped.items():
        where_array = np.asarray(where, dtype=np.int64)
        inside = np.isin(records.lines, where_array)
        taken |= inside
        outside += len(where_array) - int(inside.sum())
        counter.skip_many(code, where_array)
    return taken, outside


def records_to_trace(records: TraceRecords, reading: TraceReading | None = None,
                     *, token: Token | None = None) -> tuple[Trace, SkipSummary]:
    """Apply the reading rules (module docstring) to ``records``.

    Parameters
    ----------
    records
        The log as SWF rows (:class:`~opt_sched.traces.reading.TraceRecords`).
    reading
        The conventions and filters
        (:class:`~opt_sched.traces.reading.TraceReading`; default: its defaults).
    token
        SWF only: the text of a field as written, for messages and exact
        integers above 2**53.

    Returns
    -------
    (Trace, SkipSummary)
        The kept jobs in submit order; the summary counts every record
        (``kept + skipped == records``, the format's own skips included),
        and states each rule of the reading with its count.
    """
    if reading is None:
        reading = TraceReading()
    label = records.source
    fields = np.asarray(records.fields, dtype=np.float64).reshape(-1, 18)
    lines = np.asarray(records.lines, dtype=np.int64)
    machine = records.machine_size
    counter = SkipCounter(label, unit=records.unit)
    skipped, outside = _own_skips(records, counter)
    _check_limits(label, fields, lines, token)
    processors = job_sizes(fields, reading.job_size)
    submit, run, status = fields[:, SUBMIT], fields[:, RUN], fields[:, STATUS]

    used = fields[:, [SUBMIT, RUN, ALLOCATED, REQ_PROCS, REQ_TIME]]
    masks: list[tuple[str, np.ndarray]] = [
        ("negative_value", ((used < 0) & (used != -1)).any(axis=1)),
        ("submit_unknown", submit == -1),
        ("outside_time_range", outside_time_range(submit, reading.time_range))]
    if reading.cancelled == "drop-unstarted":
        masks.append(("cancelled_unstarted", cancelled_unstarted(status, run)))
    masks.append(("run_time_unknown", run == -1))
    if reading.zero_run_time == "drop":
        masks.append(("run_time_zero", run == 0))
    masks += [("processors_unknown", processors == -1),
              ("processors_zero", processors == 0)]
    if machine is not None:
        masks.append(("wider_than_machine", processors > machine))
    counts: dict[str, int] = {}
    for code, mask in masks:
        new = mask & ~skipped
        counts[code] = int(new.sum())
        counter.skip_many(code, lines[new])
        skipped |= new

    flurries: list[Flurry] = []
    if len(fields) - int(skipped.sum()) >= reading.flurry_jobs:
        keys, name = _user_keys(records, fields, lines, token)
        flurries = find_flurries(submit, keys, processors, lines, ~skipped,
                                 min_jobs=reading.flurry_jobs, gap=reading.flurry_gap,
                                 name=name)
    if reading.flurries == "drop" and flurries:
        in_flurry = np.isin(lines, np.fromiter(
            (x for f in flurries for x in f.lines), dtype=np.int64)) & ~skipped
        counter.skip_many("flurry", lines[in_flurry])
        skipped |= in_flurry
    keep = ~skipped
    if machine is None:
        _check_machine(label, fields, processors, keep, lines, reading.job_size, token)

    run_kept = run[keep].copy()
    kept_lines = lines[keep]
    zero = run_kept == 0
    if zero.any():
        run_kept[zero] = ZERO_RUN_TIME_KEPT
        counter.adjust_many("run_time_zero_kept", kept_lines[zero])
    requested = fields[keep, REQ_TIME]
    walltime = requested.copy()
    unknown = requested <= 0
    short = (requested > 0) & (requested < run_kept)
    walltime[unknown] = run_kept[unknown]
    counter.adjust_many("walltime_unknown", kept_lines[unknown])
    if reading.overrun == "extend":
        walltime[short] = run_kept[short]
        counter.adjust_many("walltime_short", kept_lines[short])
    else:
        counter.adjust_many("walltime_short_kept", kept_lines[short])

    kept = fields[keep]
    order = np.argsort(kept[:, SUBMIT], kind="stable")
    if (order != np.arange(len(order))).any():
        counter.notes.append("jobs are not in submit order in the file: sorted by "
                             "submit time (ties keep file order)")
    kept, kept_lines = kept[order], kept_lines[order]
    rows = np.flatnonzero(keep)[order]
    if records.ids is not None:
        ids = [records.ids[k] for k in rows.tolist()]
        users = ([records.users[k] for k in rows.tolist()] if records.users is not None
                 else _users(kept, kept_lines, token))
        groups = ([records.groups[k] for k in rows.tolist()]
                  if records.groups is not None
                  else _identifiers(kept, kept_lines, token)[2])
    else:
        ids, users, groups = _identifiers(kept, kept_lines, token)
        if records.users is not None:
            users = [records.users[k] for k in rows.tolist()]
        if records.groups is not None:
            groups = [records.groups[k] for k in rows.tolist()]
    _check_unique(label, ids, kept_lines, token is not None)
    counter.notes.extend(records.notes)
    counter.notes.extend(f"not jobs, not counted: {count} {what}"
                         for what, count in records.not_jobs.items())
    trace = Trace(records.name, records.format, machine, ids, kept[:, SUBMIT],
                  run_kept[order], walltime[order],
                  processors[keep][order].astype(np.int64), users, groups,
                  ((None,) * len(ids) if records.profiles is None
                   else [records.profiles[k] for k in rows.tolist()]),
                  kept_lines, records.header, kept)
    size_changes = _size_changes(records, token)
    rules = _rules(reading, counter, counts, status, keep, size_changes, flurries)
    return trace, counter.summary(len(fields) + outside, len(ids), machine,
                                  rules=rules, size_changes=size_changes,
                                  flurries=flurries)


def _rules(reading: TraceReading, counter: SkipCounter, counts: dict[str, int],
           status: np.ndarray, keep: np.ndarray, size_changes: Sequence[SizeChange],
           flurries: Sequence[Flurry]) -> list[ReadingRule]:
    """One :class:`ReadingRule` per convention and filter, with its count."""
    other = "requested" if reading.job_size == "allocated" else "allocated"
    changes = (f"{len(size_changes)} jobs have fields 5 and 8 different: their size "
               f"changes with --job-size {other}"
               + (f" ({_lines_text([c.line for c in size_changes])}; --json lists "
                  f"all)" if size_changes else ""))
    out = [ReadingRule("reading", "job size",
                       f"{_SIZE_TEXT[reading.job_size]}; {changes}",
                       len(size_changes))]
    failed = int((status == FAILED_STATUS).sum())
    kept_failed = int((status[keep] == FAILED_STATUS).sum())
    out.append(ReadingRule("reading", "failed jobs",
                           f"status 0 (failed): {failed} jobs, {kept_failed} kept "
                           f"and replayed as they ran (their logged run time)",
                           failed))
    cancelled = int((status == CANCELLED_STATUS).sum())
    kept_cancelled = int((status[keep] == CANCELLED_STATUS).sum())
    if reading.cancelled == "keep":
        text = (f"keep: status 5 (cancelled): {cancelled} jobs, {kept_cancelled} "
                f"kept and replayed as they ran; those with no run time fall to "
                f"the run time rules")
        count = cancelled
    else:
        count = counts.get("cancelled_unstarted", 0)
        text = (f"drop-unstarted: {count} jobs cancelled before they started "
                f"(status 5, run time <= 0) skipped; {kept_cancelled} cancelled "
                f"jobs kept and replayed as they ran")
    out.append(ReadingRule("filter", "cancelled", text, count))
    if reading.zero_run_time == "drop":
        count = counts.get("run_time_zero", 0)
        text = f"drop: {count} jobs with run time 0 skipped"
    else:
        count = counter.adjusted.get("run_time_zero_kept", 0)
        text = (f"keep: {count} jobs with run time 0 kept with run time "
                f"{ZERO_RUN_TIME_KEPT:g} s (the smallest SWF time unit)")
    out.append(ReadingRule("filter", "zero run time", text, count))
    count = counts.get("outside_time_range", 0)
    if reading.time_range is None:
        text = "off: every submit time"
    else:
        start, end = reading.time_range
        text = (f"[{start:g}, {end:g}) of the submit times (the file's clock): "
                f"{count} jobs outside skipped")
    out.append(ReadingRule("filter", "time range", text, count))
    jobs = sum(f.jobs for f in flurries)
    found = (f"{len(flurries)} found ({jobs} jobs; a flurry: at least "
             f"{reading.flurry_jobs} jobs of one user and one size, submitted at "
             f"most {reading.flurry_gap:g} s apart)")
    out.append(ReadingRule("filter", "flurries",
                           f"{reading.flurries}: {found}"
                           + (", dropped" if reading.flurries == "drop" and flurries
                              else ""),
                           counter.skipped.get("flurry", 0)
                           if reading.flurries == "drop" else jobs))
    unknown = counter.adjusted.get("walltime_unknown", 0)
    short = counter.adjusted.get("walltime_short", 0) + counter.adjusted.get(
        "walltime_short_kept", 0)
    action = ("raised to the run time" if reading.overrun == "extend"
              else "kept (the job overruns it)")
    out.append(ReadingRule("reading", "estimates",
                           f"the requested time (field 9); unknown (-1 or 0): the run "
                           f"time ({unknown} jobs); shorter than the run time: "
                           f"{action} ({short} jobs)", unknown + short))
    return out
