"""Benchmark the validator: seconds to validate 100,000 I/O phases.

The instance: ``--jobs`` periodic jobs of ``--iterations`` iterations
(100 x 1000 by default, i.e. 100,000 compute and 100,000 I/O phases) on
one partition with a node each, ``w = 10``, ``v = 0.1``, ``b = 1``. The
schedule is feasible by construction: iteration ``k`` computes over
``[20k, 20k + 10)`` and the I/O phases of the jobs follow back to back,
job ``i`` over ``[20k + 10 + 0.1 i, 20k + 10 + 0.1 (i + 1))``.

Three schedules are timed: the plain one, the same with each job's
``machines`` stated (job ``i`` holds machine ``i``), and the same with
every fifth job killed at its wall time in its last iteration (the wall
time is set so that the kill cuts that job's last I/O phase in half).

Run ``python scripts/bench_validator.py [--repeat 7] [--jobs 100]
[--iterations 1000]``; the best of ``--repeat`` runs is printed.
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from opt_sched import Instance, Job, JobSchedule, Platform, Schedule
from opt_sched.validation import validate


def bench_case(jobs: int, iterations: int) -> tuple[Instance, Schedule]:
    """The feasible instance and schedule described in the module text."""
    job_list = tuple(Job.periodic(f"j{i}", 1, 10.0, 0.1, iterations)
                     for i in range(jobs))
    instance = Instance(f"bench-{jobs}x{iterations}",
                        Platform.homogeneous(1, nodes=jobs), job_list)
    schedule = Schedule(tuple(
        JobSchedule(f"j{i}", 0, tuple(20.0 * k for k in range(iterations)),
                    tuple(20.0 * k + 10 + 0.1 * i for k in range(iterations)))
        for i in range(jobs)), method="bench")
    return instance, schedule


def with_machines(schedule: Schedule) -> Schedule:
    return dataclasses.replace(schedule, jobs=tuple(
        dataclasses.replace(js, machines=(i,)) for i, js in enumerate(schedule.jobs)))


def with_kills(instance: Instance, schedule: Schedule
               ) -> tuple[Instance, Schedule]:
    """Every fifth job is killed in the middle of its last I/O phase."""
    jobs, entries = [], []
    for i, (job, js) in enumerate(zip(instance.jobs, schedule.jobs, strict=True)):
        if i % 5:
            jobs.append(job)
            entries.append(js)
            continue
        kill = js.io_starts[-1] + 0.05
        jobs.append(dataclasses.replace(job, walltime=kill - js.compute_starts[0]))
        entries.append(dataclasses.replace(js, killed_at=kill))
    return (instance.with_jobs(jobs),
            dataclasses.replace(schedule, jobs=tuple(entries)))


def best_time(instance: Instance, schedule: Schedule, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        report = validate(instance, schedule)
        best = min(best, time.perf_counter() - began)
        if not report.feasible:
            raise SystemExit(f"benchmark schedule rejected: {report.format(5)}")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=100)
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    instance, schedule = bench_case(args.jobs, args.iterations)
    phases = instance.num_io_phases
    print(f"instance {instance.name}: {instance.num_jobs} jobs, {phases:,} I/O "
          f"phases (and as many compute phases)")
    cases = [("plain", instance, schedule),
             ("machines", instance, with_machines(schedule)),
             ("killed", *with_kills(instance, schedule))]
    for label, inst, sched in cases:
        seconds = best_time(inst, sched, args.repeat)
        print(f"{label:9s} best of {args.repeat}: {seconds * 1e3:7.1f} ms = "
              f"{phases / seconds:12,.0f} I/O phases/s")


if __name__ == "__main__":
    main()
