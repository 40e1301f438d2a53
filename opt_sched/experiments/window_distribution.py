"""The distribution of the window brackets over many windows of a trace:
how far a policy is from the best clairvoyant schedule, window after window
(issue 27; ``models/window-gap.md``).

One window and objective give a bracket (:func:`~.window.window_gap`): the
policy is at least ``X`` (from the best schedule found) and at most ``Y``
(from the proven lower bound) above the optimum, as fractions, with width
``Y - X``. Over many windows, per scheduler and objective, this module
gives the median and the 90th percentile of ``X``, ``Y`` and the width
(quantiles with linear interpolation between order statistics, numpy's
default), as a table and as a plot of every window's bracket.

The brackets come from ``scripts/window_gaps.py --json`` reports
(:func:`brackets_from_reports`) or from the rows of a campaign of the
``window-gap`` experiment (:func:`brackets_from_rows`); the campaign report
``window-gap`` (:mod:`opt_sched.campaign.window_report`) writes all three.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .window import WINDOW_OBJECTIVES

__all__ = ["Bracket", "Spread", "brackets_from_reports", "brackets_from_rows",
           "distribution", "distribution_markdown", "plot_brackets", "quantile"]

FIELDS = ("online", "best_found", "lower_bound", "at_least", "at_most", "width")
"""The numbers of one objective's bracket, as a window report names them."""


@dataclass(frozen=True)
class Bracket:
    """One window's bracket of one objective under one scheduler: the
    online value, the best schedule found, the lower bound, and ``at_least``
    (X), ``at_most`` (Y), ``width`` (Y - X) as fractions (NaN: unknown)."""

    scheduler: str
    start: int
    objective: str
    online: float
    best_found: float
    lower_bound: float
    at_least: float
    at_most: float
    width: float

    @property
    def known(self) -> bool:
        """Both sides of the bracket are numbers."""
        return not (math.isnan(self.at_least) or math.isnan(self.at_most))


@dataclass(frozen=True)
class Spread:
    """Median and 90th percentile of X, Y and the width over ``windows``
    windows (those whose bracket is known)."""

    scheduler: str
    objective: str
    windows: int
    x_median: float
    x_p90: float
    y_median: float
    y_p90: float
    width_median: float
    width_p90: float


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)


def brackets_from_reports(reports: Iterable[Mapping[str, Any]]) -> list[Bracket]:
    """The brackets of :func:`~.window.window_gap` reports, each with its
    ``scheduler`` added (``scripts/window_gaps.py --json``)."""
    out = []
    for report in reports:
        for objective, item in report["objectives"].items():
            out.append(Bracket(report.get("scheduler", "?"),
                               int(report["window"]["start"]), objective,
                               *(_number(item.get(field)) for field in FIELDS)))
    return out


def brackets_from_rows(rows: Mapping[str, Mapping[str, Any]]) -> list[Bracket]:
    """The brackets of a campaign's finished ``window-gap`` tasks
    (:meth:`opt_sched.campaign.store.ResultStore.rows`; the row of a task
    is :func:`~.window_task.window_task`'s), in scheduler and start order.
    Unfinished and failed tasks, and other experiments, give none."""
    out = []
    for row in rows.values():
        instance = row["task"].get("instance", {})
        if row["status"] != "ok" or instance.get("experiment") != "window-gap":
            continue
        params, metrics = instance["params"], row["metrics"]
        for objective in WINDOW_OBJECTIVES:
            key = objective.replace("-", "_")
            if f"{key}_width" not in metrics:
                continue
            out.append(Bracket(params["scheduler"], int(params["start"]), objective,
                               *(_number(metrics.get(f"{key}_{field}"))
                                 for field in FIELDS)))
    return sorted(out, key=lambda b: (b.scheduler, b.start,
                                      WINDOW_OBJECTIVES.index(b.objective)))


def quantile(values: list[float], q: float) -> float:
    """The ``q`` quantile with linear interpolation between order statistics
    (numpy's default); NaN for no values."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _of(brackets: list[Bracket], scheduler: str, objective: str) -> list[Bracket]:
    return [b for b in brackets if (b.scheduler, b.objective) == (scheduler, objective)]


def distribution(brackets: Iterable[Bracket]) -> list[Spread]:
    """Per scheduler (in first-seen order) and objective (in
    :data:`~.window.WINDOW_OBJECTIVES` order, then others): the spread of
    the known brackets. A negative width (rounding: X a hair above Y) counts
    as 0."""
    known = [b for b in brackets if b.known]
    schedulers = list(dict.fromkeys(b.scheduler for b in known))
    objectives = list(dict.fromkeys(
        [o for o in WINDOW_OBJECTIVES if any(b.objective == o for b in known)]
        + [b.objective for b in known]))
    out = []
    for scheduler in schedulers:
        for objective in objectives:
            mine = _of(known, scheduler, objective)
            if not mine:
                continue
            x = [b.at_least for b in mine]
            y = [b.at_most for b in mine]
            width = [max(0.0, b.width) for b in mine]
            out.append(Spread(scheduler, objective, len(mine),
                              quantile(x, 0.5), quantile(x, 0.9),
                              quantile(y, 0.5), quantile(y, 0.9),
                              quantile(width, 0.5), quantile(width, 0.9)))
    return out


def _pct(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{100 * x:,.1f} %"


def _points(x: float) -> str:
    return "n/a" if math.isnan(x) else f"{100 * x:,.1f}"


def distribution_markdown(spreads: Iterable[Spread]) -> str:
    """The spread as a Markdown table: X and Y in percent above the optimum,
    the width in points."""
    lines = ["| scheduler | objective | windows | X median | X p90 | Y median | Y p90 "
             "| width median (points) | width p90 (points) |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for s in spreads:
        lines.append(f"| {s.scheduler} | {s.objective} | {s.windows} | "
                     f"{_pct(s.x_median)} | {_pct(s.x_p90)} | {_pct(s.y_median)} | "
                     f"{_pct(s.y_p90)} | {_points(s.width_median)} | "
                     f"{_points(s.width_p90)} |")
    return "\n".join(lines) + "\n"


FLOOR = 1e-3
"""The plot's floor (0.1 %): a distance of 0 is drawn there (log scale)."""


def plot_brackets(brackets: Iterable[Bracket], path: str | Path) -> Path:
    """One panel per objective, windows in trace order: a bar from X to Y
    per window (log scale, zero drawn at :data:`FLOOR`), X and Y marked,
    their medians dotted; one colour per scheduler. Written atomically."""
    from ..plot.pyplot import pyplot, save_figure

    known = [b for b in brackets if b.known]
    objectives = [o for o in WINDOW_OBJECTIVES if any(b.objective == o for b in known)]
    schedulers = list(dict.fromkeys(b.scheduler for b in known))
    plt = pyplot()
    fig, axes = plt.subplots(max(1, len(objectives)), 1,
                             figsize=(10, 3 * max(1, len(objectives))),
                             sharex=True, squeeze=False)
    colours = ("tab:blue", "tab:orange", "tab:purple", "tab:brown")
    for ax, objective in zip(axes[:, 0], objectives):
        for k, scheduler in enumerate(schedulers):
            mine = _of(known, scheduler, objective)
            if not mine:
                continue
            xs = [b.start for b in mine]
            lo = [max(FLOOR, b.at_least) for b in mine]
            hi = [max(FLOOR, b.at_most) for b in mine]
            colour = colours[k % len(colours)]
            ax.vlines(xs, lo, hi, color=colour, lw=2, alpha=0.5,
                      label=f"{scheduler}: at least .. at most")
            ax.scatter(xs, lo, s=8, color="tab:green")
            ax.scatter(xs, hi, s=8, color="tab:red")
            ax.axhline(max(FLOOR, quantile([b.at_least for b in mine], 0.5)),
                       color="tab:green", ls=":", lw=1)
            ax.axhline(max(FLOOR, quantile([b.at_most for b in mine], 0.5)),
                       color="tab:red", ls=":", lw=1)
        ax.set_yscale("log")
        ax.set_ylabel(f"{objective}\nabove the optimum\n(1 = 100 %)")
        ax.legend(loc="upper right", fontsize=8)
    axes[-1, 0].set_xlabel("window start (job index in the trace); green: at least "
                           "(best schedule found), red: at most (lower bound)")
    fig.suptitle("Window brackets: how far the policy is from the best clairvoyant "
                 "schedule (dotted: medians)")
    fig.tight_layout()
    return save_figure(fig, path)
