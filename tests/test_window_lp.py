"""The knapsack and interval-indexed LP bounds on a window's mean flow time
(``models/mean-flow-lp.md``), the ``short-wait`` I/O rule and clairvoyant
EASY (``easy-ahead``) of the window schedules: every bound <= the
brute-force optimum with the reservations (for the LP, with its own
multipliers and with any multipliers >= 0), the online value >= the bound,
and every schedule passes the validator."""

from __future__ import annotations

import math
import random

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, Platform
from opt_sched.bounds_flow import flow_bounds
from opt_sched.bounds_window_lp import (
    _lp_data,
    interval_lp_mean_flow_bound,
    lagrangian_bound,
)
from opt_sched.exact.brute_force_hpc_io import brute_force_hpc_io
from opt_sched.exact.hpc_io.earliest import (
    IO_RULES,
    MODES,
    plans_of,
    simulate,
    to_schedule,
)
from opt_sched.experiments.window_instance import extract_window
from opt_sched.experiments.window_schedules import best_heuristic, timing_value
from opt_sched.objectives import meets_bound, objective_value
from opt_sched.scheduling import replay
from opt_sched.validation import assert_feasible

from .online_helpers import online_workloads
from .window_helpers import (
    TRACES,
    check_mean_flow_bound,
    drawn_window,
    slow,
    small_mean_flow_case,
)

SLOW = slow(25)


def _small_case(instance: Instance, data, horizons: list[float | None]):
    """:func:`small_mean_flow_case` and an LP horizon drawn from
    ``horizons``."""
    case = small_mean_flow_case(instance, data)
    return None if case is None else (*case, data.draw(st.sampled_from(horizons)))


@SLOW
@given(online_workloads(max_jobs=7), st.data())
def test_lp_bound_below_the_brute_force_optimum(instance: Instance, data) -> None:
    """The LP bound (HiGHS proposes, the multipliers are checked here)
    <= the optimum; >= ``alone``; <= the online value."""
    case = _small_case(instance, data, [None, 5.0, 20.0, 100.0])
    if case is None:
        return
    window, optimum, horizon = case
    found = interval_lp_mean_flow_bound(window.instance,
                                        reservations=window.reservations,
                                        time_limit=2.0, horizon=horizon)
    assert set(found) == {"interval-lp"}
    check_mean_flow_bound(window, optimum, found["interval-lp"])


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])
@given(online_workloads(max_jobs=7), st.data())
def test_any_multipliers_give_a_valid_bound(instance: Instance, data) -> None:
    """Weak duality: every row is valid, so any ``lambda >= 0`` on any rows
    -- nodes, I/O, and count rows of random job sets -- gives a bound <= the
    optimum (this checks the coefficients themselves, whatever the LP solver
    proposes)."""
    case = _small_case(instance, data, [None, 3.0, 10.0, 40.0])
    if case is None:
        return
    window, optimum, horizon = case
    lp = _lp_data(window.instance, window.reservations, horizon)
    g = len(lp["grid"])
    if g < 2:
        return
    seed = data.draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    n = window.instance.num_jobs
    sets = rng.random((8, n)) < 0.6
    rows = []
    for _ in range(40):
        s, t = sorted(rng.choice(g, size=2, replace=False).tolist())
        rows.append((int(rng.integers(0, 3)), s, t, int(rng.integers(0, 8))))
    rows_arr = np.array(rows, int)
    for scale in (0.01, 0.3, 3.0):
        lam = rng.exponential(scale, size=len(rows)) * (rng.random(len(rows)) < 0.5)
        total = lagrangian_bound(lp, rows_arr, lam, sets=sets)
        bound = (total - float(lp["releases"].sum())) / n
        assert meets_bound(bound, optimum), (bound, optimum, scale)


def test_lp_sees_the_contiguous_jobs() -> None:
    """P = 2: a job of 2 nodes and length 1 and one of 2 nodes and length 8,
    both released at 0, never run together; ``alone`` counts (1 + 8) / 2.
    The LP's node rows see that the two cannot both complete at their
    ``ect``: its bound is above ``alone`` and at most the optimum."""
    jobs = (Job("a", 2, (1.0,), (0.0,)), Job("b", 2, (8.0,), (0.0,)))
    instance = Instance("pair", Platform.homogeneous(1, 2, 1.0), jobs)
    optimum, _ = brute_force_hpc_io(instance, "mean-flow-time")
    alone = flow_bounds(instance, "mean-flow-time")["alone"]
    bound = interval_lp_mean_flow_bound(instance, time_limit=2.0,
                                        horizon=12.0)["interval-lp"]
    assert alone < bound
    assert meets_bound(bound, optimum)


def test_count_rows_tighten_the_lp() -> None:
    """P = 3: a (2 nodes, 1 s), b (2 nodes, 4 s), c and d (1 node, 4 s),
    released at 0. a and b never run together, nor b with both c and d. The
    LP with count rows ("at most m_E(f) jobs of E at once") is above the LP
    with node and I/O rows only, and at most the brute-force optimum."""
    jobs = (Job("a", 2, (1.0,), (0.0,)), Job("b", 2, (4.0,), (0.0,)),
            Job("c", 1, (4.0,), (0.0,)), Job("d", 1, (4.0,), (0.0,)))
    instance = Instance("counts", Platform.homogeneous(1, 3, 1.0), jobs)
    optimum, _ = brute_force_hpc_io(instance, "mean-flow-time")
    plain = interval_lp_mean_flow_bound(instance, time_limit=5.0, horizon=26.0,
                                        counts=False)["interval-lp"]
    counted = interval_lp_mean_flow_bound(instance, time_limit=5.0,
                                          horizon=26.0)["interval-lp"]
    assert plain < counted * (1 - 1e-3)
    assert meets_bound(counted, optimum), (counted, optimum)


def test_refined_lp_is_finer_and_below_the_optimum() -> None:
    """The instance of :func:`test_count_rows_tighten_the_lp` with 16
    completion intervals per job: the LP ends at once, so ``refine`` solves
    it again with twice the intervals (``P_ik`` lose less of each delay) and
    keeps the larger bound: above the coarse LP, at most the brute-force
    optimum."""
    jobs = (Job("a", 2, (1.0,), (0.0,)), Job("b", 2, (4.0,), (0.0,)),
            Job("c", 1, (4.0,), (0.0,)), Job("d", 1, (4.0,), (0.0,)))
    instance = Instance("counts", Platform.homogeneous(1, 3, 1.0), jobs)
    optimum, _ = brute_force_hpc_io(instance, "mean-flow-time")
    coarse = interval_lp_mean_flow_bound(instance, time_limit=5.0, horizon=26.0,
                                         intervals=16, refine=False)["interval-lp"]
    refined = interval_lp_mean_flow_bound(instance, time_limit=5.0, horizon=26.0,
                                          intervals=16)["interval-lp"]
    assert coarse < refined * (1 - 1e-3)
    assert meets_bound(refined, optimum), (refined, optimum)


def test_most_running_counts_the_smallest_first() -> None:
    """``m_E(f)``: the most jobs of ``E`` on ``f`` nodes, against every
    subset (brute force)."""
    from itertools import combinations

    from opt_sched.bounds_window_lp import most_running

    rng = random.Random(3)
    for _ in range(200):
        nodes = np.array([rng.randint(1, 9) for _ in range(6)], float)
        members = np.array([rng.random() < 0.7 for _ in range(6)])
        free = rng.randint(0, 30)
        chosen = [q for q, m in zip(nodes.tolist(), members.tolist()) if m]
        best = max(len(c) for r in range(len(chosen) + 1)
                   for c in combinations(chosen, r) if sum(c) <= free)
        assert most_running(nodes, members, float(free)) == best


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.floats(0.001, 1.0), st.integers(1, 9)), min_size=1,
                max_size=12),
       st.integers(0, 40))
def test_most_violated_prefix_is_the_best_prefix(jobs: list[tuple[float, int]],
                                                 free: int) -> None:
    """The count cuts' prefix search (incremental per node level) against
    :func:`most_running` of every prefix of ``m >= 2`` jobs, recomputed."""
    from opt_sched.bounds_window_lp import _most_violated_prefix, most_running

    y = np.array([v for v, _ in jobs])
    nodes = np.array([q for _, q in jobs], float)
    levels, level_of = np.unique(nodes, return_inverse=True)
    best, size = _most_violated_prefix(y, level_of, levels, float(free))
    overs = {}
    for m in range(2, len(jobs) + 1):
        members = np.zeros(len(jobs))
        members[:m] = 1.0
        overs[m] = math.fsum(y[:m].tolist()) - most_running(nodes, members,
                                                            float(free))
    want = max([1e-6, *overs.values()])
    tolerance = 1e-12 * len(jobs)
    assert abs(best - want) <= tolerance
    if size:  # the prefix named has that violation (ties: any of them)
        assert abs(overs[size] - best) <= tolerance
    else:
        assert want <= 1e-6 + tolerance


def test_lp_bound_below_online_on_kth_windows() -> None:
    """The online value >= the LP bound on windows of the KTH-SP2 head."""
    from opt_sched.traces import convert_trace, read_swf

    trace, _ = read_swf(TRACES / "kth-sp2-head.swf")
    instance = convert_trace(trace, "darshan-cori", seed=0, alpha=0.5).instance
    schedule = replay(instance, "easy")
    for start in (5, 15, 25):
        window = extract_window(instance, schedule, start, 10)
        found = interval_lp_mean_flow_bound(window.instance,
                                            reservations=window.reservations,
                                            time_limit=3.0)
        online = objective_value(window.instance, window.schedule, "mean-flow-time")
        assert meets_bound(found["interval-lp"], online)


def _seeded(seed: int, n: int = 8) -> Instance:
    rng = random.Random(seed)
    jobs = []
    for i in range(n):
        phases = rng.choice([1, 2, 3])
        compute = tuple(float(rng.randint(0, 5)) for _ in range(phases))
        volume = tuple(float(rng.choice([0, 0.5, 1, 4])) for _ in range(phases))
        if sum(compute) + sum(volume) == 0:
            compute = (1.0, *compute[1:])
        jobs.append(Job(f"j{i}", rng.randint(1, 4), compute, volume,
                        release=float(rng.randint(0, 6)), walltime=50.0))
    jobs.sort(key=lambda job: job.release)
    return Instance("seeded", Platform.homogeneous(1, 4, 1.0), tuple(jobs))


def test_short_wait_schedules_are_feasible() -> None:
    """Every simulated schedule under ``short-wait`` (every mode) and the
    best heuristic pass the validator with the reservations."""
    for seed in range(8):
        instance = _seeded(seed)
        schedule = replay(instance, "easy")
        window = extract_window(instance, schedule, 2, 5)
        plans = plans_of(window.instance)
        nodes = window.instance.platform.partitions[0].nodes
        lengths = [j.length(window.instance.bandwidth_of(j))
                   for j in window.instance.jobs]
        order = sorted(range(len(plans)), key=lambda i: lengths[i])
        for mode in MODES:
            for rule in IO_RULES:
                timing = simulate(plans, nodes, window.reservations, order, mode=mode,
                                  io_rule=rule)
                assert timing is not None
                found = to_schedule(window.instance, timing, rule)
                assert_feasible(*window.with_running(found),
                                resolution=window.resolution)
                assert timing_value(plans, lengths, timing, "mean-flow-time") == \
                    objective_value(window.instance, found, "mean-flow-time")
        heuristic = best_heuristic(window, "mean-flow-time", search_seconds=0.2)
        assert_feasible(*window.with_running(heuristic.schedule))


def test_short_wait_idles_for_a_short_operation() -> None:
    """One I/O node: job a (1 node) does a 10 s I/O at time 0; job b (1
    node) computes 1 s then does 1 s of I/O. ``fifo`` starts a's I/O at 0,
    b waits until 10 (mean flow (10 + 11) / 2); ``short-wait`` idles until
    1, b's I/O runs [1, 2), a's [2, 12) (mean flow (12 + 2) / 2)."""
    jobs = (Job("a", 1, (0.0,), (10.0,)), Job("b", 1, (1.0,), (1.0,)))
    instance = Instance("idle", Platform.homogeneous(1, 2, 1.0), jobs)
    plans = plans_of(instance)
    from opt_sched.reservations import Reservations

    values = {}
    for rule in IO_RULES:
        timing = simulate(plans, 2, Reservations(), [0, 1], mode="greedy",
                          io_rule=rule)
        schedule = to_schedule(instance, timing, rule)
        assert_feasible(instance, schedule)
        values[rule] = objective_value(instance, schedule, "mean-flow-time")
    assert values["fifo"] == (10 + 11) / 2
    assert values["short-wait"] == (12 + 2) / 2
    assert values["reserve"] == (10 + 11) / 2  # a ranked first: it is served


def test_reserve_keeps_the_io_node_for_the_better_ranked_job() -> None:
    """``reserve`` with b ranked before a (the jobs of the test above): a's
    10 s operation, ready at 0, would end after b's is ready (1), so the
    node idles; b's I/O runs [1, 2), a's [2, 12). With three operations of
    b (1 s compute, 1 s I/O each), a's operation fits nowhere before b is
    done: b ends at 6, a's I/O runs [6, 16)."""
    from opt_sched.reservations import Reservations

    def flows(b_phases: int) -> tuple[float, float]:
        jobs = (Job("a", 1, (0.0,), (10.0,)),
                Job("b", 1, (1.0,) * b_phases, (1.0,) * b_phases))
        instance = Instance("reserve", Platform.homogeneous(1, 2, 1.0), jobs)
        timing = simulate(plans_of(instance), 2, Reservations(), [1, 0],
                          mode="greedy", io_rule="reserve")
        schedule = to_schedule(instance, timing, "reserve")
        assert_feasible(instance, schedule)
        return tuple(schedule[job.id].completion(job, 1.0) for job in jobs)

    assert flows(1) == (12.0, 2.0)
    assert flows(3) == (16.0, 6.0)


# -- a job and what runs beside it ----------------------------------------------
@SLOW
@given(online_workloads(max_jobs=7), st.data())
def test_beside_bound_below_the_brute_force_optimum(instance: Instance, data) -> None:
    """The knapsack bound <= the optimum with the reservations; >= ``alone``;
    <= the online value."""
    from opt_sched.bounds_window import beside_mean_flow_bound

    window = drawn_window(instance, data)
    found = beside_mean_flow_bound(window.instance, reservations=window.reservations)
    alone = flow_bounds(window.instance, "mean-flow-time",
                        reservations=window.reservations)["alone"]
    online = objective_value(window.instance, window.schedule, "mean-flow-time")
    for value in found.values():
        assert value >= alone - 1e-9 * max(1.0, abs(alone))
        assert meets_bound(value, online)
    if window.instance.num_jobs > 4 or window.instance.num_io_phases > 6 \
            or not found:
        return
    optimum, _ = brute_force_hpc_io(window.instance, "mean-flow-time",
                                    reservations=window.reservations)
    assert meets_bound(found["beside-knapsack"], optimum), (found, optimum)


def test_beside_bound_by_hand() -> None:
    """P = 4: a (3 nodes, length 1) and b (2 nodes, length 10), released at
    0, never run together. ``alone`` counts (1 + 10) / 2; while a runs, b
    cannot, so the knapsack sees b start after a: the bound reaches the
    brute-force optimum."""
    from opt_sched.bounds_window import beside_mean_flow_bound

    jobs = (Job("a", 3, (1.0,), (0.0,)), Job("b", 2, (10.0,), (0.0,)))
    instance = Instance("pair", Platform.homogeneous(1, 4, 1.0), jobs)
    optimum, _ = brute_force_hpc_io(instance, "mean-flow-time")
    alone = flow_bounds(instance, "mean-flow-time")["alone"]
    bound = beside_mean_flow_bound(instance)["beside-knapsack"]
    assert alone < bound
    assert meets_bound(bound, optimum)
    assert bound >= optimum * (1 - 1e-6)


def test_easy_ahead_reserves_for_a_job_not_released_yet() -> None:
    """P = 2: a (1 node, 10 s, released 0), b (2 nodes, 1 s, released 1),
    order [b, a]. EASY starts a at 0 (b is not released), b waits until 10:
    flows 10 and 10. Clairvoyant EASY makes b the head, its 2 nodes
    reserved from 1; a (ending at 10, after that) waits: b runs [1, 2), a
    [2, 12): flows 1 and 12."""
    from opt_sched.reservations import Reservations

    jobs = (Job("a", 1, (10.0,), (0.0,)), Job("b", 2, (1.0,), (0.0,), release=1.0))
    instance = Instance("ahead", Platform.homogeneous(1, 2, 1.0), jobs)
    plans = plans_of(instance)
    values = {}
    for mode in ("easy", "easy-ahead"):
        timing = simulate(plans, 2, Reservations(), [1, 0], mode=mode)
        schedule = to_schedule(instance, timing, mode)
        assert_feasible(instance, schedule)
        values[mode] = objective_value(instance, schedule, "mean-flow-time")
    assert values["easy"] == (10 + 10) / 2
    assert values["easy-ahead"] == (1 + 12) / 2


def test_a_simulation_past_its_deadline_is_dropped(monkeypatch) -> None:
    """``simulate`` gives ``None`` (no schedule) once its deadline has passed
    (looked at every ``DEADLINE_EVERY`` events), the same schedule with a
    deadline far away; ``best_heuristic`` without time for the list
    policies runs the left shift and one list policy to their end (the
    better of the two, validated), and nothing more."""
    import math
    import time

    from opt_sched.exact.hpc_io import earliest
    from opt_sched.experiments.window_schedules import _priorities

    instance = _seeded(3)
    window = extract_window(instance, replay(instance, "easy"), 2, 5)
    plans = plans_of(window.instance)
    nodes = window.instance.platform.partitions[0].nodes
    order = list(range(len(plans)))
    free = simulate(plans, nodes, window.reservations, order, mode="greedy")
    late = simulate(plans, nodes, window.reservations, order, mode="greedy",
                    deadline=time.perf_counter() + 3600)
    assert free is not None and late == free
    monkeypatch.setattr(earliest, "DEADLINE_EVERY", 1)
    assert simulate(plans, nodes, window.reservations, order, mode="greedy",
                    deadline=0.0) is None
    import opt_sched.experiments.window_schedules as window_schedules

    calls = []

    def counted(*args, **kwargs):
        calls.append(kwargs.get("deadline", math.inf))
        return simulate(*args, **kwargs)

    monkeypatch.setattr(window_schedules, "simulate", counted)
    heuristic = best_heuristic(window, "mean-flow-time", search_seconds=0.0,
                               list_seconds=0.0)
    assert calls == [math.inf, math.inf]  # the left shift, one list policy
    lengths = [job.length(window.instance.bandwidth_of(job))
               for job in window.instance.jobs]
    # the objective's own first try, else the first list strictly
    own = window_schedules.FIRST_TRIES.get("mean-flow-time")
    first = own[0] if own else (next(iter(_priorities(window, lengths))), "strict")
    assert heuristic.name in ("online-left-shift", window_schedules.list_label(*first))
    assert_feasible(*window.with_running(heuristic.schedule))
