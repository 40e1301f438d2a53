"""StartsPlan waits for named resources (shared by all partitions)."""

from __future__ import annotations

from opt_sched import Instance, Job, Partition, Platform
from opt_sched.simulation import StartsPlan, simulate
from opt_sched.validation import assert_feasible, validate


def test_named_resources_gate_starts_across_partitions():
    platform = Platform((Partition(4), Partition(4)), resources=(("bb", 10.0),))
    jobs = (Job("a", 2, (5.0,), (1.0,), partition=0, demands=(("bb", 6.0),)),
            Job("b", 2, (3.0,), (0.0,), partition=1, demands=(("bb", 5.0),)),
            Job("c", 2, (2.0,), (0.0,), partition=1, demands=(("bb", 4.0),)))
    inst = Instance("bb", platform, jobs)
    schedule = simulate(inst, StartsPlan(start={"a": 0, "b": 0, "c": 0}))
    assert_feasible(inst, schedule)
    # a (6) and b (5) exceed 10 together: b waits for a to complete at 6;
    # c (4) fits beside a but may not overtake b on partition 1.
    assert schedule["a"].start == 0
    assert schedule["b"].start == 6
    assert schedule["c"].start == 6


def test_without_gating_the_validator_would_object():
    platform = Platform((Partition(4),), resources=(("bb", 10.0),))
    jobs = (Job("a", 1, (5.0,), (0.0,), demands=(("bb", 6.0),)),
            Job("b", 1, (3.0,), (0.0,), demands=(("bb", 5.0),)))
    inst = Instance("bb", platform, jobs)
    schedule = simulate(inst, StartsPlan(start={"a": 0, "b": 0}))
    assert validate(inst, schedule).feasible
    assert schedule["b"].start == 5
