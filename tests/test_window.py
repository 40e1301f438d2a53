"""The window gap: extraction (running jobs as reservations), its bounds
against the brute-force optimum, the CP-SAT relaxation, and the CLI."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, JobSchedule, Platform, Schedule
from opt_sched.errors import InfeasibleScheduleError, OptionError
from opt_sched.exact.brute_force_hpc_io import brute_force_hpc_io
from opt_sched.exact.hpc_io.reserved import reserved_bound
from opt_sched.experiments.window import WINDOW_OBJECTIVES, window_gap
from opt_sched.experiments.window_instance import extract_window
from opt_sched.objectives import meets_bound, objective_value
from opt_sched.scheduling import replay
from opt_sched.validation import assert_feasible, validate

from .online_helpers import online_workloads
from .test_cli import run_cli
from .window_helpers import seeded_instance

DATA = Path(__file__).parent / "data" / "traces"


def _hand() -> tuple[Instance, Schedule]:
    """P = 4, b = 1. ``x`` (2 nodes) runs from 0: compute [0, 4), I/O 2 on
    [4, 6), compute [6, 9). ``y`` (1 node) runs [1, 3). The window: ``a``
    (released 2, 1 node; compute 1, I/O 1) starts late, at 3, and waits for
    ``x``'s I/O; ``b`` (released 3, 2 nodes; compute 2) starts at 9."""
    instance = Instance("hand", Platform.homogeneous(1, 4, 1.0), (
        Job("x", 2, (4.0, 3.0), (2.0, 0.0), release=0.0, walltime=20),
        Job("y", 1, (2.0,), (0.0,), release=1.0, walltime=20),
        Job("a", 1, (1.0,), (1.0,), release=2.0, walltime=20),
        Job("b", 2, (2.0,), (0.0,), release=3.0, walltime=20)))
    schedule = Schedule((
        JobSchedule("x", 0, (0.0, 6.0), (4.0, 9.0), machines=(0, 1)),
        JobSchedule("y", 0, (1.0,), (3.0,), machines=(2,)),
        # a: compute [3, 4), waits for x's I/O, I/O [6, 7)
        JobSchedule("a", 0, (3.0,), (6.0,), machines=(3,)),
        JobSchedule("b", 0, (9.0,), (11.0,), machines=(0, 1))),
        execution="exclusive")
    return instance, schedule


def test_extraction_by_hand() -> None:
    instance, schedule = _hand()
    assert_feasible(instance, schedule)
    window = extract_window(instance, schedule, 2, 2)
    # t0 = r_a = 2: x runs (S 0 < 2 < C 9), y runs (S 1 < 2 < C 3)
    assert window.t0 == 2.0
    assert [job.id for job, _ in window.running] == ["x", "y"]
    # shrunk by the shift's float resolution (8 ulps at t = 9)
    eps = window.resolution
    assert 0 < eps < 1e-13
    assert window.reservations.node_holds == ((1.0 - eps, 1), (7.0 - eps, 2))
    assert window.reservations.io_busy == ((2.0 + eps, 4.0 - eps),)  # [4, 6) - 2
    assert [job.release for job in window.instance.jobs] == [0.0, 1.0]
    assert window.info["queued_left_out"] == 0  # x and y started before t0
    # online, from t0: a ends 7 - 2 = 5 (flow 5, T 2), b ends 11 - 2 = 9
    # (flow 9 - 1 = 8, T 2): makespan 9, max flow stretch 4, mean flow 6.5
    values = {o: objective_value(window.instance, window.schedule, o)
              for o in WINDOW_OBJECTIVES}
    assert values == {"makespan": 9.0, "max-flow-stretch": 4.0,
                      "mean-flow-time": 6.5}
    both, with_running = window.with_running()
    assert_feasible(both, with_running)
    # the running jobs' occupancy is checked: b moved to start while x holds
    # its machines is rejected
    moved = dataclasses.replace(with_running, jobs=tuple(
        JobSchedule("b", 0, (5.0,), (7.0,), machines=(0, 1)) if js.id == "b" else js
        for js in with_running.jobs))
    assert 4 in validate(both, moved).by_rule()
    # and a's I/O moved into x's I/O: rule 5
    moved = dataclasses.replace(with_running, jobs=tuple(
        JobSchedule("a", 0, (0.0,), (2.5,), machines=(3,)) if js.id == "a" else js
        for js in with_running.jobs))
    assert 5 in validate(both, moved).by_rule()


def test_hand_window_bounds_and_gap() -> None:
    instance, schedule = _hand()
    report = window_gap(instance, schedule, 2, 2, time_limit=5)
    window = extract_window(instance, schedule, 2, 2)
    # By hand (times from t0 = 2; free nodes 1 on [0, 1), 2 on [1, 7), 4
    # after; I/O busy [2, 4)). a from 0: compute [0, 1), I/O [1, 2), C = 2;
    # b (released 1) then waits for a's node: [2, 4), flow 3, stretch 1.5.
    # b first at 1 keeps a out of [1, 3): a at 3 waits for the I/O until 4,
    # C = 5, stretch 2.5. Optimum: makespan 4, max flow stretch 1.5, mean
    # flow (2 + 3) / 2 = 2.5; online 9, 4 and 6.5.
    for objective, optimum in (("makespan", 4.0), ("max-flow-stretch", 1.5),
                               ("mean-flow-time", 2.5)):
        assert brute_force_hpc_io(window.instance, objective,
                                  reservations=window.reservations)[0] == optimum
        item = report["objectives"][objective]
        assert meets_bound(item["bound"], optimum)
        assert item["online"] >= item["bound"]
    assert report["objectives"]["makespan"]["gap"] >= 9.0 / 4.0 - 1.0 - 1e-9
    assert report["window"]["running_jobs"] == 2


def test_window_errors() -> None:
    instance, schedule = _hand()
    with pytest.raises(OptionError, match="ends past the 4 jobs"):
        extract_window(instance, schedule, 3, 2)
    with pytest.raises(OptionError, match="count=0 must be an integer >= 1"):
        extract_window(instance, schedule, 0, 0)
    shared = dataclasses.replace(schedule, execution="shared")
    with pytest.raises(OptionError, match="'exclusive' I/O"):
        extract_window(instance, shared, 2, 2)
    killed = dataclasses.replace(schedule, jobs=tuple(
        dataclasses.replace(js, killed_at=8.0) if js.id == "x" else js
        for js in schedule.jobs))
    with pytest.raises(OptionError, match="'x' running at the window start was killed"):
        extract_window(instance, killed, 2, 2)


def test_a_broken_online_schedule_is_caught() -> None:
    instance, schedule = _hand()
    # b started at 7 while x still holds 3 of the 4 machines until 9
    bad = dataclasses.replace(schedule, jobs=tuple(
        JobSchedule("b", 0, (7.0,), (9.0,), machines=(0, 1)) if js.id == "b" else js
        for js in schedule.jobs))
    with pytest.raises(InfeasibleScheduleError):
        window_gap(instance, bad, 2, 2, time_limit=1)


# -- property: replay, window, bound <= brute-force optimum <= online ----------------
@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])
@given(online_workloads(max_jobs=7), st.data())
def test_window_bounds_are_below_the_window_optimum(instance: Instance, data) -> None:
    if instance.has_dependencies:
        instance = instance.replace(jobs=tuple(
            dataclasses.replace(job, after=()) for job in instance.jobs))
    schedule = replay(instance, "easy")
    start = data.draw(st.integers(0, instance.num_jobs - 1))
    count = data.draw(st.integers(1, min(3, instance.num_jobs - start)))
    window = extract_window(instance, schedule, start, count)
    assert_feasible(*window.with_running())
    phases = window.instance.num_io_phases
    for objective in WINDOW_OBJECTIVES:
        online = objective_value(window.instance, window.schedule, objective)
        from opt_sched.bounds import makespan_bounds
        from opt_sched.bounds_flow import flow_bounds

        bounds = flow_bounds(window.instance, objective,
                             reservations=window.reservations)
        if objective == "makespan":
            bounds.update(makespan_bounds(window.instance))
        for name, bound in bounds.items():
            assert meets_bound(bound, online), (objective, name, bound, online)
        if phases <= 6:
            optimum, _ = brute_force_hpc_io(window.instance, objective,
                                               reservations=window.reservations)
            assert meets_bound(optimum, online)
            for name, bound in bounds.items():
                assert meets_bound(bound, optimum), (objective, name, bound, optimum)


@pytest.mark.parametrize("seed", range(4))
def test_cpsat_relaxation_bound_below_the_optimum(seed: int) -> None:
    instance = seeded_instance(seed, by_release=False)
    schedule = replay(instance, "easy")
    window = extract_window(instance, schedule, 3, 3)
    for objective in WINDOW_OBJECTIVES:
        optimum, _ = brute_force_hpc_io(window.instance, objective, max_phases=8,
                                        reservations=window.reservations)
        found = reserved_bound(window.instance, window.reservations, objective,
                               window.schedule, time_limit=5)
        assert meets_bound(found.bound, optimum), (objective, found, optimum)
        if found.closed:
            # the relaxation's optimum is the optimum up to its rounding loss
            assert found.bound >= optimum - 1e-3 * max(1.0, optimum)


# -- the command line ----------------------------------------------------------------
def test_cli_window_gap_on_the_kth_head() -> None:
    done = run_cli("replay", str(DATA / "kth-sp2-head.swf"), "--scheduler", "easy",
                   "--io-profile", "darshan-cori", "--alpha", "0.5",
                   "--window", "5:30", "--window-time-limit", "2", "--json")
    assert done.returncode == 0, done.stderr
    window = json.loads(done.stdout)["window"]
    assert (window["start"], window["count"]) == (5, 30)
    assert window["validated"] is True
    assert set(window["objectives"]) == set(WINDOW_OBJECTIVES)
    for item in window["objectives"].values():
        assert item["bound"] > 0 and meets_bound(item["bound"], item["online"])
        assert item["gap"] >= 0
        assert item["bound"] == max(item["bounds"].values())
    text = run_cli("replay", str(DATA / "kth-sp2-head.swf"), "--window", "0:20",
                   "--window-time-limit", "0.3", "--quiet")
    assert text.returncode == 0, text.stderr
    assert "window 0:20" in text.stdout and "mean-flow-time" in text.stdout


@pytest.mark.parametrize("args,message", [
    (["--window", "5"], "is not START:COUNT"),
    (["--window", "5:0"], "COUNT >= 1"),
    (["--window", "30:20"], "ends past the 40 jobs"),
    (["--window", "0:20", "--execution", "shared"], "'exclusive' I/O"),
])
def test_cli_window_errors(args: list[str], message: str) -> None:
    done = run_cli("replay", str(DATA / "kth-sp2-head.swf"), *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 or "usage" in done.stderr
