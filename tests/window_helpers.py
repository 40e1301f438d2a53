"""Small seeded windows for the window tests (issue 27): random jobs with
releases on one partition, small enough for the brute force."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, JobSchedule, Platform, Schedule
from opt_sched.validation import assert_feasible

TRACES = Path(__file__).parent / "data" / "traces"
"""The bundled trace excerpts (``kth-sp2-head.swf`` and others)."""


def slow(examples: int):
    """Hypothesis settings for the window tests that solve: ``examples``
    examples, no deadline, the health checks of slow draws off."""
    return settings(max_examples=examples, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])


def no_dependencies(instance: Instance) -> Instance:
    """``instance`` without its dependencies (the window bounds and the
    brute force take none)."""
    return instance.replace(jobs=tuple(dataclasses.replace(job, after=())
                                       for job in instance.jobs))


def drawn_window(instance: Instance, data, most: int = 4):
    """A window of ``instance`` (dependencies dropped) replayed with EASY:
    start, at most ``most`` jobs and the mode drawn from ``data``."""
    from opt_sched.experiments.window_instance import extract_window
    from opt_sched.scheduling import replay

    instance = no_dependencies(instance)
    schedule = replay(instance, "easy")
    start = data.draw(st.integers(0, instance.num_jobs - 1))
    count = data.draw(st.integers(1, min(most, instance.num_jobs - start)))
    mode = data.draw(st.sampled_from(["state", "consecutive"]))
    return extract_window(instance, schedule, start, count, mode=mode)


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


def queue_hand() -> tuple[Instance, Schedule]:
    """P = 2, b = 1. ``big`` (2 nodes, 10 s) runs [0, 10); ``q`` (1 node,
    released 1) waits for it: queued at t0 = 2, when ``a`` (1 node, 1 s)
    arrives; ``a`` runs [10, 11), ``q`` [10, 12); ``z`` arrives at 30. The
    schedule is checked here."""
    instance = Instance("queue", Platform.homogeneous(1, 2, 1.0), (
        Job("big", 2, (10.0,), (0.0,), release=0.0, walltime=20),
        Job("q", 1, (2.0,), (0.0,), release=1.0, walltime=20),
        Job("a", 1, (1.0,), (0.0,), release=2.0, walltime=20),
        Job("z", 1, (1.0,), (0.0,), release=30.0, walltime=20)))
    schedule = Schedule((
        JobSchedule("big", 0, (0.0,), (10.0,)),
        JobSchedule("q", 0, (10.0,), (12.0,)),
        JobSchedule("a", 0, (10.0,), (11.0,)),
        JobSchedule("z", 0, (30.0,), (31.0,))), execution="exclusive")
    assert_feasible(instance, schedule)
    return instance, schedule


def kth_head_window(start: int = 15, count: int = 10):
    """Window ``start:count`` of the bundled KTH-SP2 head (real jobs, I/O from
    the ``darshan-cori`` profile at alpha 0.5), replayed with EASY."""
    from opt_sched.experiments.window_instance import extract_window
    from opt_sched.scheduling import replay
    from opt_sched.traces import convert_trace, read_swf

    trace, _ = read_swf(TRACES / "kth-sp2-head.swf")
    instance = convert_trace(trace, "darshan-cori", seed=0, alpha=0.5).instance
    return extract_window(instance, replay(instance, "easy"), start, count)


def small_mean_flow_case(instance: Instance, data):
    """A window of ``instance`` small enough for the brute force (at most 4
    jobs and 6 I/O phases; ``None`` otherwise) and its mean-flow-time
    optimum with the reservations."""
    from opt_sched.exact.brute_force_hpc_io import brute_force_hpc_io

    window = drawn_window(instance, data)
    if window.instance.num_jobs > 4 or window.instance.num_io_phases > 6:
        return None
    optimum, _ = brute_force_hpc_io(window.instance, "mean-flow-time",
                                    reservations=window.reservations)
    return window, optimum


def check_mean_flow_bound(window, optimum: float, bound: float) -> float:
    """A window's mean-flow-time bound: <= the optimum, >= ``alone``, <= the
    online value. Returns ``alone``."""
    from opt_sched.bounds_flow import flow_bounds
    from opt_sched.objectives import meets_bound, objective_value

    assert meets_bound(bound, optimum), (bound, optimum)
    alone = flow_bounds(window.instance, "mean-flow-time",
                        reservations=window.reservations)["alone"]
    assert bound >= alone - 1e-9 * max(1.0, abs(alone))
    online = objective_value(window.instance, window.schedule, "mean-flow-time")
    assert meets_bound(bound, online)
    return alone
