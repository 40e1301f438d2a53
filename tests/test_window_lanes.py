"""The two-lane bound on a window's mean flow time
(``models/mean-flow-lanes.md``): the programme equals the brute-force
optimum of its jobs where the lanes never compete for nodes, stays below it
where they do, and the window bound is below the brute-force optimum with
the reservations."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from opt_sched import Instance, Job, Platform
from opt_sched.bounds_flow import flow_bounds
from opt_sched.bounds_window_lanes import lanes_mean_flow_bound, lanes_optimum
from opt_sched.exact.brute_force_hpc_io import brute_force_hpc_io
from opt_sched.objectives import meets_bound
from opt_sched.reservations import Reservations

from .online_helpers import online_workloads
from .window_helpers import check_mean_flow_bound, slow, small_mean_flow_case

SLOW = slow(40)


def _total(instance: Instance, mean_flow: float) -> float:
    """``sum C_i`` of a mean flow time."""
    releases = math.fsum(job.release for job in instance.jobs)
    return mean_flow * instance.num_jobs + releases


@st.composite
def _lane_cases(draw):
    """``P`` nodes, a lane ``A`` of one or two jobs of more than ``P / 2``
    nodes, one job ``B``, each with an I/O phase first and maybe compute
    after its last (at most 6 operations in all), reserved I/O intervals
    and a node hold. Half the cases leave ``B`` room beside ``A``'s jobs
    (the programme is then exact)."""
    nodes = draw(st.integers(3, 6))
    wide = draw(st.integers(1, 2))
    beside = draw(st.booleans())
    widest = nodes - 1 if beside else nodes
    jobs = []
    for k in range(wide + 1):
        phases = draw(st.integers(1, 3 if wide == 1 else 2))
        q = draw(st.integers(nodes // 2 + 1, widest)) if k < wide \
            else draw(st.integers(1, nodes - max(job.nodes for job in jobs)
                                  if beside else nodes))
        compute = tuple(float(draw(st.integers(0, 6))) for _ in range(phases))
        volume = tuple(float(draw(st.integers(1 if p == 0 else 0, 6)))
                       for p in range(phases))  # a last volume 0 leaves a tail
        jobs.append(Job(f"j{k}", q, compute, volume,
                        release=float(draw(st.integers(0, 20)))))
    busy = draw(st.lists(st.tuples(st.integers(0, 20), st.integers(1, 4)),
                         min_size=1, max_size=2))
    hold = 0 if beside else draw(st.integers(0, 1))
    reservations = Reservations.build(
        node_holds=[(float(draw(st.integers(1, 10))), hold)],
        io_busy=[(float(a), float(a + d)) for a, d in busy])
    instance = Instance("lanes", Platform.homogeneous(1, nodes, 1.0), tuple(jobs))
    return instance, list(range(wide)), [wide], reservations


@SLOW
@given(_lane_cases())
def test_lanes_programme_against_the_brute_force(case) -> None:
    """``L(A, B) <= sum C_i`` of the brute-force optimum, with equality when
    nodes never keep the lanes apart (``B`` fits beside every job of ``A``
    once its nodes are free of the holds: the programme then admits exactly
    the schedules)."""
    instance, lane_a, lane_b, reservations = case
    if not all(instance.jobs[i].nodes + instance.jobs[j].nodes
               > instance.platform.partitions[0].nodes
               for i in lane_a for j in lane_a if i < j):
        return
    optimum, _ = brute_force_hpc_io(instance, "mean-flow-time",
                                    reservations=reservations)
    total = _total(instance, optimum)
    found = lanes_optimum(instance, lane_a, lane_b, reservations=reservations)
    assert found is not None
    assert meets_bound(found, total), (found, total)
    nodes = instance.platform.partitions[0].nodes
    b = instance.jobs[lane_b[0]].nodes
    if all(instance.jobs[i].nodes + b <= nodes
           and reservations.free_from(nodes, instance.jobs[i].nodes + b) == 0.0
           for i in lane_a):
        assert math.isclose(found, total, rel_tol=1e-9, abs_tol=1e-9), (found, total)
    # a ceiling below the optimum is what comes back, one above changes nothing
    assert lanes_optimum(instance, lane_a, lane_b, reservations=reservations,
                         ceiling=found / 2) == found / 2
    assert lanes_optimum(instance, lane_a, lane_b, reservations=reservations,
                         ceiling=found + 1.0) == found


@SLOW
@given(online_workloads(max_jobs=7), st.data())
def test_lanes_bound_below_the_brute_force_optimum(instance: Instance, data) -> None:
    """The window bound <= the optimum with the reservations, >= ``alone``,
    <= the online value."""
    case = small_mean_flow_case(instance, data)
    if case is None:
        return
    window, optimum = case
    found = lanes_mean_flow_bound(window.instance, reservations=window.reservations,
                                  time_limit=5.0)
    if found:
        check_mean_flow_bound(window, optimum, found["lanes"])


def _interference() -> Instance:
    """``P = 4``: a wide job of 3 nodes with short I/O phases after short
    computes, and a 1-node job whose I/O phases are long: each of them, run
    beside the wide job, stalls it."""
    wide = Job("wide", 3, (1.0, 1.0, 1.0), (1.0, 1.0, 1.0))
    heavy = Job("heavy", 1, (1.0, 1.0), (6.0, 6.0))
    return Instance("interference", Platform.homogeneous(1, 4, 1.0), (wide, heavy))


def test_lanes_see_the_interference_no_other_bound_sees() -> None:
    """By hand: alone, the wide job ends at 6 and the heavy one at 14;
    together one of them waits. The programme is the brute-force optimum
    (they fit beside each other), above every bound of
    :mod:`opt_sched.bounds_flow`."""
    instance = _interference()
    optimum, _ = brute_force_hpc_io(instance, "mean-flow-time")
    found = lanes_optimum(instance, [0], [1])
    assert math.isclose(found, _total(instance, optimum))
    others = flow_bounds(instance, "mean-flow-time")
    assert found / 2 > max(others.values()) + 1.0
    bound = lanes_mean_flow_bound(instance, time_limit=5.0)["lanes"]
    assert math.isclose(bound, optimum)


def test_lanes_refuse_jobs_that_fit_together() -> None:
    instance = _interference()
    with pytest.raises(ValueError, match="fit together"):
        lanes_optimum(instance, [0, 1], [])
    no_io = instance.replace(jobs=(Job("a", 3, (1.0,), (0.0,)), instance.jobs[1]))
    with pytest.raises(ValueError, match="I/O phase"):
        lanes_optimum(no_io, [0], [1])


def test_lanes_out_of_time() -> None:
    """Past its deadline the programme answers ``None`` and the bound
    nothing."""
    instance = _interference()
    assert lanes_optimum(instance, [0], [1], deadline=0.0) is None
    assert lanes_mean_flow_bound(instance, time_limit=0.0) == {}


def test_lanes_wait_for_the_next_release() -> None:
    """By hand: the lane's second wide job is released at 10, long after
    the first ends; the programme starts it there (the brute-force optimum,
    the lanes fitting beside each other), not when the first ends."""
    jobs = (Job("a1", 3, (1.0,), (1.0,)), Job("a2", 3, (1.0,), (1.0,), release=10.0),
            Job("b", 1, (1.0,), (1.0,)))
    instance = Instance("release", Platform.homogeneous(1, 4, 1.0), jobs)
    optimum, _ = brute_force_hpc_io(instance, "mean-flow-time")
    found = lanes_optimum(instance, [0, 1], [2])
    assert math.isclose(found, _total(instance, optimum)), (found, optimum)


def test_lanes_equal_the_brute_force_on_seeded_pairs() -> None:
    """200 seeded pairs (a 3-node job, a 1-node one beside it on 4 nodes,
    1-4 operations each, up to two reserved I/O intervals): the programme
    is the brute-force optimum. (A Pareto front that forgot the I/O node's
    free time fails on the first of them: 24 for 23.)"""
    rng = random.Random(1)
    for _ in range(200):
        ops_a, ops_b = rng.randint(1, 4), rng.randint(1, 4)
        a = Job("a", 3, tuple(float(rng.randint(0, 4)) for _ in range(ops_a)),
                tuple(float(rng.randint(1, 4)) for _ in range(ops_a)))
        b = Job("b", 1, tuple(float(rng.randint(0, 4)) for _ in range(ops_b)),
                tuple(float(rng.randint(1, 4)) for _ in range(ops_b)),
                release=float(rng.randint(0, 5)))
        instance = Instance("pair", Platform.homogeneous(1, 4, 1.0), (a, b))
        busy = [(float(s), float(s + rng.randint(1, 3)))
                for s in rng.sample(range(15), rng.randint(0, 2))]
        reservations = Reservations.build(io_busy=busy)
        optimum, _ = brute_force_hpc_io(instance, "mean-flow-time",
                                        reservations=reservations)
        found = lanes_optimum(instance, [0], [1], reservations=reservations)
        assert math.isclose(found, _total(instance, optimum), abs_tol=1e-9), \
            (a, b, busy, found, optimum)
