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

A second generator (issue 13, :func:`share_instance`) measures the load as
the **sum of I/O shares** ``sum_i d_i / (w_i + d_i)`` instead.

Reported per instance: status, time to the proven optimum (or the limit),
validated objective, proven bound and gap.

Usage::

    python scripts/bench_exact.py --quick            # a few short runs
    python scripts/bench_exact.py --time-limit 60 --seeds 3
    python scripts/bench_exact.py --method portfolio --part makespan-10x20
    python scripts/bench_exact.py --method portfolio --part makespan-100x100
    python scripts/bench_exact.py --method portfolio --part max-stretch
    python scripts/bench_exact.py --method portfolio --part max-stretch --cpsat-leg 0.3

``--method portfolio`` runs :func:`opt_sched.exact.io_sched.portfolio.solve_portfolio`
(bounds, list-policy and cyclic seeds, CP-SAT or LNS, deadline questions);
the default ``cpsat`` runs ``opt_sched.solve`` as before.
"""

from __future__ import annotations

import argparse
import os
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


def share_instance(jobs: int, iterations: int, load: float, seed: int) -> Instance:
    """The second generator (issue 13): integer data, **I/O share** load.

    ``w_i`` uniform in ``{10, ..., 100}``; a share ``f_i`` uniform in
    ``[0.1, 0.9]``, all shares scaled by one factor so that they sum to the
    load, ``s_i = load f_i / sum f``; the I/O time is the integer
    ``d_i = max(1, round(w_i s_i / (1 - s_i)))``, so that job ``i`` alone
    spends the share ``d_i / (w_i + d_i) ~ s_i`` of its time on the I/O node,
    and ``sum_i d_i / (w_i + d_i)`` (the steady-state utilisation of the I/O
    node when every job runs contention-free) is the load, up to rounding.
    """
    rng = random.Random(f"share/{jobs}x{iterations}/{load}/{seed}")
    compute = [rng.randint(10, 100) for _ in range(jobs)]
    fraction = [rng.uniform(0.1, 0.9) for _ in range(jobs)]
    total = sum(fraction)
    share = [load * f / total for f in fraction]
    io = [max(1, round(w * s / (1.0 - s))) for w, s in zip(compute, share)]
    job_list = [Job.periodic(f"j{i}", 1, compute[i], io[i], iterations, partition=0)
                for i in range(jobs)]
    name = f"sh{jobs}x{iterations}-l{load:g}-s{seed}"
    return Instance(name, Platform.homogeneous(1, jobs, 1.0), tuple(job_list))


GENERATORS = {"longest": io_sched_instance, "share": share_instance}
"""``longest``: load over the longest job (:func:`io_sched_instance`);
``share``: load as the sum of I/O shares (:func:`share_instance`)."""


def solve_one(instance: Instance, objective: str, method: str, time_limit: float,
              options: dict):
    """``method`` ``cpsat``: :func:`opt_sched.exact.solve` (the CP-SAT model);
    ``portfolio``: :func:`opt_sched.exact.io_sched.portfolio.solve_portfolio`
    (``options``: ``num_workers`` and its own options, e.g. ``cpsat_leg``)."""
    if method == "portfolio":
        from opt_sched.exact.io_sched.portfolio import solve_portfolio

        extra = {k: v for k, v in options.items() if k != "num_workers"}
        return solve_portfolio(instance, objective, time_limit, seed=0,
                               num_workers=options.get("num_workers", 2), **extra)
    from opt_sched.exact import solve

    return solve(instance, "io-sched", objective, "cpsat", time_limit=time_limit,
                 seed=0, **options)


def run_io_sched(sizes: Iterable[tuple[int, int]], loads: Iterable[float],
                 seeds: int, objective: str, time_limit: float,
                 options: dict, generators: Sequence[str] = ("longest",),
                 method: str = "cpsat") -> list[dict]:
    rows = []
    for generator in generators:
        make = GENERATORS[generator]
        for jobs, iterations in sizes:
            for load in loads:
                for seed in range(seeds):
                    instance = make(jobs, iterations, load, seed)
                    result = solve_one(instance, objective, method, time_limit,
                                       options)
                    rows.append({
                        "generator": generator,
                        "size": f"{jobs}x{iterations}", "load": load, "seed": seed,
                        "real_load": _load([j.io_volume[0] for j in instance.jobs],
                                           [j.compute[0] for j in instance.jobs],
                                           iterations),
                        "status": str(result.status), "seconds": result.wall_time,
                        "objective": result.objective, "bound": result.lower_bound,
                        "gap": result.gap, "loadavg": os.getloadavg()[0]})
                    row = rows[-1]
                    row["leg"] = _leg(result)
                    print(f"  {instance.name:24s} {objective:11s} {row['status']:9s} "
                          f"{row['seconds']:7.2f} s  obj {row['objective']:.6g}  "
                          f"LB {row['bound']:.6g}  gap {100 * (row['gap'] or 0):.4f} %"
                          f"  (load avg {row['loadavg']:.1f}){row['leg']}",
                          file=sys.stderr, flush=True)
    return rows


def _leg(result) -> str:
    """The portfolio's max-stretch CP-SAT leg (``models/lns.md``, "Best of
    both"): the portfolio's value and bound before it, and the leg's own
    value and bound; empty when no leg ran."""
    phases = result.info.get("phases") or [{}]
    leg = phases[0].get("cpsat_leg") if phases else None
    if not leg:
        return ""
    return (f"  [leg: before {leg['start_value']:.7g} / {leg['start_bound']:.7g}, "
            f"CP-SAT {leg['value']:.7g} / {leg['bound']:.7g} in "
            f"{leg['seconds']:.1f} s]")


def summarise(rows: list[dict], title: str) -> None:
    print(f"\n{title}")
    print(f"{'generator':9s} {'size':7s} {'load':>5s} {'optimal':>8s} {'med s':>7s} "
          f"{'max s':>7s} {'max gap %':>9s} {'load avg':>8s}")
    keys = sorted({(r["generator"], r["size"], r["load"]) for r in rows},
                  key=lambda k: (k[0], int(k[1].split("x")[0]), k[2]))
    for generator, size, load in keys:
        group = [r for r in rows if r["size"] == size and r["load"] == load
                 and r["generator"] == generator]
        optimal = sum(r["status"] == "optimal" for r in group)
        seconds = [r["seconds"] for r in group]
        gaps = [r["gap"] or 0.0 for r in group]
        loadavg = statistics.mean(r["loadavg"] for r in group)
        print(f"{generator:9s} {size:7s} {load:5g} {optimal:>4d}/{len(group):<3d} "
              f"{statistics.median(seconds):7.2f} {max(seconds):7.2f} "
              f"{100 * max(gaps):9.4f} {loadavg:8.1f}")


def print_rows(rows: list[dict]) -> None:
    """Every instance: status, seconds, value, bound, gap, load average."""
    for r in rows:
        print(f"  {r['generator']:8s} {r['size']:7s} load {r['load']:<4g} seed "
              f"{r['seed']}  {r['status']:9s} {r['seconds']:6.2f} s  "
              f"obj {r['objective']:.7g}  LB {r['bound']:.7g}  "
              f"gap {100 * (r['gap'] or 0):.4f} %  (load avg {r['loadavg']:.1f})"
              f"{r.get('leg', '')}")


def run_tucan(time_limit: float, workers: int) -> None:
    """Seed 003's own workload (Table 1, ``tucan_workload()``, one I/O node):
    the eight list policies, the cyclic steady state and the portfolio, each
    validated, with the gap of every value to the best proven bound."""
    from opt_sched.exact.io_sched.cyclic import cyclic_schedule
    from opt_sched.exact.io_sched.portfolio import solve_portfolio
    from opt_sched.simulation import POLICY_NAMES, OnePackPlan, simulate
    from opt_sched.validation import assert_feasible
    from opt_sched.workloads.tucan import tucan_workload

    instance = tucan_workload()
    for objective in ("makespan", "max-stretch"):
        result = solve_portfolio(instance, objective, time_limit,
                                 num_workers=workers)
        bound = result.lower_bound
        rows = []
        for policy in POLICY_NAMES:
            schedule = simulate(instance, OnePackPlan(), policy=policy)
            assert_feasible(instance, schedule)
            rows.append((policy, _value(instance, schedule, objective)))
        cyclic, info = cyclic_schedule(instance, objective, min(10.0, time_limit),
                                       num_workers=workers)
        assert_feasible(instance, cyclic)
        node = info["nodes"][0]
        rows.append((f"cyclic (m={node['multiplicity']}, period {node['period']:g},"
                     f" {node['period_status']})", _value(instance, cyclic, objective)))
        rows.append((f"portfolio {time_limit:g} s ({result.status})",
                     result.objective))
        print(f"\nTucan (seed 003 Table 1), {objective}: best proven lower bound "
              f"{bound:.6g} (load avg {os.getloadavg()[0]:.1f})")
        print(f"{'method':48s} {'value':>10s} {'gap to bound %':>15s}")
        for name, value in rows:
            print(f"{name:48s} {value:10.6g} {100 * (value - bound) / bound:15.3f}")


def _value(instance: Instance, schedule, objective: str) -> float:
    return (schedule.makespan(instance) if objective == "makespan"
            else schedule.max_stretch(instance))


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
    parser.add_argument("--seeds", type=int, default=None,
                        help="seeds per load (default 3; 10 for makespan-10x20, "
                             "2 for makespan-100x100)")
    parser.add_argument("--quick", action="store_true",
                        help="one seed, 10x20 only, 10 s limit, 10 PSPLIB files")
    parser.add_argument("--hints", action="store_true", help="CP-SAT solution hints")
    parser.add_argument("--subsolvers", default=None,
                        help="comma list: CP-SAT extra_subsolvers (e.g. reduced_costs)"
                             " or 'none' for the plain defaults")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--method", choices=("cpsat", "portfolio"), default="cpsat",
                        help="cpsat: opt_sched.solve (the CP-SAT model); portfolio:"
                             " opt_sched.exact.io_sched.portfolio.solve_portfolio")
    parser.add_argument("--cpsat-leg", type=float, default=None,
                        help="--method portfolio: the max stretch's CP-SAT leg, a "
                             "share of the node's time (default: the portfolio's, "
                             "off; models/lns.md, best of both)")
    parser.add_argument("--generators", default=None,
                        help="comma list of " + ", ".join(GENERATORS) +
                             " (default longest; both for makespan-10x20)")
    parser.add_argument("--part", default="makespan,max-stretch,psplib",
                        help="comma list of parts: makespan (10x20, 20x50), "
                             "makespan-10x20 (10 seeds, both generators), "
                             "makespan-100x100, max-stretch (10x20), tucan, "
                             "psplib")
    parser.add_argument("--psplib-count", type=int, default=None,
                        help="solve only the first N PSPLIB files (default all 480;"
                             " 10 with --quick)")
    args = parser.parse_args(argv)
    options: dict = {"hints": args.hints, "num_workers": args.workers}
    if args.subsolvers == "none":
        options["params"] = {"extra_subsolvers": []}
    elif args.subsolvers:
        options["params"] = {"extra_subsolvers": args.subsolvers.split(",")}
    if args.method == "portfolio":
        options = {"num_workers": args.workers}
        if args.cpsat_leg is not None:
            if not 0 <= args.cpsat_leg <= 1:
                parser.error(f"--cpsat-leg: {args.cpsat_leg!r} is not a share in "
                             "[0, 1]")
            options["cpsat_leg"] = args.cpsat_leg
    elif args.cpsat_leg is not None:
        parser.error("--cpsat-leg: only with --method portfolio")
    sizes: tuple[tuple[int, int], ...] = SIZES
    limit = args.time_limit
    if args.quick:
        sizes, limit = ((10, 20),), min(limit, 10.0)
    generators = tuple(args.generators.split(",")) if args.generators else None
    for name in generators or ():
        if name not in GENERATORS:
            parser.error(f"--generators: {name!r} is not one of "
                         f"{', '.join(GENERATORS)}")

    def seeds(default: int) -> int:
        return 1 if args.quick else (args.seeds or default)

    parts = set(args.part.split(","))
    started = time.perf_counter()
    print(f"method {args.method}, {args.workers} workers, {limit:g} s per instance; "
          f"load average at start {os.getloadavg()[0]:.1f}")
    if "makespan" in parts:
        rows = run_io_sched(sizes, LOADS, seeds(3), "makespan", limit, options,
                            generators or ("longest",), args.method)
        summarise(rows, f"IO-SCHED makespan, {args.method}, {limit:g} s limit")
    if "makespan-10x20" in parts:
        rows = run_io_sched(((10, 20),), LOADS, seeds(10), "makespan", limit,
                            options, generators or tuple(GENERATORS), args.method)
        summarise(rows, f"IO-SCHED makespan 10x20, {args.method}, {limit:g} s limit")
        print_rows(rows)
    if "makespan-100x100" in parts:
        rows = run_io_sched(((100, 100),), LOADS, seeds(2), "makespan", limit,
                            options, generators or ("longest",), args.method)
        summarise(rows, f"IO-SCHED makespan 100x100, {args.method}, {limit:g} s "
                        "limit")
        print_rows(rows)
    if "max-stretch" in parts:
        rows = run_io_sched(((10, 20),), LOADS, seeds(3), "max-stretch", limit,
                            options, generators or ("longest",), args.method)
        summarise(rows, f"IO-SCHED max stretch 10x20, {args.method}, {limit:g} s "
                        "limit")
        print_rows(rows)
    if "tucan" in parts:
        run_tucan(limit, args.workers)
    if "psplib" in parts:
        count = args.psplib_count or (10 if args.quick else None)
        run_psplib(limit, count)
    print(f"\ntotal {time.perf_counter() - started:.1f} s; load average at end "
          f"{os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
