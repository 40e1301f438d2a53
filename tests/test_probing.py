"""The "objective <= T?" questions (:mod:`opt_sched.exact.cpsat.probing`):
the bound ladder and the bisection, on a toy model whose optimum is known by
construction, and the ladder alone proving IO-SCHED optima that brute force
computes independently."""

from __future__ import annotations

import pytest

import opt_sched
from opt_sched.exact.brute_force import brute_force_io_sched
from opt_sched.exact.cpsat.probing import BoundSearch, ObjectiveProbe
from opt_sched.validation import assert_feasible

from .conftest import INSTANCES


def _toy(optimum: int):
    """``min z`` with ``z >= x + y``, ``x + y >= optimum``: optimum ``optimum``."""
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    x = model.new_int_var(0, 100, "x")
    y = model.new_int_var(0, 100, "y")
    z = model.new_int_var(0, 200, "z")
    model.add(x + y >= optimum)
    model.add(z >= x + y)
    model.minimize(z)

    def factory(limit, params):
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = limit
        solver.parameters.num_workers = 1
        return solver

    return model, z, factory


def test_ladder_climbs_to_the_optimum_one_step_at_a_time():
    model, z, factory = _toy(7)
    search = BoundSearch(lower=0)
    ObjectiveProbe(model, z.index, factory).ladder(search, budget=10, probe_limit=2)
    assert [a for _, a, _ in search.answers] == ["infeasible"] * 7 + ["solution"]
    assert [t for t, _, _ in search.answers] == list(range(8))
    assert search.closed and search.lower == search.upper == 7


def test_wide_ladder_then_bisection_close_the_gap():
    model, z, factory = _toy(7)
    search = BoundSearch(lower=0)
    probe = ObjectiveProbe(model, z.index, factory)
    probe.ladder(search, budget=10, probe_limit=2, step=5)
    # T = 0, then L + 4: 0 -> L=1, 5 -> L=6, 10 -> a solution in [7, 10]
    assert [t for t, _, _ in search.answers] == [0, 5, 10]
    assert search.lower == 6 and 7 <= search.upper <= 10
    probe.bisect(search, budget=10)
    assert search.closed and search.lower == search.upper == 7
    # the model given to the probe is left as it was
    assert list(model.proto.variables[z.index].domain) == [0, 200]


def test_ladder_stops_at_an_incumbent():
    model, z, factory = _toy(7)
    search = BoundSearch(lower=3, upper=5, solver=object())
    ObjectiveProbe(model, z.index, factory).ladder(search, budget=10, probe_limit=2)
    # never asks T >= U; a lower bound above U would be a contradiction
    assert all(t <= 4 for t, _, _ in search.answers)
    assert search.lower == 5


@pytest.mark.parametrize("name", ["tiny5.json", "tiny2.json"])
def test_ladder_alone_reaches_the_brute_force_optimum(name):
    inst = opt_sched.read_instance(INSTANCES / name)
    optimum, _ = brute_force_io_sched(inst, "makespan", max_phases=14)
    result = opt_sched.solve(inst, problem="io-sched", objective="makespan",
                             time_limit=30, warm=False, ladder_share=1.0)
    assert_feasible(inst, result.schedule)
    assert str(result.status) == "optimal"
    assert result.objective == pytest.approx(optimum, rel=1e-9)
    answers = result.info["probes"]
    # every answer before the solution refuted a value below the optimum
    assert answers[-1][1] == "solution"
    tick = result.info["tick"]
    assert all(a == "infeasible" and t * tick < optimum for t, a, _ in answers[:-1])


def test_ladder_share_is_checked():
    inst = opt_sched.read_instance(INSTANCES / "tiny2.json")
    with pytest.raises(opt_sched.OptionError, match="ladder_share"):
        opt_sched.solve(inst, problem="io-sched", ladder_share=1.5)
