"""Utilisation, allocation and queue length over time."""

from __future__ import annotations

from ..instance import Instance
from ..metrics import queue_over_time, utilisation_over_time
from ..schedule import Schedule
from .pyplot import pyplot
from .time_axis import set_time_axis

__all__ = ["plot_usage"]


def plot_usage(instance: Instance, schedule: Schedule, *,
               window: tuple[float, float] | None = None, fig=None,
               epoch: float | None = None, since: str = "t = 0"):
    """Two stacked panels: utilisation (busy nodes / N, jobs computing or
    doing I/O) and allocation (held nodes / N) on top, queued jobs below,
    as step functions (:func:`~opt_sched.metrics.utilisation_over_time`,
    :func:`~opt_sched.metrics.queue_over_time`), over ``window`` (default:
    t = 0 to the last change). The time axis reads dates or s/hours/days
    since ``since`` (:func:`~opt_sched.plot.time_axis.set_time_axis`).
    Returns the figure."""
    plt = pyplot()

    use = utilisation_over_time(instance, schedule)
    queue = queue_over_time(instance, schedule)
    if fig is None:
        fig = plt.figure(figsize=(11, 5))
    top, bottom = fig.subplots(2, 1, sharex=True)
    top.step(use["time"], use["allocation"], where="post", label="allocated",
             linewidth=0.8)
    top.step(use["time"], use["utilisation"], where="post", label="busy",
             linewidth=0.8)
    top.set_ylabel("share of nodes")
    top.set_ylim(0, 1.05)
    top.legend(loc="lower right", fontsize=8)
    bottom.step(queue["time"], queue["queued"], where="post", color="tab:red",
                linewidth=0.8)
    bottom.set_ylabel("queued jobs")
    if window is not None:
        lo, hi = window
    else:
        lo = min(0.0, float(use["time"].min()), float(queue["time"].min()))
        hi = max(float(use["time"].max()), float(queue["time"].max()))
    bottom.set_xlim(lo, hi)
    shown = queue["queued"][(queue["time"] >= lo) & (queue["time"] <= hi)]
    before = queue["queued"][queue["time"] < lo]
    peak = max(shown.max() if len(shown) else 0,
               before.iloc[-1] if len(before) else 0)
    bottom.set_ylim(0, max(1.0, 1.05 * float(peak)))
    set_time_axis(bottom, lo, hi, epoch=epoch, since=since)
    top.set_title(f"{instance.name}: {schedule.method or 'schedule'}")
    fig.tight_layout()
    return fig
