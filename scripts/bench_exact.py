#!/usr/bin/env python
"""Benchmark of the exact layer (issue 4): CP-SAT on IO-SCHED, and PSPLIB j30
through the planning model (``scripts/bench_psplib.py``).

IO-SCHED instances are generated here (:func:`io_sched_instance`): ``n`` jobs
of ``m`` identical iterations on one partition (b = 1, one node each),
``w_i`` uniform in ``{10, ..., 100}``, an I/O fraction ``f_i`` uniform in
``[0.1, 0.9]`` giving a base I/O time ``w_i f_i / (1 - f_i)``, all I/O times
scaled by one factor and rounded to integers (>= 1) so that the **I/O load**

.. math:: \\ell = \\frac{\\sum_i V_i / b}{\\max_i T_i(b)}

(total I/O time over the longest contention-free job, i.e. over the shortest
schedule any one-pack start allows without I/O contention) is as close as
possible to the target. ``ell < 1``: the I/O node could serve everything
within the longest job; ``ell > 1``: the I/O node is the bottleneck. All data
are integers, so the CP-SAT grid is exact (tick 1).

Reported per instance: status, time to the proven optimum (or the limit),
validated objective, proven bound and gap.

Usage::

    python scripts/bench_exact.py --quick            # a few short runs
    python scripts/bench_exact.py --time-limit 60 --seeds 3
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Iterable, Sequence

from opt_sched import Instance, Job, Platform

SIZES = ((10, 20), (20, 50))
LOADS = (0.8, 1.0, 1.3)


def _load(io: Sequence[int], compute: Sequence[int], iterations: int) -> float:
    total_io = sum(io) * iterations
    longest = max(w + d for w, d in zip(compute, io)) * iterations
    return total_io / longest


def io_sched_instance(jobs: int, iterations: int, load: float, seed: int) -> Instance:
    """A one-partition IO-SCHED instance of I/O load ``load`` (see module doc)."""
    rng = random.Random(f"{jobs}x{iterations}/{load}/{seed}")
    compute = [rng.randint(10, 100) for _ in range(jobs)]
    fraction = [rng.uniform(0.1, 0.9) for _ in range(jobs)]
    base = [w * f / (1.0 - f) for w, f in zip(compute, fraction)]

    def scaled(c: float) -> list[int]:
        return [max(1, round(c * b)) for b in base]

    lo, hi = 1e-6, 1.0
    while _load(scaled(hi), compute, iterations) < load:
        hi *= 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if _load(scaled(mid), compute, iterations) < load:
            lo = mid
        else:
            hi = mid
    io = min((scaled(lo), scaled(hi)),
             key=lambda d: abs(_load(d, compute, iterations) - load))
    job_list = [Job.periodic(f"j{i}", 1, compute[i], io[i], iterations, partition=0)
                for i in range(jobs)]
    name = f"io{jobs}x{iterations}-l{load:g}-s{seed}"
    return Instance(name, Platform.homogeneous(1, jobs, 1.0), tuple(job_list))


def run_io_sched(sizes: Iterable[tuple[int, int]], loads: Iterable[float],
                 seeds: int, objective: str, time_limit: float,
                 options: dict) -> list[dict]:
    from opt_sched.exact import solve

    rows = []
    for jobs, iterations in sizes:
        for load in loads:
            for seed in range(seeds):
                instance = io_sched_instance(jobs, iterations, load, seed)
                result = solve(instance, "io-sched", objective, "cpsat",
                               time_limit=time_limit, seed=0, **options)
                rows.append({
                    "size": f"{jobs}x{iterations}", "load": load, "seed": seed,
                    "real_load": _load([j.io_volume[0] for j in instance.jobs],
                                       [j.compute[0] for j in instance.jobs],
                                       iterations),
                    "status": str(result.status), "seconds": result.wall_time,
                    "objective": result.objective, "bound": result.lower_bound,
                    "gap": result.gap})
                row = rows[-1]
                print(f"  {instance.name:24s} {objective:11s} {row['status']:9s} "
                      f"{row['seconds']:7.2f} s  obj {row['objective']:.6g}  "
                      f"LB {row['bound']:.6g}  gap {100 * (row['gap'] or 0):.3f} %",
                      file=sys.stderr, flush=True)
    return rows


def summarise(rows: list[dict], title: str) -> None:
    print(f"\n{title}")
    print(f"{'size':7s} {'load':>5s} {'optimal':>8s} {'med s':>7s} {'max s':>7s} "
          f"{'max gap %':>9s}")
    keys = sorted({(r["size"], r["load"]) for r in rows},
                  key=lambda k: (int(k[0].split("x")[0]), k[1]))
    for size, load in keys:
        group = [r for r in rows if r["size"] == size and r["load"] == load]
        optimal = sum(r["status"] == "optimal" for r in group)
        seconds = [r["seconds"] for r in group]
        gaps = [r["gap"] or 0.0 for r in group]
        print(f"{size:7s} {load:5g} {optimal:>4d}/{len(group):<3d} "
              f"{statistics.median(seconds):7.2f} {max(seconds):7.2f} "
              f"{100 * max(gaps):9.3f}")


def run_psplib(time_limit: float, count: int | None) -> None:
    """PSPLIB j30 through ``bench_psplib`` of ``scripts/bench_psplib.py``."""
    from pathlib import Path

    from bench_psplib import bench_psplib  # scripts/ is sys.path[0]

    root = Path(__file__).resolve().parents[2]
    directory = root / "shared" / "data" / "psplib" / "j30"
    if not directory.is_dir():
        print(f"\nPSPLIB j30: {directory} is absent")
        return
    table = bench_psplib(directory, time_limit=time_limit, limit=count, progress=False)
    proven = int(table["proven"].sum())
    matches = int(table["matches"].sum())
    print(f"\nPSPLIB j30 (planning model, CP-SAT, {time_limit:g} s limit)")
    print(f"instances {len(table)}  proven optimal {proven}  equal to optimum.csv "
          f"{matches}  median time {table['wall_time'].median():.2f} s  "
          f"max time {table['wall_time'].max():.2f} s")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--quick", action="store_true",
                        help="one seed, 10x20 only, 10 s limit, 10 PSPLIB files")
    parser.add_argument("--hints", action="store_true", help="CP-SAT solution hints")
    parser.add_argument("--subsolvers", default=None,
                        help="comma list: CP-SAT extra_subsolvers (e.g. reduced_costs)"
                             " or 'none' for the plain defaults")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--part", default="makespan,max-stretch,psplib",
                        help="comma list of parts to run")
    parser.add_argument("--psplib-count", type=int, default=None,
                        help="solve only the first N PSPLIB files (default all 480;"
                             " 10 with --quick)")
    args = parser.parse_args(argv)
    options: dict = {"hints": args.hints, "num_workers": args.workers}
    if args.subsolvers == "none":
        options["params"] = {"extra_subsolvers": []}
    elif args.subsolvers:
        options["params"] = {"extra_subsolvers": args.subsolvers.split(",")}
    sizes: tuple[tuple[int, int], ...] = SIZES
    seeds, limit = args.seeds, args.time_limit
    if args.quick:
        sizes, seeds, limit = ((10, 20),), 1, min(limit, 10.0)
    parts = set(args.part.split(","))
    started = time.perf_counter()
    if "makespan" in parts:
        rows = run_io_sched(sizes, LOADS, seeds, "makespan", limit, options)
        summarise(rows, f"IO-SCHED makespan, CP-SAT, {limit:g} s limit")
    if "max-stretch" in parts:
        rows = run_io_sched(((10, 20),), LOADS, seeds, "max-stretch", limit, options)
        summarise(rows, f"IO-SCHED max stretch 10x20, CP-SAT, {limit:g} s limit")
    if "psplib" in parts:
        count = args.psplib_count or (10 if args.quick else None)
        run_psplib(limit, count)
    print(f"\ntotal {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
