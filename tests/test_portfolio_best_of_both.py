"""The portfolio keeps the best of both on the max stretch (issue 27 item 5):
with ``cpsat_leg`` its answer has the better schedule and the higher bound
of its own search and of the CP-SAT leg (the plain CP-SAT solver's search
from its incumbent), certified once by the front door (``models/lns.md``,
"Best of both"); the annealed order is the incumbent when it is the best
seed."""

from __future__ import annotations

import pytest

from opt_sched import OptionError, solve
from opt_sched.exact.io_sched.orders import node_jobs, orders_to_schedule
from opt_sched.exact.io_sched.portfolio import solve_portfolio
from opt_sched.objectives import RTOL
from opt_sched.validation import assert_feasible

from .test_lns import bench_like

LIMIT = 3.0
"""Seconds per solve; the leg gets 30 % of the node's share."""


def _instance():
    """Periodic jobs like ``scripts/bench_exact.py``'s, large enough that the
    seeds and the quick questions leave the node open (the leg runs)."""
    return bench_like(8, 8, 3)


def _part(instance, order):
    """The max stretch of one part's order, recomputed by the test: the order
    written as a schedule, validated, its objective read from the schedule."""
    schedule = orders_to_schedule(instance, node_jobs(instance), [list(order)], "part")
    assert_feasible(instance, schedule)
    return schedule.max_stretch(instance)


@pytest.fixture(scope="module")
def best():
    """The portfolio with the leg, which starts from the best list policy
    (1.2857 here, far above the optimum): no cyclic or annealed seed and no
    quick question, any of which may find and prove the optimum before the
    leg starts."""
    instance = _instance()
    return instance, solve_portfolio(instance, "max-stretch", LIMIT, seed=0,
                                     num_workers=2, cpsat_leg=0.3, anneal=False,
                                     cyclic=False, quick_seconds=0.01)


def test_best_of_both_keeps_the_better_part(best):
    """The validated value is at most each part's schedule, the bound at least
    each part's bound and at most the value."""
    instance, result = best
    leg = result.info["phases"][0].get("cpsat_leg")
    assert leg is not None, "the node closed before the leg: pick a harder instance"
    assert_feasible(instance, result.schedule)
    value = result.schedule.max_stretch(instance)
    assert value == pytest.approx(result.objective, rel=1e-12)
    portfolio_part = _part(instance, leg["start_order"])
    parts = [portfolio_part]
    if leg["order"] is not None:
        parts.append(_part(instance, leg["order"]))
    assert value <= min(parts) * (1 + 1e-9)
    assert result.lower_bound >= max(leg["bound"], leg["start_bound"]) * (1 - 1e-9)
    assert result.lower_bound <= value * (1 + RTOL)


def test_best_of_both_against_independent_solves(best):
    """Each part run alone (the plain CP-SAT solver; the portfolio without
    the leg): the brackets are consistent (every bound at most every
    validated value), and where a part alone proves its value optimal the
    best of both is no worse."""
    instance, result = best
    alone = [solve(instance, "io-sched", "max-stretch", "cpsat", time_limit=LIMIT),
             solve_portfolio(instance, "max-stretch", LIMIT, cpsat_leg=0.0)]
    for other in alone:
        assert_feasible(instance, other.schedule)
        assert result.lower_bound <= other.objective * (1 + RTOL)
        assert other.lower_bound <= result.objective * (1 + RTOL)
        if str(other.status) == "optimal":
            assert result.objective <= other.objective * (1 + RTOL)


def test_the_incumbent_is_the_best_seed_annealing_included(best):
    """The search starts from the best seed, the annealed order included (it
    used to reach the search only as a CP-SAT warm start)."""
    instance, _ = best
    result = solve_portfolio(instance, "max-stretch", LIMIT, seed=0)
    seeds = result.info["seeds"][0]
    assert "anneal" in seeds
    assert seeds[result.info["seed_best"][0]] == min(seeds.values())
    assert result.objective <= min(seeds.values()) * (1 + 1e-9)


def test_no_leg_for_the_makespan(best):
    instance, _ = best
    result = solve_portfolio(instance, "makespan", 1.0)
    assert all("cpsat_leg" not in p for p in result.info["phases"])


@pytest.mark.parametrize("bad", [-0.1, 1.5, True, "x"])
def test_cpsat_leg_must_be_a_share(tiny2, bad):
    with pytest.raises(OptionError, match="cpsat_leg"):
        solve_portfolio(tiny2, "max-stretch", 1, cpsat_leg=bad)
