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
"""

from __future__ import annotations

import gzip
import io
import re
import warnings
from pathlib import Path

import numpy as np

from ..errors import OptionError, TraceError
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


def trace_name(path: str | Path) -> str:
    """The file name without ``.gz``, ``.swf`` and ``.json``."""
    name = Path(path).name
    for suffix in (".gz", ".swf", ".json"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name


def read_text(path: Path, kind: type[Exception] = TraceError) -> str:
    """The text of ``path``, gunzipped when it starts with the gzip magic."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise kind(f"{path}: no such file") from None
    except (IsADirectoryError, PermissionError) as err:
        raise kind(f"{path}: cannot read ({err.__class__.__name__})") from None
    if raw[:2] == b"\x1f\x8b":
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as err:
            raise kind(f"{path}: not a valid gzip file ({err})") from None
    return raw.decode("utf-8", errors="replace")


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
    ids = [str(int(x)) for x in kept[:, JOB]]
    _check_unique(label, ids, kept_lines[order])
    users = [None if u == -1 else str(int(u)) for u in kept[:, USER]]
    groups = [f"exe:{int(e)}" if e != -1 else (f"group:{int(g)}" if g != -1 else None)
              for e, g in zip(kept[:, EXECUTABLE], kept[:, GROUP])]
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
