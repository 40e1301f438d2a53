"""LNS over I/O orders and the portfolio: never worse than the seed, valid
schedules, exact on tiny instances."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, OptionError, Partition, Platform
from opt_sched.exact.brute_force import brute_force_io_sched
from opt_sched.exact.io_sched.deadlines import node_grid
from opt_sched.exact.io_sched.lns import WindowRepair, improve_order, solve_lns
from opt_sched.exact.io_sched.orders import (
    node_jobs,
    order_value,
    orders_from_schedule,
    orders_to_schedule,
    semi_active,
)
from opt_sched.exact.io_sched.portfolio import policy_seeds, solve_portfolio
from opt_sched.simulation import OnePackPlan, simulate
from opt_sched.validation import assert_feasible
from opt_sched.workloads.tucan import tucan_workload

from .test_brute_force import one_pack_instances
from .test_stretch_bounds import integer_instance


def bench_like(jobs: int, iterations: int, seed: int) -> Instance:
    """Periodic jobs, w in 10..100, integer I/O (like scripts/bench_exact.py)."""
    rng = np.random.default_rng(seed)
    job_list = []
    for i in range(jobs):
        w = int(rng.integers(10, 101))
        d = max(1, round(w * float(rng.uniform(0.05, 0.4))))
        job_list.append(Job.periodic(f"j{i}", 1, w, d, iterations, partition=0))
    return Instance(f"b{seed}", Platform.homogeneous(1, jobs, 1.0), tuple(job_list))


# -- io_orders ---------------------------------------------------------------------
def test_order_round_trip_through_a_schedule(tiny2):
    schedule = simulate(tiny2, OnePackPlan(), policy="fifo")
    nodes = node_jobs(tiny2)
    orders = orders_from_schedule(nodes, schedule)
    rebuilt = orders_to_schedule(tiny2, nodes, orders, "test")
    assert_feasible(tiny2, rebuilt)
    # FIFO is non-idling: its semi-active re-timing is the same schedule
    assert rebuilt.makespan(tiny2) == schedule.makespan(tiny2)
    assert semi_active(nodes[0], orders[0]).completion == tuple(
        schedule.completion(tiny2, tiny2.jobs[i].id) for i in nodes[0].members)


# -- window repair -----------------------------------------------------------------
@pytest.mark.parametrize("objective", ["makespan", "max-stretch"])
def test_whole_window_repair_is_exact(objective):
    """A window covering the whole order is the full problem: CP-SAT's answer
    has the brute-force optimal value (20 seeded tiny instances)."""
    rng = np.random.default_rng(11)
    for index in range(20):
        inst = integer_instance(rng, index)
        opt, _ = brute_force_io_sched(inst, objective)
        node = node_jobs(inst)[0]
        order = node.round_robin()
        result = WindowRepair(node_grid(node), objective, order, 0,
                              len(order)).solve(10, num_workers=1)
        assert result.status == "OPTIMAL"
        value = order_value(node, result.order, objective)
        # max stretch: CP-SAT rounds the ratio to 1e-5, so it may pick an
        # order within that of the optimum
        assert value == pytest.approx(opt, rel=1e-4 if objective != "makespan"
                                      else 1e-12)
        assert value >= opt * (1 - 1e-9)


@pytest.mark.parametrize("objective", ["makespan", "max-stretch"])
def test_lns_never_worse_than_its_seed(objective):
    """From the two best list-policy orders of 3 random instances and a
    deliberately bad round-robin order, 0.5 s of LNS never returns a worse
    value, and its schedule passes the validator."""
    for seed in range(3):
        inst = bench_like(5, 6, seed)
        nodes = node_jobs(inst)
        node = nodes[0]
        grid = node_grid(node)
        seeds = sorted(policy_seeds(inst, nodes, objective)[0], key=lambda s: s.value)
        starts = [s.order for s in seeds[:2]]
        starts.append(node.round_robin())
        for start in starts:
            before = order_value(node, start, objective)
            order, value, _stats = improve_order(grid, objective, start, 0.5,
                                                seed=seed, window=6, num_workers=1)
            assert value <= before + 1e-9
            assert value == pytest.approx(order_value(node, order, objective))
            assert sorted(order) == sorted(start)
            schedule = orders_to_schedule(inst, nodes, [order], "lns")
            assert_feasible(inst, schedule)


def test_solve_lns_front_door():
    inst = bench_like(6, 8, 42)
    schedule, info = solve_lns(inst, 3.0, seed=1, num_workers=1)
    assert_feasible(inst, schedule)
    node_info = info["nodes"][0]
    assert schedule.makespan(inst) == pytest.approx(node_info["value"])
    assert node_info["value"] <= min(node_info["seeds"].values()) + 1e-9
    with pytest.raises(OptionError):
        solve_lns(inst, 0)


# -- the portfolio -------------------------------------------------------------------
@pytest.mark.parametrize("objective", ["makespan", "max-stretch"])
def test_portfolio_is_optimal_on_tiny_instances(objective):
    rng = np.random.default_rng(5)
    for index in range(8):
        inst = integer_instance(rng, index)
        opt, _ = brute_force_io_sched(inst, objective)
        result = solve_portfolio(inst, objective, time_limit=10, num_workers=1)
        assert_feasible(inst, result.schedule)
        assert result.lower_bound <= opt * (1 + 1e-9)
        assert result.objective >= opt * (1 - 1e-9)
        assert str(result.status) == "optimal", (index, result.objective,
                                                 result.lower_bound, opt)


def test_portfolio_on_tucan_batch():
    """Tucan at batch 0.05 (13 to 50 iterations): valid, no worse than the
    best list policy, bound <= value."""
    inst = tucan_workload(0.05)
    result = solve_portfolio(inst, "makespan", time_limit=5)
    assert_feasible(inst, result.schedule)
    best_policy = min(result.info["seeds"][0][p] for p in result.info["seeds"][0]
                      if p != "cyclic")
    assert result.objective <= best_policy + 1e-9
    assert result.lower_bound <= result.objective * (1 + 1e-9)


def test_portfolio_rejects_bad_options(tiny2):
    with pytest.raises(OptionError):
        solve_portfolio(tiny2, "flow", 1)
    with pytest.raises(OptionError):
        solve_portfolio(tiny2, "makespan", -1)
    with pytest.raises(OptionError):
        solve_portfolio(tiny2, "makespan", 1, cpsat_share=2.0)
    with pytest.raises(OptionError):
        solve_portfolio(tiny2, "makespan", 1, hints=True)  # not an option of it


def test_lns_backend_through_the_front_door():
    """``solve(..., solver="lns")``: certified, status by the usual rule, no
    worse than the best list policy."""
    from opt_sched import solve

    inst = bench_like(5, 6, 3)
    result = solve(inst, "io-sched", "makespan", "lns", time_limit=3, num_workers=1)
    assert_feasible(inst, result.schedule)
    seeds = policy_seeds(inst, node_jobs(inst), "makespan")[0]
    assert result.objective <= min(s.value for s in seeds) + 1e-9
    assert result.lower_bound <= result.objective * (1 + 1e-9)
    assert str(result.status) in ("optimal", "feasible")


@st.composite
def real_valued_instances(draw):
    """1-2 partitions (bandwidth 0.7 or 1.3), 1-4 jobs of 1-3 iterations with
    real compute and volumes (thirds and irrational-looking decimals: an
    inexact grid, durations rounded up), optional releases."""
    count = draw(st.integers(1, 2))
    platform = Platform(tuple(Partition(8, draw(st.sampled_from([0.7, 1.3])))
                              for _ in range(count)))
    real = st.floats(0.1, 5.0, allow_nan=False).map(lambda x: round(x, 6))
    jobs = []
    for i in range(draw(st.integers(1, 4))):
        n = draw(st.integers(1, 3))
        compute = tuple(draw(real) / 3 for _ in range(n))
        volume = tuple(draw(st.sampled_from([0.0, 1.0])) * draw(real)
                       for _ in range(n))
        release = draw(real) if draw(st.booleans()) else 0.0
        jobs.append(Job(f"j{i}", 1, compute, volume, release=release,
                        partition=draw(st.integers(0, count - 1))))
    return Instance("hyp-real", platform, tuple(jobs))


@settings(max_examples=25, deadline=None)
@given(st.one_of(one_pack_instances(max_phases=6), real_valued_instances()),
       st.sampled_from(["makespan", "max-stretch"]))
def test_portfolio_bound_never_exceeds_the_optimum(instance, objective):
    """Property (issue 13): through the front door, the portfolio's certified
    bound is at most the brute-force optimum and its validated value at least
    it, on exact grids (quarters, 1-2 partitions, releases, zero volumes) and
    inexact ones (real data, where CP-SAT and the deadline questions work on
    rounded durations)."""
    from opt_sched import solve

    opt, _ = brute_force_io_sched(instance, objective)
    result = solve(instance, "io-sched", objective, "portfolio", time_limit=2,
                   num_workers=1)
    assert_feasible(instance, result.schedule)
    assert result.lower_bound <= opt * (1 + 1e-9) + 1e-9, (result.lower_bound, opt)
    assert result.objective >= opt * (1 - 1e-9) - 1e-9
    if str(result.status) == "optimal":
        assert result.objective == pytest.approx(opt, rel=1e-6)
