"""Simulated annealing over I/O orders: never worse than its start, valid
merges of the job chains, exact values, and never below the brute-force
optimum."""

from __future__ import annotations

import numpy as np
import pytest

from opt_sched.exact.brute_force import brute_force_io_sched
from opt_sched.exact.io_sched.anneal import anneal_order, compile_kernels
from opt_sched.exact.io_sched.orders import node_jobs, order_value, orders_to_schedule
from opt_sched.exact.io_sched.portfolio import solve_portfolio
from opt_sched.validation import assert_feasible

from .test_lns import bench_like
from .test_stretch_bounds import integer_instance


@pytest.mark.parametrize("objective", ["makespan", "max-stretch"])
def test_anneal_never_worse_and_valid(objective):
    """From the round-robin order of 4 bench-like instances, 0.3 s of
    annealing returns an order that (a) uses every operation once, in chain
    order (the schedule passes the validator), (b) has the exact value
    ``order_value`` gives, and (c) is no worse than the start."""
    compile_kernels()  # a cold numba cache would eat the 0.3 s budget
    for seed in range(4):
        inst = bench_like(6, 8, seed)
        node = node_jobs(inst)[0]
        start = node.round_robin()
        result = anneal_order(node, objective, start, 0.3, seed=seed)
        assert sorted(result.order) == sorted(start)
        schedule = orders_to_schedule(inst, [node], [result.order], "anneal")
        assert_feasible(inst, schedule)
        assert result.value == order_value(node, result.order, objective)
        assert result.value <= order_value(node, start, objective)
        assert result.moves > 0


def test_anneal_rejects_an_unknown_objective():
    from opt_sched import OptionError

    node = node_jobs(bench_like(3, 2, 0))[0]
    with pytest.raises(OptionError, match="flow"):
        anneal_order(node, "flow", node.round_robin(), 0.1)


def test_anneal_depends_on_the_seed_only():
    """The walk counts moves, not seconds: two runs with the same seed return
    the same order and number of moves, whatever the machine's load (a move
    budget far below this machine's speed, so the time never runs out)."""
    compile_kernels()
    node = node_jobs(bench_like(6, 8, 1))[0]
    runs = [anneal_order(node, "max-stretch", node.round_robin(), 2.0, seed=3,
                         run_seconds=1.0, steps_per_second=2e6) for _ in range(2)]
    assert runs[0].order == runs[1].order
    assert runs[0].moves == runs[1].moves == 2 * int(1.0 * 2e6 / node.num_ops)
    other = anneal_order(node, "max-stretch", node.round_robin(), 2.0, seed=4,
                         run_seconds=1.0, steps_per_second=2e6)
    assert other.moves == runs[0].moves


def test_anneal_improves_a_bad_start_and_respects_the_optimum():
    """On 15 seeded tiny instances the annealed max stretch lies between the
    brute-force optimum and the round-robin value; on most it reaches the
    optimum (the walk can fail, so only a majority is asked)."""
    compile_kernels()
    rng = np.random.default_rng(5)
    reached = 0
    for index in range(15):
        inst = integer_instance(rng, index)
        opt, _ = brute_force_io_sched(inst, "max-stretch")
        node = node_jobs(inst)[0]
        start = node.round_robin()
        result = anneal_order(node, "max-stretch", start, 0.1, seed=index)
        assert opt * (1 - 1e-9) <= result.value <= order_value(node, start,
                                                                "max-stretch")
        reached += result.value <= opt * (1 + 1e-9)
    assert reached >= 10


def test_portfolio_reports_the_anneal_seed():
    """The portfolio's max-stretch run lists an ``anneal`` seed whose value is
    at most the best list policy's, and certifies a validated schedule."""
    inst = bench_like(6, 10, 3)
    result = solve_portfolio(inst, "max-stretch", 3, num_workers=1)
    seeds = result.info["seeds"][0]
    assert_feasible(inst, result.schedule)
    if "anneal" in seeds:  # absent only when a list policy met the bound
        policies = [v for name, v in seeds.items() if name not in ("anneal", "cyclic")]
        assert seeds["anneal"] <= min(policies) + 1e-12
    else:
        assert result.status.name == "OPTIMAL"
