"""Real workload traces in and out of opt_sched.

Readers (each returns ``(Trace, SkipSummary)``; print the summary):

- :func:`read_swf` -- Standard Workload Format (Parallel Workloads Archive),
  plain or gzipped.
- :func:`read_batsim` -- Batsim JSON workloads (``delay`` profiles), with the
  platform XML for the machine count.
- :func:`read_trace` -- any registered format (SWF, Batsim, Slurm ``sacct``,
  PBS/Torque accounting; :data:`TRACE_FORMATS`), by name or content, under
  the reading rules :class:`TraceReading` (job size, cancelled and
  zero-run-time jobs, time range, flurries), applied once for every format
  by :func:`records_to_trace`.

Conversion: :func:`trace_to_instance` / :func:`convert_trace` give the jobs
compute/I/O iterations with a named I/O profile
(:data:`~opt_sched.traces.profiles.PROFILE_NAMES`), a bandwidth or a target
I/O load alpha.

Writers (atomic): :func:`write_out_jobs` (Batsim ``out_jobs.csv``, read by
evalys) and :func:`write_swf`.

Formats, skip reasons, profile math and caveats: ``instances/traces.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..lazy import lazy_exports

if TYPE_CHECKING:
    from .reading import TraceReading
    from .skips import SkipSummary
    from .trace import Trace

# Imported on first use (PEP 562), so that ``opt-sched --help`` and the
# option lists of the commands do not import numpy and numba.
_LAZY: dict[str, str] = {
    "count_compute_hosts": ".batsim_platform",
    "read_batsim": ".batsim_workload",
    "solve_odds_scale": ".calibration",
    "TraceConversion": ".convert",
    "convert_trace": ".convert",
    "trace_to_instance": ".convert",
    "OUT_JOBS_COLUMNS": ".out_jobs",
    "interval_set": ".out_jobs",
    "parse_interval_set": ".out_jobs",
    "write_out_jobs": ".out_jobs",
    "PROFILE_NAMES": ".profiles",
    "IOProfile": ".profiles",
    "ProfileDraw": ".profiles",
    "make_profile": ".profiles",
    "SkipSummary": ".skips",
    "TRACE_FORMATS": ".formats",
    "detect_format": ".formats",
    "TraceFormat": ".reading",
    "TraceReading": ".reading",
    "TraceRecords": ".reading",
    "records_to_trace": ".rules",
    "read_swf": ".swf_reader",
    "write_swf": ".swf_writer",
    "Trace": ".trace",
    "TraceJob": ".trace",
}

__getattr__, __dir__ = lazy_exports(__name__, globals(), _LAZY)


__all__ = sorted([*_LAZY, "read_trace"])  # every lazy name, and read_trace


def read_trace(path: str | Path, platform: str | Path | None = None,
               reading: TraceReading | None = None, format: str | None = None, *,
               overrun: str | None = None) -> tuple[Trace, SkipSummary]:
    """Read any trace (:func:`opt_sched.traces.formats.read_trace`):
    ``format`` or the detected one, under ``reading``; ``overrun``, given,
    replaces ``reading.overrun`` (the former keyword of this function)."""
    from .formats import read_trace as read
    from .reading import TraceReading

    if overrun is not None:
        from dataclasses import replace

        reading = replace(reading or TraceReading(), overrun=overrun)
    return read(path, platform, reading, format)
