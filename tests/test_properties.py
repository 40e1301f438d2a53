"""Property tests: random valid instance x every I/O policy -> the validator
accepts the simulated schedule, and every lower bound is below its value."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

import opt_sched.bounds as bounds
import opt_sched.simulation as simulation
import opt_sched.validation as validation

from .strategies import instances, slow_settings, starts_plan_runs

SETTINGS = slow_settings(60)


@SETTINGS
@given(instance=instances(), policy=st.sampled_from(simulation.POLICY_NAMES))
def test_one_pack_under_every_policy_is_feasible_and_above_bounds(instance, policy):
    schedule = simulation.simulate(instance, simulation.OnePackPlan(), policy=policy)
    validation.assert_feasible(instance, schedule)
    makespan = schedule.makespan(instance)
    for name, value in bounds.makespan_bounds(instance).items():
        assert value <= makespan * (1 + 1e-9) + 1e-9, (name, value, makespan)
    # one pack: every start is fixed, so the max-stretch bounds apply
    stretch = schedule.max_stretch(instance)
    for name, value in bounds.max_stretch_bounds(instance).items():
        assert value <= stretch * (1 + 1e-6) + 1e-9, (name, value, stretch)


@SETTINGS
@given(run=starts_plan_runs())
def test_starts_plans_are_feasible_and_above_bounds(run):
    instance, plan, policy = run
    schedule = simulation.simulate(instance, plan, policy=policy)
    validation.assert_feasible(instance, schedule)
    makespan = schedule.makespan(instance)
    for name, value in bounds.makespan_bounds(instance).items():
        assert value <= makespan * (1 + 1e-9) + 1e-9, (name, value, makespan)


@SETTINGS
@given(instance=instances(mapped=False, max_jobs=7, max_partitions=3),
       policy=st.sampled_from(simulation.POLICY_NAMES),
       sensibility=st.sampled_from([0.5, 1.0, 2.0, float("inf")]))
def test_make_pack_plans_are_feasible(instance, policy, sensibility):
    import opt_sched.heuristics as heuristics
    if not instance.platform.is_homogeneous:
        pass  # LPT handles heterogeneous partitions too
    method = "first-fit" if sensibility == float("inf") else "make-pack"
    plan = heuristics.pack_plan(instance, method, sensibility=sensibility,
                                io_nodes=instance.platform.num_partitions)
    schedule = simulation.simulate(instance, plan, policy=policy)
    validation.assert_feasible(instance, schedule)
    assert schedule.packs is not None
    makespan = schedule.makespan(instance)
    for name, value in bounds.makespan_bounds(instance).items():
        assert value <= makespan * (1 + 1e-9) + 1e-9, (name, value, makespan)
