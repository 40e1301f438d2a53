"""The seed 004 report (gang scheduling on a serverless-I/O machine).

Reads the tasks of the gang methods (``gs``, ``iogs``, ``adaptive-iogs``,
``migrate-iogs``, :mod:`opt_sched.methods.gang`) on the generators ``jann``
and ``gang-kth`` and turns each into a row of :mod:`opt_sched.gang.report`:
the spec's *group name is the part* (``grid``, ``low``, ``cost``,
``budget``, ``seeds``, ``kth``; ``campaigns/gang.toml`` names its groups so),
``r``, ``mean_runtime``, ``placement`` and ``seed`` are the generator's
parameters, ``migration_cost`` / ``migration_budget`` the method's ``C`` /
``Q`` in a ``cost`` / ``budget`` group, and ``sim_seconds`` the task's
``wall_time``. A task listed in two groups (Migrate-IOGS at ``C = 20`` is in
``grid`` and in ``cost``) runs once and gives a row to each.

Files:

- ``gang.md`` -- :func:`opt_sched.gang.claims.claims_table` (the seed's
  claims beside our figures) and :func:`opt_sched.gang.report.report` (the
  "Full tables" of ``docs/reproduction-gang.md``) of the rows: the same
  text ``scripts/reproduce_gang.py --report`` prints for the same points;
- ``gang.csv`` -- the rows;
- ``gang_slowdown_<placement>.png`` -- mean slowdown against the mean
  all-local time ``t_e``, one panel per I/O intensity ``r``, one line per
  scheduler (groups ``grid`` and ``low``, log scale).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from opt_sched.files import atomic_write_csv as write_csv
from opt_sched.files import atomic_write_text
from opt_sched.plot.pyplot import pyplot, save_figure

__all__ = ["GENERATORS", "gang_rows", "plot_slowdown", "write_report"]

GENERATORS = ("jann", "gang-kth")
"""The campaign generators of gang workloads."""


def gang_rows(spec: Any, rows: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The :mod:`opt_sched.gang.report` rows of the finished gang tasks of
    ``spec`` (see the module docstring), in spec order."""
    from opt_sched import methods
    from opt_sched.gang.experiments import SCHEDULERS
    from opt_sched.gang.report import KEEP

    out = []
    for task in spec.tasks:
        stored = rows.get(task.key)
        if (stored is None or stored["status"] != "ok"
                or task.source.generator not in GENERATORS):
            continue
        method = methods.method(task.method)
        if method.name not in SCHEDULERS:
            continue
        params = dict(task.source.params)
        row: dict[str, Any] = {"part": task.group, "placement": params["placement"],
                               "scheduler": method.name, "seed": params["seed"]}
        if task.source.generator == "jann":
            row["r"] = params["io_intensity"]
            row["mean_runtime"] = params["mean_runtime"]
        if task.group == "cost":
            row["migration_cost"] = method.arg("C")
        if task.group == "budget":
            row["migration_budget"] = method.arg("Q")
        metrics = stored["metrics"]
        row.update({k: metrics.get(k) for k in KEEP if k != "sim_seconds"})
        row["sim_seconds"] = metrics.get("wall_time")
        out.append(row)
    return out


def plot_slowdown(table: pd.DataFrame, placement: str, target: Path) -> Path:
    """Mean slowdown against ``t_e`` for ``placement``: one panel per ``r``,
    one line per scheduler (PNG, atomic)."""
    plt = pyplot()

    from opt_sched.gang.experiments import SCHEDULERS

    data = table[(table["placement"] == placement)
                 & table["part"].isin(("grid", "low"))]
    intensities = list(dict.fromkeys(data["r"].tolist()))
    fig, axes = plt.subplots(1, max(1, len(intensities)), sharey=True,
                             figsize=(3.6 * max(1, len(intensities)), 3.6),
                             squeeze=False)
    for ax, r in zip(axes[0], intensities):
        panel = data[data["r"] == r]
        for scheduler in SCHEDULERS:
            line = panel[panel["scheduler"] == scheduler].sort_values("mean_runtime")
            if len(line):
                ax.plot(line["mean_runtime"], line["mean_slowdown"], marker="o", ms=3,
                        label=scheduler)
        ax.set_title(f"r = {r}")
        ax.set_xlabel("mean all-local time t_e (s)")
        ax.set_yscale("log")
    axes[0][0].set_ylabel("mean slowdown")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"seed 004: gang schedulers, {placement} file nodes", fontsize=9)
    fig.tight_layout()
    return save_figure(fig, target, format="png")


def write_report(spec: Any, rows: Mapping[str, Any], out: Path) -> list[Path]:
    """``gang.md``, ``gang.csv`` and the slowdown figures into ``out``."""
    from opt_sched.gang.claims import report_text
    from opt_sched.gang.report import PLACEMENTS

    found = gang_rows(spec, rows)
    written = [write_csv(pd.DataFrame(found), out / "gang.csv")]
    text = (f"# {spec.name}: seed 004\n\nFrom `opt-sched sweep` ({len(found)} "
            f"rows; regenerate with `--resume`).\n\n" + report_text(found))
    atomic_write_text(out / "gang.md", text)
    written.append(out / "gang.md")
    table = pd.DataFrame(found)
    if len(table) and "mean_runtime" in table:
        for placement in PLACEMENTS:
            if ((table["placement"] == placement)
                    & table["part"].isin(("grid", "low"))).any():
                written.append(plot_slowdown(table, placement,
                                             out / f"gang_slowdown_{placement}.png"))
    return written
