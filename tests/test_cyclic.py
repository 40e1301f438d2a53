"""Cyclic steady state: multiplicities, the period model against a
brute-force enumeration of one period, unrolling, and the validator."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, OptionError, Platform
from opt_sched.exact.io_sched.cyclic import (
    best_rotation,
    cyclic_pattern,
    cyclic_schedule,
    multiplicities,
    solve_period,
    unrolled_order,
)
from opt_sched.exact.io_sched.cyclic.brute_force import brute_force_period
from opt_sched.exact.io_sched.cyclic.pattern import small_integer_ratio
from opt_sched.exact.io_sched.orders import node_jobs, order_value
from opt_sched.validation import assert_feasible
from opt_sched.workloads.tucan import tucan_workload


def periodic_instance(specs, iterations=None, name="p") -> Instance:
    """Jobs ``(w, v)`` (or ``(w, v, n)``) on one partition, b = 1."""
    jobs = []
    for i, spec in enumerate(specs):
        w, v = spec[0], spec[1]
        n = spec[2] if len(spec) > 2 else (iterations or 4)
        jobs.append(Job.periodic(f"j{i}", 1, w, v, n, partition=0))
    return Instance(name, Platform.homogeneous(1, len(jobs), 1.0), tuple(jobs))


# -- multiplicities -------------------------------------------------------------
def test_small_integer_ratio_exact_and_capped():
    # Tucan: 1/c = 1/42, 1/21, 1/10.5 -> 1 : 2 : 4 exactly
    assert small_integer_ratio([1 / 42, 1 / 21, 1 / 10.5, 1 / 10.5, 1 / 21],
                               24) == (1, 2, 4, 4, 2)
    assert small_integer_ratio([250, 500, 1000], 24) == (1, 2, 4)
    # 7 : 3 reduced sums to 10 > cap 6: approximated, sum within the cap
    capped = small_integer_ratio([7, 3], 6)
    assert sum(capped) <= 6 and capped[0] > capped[1] >= 1
    with pytest.raises(OptionError):
        small_integer_ratio([1, 0], 10)


def test_multiplicity_rules_on_tucan():
    node = node_jobs(tucan_workload())[0]
    # equal lengths T_i: both rules give 1:2:4:4:2
    assert multiplicities(node, "completion") == (1, 2, 4, 4, 2)
    assert multiplicities(node, "rate") == (1, 2, 4, 4, 2)
    with pytest.raises(OptionError):
        multiplicities(node, "nope")


def test_non_periodic_node_is_rejected():
    inst = Instance("np", Platform.homogeneous(1, 2, 1.0), (
        Job("a", 1, (1.0, 2.0), (1.0, 1.0), partition=0),
        Job.periodic("b", 1, 2.0, 1.0, 2, partition=0)))
    with pytest.raises(OptionError):
        cyclic_pattern(node_jobs(inst)[0])
    with pytest.raises(OptionError):
        cyclic_schedule(inst, time_limit=1)


# -- the period model against the brute-force referee ---------------------------
def random_pattern(rng: random.Random):
    n = rng.randint(2, 3)
    inst = periodic_instance([(rng.randint(1, 5), rng.randint(1, 3))
                              for _ in range(n)])
    mult = [rng.randint(1, 2) for _ in range(n)]
    if sum(mult) > 5:
        mult[0] = 1
    return cyclic_pattern(node_jobs(inst)[0], multiplicity=mult)


def test_period_model_equals_brute_force_on_tiny_patterns():
    """40 seeded patterns (2-3 jobs, integer w in 1..5, d in 1..3, 1-2
    iterations per period): the CP-SAT minimum period on the integer grid
    equals the enumeration of one period (and is proven optimal)."""
    rng = random.Random(13)
    for _ in range(40):
        pattern = random_pattern(rng)
        expected = brute_force_period(pattern)
        solution = solve_period(pattern, 10, resolution=1.0)
        assert solution.status == "optimal"
        assert round(solution.period) == expected, (pattern, solution.period)
        assert pattern.period_lower_bound() <= solution.period + 1e-9
        assert solution.period <= pattern.serial_period() + 1e-9


def test_brute_force_period_by_hand():
    # one job w=3, d=2, m=2: period 2 * 5 = 10 (chain), node load 4
    inst = periodic_instance([(3, 2)])
    pattern = cyclic_pattern(node_jobs(inst)[0], multiplicity=[2])
    assert brute_force_period(pattern) == 10
    # two jobs (w=1, d=2), m=1 each: node needs 4, each chain 3 -> 4
    inst = periodic_instance([(1, 2), (1, 2)])
    pattern = cyclic_pattern(node_jobs(inst)[0], multiplicity=[1, 1])
    assert brute_force_period(pattern) == 4
    assert round(solve_period(pattern, 5, resolution=1.0).period) == 4


def test_period_timetable_respects_the_circle():
    """The returned positions satisfy wrap-around exclusivity and the chain
    closing after one period, checked directly on the circle."""
    rng = random.Random(5)
    for _ in range(10):
        pattern = random_pattern(rng)
        sol = solve_period(pattern, 10, resolution=1.0)
        lam = sol.period
        ops = [(p, a) for p, row in enumerate(sol.positions) for a in row]
        for x, (px, ax) in enumerate(ops):
            for y, (py, ay) in enumerate(ops):
                if x < y:
                    assert (ay - ax) % lam >= pattern.duration[px] - 1e-9
                    assert (ax - ay) % lam >= pattern.duration[py] - 1e-9
        for p, row in enumerate(sol.positions):
            closing = row[0] + lam - row[-1]
            gaps = [b - a for a, b in itertools.pairwise(row)] + [closing]
            assert min(gaps) >= pattern.cycle[p] - 1e-9
        assert len(sol.word) == pattern.num_ops


# -- unrolling and the validator -------------------------------------------------
def test_unrolled_order_counts_and_rotation():
    inst = periodic_instance([(2, 1, 5), (4, 1, 2), (1, 1, 0 + 3)])
    node = node_jobs(inst)[0]
    for theta in range(3):
        order = unrolled_order(node, (0, 1, 0, 2), theta)
        assert [order.count(j) for j in range(3)] == [5, 2, 3]
    order, value, _ = best_rotation(node, (0, 1, 0, 2), "makespan")
    assert value == order_value(node, order, "makespan")


def test_tucan_cyclic_schedule_is_valid():
    """Tucan (batch 0.1: 25/50/100/100/50 iterations): the cyclic schedule
    passes the validator; its period is at least the steady-state bound 50
    (the node needs 10 + 2 * 5 + 4 * 2.5 * 2 + 2 * 5 = 50 per period)."""
    inst = tucan_workload(0.1)
    schedule, info = cyclic_schedule(inst, "makespan", time_limit=4)
    assert_feasible(inst, schedule)
    node_info = info["nodes"][0]
    assert node_info["multiplicity"] == [1, 2, 4, 4, 2]
    assert node_info["period"] >= 50.0
    assert node_info["period_lower_bound"] >= 50.0
    assert schedule.makespan(inst) == pytest.approx(node_info["value"])


@st.composite
def periodic_instances(draw):
    n = draw(st.integers(1, 4))
    quarter = st.integers(1, 24).map(lambda q: q / 4)
    specs = [(draw(quarter), draw(quarter), draw(st.integers(1, 6)))
             for _ in range(n)]
    return periodic_instance(specs, name="hyp")


@settings(max_examples=15, deadline=None)
@given(periodic_instances(), st.sampled_from(["makespan", "max-stretch"]))
def test_cyclic_schedules_pass_the_validator(instance, objective):
    schedule, info = cyclic_schedule(instance, objective, time_limit=2)
    assert_feasible(instance, schedule)
    value = (schedule.makespan(instance) if objective == "makespan"
             else schedule.max_stretch(instance))
    assert value == pytest.approx(info["nodes"][0]["value"], rel=1e-9)
