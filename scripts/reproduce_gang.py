"""Reproduce seed 004 (gang scheduling on a serverless-I/O machine).

Runs the grid of :mod:`opt_sched.gang.experiments` -- every point is one
call of :func:`~opt_sched.gang.experiments.run_point` (or
:func:`~opt_sched.gang.experiments.run_trace_point`), so a sweep spec can
call the same function -- and appends one JSON line per point to
``OUT/points.jsonl``. Points already in that file are skipped, so an
interrupted run resumes where it stopped. ``--report`` prints the claims
table and the markdown tables of ``docs/reproduction-gang.md`` from the file
(:func:`opt_sched.gang.claims.report_text`).

The same study runs as a campaign, ``opt-sched sweep campaigns/gang.toml
--out DIR`` (its report ``gang`` writes the same tables and figures); this
script stays as the campaign-free path.

Parts (``--parts``, comma-separated; default all): see
:mod:`opt_sched.gang.report` (``grid``, ``low``, ``cost``, ``budget``,
``seeds``, ``kth``).

    PYTHONPATH=$PWD python scripts/reproduce_gang.py --out results/gang
    PYTHONPATH=$PWD python scripts/reproduce_gang.py --out results/gang --report
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from opt_sched.gang.claims import report_text
from opt_sched.gang.experiments import (
    LOADS,
    MIGRATION_BUDGETS,
    MIGRATION_COSTS,
    SCHEDULERS,
    TEXT_LOADS,
    kth_trace_path,
    run_point,
    run_trace_point,
)
from opt_sched.gang.report import (
    CLASSES,
    HIGHEST,
    KEEP,
    LOW_LOADS,
    PARTS,
    PLACEMENTS,
)


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
        result = run_trace_point(path=kth_trace_path(), validate=True, **kw)
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
        print(report_text(load(path)))
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
