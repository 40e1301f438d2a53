"""The window's exact problem through the exact layer's one seam: the
registry (``hpc-io-reserved``) and certification.

A window (built as ``test_window_bracket`` does) is solved with
:func:`opt_sched.exact.solve`; its schedule passes the validator *with the
running jobs*, its proven bound is at most the brute-force optimum with the
reservations, and certification refuses a bound above the value or a
schedule that ignores the reservations. The window bracket's CP-SAT bound
and search run through the same path.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opt_sched import Instance
from opt_sched.errors import BoundViolationError, InfeasibleScheduleError, OptionError
from opt_sched.exact import registry, solve
from opt_sched.exact.brute_force_hpc_io import brute_force_hpc_io
from opt_sched.exact.hpc_io import reserved, reserved_backend, reserved_search
from opt_sched.exact.hpc_io.reserved import ReservedBound
from opt_sched.exact.result import SolveStatus
from opt_sched.experiments.window import WINDOW_OBJECTIVES, window_bounds, window_gap
from opt_sched.experiments.window_instance import Window, extract_window
from opt_sched.objectives import meets_bound, objective_value
from opt_sched.reservations import Reservations
from opt_sched.scheduling import replay
from opt_sched.validation import assert_feasible

from .conftest import INSTANCES
from .online_helpers import online_workloads
from .test_cli import run_cli
from .window_helpers import queue_hand, seeded_instance

PROBLEM = "hpc-io-reserved"
DATA = Path(__file__).parent / "data" / "traces"


def _window(seed: int) -> Window:
    """A window of an EASY replay whose running jobs hold something."""
    instance = seeded_instance(seed)
    schedule = replay(instance, "easy")
    return extract_window(instance, schedule, 3, 3, mode="consecutive")


def _queue_hand() -> Window:
    """P = 2, b = 1: ``big`` (2 nodes) runs [0, 10); at t0 = 2 ``q`` is queued
    and ``a`` arrives: both wait for the 2 held nodes (until 8, window
    time); ``z`` arrives later, out of the window."""
    instance, schedule = queue_hand()
    return extract_window(instance, schedule, 2, 2)


def _check(window: Window, objective: str, result, optimum: float | None) -> None:
    """The certified answer: validated with the running jobs, its value
    recomputed, bound <= optimum <= value."""
    assert result.problem == PROBLEM and result.solver == "cpsat"
    assert result.status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)
    assert_feasible(*window.with_running(result.schedule))
    value = objective_value(window.instance, result.schedule, objective)
    assert result.objective == value
    assert meets_bound(result.lower_bound, value)
    if optimum is not None:
        assert meets_bound(result.lower_bound, optimum), (result.lower_bound, optimum)
        assert meets_bound(optimum, value)


def test_the_problem_is_registered() -> None:
    model = registry.lookup(PROBLEM, "cpsat")
    backend = model.load()
    assert backend is reserved_backend
    assert set(backend.OBJECTIVES) == set(WINDOW_OBJECTIVES)


@pytest.mark.parametrize("seed", range(4))
def test_registry_path_brackets_the_brute_force_optimum(seed: int) -> None:
    """``solve`` on the window: both sides (the search's schedule and the
    bound) against the optimum with the reservations."""
    window = _window(seed)
    for objective in WINDOW_OBJECTIVES:
        optimum, _ = brute_force_hpc_io(window.instance, objective, max_phases=8,
                                        reservations=window.reservations)
        result = solve(window.instance, PROBLEM, objective, "cpsat", time_limit=4,
                       reserved=window, incumbent=window.schedule)
        _check(window, objective, result, optimum)
        assert result.info["found_by"] in ("cpsat", "incumbent")
        assert "reserved_bound" in result.info


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])
@given(online_workloads(max_jobs=7), st.data(), st.sampled_from(WINDOW_OBJECTIVES))
def test_registry_path_on_random_windows(instance: Instance, data,
                                         objective: str) -> None:
    """Random windows, no incumbent given (the earliest schedule in release
    order): validated with the running jobs; bound <= brute-force optimum."""
    instance = instance.replace(jobs=tuple(dataclasses.replace(job, after=())
                                           for job in instance.jobs))
    schedule = replay(instance, "easy")
    start = data.draw(st.integers(0, instance.num_jobs - 1))
    count = data.draw(st.integers(1, min(3, instance.num_jobs - start)))
    window = extract_window(instance, schedule, start, count)
    small = window.instance.num_jobs <= 4 and window.instance.num_io_phases <= 6
    optimum = brute_force_hpc_io(window.instance, objective,
                                 reservations=window.reservations)[0] \
        if small else None
    result = solve(window.instance, PROBLEM, objective, "cpsat", time_limit=1,
                   reserved=window)
    _check(window, objective, result, optimum)


def test_a_bound_above_the_value_is_refused(monkeypatch) -> None:
    """Mutation: the backend's bound pushed above the value -> certification
    raises (the window bracket raises with it)."""
    window = _window(0)
    objective = "makespan"
    value = objective_value(window.instance, window.schedule, objective)

    def too_high(*args, **kwargs) -> ReservedBound:
        return ReservedBound(2 * value + 1, True, {})

    monkeypatch.setattr(reserved, "reserved_bound", too_high)
    with pytest.raises(BoundViolationError):
        solve(window.instance, PROBLEM, objective, "cpsat", time_limit=2,
              reserved=window, incumbent=window.schedule, search_share=0.0)
    with pytest.raises(BoundViolationError):
        window_bounds(window, objective, time_limit=1)


def test_a_schedule_that_ignores_the_reservations_is_refused(monkeypatch) -> None:
    """Mutation: the search returns the earliest schedule *without* the
    running jobs' nodes -> feasible alone, refused by certification, which
    validates with them."""
    window = _queue_hand()
    assert window.reservations.node_holds
    free = reserved_backend.earliest_incumbent(window.instance, Reservations())
    assert_feasible(window.instance, free)  # fine on an empty partition
    with pytest.raises(InfeasibleScheduleError):
        window.validate(free)

    def ignores(*args, **kwargs) -> reserved_search.ReservedSearch:
        return reserved_search.ReservedSearch(free, {})

    monkeypatch.setattr(reserved_search, "reserved_search", ignores)
    with pytest.raises(InfeasibleScheduleError):
        solve(window.instance, PROBLEM, "makespan", "cpsat", time_limit=2,
              reserved=window, search_share=1.0)


def test_hand_window_through_the_registry() -> None:
    """The hand window: q (2 s) and a (1 s), 1 node each, wait for the 2
    nodes held until 8 (minus the shift's resolution): both end by 10, the
    optimum makespan; both sides meet it."""
    window = _queue_hand()
    hold_end = window.reservations.node_holds[0][0]
    optimum, _ = brute_force_hpc_io(window.instance, "makespan",
                                    reservations=window.reservations)
    assert optimum == pytest.approx(hold_end + 2.0)
    result = solve(window.instance, PROBLEM, "makespan", "cpsat", time_limit=2,
                   reserved=window)
    _check(window, "makespan", result, optimum)
    assert result.status is SolveStatus.OPTIMAL


def test_kth_window_bracket_through_the_seam() -> None:
    """A KTH-SP2 window (real jobs, darshan-cori I/O): the bracket's bound
    and the certified solve agree with the online schedule (bound <= every
    validated schedule)."""
    from opt_sched.traces import convert_trace, read_swf

    trace, _ = read_swf(DATA / "kth-sp2-head.swf")
    instance = convert_trace(trace, "darshan-cori", seed=0, alpha=0.5).instance
    schedule = replay(instance, "easy")
    window = extract_window(instance, schedule, 5, 8)
    for objective in WINDOW_OBJECTIVES:
        result = solve(window.instance, PROBLEM, objective, "cpsat", time_limit=2,
                       reserved=window, incumbent=window.schedule)
        _check(window, objective, result, None)
        online = objective_value(window.instance, window.schedule, objective)
        assert result.objective <= online * (1 + 1e-9)
    report = window_gap(instance, schedule, 5, 8, time_limit=2.0,
                        objectives=("makespan",))
    item = report["objectives"]["makespan"]
    assert meets_bound(item["cpsat"], item["best_found"])


def test_front_doors_refuse_the_problem_without_reservations() -> None:
    """Without a reserved platform the problem is refused in one line (the
    command line cannot pose it); ``reserved`` on another problem too."""
    window = _window(1)
    with pytest.raises(OptionError, match=r"^reserved=None: problem='hpc-io-reserved'"):
        solve(window.instance, PROBLEM, "makespan", "cpsat", time_limit=1)
    with pytest.raises(OptionError, match="'reserved'"):
        solve(window.instance, "hpc-io", "makespan", "cpsat", time_limit=1,
              reserved=window)
    other = _window(2)
    with pytest.raises(OptionError, match="is not the instance solved"):
        solve(window.instance, PROBLEM, "makespan", "cpsat", time_limit=1,
              reserved=other)
    with pytest.raises(OptionError, match="search_share"):
        solve(window.instance, PROBLEM, "makespan", "cpsat", time_limit=1,
              reserved=window, search_share=2)
    done = run_cli("solve", str(INSTANCES / "tiny2.json"), "--problem", PROBLEM,
                   "--time-limit", "1")
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "reserved=None" in lines[0], done.stderr
