"""How a trace file is read: its format, its conventions and its hygiene filters.

One pipeline reads every log a centre has. A *format* (SWF, Batsim JSON,
Slurm ``sacct``, PBS/Torque accounting) turns the file into
:class:`TraceRecords`: one SWF row of 18 fields per job record, ``-1`` =
unknown, whatever the source. The *reading rules* (:class:`TraceReading`)
then decide each record's fate, once for every format: the job size
(allocated or requested), the estimate rules, the skip rules and the
hygiene filters (time range, cancelled jobs, zero run times, flurries).
Every record is kept or skipped for exactly one counted reason
(:class:`~opt_sched.traces.skips.SkipSummary`).

Formats are a registry (:data:`~opt_sched.traces.formats.TRACE_FORMATS`): a
new log format is one module
with a ``sniff`` and a ``read`` function, plus one entry (or a plug-in in the
``opt_sched.trace_formats`` entry-point group).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..errors import OptionError

if TYPE_CHECKING:
    import numpy as np

    from .skips import SkipSummary
    from .trace import Trace

__all__ = ["CANCELLED", "JOB_SIZES", "ZERO_RUN_TIMES", "TraceFormat",
           "TraceReading", "TraceRecords"]

JOB_SIZES: tuple[str, ...] = ("allocated", "requested")
"""``--job-size``: the processors a job holds. ``allocated``: SWF field 5
(else 8), ``sacct`` AllocNodes/NNodes (else ReqNodes), PBS ``exec_host``
(else ``Resource_List``). ``requested``: SWF field 8 (else 5), ReqNodes, the
``Resource_List``. Both readings are used in the literature (AccaSim and
RLScheduler read the request)."""

CANCELLED: tuple[str, ...] = ("keep", "drop-unstarted")
"""``--cancelled``: ``keep`` replays every cancelled job as it ran (its
logged run time); ``drop-unstarted`` skips jobs cancelled before they
started (SWF status 5 with no run time)."""

ZERO_RUN_TIMES: tuple[str, ...] = ("drop", "keep")
"""``--zero-run-time``: a job with run time 0 is skipped (``drop``, the
default: nothing to simulate) or kept (``keep``)."""

MACHINE_COUNTS: tuple[str, ...] = ("auto", "platform", "workload")
"""Batsim workloads: the machine count. ``auto`` (default): at most the
workload's ``nb_res`` when it states one, else the platform's compute hosts:
the machines the workload was written for (no input file says which way a
Batsim run went: ``batsim-medium_late``'s run used its ``nb_res``, 32 of 128
hosts; Batsim 4's run of ``cluster512`` used all 512). ``platform``
(``--all-hosts``): every compute host, Batsim's own default.
``workload`` (``--mmax-workload``): at most ``nb_res``, which must exist."""


@dataclass(frozen=True)
class TraceReading:
    """The conventions and filters a trace is read with (all counted).

    Attributes
    ----------
    job_size
        :data:`JOB_SIZES`.
    overrun
        A requested time shorter than the run time: ``"extend"`` (the
        estimate becomes the run time) or ``"keep"``.
    cancelled
        :data:`CANCELLED`.
    zero_run_time
        :data:`ZERO_RUN_TIMES`.
    time_range
        ``(start, end)``: keep jobs submitted in ``[start, end)``, in the
        file's own clock (seconds; absolute epochs for a log in epochs), or
        ``None``.
    flurries
        ``"keep"`` or ``"drop"``: one user's bursts of near-identical
        submissions (the Parallel Workloads Archive's cleaning notes). Found
        and listed in the summary either way.
    flurry_jobs, flurry_gap
        The flurry detector's parameters
        (:func:`~opt_sched.traces.filters.find_flurries`): at least
        ``flurry_jobs`` jobs of one user and one size, each submitted at most
        ``flurry_gap`` seconds after the previous one.
    tz
        The time zone of the log's local timestamps (``sacct``, PBS), an
        IANA name; ``None`` (not given): UTC, and the summary says it was
        assumed.
    machines
        :data:`MACHINE_COUNTS` (Batsim workloads).
    """

    job_size: str = "allocated"
    overrun: str = "extend"
    cancelled: str = "keep"
    zero_run_time: str = "drop"
    time_range: tuple[float, float] | None = None
    flurries: str = "keep"
    flurry_jobs: int = 100
    flurry_gap: float = 60.0
    tz: str | None = None
    machines: str = "auto"

    def __post_init__(self) -> None:
        for name, allowed in (("job_size", JOB_SIZES), ("overrun", ("extend", "keep")),
                              ("cancelled", CANCELLED),
                              ("zero_run_time", ZERO_RUN_TIMES),
                              ("flurries", ("keep", "drop")),
                              ("machines", MACHINE_COUNTS)):
            value = getattr(self, name)
            if value not in allowed:
                raise OptionError(f"{name.replace('_', '-')}={value!r} is unknown "
                                  f"(choose from {', '.join(allowed)})")
        if (isinstance(self.flurry_jobs, bool) or not isinstance(self.flurry_jobs, int)
                or self.flurry_jobs < 2):
            raise OptionError(f"flurry-jobs={self.flurry_jobs!r} must be an integer "
                              f">= 2")
        if not 0 <= self.flurry_gap < float("inf"):
            raise OptionError(f"flurry-gap={self.flurry_gap!r} must be a finite "
                              f"number >= 0")
        if self.time_range is not None:
            start, end = self.time_range
            if not start < end:
                raise OptionError(f"time-range={start:g}:{end:g} is empty "
                                  f"(the start must be before the end)")


class TraceRecords(NamedTuple):
    """A log read into SWF rows, before the reading rules.

    Attributes
    ----------
    source
        The file name, for messages and the summary.
    name
        The workload name (the file name without its suffixes).
    format
        The format's registry name (``"swf"``, ``"sacct"``, ``"pbs"``, ...).
    fields
        ``(n, 18)`` float array, one SWF row per job record (``-1`` =
        unknown; field 11 the SWF status: 1 completed, 0 failed, 5
        cancelled; the job and user numbers may be placeholders when
        ``ids``/``users`` give the names).
    lines
        ``(n,)`` the 1-based line of each record in the file.
    header
        SWF-style header keys (``MaxNodes``, ``UnixStartTime``,
        ``TimeZoneString``, ``Note``, ...), as strings.
    machine_size
        The machines of the system when the log says, else ``None``.
    ids, users, groups
        Per record, the names as the log writes them (``"1234_7"``,
        ``"alice"``), or ``None`` to take them from the SWF fields.
    not_jobs
        Records that are not jobs, counted in the summary's notes rather than
        as skipped jobs: ``reason -> count`` (for example ``{"job steps
        (JobID 12.batch)": 40}``).
    skipped
        Records that are jobs the format itself cannot replay, ``code ->
        lines`` (codes of :data:`~opt_sched.traces.skips.SKIP_REASONS`, for
        example ``not_finished`` for jobs pending or running when the log
        was taken).
    notes
        Remarks for the summary (``"time zone: UTC (assumed; give --tz)"``).
    profiles
        Per record, the workload profile it runs (Batsim), or ``None``.
    unit
        What ``lines`` count: ``"line"`` (1-based file lines) or ``"job"``
        (0-based indices in a Batsim ``jobs`` list), for the summary.
    """

    source: str
    name: str
    format: str
    fields: np.ndarray
    lines: np.ndarray
    header: Mapping[str, str]
    machine_size: int | None = None
    ids: tuple[str, ...] | None = None
    users: tuple[str | None, ...] | None = None
    groups: tuple[str | None, ...] | None = None
    not_jobs: Mapping[str, int] = {}
    skipped: Mapping[str, tuple[int, ...]] = {}
    notes: tuple[str, ...] = ()
    profiles: tuple[str | None, ...] | None = None
    unit: str = "line"


@dataclass(frozen=True)
class TraceFormat:
    """One log format.

    Attributes
    ----------
    name
        The registry key (``--format``).
    description
        One line for ``--help``.
    sniff
        ``sniff(path, head)``: does this file look like the format?
        ``head`` is the first few kB of the (gunzipped) text.
    read
        ``read(path, platform, reading) -> (Trace, SkipSummary)``.
    suffixes
        File name endings that decide the format without sniffing.
    """

    name: str
    description: str
    sniff: Callable[[Path, str], bool]
    read: Callable[[Path, Path | None, TraceReading], tuple[Trace, SkipSummary]]
    suffixes: tuple[str, ...] = field(default=())
