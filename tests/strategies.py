"""Hypothesis strategies for random valid instances."""

from __future__ import annotations

from hypothesis import strategies as st

from opt_sched import Instance, Job, Partition, Platform

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
