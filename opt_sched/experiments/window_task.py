"""One trace window's bracket as a campaign task (the ``window-gap``
experiment of :mod:`opt_sched.campaign.experiments`).

A task reads a trace (any format :func:`opt_sched.traces.read_trace` reads;
by default KTH-SP2 from the shared data folder), gives its jobs I/O with a
named profile at the I/O load ``alpha`` (drawn from the task's seed),
replays the online ``scheduler`` under exclusive I/O, and brackets the
optimum of window ``start:count`` (:func:`~opt_sched.experiments.window.window_gap`):
for each objective the online value, the best clairvoyant schedule found
and the proven lower bound, and the policy's distance to the optimum from
both sides (``at_least``, ``at_most``; ``width = at_most - at_least``).

The replayed trace is kept per process (:func:`replayed_trace`), so the windows
of one trace, profile, seed and scheduler replay it once per worker.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

__all__ = ["replayed_trace", "window_task"]


@lru_cache(maxsize=4)
def _replayed(trace: str, io_profile: str, alpha: float, seed: int, scheduler: str):
    """``(instance, schedule)`` of the whole trace (validated by the
    caller's window, whose schedules are checked with the reservations)."""
    from ..scheduling import replay
    from ..traces import convert_trace, read_trace

    read, _ = read_trace(trace)
    instance = convert_trace(read, io_profile, seed=seed, alpha=alpha).instance
    return instance, replay(instance, scheduler)


def replayed_trace(trace: str, io_profile: str, alpha: float, seed: int,
                   scheduler: str):
    """``(instance, schedule)``: ``trace`` (a file, or ``"kth-sp2"`` for
    KTH-SP2 in the shared data folder) with ``io_profile`` I/O at load
    ``alpha`` drawn from ``seed``, replayed by ``scheduler``; kept per
    process, so the windows of one trace replay it once."""
    return _replayed(_trace_path(trace), io_profile, float(alpha), int(seed),
                     scheduler)


def _trace_path(text: str) -> str:
    """``text``, or KTH-SP2 from the shared data folder for ``"kth-sp2"``."""
    if text != "kth-sp2":
        return text
    from ..workloads.kth import KTH_FILE, shared_data_dir

    return str(shared_data_dir() / KTH_FILE)


def window_task(params: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """The row of one window: ``<objective>_<online|best_found|lower_bound|
    at_least|at_most|width>`` for the makespan, the max flow stretch and the
    mean flow time (``-`` in names becomes ``_``), and the window's state at
    ``t0`` (jobs running, queued)."""
    from .window import window_gap

    instance, schedule = replayed_trace(params["trace"], params["io_profile"],
                                        params["alpha"], seed, params["scheduler"])
    report = window_gap(instance, schedule, int(params["start"]), int(params["count"]),
                        time_limit=float(params["time_limit"]), mode=params["mode"])
    window = report["window"]
    row: dict[str, Any] = {"first_job": window["first_job"],
                           "running_at_t0": window["running_jobs"],
                           "queued_at_t0": window["queued_at_t0"]}
    for name, item in report["objectives"].items():
        key = name.replace("-", "_")
        for field in ("online", "best_found", "lower_bound", "at_least", "at_most",
                      "width"):
            row[f"{key}_{field}"] = item[field]
    return row
