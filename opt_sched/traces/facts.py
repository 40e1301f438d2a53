"""The facts a user checks first about a trace (``opt-sched trace-info``).

Computed on the jobs the reading kept (:class:`~opt_sched.traces.trace.Trace`),
next to the reader's :class:`~opt_sched.traces.skips.SkipSummary`:

- **jobs**, **users** (distinct known users), the **machine size** (the
  trace's, else its widest job, and which one was used);
- the **span** ``S = max r_i - min r_i`` (first to last submit, seconds) and,
  when the log's clock is absolute
  (:func:`~opt_sched.traces.time_origin.clock_epoch`), its dates (UTC);
- the **offered load** ``rho = sum_i T_i Q_i / (m S)``: the work submitted
  (run time ``T_i`` times processors ``Q_i``) over what ``m`` machines can
  do during the span (``None`` when ``S = 0``); above 1 the queue grows
  without bound;
- the **size** and **run-time distributions**: quantiles and a few bins
  (sizes in powers of two, run times in minutes/hours/days);
- the **estimates**: among jobs with a known request ``e_i`` (SWF field 9
  positive), the share of over-estimates ``e_i > T_i``, exact ``e_i = T_i``
  and under-estimates ``e_i < T_i``, and the quantiles of the accuracy
  ``T_i / e_i``. The request is the raw field when the trace has its SWF
  rows; otherwise (a Batsim workload) it is the estimate read, with the
  reader's counted adjustments telling the unknown and the short requests
  apart.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .skips import SkipSummary
from .swf_format import REQ_TIME
from .time_origin import clock_epoch, format_epoch
from .trace import Trace

__all__ = ["QUANTILES", "RUN_TIME_BINS", "Distribution",
           "Estimates", "TraceFacts", "accuracy_ratios",
           "size_bins", "trace_facts"]

QUANTILES: tuple[float, ...] = (0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0)
"""The quantiles reported (linear interpolation, numpy's default)."""

RUN_TIME_BINS: tuple[tuple[str, float], ...] = (
    ("<= 1 min", 60.0), ("1-10 min", 600.0), ("10 min-1 h", 3600.0),
    ("1-10 h", 36000.0), ("10 h-1 day", 86400.0), ("> 1 day", math.inf))
"""Run-time bins ``(label, upper bound in seconds)``, each ``(lower, upper]``."""


def _date(seconds: float) -> str:
    return format_epoch(seconds, "%Y-%m-%d %H:%M:%S UTC")


@dataclass(frozen=True)
class Distribution:
    """Quantiles (:data:`QUANTILES`, keyed ``"min"``, ``"p10"``, ...,
    ``"max"``), the mean, and ``(label, jobs)`` bins."""

    quantiles: Mapping[str, float]
    mean: float | None
    bins: tuple[tuple[str, int], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"quantiles": dict(self.quantiles), "mean": self.mean,
                "bins": [{"bin": label, "jobs": count} for label, count in self.bins]}


def _quantile_key(q: float) -> str:
    return {0.0: "min", 1.0: "max", 0.5: "median"}.get(q, f"p{round(q * 100)}")


def _distribution(values: np.ndarray, bins: list[tuple[str, int]]) -> Distribution:
    if not len(values):
        return Distribution({}, None, tuple(bins))
    points = np.quantile(values, QUANTILES)
    return Distribution({_quantile_key(q): float(v) for q, v in zip(QUANTILES, points)},
                        float(values.mean()), tuple(bins))


def size_bins(sizes: np.ndarray) -> list[tuple[str, int]]:
    """Jobs per size class in powers of two: ``1``, ``2``, ``3-4``,
    ``5-8``, ..., from the class of the smallest job to that of the widest."""
    out: list[tuple[str, int]] = []
    if not len(sizes):
        return out
    low, high = 1, 1
    while high < sizes.min():
        low, high = high + 1, high * 2
    while low <= sizes.max():
        label = str(high) if low == high else f"{low}-{high}"
        out.append((label, int(((sizes >= low) & (sizes <= high)).sum())))
        low, high = high + 1, high * 2
    return out


def _run_bins(run: np.ndarray) -> list[tuple[str, int]]:
    out, low = [], -math.inf
    for label, high in RUN_TIME_BINS:
        out.append((label, int(((run > low) & (run <= high)).sum())))
        low = high
    return out


@dataclass(frozen=True)
class Estimates:
    """Requested time ``e_i`` against run time ``T_i`` (module docstring).

    ``known + unknown == jobs`` and ``over + exact + under == known``.
    ``accuracy``: quantiles of ``T_i / e_i`` over the known requests.
    """

    known: int
    unknown: int
    over: int
    exact: int
    under: int
    accuracy: Mapping[str, float]
    source: str

    def share(self, count: int) -> float | None:
        """``count`` as a share of the known requests (``None`` if none)."""
        return count / self.known if self.known else None

    def to_dict(self) -> dict[str, Any]:
        return {"known": self.known, "unknown": self.unknown, "over": self.over,
                "exact": self.exact, "under": self.under,
                "over_share": self.share(self.over),
                "exact_share": self.share(self.exact),
                "under_share": self.share(self.under),
                "accuracy": dict(self.accuracy), "source": self.source}


def accuracy_ratios(trace: Trace) -> np.ndarray:
    """``T_i / e_i`` over the jobs whose request is known (the raw SWF field
    9 when the trace has its rows; else the estimates that differ from the
    run time: an estimate equal to it may be a repaired unknown one).
    Above 1: the job ran longer than it asked for."""
    if trace.swf_fields is not None:
        request = trace.swf_fields[:, REQ_TIME]
        known = request > 0
    else:
        request = trace.walltime
        known = request != trace.run_time
    return trace.run_time[known] / request[known]


def _accuracy(ratio: np.ndarray) -> dict[str, float]:
    if not len(ratio):
        return {}
    points = np.quantile(ratio, QUANTILES)
    return {_quantile_key(q): float(v) for q, v in zip(QUANTILES, points)}


def _estimates(trace: Trace, summary: SkipSummary) -> Estimates:
    run = trace.run_time
    if trace.swf_fields is not None:
        request = trace.swf_fields[:, REQ_TIME]
        known = request > 0
        r, e = run[known], request[known]
        return Estimates(int(known.sum()), int((~known).sum()), int((e > r).sum()),
                         int((e == r).sum()), int((e < r).sum()),
                         _accuracy(accuracy_ratios(trace)),
                         "SWF field 9 (requested time) as logged")
    adjusted = summary.adjusted
    unknown = int(adjusted.get("walltime_unknown", 0))
    under = int(adjusted.get("walltime_short", 0)) + int(
        adjusted.get("walltime_short_kept", 0))
    over = int((trace.walltime > run).sum())
    exact = len(trace) - unknown - under - over
    return Estimates(len(trace) - unknown, unknown, over, exact, under,
                     _accuracy(accuracy_ratios(trace)),
                     "the estimates read, with the reader's adjustments "
                     "(exact requests cannot be told from unknown ones "
                     "repaired to the run time beyond those counts)")


@dataclass(frozen=True)
class TraceFacts:
    """The facts of one trace (module docstring). Times in seconds."""

    name: str
    format: str
    jobs: int
    users: int
    unknown_users: int
    machine_size: int | None
    machines: int
    widest: int
    first_submit: float | None
    last_submit: float | None
    span: float | None
    origin: float | None
    time_zone: str | None
    work: float
    offered_load: float | None
    sizes: Distribution
    run_times: Distribution
    estimates: Estimates
    summary: SkipSummary
    notes: tuple[str, ...] = field(default=())

    @property
    def start_date(self) -> str | None:
        """The first submit as a UTC date (absolute clocks only)."""
        if self.origin is None or self.first_submit is None:
            return None
        return _date(self.origin + self.first_submit)

    @property
    def end_date(self) -> str | None:
        """The last submit as a UTC date (absolute clocks only)."""
        if self.origin is None or self.last_submit is None:
            return None
        return _date(self.origin + self.last_submit)

    def to_dict(self) -> dict[str, Any]:
        """Everything, for ``--json`` (full precision)."""
        return {"name": self.name, "format": self.format, "jobs": self.jobs,
                "users": self.users, "unknown_users": self.unknown_users,
                "machine_size": self.machine_size, "machines": self.machines,
                "widest": self.widest, "first_submit": self.first_submit,
                "last_submit": self.last_submit, "span": self.span,
                "origin": self.origin, "start_date": self.start_date,
                "end_date": self.end_date, "time_zone": self.time_zone,
                "work": self.work, "offered_load": self.offered_load,
                "sizes": self.sizes.to_dict(), "run_times": self.run_times.to_dict(),
                "estimates": self.estimates.to_dict(),
                "summary": self.summary.to_dict(), "notes": list(self.notes)}

    def describe(self) -> str:
        """A few lines for the terminal (the skip summary is printed apart)."""
        machine = (f"{self.machines} machines" if self.machine_size is not None else
                   f"{self.machines} machines (unknown in the file: its widest job)")
        users = f"{self.users} users" + (f" ({self.unknown_users} jobs with no user)"
                                         if self.unknown_users else "")
        out = [f"{self.name} ({self.format}): {self.jobs} jobs, {users}, {machine}, "
               f"widest job {self.widest}"]
        if self.span is not None:
            line = f"span          {_duration(self.span)} (first to last submit)"
            if self.start_date:
                line += f", {self.start_date} .. {self.end_date}"
            if self.time_zone:
                line += f"; local time zone {self.time_zone}"
            out.append(line)
        if self.offered_load is not None:
            out.append(f"offered load  {self.offered_load:.3f} (sum run time x size "
                       f"{self.work:.4g} / ({self.machines} machines x span))")
        out.append(_distribution_line("size", self.sizes, _number))
        out.append(_distribution_line("run time", self.run_times, _duration))
        e = self.estimates
        if e.known:
            out.append(f"requests      {e.known} known: {e.share(e.over):.1%} over-"
                       f"estimates, {e.share(e.exact):.1%} exact, "
                       f"{e.share(e.under):.1%} under-estimates (requested < run); "
                       f"{e.unknown} unknown")
            a = e.accuracy
            out.append(f"  run/request median {a['median']:.3g}, p10 {a['p10']:.3g}, "
                       f"p90 {a['p90']:.3g}")
        else:
            out.append(f"requests      none known ({e.unknown} jobs)")
        out.extend(f"note: {note}" for note in self.notes)
        return "\n".join(out)


def _duration(seconds: float) -> str:
    """``97225`` -> ``97225 s (1.1 d)``."""
    for unit, size in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= size:
            return f"{seconds:.6g} s ({seconds / size:.3g} {unit})"
    return f"{seconds:.6g} s"


def _distribution_line(label: str, dist: Distribution, shown: Any) -> str:
    if not dist.quantiles:
        return f"{label:<13} (no jobs)"
    q = dist.quantiles
    head = (f"{label:<13} min {shown(q['min'])}, median {shown(q['median'])}, "
            f"p90 {shown(q['p90'])}, max {shown(q['max'])}, mean "
            f"{dist.mean:.4g}")
    total = sum(count for _, count in dist.bins) or 1
    bins = ", ".join(f"{name} {count / total:.1%}" for name, count in dist.bins
                     if count)
    return f"{head}\n  bins        {bins}"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def trace_facts(trace: Trace, summary: SkipSummary) -> TraceFacts:
    """The :class:`TraceFacts` of ``trace`` as read (``summary``: its reader's)."""
    n = len(trace)
    run = trace.run_time
    sizes = trace.nodes
    known_users = [u for u in trace.users if u is not None]
    machines = trace.machine_size or trace.widest
    notes = []
    if trace.machine_size is None:
        notes.append(f"the file gives no machine size: the widest job ({trace.widest}) "
                     f"is used for the offered load")
    first = float(trace.submit.min()) if n else None
    last = float(trace.submit.max()) if n else None
    span = None if first is None or last is None else last - first
    work = float((run * sizes).sum())
    load = work / (machines * span) if span and machines else None
    origin = clock_epoch(trace.header, first)
    zone = trace.header.get("TimeZoneString") or None
    size_dist = _distribution(sizes.astype(float), size_bins(sizes))
    return TraceFacts(trace.name, trace.format, n, len(set(known_users)),
                      n - len(known_users), trace.machine_size, machines, trace.widest,
                      first, last, span, origin, zone, work, load, size_dist,
                      _distribution(run, _run_bins(run)), _estimates(trace, summary),
                      summary, tuple(notes))
