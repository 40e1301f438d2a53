"""Seed 001's "overscheduling leads to further overscheduling", measured.

    PYTHONPATH=. python scripts/goponenko_drift.py [--workload 1] [--nodes 256]

Replays Workload 1 (or 2) under the file-system model of
:data:`opt_sched.workloads.goponenko.EXECUTION` with the I/O-aware
scheduler (``herbein``, history estimates, pre-trained) at limits 20 and 15
GiB/s and with ``workload-adaptive``, and prints, per tenth of the
makespan: the write jobs running (mean and peak), the throughput the file
system delivered, and the scheduler's estimate of a write x 8 job's rate
at the start of the window (4 GiB/s pre-trained).
"""

from __future__ import annotations

import argparse
import itertools

import numpy as np

from opt_sched.execution import ExecutionSpec
from opt_sched.scheduling import get_scheduler, replay
from opt_sched.scheduling.pretrain import isolated_runs
from opt_sched.workloads.goponenko import EXECUTION, goponenko_workload


def run(workload: int, nodes: int, name: str, limit: float) -> None:
    inst = goponenko_workload(workload, nodes)
    spec = ExecutionSpec.parse({"model": "shared", **EXECUTION})
    prior = isolated_runs(inst, spec.build)
    options = {"estimates": "history"} if name == "herbein" else {}
    sched = get_scheduler(name, limit=limit, prior=prior, **options)
    probe = next(i for i, j in enumerate(inst.jobs) if j.group == "write8")
    estimates: list[tuple[float, float]] = []
    inner_complete, inner_decide = sched.complete, sched.decide

    def decide(now):
        if not estimates:  # the estimator exists once the replay attached it
            estimates.append((0.0, sched_rate(sched, probe)))
        return inner_decide(now)

    def complete(now, job, killed):
        inner_complete(now, job, killed)
        estimates.append((now, sched_rate(sched, probe)))

    sched.complete, sched.decide = complete, decide
    schedule = replay(inst, sched, spec.build())
    makespan = schedule.makespan(inst)
    writes = [(js.start, schedule.completion(inst, js.id), job.total_volume)
              for js, job in zip(schedule.jobs, inst.jobs) if job.total_volume > 0]
    print(f"\n{name} L={limit:g}: makespan {makespan:,.0f} s")
    print("  window (s)        writers mean/peak  GiB/s delivered  est. write x 8 rate")
    edges = np.linspace(0.0, makespan, 11)
    times = np.array([t for t, _ in estimates])
    for a, b in itertools.pairwise(edges):
        grid = np.linspace(a, b, 200, endpoint=False)
        counts = [sum(1 for s, e, _ in writes if s <= t < e) for t in grid]
        moved = sum(v * max(0.0, min(b, e) - max(a, s)) / (e - s)
                    for s, e, v in writes if e > s)
        est = estimates[int(np.searchsorted(times, a, side="right")) - 1][1]
        print(f"  {a:7.0f}-{b:7.0f}  {np.mean(counts):8.1f} / {max(counts):4d}"
              f"  {moved / (b - a):15.2f}  {est:19.2f}")


def sched_rate(sched, job: int) -> float:
    """The scheduler's current rate estimate of ``job``'s group."""
    return float(sched._est.rates(np.array([job]))[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", type=int, default=1, choices=(1, 2))
    parser.add_argument("--nodes", type=int, default=256)
    args = parser.parse_args()
    for name, limit in (("herbein", 20.0), ("herbein", 15.0),
                        ("workload-adaptive", 20.0)):
        run(args.workload, args.nodes, name, limit)


if __name__ == "__main__":
    main()
