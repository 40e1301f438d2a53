"""LPT allocation of packs to I/O nodes (seed 003 §6.2.4): Graham's bound
against brute force, width limits, heterogeneous partitions, the plan."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, Partition, PlanError, Platform
from opt_sched.heuristics import lpt_allocate, lpt_assignment


def _max_load(assignment: list[list[int]], lengths: list[float]) -> float:
    return max(sum(lengths[p] for p in row) for row in assignment)


def _brute_force_optimum(lengths: list[float], machines: int) -> float:
    """Smallest max load over all ``machines ** n`` assignments."""
    best = float("inf")
    for assign in itertools.product(range(machines), repeat=len(lengths)):
        loads = [0.0] * machines
        for p, k in enumerate(assign):
            loads[k] += lengths[p]
        best = min(best, max(loads))
    return best


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 3).flatmap(lambda r: st.tuples(
    st.just(r), st.lists(st.integers(1, 30), min_size=1, max_size=7))))
def test_lpt_within_graham_bound_of_brute_force(case):
    machines, lengths = case
    lengths = [float(x) for x in lengths]
    assignment = lpt_assignment(lengths, [1] * len(lengths), [8] * machines)
    assert sorted(p for row in assignment for p in row) == list(range(len(lengths)))
    opt = _brute_force_optimum(lengths, machines)
    assert _max_load(assignment, lengths) <= (4 / 3 - 1 / (3 * machines)) * opt + 1e-9


def test_graham_tight_example_is_reached():
    """The classic tight case for R = 2: lengths 3, 3, 2, 2, 2. LPT gives 7,
    the optimum 6 = {3, 3}, {2, 2, 2}; 7/6 = 4/3 - 1/6."""
    lengths = [3.0, 3.0, 2.0, 2.0, 2.0]
    assignment = lpt_assignment(lengths, [1] * 5, [4, 4])
    assert _max_load(assignment, lengths) == 7.0
    assert _brute_force_optimum(lengths, 2) == 6.0


def test_single_partition_keeps_everything():
    assert lpt_assignment([1.0, 5.0, 3.0], [1, 1, 1], [4]) == [[1, 2, 0]]


def test_never_on_a_partition_too_small():
    # pack 0 is the longest but only fits partition 1
    out = lpt_assignment([10.0, 1.0, 1.0], [8, 2, 2], [4, 8])
    assert 0 in out[1]
    with pytest.raises(PlanError, match="pack 0 needs nodes=16"):
        lpt_assignment([1.0], [16], [4, 8])


def test_heterogeneous_lengths_pick_earliest_finish():
    # a fast partition (length 2) beats a free slow one (length 10) twice
    lengths = [[10.0, 2.0], [10.0, 2.0], [10.0, 2.0]]
    assert lpt_assignment(lengths, [1, 1, 1], [4, 4]) == [[], [0, 1, 2]]
    lengths = [[10.0, 2.0]] * 6
    out = lpt_assignment(lengths, [1] * 6, [Partition(4, 1.0), Partition(4, 5.0)])
    # four go to k=1 (load 8); the fifth finishes at 10 on both: tie -> k=0;
    # the sixth: 20 on k=0, 10 on k=1
    assert out == [[4], [0, 1, 2, 3, 5]]


def test_shape_errors():
    with pytest.raises(PlanError, match="shape"):
        lpt_assignment([[1.0, 2.0, 3.0]], [1], [4, 4])
    with pytest.raises(PlanError, match="widths"):
        lpt_assignment([1.0, 2.0], [1], [4])


def test_lpt_allocate_builds_a_pack_plan_with_per_partition_bandwidth():
    jobs = (Job.periodic("a", 2, 1.0, 8.0), Job.periodic("b", 2, 1.0, 8.0),
            Job.periodic("c", 2, 4.0, 0.0))
    platform = Platform((Partition(4, 1.0), Partition(4, 8.0)))
    inst = Instance("h", platform, jobs)
    plan = lpt_allocate(inst, [("a",), ("b",), ("c",)])
    # lengths on k=0 / k=1: a, b: 9 / 2; c: 4 / 4. a -> k1 (2), b -> k1 (4),
    # c: 4 on k0 vs 8 on k1 -> k0. Input order is kept on each partition.
    assert plan.packs == ((("c",),), (("a",), ("b",)))


def test_lpt_allocate_rejects_unknown_partition():
    inst = Instance("x", Platform.homogeneous(1, 4), (Job.periodic("a", 1, 1, 1),))
    with pytest.raises(PlanError, match="partition=1"):
        lpt_allocate(inst, [("a",)], partitions=[1])
