"""Read an SWF trace (Parallel Workloads Archive) into a :class:`Trace`.

Rules (documented in ``instances/traces.md``):

- processors ``Q_i`` = allocated processors (field 5), or requested
  processors (field 8) when field 5 is ``-1``. One SWF processor is one
  opt_sched machine.
- the machine size is the header's ``MaxProcs``, else ``MaxNodes``.
- the estimate ``e_i`` = requested time (field 9). When it is unknown
  (``-1`` or ``0``) the estimate is the run time. When it is shorter than the
  run time, ``overrun="extend"`` (default) raises it to the run time, so a
  job is killed at its wall time only because of I/O contention;
  ``overrun="keep"`` keeps the request. Both are counted as adjustments.
- a job is skipped, with the first matching reason, when: a used field
  (2, 4, 5, 8, 9) is negative other than ``-1``; the submit time is
  unknown; the run time is unknown or 0; the processors are unknown or 0;
  it is wider than the machine.
- ``user`` = field 12; ``group`` = ``"exe:N"`` from the executable number
  (field 14) when known, else ``"group:N"`` from the group id (field 13).
  Job numbers, users and groups are read as exact integers (two job numbers
  above 2**53 never collide through a float).
- the limits of the data model (:mod:`opt_sched.limits`) apply to the used
  fields: a time (2, 4, 9) above ``MAX_VALUE`` or subnormal, processors (5,
  8) above ``MAX_COUNT``, a ``MaxProcs``/``MaxNodes`` header above
  ``MAX_MACHINES``, and, in a file without one, a job wider than
  ``MAX_MACHINES`` (the machine would be sized to it) are refused with a
  :class:`~opt_sched.errors.TraceError` naming the line and the field.
"""

from __future__ import annotations

import io
import re
import warnings
from pathlib import Path

import numpy as np

from ..errors import OptionError, TraceError
from ..instance import _shown
from ..io import read_text_file
from ..limits import MAX_COUNT, MAX_MACHINES, MAX_VALUE, MIN_NORMAL
from .skips import SkipCounter, SkipSummary
from .swf_format import (
    ALLOCATED,
    EXECUTABLE,
    GROUP,
    HEADER_INTEGERS,
    INTEGER_FIELDS,
    JOB,
    REQ_PROCS,
    REQ_TIME,
    RUN,
    SUBMIT,
    SWF_FIELDS,
    USER,
)
from .trace import Trace

__all__ = ["read_swf", "trace_name"]

_HEADER = re.compile(r"^;\s{0,3}([A-Za-z][A-Za-z0-9_]*)\s*:(?:\s+(.*))?$")
_OVERRUN = ("extend", "keep")
_MACHINE_KEYS = ("MaxProcs", "MaxNodes")
_LIMITED_FIELDS: tuple[tuple[int, float], ...] = (
    (SUBMIT, MAX_VALUE), (RUN, MAX_VALUE), (REQ_TIME, MAX_VALUE),
    (ALLOCATED, MAX_COUNT), (REQ_PROCS, MAX_COUNT))
"""The used fields (0-based column, largest value): the limits of the data
model (:mod:`opt_sched.limits`), applied when the trace is read."""


def trace_name(path: str | Path) -> str:
    """The file name without ``.gz``, ``.swf`` and ``.json``."""
    name = Path(path).name
    for suffix in (".gz", ".swf", ".json"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name


def read_text(path: Path, kind: type[Exception] = TraceError) -> str:
    """The text of ``path``, gunzipped when it starts with the gzip magic.

    Bytes that are not UTF-8 become U+FFFD (a stray byte in a header comment
    is harmless; in a job line it fails the field check, which names the
    line). A missing, unreadable or damaged (e.g. one byte flipped) gzip
    file is one ``kind`` error naming the file
    (:func:`opt_sched.io.read_text_file`).
    """
    return read_text_file(path, kind, gunzip=True, errors="replace")


def _parse_header(label: str, header_lines: list[tuple[int, str]]
                  ) -> tuple[dict[str, str], dict[str, int | None]]:
    """``; Key: value`` lines -> raw strings and the integer keys."""
    header: dict[str, str] = {}
    numbers: dict[str, int | None] = {}
    last: str | None = None
    for number, line in header_lines:
        match = _HEADER.match(line)
        if match:
            key, value = match.group(1), (match.group(2) or "").strip()
            header[key] = f"{header[key]}\n{value}" if key in header else value
            last = key
            if key in HEADER_INTEGERS:
                try:
                    parsed = int(value.split()[0]) if value else None
                except ValueError:
                    raise TraceError(f"{label} line {number}: header {key}={value!r} "
                                     f"is not an integer") from None
                numbers[key] = None if parsed is None or parsed < 0 else parsed
                if key in _MACHINE_KEYS and (numbers[key] or 0) > MAX_MACHINES:
                    raise TraceError(f"{label} line {number}: header {key}="
                                     f"{_shown(parsed)} exceeds the limit "
                                     f"{MAX_MACHINES:,} machines")
        elif last is not None and line[1:].strip():
            header[last] += "\n" + line[1:].strip()
    return header, numbers


def _diagnose(label: str, lines: list[str], job_lines: list[int]) -> None:
    """Raise a :class:`TraceError` for the first malformed job line."""
    for number in job_lines:
        tokens = lines[number - 1].split(";")[0].split()
        if len(tokens) != 18:
            raise TraceError(f"{label} line {number}: {len(tokens)} fields, "
                             f"expected 18")
        for k, token in enumerate(tokens):
            try:
                value = float(token)
            except ValueError:
                value = None
            if value is None or not np.isfinite(value):
                kind = "an integer" if k + 1 in INTEGER_FIELDS else "a number"
                raise TraceError(f"{label} line {number}: field {k + 1} "
                                 f"({SWF_FIELDS[k]})={token!r} is not {kind}")


def _parse_jobs(label: str, text: str, lines: list[str], job_lines: list[int]
                ) -> np.ndarray:
    """The ``(n, 18)`` float array, or a :class:`TraceError` naming the field.

    numpy's C parser reads the whole text; only when it fails (or finds a
    non-finite value) are the lines re-read one by one to name the field.
    """
    if not job_lines:
        return np.empty((0, 18))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = np.loadtxt(io.StringIO(text), comments=";", ndmin=2,
                               dtype=np.float64)
    except ValueError:
        table = None
    if (table is None or table.shape != (len(job_lines), 18)
            or not np.isfinite(table).all()):
        _diagnose(label, lines, job_lines)
        raise TraceError(f"{label}: cannot parse")  # pragma: no cover
    integer_cols = [k - 1 for k in INTEGER_FIELDS]
    block = table[:, integer_cols]
    bad = np.argwhere(block != np.floor(block))
    if len(bad):
        row, col = bad[0]
        field = integer_cols[col]
        number = job_lines[row]
        token = lines[number - 1].split()[field]
        raise TraceError(f"{label} line {number}: field {field + 1} "
                         f"({SWF_FIELDS[field]})={token!r} is not an integer")
    return table


def _classify(table: np.ndarray, processors: np.ndarray, machine: int | None
              ) -> list[tuple[str, np.ndarray]]:
    """Skip masks in priority order (each job gets the first that matches)."""
    used = table[:, [SUBMIT, RUN, ALLOCATED, REQ_PROCS, REQ_TIME]]
    negative = ((used < 0) & (used != -1)).any(axis=1)
    masks = [("negative_value", negative),
             ("submit_unknown", table[:, SUBMIT] == -1),
             ("run_time_unknown", table[:, RUN] == -1),
             ("run_time_zero", table[:, RUN] == 0),
             ("processors_unknown", processors == -1),
             ("processors_zero", processors == 0)]
    if machine is not None:
        masks.append(("wider_than_machine", processors > machine))
    return masks


def _token(lines: list[str], number: int, column: int) -> str:
    """Field ``column`` (0-based) of file line ``number`` (1-based), as written."""
    return lines[number - 1].split(";")[0].split()[column]


def _field_error(label: str, lines: list[str], number: int, column: int,
                 problem: str) -> TraceError:
    """The one-line error naming the file, the line, the field and its text."""
    token = _token(lines, number, column)
    return TraceError(f"{label} line {number}: field {column + 1} "
                      f"({SWF_FIELDS[column]})={_shown(token)} {problem}")


def _limit_text(high: float) -> str:
    """``1e+15`` for a time limit, ``1,000,000,000`` for a count."""
    return f"{high:,}" if isinstance(high, int) else f"{high:g}"


def _check_limits(label: str, lines: list[str], job_lines: list[int],
                  table: np.ndarray) -> None:
    """Refuse a used field beyond the limits of the data model (a submit
    time of ``1e308`` or ``2**63`` processors), naming the first such line.

    A time must be at most ``MAX_VALUE`` and not subnormal; a processor count
    at most ``MAX_COUNT``. Negative values are left to the skip rules.
    """
    first: tuple[int, int, str] | None = None
    for column, high in _LIMITED_FIELDS:
        values = table[:, column]
        tiny = (values != 0) & (np.abs(values) < MIN_NORMAL)
        for mask, problem in ((values > high, "exceeds the limit " + _limit_text(high)),
                              (tiny, f"is below the limit {MIN_NORMAL:g} (the "
                                     f"smallest non-zero value allowed)")):
            rows = np.flatnonzero(mask)
            if len(rows) and (first is None or job_lines[rows[0]] < first[0]):
                first = (job_lines[rows[0]], column, problem)
    if first is not None:
        raise _field_error(label, lines, *first)


def _check_machine(label: str, lines: list[str], table: np.ndarray,
                   processors: np.ndarray, keep: np.ndarray,
                   job_lines: np.ndarray) -> None:
    """Without a ``MaxProcs``/``MaxNodes`` header the machine is sized to the
    widest job: refuse a job wider than ``MAX_MACHINES`` up front (a replay
    holds state per machine; 10**8 machines would run for minutes)."""
    rows = np.flatnonzero(keep & (processors > MAX_MACHINES))
    if len(rows):
        row = rows[0]
        column = ALLOCATED if table[row, ALLOCATED] != -1 else REQ_PROCS
        raise _field_error(label, lines, int(job_lines[row]), column,
                           f"exceeds the limit {MAX_MACHINES:,} machines (the "
                           f"file has no MaxProcs or MaxNodes header, so the "
                           f"machine would be sized to this job)")


def _integer(token: str) -> int:
    """An integer field as written, exactly (``"9007199254740993"`` stays
    odd: a float would round it); ``"1.0"`` or ``"1e3"`` through float."""
    try:
        return int(token)
    except ValueError:
        return int(float(token))


def _exact_column(lines: list[str], numbers: np.ndarray, values: np.ndarray,
                  column: int) -> list[int]:
    """Integer field ``column`` of the job lines ``numbers``, exactly.

    ``values`` (the float table's column) is exact below 2**53; a larger
    value is re-read from the text, so two job numbers above 2**53 never
    collide through a float.
    """
    large = np.abs(values) >= 2.0**53
    out = np.where(large, 0, values).astype(np.int64).tolist()
    for row in np.flatnonzero(large).tolist():
        out[row] = _integer(_token(lines, int(numbers[row]), column))
    return out


def _identifiers(lines: list[str], numbers: np.ndarray, kept: np.ndarray
                 ) -> tuple[list[str], list[str | None], list[str | None]]:
    """Job ids, users and groups of the kept rows ``kept`` (file lines
    ``numbers``), as exact integers (:func:`_exact_column`)."""
    job, user, group, exe = (_exact_column(lines, numbers, kept[:, k], k)
                             for k in (JOB, USER, GROUP, EXECUTABLE))
    ids = [str(x) for x in job]
    users = [None if u == -1 else str(u) for u in user]
    groups = [f"exe:{e}" if e != -1 else (f"group:{g}" if g != -1 else None)
              for e, g in zip(exe, group)]
    return ids, users, groups


def read_swf(path: str | Path, *, overrun: str = "extend"
             ) -> tuple[Trace, SkipSummary]:
    """Read an SWF file (plain or gzipped) into a trace and its skip summary.

    Parameters
    ----------
    path
        The ``.swf`` or ``.swf.gz`` file.
    overrun
        What to do with a requested time shorter than the run time:
        ``"extend"`` (the estimate becomes the run time) or ``"keep"``.

    Returns
    -------
    (Trace, SkipSummary)
        The simulable jobs in submit order, and what was skipped or
        adjusted (``kept + skipped == job lines``).

    Raises
    ------
    TraceError
        A malformed line: the message names the file, the line number and
        the field, e.g. ``KTH-SP2.swf.gz line 1234: field 5 (allocated
        processors)='abc' is not an integer``.
    OptionError
        ``overrun`` is not ``"extend"`` or ``"keep"``.
    """
    if overrun not in _OVERRUN:
        raise OptionError(f"read_swf: overrun={overrun!r} is unknown (choose from "
                          f"{', '.join(_OVERRUN)})")
    path = Path(path)
    label = path.name
    text = read_text(path)
    all_lines = text.splitlines()
    header_lines: list[tuple[int, str]] = []
    job_lines: list[int] = []
    for number, line in enumerate(all_lines, start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped[0] == ";":
            header_lines.append((number, stripped))
        else:
            job_lines.append(number)
    header, numbers = _parse_header(label, header_lines)
    table = _parse_jobs(label, text, all_lines, job_lines)
    _check_limits(label, all_lines, job_lines, table)
    lines = np.asarray(job_lines, dtype=np.int64)
    machine = numbers.get("MaxProcs") or numbers.get("MaxNodes")

    counter = SkipCounter(label, unit="line")
    allocated = table[:, ALLOCATED]
    processors = np.where(allocated == -1, table[:, REQ_PROCS], allocated)
    skipped = np.zeros(len(table), dtype=bool)
    for code, mask in _classify(table, processors, machine):
        new = mask & ~skipped
        counter.skip_many(code, lines[new])
        skipped |= new
    keep = ~skipped
    if machine is None:
        _check_machine(label, all_lines, table, processors, keep, lines)

    run = table[keep, RUN]
    requested = table[keep, REQ_TIME]
    kept_lines = lines[keep]
    walltime = requested.copy()
    unknown = requested <= 0
    short = (requested > 0) & (requested < run)
    walltime[unknown] = run[unknown]
    counter.adjust_many("walltime_unknown", kept_lines[unknown])
    if overrun == "extend":
        walltime[short] = run[short]
        counter.adjust_many("walltime_short", kept_lines[short])
    else:
        counter.adjust_many("walltime_short_kept", kept_lines[short])

    kept = table[keep]
    order = np.argsort(kept[:, SUBMIT], kind="stable")
    if (order != np.arange(len(order))).any():
        counter.notes.append("jobs are not in submit order in the file: sorted by "
                             "submit time (ties keep file order)")
    kept = kept[order]
    ids, users, groups = _identifiers(all_lines, kept_lines[order], kept)
    _check_unique(label, ids, kept_lines[order])
    for key in ("MaxJobs", "MaxRecords"):
        count = numbers.get(key)
        if count is not None and count != len(table):
            counter.notes.append(f"header {key}={count} but the file has "
                                 f"{len(table)} job lines")
    trace = Trace(trace_name(path), "swf", machine, ids, kept[:, SUBMIT],
                  kept[:, RUN], walltime[order], processors[keep][order].astype(
                      np.int64), users, groups, (None,) * len(ids),
                  kept_lines[order], header, kept)
    return trace, counter.summary(len(table), len(ids), machine)


def _check_unique(label: str, ids: list[str], lines: np.ndarray) -> None:
    if len(set(ids)) == len(ids):
        return
    seen: dict[str, int] = {}
    for job_id, number in zip(ids, lines):
        if job_id in seen:
            first, second = sorted((seen[job_id], int(number)))
            raise TraceError(f"{label} line {second}: field 1 (job number)="
                             f"{job_id!r} repeats line {first}")
        seen[job_id] = int(number)
