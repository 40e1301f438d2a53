"""The tables of ``docs/reproduction-gang.md`` (seed 004), from result rows.

A *row* is one point of the reproduction grid: the keys ``part`` (``grid``,
``low``, ``cost``, ``budget``, ``seeds`` or ``kth``), ``placement``, ``r``
(the I/O intensity: 0.5, 0.33, 0.1 or ``"mixed"``; absent for ``kth``),
``mean_runtime`` (absent for ``kth``), ``scheduler``, ``seed`` (the
workload's), ``migration_cost`` (only in ``cost`` rows), ``migration_budget``
(only in ``budget`` rows), and the metrics of :data:`KEEP`
(:func:`opt_sched.gang.experiments.run_point`'s names). Both
``scripts/reproduce_gang.py`` (rows from ``points.jsonl``) and the campaign
report ``gang`` (rows from an ``opt-sched sweep`` store,
:mod:`opt_sched.studies.gang.report`) print
:func:`opt_sched.gang.claims.report_text` of their rows: the claims table
(:mod:`opt_sched.gang.claims`, which reads this module's constants one way)
and :func:`report`.

The parts (:data:`PARTS`):

- ``grid``: 4 schedulers x r in {0.5, 0.33, 0.1, mixed} x the nine guessed
  loads plus 1800 s and 3000 s x placements {random, contiguous};
- ``low``: the same below the seed's range (600, 900, 1200 s) for r in
  {0.5, 0.33, 0.1};
- ``cost``: Migrate-IOGS, C in {0, 10, 20, 30} at t_e = 3102 s;
- ``budget``: Migrate-IOGS, Q in {0, 16, 32, 64, 128, 256, 320} at 3102 s;
- ``seeds``: seeds 1 and 2 at 1800 s and 3102 s (r in {0.5, 0.33, 0.1});
- ``kth``: the KTH-SP2 log (100 nodes, r drawn per job), both placements.
"""

from __future__ import annotations

import math
from typing import Any

from .experiments import (
    LOADS,
    MIGRATION_BUDGETS,
    MIGRATION_COSTS,
    SCHEDULERS,
    TEXT_LOADS,
)

__all__ = ["CLASSES", "HIGHEST", "KEEP", "LOW_LOADS", "PARTS", "PLACEMENTS", "fmt",
           "report"]

PLACEMENTS = ("random", "contiguous")
CLASSES = (0.5, 0.33, 0.1)
LOW_LOADS = (600.0, 900.0, 1200.0)
HIGHEST = 3102.0
PARTS = ("grid", "low", "cost", "budget", "seeds", "kth")
KEEP = ("mean_wait", "mean_response", "mean_response_from_start", "mean_slowdown",
        "mean_slowdown_from_start", "local_jobs_at_start", "local_jobs_at_end",
        "migrations", "matrix_utilisation", "node_utilisation", "makespan",
        "offered_load", "sim_seconds", "slices", "jobs")
"""The metrics a row keeps (``sim_seconds``: the simulation's wall time)."""


def fmt(x: float, digits: int = 3) -> str:
    """``x`` with ``digits`` significant digits (``-`` for none or NaN)."""
    if isinstance(x, str):
        return x
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if abs(x) >= 1e5:
        return f"{x:.3g}"
    return f"{x:.{digits}g}"


def report(rows: list[dict[str, Any]]) -> str:
    """The markdown tables of ``docs/reproduction-gang.md`` ("Full tables")
    from ``rows`` (see the module docstring)."""
    by: dict[tuple, dict[str, Any]] = {}
    for row in rows:
        by[(row["part"], row.get("placement"), row.get("r"), row.get("mean_runtime"),
            row["scheduler"], row.get("seed"), row.get("migration_cost"),
            row.get("migration_budget"))] = row
    lines: list[str] = []

    def get(part, placement, r, te, s, seed=0, c=None, q=None):
        return by.get((part, placement, r, te, s, seed, c, q))

    for placement in PLACEMENTS:
        for r in (*CLASSES, "mixed"):
            lines.append(f"\n#### placement {placement}, r = {r}\n")
            lines.append("| t_e (s) | load | " + " | ".join(
                f"{s} slowdown" for s in SCHEDULERS) + " | " + " | ".join(
                f"{s} wait (s)" for s in SCHEDULERS) + " | local jobs (GS/IOGS/A/M) |")
            lines.append("|" + "---|" * (2 + 2 * len(SCHEDULERS) + 1))
            loads = sorted({*LOW_LOADS, *LOADS, *TEXT_LOADS})
            for te in loads:
                cells = [get(p, placement, r, te, s)
                         for s in SCHEDULERS for p in ("grid", "low")]
                found = {s: get("grid", placement, r, te, s) or
                         get("low", placement, r, te, s) for s in SCHEDULERS}
                if not any(cells):
                    continue
                first = next(v for v in found.values() if v)
                lines.append(
                    f"| {te:g} | {fmt(first['offered_load'])} | "
                    + " | ".join(fmt(found[s]["mean_slowdown"]) if found[s] else "-"
                                 for s in SCHEDULERS) + " | "
                    + " | ".join(fmt(found[s]["mean_wait"]) if found[s] else "-"
                                 for s in SCHEDULERS) + " | "
                    + "/".join(str(found[s]["local_jobs_at_end"]) if found[s] else "-"
                               for s in SCHEDULERS) + " |")
    for part, name, values in (("cost", "C (s)", MIGRATION_COSTS),
                               ("budget", "Q (tasks)", MIGRATION_BUDGETS)):
        lines.append(f"\n#### Migrate-IOGS at t_e = {HIGHEST:g} s: {name}\n")
        lines.append(f"| placement | r | {name} | slowdown | wait (s) | response (s) | "
                     f"local at end | migrations |")
        lines.append("|---|---|---|---|---|---|---|---|")
        for placement in PLACEMENTS:
            for r in CLASSES:
                for v in values:
                    row = get(part, placement, r, HIGHEST, "migrate-iogs",
                              c=v if part == "cost" else None,
                              q=v if part == "budget" else None)
                    if row:
                        lines.append(
                            f"| {placement} | {r} | {v:g} | "
                            f"{fmt(row['mean_slowdown'])} | {fmt(row['mean_wait'])} | "
                            f"{fmt(row['mean_response'])} | "
                            f"{row['local_jobs_at_end']} | {row['migrations']} |")
    lines.append("\n#### Seeds 0, 1, 2: mean slowdown\n")
    lines.append("| placement | r | t_e | " + " | ".join(SCHEDULERS) + " |")
    lines.append("|---|---|---|" + "---|" * len(SCHEDULERS))
    for placement in PLACEMENTS:
        for r in CLASSES:
            for te in (1800.0, HIGHEST):
                cells = []
                for s in SCHEDULERS:
                    vals = [get("grid", placement, r, te, s)]
                    vals += [get("seeds", placement, r, te, s, seed=k) for k in (1, 2)]
                    cells.append(" / ".join(fmt(v["mean_slowdown"]) if v else "-"
                                            for v in vals))
                lines.append(f"| {placement} | {r} | {te:g} | " + " | ".join(cells)
                             + " |")
    lines.append("\n#### KTH-SP2 (100 nodes, r per job in {0.1, 0.33, 0.5})\n")
    lines.append("| placement | scheduler | slowdown | slowdown (t_f - t_s) | "
                 "wait (s) | local at end | matrix util. | load |")
    lines.append("|---|---|---|---|---|---|---|---|")
    for placement in PLACEMENTS:
        for s in SCHEDULERS:
            row = by.get(("kth", placement, None, None, s, 0, None, None))
            if row:
                lines.append(f"| {placement} | {s} | {fmt(row['mean_slowdown'])} | "
                             f"{fmt(row['mean_slowdown_from_start'])} | "
                             f"{fmt(row['mean_wait'])} | {row['local_jobs_at_end']} | "
                             f"{fmt(row['matrix_utilisation'])} | "
                             f"{fmt(row['offered_load'])} |")
    lines.append("\n#### Ratios of means (> 1: the second scheduler is better)\n")
    lines.append("| placement | r | t_e | slowdown GS / IOGS | runner-up | slowdown "
                 "runner-up / Migrate | wait runner-up / Migrate | response "
                 "runner-up / Migrate | slowdown Adaptive / GS |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for placement in PLACEMENTS:
        for r in (*CLASSES, "mixed"):
            for te in sorted({*LOADS, *TEXT_LOADS}):
                rows_ = {s: get("grid", placement, r, te, s) for s in SCHEDULERS}
                if not all(rows_.values()):
                    continue
                sd = {s: rows_[s]["mean_slowdown"] for s in SCHEDULERS}
                others = {s: v for s, v in sd.items() if s != "migrate-iogs"}
                runner = min(others, key=others.get)
                mig = rows_["migrate-iogs"]

                def ratio(name: str, row=rows_[runner], mig=mig) -> str:
                    return f"{row[name] / mig[name]:.2f}"

                lines.append(
                    f"| {placement} | {r} | {te:g} | {sd['gs'] / sd['iogs']:.2f} | "
                    f"{runner} | {ratio('mean_slowdown')} | {ratio('mean_wait')} | "
                    f"{ratio('mean_response')} | "
                    f"{sd['adaptive-iogs'] / sd['gs']:.2f} |")
    return "\n".join(lines)
