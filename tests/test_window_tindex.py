"""The start-indexed programme of a window (``opt_sched.bounds_window_tindex``,
``models/time-indexed-lp.md``): each job's completion alone from each
start, the fact the bounds rest on (``C_i >= A_i(S_i)``) on real
schedules; the mean-flow-time bound <= the brute-force optimum with the
reservations (with the LP's multipliers and with any), and as a MIP
(HiGHS's dual bound), a case worked by hand where the stretch is what it
sees; the max-flow-stretch deadline
tests <= the brute-force optimum; the alpha-point orders give validated
schedules."""

from __future__ import annotations

import numpy as np
from hypothesis import event, given
from hypothesis import strategies as st

from opt_sched import Instance, Job, Platform
from opt_sched.bounds_flow import _jobs, flow_bounds
from opt_sched.bounds_window_tindex import (
    _lp_data,
    alone_completions,
    deadline_certificate,
    lagrangian_bound,
    start_orders,
    time_indexed_mean_flow_bound,
    time_indexed_mip_bound,
    time_indexed_stretch_bound,
)
from opt_sched.exact.brute_force_hpc_io import brute_force_hpc_io
from opt_sched.experiments.window import window_bounds
from opt_sched.experiments.window_schedules import best_heuristic
from opt_sched.objectives import meets_bound, objective_value
from opt_sched.reservations import Reservations

from .online_helpers import online_workloads
from .window_helpers import (
    check_mean_flow_bound,
    drawn_window,
    kth_head_window,
    slow,
    small_mean_flow_case,
)


def _starts_and_ends(window, schedule) -> tuple[np.ndarray, np.ndarray]:
    instance = window.instance
    starts = np.array([schedule[job.id].start for job in instance.jobs])
    ends = np.array([schedule[job.id].completion(job, instance.bandwidth_of(job))
                     for job in instance.jobs])
    return starts, ends


@slow(25)
@given(online_workloads(max_jobs=7), st.data())
def test_bound_below_the_brute_force_optimum(instance: Instance, data) -> None:
    """The bound (HiGHS proposes, the multipliers are checked here) <=
    the optimum; >= ``alone`` (what ``lambda = 0`` gives); <= online."""
    case = small_mean_flow_case(instance, data)
    if case is None:
        return
    window, optimum = case
    horizon = data.draw(st.sampled_from([None, 5.0, 20.0, 100.0]))
    cells = data.draw(st.sampled_from([4, 50, 400]))
    found = time_indexed_mean_flow_bound(
        window.instance, reservations=window.reservations, time_limit=2.0,
        horizon=horizon, cells=cells)
    assert set(found) == {"time-indexed-lp"}
    bound = found["time-indexed-lp"]
    alone = check_mean_flow_bound(window, optimum, bound)
    event("above alone" if bound > alone + 1e-6 else "alone")


@slow(40)
@given(online_workloads(max_jobs=7), st.data())
def test_any_multipliers_give_a_valid_bound(instance: Instance, data) -> None:
    """Weak duality: any ``lambda >= 0`` on the node rows and ``mu >= 0`` on
    count rows of any cells and job sets give a bound <= the optimum,
    whatever proposed them."""
    case = small_mean_flow_case(instance, data)
    if case is None:
        return
    window, optimum = case
    n = window.instance.num_jobs
    cells = data.draw(st.integers(1, 60))
    lp = _lp_data(window.instance, window.reservations, None, cells)
    weights = st.floats(0.0, 5.0)
    lam = np.array(data.draw(st.lists(weights, min_size=cells, max_size=cells)))
    rows = data.draw(st.lists(st.tuples(st.integers(0, cells - 1),
                                        st.lists(st.booleans(), min_size=n, max_size=n),
                                        weights), max_size=8))
    counts = (np.array([c for c, _, _ in rows], int),
              np.array([m for _, m, _ in rows], bool).reshape(-1, n),
              np.array([w for _, _, w in rows]))
    total = lagrangian_bound(lp, lam, counts)
    bound = (total - lp["releases"].sum()) / n
    assert meets_bound(bound, optimum), (bound, optimum, lam, rows)


@slow(30)
@given(online_workloads(max_jobs=7), st.data())
def test_completion_alone_is_a_floor_of_every_schedule(instance: Instance,
                                                        data) -> None:
    """``A_i``: ``ect_i`` at ``est_i``, at least ``S + T_i``, non-decreasing;
    and ``C_i >= A_i(S_i)`` job by job in the window's online schedule and
    in its best heuristic schedule (both validated with the running
    jobs)."""
    window = drawn_window(instance, data, most=7)
    jobs = _jobs(window.instance, window.reservations)
    grid = np.sort(np.array(data.draw(st.lists(st.floats(0.0, 50.0), min_size=1,
                                                max_size=20))))
    completions = alone_completions(window.instance, window.reservations, grid)
    for i, job in enumerate(jobs):
        assert np.all(np.diff(completions[i]) >= 0)
        assert np.all(completions[i] >= np.maximum(grid, job.est) + job.length - 1e-9)
        at_est = alone_completions(window.instance, window.reservations,
                                   np.array([job.est]))[i, 0]
        assert at_est == job.ect
    best = best_heuristic(window, "mean-flow-time", search_seconds=0.05)
    for schedule in (window.schedule, best.schedule):
        window.validate(schedule)
        starts, ends = _starts_and_ends(window, schedule)
        floors = np.array([alone_completions(window.instance, window.reservations,
                                             np.array([s]))[i, 0]
                           for i, s in enumerate(starts)])
        assert np.all(floors <= ends + 1e-9 * np.maximum(1.0, ends)), (floors, ends)


def test_a_job_stretched_by_the_running_io_by_hand() -> None:
    """One node, bandwidth 1; a running job's I/O keeps the node busy on
    ``[3, 10)``. ``a``: 1 s of compute, then 0.5 s of I/O; ``b``: 5 s of
    compute. ``a`` first ends at 1.5 (its I/O before 3), ``b`` then at 6.5:
    sum 8. ``b`` first ends at 5, and ``a`` from 5 waits for the I/O node
    until 10: sum 15.5. So the optimum is 8 (mean 4). ``alone`` charges
    ``a`` 1.5 and ``b`` 5 (mean 3.25), as if both could run at once; the LP
    knows that ``a`` started after 1.5 ends at 3 or later, and started after
    2 holds the node until 10.5."""
    instance = Instance("hand", Platform.homogeneous(1, 1, 1.0), (
        Job("a", 1, (1.0,), (0.5,)), Job("b", 1, (5.0,), (0.0,))))
    busy = Reservations.build(io_busy=[(3.0, 10.0)])
    optimum, _ = brute_force_hpc_io(instance, "mean-flow-time", reservations=busy)
    assert optimum == 4.0
    alone = flow_bounds(instance, "mean-flow-time", reservations=busy)["alone"]
    assert alone == 3.25
    starts = np.array([0.0, 1.5, 2.0, 5.0, 10.0])
    completions = alone_completions(instance, busy, starts)
    assert completions[0].tolist() == [1.5, 3.0, 10.5, 10.5, 11.5]
    found = time_indexed_mean_flow_bound(instance, reservations=busy, horizon=20.0,
                                         cells=200, time_limit=5.0)
    bound = found["time-indexed-lp"]
    assert alone + 0.25 < bound
    assert meets_bound(bound, optimum)


def test_alpha_point_orders_give_valid_schedules_on_a_trace_window() -> None:
    """The LP's alpha-point orders on a window of the bundled KTH-SP2 head:
    each an order of the window's jobs; the best list schedule with them
    passes the validator with the running jobs."""
    window = kth_head_window()
    orders = start_orders(window.instance, reservations=window.reservations,
                          time_limit=5.0)
    assert len(orders) == 3
    for order in orders.values():
        assert sorted(order) == list(range(window.instance.num_jobs))
    best = best_heuristic(window, "mean-flow-time", search_seconds=0.0, orders=orders)
    window.validate(best.schedule)
    assert best.value == objective_value(window.instance, best.schedule,
                                         "mean-flow-time")


def test_alpha_point_orders_cap_their_grid_on_a_large_window(monkeypatch) -> None:
    """On a window of ``n`` jobs the orders' LP has at most ``ORDER_COLUMNS
    // n`` cells (at least ``ORDER_CELLS_LEAST``), so a queue of a thousand
    jobs is not handed an LP it cannot solve in its time; a small window
    keeps the cells asked for. Orders of the window's jobs either way."""
    import opt_sched.bounds_window_tindex as tindex

    window = kth_head_window()
    n = window.instance.num_jobs
    grids = []
    real = tindex._solved

    def recording(instance, reservations, horizon, cells, time_limit):
        grids.append(cells)
        return real(instance, reservations, horizon, cells, time_limit)

    monkeypatch.setattr(tindex, "_solved", recording)
    for columns, asked, expected in ((10**9, 40, 40), (n * 25, 400, 25),
                                     (1, 400, tindex.ORDER_CELLS_LEAST)):
        monkeypatch.setattr(tindex, "ORDER_COLUMNS", columns)
        orders = start_orders(window.instance, reservations=window.reservations,
                              time_limit=5.0, cells=asked)
        assert grids[-1] == expected
        for order in orders.values():
            assert sorted(order) == list(range(n))


def test_the_bracket_uses_it_on_a_trace_window() -> None:
    """On a window of the bundled KTH-SP2 head: the bound reaches the
    bracket's mean-flow-time bounds, below the best schedule found (which
    passes the validator with the running jobs)."""
    window = kth_head_window()
    best = best_heuristic(window, "mean-flow-time", search_seconds=0.2)
    window.validate(best.schedule)
    found = window_bounds(window, "mean-flow-time", time_limit=6.0,
                          incumbent=best.schedule)
    assert "time-indexed-lp" in found["bounds"]
    assert meets_bound(found["bounds"]["time-indexed-lp"], best.value)
    assert found["bound"] >= found["bounds"]["time-indexed-lp"]


@st.composite
def busy_windows(draw) -> tuple[Instance, Reservations]:
    """2-3 jobs on 1-2 nodes, one or two (compute, I/O) iterations of
    integer halves, releases in 0..4; the I/O node busy on 1-4 drawn
    intervals and maybe a node held: where a job's length depends on its
    start."""
    half = st.integers(0, 6).map(lambda v: v / 2)
    nodes = draw(st.integers(1, 2))
    jobs = []
    for i in range(draw(st.integers(2, 3))):
        iterations = draw(st.integers(1, 2))
        compute = tuple(draw(half) for _ in range(iterations))
        volume = tuple(draw(half) for _ in range(iterations))
        if sum(compute) + sum(volume) == 0:
            compute = (1.0, *compute[1:])
        jobs.append(Job(f"j{i}", draw(st.integers(1, nodes)), compute, volume,
                        release=float(draw(st.integers(0, 4)))))
    busy = [(a, a + length) for a, length in draw(st.lists(
        st.tuples(st.integers(0, 12).map(float), st.integers(1, 6).map(float)),
        min_size=1, max_size=4))]
    held = nodes == 2 and draw(st.booleans())
    holds = [(float(draw(st.integers(1, 6))), 1)] if held else []
    instance = Instance("busy", Platform.homogeneous(1, nodes, 1.0), tuple(jobs))
    return instance, Reservations.build(node_holds=holds, io_busy=busy)


@slow(40)
@given(busy_windows(), st.sampled_from([10, 100, 400]))
def test_bound_below_the_optimum_where_the_io_stretches_jobs(case, cells) -> None:
    """As above, on windows drawn so that the running I/O stretches jobs:
    the LP's bound, and the MIP's, <= brute-force optimum with the
    reservations."""
    instance, reservations = case
    optimum, _ = brute_force_hpc_io(instance, "mean-flow-time",
                                    reservations=reservations)
    found = time_indexed_mean_flow_bound(instance, reservations=reservations,
                                         time_limit=2.0, cells=cells)
    bound = found["time-indexed-lp"]
    assert meets_bound(bound, optimum), (bound, optimum)
    alone = flow_bounds(instance, "mean-flow-time", reservations=reservations)["alone"]
    event("above alone" if bound > alone + 1e-6 else "alone")
    event("optimum reached" if bound >= optimum - 1e-6 else "below the optimum")
    if instance.num_jobs < 2:
        return
    # the programme as a MIP: HiGHS's dual bound <= the optimum (the LP
    # above may be higher: it also tries twice the cells; at 400 cells and
    # more HiGHS takes seconds even on three jobs, so at most 100 here)
    mip = time_indexed_mip_bound(instance, reservations=reservations,
                                 time_limit=2.0,
                                 cells=min(cells, 100))["time-indexed-mip"]
    assert meets_bound(mip, optimum), (mip, optimum)
    event("MIP above the LP" if mip > bound + 1e-6 else "MIP at most the LP")
    event("MIP at the optimum" if mip >= optimum - 1e-5 else "MIP below the optimum")


def _stretch_optimum(instance: Instance, reservations: Reservations) -> float:
    optimum, _ = brute_force_hpc_io(instance, "max-flow-stretch",
                                    reservations=reservations)
    return optimum


@slow(40)
@given(busy_windows(), st.sampled_from([10, 100, 400]), st.data())
def test_stretch_bound_below_the_optimum(case, cells, data) -> None:
    """``time-indexed-edf`` (HiGHS proposes, the certificate is checked
    here) <= the brute-force max flow stretch with the reservations; and a
    certificate from any ``lambda >= 0`` that comes out positive for a
    stretch proves the optimum above it."""
    instance, reservations = case
    optimum = _stretch_optimum(instance, reservations)
    found = time_indexed_stretch_bound(instance, 1.0, 2.0 * optimum + 1.0,
                                       reservations=reservations, time_limit=2.0,
                                       cells=cells)
    if found:
        assert meets_bound(found["time-indexed-edf"], optimum), (found, optimum)
    event("refuted above 1" if found else "nothing refuted")
    lp = _lp_data(instance, reservations, None, cells)
    stretch = data.draw(st.floats(1.0, 2.0 * optimum))
    lam = np.array(data.draw(st.lists(st.floats(0.0, 5.0), min_size=cells,
                                      max_size=cells)))
    if deadline_certificate(lp, stretch, lam) > 1e-9:
        assert optimum > stretch * (1 - 1e-9), (optimum, stretch)
        event("random certificate positive")


@slow(20)
@given(online_workloads(max_jobs=7), st.data())
def test_stretch_bound_below_the_optimum_on_trace_windows(instance: Instance,
                                                          data) -> None:
    """The same on small windows of replayed workloads (running jobs,
    queued jobs)."""
    window = drawn_window(instance, data)
    if window.instance.num_jobs > 4 or window.instance.num_io_phases > 6:
        return
    optimum = _stretch_optimum(window.instance, window.reservations)
    online = objective_value(window.instance, window.schedule, "max-flow-stretch")
    found = time_indexed_stretch_bound(window.instance, 1.0, online,
                                       reservations=window.reservations,
                                       time_limit=2.0)
    if found:
        assert meets_bound(found["time-indexed-edf"], optimum), (found, optimum)
    event("refuted above 1" if found else "nothing refuted")


def test_mip_sees_what_the_lp_does_not_by_hand() -> None:
    """``P = 2``, bandwidth 1, no I/O: three jobs of 2 nodes and length 1,
    released at 0. Any schedule runs them one after the other: sum of
    completions ``1 + 2 + 3 = 6`` (mean 2). The LP may run each job half
    in two places at once and stays below; the MIP on a grid of whole
    seconds reaches the optimum."""
    jobs = tuple(Job(f"j{i}", 2, (1.0,), (0.0,)) for i in range(3))
    instance = Instance("three", Platform.homogeneous(1, 2, 1.0), jobs)
    optimum, _ = brute_force_hpc_io(instance, "mean-flow-time")
    assert optimum == 2.0
    bound = time_indexed_mip_bound(instance, horizon=4.0, cells=4,
                                   time_limit=5.0)["time-indexed-mip"]
    assert meets_bound(bound, optimum)
    assert bound >= optimum * (1 - 2e-6)


def test_a_solver_that_contradicts_itself_proves_nothing() -> None:
    """The MIP's bound counts only if HiGHS's objective is its solution's
    cost: a reported objective below it (as HiGHS 1.16 did after LP solves
    and added rows on the same object) is refused, a consistent one and no
    solution at all are not."""
    from types import SimpleNamespace

    from opt_sched.bounds_window_tindex import agrees_with_its_solution

    def solved(x, objective, valid=True):
        return SimpleNamespace(
            getSolution=lambda: SimpleNamespace(value_valid=valid, col_value=x),
            getInfo=lambda: SimpleNamespace(objective_function_value=objective))

    cost = np.array([3.0, 5.0, 7.0])
    assert agrees_with_its_solution(solved([1.0, 0.0, 1.0], 10.0), cost)
    assert not agrees_with_its_solution(solved([1.0, 0.0, 1.0], 9.2), cost)
    assert agrees_with_its_solution(solved([], 0.0, valid=False), cost)
