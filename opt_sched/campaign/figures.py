"""The figures a spec asks for (``[[outputs.figures]]``), as PNG files.

A figure plots column ``y`` of ``tasks.csv`` against column ``x``, one
series per value of ``by`` (default: the method), over the successful
tasks of the chosen groups. ``kind = "line"`` draws ``agg(y)`` per ``x``
(mean, median, geomean, ...); ``kind = "scatter"`` draws every task.
Each PNG is written atomically (matplotlib, Agg backend).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..plot.pyplot import pyplot, save_figure
from .spec import FigureSpec, Spec
from .summary import aggregate_function, check_columns

__all__ = ["plot_figure", "write_figures"]


def plot_figure(tasks: pd.DataFrame, figure: FigureSpec, target: Path) -> Path:
    """Draw ``figure`` from ``tasks`` into ``target`` (PNG, atomic).

    Raises
    ------
    SpecError
        ``x``, ``y`` or ``by`` is not a column of the tasks table.
    """
    plt = pyplot()

    where = f"outputs.figures[{figure.name}]"
    check_columns(f"{where}.x", tasks, [figure.x])
    check_columns(f"{where}.y", tasks, [figure.y])
    check_columns(f"{where}.by", tasks, [figure.by])
    data = tasks[tasks["status"] == "ok"]
    if figure.groups:
        data = data[data["group"].isin(figure.groups)]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, g in data.groupby(figure.by, sort=False):
        if figure.kind == "scatter":
            ax.scatter(g[figure.x], g[figure.y], s=9, label=str(label))
        else:
            line = g.groupby(figure.x)[figure.y].agg(aggregate_function(figure.agg))
            ax.plot(line.index, line.to_numpy(), marker="o", ms=3, label=str(label))
    ax.set_xlabel(figure.x)
    ax.set_ylabel(figure.y if figure.kind == "scatter" else f"{figure.agg} {figure.y}")
    if figure.logx:
        ax.set_xscale("log")
    if figure.logy:
        ax.set_yscale("log")
    ax.set_title(figure.name)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return save_figure(fig, target, format="png")


def write_figures(spec: Spec, tasks: pd.DataFrame, out: Path) -> list[Path]:
    """Every figure of the spec into ``out/<name>.png``."""
    return [plot_figure(tasks, f, out / f"{f.name}.png") for f in spec.figures]
