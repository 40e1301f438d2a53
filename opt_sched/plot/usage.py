"""Utilisation, allocation and queue length over time."""

from __future__ import annotations

from ..instance import Instance
from ..metrics import queue_over_time, utilisation_over_time
from ..schedule import Schedule
from .pyplot import pyplot

__all__ = ["plot_usage"]


def plot_usage(instance: Instance, schedule: Schedule, *,
               window: tuple[float, float] | None = None, fig=None):
    """Two stacked panels: utilisation (busy nodes / N, jobs computing or
    doing I/O) and allocation (held nodes / N) on top, queued jobs below,
    as step functions (:func:`~opt_sched.metrics.utilisation_over_time`,
    :func:`~opt_sched.metrics.queue_over_time`). Returns the figure."""
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
    bottom.set_xlabel("time (s)")
    if window is not None:
        bottom.set_xlim(*window)
    top.set_title(f"{instance.name}: {schedule.method or 'schedule'}")
    fig.tight_layout()
    return fig
