"""The schedule side of the max flow stretch (issue 27): the leximax key of
the local search, the ``deadline-bound`` list, the second I/O round over
every list, and the local search from several starts. Every schedule goes
through the validator with the running jobs."""

from __future__ import annotations

import pytest

from opt_sched.bounds_flow import max_flow_stretch_bounds
from opt_sched.exact.hpc_io.earliest import MODES, Plan, Timing
from opt_sched.experiments import window_schedules
from opt_sched.experiments.window import WINDOW_OBJECTIVES
from opt_sched.experiments.window_instance import extract_window
from opt_sched.experiments.window_schedules import (
    FIRST_MODES,
    SECOND_IO_RULES,
    best_heuristic,
    search_key,
    timing_value,
)
from opt_sched.scheduling import replay
from opt_sched.validation import assert_feasible

from .window_helpers import seeded_instance


def _plans(releases: list[float]) -> list[Plan]:
    return [Plan(release=r, nodes=1, lags=(), durations=(), tail=1.0) for r in releases]


def test_the_stretch_key_orders_by_every_stretch_largest_first() -> None:
    """Two schedules of the same max stretch: the key prefers the one whose
    second largest stretch is lower, and its first entry is the objective."""
    plans = _plans([0.0, 0.0, 0.0])
    lengths = [1.0, 2.0, 4.0]
    worse = Timing(start=[0.0] * 3, op_start=[[]] * 3, completion=[3.0, 5.0, 4.0])
    better = Timing(start=[0.0] * 3, op_start=[[]] * 3, completion=[3.0, 4.0, 4.0])
    for timing in (worse, better):
        key = search_key(plans, lengths, timing, "max-flow-stretch")
        assert key[0] == timing_value(plans, lengths, timing, "max-flow-stretch") == 3.0
        assert list(key[1:]) == sorted(key[1:], reverse=True)
    assert search_key(plans, lengths, better, "max-flow-stretch") \
        < search_key(plans, lengths, worse, "max-flow-stretch")
    # the other objectives: the value alone
    assert search_key(plans, lengths, worse, "mean-flow-time") == (4.0,)


def test_noise_in_a_key_is_no_improvement() -> None:
    """Entries within a relative 1e-9 count equal: the next entry decides."""
    better = window_schedules._better
    assert better((1.0 + 1e-12, 0.5), (1.0, 0.6))
    assert not better((1.0 - 1e-12, 0.7), (1.0, 0.5))
    assert not better((1.0, 0.5 - 1e-12), (1.0, 0.5))
    assert better((1.0, 0.5 - 1e-6), (1.0, 0.5))


def _window():
    instance = seeded_instance(1, 12)
    return extract_window(instance, replay(instance, "easy"), 3, 9)


def _recording(monkeypatch) -> list[tuple[list[int], str, str]]:
    calls: list[tuple[list[int], str, str]] = []
    real = window_schedules.simulate

    def recording(plans, capacity, reservations, order, io_order=None, **options):
        if io_order is None:  # not the left shift
            calls.append((list(order), options.get("mode", "strict"),
                          options.get("io_rule", "fifo")))
        return real(plans, capacity, reservations, order, io_order, **options)

    monkeypatch.setattr(window_schedules, "simulate", recording)
    return calls


def test_the_stretch_runs_its_deadline_bound_list_first(monkeypatch) -> None:
    """The max flow stretch's first list runs the jobs by ``r_i + x T_i``
    strictly, ``x`` the window's combinatorial bound: the deadline
    bisection's with time, ``alone`` without time for lists (the one list
    that always runs)."""
    window = _window()
    jobs = window.instance.jobs
    lengths = [job.length(window.instance.bandwidth_of(job)) for job in jobs]
    bounds = max_flow_stretch_bounds(window.instance, reservations=window.reservations)
    assert bounds["deadline-bisection"] > bounds["alone"]  # the two differ here

    def due(x: float) -> list[int]:
        return sorted(range(len(jobs)),
                      key=lambda i: (jobs[i].release + x * lengths[i], i))

    for list_seconds, x in ((0.0, bounds["alone"]),
                            (float("inf"), bounds["deadline-bisection"])):
        calls = _recording(monkeypatch)
        heuristic = best_heuristic(window, "max-flow-stretch", search_seconds=0.0,
                                   list_seconds=list_seconds)
        assert_feasible(*window.with_running(heuristic.schedule))
        assert calls[0] == (due(x), FIRST_MODES[0], "fifo")
        if list_seconds == 0.0:
            assert len(calls) == 1


@pytest.mark.parametrize("objective", WINDOW_OBJECTIVES)
def test_every_list_runs_again_under_each_other_io_rule(monkeypatch, objective) -> None:
    """With time for all, each list schedule of the first round (I/O first
    come) is simulated again under every rule of ``SECOND_IO_RULES``, not
    only the few best."""
    window = _window()
    calls = _recording(monkeypatch)
    heuristic = best_heuristic(window, objective, search_seconds=0.0)
    assert_feasible(*window.with_running(heuristic.schedule))
    first = {(tuple(order), mode) for order, mode, rule in calls if rule == "fifo"}
    assert len(first) > len(MODES)  # several lists
    for rule in SECOND_IO_RULES:
        again = {(tuple(order), mode) for order, mode, r in calls if r == rule}
        assert again == first, rule


def test_the_stretch_search_starts_from_several_lists(monkeypatch) -> None:
    """The local search runs from ``LOCAL_SEARCH_STARTS`` distinct list
    schedules, each in its own mode and I/O rule; the result is never worse
    than the best list schedule and passes the validator."""
    window = _window()
    starts = []
    real = window_schedules._local_search

    def recording(simulate_order, order, timing, objective, *args):
        starts.append((tuple(order), timing_value(*args[:2], timing, objective)))
        return real(simulate_order, order, timing, objective, *args)

    monkeypatch.setattr(window_schedules, "_local_search", recording)
    none = best_heuristic(window, "max-flow-stretch", search_seconds=0.0)
    some = best_heuristic(window, "max-flow-stretch", search_seconds=0.3)
    k = window_schedules.LOCAL_SEARCH_STARTS["max-flow-stretch"]
    assert len(starts) == 2 * k
    best_list = min(value for _, value in starts[:k])
    assert none.value == pytest.approx(best_list)
    assert some.value <= best_list + 1e-9
    for heuristic in (none, some):
        assert_feasible(*window.with_running(heuristic.schedule))
