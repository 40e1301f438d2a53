"""Hypothesis strategies for random valid instances and starts plans, and
the settings of slow property tests."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, Partition, Platform
from opt_sched.simulation import POLICY_NAMES, StartsPlan


def slow_settings(max_examples: int) -> settings:
    """Hypothesis settings of a property test whose examples are slow (a
    simulation or a replay each): no deadline, no too-slow health check."""
    return settings(max_examples=max_examples, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


# Durations on a 1/4 grid keep hand-checks and integer-scaled solvers exact
# while still exercising fractional times.
quarter = st.integers(min_value=0, max_value=40).map(lambda q: q / 4)


@st.composite
def platforms(draw, max_partitions: int = 2) -> Platform:
    count = draw(st.integers(1, max_partitions))
    if draw(st.booleans()):
        part = Partition(draw(st.integers(4, 16)),
                         draw(st.sampled_from([0.5, 1.0, 2.0])))
        return Platform((part,) * count)
    return Platform(tuple(Partition(draw(st.integers(4, 16)),
                                    draw(st.sampled_from([0.5, 1.0, 2.0, 4.0])))
                          for _ in range(count)))


@st.composite
def instances(draw, *, max_jobs: int = 5, max_iterations: int = 4,
              mapped: bool = True, releases: bool = True,
              max_partitions: int = 2) -> Instance:
    platform = draw(platforms(max_partitions))
    n = draw(st.integers(1, max_jobs))
    # A mapped instance is one pack per partition: its jobs must fit together.
    free = [p.nodes for p in platform.partitions]
    jobs = []
    for i in range(n):
        choices = [k for k, f in enumerate(free) if f >= 1] if mapped else \
            list(range(platform.num_partitions))
        if not choices:
            break
        k = draw(st.sampled_from(choices))
        size = free[k] if mapped else platform.max_nodes
        nodes = draw(st.integers(1, size))
        free[k] -= nodes
        iters = draw(st.integers(1, max_iterations))
        compute = tuple(draw(quarter) for _ in range(iters))
        volume = tuple(draw(quarter) for _ in range(iters))
        jobs.append(Job(
            f"j{i}", nodes, compute, volume,
            release=draw(quarter) if releases and draw(st.booleans()) else 0.0,
            partition=k if mapped else None))
    return Instance("random", platform, tuple(jobs))


@st.composite
def starts_plans(draw, instance: Instance) -> StartsPlan:
    """A starts plan of the unmapped ``instance``: each job on a partition
    it fits on, starting at a time of the 1/2 grid in ``[0, 10]``."""
    parts = instance.platform.partitions
    partition, start = {}, {}
    for job in instance.jobs:
        fits = [k for k, p in enumerate(parts) if p.nodes >= job.nodes]
        partition[job.id] = draw(st.sampled_from(fits))
        start[job.id] = draw(st.integers(0, 20)) / 2
    return StartsPlan(partition=partition, start=start)


@st.composite
def starts_plan_runs(draw, max_jobs: int = 6) -> tuple[Instance, StartsPlan, str]:
    """``(instance, plan, policy)``: an unmapped random instance of up to
    ``max_jobs`` jobs, a starts plan of it and an I/O policy to simulate
    the plan under."""
    instance = draw(instances(mapped=False, max_jobs=max_jobs))
    return instance, draw(starts_plans(instance)), draw(st.sampled_from(POLICY_NAMES))
