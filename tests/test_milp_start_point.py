"""A solver's "infeasible" against the MIP start (opt_sched.exact.milp.start_point).

CBC 2.10.3 reported a feasible io-sched model infeasible once in CI (a 1 s
run, after a crash with the MIP start); the front door then raised a
SolverError. These tests make a backend lie on purpose and check that a
start which satisfies the model refutes the lie, and that one which does not
leaves the verdict alone.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opt_sched.exact.io_sched.milp import solve_io_sched
from opt_sched.exact.milp import backend
from opt_sched.exact.milp.backend import MilpSettings, load_pulp, solve_milp
from opt_sched.exact.milp.start_point import satisfies, start_of
from opt_sched.exact.result import SolveStatus
from opt_sched.validation import assert_feasible

from .milp_helpers import busy_io_sched


def _small_model(start: dict[str, float] | None):
    """min x + y  s.t.  x + y >= 3,  x - y == 1,  x, y integer in [0, 5]."""
    pulp = load_pulp()
    prob = pulp.LpProblem("small", pulp.LpMinimize)
    x = pulp.LpVariable("x", 0, 5, cat="Integer")
    y = pulp.LpVariable("y", 0, 5, cat="Integer")
    prob += x + y
    prob += x + y >= 3
    prob += x - y == 1
    for var in (x, y) if start is not None else ():
        var.setInitialValue(start[var.name])
    return prob


@given(x=st.integers(-1, 6), y=st.integers(-1, 6),
       shift=st.sampled_from([0.0, 0.5, 1e-9]))
@settings(max_examples=200, deadline=None)
def test_satisfies_agrees_with_the_rows_written_out(x: int, y: int,
                                                    shift: float) -> None:
    """The check against the model's rows written out by hand: a shift of
    1e-9 is rounding (within the tolerance), one of 0.5 breaks integrality."""
    point = {"x": x + shift, "y": float(y)}
    by_hand = (shift != 0.5 and 0 <= x <= 5 and 0 <= y <= 5
               and x + y >= 3 and x - y == 1)
    assert satisfies(_small_model(None), point) == by_hand


def test_start_of_needs_every_variable() -> None:
    assert start_of(_small_model(None)) is None
    assert start_of(_small_model({"x": 2, "y": 1})) == {"x": 2.0, "y": 1.0}


def _lying_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """Both backends answer "infeasible" at once, whatever the model."""
    def lie(prob, settings, *, relax=False, end=None):
        if relax:  # the LP relaxation fallback is honest
            return (SolveStatus.OPTIMAL, {}, 2.0, 2.0, "lp", "Optimal", "fake", {})
        return (SolveStatus.INFEASIBLE, {}, None, None, "none", "Infeasible",
                "fake", {})
    monkeypatch.setattr(backend, "_solve_cbc", lie)
    monkeypatch.setattr(backend, "_solve_highs", lie)


@pytest.mark.parametrize("name", ["cbc", "highs"])
def test_a_start_in_the_model_refutes_infeasible(monkeypatch, name) -> None:
    _lying_backend(monkeypatch)
    solution = solve_milp(_small_model({"x": 2, "y": 1}),
                          MilpSettings(backend=name, time_limit=1.0))
    assert solution.status is SolveStatus.TIMEOUT_NO_SOLUTION
    assert "infeasible_refuted" in solution.info
    assert solution.objective is None and not solution.values


@pytest.mark.parametrize("start", [{"x": 3, "y": 1}, {"x": 1.5, "y": 0.5}])
def test_a_start_outside_the_model_leaves_infeasible(monkeypatch, start) -> None:
    """(3, 1) breaks x - y == 1; (1.5, 0.5) breaks integrality."""
    _lying_backend(monkeypatch)
    solution = solve_milp(_small_model(start),
                          MilpSettings(backend="cbc", time_limit=1.0))
    assert solution.status is SolveStatus.INFEASIBLE
    assert "infeasible_refuted" not in solution.info


def test_without_warm_start_the_verdict_stands(monkeypatch) -> None:
    _lying_backend(monkeypatch)
    solution = solve_milp(_small_model({"x": 2, "y": 1}),
                          MilpSettings(backend="cbc", time_limit=1.0, warm_start=False))
    assert solution.status is SolveStatus.INFEASIBLE


def test_io_sched_keeps_its_warm_start_when_the_solver_lies(monkeypatch) -> None:
    """The CI failure end to end: the io-sched front door answers with the
    heuristic schedule (validated) instead of raising."""
    _lying_backend(monkeypatch)
    instance = busy_io_sched()  # FIFO is not optimal on it
    result = solve_io_sched(instance, "makespan", "cbc", time_limit=1.0)
    assert result.status is SolveStatus.FEASIBLE
    assert result.info["incumbent"] == "heuristic warm start"
    assert "infeasible_refuted" in result.info
    assert result.objective <= result.info["heuristic_upper_bound"] + 1e-9
    assert_feasible(instance, result.schedule)
