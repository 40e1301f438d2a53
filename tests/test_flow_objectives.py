"""The flow objectives (max flow stretch, mean flow time) of HPC-IO with
releases: values, bounds, the brute-force referee and the CP-SAT model."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, JobSchedule, Partition, Platform, Schedule, solve
from opt_sched.bounds import lower_bound
from opt_sched.bounds_flow import flow_bounds, flow_lower_bound
from opt_sched.errors import OptionError
from opt_sched.exact.brute_force_hpc_io import brute_force_hpc_io
from opt_sched.objectives import FLOW_OBJECTIVES, meets_bound, objective_value
from opt_sched.rate_profile import RateProfile, edf_feasible_on, srpt_completions
from opt_sched.reservations import Reservations
from opt_sched.validation import assert_feasible


def _two_jobs() -> tuple[Instance, Schedule]:
    # a: released 0, compute [0, 2), I/O 3 / b=1 on [2, 5): C = 5, T = 5.
    # b: released 1, compute [1, 2), waits, I/O 1 on [5, 6): C = 6, T = 2.
    instance = Instance("two", Platform.homogeneous(1, 4), (
        Job("a", 1, (2.0,), (3.0,)),
        Job("b", 1, (1.0,), (1.0,), release=1.0)))
    schedule = Schedule((JobSchedule("a", 0, (0.0,), (2.0,)),
                         JobSchedule("b", 0, (1.0,), (5.0,))))
    return instance, schedule


def test_flow_values_of_a_hand_schedule() -> None:
    instance, schedule = _two_jobs()
    assert_feasible(instance, schedule)
    # flows 5 - 0 = 5 and 6 - 1 = 5: mean 5; stretches 5/5 = 1 and 5/2 = 2.5
    assert objective_value(instance, schedule, "mean-flow-time") == 5.0
    assert objective_value(instance, schedule, "max-flow-stretch") == 2.5


def test_hand_instance_optimum_and_bounds() -> None:
    # The optimum of _two_jobs by hand: b's I/O first needs b ready at 2 and
    # a's I/O then runs [3, 6): flows 6 and 2 (sum 8, stretch 6/5); a's I/O
    # first gives flows 5 and 5 (sum 10, stretch 2.5). Mean flow 4, max flow
    # stretch 1.2.
    instance, _ = _two_jobs()
    assert brute_force_hpc_io(instance, "mean-flow-time")[0] == 4.0
    assert brute_force_hpc_io(instance, "max-flow-stretch")[0] == pytest.approx(1.2)
    for objective, optimum in (("mean-flow-time", 4.0), ("max-flow-stretch", 1.2)):
        result = solve(instance, "hpc-io", objective, time_limit=10)
        assert str(result.status) == "optimal"
        assert result.objective == pytest.approx(optimum)
        assert_feasible(instance, result.schedule)
        assert lower_bound(instance, objective) <= optimum + 1e-9


@pytest.mark.parametrize("solver,problem", [("highs", "io-sched"), ("cbc", "io-sched"),
                                            ("cpsat", "io-sched"),
                                            ("cpsat", "packs"), ("highs", "packs")])
@pytest.mark.parametrize("objective", FLOW_OBJECTIVES)
def test_other_models_refuse_the_flow_objectives(solver: str, problem: str,
                                                 objective: str) -> None:
    instance, _ = _two_jobs()
    with pytest.raises(OptionError, match=f"objective={objective!r} is not supported "
                                          f"by {problem}/{solver}"):
        solve(instance, problem, objective, solver=solver, time_limit=1)


def _random_instance(rng: random.Random, n: int, partitions: int) -> Instance:
    """Integer data, 1-2 iterations, at most 5 I/O phases in all."""
    platform = Platform(tuple(Partition(rng.choice([2, 3, 4]), rng.choice([1.0, 2.0]))
                              for _ in range(partitions)))
    jobs, phases = [], 0
    for i in range(n):
        iterations = rng.choice([1, 2])
        compute = tuple(float(rng.randint(0, 4)) for _ in range(iterations))
        volume = []
        for _ in range(iterations):
            v = float(rng.randint(0, 4)) if phases < 5 else 0.0
            phases += v > 0
            volume.append(v)
        jobs.append(Job(f"j{i}", rng.randint(1, platform.max_nodes), compute,
                        tuple(volume), release=float(rng.randint(0, 6))))
    if all(job.length(1.0) == 0 for job in jobs):
        jobs[0] = Job("j0", 1, (1.0,), (0.0,))
    return Instance("tiny", platform, tuple(jobs))


CASES = [(seed, n, partitions) for seed, (n, partitions) in enumerate(
    [(2, 1), (3, 1), (4, 1), (3, 2), (4, 2), (2, 2)])]


@pytest.mark.parametrize("objective", FLOW_OBJECTIVES)
@pytest.mark.parametrize("seed,n,partitions", CASES)
def test_cpsat_matches_brute_force(seed: int, n: int, partitions: int,
                                   objective: str) -> None:
    instance = _random_instance(random.Random(seed), n, partitions)
    optimum, referee = brute_force_hpc_io(instance, objective)
    assert_feasible(instance, referee)
    assert objective_value(instance, referee, objective) == pytest.approx(optimum)
    bound = flow_lower_bound(instance, objective)
    assert bound <= optimum + 1e-9 * max(1.0, optimum)
    result = solve(instance, "hpc-io", objective, time_limit=20)
    assert str(result.status) == "optimal", result.info
    assert result.objective == pytest.approx(optimum, rel=1e-6)
    assert result.lower_bound <= optimum + 1e-6 * optimum


# -- property: bound <= brute-force optimum <= any schedule ------------------------
@st.composite
def tiny_instances(draw, max_partitions: int = 2) -> Instance:
    partitions = draw(st.integers(1, max_partitions))
    platform = Platform(tuple(Partition(draw(st.integers(1, 4)),
                                        draw(st.sampled_from([0.5, 1.0, 2.0])))
                              for _ in range(partitions)))
    n = draw(st.integers(1, 4 if partitions == 1 else 3))
    quarter = st.integers(0, 16).map(lambda q: q / 4)
    jobs, phases = [], 0
    for i in range(n):
        iterations = draw(st.integers(1, 2))
        compute = tuple(draw(quarter) for _ in range(iterations))
        volume = []
        for _ in range(iterations):
            v = draw(quarter) if phases < 4 else 0.0
            phases += v > 0
            volume.append(v)
        jobs.append(Job(f"j{i}", draw(st.integers(0, platform.max_nodes)), compute,
                        tuple(volume), release=draw(quarter)))
    return Instance("tiny", platform, tuple(jobs))


@st.composite
def reservations_for(draw, instance: Instance) -> Reservations:
    nodes = instance.platform.partitions[0].nodes
    quarter = st.integers(0, 24).map(lambda q: q / 4)
    holds, left = [], nodes
    for _ in range(draw(st.integers(0, 2))):
        q = draw(st.integers(0, left))
        left -= q
        holds.append((draw(quarter), q))
    busy = [(s, s + draw(st.integers(1, 8)) / 4)
            for s in (draw(quarter) for _ in range(draw(st.integers(0, 3))))]
    return Reservations.build(holds, busy)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_bounds_below_brute_force(data) -> None:
    instance = data.draw(tiny_instances())
    reservations = None
    if instance.platform.num_partitions == 1 and data.draw(st.booleans()):
        reservations = data.draw(reservations_for(instance))
    objectives = FLOW_OBJECTIVES + (("makespan",) if reservations else ())
    for objective in objectives:
        optimum, schedule = brute_force_hpc_io(instance, objective,
                                               reservations=reservations)
        assert_feasible(instance, schedule)
        assert objective_value(instance, schedule, objective) == \
            pytest.approx(optimum, rel=1e-9, abs=1e-12)
        bounds = flow_bounds(instance, objective, reservations=reservations)
        for name, bound in bounds.items():
            assert meets_bound(bound, optimum), (objective, name, bound, optimum)


# -- building blocks ------------------------------------------------------------------
def test_srpt_on_a_profile_by_hand() -> None:
    # rate 1 on [0, 2), 0 on [2, 3), 2 after. B (work 1) ends at 1, C (work 1,
    # released 1) at 2, A (work 3) has 2 units done by 2 (W(2) = 2 after B and
    # C: A got none), then W = 2 + 2 (t - 3) reaches 5 at t = 4.5.
    profile = RateProfile([0.0, 2.0, 3.0], [1.0, 0.0, 2.0])
    done = srpt_completions(profile, np.array([0.0, 0.0, 1.0]),
                            np.array([3.0, 1.0, 1.0]))
    assert done.tolist() == [4.5, 1.0, 2.0]
    # zero work released inside the flat stretch completes at its release
    assert srpt_completions(RateProfile([0.0, 1.0], [0.0, 1.0]), np.array([0.5]),
                            np.array([0.0])).tolist() == [0.5]


def test_mean_busy_times_on_a_profile_by_hand() -> None:
    # rate 1, then 0 on [2, 3), then 2. Smallest work first: B (1 unit) on
    # [0, 1) (M 0.5), C (1 unit, released at 1) on [1, 2) (M 1.5), then A
    # (3 units) from W = 2: t = 3 + (W - 2) / 2 on [3, 4.5), M = 3.75; a task
    # of zero work is busy at its release
    from opt_sched.rate_profile import mean_busy_times

    profile = RateProfile([0.0, 2.0, 3.0], [1.0, 0.0, 2.0])
    busy = mean_busy_times(profile, np.array([0.0, 0.0, 1.0, 0.7]),
                           np.array([3.0, 1.0, 1.0, 0.0]))
    assert busy.tolist() == [3.75, 0.5, 1.5, 0.7]
    # arrivals preempt: A (4 units at 0) is cut by B (1 unit at 1): A's work
    # on [0, 1) and [2, 5), M_A = (0.5 * 1 + 3.5 * 3) / 4
    busy = mean_busy_times(RateProfile.constant(1.0), np.array([0.0, 1.0]),
                           np.array([4.0, 1.0]))
    assert busy.tolist() == [2.75, 1.5]


def test_edf_on_a_profile_by_hand() -> None:
    # 2 units due at 3 with the machine off on [1, 2): rate 1 elsewhere gives
    # exactly 2 units by 3 (feasible); due at 2.5 it is not.
    profile = RateProfile([0.0, 1.0, 2.0], [1.0, 0.0, 1.0])
    assert edf_feasible_on(profile, np.array([0.0]), np.array([2.0]),
                           np.array([3.0]))[0]
    assert not edf_feasible_on(profile, np.array([0.0]), np.array([2.0]),
                               np.array([2.5]))[0]


def test_reservations_merge_and_first_fit() -> None:
    res = Reservations.build([(3.0, 2), (1.0, 1), (0.0, 5)], [(4.0, 5.0), (1.0, 2.0),
                                                              (1.5, 3.0)])
    assert res.node_holds == ((1.0, 1), (3.0, 2))  # the empty hold is dropped
    assert res.io_busy == ((1.0, 3.0), (4.0, 5.0))
    assert res.io_first_fit(0.0, 1.0) == 0.0
    assert res.io_first_fit(0.5, 1.0) == 3.0   # [0.5, 1.5) hits [1, 3)
    assert res.io_first_fit(3.0, 1.5) == 5.0   # [3, 4.5) hits [4, 5)
    assert res.free_from(4, 2) == 1.0          # 1 free at 0, 2 once 1 ends
    with pytest.raises(OptionError, match="hold 3 nodes"):
        res.node_profile(2)
    # bandwidth 2 off on [1, 3) and [4, 5): 2 units by 1, 4 by 4, 6 by 6
    profile = res.io_profile(2.0)
    assert profile.work(np.array([1.0, 4.0, 6.0])).tolist() == [2.0, 4.0, 6.0]
    assert profile.time_of(np.array([2.0, 3.0, 4.0])).tolist() == [1.0, 3.5, 4.0]


def test_wide_jobs_never_run_together() -> None:
    # two jobs of 3 nodes out of 4, released 0, no I/O, T = 2: one waits for
    # the other. Optimum: completions 2 and 4, mean flow 3, max flow stretch
    # 4 / 2 = 2. Alone (2 and 1) and area (SRPT of 6 + 6 node-seconds at rate
    # 4: 1.5 and 3, mean 2.25) miss it; the wide-job machine finds both. The
    # area's mean busy times (0.75 and 2.25, smallest area first) plus half
    # of each length (1 + 1): sum C >= 5, mean 2.5, between the two.
    instance = Instance("wide", Platform.homogeneous(1, 4), (
        Job("a", 3, (2.0,), (0.0,)), Job("b", 3, (2.0,), (0.0,))))
    assert brute_force_hpc_io(instance, "mean-flow-time")[0] == 3.0
    assert brute_force_hpc_io(instance, "max-flow-stretch")[0] == 2.0
    mean = flow_bounds(instance, "mean-flow-time")
    assert mean["alone"] == 2.0 and mean["area-srpt"] == 2.25
    assert mean["area-busy"] == 2.5
    assert mean["wide-srpt"] == 3.0
    stretch = flow_bounds(instance, "max-flow-stretch")
    assert stretch["alone"] == 1.0
    assert stretch["deadline-bisection"] == pytest.approx(2.0, rel=1e-5)
    assert stretch["deadline-bisection"] <= 2.0


def test_cli_solves_the_flow_objectives(tmp_path) -> None:
    import json

    from opt_sched.json_files import write_instance

    from .test_cli import run_cli

    instance, _ = _two_jobs()
    path = tmp_path / "two.json"
    write_instance(instance, path)
    done = run_cli("solve", str(path), "--problem", "hpc-io", "--objective",
                   "mean-flow-time", "--time-limit", "10", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["status"] == "optimal" and report["objective"] == 4.0
    refused = run_cli("solve", str(path), "--problem", "io-sched", "--objective",
                      "max-flow-stretch", "--solver", "highs")
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        "opt-sched: error: objective='max-flow-stretch' is not supported by "
        "io-sched/highs (supported: makespan, max-stretch)"]
