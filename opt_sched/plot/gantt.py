"""Gantt chart of a time window of a schedule."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import OptionError
from ..instance import Instance
from ..schedule import Schedule
from .pyplot import pyplot
from .time_axis import set_time_axis

__all__ = ["plot_gantt"]


def _runs(machines: Sequence[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive machine numbers as ``(first, count)``."""
    out: list[tuple[int, int]] = []
    for m in sorted(machines):
        if out and out[-1][0] + out[-1][1] == m:
            out[-1] = (out[-1][0], out[-1][1] + 1)
        else:
            out.append((m, 1))
    return out


def plot_gantt(instance: Instance, schedule: Schedule, *,
               window: tuple[float, float] | None = None, partition: int = 0,
               ax=None, max_jobs: int = 5000, show_io: bool = True,
               epoch: float | None = None, since: str = "t = 0"):
    """Draw the jobs of ``partition`` that overlap ``window`` (default: all).

    Rows are machines when every job of the partition states its
    ``machines`` (online schedules), otherwise one row per job. Each job is
    a bar over ``[S_i, C_i)`` on its machines; its I/O phases are drawn as
    darker segments inside the bar; a killed job has a red outline.

    The time axis (:func:`~opt_sched.plot.time_axis.set_time_axis`) reads
    UTC dates when ``epoch`` (the Unix time of t = 0) is given, else
    seconds, hours or days since ``since``; ``window`` is in the schedule's
    seconds either way.

    Raises
    ------
    OptionError
        An empty or reversed window, or more than ``max_jobs`` jobs in it.
    """
    plt = pyplot()

    completions = schedule.completions(instance)
    jobs = [js for js in schedule.jobs if js.partition == partition]
    if window is None:
        lo = min((js.start for js in jobs), default=0.0)
        hi = max((completions[js.id] for js in jobs), default=1.0)
    else:
        lo, hi = (float(x) for x in window)
        if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
            raise OptionError(f"window={window!r} must be (start, end) with "
                              f"end > start")
    shown = [js for js in jobs if js.start < hi and completions[js.id] > lo]
    if len(shown) > max_jobs:
        raise OptionError(f"window={window!r} holds {len(shown)} jobs (more than "
                          f"max_jobs={max_jobs}); choose a narrower window")
    by_machine = bool(jobs) and all(js.machines is not None for js in jobs)
    if ax is None:
        _, ax = plt.subplots(figsize=(11, 5))
    cmap = plt.get_cmap("tab20")
    bandwidth = instance.platform.partitions[partition].bandwidth
    for row, js in enumerate(shown):
        job = instance.job(js.id)
        color = cmap(instance.index[js.id] % 20)
        end = completions[js.id]
        lanes = _runs(js.machines) if by_machine else [(row, 1)]
        io = []
        if show_io:
            ends = js.io_ends or tuple(o + v / bandwidth
                                       for o, v in zip(js.io_starts, job.io_volume))
            io = [(o, e - o) for o, e in zip(js.io_starts, ends) if e > o]
        edge = "red" if js.killed_at is not None else "none"
        for first, count in lanes:
            ax.broken_barh([(js.start, end - js.start)], (first, count),
                           facecolors=color, edgecolors=edge, linewidth=0.8)
            if io:
                ax.broken_barh(io, (first + 0.15 * count, 0.7 * count),
                               facecolors="black", alpha=0.45, linewidth=0)
    ax.set_xlim(lo, hi)
    set_time_axis(ax, lo, hi, epoch=epoch, since=since)
    size = instance.platform.partitions[partition].nodes
    ax.set_ylim(0, size if by_machine else max(1, len(shown)))
    ax.set_ylabel("machine" if by_machine else "job")
    ax.set_title(f"{instance.name}: {schedule.method or 'schedule'}, "
                 f"{len(shown)} jobs" + (" (I/O darker)" if show_io else ""))
    if not by_machine:
        ax.set_yticks(np.arange(len(shown)) + 0.5)
        ax.set_yticklabels([js.id for js in shown], fontsize=7)
    return ax
