"""Real workload traces in and out of opt_sched.

Readers (each returns ``(Trace, SkipSummary)``; print the summary):

- :func:`read_swf` -- Standard Workload Format (Parallel Workloads Archive),
  plain or gzipped.
- :func:`read_batsim` -- Batsim JSON workloads (``delay`` profiles), with the
  platform XML for the machine count.
- :func:`read_trace` -- either, by file name.

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

from .batsim_platform import count_compute_hosts
from .batsim_workload import read_batsim
from .calibration import solve_odds_scale
from .convert import TraceConversion, convert_trace, trace_to_instance
from .out_jobs import OUT_JOBS_COLUMNS, interval_set, parse_interval_set, write_out_jobs
from .profiles import PROFILE_NAMES, IOProfile, ProfileDraw, make_profile
from .skips import SkipSummary
from .swf_reader import read_swf
from .swf_writer import write_swf
from .trace import Trace, TraceJob

__all__ = [
    "OUT_JOBS_COLUMNS",
    "PROFILE_NAMES",
    "IOProfile",
    "ProfileDraw",
    "SkipSummary",
    "Trace",
    "TraceConversion",
    "TraceJob",
    "convert_trace",
    "count_compute_hosts",
    "interval_set",
    "make_profile",
    "parse_interval_set",
    "read_batsim",
    "read_swf",
    "read_trace",
    "solve_odds_scale",
    "trace_to_instance",
    "write_out_jobs",
    "write_swf",
]


def read_trace(path: str | Path, platform: str | Path | None = None, *,
               overrun: str = "extend") -> tuple[Trace, SkipSummary]:
    """Read a Batsim workload (``*.json``, ``*.json.gz``) or an SWF file
    (anything else)."""
    name = Path(path).name.lower()
    if name.endswith((".json", ".json.gz")):
        return read_batsim(path, platform, overrun=overrun)
    return read_swf(path, overrun=overrun)
