"""The front door ``solve()``: options, dispatch, status and gap semantics."""

from __future__ import annotations

import pytest

import opt_sched
import opt_sched.validation as validation
from opt_sched import Instance, Job, Platform, read_instance
from opt_sched.errors import OptionError
from opt_sched.exact import Result, SolveStatus, solve
from opt_sched.exact.solve import OPTIMAL_RTOL

from .conftest import INSTANCES


@pytest.fixture(scope="module")
def tiny2() -> Instance:
    return read_instance(INSTANCES / "tiny2.json")


@pytest.mark.parametrize(("field", "bad"), [
    ("problem", "job-shop"), ("objective", "flow"), ("solver", "gurobi")])
def test_unknown_choice_names_the_valid_ones(tiny2: Instance, field: str,
                                             bad: str) -> None:
    """The error lists every registered choice (read from the registries,
    not pinned here)."""
    from opt_sched.exact.registry import problems, solvers
    from opt_sched.objectives import OBJECTIVES

    valid = {"problem": problems(), "objective": OBJECTIVES, "solver": solvers()}[field]
    with pytest.raises(OptionError,
                       match=f"^{field}='{bad}' is not one of {', '.join(valid)}$"):
        solve(tiny2, **{field: bad})


def test_unknown_option_is_an_error(tiny2: Instance) -> None:
    with pytest.raises(OptionError, match="'colour'"):
        solve(tiny2, colour="red")
    with pytest.raises(OptionError, match="not a CP-SAT parameter"):
        solve(tiny2, params={"no_such_parameter": 1})
    with pytest.raises(OptionError, match="max_packs"):
        solve(tiny2, problem="io-sched", max_packs=2)


def test_io_sched_needs_a_mapping_and_no_dependencies() -> None:
    deps = read_instance(INSTANCES / "deps5.json")
    with pytest.raises(OptionError, match="dependencies"):
        solve(deps, "io-sched")
    hetero = read_instance(INSTANCES / "hetero6.json")
    with pytest.raises(OptionError, match="partition=None"):
        solve(hetero, "io-sched")


def test_result_semantics_when_optimal(tiny2: Instance) -> None:
    result = solve(tiny2, time_limit=5)
    assert isinstance(result, Result)
    assert result.status is SolveStatus.OPTIMAL
    validation.assert_feasible(tiny2, result.schedule)
    assert result.objective == pytest.approx(result.schedule.makespan(tiny2))
    assert result.lower_bound <= result.objective
    assert result.objective <= result.lower_bound * (1 + OPTIMAL_RTOL) + 1e-12
    assert result.gap == pytest.approx(0.0, abs=1e-6)
    summary = result.to_dict()
    for key in ("status", "objective", "lower_bound", "gap", "wall_time"):
        assert key in summary
    assert summary["status"] == "optimal"


def test_result_semantics_when_stopped_early() -> None:
    """A hard instance stopped almost at once: a validated warm schedule,
    a bound below it, status feasible iff the gap is positive."""
    jobs = tuple(Job.periodic(f"j{i}", 1, 10 + 7 * i, 9 + 3 * (i % 3), 12, partition=0)
                 for i in range(8))
    instance = Instance("hard", Platform.homogeneous(1, 8), jobs)
    result = solve(instance, time_limit=0.05)
    assert result.schedule is not None
    validation.assert_feasible(instance, result.schedule)
    assert result.lower_bound <= result.objective * (1 + 1e-12)
    optimal = result.objective <= result.lower_bound * (1 + OPTIMAL_RTOL) + 1e-12
    assert (result.status is SolveStatus.OPTIMAL) == optimal
    if result.status is SolveStatus.FEASIBLE:
        assert result.gap > 0


def test_one_pack_that_does_not_fit_is_infeasible() -> None:
    jobs = (Job.periodic("a", 3, 2, 1, 2, partition=0),
            Job.periodic("b", 3, 2, 1, 2, partition=0))
    instance = Instance("big", Platform.homogeneous(1, 4), jobs)
    result = solve(instance, time_limit=5)
    assert result.status is SolveStatus.INFEASIBLE
    assert result.schedule is None and result.objective is None
    assert result.gap is None


def test_export_cpsat_model(tiny2: Instance, tmp_path) -> None:
    path = tmp_path / "model.pbtxt"
    solve(tiny2, time_limit=5, export=str(path))
    assert path.stat().st_size > 0
    with pytest.raises(OptionError, match="cbc or highs"):
        solve(tiny2, time_limit=5, export=str(tmp_path / "model.lp"))


def test_lazy_top_level_solve(tiny2: Instance) -> None:
    assert opt_sched.solve is solve


def test_settings_are_accepted(tiny2: Instance) -> None:
    from opt_sched.exact.brute_force import brute_force_io_sched

    optimum, _ = brute_force_io_sched(tiny2, "makespan")
    for options in ({"hints": True}, {"subsolvers": ["default_lp"]},
                    {"params": {"extra_subsolvers": ["reduced_costs"]}},
                    {"search": "set-times"}, {"num_workers": 1, "seed": 3}):
        result = solve(tiny2, time_limit=5, **options)
        assert result.status is SolveStatus.OPTIMAL, options
        assert result.objective == pytest.approx(optimum)
    with pytest.raises(OptionError, match="num_workers"):
        solve(tiny2, num_workers=0)
    with pytest.raises(OptionError, match="search"):
        solve(tiny2, search="magic")


def test_milp_dispatch_matches_cpsat(tiny2: Instance) -> None:
    import opt_sched.exact.io_sched.milp as milp
    if not hasattr(milp, "solve_io_sched"):
        pytest.skip("opt_sched.exact.milp.solve_io_sched not there yet")
    cpsat = solve(tiny2, time_limit=5)
    cbc = solve(tiny2, solver="cbc", time_limit=10)
    validation.assert_feasible(tiny2, cbc.schedule)
    assert cbc.objective == pytest.approx(cpsat.objective, rel=1e-6)


def test_planning_dispatch() -> None:
    import opt_sched.exact.planning as planning
    if not hasattr(planning, "solve_planning"):
        pytest.skip("opt_sched.exact.planning.solve_planning not there yet")
    instance = read_instance(INSTANCES / "planning4.json")
    result = solve(instance, "planning", time_limit=10)
    assert result.schedule is not None
    validation.assert_feasible(instance, result.schedule)
    assert result.objective == pytest.approx(result.schedule.makespan(instance))
