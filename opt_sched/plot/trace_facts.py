"""The picture of ``opt-sched trace-info --plot``: three panels of one trace.

1. **Job sizes**: jobs per size class in powers of two (``1``, ``2``,
   ``3-4``, ...), the classes of :func:`~opt_sched.traces.facts.size_bins`.
2. **Run times**: a histogram on a logarithmic time axis (bins evenly
   spaced in ``log10`` seconds), with the median marked.
3. **Estimate accuracy** ``T_i / e_i`` (run time over requested time, jobs
   with a known request, :func:`~opt_sched.traces.facts.accuracy_ratios`):
   bins of 0.05 on ``[0, 1]``, and one bar for the under-estimates (ratio
   above 1: the job ran longer than it asked for). An empty panel says
   that no request is known.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from ..traces.facts import TraceFacts, accuracy_ratios
from ..traces.trace import Trace
from .pyplot import pyplot, save_figure

__all__ = ["draw_trace_facts", "plot_trace_facts"]


def _sizes(ax: Any, facts: TraceFacts) -> None:
    labels = [label for label, _ in facts.sizes.bins]
    counts = [count for _, count in facts.sizes.bins]
    ax.bar(range(len(labels)), counts, color="tab:blue")
    ax.set_xticks(range(len(labels)), labels, rotation=45, ha="right", fontsize=8)
    ax.set_xlabel("processors (size class)")
    ax.set_ylabel("jobs")
    ax.set_title(f"job sizes (machine {facts.machines})")


def _run_times(ax: Any, trace: Trace, facts: TraceFacts) -> None:
    run = trace.run_time[trace.run_time > 0]
    if len(run):
        low, high = np.log10(run.min()), np.log10(run.max())
        edges = np.logspace(low, max(high, low + 1e-9), 40)
        ax.hist(run, bins=edges, color="tab:green")
        ax.set_xscale("log")
        median = facts.run_times.quantiles.get("median")
        if median:
            ax.axvline(median, color="black", linestyle="--", linewidth=1,
                       label=f"median {median:.4g} s")
            ax.legend(fontsize=8)
        for seconds, label in ((60, "1 min"), (3600, "1 h"), (86400, "1 day")):
            if run.min() <= seconds <= run.max():
                ax.axvline(seconds, color="grey", linewidth=0.5)
                ax.text(seconds, ax.get_ylim()[1] * 0.95, label, fontsize=7,
                        rotation=90, va="top", ha="right", color="grey")
    ax.set_xlabel("run time (s, log scale)")
    ax.set_ylabel("jobs")
    ax.set_title("run times")


def _accuracy(ax: Any, trace: Trace, facts: TraceFacts) -> None:
    ratio = accuracy_ratios(trace)
    e = facts.estimates
    if not len(ratio):
        ax.text(0.5, 0.5, "no requested time known", ha="center", va="center",
                transform=ax.transAxes)
    else:
        edges = np.linspace(0.0, 1.0, 21)
        ax.hist(ratio[ratio <= 1], bins=edges, color="tab:orange",
                label=f"run <= request ({e.over + e.exact})")
        over = int((ratio > 1).sum())
        ax.bar([1.075], [over], width=0.05, color="tab:red",
               label=f"run > request ({over})")
        ax.set_xlim(0, 1.15)
        ax.set_xticks([0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.075],
                      ["0", "0.2", "0.4", "0.6", "0.8", "1", ">1"])
        ax.legend(fontsize=8)
    ax.set_xlabel("run time / requested time")
    ax.set_ylabel("jobs")
    share = e.share(e.under)
    ax.set_title("estimate accuracy" + (f" ({share:.1%} under-estimates)"
                                        if share is not None else ""))


def draw_trace_facts(trace: Trace, facts: TraceFacts) -> Any:
    """The three-panel figure (module docstring); the caller saves it."""
    plt = pyplot()
    figure, axes = plt.subplots(1, 3, figsize=(14, 4.2))
    _sizes(axes[0], facts)
    _run_times(axes[1], trace, facts)
    _accuracy(axes[2], trace, facts)
    load = ("" if facts.offered_load is None
            else f", offered load {facts.offered_load:.3f}")
    dates = f", {facts.start_date[:10]} .. {facts.end_date[:10]}" \
        if facts.start_date and facts.end_date else ""
    users = f"{facts.users} users" if facts.users else "users unknown"
    figure.suptitle(f"{facts.name}: {facts.jobs} jobs, {users}, "
                    f"{facts.machines} machines{load}{dates}")
    figure.tight_layout()
    return figure


def plot_trace_facts(trace: Trace, facts: TraceFacts,
                     path: str | os.PathLike[str]) -> Path:
    """Draw and save (atomically, :func:`~opt_sched.plot.pyplot.save_figure`)."""
    return save_figure(draw_trace_facts(trace, facts), path)
