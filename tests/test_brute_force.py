"""The brute-force IO-SCHED referee: hand cases, an independent enumeration,
pruning on/off, the validator and (once it exists) the simulator's policies."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, OptionError, Partition, PlanError, Platform
from opt_sched.exact.brute_force import brute_force_io_sched
from opt_sched.validation import assert_feasible

quarter = st.integers(min_value=0, max_value=24).map(lambda q: q / 4)


@st.composite
def one_pack_instances(draw, *, max_jobs: int = 4, max_iterations: int = 3,
                       max_phases: int = 8) -> Instance:
    """Mapped instances whose jobs fit their partition together (one pack),
    with at most ``max_phases`` nonzero I/O phases per partition."""
    count = draw(st.integers(1, 2))
    platform = Platform(tuple(
        Partition(8, draw(st.sampled_from([0.5, 1.0, 2.0]))) for _ in range(count)))
    jobs = []
    phases = [0] * count
    for i in range(draw(st.integers(1, max_jobs))):
        k = draw(st.integers(0, count - 1))
        iterations = draw(st.integers(1, max_iterations))
        compute = tuple(draw(quarter) for _ in range(iterations))
        volume = [draw(quarter) for _ in range(iterations)]
        for j in range(iterations):  # keep the partition within max_phases
            if volume[j] > 0 and phases[k] >= max_phases:
                volume[j] = 0.0
            phases[k] += volume[j] > 0
        release = draw(quarter) if draw(st.booleans()) else 0.0
        jobs.append(Job(f"j{i}", draw(st.integers(1, 2)), compute, tuple(volume),
                        release=release, partition=k))
    return Instance("random-one-pack", platform, tuple(jobs))


# -- an independent, plainer enumeration ----------------------------------------
def enumerate_all_orders(instance: Instance, objective: str) -> float:
    """Optimum by listing every distinct order of job labels per partition
    (itertools) and replaying it phase by phase; no pruning, no sharing."""
    value = -math.inf
    for k in range(instance.platform.num_partitions):
        jobs = [job for job in instance.jobs if (job.partition or 0) == k]
        if not jobs:
            continue
        bandwidth = instance.platform.partitions[k].bandwidth
        start = max(job.release for job in jobs)
        labels = [i for i, job in enumerate(jobs) for v in job.io_volume if v > 0]
        best = math.inf
        for order in set(itertools.permutations(labels)):
            node = -math.inf
            now = [start] * len(jobs)   # time the job reached so far
            nxt = [0] * len(jobs)       # next iteration of the job
            for i in order:
                job = jobs[i]
                while True:               # run compute (and zero I/O) phases
                    j = nxt[i]
                    nxt[i] += 1
                    now[i] += job.compute[j]
                    if job.io_volume[j] > 0:
                        now[i] = max(now[i], node) + job.io_volume[j] / bandwidth
                        node = now[i]
                        break
            worst = -math.inf
            for i, job in enumerate(jobs):
                finish = now[i] + sum(job.compute[nxt[i]:])
                if objective == "makespan":
                    worst = max(worst, finish)
                else:
                    length = job.length(bandwidth)
                    worst = max(worst, (finish - start) / length if length else 1.0)
            best = min(best, worst)
        value = max(value, best)
    return value


def check_feasible(instance: Instance, schedule) -> None:
    assert_feasible(instance, schedule)


# -- hand cases -----------------------------------------------------------------
def test_tiny2_by_hand(tiny2):
    # a: w=2, v=3 twice (T=10); b: w=1, v=2 twice (T=6); b=1, start 0.
    # The 6 orders (C_max; C_a, C_b):
    #   aabb 15; abab 12 (10, 12); abba 13 (13, 10); baab 13;
    #   baba 11 (11, 8): b1 1-3, a1 3-6, b2 6-8, a2 8-11; bbaa 14 (14, 6).
    # Best makespan 11; best max stretch min(..., max(11/10, 8/6), max(14/10, 1))
    # = 4/3 (baba).
    value, schedule = brute_force_io_sched(tiny2, "makespan")
    assert value == 11.0
    assert schedule.makespan(tiny2) == 11.0
    assert schedule["b"].io_starts == (1.0, 6.0)
    assert schedule["a"].io_starts == (3.0, 8.0)
    stretch, schedule = brute_force_io_sched(tiny2, "max-stretch")
    assert stretch == pytest.approx(4 / 3)
    assert schedule.max_stretch(tiny2) == pytest.approx(4 / 3)
    assert schedule.packs == ((("a", "b"),),)
    check_feasible(tiny2, schedule)


def test_zero_volume_phases_do_not_wait():
    # x: compute 1, I/O 0, compute 1, I/O 2; y: compute 0.5, I/O 4 (b = 1).
    # Only orders xy and yx of the nonzero phases: xy: x 2-4, y 4-8 -> 8;
    # yx: y 0.5-4.5, x 4.5-6.5 -> 6.5. x's zero-volume I/O is at t=1 either way.
    inst = Instance("zero", Platform.homogeneous(1, 4, 1.0), (
        Job("x", 1, (1.0, 1.0), (0.0, 2.0), partition=0),
        Job("y", 1, (0.5,), (4.0,), partition=0)))
    value, schedule = brute_force_io_sched(inst)
    assert value == 6.5
    assert schedule["x"].io_starts == (1.0, 4.5)
    assert schedule["x"].compute_starts == (0.0, 1.0)
    check_feasible(inst, schedule)


def test_releases_give_common_start():
    # Both jobs start at t = max release = 3 (one pack).
    inst = Instance("rel", Platform.homogeneous(1, 4, 1.0), (
        Job("x", 1, (1.0,), (1.0,), release=3.0, partition=0),
        Job("y", 1, (1.0,), (1.0,), partition=0)))
    value, schedule = brute_force_io_sched(inst)
    assert value == 6.0
    assert {js.start for js in schedule.jobs} == {3.0}
    stretch, _ = brute_force_io_sched(inst, "max-stretch")
    assert stretch == 1.5   # the second I/O waits 1 of T = 2
    check_feasible(inst, schedule)


def test_partitions_are_independent():
    jobs = (Job("x", 1, (1.0,), (2.0,), partition=0),
            Job("y", 1, (1.0,), (2.0,), partition=0),
            Job("z", 1, (4.0,), (0.5,), partition=1))
    inst = Instance("two", Platform((Partition(4, 1.0), Partition(4, 0.5))), jobs)
    value, schedule = brute_force_io_sched(inst)
    assert value == 5.0   # partition 0: 1 + 2 + 2; partition 1: 4 + 1
    assert schedule.packs == ((("x", "y"),), (("z",),))
    check_feasible(inst, schedule)


def test_errors():
    inst = Instance("e", Platform.homogeneous(2, 4, 1.0), (
        Job("x", 1, (1.0,), (1.0,)),))
    with pytest.raises(OptionError, match="partition=None"):
        brute_force_io_sched(inst)
    mapped = inst.mapped_to({"x": 0})
    with pytest.raises(OptionError, match="objective='flow'"):
        brute_force_io_sched(mapped, "flow")
    many = Instance("m", Platform.homogeneous(1, 4, 1.0), (
        Job.periodic("x", 1, 1.0, 1.0, 13, partition=0),))
    with pytest.raises(OptionError, match="13 I/O phases, max_phases=12"):
        brute_force_io_sched(many)
    wide = Instance("w", Platform.homogeneous(1, 4, 1.0), (
        Job("x", 3, (1.0,), (1.0,), partition=0),
        Job("y", 2, (1.0,), (1.0,), partition=0)))
    with pytest.raises(PlanError, match="needs 5 nodes, has 4"):
        brute_force_io_sched(wide)
    deps = Instance("d", Platform.homogeneous(1, 4, 1.0), (
        Job("x", 1, (1.0,), (1.0,), partition=0),
        Job("y", 1, (1.0,), (1.0,), partition=0, after=("x",))))
    with pytest.raises(OptionError, match="dependencies"):
        brute_force_io_sched(deps)


# -- properties -----------------------------------------------------------------
@settings(max_examples=50, deadline=None)
@given(one_pack_instances(), st.sampled_from(["makespan", "max-stretch"]))
def test_matches_independent_enumeration(instance, objective):
    value, schedule = brute_force_io_sched(instance, objective)
    unpruned, _ = brute_force_io_sched(instance, objective, prune=False)
    reference = enumerate_all_orders(instance, objective)
    assert value == pytest.approx(reference, rel=1e-12)
    assert unpruned == pytest.approx(reference, rel=1e-12)
    measured = (schedule.makespan(instance) if objective == "makespan"
                else schedule.max_stretch(instance))
    assert measured == pytest.approx(value, rel=1e-12)
    check_feasible(instance, schedule)


@settings(max_examples=30, deadline=None)
@given(one_pack_instances())
def test_no_list_policy_beats_the_optimum(instance):
    import opt_sched.simulation as simulation
    best_ms, _ = brute_force_io_sched(instance, "makespan")
    best_st, _ = brute_force_io_sched(instance, "max-stretch")
    for policy in simulation.POLICY_NAMES:
        schedule = simulation.simulate(instance, simulation.OnePackPlan(),
                                       policy=policy)
        assert schedule.makespan(instance) >= best_ms * (1 - 1e-9)
        assert schedule.max_stretch(instance) >= best_st * (1 - 1e-9)
