"""Max-stretch bounds of IO-SCHED: the propagated-EDF bound and the deadline
questions, against the brute-force optimum."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, OptionError, Platform
from opt_sched.bounds import max_stretch_bounds
from opt_sched.bounds_stretch import (
    best_stretch_bound,
    propagate_windows,
    propagated_edf_bound,
    stretch_bounds,
)
from opt_sched.exact.brute_force import brute_force_io_sched
from opt_sched.exact.io_sched.deadlines import node_grid
from opt_sched.exact.io_sched.deadlines.model import Answer
from opt_sched.exact.io_sched.deadlines.search import QuestionLog, deadline_search
from opt_sched.exact.io_sched.deadlines.targets import Targets
from opt_sched.exact.io_sched.orders import node_jobs

from .test_bounds import random_one_pack
from .test_brute_force import one_pack_instances

TIGHT = 1e-9


# -- the propagation, by hand ------------------------------------------------------
def test_propagation_hand_cases():
    # two unit-free ops of 2 due by 3 from 0: no room
    assert not propagate_windows([0, 0], [3, 3], [2, 2], [-1, -1], [0, 0])[0]
    # preemptive EDF says yes (0-1 op0, 1-2 op1, 2-4 op0 -> lateness 0 vs d=10),
    # non-preemptive too: op1 [1, 2), op0 [2, 5) <= 10
    ok, r, d = propagate_windows([0, 1], [10, 2], [3, 1], [-1, -1], [0, 0])
    assert ok
    # edge finding: op1 (window [1, 2]) must precede op0, so op0 starts >= 2
    assert r[0] == pytest.approx(2.0)
    # the same with op0 due at 4: op1 first leaves [2, 5) > 4, op0 first
    # leaves [3, 4) > 2 for op1: refuted (preemptive EDF would accept it)
    assert not propagate_windows([0, 1], [4, 2], [3, 1], [-1, -1], [0, 0])[0]
    # a chain: op1 follows op0 of the same job after a lag of 5
    ok, r, d = propagate_windows([0, 0], [20, 20], [2, 2], [-1, 0], [0, 5])
    assert ok and r[1] == pytest.approx(7.0) and d[0] == pytest.approx(13.0)
    assert not propagate_windows([0, 0], [20, 8], [2, 2], [-1, 0], [0, 5])[0]


def test_propagation_rejects_bad_input():
    with pytest.raises(OptionError):
        propagate_windows([0, 0], [1], [1, 1], [-1, -1], [0, 0])
    with pytest.raises(OptionError):
        propagate_windows([0, 0], [5, 5], [1, 1], [1, -1], [0, 0])


def test_two_identical_jobs():
    # two jobs (w=1, v=1) starting together: one waits 1, stretch 3/2 = OPT
    inst = Instance("two", Platform.homogeneous(1, 2, 1.0),
                    (Job("a", 1, (1.0,), (1.0,), partition=0),
                     Job("b", 1, (1.0,), (1.0,), partition=0)))
    assert brute_force_io_sched(inst, "max-stretch")[0] == 1.5
    assert propagated_edf_bound(inst) == pytest.approx(1.5, rel=1e-5)
    assert propagated_edf_bound(inst) <= 1.5


# -- validity against brute force -----------------------------------------------------
def check(instance: Instance) -> tuple[float, float, float]:
    """``(edf-bisection, propagated-edf, OPT)`` with both bounds <= OPT."""
    opt, _ = brute_force_io_sched(instance, "max-stretch")
    edf = max(max_stretch_bounds(instance, fixed_start=True).values())
    prop = propagated_edf_bound(instance)
    assert edf <= opt * (1 + TIGHT), (edf, opt)
    assert prop <= opt * (1 + TIGHT), (prop, opt)
    assert prop >= edf * (1 - TIGHT)  # it starts from the EDF bound
    return edf, prop, opt


@settings(max_examples=60, deadline=None)
@given(one_pack_instances())
def test_propagated_bound_never_exceeds_the_optimum(instance):
    """Hypothesis: 1-2 partitions, bandwidths 0.5-2, releases, zero volumes."""
    check(instance)


def test_propagated_bound_on_200_seeded_instances():
    """200 seeded instances (2-4 jobs x 1-2 iterations, integer data,
    releases): always valid; the tally (how often tight) is printed with
    ``-s`` and recorded in ``models/bounds.md``."""
    rng = np.random.default_rng(2025)
    tight_edf = tight_prop = 0
    ratio_edf, ratio_prop = [], []
    for index in range(200):
        edf, prop, opt = check(random_one_pack(rng, index))
        tight_edf += math.isclose(edf, opt, rel_tol=1e-5)
        tight_prop += math.isclose(prop, opt, rel_tol=1e-5)
        ratio_edf.append(edf / opt)
        ratio_prop.append(prop / opt)
    print(f"\nmax stretch, 200 instances: edf-bisection tight {tight_edf} "
          f"(mean {np.mean(ratio_edf):.4f}, min {min(ratio_edf):.4f}); "
          f"propagated-edf tight {tight_prop} (mean {np.mean(ratio_prop):.4f}, "
          f"min {min(ratio_prop):.4f})")
    assert tight_prop >= tight_edf


def test_stretch_bounds_names(tiny2):
    bounds = stretch_bounds(tiny2)
    assert {"trivial", "edf-bisection", "propagated-edf"} <= set(bounds)
    value, name = best_stretch_bound(tiny2)
    assert value == max(bounds.values()) and bounds[name] == value


# -- deadline questions ---------------------------------------------------------------
def integer_instance(rng: np.random.Generator, index: int) -> Instance:
    """3-4 jobs x 2-3 iterations, integer data, no release (exact grid)."""
    jobs = []
    for i in range(int(rng.integers(3, 5))):
        iterations = int(rng.integers(2, 4))
        jobs.append(Job(f"j{i}", 1, tuple(rng.integers(1, 6, iterations) * 1.0),
                        tuple(rng.integers(1, 5, iterations) * 1.0), partition=0))
    return Instance(f"q{index}", Platform.homogeneous(1, 8, 1.0), tuple(jobs))


@pytest.mark.parametrize("objective", ["makespan", "max-stretch"])
def test_deadline_search_finds_and_proves_the_optimum(objective):
    """30 seeded tiny instances: from the round-robin order and a trivial
    bound, the deadline search ends with bound = value = brute-force OPT (the
    questions are exact on an integer grid, and every bound it proves is
    <= OPT)."""
    rng = np.random.default_rng(7)
    for index in range(30):
        inst = integer_instance(rng, index)
        opt, _ = brute_force_io_sched(inst, objective)
        node = node_jobs(inst)[0]
        grid = node_grid(node)
        assert grid.exact
        lower = 1.0 if objective == "max-stretch" else 0.0
        state = deadline_search(grid, objective, node.round_robin(), lower, 20.0,
                                num_workers=1)
        assert state.lower <= opt * (1 + TIGHT)
        assert state.upper >= opt * (1 - TIGHT)
        assert state.closed(), (index, state.lower, state.upper, opt)
        assert state.upper == pytest.approx(opt, rel=1e-9)


def test_question_log_doubles_repeats_within_the_time_left():
    log = QuestionLog()
    question = [10, 20, 30]
    assert log.cap_for(question, 1.0, 50.0) == 1.0        # first time: as asked
    assert log.repeats(question) == 0
    log.record(question, Answer("unknown", seconds=1.5))
    log.record([10, 20, 31], Answer("infeasible", seconds=9.0))  # settled: no time
    assert log.cap_for(question, 1.0, 50.0) == 3.0        # repeat: 2 x 1.5
    assert log.cap_for(question, 8.0, 50.0) == 8.0        # more was offered anyway
    assert log.cap_for(question, 1.0, 2.0) == 2.0         # at most what is left
    assert log.cap_for([10, 20, 31], 1.0, 50.0) == 1.0
    assert log.repeats(question) == 1 and log.repeats([10, 20, 31]) == 1


def test_deadline_search_with_a_shared_log_stays_exact():
    """Two calls sharing a log (as the portfolio's rounds do) end where one
    call ends on tiny instances: bound = value = brute-force OPT."""
    rng = np.random.default_rng(11)
    for index in range(10):
        inst = integer_instance(rng, index)
        opt, _ = brute_force_io_sched(inst, "max-stretch")
        node = node_jobs(inst)[0]
        grid = node_grid(node)
        log = QuestionLog()
        first = deadline_search(grid, "max-stretch", node.round_robin(), 1.0, 0.02,
                                num_workers=1, log=log)
        assert first.lower <= opt * (1 + TIGHT)
        state = deadline_search(grid, "max-stretch", first.order, first.lower, 20.0,
                                num_workers=1, log=log)
        assert state.closed() and state.upper == pytest.approx(opt, rel=1e-9)


def test_targets_round_trip():
    inst = integer_instance(np.random.default_rng(3), 0)
    grid = node_grid(node_jobs(inst)[0])
    makespan = Targets(grid, "makespan")
    assert makespan.next_above(10.0) == 11.0 and makespan.round_up(10.2) == 11.0
    assert makespan.snap(10.7) == 10.0
    stretch = Targets(grid, "max-stretch")
    above = stretch.next_above(1.3)
    assert above > 1.3
    # every job's deadline at `above` allows one more tick than at 1.3 for the
    # job that defines `above`
    assert any(b > a for a, b in zip(stretch.deadlines(1.3), stretch.deadlines(above)))
    with pytest.raises(OptionError):
        Targets(grid, "flow")


@st.composite
def integer_one_node(draw):
    """1-4 jobs x 1-3 iterations, integer compute 0..5 and volume 0..4, one
    partition of bandwidth 1 or 2 (halves: still an exact grid), releases."""
    bandwidth = draw(st.sampled_from([1.0, 2.0]))
    jobs = []
    for i in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, 3))
        compute = tuple(float(draw(st.integers(0, 5))) for _ in range(n))
        volume = tuple(float(draw(st.integers(0, 4))) for _ in range(n))
        jobs.append(Job(f"j{i}", 1, compute, volume,
                        release=float(draw(st.integers(0, 2))), partition=0))
    return Instance("hyp", Platform.homogeneous(1, 8, bandwidth), tuple(jobs))


@settings(max_examples=40, deadline=None)
@given(integer_one_node(), st.sampled_from(["makespan", "max-stretch"]))
def test_deadline_search_bound_never_exceeds_the_optimum(instance, objective):
    """Property: whatever it proves in 1 s is <= the brute-force optimum, and
    its incumbent is >= it."""
    opt, _ = brute_force_io_sched(instance, objective, max_phases=12)
    node = node_jobs(instance)[0]
    grid = node_grid(node)
    state = deadline_search(grid, objective, node.round_robin(),
                            1.0 if objective == "max-stretch" else 0.0, 1.0,
                            num_workers=1)
    assert state.lower <= opt * (1 + TIGHT)
    assert state.upper >= opt * (1 - TIGHT)
