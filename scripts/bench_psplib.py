#!/usr/bin/env python3
"""PSPLIB j30 benchmark of the planning model (CP-SAT by default).

Prints the number of instances proven optimal, the number whose makespan
matches ``optimum.csv``, and the median and max wall time per instance.

    python scripts/bench_psplib.py [DIR] [--time-limit 10] [--workers 2]
        [--limit N] [--solver cpsat] [--csv out.csv] [--progress]
"""

from __future__ import annotations

import argparse
import math
import re
from pathlib import Path
from typing import Any

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "psplib" / "j30"


def bench_psplib(directory: str | Path, time_limit: float = 10.0,
                 limit: int | None = None, workers: int = 2,
                 solver: str = "cpsat", progress: bool = False) -> Any:
    """Solve the PSPLIB ``.sm`` files of ``directory`` with the planning model.

    Parameters
    ----------
    directory
        A folder of ``.sm`` files, optionally with ``optimum.csv``.
    time_limit, workers, solver
        Per-instance time limit (s), CP-SAT workers, backend.
    limit
        Solve only the first ``limit`` files (sorted by name, numbers in
        natural order).
    progress
        Print one line per instance.

    Returns
    -------
    pandas.DataFrame
        One row per instance: ``instance``, ``status`` (of the executed
        schedule), ``makespan``, ``lower_bound``, ``plan_status``,
        ``optimum`` (from ``optimum.csv``, NaN if unknown), ``proven``
        (status optimal), ``matches`` (makespan equals the known optimum),
        ``wall_time`` (s, everything :func:`opt_sched.solve` does) and
        ``solver_time`` (s, the plan solve alone).
    """
    import pandas as pd

    from opt_sched import solve
    from opt_sched.exact import SolveStatus
    from opt_sched.psplib_reader import load_optimum_csv, read_psplib

    directory = Path(directory)
    files = sorted(directory.glob("*.sm"), key=_natural_key)
    if limit is not None:
        files = files[:limit]
    csv_path = directory / "optimum.csv"
    optimum = load_optimum_csv(csv_path) if csv_path.is_file() else {}
    rows = []
    for count, path in enumerate(files, start=1):
        instance = read_psplib(path)
        result = solve(instance, "planning", solver=solver, time_limit=time_limit,
                       num_workers=workers)
        best = optimum.get(instance.name, math.nan)
        rows.append({
            "instance": instance.name, "status": str(result.status),
            "makespan": result.objective, "lower_bound": result.lower_bound,
            "plan_status": result.info["plan_status"], "optimum": best,
            "proven": result.status == SolveStatus.OPTIMAL,
            "matches": (not math.isnan(best)
                        and abs(result.objective - best) <= 1e-9 * max(1, best)),
            "wall_time": result.wall_time,
            "solver_time": result.info["plan_solve_time"]})
        if progress:
            row = rows[-1]
            print(f"[{count}/{len(files)}] {row['instance']}: {row['status']} "
                  f"{row['makespan']:g} (lb {row['lower_bound']:g}, opt {best:g}) "
                  f"{row['wall_time']:.2f} s", flush=True)
    return pd.DataFrame(rows)


def _natural_key(path: Path) -> list[Any]:
    return [int(part) if part.isdigit() else part
            for part in re.split(r"(\d+)", path.stem)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--solver", default="cpsat")
    parser.add_argument("--csv", type=Path, default=None)
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    if not args.directory.is_dir():
        print(f"{args.directory}: no such directory (PSPLIB j30 data absent)")
        return 2
    table = bench_psplib(args.directory, args.time_limit, args.limit, args.workers,
                         solver=args.solver, progress=args.progress)
    if args.csv is not None:
        table.to_csv(args.csv, index=False)
    known = table["optimum"].notna()
    print(f"instances:        {len(table)} ({args.solver}, {args.workers} workers, "
          f"{args.time_limit:g} s limit)")
    print(f"proven optimal:   {int(table['proven'].sum())}")
    print(f"match optimum.csv: {int(table['matches'].sum())} of {int(known.sum())}")
    print(f"wall time:        median {table['wall_time'].median():.3f} s, "
          f"max {table['wall_time'].max():.2f} s, total "
          f"{table['wall_time'].sum():.1f} s")
    unproven = table[~table["proven"]]
    if len(unproven):
        print("not proven:       " + ", ".join(
            f"{r.instance} ({r.makespan:g} vs lb {r.lower_bound:g})"
            for r in unproven.itertuples()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
