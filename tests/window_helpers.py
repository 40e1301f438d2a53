"""Small seeded windows for the window tests (issue 27): random jobs with
releases on one partition, small enough for the brute force."""

from __future__ import annotations

import random

from opt_sched import Instance, Job, Platform


def seeded_instance(seed: int, n: int = 7, *, by_release: bool = True) -> Instance:
    """``n`` random jobs (1-4 nodes, one or two phases of integer lengths,
    releases in ``0..6``, wall time 30) on one partition of 4 nodes and
    bandwidth 1; in release order, or as drawn (``by_release=False``)."""
    rng = random.Random(seed)
    jobs = []
    for i in range(n):
        compute = tuple(float(rng.randint(0, 5)) for _ in range(rng.choice([1, 2])))
        volume = tuple(float(rng.randint(0, 2)) for _ in compute)
        if sum(compute) + sum(volume) == 0:
            compute = (1.0, *compute[1:])
        jobs.append(Job(f"j{i}", rng.randint(1, 4), compute, volume,
                        release=float(rng.randint(0, 6)), walltime=30.0))
    if by_release:
        jobs.sort(key=lambda job: job.release)
    return Instance("seeded", Platform.homogeneous(1, 4, 1.0), tuple(jobs))
