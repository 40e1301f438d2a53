"""The destructive lower-bounding phase of the CP-SAT models proves the
optimum that the first phase leaves open.

``stop_after_first_solution`` makes phase 1 end on its first incumbent
without a proof, so the proof, when it comes, comes from the bisection on
"objective <= T?". The optimum is cross-checked against brute force.
"""

from __future__ import annotations

import pytest

import opt_sched
from opt_sched.exact.brute_force import brute_force_io_sched
from opt_sched.validation import assert_feasible

from .conftest import INSTANCES

FIRST_ONLY = {"stop_after_first_solution": True}


@pytest.mark.parametrize("objective", ["makespan", "max-stretch"])
def test_io_sched_bisection_proves_the_brute_force_optimum(objective):
    inst = opt_sched.read_instance(INSTANCES / "tiny5.json")
    optimum, _ = brute_force_io_sched(inst, objective, max_phases=14)
    plain = opt_sched.solve(inst, problem="io-sched", objective=objective,
                            time_limit=20, params=FIRST_ONLY, warm=False,
                            lower_bounding=False)
    result = opt_sched.solve(inst, problem="io-sched", objective=objective,
                             time_limit=20, params=FIRST_ONLY, warm=False,
                             lower_bounding=True)
    assert_feasible(inst, result.schedule)
    assert str(result.status) == "optimal"
    assert result.objective == pytest.approx(optimum, rel=1e-6)
    assert result.lower_bound <= optimum * (1 + 1e-9)
    if str(plain.status) != "optimal":  # the bisection did the proving
        assert result.info.get("lower_bounding_rounds", 0) >= 1


def test_planning_bisection_proves_the_optimum():
    inst = opt_sched.read_instance(INSTANCES / "planning4.json")
    reference = opt_sched.solve(inst, problem="planning", time_limit=20)
    assert str(reference.status) == "optimal"
    result = opt_sched.solve(inst, problem="planning", time_limit=20,
                             params=FIRST_ONLY)
    assert_feasible(inst, result.schedule)
    assert str(result.status) == "optimal"
    assert result.objective == pytest.approx(reference.objective)
