"""One certification path and one registry for every exact backend.

This module also *is* an exact model (``OPTIONS``, ``OBJECTIVES``, ``run``):
registered from here with one line, it answers whatever the test puts in
:data:`ANSWER`, so the tests can feed the front door wrong answers and check
that certification catches them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import pytest

import opt_sched.exact.registry as registry
from opt_sched import Instance, Job, JobSchedule, Platform, Schedule, read_instance
from opt_sched.errors import (
    BoundViolationError,
    InfeasibleScheduleError,
    OptionError,
    SolverError,
)
from opt_sched.exact import Outcome, SolveStatus, solve

from .conftest import INSTANCES

SOLVERS = ("cpsat", "cbc", "highs")


# -- a fake exact model, defined here --------------------------------------------
@dataclass(frozen=True)
class FakeSettings:
    """The fake model's options record: ``answer_bound`` overrides the bound."""

    time_limit: float = 60.0
    seed: int = 0
    answer_bound: float | None = None

    def __post_init__(self) -> None:
        if not self.time_limit > 0:
            raise OptionError(f"time_limit={self.time_limit!r} must be > 0")


OPTIONS = FakeSettings
OBJECTIVES = ("makespan",)
ANSWER: dict[str, Outcome] = {}


def run(instance, objective, options, *, lower_bound, deadline) -> Outcome:
    outcome = ANSWER["outcome"]
    if options.answer_bound is not None:
        outcome = dataclasses.replace(outcome, bound=options.answer_bound)
    return outcome


@pytest.fixture
def fake(monkeypatch):
    """Register this module as the model of ``io-sched`` on solver ``fake``."""
    monkeypatch.setattr(registry, "EXACT_MODELS", list(registry.EXACT_MODELS))
    registry.register(registry.ExactModel("io-sched", ("fake",), __name__))
    yield ANSWER
    ANSWER.clear()


def tiny2_schedule(shift: float = 0.0) -> Schedule:
    """tiny2.json under FIFO, by hand (instances/README.md): makespan 11; a's
    second iteration ``shift`` later (a gap after its I/O is allowed)."""
    return Schedule((JobSchedule("a", 0, (0.0, 6.0 + shift), (3.0, 8.0 + shift)),
                     JobSchedule("b", 0, (0.0, 3.0), (1.0, 6.0))), method="fake")


# -- the same input, the same answer -----------------------------------------------
@pytest.mark.parametrize("solver", SOLVERS)
def test_one_pack_that_does_not_fit_is_infeasible_on_every_backend(solver) -> None:
    # two jobs of 3 nodes started together on 4 nodes: rule 4 fails at once
    instance = Instance("big", Platform.homogeneous(1, 4), (
        Job.periodic("a", 3, 2, 1, 2, partition=0),
        Job.periodic("b", 3, 2, 1, 2, partition=0)))
    result = solve(instance, "io-sched", solver=solver, time_limit=5)
    assert result.status is SolveStatus.INFEASIBLE
    assert result.schedule is None and result.objective is None
    assert result.lower_bound is None and result.gap is None
    assert result.info["reason"] == "partition 0: one pack needs 6 nodes, has 4"


@pytest.mark.parametrize("solver", SOLVERS)
def test_an_unmapped_instance_is_the_same_error_on_every_backend(solver) -> None:
    hetero = read_instance(INSTANCES / "hetero6.json")
    with pytest.raises(OptionError, match=r"problem='io-sched': job .* has "
                                          r"partition=None"):
        solve(hetero, "io-sched", solver=solver)


# -- certification catches wrong answers -------------------------------------------
def test_a_valid_answer_is_certified(fake) -> None:
    tiny2 = read_instance(INSTANCES / "tiny2.json")
    fake["outcome"] = Outcome(SolveStatus.OPTIMAL, tiny2_schedule(), 5.0)
    result = solve(tiny2, "io-sched", solver="fake", time_limit=5)
    assert result.objective == 11.0  # recomputed, never read from the backend
    # the combinatorial io-node bound beats the backend's 5: the first I/O can
    # start at 1 (b computes 1) and the node serves 3 + 3 + 2 + 2 = 10: 11
    assert result.lower_bound == 11.0 and result.status is SolveStatus.OPTIMAL
    fake["outcome"] = Outcome(SolveStatus.OPTIMAL, tiny2_schedule(shift=1.0), 5.0)
    late = solve(tiny2, "io-sched", solver="fake", time_limit=5)
    # the backend claims optimal; 12 > 11 so certification says feasible
    assert late.objective == 12.0 and late.status is SolveStatus.FEASIBLE
    assert late.info["backend_status"] == "optimal"


def test_an_infeasible_schedule_is_a_bug(fake) -> None:
    tiny2 = read_instance(INSTANCES / "tiny2.json")
    overlapping = Schedule((JobSchedule("a", 0, (0.0, 6.0), (3.0, 8.0)),
                            JobSchedule("b", 0, (0.0, 3.0), (1.0, 5.0))))
    fake["outcome"] = Outcome(SolveStatus.FEASIBLE, overlapping)
    with pytest.raises(InfeasibleScheduleError):
        solve(tiny2, "io-sched", solver="fake", time_limit=5)


def test_a_bound_above_the_value_is_a_bug(fake) -> None:
    tiny2 = read_instance(INSTANCES / "tiny2.json")
    fake["outcome"] = Outcome(SolveStatus.FEASIBLE, tiny2_schedule())
    with pytest.raises(BoundViolationError, match="fake/io-sched"):
        solve(tiny2, "io-sched", solver="fake", time_limit=5, answer_bound=11.5)
    # within the one tolerance (1e-6 relative) it is rounding, not a violation
    ok = solve(tiny2, "io-sched", solver="fake", time_limit=5,
               answer_bound=11.0 * (1 + 1e-7))
    assert ok.status is SolveStatus.OPTIMAL and ok.lower_bound == 11.0
    assert ok.gap == 0.0


def test_inconsistent_outcomes_are_bugs(fake) -> None:
    tiny2 = read_instance(INSTANCES / "tiny2.json")
    fake["outcome"] = Outcome(SolveStatus.OPTIMAL, None, 11.0)
    with pytest.raises(SolverError, match="without a schedule"):
        solve(tiny2, "io-sched", solver="fake", time_limit=5)
    fake["outcome"] = Outcome(SolveStatus.INFEASIBLE, tiny2_schedule())
    with pytest.raises(SolverError, match="infeasible with a schedule"):
        solve(tiny2, "io-sched", solver="fake", time_limit=5)


# -- the registry --------------------------------------------------------------------
def test_a_registered_model_is_a_choice(fake) -> None:
    assert "fake" in registry.solvers()
    tiny2 = read_instance(INSTANCES / "tiny2.json")
    with pytest.raises(OptionError, match="problem='hpc-io' has no model for "
                                          "solver='fake'"):
        solve(tiny2, "hpc-io", solver="fake")


@pytest.mark.parametrize(("problem", "solver", "option"), [
    ("io-sched", "cpsat", "max_packs"), ("hpc-io", "cpsat", "sensibility"),
    ("packs", "cbc", "max_phases"), ("planning", "highs", "symmetry"),
    ("io-sched", "cbc", "colour")])
def test_an_unknown_option_is_one_line_naming_it(problem, solver, option) -> None:
    instance = read_instance(INSTANCES / "tiny2.json")
    with pytest.raises(OptionError) as error:
        solve(instance, problem, solver=solver, **{option: 1})
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(f"option {option!r} is not an option of "
                              f"{problem}/{solver}")


def test_options_records_validate_their_values() -> None:
    instance = read_instance(INSTANCES / "tiny2.json")
    with pytest.raises(OptionError, match="hints='yes' must be True or False"):
        solve(instance, hints="yes")
    with pytest.raises(OptionError, match="max_phases=0"):
        solve(instance, solver="cbc", max_phases=0)
    with pytest.raises(OptionError, match="resolution=-1"):
        solve(instance, resolution=-1)
    with pytest.raises(OptionError, match="'resolution' does not apply to "
                                          "io-sched/cbc"):
        solve(instance, solver="cbc", resolution=0.5)
