"""Reproduce seed 004 (gang scheduling on a serverless-I/O machine).

Runs the grid of :mod:`opt_sched.gang.experiments` -- every point is one
call of :func:`~opt_sched.gang.experiments.run_point` (or
:func:`~opt_sched.gang.experiments.run_trace_point`), so a sweep spec can
call the same function -- and appends one JSON line per point to
``OUT/points.jsonl``. Points already in that file are skipped, so an
interrupted run resumes where it stopped. ``--report`` prints the markdown
tables of ``docs/reproduction-gang.md`` from the file.

Parts (``--parts``, comma-separated; default all):

- ``grid``: 4 schedulers x r in {0.5, 0.33, 0.1, mixed} x the nine guessed
  loads plus 1800 s and 3000 s x placements {random, contiguous}.
- ``low``: the same below the seed's range (600, 900, 1200 s) for r in
  {0.5, 0.33, 0.1}.
- ``cost``: Migrate-IOGS, C in {0, 10, 20, 30} at t_e = 3102 s.
- ``budget``: Migrate-IOGS, Q in {0, 16, 32, 64, 128, 256, 320} at 3102 s.
- ``seeds``: seeds 1 and 2 at 1800 s and 3102 s (r in {0.5, 0.33, 0.1}).
- ``kth``: the KTH-SP2 log (100 nodes, r drawn per job), both placements.

    PYTHONPATH=$PWD python scripts/reproduce_gang.py --out results/gang
    PYTHONPATH=$PWD python scripts/reproduce_gang.py --out results/gang --report
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from opt_sched.gang.experiments import (
    LOADS,
    MIGRATION_BUDGETS,
    MIGRATION_COSTS,
    SCHEDULERS,
    TEXT_LOADS,
    run_point,
    run_trace_point,
)

PLACEMENTS = ("random", "contiguous")
CLASSES = (0.5, 0.33, 0.1)
LOW_LOADS = (600.0, 900.0, 1200.0)
HIGHEST = 3102.0
KTH = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "swf" / \
    "KTH-SP2.swf.gz"
KTH_FALLBACK = Path("/work/shared/data/swf/KTH-SP2.swf.gz")
PARTS = ("grid", "low", "cost", "budget", "seeds", "kth")
KEEP = ("mean_wait", "mean_response", "mean_response_from_start", "mean_slowdown",
        "mean_slowdown_from_start", "local_jobs_at_start", "local_jobs_at_end",
        "migrations", "matrix_utilisation", "node_utilisation", "makespan",
        "offered_load", "sim_seconds", "slices", "jobs")


def points(parts: set[str], jobs: int) -> list[dict[str, Any]]:
    """The run_point / run_trace_point keyword sets of ``parts``."""
    out: list[dict[str, Any]] = []

    def add(part: str, **kw: Any) -> None:
        out.append({"part": part, "jobs": jobs, **kw})

    for placement in PLACEMENTS:
        if "grid" in parts:
            for r in (*CLASSES, "mixed"):
                for te in (*LOADS, *TEXT_LOADS):
                    for s in SCHEDULERS:
                        add("grid", scheduler=s, r=r, mean_runtime=te, seed=0,
                            placement=placement)
        if "low" in parts:
            for r in CLASSES:
                for te in LOW_LOADS:
                    for s in SCHEDULERS:
                        add("low", scheduler=s, r=r, mean_runtime=te, seed=0,
                            placement=placement)
        if "cost" in parts:
            for r in CLASSES:
                for c in MIGRATION_COSTS:
                    add("cost", scheduler="migrate-iogs", r=r, mean_runtime=HIGHEST,
                        seed=0, placement=placement, migration_cost=c)
        if "budget" in parts:
            for r in CLASSES:
                for q in MIGRATION_BUDGETS:
                    add("budget", scheduler="migrate-iogs", r=r, mean_runtime=HIGHEST,
                        seed=0, placement=placement, migration_budget=q)
        if "seeds" in parts:
            for seed in (1, 2):
                for r in CLASSES:
                    for te in (1800.0, HIGHEST):
                        for s in SCHEDULERS:
                            add("seeds", scheduler=s, r=r, mean_runtime=te, seed=seed,
                                placement=placement)
        if "kth" in parts:
            for s in SCHEDULERS:
                add("kth", scheduler=s, seed=0, placement=placement)
    return out


def key(point: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in point.items() if k != "part"}, sort_keys=True)


def run(point: dict[str, Any]) -> dict[str, Any]:
    kw = {k: v for k, v in point.items() if k not in ("part", "jobs")}
    if point["part"] == "kth":
        path = KTH if KTH.exists() else KTH_FALLBACK
        result = run_trace_point(path=path, validate=True, **kw)
    else:
        result = run_point(jobs=point["jobs"], validate=True, **kw)
    return {"key": key(point), **point, **{k: result[k] for k in KEEP}}


def load(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        if line.strip():
            rows.append(json.loads(line))
    return rows


# -- report ----------------------------------------------------------------------
def fmt(x: float, digits: int = 3) -> str:
    if isinstance(x, str):
        return x
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if abs(x) >= 1e5:
        return f"{x:.3g}"
    return f"{x:.{digits}g}"


def report(rows: list[dict[str, Any]]) -> str:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="results/gang", help="results folder")
    parser.add_argument("--parts", default=",".join(PARTS))
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--report", action="store_true",
                        help="print the tables from OUT/points.jsonl and exit")
    args = parser.parse_args()
    out = Path(args.out)
    path = out / "points.jsonl"
    if args.report:
        print(report(load(path)))
        return
    parts = set(args.parts.split(","))
    unknown = parts - set(PARTS)
    if unknown:
        sys.exit(f"unknown parts {sorted(unknown)}; choose from {', '.join(PARTS)}")
    out.mkdir(parents=True, exist_ok=True)
    done = {row["key"] for row in load(path)}
    todo = [p for p in points(parts, args.jobs) if key(p) not in done]
    print(f"{len(todo)} points to run ({len(done)} already in {path})", flush=True)
    began = time.perf_counter()
    counts: dict[str, int] = defaultdict(int)
    for k, point in enumerate(todo, start=1):
        row = run(point)
        with path.open("a") as handle:  # one complete line per point
            handle.write(json.dumps(row) + "\n")
        counts[point["part"]] += 1
        print(f"[{k}/{len(todo)}] {time.perf_counter() - began:7.0f}s "
              f"{point['part']} {point.get('placement')} r={point.get('r')} "
              f"te={point.get('mean_runtime')} {point['scheduler']}: slowdown "
              f"{row['mean_slowdown']:.4g}", flush=True)
    print(f"done: {dict(counts)}")


if __name__ == "__main__":
    main()
