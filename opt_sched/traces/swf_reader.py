"""Read an SWF trace (Parallel Workloads Archive): the text into records.

This module parses: the header (``; Key: value`` lines, continuation lines
appended), one row of 18 fields per job line (``-1`` = unknown), the
machine size (header ``MaxProcs``, else ``MaxNodes``), and refuses a
malformed line with a :class:`~opt_sched.errors.TraceError` naming the
file, the line and the field (a wrong field count, a field that is not a
number, an integer field that is fractional, a ``MaxProcs``/``MaxNodes``
header above ``MAX_MACHINES``).

What the rows become -- the job size, the skips, the estimates, the hygiene
filters, exact job numbers above 2**53 and the limits of the data model --
is :func:`opt_sched.traces.rules.records_to_trace`, the same for every log
format (``instances/traces.md``).
"""

from __future__ import annotations

import io
import re
import warnings
from pathlib import Path

import numpy as np

from ..errors import OptionError, TraceError
from ..instance import _shown
from ..json_files import read_text_file
from ..limits import MAX_MACHINES
from .reading import TraceReading, TraceRecords
from .rules import records_to_trace
from .skips import SkipSummary
from .swf_format import HEADER_INTEGERS, INTEGER_FIELDS, SWF_FIELDS
from .trace import Trace

__all__ = ["read_swf", "swf_records", "trace_name"]

_HEADER = re.compile(r"^;\s{0,3}([A-Za-z][A-Za-z0-9_]*)\s*:(?:\s+(.*))?$")
_OVERRUN = ("extend", "keep")
_MACHINE_KEYS = ("MaxProcs", "MaxNodes")


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
    (:func:`opt_sched.json_files.read_text_file`).
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
            alea = (" (Alea's extended workload format has 21: it is not SWF)"
                    if len(tokens) == 21 else "")
            raise TraceError(f"{label} line {number}: {len(tokens)} fields, "
                             f"expected 18{alea}")
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

    numpy's C parser reads the whole text: as integers first, the common
    case (every field of most logs is an integer, and integers parse about
    3x faster than floats: 25 ms against 84 ms for KTH-SP2's 512,658
    fields; an integer becomes the same double as the float parser would
    give), as floats when a field is not an integer. Only when both fail
    (or a value is not finite) are the lines re-read one by one to name the
    field.
    """
    if not job_lines:
        return np.empty((0, 18))
    table = None
    for dtype in (np.int64, np.float64):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                table = np.loadtxt(io.StringIO(text), comments=";", ndmin=2,
                                   dtype=dtype).astype(np.float64, copy=False)
            break
        except (ValueError, OverflowError):
            continue
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


def _token(lines: list[str], number: int, column: int) -> str:
    """Field ``column`` (0-based) of file line ``number`` (1-based), as written."""
    return lines[number - 1].split(";")[0].split()[column]


def swf_records(path: str | Path, reading: TraceReading | None = None
                ) -> TraceRecords:
    """Parse an SWF file (plain or gzipped) into :class:`TraceRecords`:
    the header and one row of 18 fields per job line, before any rule
    (``reading`` is unused: SWF has one convention; the argument keeps the
    signature of the other formats' ``*_records``).

    Raises
    ------
    TraceError
        A malformed line, naming the file, the line and the field.
    """
    return _swf_records(path)[0]


def _swf_records(path: str | Path) -> tuple[TraceRecords, list[str]]:
    """:func:`swf_records` and the file's lines (for the exact tokens)."""
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
    notes = tuple(f"header {key}={numbers[key]} but the file has {len(table)} "
                  f"job lines" for key in ("MaxJobs", "MaxRecords")
                  if numbers.get(key) is not None and numbers[key] != len(table))
    return TraceRecords(label, trace_name(path), "swf", table,
                        np.asarray(job_lines, dtype=np.int64), header,
                        numbers.get("MaxProcs") or numbers.get("MaxNodes"),
                        notes=notes), all_lines


def read_swf(path: str | Path, *, overrun: str = "extend",
             reading: TraceReading | None = None) -> tuple[Trace, SkipSummary]:
    """Read an SWF file (plain or gzipped) into a trace and its skip summary.

    Parameters
    ----------
    path
        The ``.swf`` or ``.swf.gz`` file.
    overrun
        What to do with a requested time shorter than the run time:
        ``"extend"`` (the estimate becomes the run time) or ``"keep"``.
    reading
        The reading rules (:class:`~opt_sched.traces.reading.TraceReading`);
        when given, its own ``overrun`` applies and ``overrun`` is ignored.

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
    # parse text -> TraceRecords -> the reading rules (opt_sched.traces.rules)
    if overrun not in _OVERRUN:
        raise OptionError(f"read_swf: overrun={overrun!r} is unknown (choose from "
                          f"{', '.join(_OVERRUN)})")
    if reading is None:
        reading = TraceReading(overrun=overrun)
    records, all_lines = _swf_records(path)
    return records_to_trace(records, reading,
                            token=lambda number, column: _token(all_lines, number,
                                                                column))

