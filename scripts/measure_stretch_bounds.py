#!/usr/bin/env python
"""Tightness of the max-stretch lower bounds against the brute-force optimum
(issue 13; the makespan counterpart is ``tests/test_bounds.py``).

Two seeded families of single-partition IO-SCHED instances:

- ``small``: 200 instances, 2-4 jobs x 1-2 iterations, integer data in
  ``0..5``, releases in ``0..2`` (:func:`small_instance`, which
  ``tests/test_bounds.py`` checks the makespan bounds on too);
- ``medium``: 200 instances, 3-4 jobs x 2-3 iterations, real data (compute
  uniform in ``[1, 10]``, I/O volume uniform in ``[0.5, 5]``), no release.

For every instance: the optimum by :func:`brute_force_io_sched`, and the
bounds ``edf-bisection`` (:mod:`opt_sched.bounds`), ``propagated-edf``
(:mod:`opt_sched.bounds_stretch`) and, on the integer family, the deadline
questions (:func:`opt_sched.exact.io_sched.deadlines.search.deadline_search`, 2 s,
1 worker). Prints, per bound: valid count, tight count (``rel 1e-5``), mean
and min of ``bound / OPT``, and its total time.

Usage::

    python scripts/measure_stretch_bounds.py [--count 200]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from opt_sched import Instance, Job, Platform
from opt_sched.bounds import max_stretch_bounds
from opt_sched.bounds_stretch import propagated_edf_bound
from opt_sched.exact.brute_force import brute_force_io_sched


def small_instance(rng: np.random.Generator, index: int) -> Instance:
    jobs = []
    for i in range(int(rng.integers(2, 5))):
        iterations = int(rng.integers(1, 3))
        jobs.append(Job(f"j{i}", 1, tuple(rng.integers(0, 6, iterations) * 1.0),
                        tuple(rng.integers(0, 6, iterations) * 1.0),
                        release=float(rng.integers(0, 3)), partition=0))
    return Instance(f"s{index}", Platform.homogeneous(1, 8, 1.0), tuple(jobs))


def medium_instance(rng: np.random.Generator, index: int) -> Instance:
    jobs = []
    for i in range(int(rng.integers(3, 5))):
        iterations = int(rng.integers(2, 4))
        jobs.append(Job(f"j{i}", 1, tuple(rng.uniform(1, 10, iterations)),
                        tuple(rng.uniform(0.5, 5, iterations)), partition=0))
    return Instance(f"m{index}", Platform.homogeneous(1, 8, 1.0), tuple(jobs))


def deadline_bound(instance: Instance) -> float | None:
    from opt_sched.exact.io_sched.deadlines import node_grid
    from opt_sched.exact.io_sched.deadlines.search import deadline_search
    from opt_sched.exact.io_sched.orders import node_jobs

    node = node_jobs(instance)[0]
    grid = node_grid(node)
    if not grid.exact:
        return None
    state = deadline_search(grid, "max-stretch", node.round_robin(), 1.0, 2.0,
                            num_workers=1)
    return state.lower


def measure(family: str, count: int) -> None:
    make = small_instance if family == "small" else medium_instance
    rng = np.random.default_rng(2026 if family == "small" else 2027)
    names = ["edf-bisection", "propagated-edf", "deadline-questions"]
    ratios: dict[str, list[float]] = {name: [] for name in names}
    valid = dict.fromkeys(names, 0)
    tight = dict.fromkeys(names, 0)
    seconds = dict.fromkeys(names, 0.0)
    for index in range(count):
        instance = make(rng, index)
        opt, _ = brute_force_io_sched(instance, "max-stretch")
        start = time.perf_counter()
        edf = max(max_stretch_bounds(instance, fixed_start=True).values())
        seconds["edf-bisection"] += time.perf_counter() - start
        start = time.perf_counter()
        prop = propagated_edf_bound(instance, lower=edf)
        seconds["propagated-edf"] += time.perf_counter() - start
        start = time.perf_counter()
        questions = deadline_bound(instance)
        seconds["deadline-questions"] += time.perf_counter() - start
        for name, value in zip(names, (edf, prop, questions)):
            if value is None:
                continue
            valid[name] += value <= opt * (1 + 1e-9)
            tight[name] += math.isclose(value, opt, rel_tol=1e-5)
            ratios[name].append(value / opt)
    print(f"\n{family}: {count} instances")
    print(f"{'bound':20s} {'valid':>6s} {'tight':>6s} {'mean b/OPT':>10s} "
          f"{'min b/OPT':>10s} {'seconds':>8s}")
    for name in names:
        if not ratios[name]:
            print(f"{name:20s} {'-':>6s} (inexact grid: not applicable)")
            continue
        print(f"{name:20s} {valid[name]:6d} {tight[name]:6d} "
              f"{np.mean(ratios[name]):10.4f} {min(ratios[name]):10.4f} "
              f"{seconds[name]:8.2f}")
        if valid[name] != len(ratios[name]):
            print(f"  !! {name} exceeded the optimum on "
                  f"{len(ratios[name]) - valid[name]} instances")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=200)
    args = parser.parse_args()
    for family in ("small", "medium"):
        measure(family, args.count)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
