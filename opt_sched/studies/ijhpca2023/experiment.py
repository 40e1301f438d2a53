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

The campaign (``campaigns/ijhpca2023.toml``) runs the same strategies as
registry methods (:data:`STRATEGY_SPECS`, :mod:`opt_sched.methods.online`).

Down-scaled copies and what their bounds certify
------------------------------------------------
CP-SAT cannot prove anything on a 100-job workload with ~5,000 I/O phases,
so it runs on a *prefix copy* (:func:`prefix_copy`): the first ``m`` jobs of
the workload (instance order, which is the draw order), each cut to its
first ``k`` iterations (same ``w_i``, ``v_i``, ``Q_i``, ``P``, ``B``).
:func:`certify_copy` solves HPC-IO (makespan) on it under a time limit and
returns the proven lower bound ``L_copy`` and the best schedule found.

Two statements, and only these two:

1. ``L_copy`` is a lower bound on the optimal makespan of the copy. The
   strategies' makespans *on the copy* against ``max(L_copy, combinatorial
   bound of the copy)`` are certified gaps *of the copy* -- a small
   workload of the same family, not the original.
2. The copy is a relaxation of the original: restrict any feasible schedule
   of the original to the copy's jobs and to their first ``k`` iterations;
   every phase keeps its time, jobs hold their nodes no longer than before
   and the I/O phases are a subset, so rules 1-5 still hold and the makespan
   does not grow. Hence ``OPT(copy) <= OPT(original)`` and ``L_copy`` is
   also a valid (usually weak) lower bound for the original; the report
   uses ``max(combinatorial bound, L_copy)`` as the original's best proven
   bound and counts how often ``L_copy`` is the larger.

No other transfer holds: a gap measured on the copy says nothing provable
about the gap on the original.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from opt_sched.bounds import best_makespan_bound
from opt_sched.instance import Instance
from opt_sched.metrics import job_table, summary, utilisation_over_time
from opt_sched.objectives import gap_or_nan
from opt_sched.scheduling import get_scheduler, replay
from opt_sched.scheduling.packs import PACK_ORDERS, PackScheduling
from opt_sched.validation import assert_feasible
from opt_sched.workloads.ijhpca2023 import generate_ijhpca2023
from opt_sched.workloads.prefix_copy import prefix_copy

__all__ = ["STRATEGIES", "STRATEGY_SPECS", "certify_copy", "prefix_copy",
           "run_point", "strategy_of", "usage_curves"]

STRATEGIES = ("ls", *PACK_ORDERS)

STRATEGY_SPECS = {"ls": "ls/fifo",
                  **{order: f"packs(order={order})/fifo" for order in PACK_ORDERS}}
"""Each strategy as a method spec of the registry (exclusive FIFO I/O, pack
backfilling on)."""


def strategy_of(spec: str) -> str | None:
    """The strategy a method spec runs (``"max"`` for
    ``packs(order=max)/fifo``), or ``None`` if it is none of
    :data:`STRATEGY_SPECS`."""
    from opt_sched import methods

    canonical = methods.method(spec).spec
    for name, text in STRATEGY_SPECS.items():
        if methods.method(text).spec == canonical:
            return name
    return None


def certify_copy(copy: Instance, time_limit: float, *, seed: int = 0,
                 num_workers: int = 2) -> dict[str, Any]:
    """CP-SAT on HPC-IO (makespan) for ``copy`` under ``time_limit`` seconds.

    Returns ``cpsat_status`` (``optimal``, ``feasible``, ...),
    ``cpsat_makespan`` (validated by :func:`opt_sched.solve`; NaN without a
    schedule), ``cpsat_bound`` (the proven lower bound on the copy's optimum:
    the solver's and the combinatorial bounds, whichever is larger),
    ``combinatorial_bound`` and ``cpsat_seconds``. The value depends on the
    time limit and on the machine's load; the bound is proven either way.
    """
    from opt_sched import solve

    result = solve(copy, problem="hpc-io", objective="makespan", solver="cpsat",
                   time_limit=time_limit, seed=seed, num_workers=num_workers)
    nan = float("nan")
    return {"cpsat_status": str(result.status),
            "cpsat_makespan": nan if result.objective is None else float(
                result.objective),
            "cpsat_bound": nan if result.lower_bound is None else float(
                result.lower_bound),
            "combinatorial_bound": float(result.info.get("combinatorial_bound", nan)),
            "cpsat_seconds": float(result.wall_time)}


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
        "gap": gap_or_nan(makespan, bound),
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
