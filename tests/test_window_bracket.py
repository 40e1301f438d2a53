"""The window as the system's state and the bracket of the optimum: the
decision set holds every job queued at t0, every schedule of a bracket passes
the validator with the reservations, and bound <= brute-force optimum <=
best schedule found <= online value on small windows."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, Platform, Schedule
from opt_sched.exact.brute_force_hpc_io import brute_force_hpc_io
from opt_sched.exact.hpc_io.earliest import orders_of, plans_of, simulate, to_schedule
from opt_sched.exact.hpc_io.reserved_search import reserved_search
from opt_sched.experiments.window import WINDOW_OBJECTIVES, best_schedule, window_gap
from opt_sched.experiments.window_instance import extract_window
from opt_sched.experiments.window_schedules import best_heuristic
from opt_sched.objectives import meets_bound, objective_value
from opt_sched.scheduling import replay
from opt_sched.validation import assert_feasible

from .online_helpers import online_workloads
from .test_cli import run_cli
from .window_helpers import (
    kth_head_window,
    no_dependencies,
    queue_hand,
    seeded_instance,
)

DATA = Path(__file__).parent / "data" / "traces"


def _queued_by_hand(instance: Instance, schedule: Schedule, start: int) -> set[str]:
    """Jobs before ``start`` in (release, index) order not started before
    ``r_start``: the definition, computed without the module."""
    t0 = instance.jobs[start].release
    out = set()
    for i, job in enumerate(instance.jobs):
        before = (job.release, i) < (t0, start)
        if before and schedule[job.id].start >= t0:
            out.add(job.id)
    return out


def test_state_window_by_hand() -> None:
    instance, schedule = queue_hand()
    assert_feasible(instance, schedule)
    window = extract_window(instance, schedule, 2, 2)
    # t0 = 2: big runs (holds 2 nodes until 10 - 2 = 8), q is queued, a
    # arrives; count 2 = q + a (z is the next arrival, not taken)
    assert window.t0 == 2.0
    assert [job.id for job in window.instance.jobs] == ["q", "a"]
    assert [job.release for job in window.instance.jobs] == [0.0, 0.0]
    assert window.reservations.node_holds == ((8.0 - window.resolution, 2),)
    assert window.info["queued_at_t0"] == 1 and window.info["queued_left_out"] == 0
    # online: q ends 12 - 2 = 10 (flow from t0: 10, T 2), a ends 9 (flow 9)
    assert objective_value(window.instance, window.schedule, "mean-flow-time") == 9.5
    old = extract_window(instance, schedule, 2, 2, mode="consecutive")
    assert [job.id for job in old.instance.jobs] == ["a", "z"]
    assert old.info["queued_left_out"] == 1
    window.validate()
    old.validate()


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])
@given(online_workloads(max_jobs=9), st.data())
def test_the_decision_set_holds_every_queued_job(instance: Instance, data) -> None:
    instance = no_dependencies(instance)
    schedule = replay(instance, "easy")
    start = data.draw(st.integers(0, instance.num_jobs - 1))
    count = data.draw(st.integers(1, instance.num_jobs - start))
    window = extract_window(instance, schedule, start, count)
    members = {job.id for job in window.instance.jobs}
    queued = _queued_by_hand(instance, schedule, start)
    assert queued <= members
    t0 = instance.jobs[start].release
    later = sum(1 for i, job in enumerate(instance.jobs)
                if (job.release, i) >= (t0, start))
    assert len(members) == len(queued) + min(later, max(0, count - len(queued)))
    assert instance.jobs[start].id in members or len(queued) >= count
    window.validate()
    # every job not in the window and started at or after t0 is a later
    # arrival (released at or after t0)
    for job in instance.jobs:
        if job.id not in members and schedule[job.id].start >= window.t0:
            assert job.release >= window.t0


# -- the bracket against the brute-force optimum --------------------------------------
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])
@given(online_workloads(max_jobs=7), st.data(),
       st.sampled_from(["state", "consecutive"]))
def test_bracket_holds_the_brute_force_optimum(instance: Instance, data,
                                               mode: str) -> None:
    instance = no_dependencies(instance)
    schedule = replay(instance, "easy")
    start = data.draw(st.integers(0, instance.num_jobs - 1))
    count = data.draw(st.integers(1, min(3, instance.num_jobs - start)))
    window = extract_window(instance, schedule, start, count, mode=mode)
    small = (window.instance.num_jobs <= 4 and window.instance.num_io_phases <= 5)
    report = window_gap(instance, schedule, start, count, time_limit=1.0, mode=mode)
    for objective in WINDOW_OBJECTIVES:
        item = report["objectives"][objective]
        online = objective_value(window.instance, window.schedule, objective)
        assert item["online"] == online
        assert meets_bound(item["lower_bound"], item["best_found"])
        assert item["best_found"] <= online + 1e-9 * max(1.0, online)
        # the schedule found again, checked here with the running jobs
        found = best_schedule(window, objective, time_limit=0.5)
        assert_feasible(*window.with_running(found["schedule"]))
        assert objective_value(window.instance, found["schedule"], objective) \
            == found["best_found"]
        if small:
            optimum, _ = brute_force_hpc_io(window.instance, objective,
                                            reservations=window.reservations)
            assert meets_bound(item["lower_bound"], optimum), (objective, item)
            assert meets_bound(optimum, item["best_found"])


def test_a_zero_length_job_has_no_deadline_in_the_stretch_bounds() -> None:
    """Found by the test above: a job of length 0 (stretch 1 by definition,
    however long it waits) that cannot start before the running jobs free
    its nodes made the energetic test refute every stretch ("it cannot meet
    its deadline r_i + x T_i = r_i even alone"), a bound of 1.75 above the
    optimum 5/3. Its wait costs nothing and it holds no node-seconds."""
    from opt_sched import Partition

    def job(name, nodes, compute, volume, release, walltime):
        return Job(name, nodes, compute, volume, release=release, walltime=walltime)

    instance = Instance("online", Platform((Partition(8, 0.5),)), (
        job("j0", 3, (0.0,), (3.0,), 10.0, 6.0),
        job("j1", 6, (0.0,), (0.0,), 12.0, 0.5),
        job("j2", 1, (3.0,), (0.0,), 11.0, 3.0),
        job("j3", 5, (0.0, 0.0, 3.5), (0.0, 2.5, 0.0), 6.0, 8.5)))
    schedule = replay(instance, "easy")
    window = extract_window(instance, schedule, 0, 3, mode="state")
    optimum, found = brute_force_hpc_io(window.instance, "max-flow-stretch",
                                        reservations=window.reservations)
    assert_feasible(*window.with_running(found))
    report = window_gap(instance, schedule, 0, 3, time_limit=1.0, mode="state")
    item = report["objectives"]["max-flow-stretch"]
    for name, value in item["bounds"].items():
        assert meets_bound(value, optimum), (name, value, optimum)
    assert meets_bound(item["lower_bound"], optimum)
    assert meets_bound(optimum, item["best_found"])


@pytest.mark.parametrize("seed", range(4))
def test_cpsat_guided_schedules_are_feasible(seed: int) -> None:
    """The schedule CP-SAT's orders give (simulated at the true lengths) is
    feasible with the reservations and never below the optimum."""
    instance = seeded_instance(seed)
    schedule = replay(instance, "easy")
    window = extract_window(instance, schedule, 3, 3, mode="consecutive")
    for objective in WINDOW_OBJECTIVES:
        optimum, _ = brute_force_hpc_io(window.instance, objective, max_phases=8,
                                        reservations=window.reservations)
        found = reserved_search(window.instance, window.reservations, objective,
                                window.schedule, time_limit=5)
        assert found.schedule is not None, found.info
        assert_feasible(*window.with_running(found.schedule))
        value = objective_value(window.instance, found.schedule, objective)
        assert meets_bound(optimum, value), (objective, value, optimum)
        assert found.info["value"] == value


def test_left_shift_is_never_later() -> None:
    """The online orders simulated strictly start every job no later."""
    for seed in range(6):
        instance = seeded_instance(seed, 9)
        schedule = replay(instance, "easy")
        window = extract_window(instance, schedule, 2, 5)
        online = window.schedule
        ops = [[online[j.id].io_starts[q] for q, v in enumerate(j.io_volume) if v > 0]
               for j in window.instance.jobs]
        starts = [online[j.id].start for j in window.instance.jobs]
        timing = simulate(plans_of(window.instance),
                          window.instance.platform.partitions[0].nodes,
                          window.reservations, *orders_of(starts, ops))
        shifted = to_schedule(window.instance, timing, "left-shift")
        assert_feasible(*window.with_running(shifted))
        before = online.completions(window.instance)
        after = shifted.completions(window.instance)
        for job in window.instance.jobs:
            assert after[job.id] <= before[job.id] + 1e-9
        for objective in WINDOW_OBJECTIVES:
            heuristic = best_heuristic(window, objective, search_seconds=0.2)
            assert_feasible(*window.with_running(heuristic.schedule))
            assert heuristic.value <= objective_value(window.instance, shifted,
                                                      objective) + 1e-9


def test_list_stage_stops_at_its_time_and_keeps_the_left_shift() -> None:
    """With no time for list policies (a window of hundreds of jobs, where one
    simulation takes seconds), the heuristic is the online schedule's left
    shift or the one list policy that always runs (the objective's first
    try), improved only by the local search, and still valid."""
    from opt_sched.experiments.window_schedules import FIRST_TRIES, list_label

    instance = seeded_instance(1, 12)
    window = extract_window(instance, replay(instance, "easy"), 3, 9)
    for objective in WINDOW_OBJECTIVES:
        none = best_heuristic(window, objective, search_seconds=0.0, list_seconds=0.0)
        first = FIRST_TRIES.get(objective, (("fcfs", "strict", "fifo"),))[0]
        assert none.name in ("online-left-shift", list_label(*first)), none.name
        assert_feasible(*window.with_running(none.schedule))
        full = best_heuristic(window, objective, search_seconds=0.0)
        assert full.name != none.name  # here a list policy beats the left shift
        assert full.value < none.value


@pytest.mark.parametrize(("objective", "first", "key"), [
    ("mean-flow-time", ("spt", "easy", "fifo"),
     lambda job, length, i: (length, job.release, i)),
    ("makespan", ("widest", "greedy", "fifo"),
     lambda job, length, i: (-job.nodes, -length, i)),
])
def test_the_objectives_own_lists_run_first(monkeypatch, objective, first, key) -> None:
    """With time for one list policy only (a thousand jobs queued), the
    objective runs its first try (``FIRST_TRIES``: SPT under EASY for the
    mean flow time, the widest first greedily for the makespan), not the
    lists given before it."""
    from opt_sched.exact.hpc_io.earliest import MODES
    from opt_sched.experiments import window_schedules

    assert sorted(window_schedules.FIRST_MODES) == sorted(MODES)
    instance = seeded_instance(1, 12)
    window = extract_window(instance, replay(instance, "easy"), 3, 9)
    calls = []
    real = window_schedules.simulate

    def recording(plans, capacity, reservations, order, io_order=None, **options):
        calls.append((list(order), io_order is None, options.get("mode", "strict"),
                      options.get("io_rule", "fifo")))
        return real(plans, capacity, reservations, order, io_order, **options)

    monkeypatch.setattr(window_schedules, "simulate", recording)
    best_heuristic(window, objective, search_seconds=0.0, list_seconds=0.0,
                   orders={"given": list(range(len(window.instance.jobs)))[::-1]})
    jobs = window.instance.jobs
    lengths = [job.length(window.instance.bandwidth_of(job)) for job in jobs]
    ranked = sorted(range(len(jobs)), key=lambda i: key(jobs[i], lengths[i], i))
    assert not calls[0][1]  # the left shift, its I/O order given
    assert window_schedules.FIRST_TRIES[objective][0] == first
    assert calls[1] == (ranked, True, first[1], first[2])
    assert len(calls) == 2


def test_each_list_mode_and_io_rule_is_simulated_once(monkeypatch) -> None:
    """With time for every list, a first try under an I/O rule other than
    first come (the makespan's LPT EASY ``short-wait``) is not simulated
    again by the second round, which runs each list under the rules it has
    not run with; and every list policy runs under all three rules."""
    from opt_sched.exact.hpc_io.earliest import IO_RULES
    from opt_sched.experiments import window_schedules

    instance = seeded_instance(1, 12)
    window = extract_window(instance, replay(instance, "easy"), 3, 9)
    calls = []
    real = window_schedules.simulate

    def recording(plans, capacity, reservations, order, io_order=None, **options):
        if io_order is None:  # a list policy, not the left shift
            calls.append((tuple(order), options.get("mode", "strict"),
                          options.get("io_rule", "fifo")))
        return real(plans, capacity, reservations, order, io_order, **options)

    monkeypatch.setattr(window_schedules, "simulate", recording)
    best_heuristic(window, "makespan", search_seconds=0.0)
    assert len(calls) == len(set(calls))
    assert set(IO_RULES) == {"fifo", *window_schedules.SECOND_IO_RULES}
    for order, mode, _ in calls:
        for rule in IO_RULES:
            assert (order, mode, rule) in calls


def test_the_first_tries_take_the_local_searchs_time(monkeypatch) -> None:
    """Where each simulation is slow (a thousand jobs queued), the objective's
    first tries run on into the local search's time, in their order, and no
    other list does; the local search then has only what they left."""
    from opt_sched.experiments import window_schedules

    instance = seeded_instance(1, 12)
    window = extract_window(instance, replay(instance, "easy"), 3, 9)
    jobs = window.instance.jobs
    lengths = [job.length(window.instance.bandwidth_of(job)) for job in jobs]
    lists = {name: sorted(range(len(jobs)), key=key) for name, key
             in window_schedules._priorities(window, lengths).items()}
    tries = []  # each (order, mode, rule) once: lists often agree on 9 jobs
    for name, mode, rule in window_schedules.FIRST_TRIES["mean-flow-time"]:
        if name in lists and (lists[name], mode, rule) not in tries:
            tries.append((lists[name], mode, rule))
    calls, granted = [], []
    real_simulate = window_schedules.simulate
    real_search = window_schedules._local_search

    def slow(plans, capacity, reservations, order, io_order=None, **options):
        calls.append((list(order), options.get("mode", "strict"),
                      options.get("io_rule", "fifo")))
        time.sleep(0.05)
        return real_simulate(plans, capacity, reservations, order, io_order, **options)

    def search(*args):
        granted.append(args[-1])
        return real_search(*args)

    monkeypatch.setattr(window_schedules, "simulate", slow)
    monkeypatch.setattr(window_schedules, "_local_search", search)
    best_heuristic(window, "mean-flow-time", search_seconds=0.3, list_seconds=0.0)
    lists_run = [call for call in calls[1:] if call in tries]
    assert len(lists_run) >= 3  # not only the one list that always runs
    assert lists_run == tries[:len(lists_run)]
    assert granted and sum(granted) < 0.3 - 0.05


def test_online_value_above_the_bound_on_kth_windows() -> None:
    """The online value >= the bound >= ... on windows of the KTH-SP2 head
    (real jobs, the darshan-cori I/O), in both modes."""
    from opt_sched.traces import convert_trace, read_swf

    trace, _ = read_swf(DATA / "kth-sp2-head.swf")
    instance = convert_trace(trace, "darshan-cori", seed=0, alpha=0.5).instance
    schedule = replay(instance, "easy")
    for start, mode in ((5, "state"), (15, "state"), (25, "consecutive")):
        report = window_gap(instance, schedule, start, 8, time_limit=1.0, mode=mode)
        for objective, item in report["objectives"].items():
            assert meets_bound(item["lower_bound"], item["online"]), objective
            assert meets_bound(item["lower_bound"], item["best_found"]), objective
            assert item["best_found"] <= item["online"] * (1 + 1e-9)


def test_cli_window_bracket_json() -> None:
    done = run_cli("replay", str(DATA / "kth-sp2-head.swf"), "--scheduler", "easy",
                   "--io-profile", "darshan-cori", "--alpha", "0.5",
                   "--window", "5:20", "--window-time-limit", "2", "--json")
    assert done.returncode == 0, done.stderr
    window = json.loads(done.stdout)["window"]
    assert window["mode"] == "state"
    for item in window["objectives"].values():
        for key in ("online", "best_found", "lower_bound"):
            assert isinstance(item[key], float) and math.isfinite(item[key])
        assert meets_bound(item["lower_bound"], item["best_found"])
        assert item["best_found"] <= item["online"] * (1 + 1e-9)
    text = run_cli("replay", str(DATA / "kth-sp2-head.swf"), "--window", "0:20",
                   "--window-time-limit", "0.5", "--window-mode", "consecutive",
                   "--quiet")
    assert text.returncode == 0, text.stderr
    assert "at least" in text.stdout and "consecutive" in text.stdout


# -- the bounds one by one ----------------------------------------------------------
@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])
@given(online_workloads(max_jobs=7), st.data(),
       st.sampled_from(["state", "consecutive"]))
def test_every_window_bound_is_below_the_optimum(instance: Instance, data,
                                                 mode: str) -> None:
    """Each bound of the window (by name: the combinatorial ones, the split
    bound, CP-SAT's) <= the brute-force optimum with the reservations."""
    from opt_sched.experiments.window import window_bounds

    instance = no_dependencies(instance)
    schedule = replay(instance, "easy")
    start = data.draw(st.integers(0, instance.num_jobs - 1))
    count = data.draw(st.integers(1, min(4, instance.num_jobs - start)))
    window = extract_window(instance, schedule, start, count, mode=mode)
    if window.instance.num_jobs > 4 or window.instance.num_io_phases > 6:
        return
    for objective in WINDOW_OBJECTIVES:
        optimum, _ = brute_force_hpc_io(window.instance, objective,
                                        reservations=window.reservations)
        found = window_bounds(window, objective, time_limit=0.5)
        for name, bound in found["bounds"].items():
            assert meets_bound(bound, optimum), (objective, name, bound, optimum)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(online_workloads(max_jobs=10), st.data())
def test_split_bound_at_least_alone(instance: Instance, data) -> None:
    from opt_sched.bounds_flow import flow_bounds
    from opt_sched.bounds_window import (
        exclusive_mean_flow_bound,
        split_mean_flow_bound,
    )

    instance = no_dependencies(instance)
    schedule = replay(instance, "easy")
    start = data.draw(st.integers(0, instance.num_jobs - 1))
    window = extract_window(instance, schedule, start,
                            instance.num_jobs - start)
    split = split_mean_flow_bound(window.instance,
                                  reservations=window.reservations)["split-srpt"]
    alone = flow_bounds(window.instance, "mean-flow-time",
                        reservations=window.reservations)["alone"]
    assert split >= alone - 1e-9 * max(1.0, alone)
    online = objective_value(window.instance, window.schedule, "mean-flow-time")
    assert meets_bound(split, online)
    exclusive = exclusive_mean_flow_bound(window.instance,
                                          reservations=window.reservations)
    for value in exclusive.values():
        assert meets_bound(value, online)


def test_exclusive_bound_by_hand() -> None:
    """P = 4, no reservations: three jobs of 3 nodes (lengths 1, 2, 3, all
    released at 0) never run together, SRPT gives 1 + 3 + 6 = 10; a 1-node
    job (length 5) counts alone, 5: mean flow (10 + 5) / 4."""
    from opt_sched.bounds_window import exclusive_mean_flow_bound

    instance = Instance("excl", Platform.homogeneous(1, 4, 1.0), (
        Job("a", 3, (1.0,), (0.0,)), Job("b", 3, (2.0,), (0.0,)),
        Job("c", 3, (3.0,), (0.0,)), Job("d", 1, (5.0,), (0.0,))))
    assert exclusive_mean_flow_bound(instance) == {"exclusive-srpt": 15.0 / 4}
    optimum, _ = brute_force_hpc_io(instance, "mean-flow-time")
    assert optimum == 15.0 / 4


def test_exclusive_stretch_bound_by_hand() -> None:
    """P = 4: two 3-node jobs of length 1 released at 0 never run together:
    the second ends at 2, max flow stretch 2 (the brute-force optimum); the
    deadline test refutes every x < 2."""
    from opt_sched.bounds_window import exclusive_stretch_bound

    instance = Instance("excl", Platform.homogeneous(1, 4, 1.0), (
        Job("a", 3, (1.0,), (0.0,)), Job("b", 3, (1.0,), (0.0,))))
    optimum, _ = brute_force_hpc_io(instance, "max-flow-stretch")
    assert optimum == 2.0
    found = exclusive_stretch_bound(instance, 1.0, 3.0)["exclusive-edf"]
    assert 2.0 - 1e-8 <= found <= 2.0  # EDF refutes beyond 1e-9 lateness


def test_energetic_stretch_bound_by_hand() -> None:
    """The same two 3-node jobs on 4 nodes, ``T = 1``: by ``d = x`` each
    starts in ``[0, x - 1]`` and so runs through ``[x - 1, 1)`` whatever its
    start (its compulsory part); both need 6 of the 4 nodes there, so every
    ``x < 2`` is refuted: the bound is the optimum 2. With 3 of the 4 nodes
    held until 1, neither starts before 1 and the compulsory parts are
    ``[x - 1, 2)``: every ``x < 3`` is refuted, the optimum (1 + 1 + 1)."""
    from opt_sched.bounds_window import energetic_stretch_bound
    from opt_sched.reservations import Reservations

    instance = Instance("energy", Platform.homogeneous(1, 4, 1.0), (
        Job("a", 3, (1.0,), (0.0,)), Job("b", 3, (1.0,), (0.0,))))
    found = energetic_stretch_bound(instance, 1.0, 3.0)["energetic"]
    assert abs(found - 2.0) < 1e-6 and found <= 2.0 + 1e-9
    held = Reservations.build(node_holds=[(1.0, 3)])
    optimum, _ = brute_force_hpc_io(instance, "max-flow-stretch", reservations=held)
    assert optimum == 3.0
    found = energetic_stretch_bound(instance, 1.0, 4.0, reservations=held)["energetic"]
    assert abs(found - 3.0) < 1e-6 and found <= 3.0 + 1e-9


@pytest.mark.parametrize("seed", range(8))
def test_energetic_stretch_bound_below_the_optimum(seed: int) -> None:
    """On seeded windows with running jobs: every refuted ``x`` is below
    the brute-force optimum."""
    from opt_sched.bounds_window import energetic_stretch_bound

    instance = seeded_instance(seed, 6)
    window = extract_window(instance, replay(instance, "easy"), 2, 3,
                            mode="consecutive")
    optimum, _ = brute_force_hpc_io(window.instance, "max-flow-stretch",
                                    reservations=window.reservations)
    found = energetic_stretch_bound(window.instance, 0.5, optimum + 5.0,
                                    reservations=window.reservations)
    assert found and meets_bound(found["energetic"], optimum), (found, optimum)


def test_the_energetic_test_in_chunks_and_out_of_time(monkeypatch) -> None:
    """The energetic test gives the same bound when its intervals are taken
    one at a time (``ENERGETIC_CHUNK``, which keeps a window of a thousand
    queued jobs in memory), and no bisection, not a wrong bound, when its
    time is up before the first test ends (seeded windows of the test
    above)."""
    import opt_sched.bounds_window as bounds_window

    for seed in range(4):
        window = extract_window(*_seeded_online(seed), 2, 3, mode="consecutive")
        upper = objective_value(window.instance, window.schedule, "max-flow-stretch")
        kwargs = {"reservations": window.reservations}
        whole = bounds_window.energetic_stretch_bound(window.instance, 0.5, upper,
                                                      **kwargs)
        assert whole, seed
        with monkeypatch.context() as patch:
            patch.setattr(bounds_window, "ENERGETIC_CHUNK", 1)
            assert bounds_window.energetic_stretch_bound(
                window.instance, 0.5, upper, **kwargs) == whole
        # no time: no bisection step; 0.5 itself falls to the check that
        # needs no interval (no job meets a deadline below its length)
        assert bounds_window.energetic_stretch_bound(
            window.instance, 0.5, upper, time_limit=0.0, **kwargs) \
            in ({}, {"energetic": 0.5})


def _seeded_online(seed: int) -> tuple[Instance, Schedule]:
    instance = seeded_instance(seed, 6)
    return instance, replay(instance, "easy")


def test_the_knapsack_bound_out_of_time_falls_back_to_alone() -> None:
    """``beside_knapsack_and_job`` with no time: no job scanned, the bound
    is the jobs' completions alone (still valid), and no job to branch on;
    with time it is at least that."""
    from opt_sched.bounds_flow import mean_flow_time_bounds
    from opt_sched.bounds_window import beside_knapsack_and_job

    window = kth_head_window()
    alone = mean_flow_time_bounds(window.instance,
                                  reservations=window.reservations)["alone"]
    (timed_out, job) = beside_knapsack_and_job(
        window.instance, reservations=window.reservations, time_limit=0.0)
    assert job is None
    assert timed_out["beside-knapsack"] == pytest.approx(alone, rel=1e-12)
    (full, _) = beside_knapsack_and_job(window.instance,
                                        reservations=window.reservations)
    assert full["beside-knapsack"] >= timed_out["beside-knapsack"] - 1e-9


def test_the_bound_side_keeps_its_time(monkeypatch) -> None:
    """The mean flow time's bounds draw on one clock: each part that uses
    its whole share still leaves the side within ``time_limit`` plus
    CP-SAT's 0.1 s floor (the shares add up to more than the side's time,
    so a part that ignored the others' use would overrun it)."""
    import time

    import opt_sched.bounds_window as bounds_window
    import opt_sched.bounds_window_lanes as lanes
    import opt_sched.bounds_window_lp as lp
    import opt_sched.bounds_window_tindex as tindex
    import opt_sched.exact as exact
    from opt_sched.experiments.window import window_bounds

    granted: dict[str, float] = {}

    def uses_its_time(name: str, answer):
        def part(*args, time_limit: float, **kwargs):
            granted[name] = time_limit
            time.sleep(time_limit)
            return answer
        return part

    monkeypatch.setattr(bounds_window, "split_mean_flow_bound",
                        uses_its_time("split", {}))
    monkeypatch.setattr(bounds_window, "beside_knapsack_and_job",
                        uses_its_time("knapsack", ({}, None)))
    for module, name in ((tindex, "time_indexed_mean_flow_bound"),
                         (tindex, "time_indexed_mip_bound"),
                         (lanes, "lanes_mean_flow_bound"),
                         (lp, "interval_lp_mean_flow_bound")):
        monkeypatch.setattr(module, name, uses_its_time(name, {}))
    solve = exact.solve

    def cpsat(*args, time_limit: float, **kwargs):
        granted["cpsat"] = time_limit
        return solve(*args, time_limit=time_limit, **kwargs)

    monkeypatch.setattr(exact, "solve", cpsat)
    side = 2.0
    found = window_bounds(kth_head_window(), "mean-flow-time", time_limit=side)
    assert len(granted) == 7, granted
    assert sum(granted.values()) <= side + 0.1 + 0.05, granted
    assert found["bound"] is not None
