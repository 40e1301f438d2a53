"""The interval LP branched on a job's completion, with the knapsack of
what runs beside it per interval (``models/mean-flow-lp.md``, "The LP
branched on a job's completion"): every per-interval knapsack value is at
most the value of any schedule whose job completes in that interval (the
brute-force optimum's and the online one), and the branched bound <= the
brute-force optimum with the reservations and <= the online value."""

from __future__ import annotations

from functools import partial

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from opt_sched import Instance, Job, Platform
from opt_sched.bounds_flow import flow_bounds
from opt_sched.bounds_window import (
    beside_completion_bounds,
    beside_knapsack_and_job,
    beside_mean_flow_bound,
)
from opt_sched.bounds_window_lp import _lp_data, branched_lp_mean_flow_bound
from opt_sched.exact.brute_force_hpc_io import brute_force_hpc_io
from opt_sched.experiments.window_instance import extract_window
from opt_sched.objectives import meets_bound, objective_value
from opt_sched.scheduling import replay
from opt_sched.validation import assert_feasible

from .online_helpers import online_workloads
from .window_helpers import TRACES, drawn_window, slow

SLOW = slow(25)


def _check_floors(instance: Instance, reservations, schedule, job: int,
                  points: np.ndarray) -> None:
    """The knapsack value of the interval holding ``C_job`` in ``schedule``
    is at most the schedule's total flow."""
    floors = beside_completion_bounds(instance, job, points, reservations=reservations)
    jobs = instance.jobs
    done = [schedule[x.id].completion(x, instance.bandwidth_of(x)) for x in jobs]
    assert done[job] >= points[0] - 1e-9 * max(1.0, abs(points[0])), (points, done)
    k = max(0, int(np.searchsorted(points, done[job], side="right")) - 1)
    total = sum(c - x.release for c, x in zip(done, jobs))
    assert floors[k] <= total * (1 + 1e-9) + 1e-9, (k, floors, total)


@SLOW
@given(online_workloads(max_jobs=7), st.data())
def test_branched_bound_below_the_brute_force_optimum(instance: Instance, data
                                                      ) -> None:
    """Per interval, the knapsack value <= the optimal schedule's total flow
    when the job completes there; the branched bound (HiGHS proposes, the
    multipliers are checked here) <= the optimum, <= online."""
    window = drawn_window(instance, data)
    small = window.instance
    if small.num_jobs > 4 or small.num_io_phases > 6:
        return
    res = window.reservations
    job = data.draw(st.integers(0, small.num_jobs - 1))
    horizon = data.draw(st.sampled_from([None, 3.0, 10.0, 40.0]))
    optimum, best = brute_force_hpc_io(small, "mean-flow-time", reservations=res)
    window.validate(best)
    points = _lp_data(small, res, horizon)["lo"][job]
    _check_floors(small, res, best, job, points)
    _check_floors(small, res, window.schedule, job, points)
    found = branched_lp_mean_flow_bound(
        small, job, reservations=res, horizon=horizon, time_limit=2.0,
        floors=partial(beside_completion_bounds, small, job, reservations=res))
    online = objective_value(small, window.schedule, "mean-flow-time")
    for value in found.values():
        assert meets_bound(value, optimum), (value, optimum)
        assert meets_bound(value, online)


def test_branched_bound_by_hand() -> None:
    """P = 4: a (3 nodes, length 1) and b (2 nodes, length 10), released at
    0, never together. Per completion interval of a, the larger of the
    knapsack and the LP; the least is <= the brute-force optimum and at
    least each of the knapsack's and the LP's least over the intervals."""
    jobs = (Job("a", 3, (1.0,), (0.0,)), Job("b", 2, (10.0,), (0.0,)))
    instance = Instance("pair", Platform.homogeneous(1, 4, 1.0), jobs)
    optimum, best = brute_force_hpc_io(instance, "mean-flow-time")
    assert_feasible(instance, best)
    found = branched_lp_mean_flow_bound(
        instance, 0, time_limit=2.0,
        floors=partial(beside_completion_bounds, instance, 0))["branched-lp"]
    knapsack = beside_mean_flow_bound(instance)["beside-knapsack"]
    alone = flow_bounds(instance, "mean-flow-time")["alone"]
    assert meets_bound(found, optimum)
    assert found >= alone
    assert found >= knapsack * (1 - 1e-6)


def test_branched_bound_below_online_on_kth_windows() -> None:
    """On windows of the KTH-SP2 head: the knapsack value of the interval of
    the online ``C_j`` <= the online total flow, and the branched bound <=
    the online value."""
    from opt_sched.traces import convert_trace, read_swf

    trace, _ = read_swf(TRACES / "kth-sp2-head.swf")
    instance = convert_trace(trace, "darshan-cori", seed=0, alpha=0.5).instance
    schedule = replay(instance, "easy")
    for start in (5, 15, 25):
        window = extract_window(instance, schedule, start, 10)
        res = window.reservations
        _, job = beside_knapsack_and_job(window.instance, reservations=res)
        assert job is not None
        points = _lp_data(window.instance, res, None)["lo"][job]
        _check_floors(window.instance, res, window.schedule, job, points)
        found = branched_lp_mean_flow_bound(
            window.instance, job, reservations=res, time_limit=3.0,
            floors=partial(beside_completion_bounds, window.instance, job,
                           reservations=res))
        online = objective_value(window.instance, window.schedule, "mean-flow-time")
        assert meets_bound(found["branched-lp"], online)
