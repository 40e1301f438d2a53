"""Speed of the gang simulator: 10,000 jobs per scheduler (goal: < 10 s on
one core).

Workload: the ``jann`` protocol at the seed's highest load (mean all-local
time 3102 s, mean inter-arrival 583 s, 320 nodes, r = 0.5), file nodes
``random`` (and ``contiguous`` with ``--placement``). Prints, per scheduler,
the CPU time of :func:`opt_sched.gang.simulate_gang` (``process_time``: what
one core spends, robust to a shared machine) and the wall time, plus the
number of slices and scheduling events' outcome (local jobs).

    PYTHONPATH=$PWD python scripts/bench_gang.py [--jobs 10000] [--r 0.5]
        [--mean-runtime 3102] [--placement random] [--validate]
"""

from __future__ import annotations

import argparse
import time

from opt_sched.gang import place_files, simulate_gang, validate_gang
from opt_sched.gang.experiments import SCHEDULERS
from opt_sched.gang.jann import jann_workload

GOAL_SECONDS = 10.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=10_000)
    parser.add_argument("--r", default="0.5")
    parser.add_argument("--mean-runtime", type=float, default=3102.0)
    parser.add_argument("--placement", default="random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--validate", action="store_true",
                        help="also time the validator")
    args = parser.parse_args()
    r = args.r if args.r == "mixed" else float(args.r)
    workload = place_files(jann_workload(args.jobs, args.mean_runtime, r, args.seed),
                           args.placement, args.seed)
    print(f"{args.jobs} jobs, r={r}, mean runtime {args.mean_runtime:g} s, "
          f"placement {args.placement}, offered load {workload.offered_load():.3f}")
    print(f"{'scheduler':<14} {'cpu s':>7} {'wall s':>7} {'slices':>7} "
          f"{'local':>6} {'goal':>5}" + ("  validate s" if args.validate else ""))
    worst = 0.0
    for name in SCHEDULERS:
        wall0, cpu0 = time.perf_counter(), time.process_time()
        record = simulate_gang(workload, name)
        cpu = time.process_time() - cpu0
        wall = time.perf_counter() - wall0
        worst = max(worst, cpu)
        local = sum(1 for ps, f in zip(record.placements, record.file_nodes)
                    if set(ps[-1]) == set(f))
        line = (f"{name:<14} {cpu:7.2f} {wall:7.2f} {len(record.slice_row):7d} "
                f"{local:6d} {'ok' if cpu < GOAL_SECONDS else 'SLOW':>5}")
        if args.validate:
            began = time.process_time()
            violations = validate_gang(workload, record)
            line += f"  {time.process_time() - began:10.2f}"
            if violations:
                line += f"  INVALID: {violations[0]}"
        print(line, flush=True)
    print(f"worst CPU time {worst:.2f} s (goal < {GOAL_SECONDS:g} s per scheduler)")


if __name__ == "__main__":
    main()
