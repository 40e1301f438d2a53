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


def test_galloping_ladder_refutes_in_log_questions_and_never_passes_the_optimum():
    """``growth=2``: the jumps double after each refutation, so a bound 100
    below the optimum rises in a handful of questions (one at a time: 101),
    every bound an ``INFEASIBLE`` answer, never above the optimum; the
    bisection then closes the gap."""
    model, z, factory = _toy(100)
    slow = BoundSearch(lower=0)
    ObjectiveProbe(model, z.index, factory).ladder(slow, budget=60, probe_limit=2)
    fast = BoundSearch(lower=0)
    probe = ObjectiveProbe(model, z.index, factory)
    probe.ladder(fast, budget=60, probe_limit=2, growth=2.0)
    assert len(slow.answers) == 101
    assert len(fast.answers) <= 10
    # the jumps: T = 0, then L + 1 - 1, L + 2 - 1, L + 4 - 1, ...
    targets = [t for t, _, _ in fast.answers]
    assert targets[:5] == [0, 1, 3, 7, 15]
    assert all(t < 100 for t, a, _ in fast.answers if a == "infeasible")
    assert fast.lower <= 100 and fast.upper is not None and fast.upper >= 100
    probe.bisect(fast, budget=60, growth=2.0)
    assert fast.closed and fast.lower == fast.upper == 100


def test_galloping_bisection_climbs_from_the_bound_after_an_open_question():
    """The bisection's climb (after a question left open) gallops too, and
    restarts from ``step`` after an open jump: simulated with a probe whose
    questions above ``T = 60`` stay open (a hard region), optimum 100; the
    bound reaches 61 (the last refutable value + 1) and never more."""
    model, z, factory = _toy(100)

    class HardAbove(ObjectiveProbe):
        def ask(self, search, target, time_limit, params=None):
            if target > 60:
                search.answers.append((target, "unknown", 0.0))
                return "unknown"
            return super().ask(search, target, time_limit, params)

    for growth in (1.0, 2.0):
        search = BoundSearch(lower=10, upper=200, solver=object())
        HardAbove(model, z.index, factory).bisect(search, budget=30, growth=growth)
        assert search.lower == 61, growth
        refuted = [t for t, a, _ in search.answers if a == "infeasible"]
        assert max(refuted) == 60
    # the galloping climb asked far fewer questions than one step at a time
    slow = BoundSearch(lower=10, upper=200, solver=object())
    HardAbove(model, z.index, factory).bisect(slow, budget=30)
    fast = BoundSearch(lower=10, upper=200, solver=object())
    HardAbove(model, z.index, factory).bisect(fast, budget=30, growth=2.0)
    assert len(fast.answers) < len(slow.answers)


def test_ladder_growth_is_checked():
    inst = opt_sched.read_instance(INSTANCES / "tiny2.json")
    with pytest.raises(opt_sched.OptionError, match="ladder_growth"):
        opt_sched.solve(inst, problem="io-sched", ladder_growth=0.5)


def test_bisection_can_skip_its_opening_question():
    """``first_share=0``: the bisection does not open with "is the incumbent
    optimal?" (``U - step``) but with the midpoint, and still closes the
    gap; by default it opens with ``U - step``."""
    model, z, factory = _toy(40)
    opened = BoundSearch(lower=0, upper=100, solver=object())
    ObjectiveProbe(model, z.index, factory).bisect(opened, budget=30)
    assert opened.answers[0][0] == 99
    skipped = BoundSearch(lower=0, upper=100, solver=object())
    ObjectiveProbe(model, z.index, factory).bisect(skipped, budget=30, first_share=0)
    assert skipped.answers[0][0] == 49
    assert skipped.closed and skipped.lower == skipped.upper == 40
