"""The options that say how a trace is read, shared by ``replay``, ``convert``
and ``trace-info``.

:func:`add_trace_options` declares them; :func:`trace_reading` turns them into
a :class:`~opt_sched.traces.reading.TraceReading` (every bad value is one
line, exit 2); :func:`trace_format` gives ``--format``. The rules behind each
option: :mod:`opt_sched.traces.rules` and ``instances/traces.md``.
"""

from __future__ import annotations

import argparse
import math

from ..errors import OptionError
from .arguments import non_negative_float

__all__ = ["TRACE_OPTIONS", "add_trace_options", "given_trace_options",
           "trace_format", "trace_reading"]

TRACE_OPTIONS: tuple[str, ...] = ("format", "job_size", "overrun", "cancelled",
                                  "zero_run_time", "time_range", "flurries",
                                  "flurry_jobs", "flurry_gap", "tz", "mmax_workload",
                                  "all_hosts")
"""The ``argparse`` dests of the trace options."""

_DEFAULTS = {"format": None, "job_size": "allocated", "overrun": "extend",
             "cancelled": "keep", "zero_run_time": "drop", "time_range": None,
             "flurries": "keep", "flurry_jobs": 100, "flurry_gap": 60.0, "tz": None,
             "mmax_workload": False, "all_hosts": False}


def time_range(text: str) -> tuple[float, float]:
    """``--time-range START:END``: two finite numbers (seconds, the file's
    clock), ``START < END``; either may be empty (no bound)."""
    parts = text.split(":")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"{text!r} is not START:END (two numbers "
                                         "of seconds, the file's clock)")
    try:
        start = float(parts[0]) if parts[0].strip() else -math.inf
        end = float(parts[1]) if parts[1].strip() else math.inf
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not START:END (two numbers "
                                         "of seconds, the file's clock)") from None
    if math.isnan(start) or math.isnan(end) or not start < end:
        raise argparse.ArgumentTypeError(f"{text!r}: START must be before END")
    return start, end


def _flurry_jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 2:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer >= 2")
    return value


def _time_zone(text: str) -> str:
    """An IANA time zone name (``Europe/Paris``, ``UTC``)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError):
        raise argparse.ArgumentTypeError(f"{text!r} is not an IANA time zone (e.g. "
                                         "UTC, Europe/Paris)") from None
    return text


def _format_name(text: str) -> str:
    from ..traces.formats import BUILTIN_FORMATS, TRACE_FORMATS

    if text in BUILTIN_FORMATS or text in TRACE_FORMATS:
        return text
    raise argparse.ArgumentTypeError(f"{text!r} is unknown (choose from "
                                     f"{', '.join(TRACE_FORMATS)})")


def add_trace_options(parser: argparse.ArgumentParser) -> None:
    """Declare the trace reading options in their own group of ``parser``."""
    group = parser.add_argument_group(
        "trace reading (instances/traces.md; each rule and its count is printed)")
    group.add_argument("--format", type=_format_name, default=None, metavar="NAME",
                       help="the log format: swf, batsim, sacct, pbs or a plug-in "
                            "(default: from the file name, else its content)")
    group.add_argument("--job-size", choices=("allocated", "requested"),
                       default="allocated",
                       help="processors of a job: allocated (SWF field 5, else 8; "
                            "default) or requested (field 8, else 5)")
    group.add_argument("--overrun", choices=("extend", "keep"), default="extend",
                       help="a requested time shorter than the run time: raised to "
                            "it (extend, default) or kept")
    group.add_argument("--cancelled", choices=("keep", "drop-unstarted"),
                       default="keep",
                       help="cancelled jobs (SWF status 5): replay them as they ran "
                            "(keep, default) or drop those cancelled before they "
                            "started (run time <= 0)")
    group.add_argument("--zero-run-time", choices=("drop", "keep"), default="drop",
                       help="jobs with run time 0: skip them (drop, default) or "
                            "keep them with run time 1 s")
    group.add_argument("--time-range", type=time_range, default=None,
                       metavar="START:END",
                       help="keep the jobs submitted in [START, END), seconds in "
                            "the file's clock (either side may be empty)")
    group.add_argument("--flurries", choices=("keep", "drop"), default="keep",
                       help="one user's bursts of similar jobs: found and listed; "
                            "kept (default) or dropped")
    group.add_argument("--flurry-jobs", type=_flurry_jobs, default=100, metavar="N",
                       help="a flurry has at least N jobs of one user and one size "
                            "(default 100)")
    group.add_argument("--flurry-gap", type=non_negative_float, default=60.0,
                       metavar="SECONDS",
                       help="... each submitted at most SECONDS after the previous "
                            "one (default 60)")
    group.add_argument("--tz", type=_time_zone, default=None, metavar="ZONE",
                       help="time zone of the log's local timestamps (sacct, PBS), "
                            "an IANA name (default: UTC, said in the summary)")
    machines = group.add_mutually_exclusive_group()
    machines.add_argument("--mmax-workload", action="store_true",
                          help="Batsim: at most the workload's nb_res machines, "
                               "which it must state (Batsim's --mmax-workload; "
                               "default: nb_res when stated, else the platform's "
                               "compute hosts)")
    machines.add_argument("--all-hosts", action="store_true",
                          help="Batsim: every compute host of the platform, "
                               "Batsim's own default (a run made without "
                               "--mmax-workload)")


def given_trace_options(args: argparse.Namespace) -> list[str]:
    """The trace options set to something other than their default, as flags
    (``["--job-size"]``), for refusing them where no trace is read."""
    return ["--" + dest.replace("_", "-") for dest in TRACE_OPTIONS
            if hasattr(args, dest) and getattr(args, dest) != _DEFAULTS[dest]]


def trace_reading(args: argparse.Namespace):
    """The :class:`~opt_sched.traces.reading.TraceReading` of the options.

    Raises
    ------
    OptionError
        A value the reading refuses (one line naming the option).
    """
    from ..traces.reading import TraceReading

    try:
        return TraceReading(
            job_size=args.job_size, overrun=args.overrun, cancelled=args.cancelled,
            zero_run_time=args.zero_run_time, time_range=args.time_range,
            flurries=args.flurries, flurry_jobs=args.flurry_jobs,
            flurry_gap=args.flurry_gap, tz=args.tz,
            machines=("workload" if args.mmax_workload else
                      "platform" if args.all_hosts else "auto"))
    except OptionError as err:
        raise OptionError(f"--{err}") from None


def trace_format(args: argparse.Namespace) -> str | None:
    """``--format``: a registered name, or ``None`` (detect it)."""
    return args.format
