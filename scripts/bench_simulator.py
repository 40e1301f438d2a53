"""Benchmark the simulator: I/O phases per second, FIFO and stretch policies.

The instance is seed-003-like (§6.2.2) and built deterministically here:
100 periodic jobs of 1,000 iterations on one partition of 2,048 nodes with
``b = 1``; ``w_i ~ U[10, 100]``; the I/O ratio ``v_i / w_i`` is drawn from a
normal of mean 0.1 (low-I/O jobs, a share ``beta ~ U[0, 1]``) or 0.9, sd 0.1,
truncated to ``(0, 1]`` by redrawing; ``Q_i`` are powers of two drawn
uniformly in 1..64, halved (largest first) until ``sum Q_i <= 2048`` so that all jobs
fit one pack. Every job starts at 0 (one pack).

Run ``python scripts/bench_simulator.py [--repeat 5] [--jobs 100]
[--iterations 1000] [--execution exclusive|shared]``. The first call of each
policy is timed apart: it includes the JIT compilation (or the load of
numba's on-disk cache, whose hits and misses are printed).

The batch simulator (the plan driver :mod:`opt_sched.simulation.kernel` over
the exclusive-I/O event loop :mod:`opt_sched.simulation.events`) runs the
FIFO and stretch lines. With ``--execution MODEL`` (repeatable), the same pack
is also replayed under that stepped execution model, ``replay(instance,
PlanScheduler(instance), MODEL)`` (:mod:`opt_sched.execution`): ``exclusive``
runs the same event loop, stepped from Python, and gives the FIFO line's
schedule,
``shared`` shares each I/O node's bandwidth among the phases in progress.
The load average is printed next to the figures (2 cores are shared).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from opt_sched import Instance, Job, Platform
from opt_sched.scheduling import PlanScheduler, replay
from opt_sched.simulation import kernel, simulate

NODES = 2048


def bench_instance(jobs: int = 100, iterations: int = 1000, seed: int = 2020
                   ) -> Instance:
    """The deterministic seed-003-like one-pack instance described above."""
    rng = np.random.default_rng(seed)
    beta = rng.uniform(0.0, 1.0)
    ratios = []
    for _ in range(jobs):
        mean = 0.1 if rng.uniform() < beta else 0.9
        ratio = -1.0
        while not 0.0 < ratio <= 1.0:
            ratio = rng.normal(mean, 0.1)
        ratios.append(ratio)
    compute = rng.uniform(10.0, 100.0, jobs)
    sizes = 2 ** rng.integers(0, 7, jobs)  # 1..64 nodes, mean ~18
    while sizes.sum() > NODES:
        sizes[int(np.argmax(sizes))] //= 2
    job_list = tuple(
        Job.periodic(f"j{i:03d}", int(sizes[i]), float(compute[i]),
                     float(compute[i] * ratios[i]), iterations, partition=0)
        for i in range(jobs))
    return Instance(f"bench-{jobs}x{iterations}", Platform.homogeneous(1, NODES, 1.0),
                    job_list)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=100)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--execution", action="append", default=[],
                        choices=("exclusive", "shared"),
                        help="also replay the pack under this stepped execution "
                             "model (repeatable)")
    args = parser.parse_args()

    instance = bench_instance(args.jobs, args.iterations)
    phases = instance.num_io_phases
    print(f"instance {instance.name}: {instance.num_jobs} jobs, {phases} I/O phases, "
          f"alpha = {instance.io_load():.3f}, "
          f"nodes used = {sum(j.nodes for j in instance.jobs)}/{NODES}")
    runs = [(policy, lambda p=policy: simulate(instance, policy=p))
            for policy in ("fifo", "stretch")]
    runs += [(f"replay {model}",
              lambda m=model: replay(instance, PlanScheduler(instance), m))
             for model in dict.fromkeys(args.execution)]
    for label, run in runs:
        t0 = time.perf_counter()
        schedule = run()
        first = time.perf_counter() - t0
        best = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - t0)
        print(f"{label:16s} first call {first:7.3f} s (compile or cache load) | "
              f"steady {best * 1e3:8.1f} ms = {phases / best:12,.0f} phases/s | "
              f"makespan {schedule.makespan(instance):,.1f}, "
              f"max stretch {schedule.max_stretch(instance):.3f} | "
              f"load {os.getloadavg()[0]:.2f}")
    stats = kernel.run.stats
    print(f"numba cache: hits={sum(stats.cache_hits.values())} "
          f"misses={sum(stats.cache_misses.values())} (a miss means the first call "
          f"compiled; set NUMBA_CACHE_DIR to an empty folder to time a cold compile)")


if __name__ == "__main__":
    main()
