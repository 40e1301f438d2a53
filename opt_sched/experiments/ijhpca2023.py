"""Seed 000 (IJHPCA 2023): one experiment point, list against pack scheduling.

A point is ``(family, profile, alpha, seed, strategy, variant)``: one
workload of :func:`~opt_sched.workloads.ijhpca2023.generate_ijhpca2023`
(all jobs released at 0), scheduled online by one strategy, executed under
exclusive FIFO I/O (seed 000's model; ``execution="shared"`` for the
comparison of issue 12), and validated. Strategies (``STRATEGIES``):

- ``ls`` -- seed 000's I/O-aware list scheduling: FCFS with the strict
  bandwidth constraint and EASY backfilling that reserves nodes and
  bandwidth (the ``io-easy`` scheduler);
- ``random``, ``max``, ``char-dec``, ``char-inc`` -- pack scheduling with
  pack backfilling (:class:`~opt_sched.scheduling.packs.PackScheduling`).

Every scheduler predicts lengths with the contention-free ``T_i(B)``
(``estimate="exact"``: seed 000 assumes durations and volumes known).

The row holds the seed's metrics -- makespan, max and mean stretch
``(C_i - S_i) / T_i(B)``, idle ratio ``1 - sum Q_i (C_i - S_i) / (P C_max)``,
mean utilisation (nodes computing or doing I/O) -- and, beyond the seed, the
best proven lower bound on the makespan of *any* schedule of the batch
(:func:`opt_sched.bounds.best_makespan_bound`; the jobs are released at 0,
so the HPC-IO bounds apply) and the certified gap ``(C_max - L) / L``.
:func:`usage_curves` gives the over-time curves of Figs. 4-8 on a
normalised time axis.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..bounds import best_makespan_bound
from ..metrics import job_table, summary, utilisation_over_time
from ..scheduling import get_scheduler, replay
from ..scheduling.packs import PACK_ORDERS, PackScheduling
from ..validation import assert_feasible
from ..workloads.ijhpca2023 import generate_ijhpca2023

__all__ = ["STRATEGIES", "run_point", "usage_curves"]

STRATEGIES = ("ls", *PACK_ORDERS)


def _scheduler(strategy: str, seed: int):
    if strategy == "ls":
        return get_scheduler("io-easy")
    return PackScheduling(strategy, backfill=True, seed=seed)


def run_point(family: str, profile: str, alpha: float, seed: int, strategy: str, *,
              variant: str = "calibrated", jobs: int = 100,
              execution: str = "exclusive", curves: bool = False
              ) -> dict[str, Any]:
    """Generate, schedule, validate and measure one point (see the module
    docstring); ``curves`` adds the usage curves (lists) to the row."""
    t0 = time.perf_counter()
    gen = generate_ijhpca2023(family, profile, alpha, seed, jobs=jobs,
                              variant=variant)
    inst = gen.instance
    schedule = replay(inst, _scheduler(strategy, seed), execution, policy="fifo",
                      estimate="exact", record_machines=False)
    assert_feasible(inst, schedule)
    stats = summary(inst, schedule)
    table = job_table(inst, schedule)
    makespan = float(stats["makespan"])
    P = inst.platform.max_nodes
    held = float(np.dot(table["nodes"], table["completion"] - table["start"]))
    bound, bound_name = best_makespan_bound(inst)
    row: dict[str, Any] = {
        "family": family, "profile": profile, "alpha": alpha, "seed": seed,
        "strategy": strategy, "variant": variant, "execution": execution,
        "jobs": inst.num_jobs, "bandwidth": gen.bandwidth, "rejected": gen.rejected,
        "alpha_realised": float(inst.io_load()),
        "makespan": makespan,
        "max_stretch": float(stats["max_stretch"]),
        "mean_stretch": float(stats["mean_stretch"]),
        "idle_ratio": 1.0 - held / (P * makespan),
        "utilisation": float(stats["utilisation"]),
        "lower_bound": float(bound), "bound": bound_name,
        "gap": (makespan - bound) / bound if bound > 0 else float("nan"),
        "seconds": time.perf_counter() - t0,
    }
    if curves:
        row.update(usage_curves(inst, schedule))
    return row


def usage_curves(inst, schedule, points: int = 100) -> dict[str, list[float]]:
    """Figs. 4-8 on ``t / C_max`` in ``points`` bins: utilisation (share of
    nodes computing or doing I/O), running jobs, share of processors
    allocated, and share of time the I/O node is busy."""
    use = utilisation_over_time(inst, schedule)
    makespan = float(use["time"].iloc[-1]) or 1.0
    grid = (np.arange(points) + 0.5) / points * makespan
    pos = np.searchsorted(use["time"].to_numpy(), grid, side="right") - 1
    table = job_table(inst, schedule)
    start = table["start"].to_numpy()
    end = table["completion"].to_numpy()
    at = grid[:, None]
    running = ((start[None, :] <= at) & (at < end[None, :])).sum(1)
    io_busy = np.zeros(points)
    band = inst.platform.partitions[0].bandwidth
    for js, job in zip(schedule.jobs, inst.jobs):
        for o, v in zip(js.io_starts, job.io_volume):
            if v > 0:
                lo, hi = o / makespan * points, (o + v / band) / makespan * points
                a, b = int(lo), min(points - 1, int(hi))
                for k in range(a, b + 1):
                    io_busy[k] += max(0.0, min(hi, k + 1) - max(lo, k))
    return {"curve_utilisation": use["utilisation"].to_numpy()[pos].tolist(),
            "curve_allocation": use["allocation"].to_numpy()[pos].tolist(),
            "curve_running": running.astype(float).tolist(),
            "curve_io_busy": np.minimum(io_busy, 1.0).tolist()}
