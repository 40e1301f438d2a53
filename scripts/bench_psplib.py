#!/usr/bin/env python3
"""PSPLIB j30 benchmark of the planning model (CP-SAT by default).

Prints the number of instances proven optimal, the number whose makespan
matches ``optimum.csv``, and the median and max wall time per instance.

    python scripts/bench_psplib.py [DIR] [--time-limit 10] [--workers 2]
        [--limit N] [--solver cpsat] [--csv out.csv] [--progress]
"""

from __future__ import annotations

import argparse
from pathlib import Path

DEFAULT_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "psplib" / "j30"


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
    from opt_sched.exact.planning import bench_psplib

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
