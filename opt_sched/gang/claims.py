"""The seed's claims beside our figures, computed from result rows.

:func:`claims_table` prints one markdown row per claim of seed 004 that the
rows can speak to (the numbering of ``docs/reproduction-gang.md``), with the
figures the claim hinges on for each file-node placement. It states figures,
not verdicts: whether "about 100 % better" is met by 1.67 is for the
discussion in the doc. Rows are those of :mod:`opt_sched.gang.report`.

Ratios are of means, runner-up (or other) over the scheduler the claim
favours: ``1.67`` = "67 % better". The seed's range of loads is
:data:`~opt_sched.gang.experiments.LOADS` plus
:data:`~opt_sched.gang.experiments.TEXT_LOADS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .experiments import (
    LOADS,
    MIGRATION_BUDGETS,
    MIGRATION_COSTS,
    SCHEDULERS,
    TEXT_LOADS,
)
from .report import HIGHEST, PLACEMENTS, fmt, report

__all__ = ["CLAIMS", "claims_table", "report_text"]

RANGE = tuple(sorted({*LOADS, *TEXT_LOADS}))
SHORT = {"gs": "GS", "iogs": "IOGS", "adaptive-iogs": "Adaptive",
         "migrate-iogs": "Migrate"}

Lookup = Callable[..., "dict[str, Any] | None"]


def _index(rows: list[dict[str, Any]]) -> Lookup:
    by: dict[tuple, dict[str, Any]] = {}
    for row in rows:
        by[(row["part"], row.get("placement"), row.get("r"), row.get("mean_runtime"),
            row["scheduler"], row.get("seed"), row.get("migration_cost"),
            row.get("migration_budget"))] = row

    def get(part: str, placement: str, r: Any, te: Any, s: str, seed: int = 0,
            c: Any = None, q: Any = None) -> dict[str, Any] | None:
        return by.get((part, placement, r, te, s, seed, c, q))

    return get


def _grid(get: Lookup, placement: str, r: Any, te: float) -> dict[str, dict] | None:
    found = {s: get("grid", placement, r, te, s) for s in SCHEDULERS}
    return found if all(found.values()) else None


def _ratios(get: Lookup, placement: str, r: Any, num: str, den: str,
            metric: str = "mean_slowdown", loads: tuple = RANGE) -> str:
    out = []
    for te in loads:
        g = _grid(get, placement, r, te)
        if g:
            out.append(f"{te:g}: {g[num][metric] / g[den][metric]:.2f}")
    return ", ".join(out) or "-"


def _wins(get: Lookup, placement: str, r: Any, better: str, other: str) -> str:
    points = [g for te in RANGE if (g := _grid(get, placement, r, te))]
    wins = sum(g[better]["mean_slowdown"] < g[other]["mean_slowdown"] for g in points)
    return f"{SHORT[better]} better at {wins} of {len(points)} loads"


def _runner_up(get: Lookup, placement: str, r: Any, loads: tuple) -> str:
    out = []
    for te in loads:
        g = _grid(get, placement, r, te)
        if not g:
            continue
        others = {s: g[s]["mean_slowdown"] for s in SCHEDULERS if s != "migrate-iogs"}
        runner = min(others, key=others.get)
        mig = g["migrate-iogs"]
        ratios = "/".join(f"{g[runner][m] / mig[m]:.2f}" for m in
                          ("mean_slowdown", "mean_wait", "mean_response"))
        out.append(f"{te:g}: {SHORT[runner]} {ratios}")
    return "; ".join(out) or "-"


def _local(get: Lookup, placement: str, te: float, names: tuple[str, ...],
           seeds: tuple[int, ...] = (0,)) -> str:
    out = []
    for s in names:
        values = []
        for seed in seeds:
            row = get("grid" if seed == 0 else "seeds", placement, 0.5, te, s, seed)
            values.append(str(row["local_jobs_at_end"]) if row else "-")
        out.append(f"{SHORT[s]} {' / '.join(values)}")
    return ", ".join(out)


def _best(get: Lookup, placement: str, r: Any, s: str) -> str:
    points = [g for te in RANGE if (g := _grid(get, placement, r, te))]
    best = sum(min(g, key=lambda k: g[k]["mean_slowdown"]) == s for g in points)
    return f"{SHORT[s]} best at {best} of {len(points)} loads"


def _sweep(get: Lookup, placement: str, part: str, values: tuple) -> str:
    out = []
    for r in (0.5, 0.33, 0.1):
        cells = []
        for v in values:
            row = get(part, placement, r, HIGHEST, "migrate-iogs",
                      c=v if part == "cost" else None,
                      q=v if part == "budget" else None)
            cells.append(fmt(row["mean_slowdown"]) if row else "-")
        out.append(f"r={r}: {' / '.join(cells)}")
    return "; ".join(out)


def _kth(get: Lookup, placement: str) -> str:
    cells = []
    for s in SCHEDULERS:
        row = get("kth", placement, None, None, s)
        cells.append(f"{SHORT[s]} {fmt(row['mean_slowdown'])}" if row else
                     f"{SHORT[s]} -")
    return ", ".join(cells)


CLAIMS: tuple[tuple[str, str, Callable[[Lookup, str], str]], ...] = (
    ("1", "r = 0.5: IOGS beats GS on slowdown, > 100 % (slowdown GS / IOGS)",
     lambda g, p: _ratios(g, p, 0.5, "gs", "iogs")),
    ("3", "r = 0.33 and 0.1: GS better than IOGS",
     lambda g, p: f"r=0.33: {_wins(g, p, 0.33, 'gs', 'iogs')}; "
                  f"r=0.1: {_wins(g, p, 0.1, 'gs', 'iogs')}"),
    ("4", "t_e = 1800 s, r = 0.5: local jobs Adaptive 9101, GS 20, IOGS 10,000 "
          "(seeds 0 / 1 / 2)",
     lambda g, p: _local(g, p, 1800.0, ("adaptive-iogs", "gs", "iogs"), (0, 1, 2))),
    ("5", "t_e = 3000 s: local jobs Adaptive 831, GS 5",
     lambda g, p: _local(g, p, 3000.0, ("adaptive-iogs", "gs"))),
    ("7", "r = 0.5, t_e >= 2500 s: Migrate about 100 % better than the runner-up "
          "(runner-up / Migrate: slowdown / wait / response)",
     lambda g, p: _runner_up(g, p, 0.5, tuple(t for t in RANGE if t >= 2500))),
    ("8", "t_e = 3000 s: local jobs Migrate 6524, Adaptive 831",
     lambda g, p: _local(g, p, 3000.0, ("migrate-iogs", "adaptive-iogs"))),
    ("9", "r = 0.33: Migrate at least 60 % better than the runner-up "
          "(slowdown / wait / response)",
     lambda g, p: _runner_up(g, p, 0.33, RANGE)),
    ("10", "r = 0.1: Migrate not as good as GS (slowdown GS / Migrate)",
     lambda g, p: _ratios(g, p, 0.1, "gs", "migrate-iogs")),
    ("11", f"C in {{{', '.join(f'{c:g}' for c in MIGRATION_COSTS)}}} s: negligible "
           f"(Migrate slowdown at t_e = {HIGHEST:g} s)",
     lambda g, p: _sweep(g, p, "cost", MIGRATION_COSTS)),
    ("12", f"Q in {{{', '.join(str(q) for q in MIGRATION_BUDGETS)}}}: most of the "
           f"gain at Q = 64 (Migrate slowdown at t_e = {HIGHEST:g} s)",
     lambda g, p: _sweep(g, p, "budget", MIGRATION_BUDGETS)),
    ("13", "mixed workload: Migrate outperforms the other three",
     lambda g, p: _best(g, p, "mixed", "migrate-iogs")),
    ("14", "(ours) KTH-SP2, mean slowdown", _kth),
)
"""(number, the claim, figures(lookup, placement))."""


def claims_table(rows: list[dict[str, Any]]) -> str:
    """The markdown table: the seed's claim and our figures per placement."""
    get = _index(rows)
    lines = ["| # | seed's claim (our figures) | " +
             " | ".join(f"ours, {p}" for p in reversed(PLACEMENTS)) + " |",
             "|---|---|---|---|"]
    for number, claim, figures in CLAIMS:
        cells = [figures(get, p) for p in reversed(PLACEMENTS)]
        lines.append(f"| {number} | {claim} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report_text(rows: list[dict[str, Any]]) -> str:
    """The claims table (:func:`claims_table`) and the full tables
    (:func:`opt_sched.gang.report.report`) of ``rows``, as one markdown
    text."""
    return ("### Claims: the seed's and our figures\n\n" + claims_table(rows)
            + "\n\n### Full tables\n" + report(rows) + "\n")
