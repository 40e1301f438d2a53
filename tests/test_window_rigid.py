"""The rigid relaxation of a window (``opt_sched.exact.hpc_io.rigid``,
``models/rigid-relaxation.md``): its makespan and mean-flow-time bounds <=
the brute-force optimum with the reservations, a case worked by hand, and
its orders give schedules that pass the validator with the running jobs."""

from __future__ import annotations

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from opt_sched import Instance, Job, Platform
from opt_sched.bounds import makespan_bounds
from opt_sched.bounds_flow import flow_bounds
from opt_sched.exact.brute_force_hpc_io import brute_force_hpc_io
from opt_sched.exact.hpc_io.rigid import rigid_relaxation
from opt_sched.experiments.window import rigid_for, window_bounds
from opt_sched.experiments.window_schedules import best_heuristic
from opt_sched.objectives import meets_bound, objective_value
from opt_sched.reservations import Reservations
from opt_sched.validation import assert_feasible

from .online_helpers import online_workloads
from .window_helpers import drawn_window, kth_head_window, slow


@slow(40)
@given(online_workloads(max_jobs=7), st.data(),
       st.sampled_from(["makespan", "mean-flow-time"]))
def test_rigid_bound_below_the_brute_force_optimum(instance: Instance, data,
                                                   objective: str) -> None:
    """The bound (makespan, or mean flow time with the online schedule as
    the hint that caps the starts) <= the optimum (brute force with the
    running jobs' holds and I/O) <= the online value; solved, on these
    windows."""
    window = drawn_window(instance, data)
    if window.instance.num_jobs > 4 or window.instance.num_io_phases > 6:
        return
    found = rigid_for(window, objective, window.schedule, time_limit=10.0)
    assert found.optimal and found.bound is not None
    optimum, _ = brute_force_hpc_io(window.instance, objective,
                                    reservations=window.reservations)
    assert meets_bound(found.bound, optimum), (objective, found.bound, optimum)
    event("held nodes" if window.reservations.node_holds else "no hold")
    if objective == "makespan":
        event("bound above the free makespan bounds" if found.bound > max(
            makespan_bounds(window.instance).values()) + 1e-6 else "bound not above")
    else:
        alone = flow_bounds(window.instance, objective,
                            reservations=window.reservations)["alone"]
        event("bound above alone" if found.bound > alone + 1e-6
              else "bound not above alone")
    assert meets_bound(found.bound, objective_value(window.instance, window.schedule,
                                                    objective))


def test_wide_jobs_wait_for_the_hold_by_hand() -> None:
    """P = 4, 2 nodes held until 5; ``a`` (3 nodes, 2 s) and ``b`` (3 nodes,
    3 s) fit neither beside the hold nor beside each other: the makespan is
    at least 5 + 2 + 3 = 10, and exactly 10 (no I/O). The node area gives
    (2 * 5 + 3 * 2 + 3 * 3) / 4 = 6.25."""
    instance = Instance("hand", Platform.homogeneous(1, 4, 1.0), (
        Job("a", 3, (2.0,), (0.0,)), Job("b", 3, (3.0,), (0.0,))))
    holds = Reservations.build(node_holds=[(5.0, 2)])
    found = rigid_relaxation(instance, holds, "makespan", horizon=20.0, time_limit=5.0)
    assert found.optimal
    tick = found.tick
    # at most two ticks per time rounded down (module doc): the hold's end
    # and the two lengths
    assert 10.0 - 6 * tick - 1e-12 <= found.bound <= 10.0
    assert found.bound > max(makespan_bounds(instance).values())
    optimum, _ = brute_force_hpc_io(instance, "makespan", reservations=holds)
    assert optimum == 10.0


def test_two_wide_jobs_one_after_the_other_by_hand() -> None:
    """P = 4; ``a`` (3 nodes, 2 s) and ``b`` (3 nodes, 3 s), both released
    at 0, cannot run together: the best mean flow time is (2 + 5) / 2 =
    3.5 (``a`` first), while each alone gives (2 + 3) / 2 = 2.5. The bound
    needs a hint (any schedule: here ``b`` first, 4.0)."""
    from opt_sched import JobSchedule, Schedule

    instance = Instance("hand", Platform.homogeneous(1, 4, 1.0), (
        Job("a", 3, (2.0,), (0.0,)), Job("b", 3, (3.0,), (0.0,))))
    hint = Schedule((JobSchedule("a", 0, (3.0,), (5.0,)),
                     JobSchedule("b", 0, (0.0,), (3.0,))))
    assert_feasible(instance, hint)
    assert objective_value(instance, hint, "mean-flow-time") == 4.0
    none = rigid_relaxation(instance, None, "mean-flow-time", horizon=5.0,
                            time_limit=5.0)
    assert none.bound is None
    found = rigid_relaxation(instance, None, "mean-flow-time", horizon=5.0,
                             time_limit=5.0, hint=hint)
    assert found.optimal
    optimum, _ = brute_force_hpc_io(instance, "mean-flow-time")
    assert optimum == 3.5
    # at most two ticks per time rounded down, on each of the two jobs' ends
    assert 3.5 - 6 * found.tick <= found.bound <= 3.5
    assert found.order == (0, 1)


@pytest.mark.parametrize("objective", ["makespan", "max-flow-stretch",
                                       "mean-flow-time"])
def test_orders_give_valid_schedules_on_a_trace_window(objective) -> None:
    """A window of a real trace (the bundled KTH-SP2 head), each objective:
    the relaxation's order is an order of the window's jobs, and the best
    schedule with it among the candidates passes the validator with the
    running jobs; the bound (makespan) is below that schedule."""
    window = kth_head_window()
    relaxation = rigid_for(window, objective, window.schedule, time_limit=5.0)
    assert sorted(relaxation.order) == list(range(window.instance.num_jobs))
    best = best_heuristic(window, objective, search_seconds=0.2,
                          orders={"rigid": relaxation.order})
    assert_feasible(*window.with_running(best.schedule), resolution=window.resolution)
    assert best.value == objective_value(window.instance, best.schedule, objective)
    if objective != "max-flow-stretch":
        assert relaxation.bound is not None
        assert meets_bound(relaxation.bound, best.value)
        found = window_bounds(window, objective, time_limit=2.0,
                              incumbent=best.schedule, relaxation=relaxation)
        assert found["bounds"]["rigid-cumulative"] == relaxation.bound
    else:
        assert relaxation.bound is None


def test_an_order_that_is_not_one_is_refused() -> None:
    window = kth_head_window()
    with pytest.raises(ValueError, match="not an order"):
        best_heuristic(window, "makespan", search_seconds=0.0,
                       orders={"broken": [0, 0]})
