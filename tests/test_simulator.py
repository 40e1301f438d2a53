"""The event-driven simulator: hand-checked runs, plans, errors, properties.

Every schedule produced here goes through ``check``: the independent
validator (``opt_sched.validation.assert_feasible``) when it exists, plus the
simulator's own execution-model properties (no gap after an I/O phase, a
zero-volume phase never waits, a wait for the I/O node only while it is
busy).
"""

from __future__ import annotations

import importlib.util
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opt_sched import Instance, Job, Partition, Platform, read_instance
from opt_sched.errors import OptionError, PlanError
from opt_sched.schedule import Schedule
from opt_sched.simulation import (
    POLICY_NAMES,
    OnePackPlan,
    PackPlan,
    StartsPlan,
    simulate,
)
from tests.conftest import INSTANCES
from tests.strategies import instances

HAVE_VALIDATOR = importlib.util.find_spec("opt_sched.validation") is not None


def model_properties(instance: Instance, schedule: Schedule) -> None:
    """The simulator's execution model (SPEC §3, ARCHITECTURE "Simulator").

    - compute ``j+1`` starts exactly when I/O ``j`` ends (no idle gap);
    - I/O ``j`` starts at or after the end of compute ``j``, exactly at it
      when its volume is 0;
    - a phase waits for its I/O node only while the node is busy with other
      phases (list scheduling never idles a node with a phase waiting).
    """
    tol = 1e-9 * max(1.0, schedule.makespan(instance))
    busy: dict[int, list[tuple[float, float]]] = {}
    waits = []
    for job in instance.jobs:
        js = schedule[job.id]
        band = instance.platform.partitions[js.partition].bandwidth
        for j in range(job.iterations):
            request = js.compute_starts[j] + job.compute[j]
            io = js.io_starts[j]
            d = job.io_volume[j] / band
            assert io >= request - tol, (job.id, j)
            if d == 0:
                assert io == pytest.approx(request, abs=tol), (job.id, j)
            else:
                busy.setdefault(js.partition, []).append((io, io + d))
                if io > request + tol:
                    waits.append((js.partition, request, io, job.id, j))
            if j + 1 < job.iterations:
                assert js.compute_starts[j + 1] == pytest.approx(io + d, abs=tol)
    for k, request, io, job_id, j in waits:
        now = request
        for start, end in sorted(busy[k]):
            if start <= now + tol < end:
                now = end
        assert now >= io - tol, f"{job_id} phase {j} waits on an idle I/O node at {now}"


def check(instance: Instance, schedule: Schedule) -> Schedule:
    """Validator (once it exists) and model properties; returns ``schedule``."""
    schedule.check_shape(instance)
    if HAVE_VALIDATOR:
        from opt_sched.validation import assert_feasible

        assert_feasible(instance, schedule)
    model_properties(instance, schedule)
    return schedule


def test_validator_is_available():
    """A reminder in the test report while the validator is missing."""


def one_partition(*jobs: Job, nodes: int = 16, bandwidth: float = 1.0) -> Instance:
    return Instance("hand", Platform((Partition(nodes, bandwidth),)), tuple(jobs))


# -- the hand-checked example ------------------------------------------------
def test_tiny2_fifo_by_hand(tiny2):
    """tiny2: a (w=2, v=3, 2 iterations) and b (w=1, v=2, 2 iterations), b=1.

    t=0  both start computing: a [0,2), b [0,1).
    t=1  b requests; the node is free: b I/O [1,3).
    t=2  a requests; the node is busy: a waits.
    t=3  b's I/O ends, b computes [3,4); a (the only one waiting) I/O [3,6).
    t=4  b requests; busy until 6: b waits.
    t=6  a's I/O ends, a computes [6,8); b I/O [6,8).
    t=8  b completes; a requests at the same instant: a I/O [8,11).
    """
    schedule = check(tiny2, simulate(tiny2))
    assert schedule["a"].compute_starts == (0.0, 6.0)
    assert schedule["a"].io_starts == (3.0, 8.0)
    assert schedule["b"].compute_starts == (0.0, 3.0)
    assert schedule["b"].io_starts == (1.0, 6.0)
    assert schedule.makespan(tiny2) == 11.0
    assert schedule.method == "one-pack/fifo"
    assert schedule.packs == ((("a", "b"),),)


def test_request_at_the_instant_the_node_frees_competes():
    """b's I/O [1,4) ends at 4. a requested at 3 and waits; c requests at 4,
    the very instant the node frees. Decisions come after all events of the
    instant, so c competes: lowest-id and shortest-io pick c (index 1 < 2,
    d=1 < 2), FIFO picks a (3 < 4)."""
    inst = one_partition(Job.periodic("b", 1, 1, 3), Job.periodic("c", 1, 4, 1),
                         Job.periodic("a", 1, 3, 2))
    for policy in ("lowest-id", "shortest-io"):
        schedule = check(inst, simulate(inst, policy=policy))
        assert schedule["c"].io_starts == (4.0,)
        assert schedule["a"].io_starts == (5.0,)
    schedule = check(inst, simulate(inst, policy="fifo"))
    assert schedule["a"].io_starts == (4.0,)
    assert schedule["c"].io_starts == (6.0,)


def test_zero_volume_phase_never_waits():
    """x holds the I/O node during [0, 10); y's first I/O has volume 0 and
    runs at its request (t=1) although the node is busy."""
    x = Job.periodic("x", 1, 0, 10)
    y = Job("y", 1, (1.0, 2.0), (0.0, 1.0))
    inst = one_partition(x, y)
    schedule = check(inst, simulate(inst))
    assert schedule["y"].io_starts == (1.0, 10.0)
    assert schedule["y"].compute_starts == (0.0, 1.0)


def test_one_pack_starts_at_largest_release():
    inst = one_partition(Job.periodic("a", 1, 1, 1, release=2.0),
                         Job.periodic("b", 1, 1, 1, release=5.0))
    schedule = check(inst, simulate(inst))
    assert schedule.start("a") == schedule.start("b") == 5.0


def test_partitions_have_independent_io_nodes():
    """Same phases on two partitions of bandwidths 1 and 2: no interference,
    and the I/O duration is v / b_k."""
    platform = Platform((Partition(4, 1.0), Partition(4, 2.0)))
    jobs = (Job.periodic("a", 2, 1, 4, 2, partition=0),
            Job.periodic("b", 2, 1, 4, 2, partition=1))
    inst = Instance("two", platform, jobs)
    schedule = check(inst, simulate(inst))
    assert schedule["a"].io_starts == (1.0, 6.0)
    assert schedule["b"].io_starts == (1.0, 4.0)
    assert schedule.packs == ((("a",),), (("b",),))


def test_empty_partition_has_no_packs():
    platform = Platform((Partition(4), Partition(4)))
    inst = Instance("e", platform, (Job.periodic("a", 2, 1, 1, partition=1),))
    schedule = check(inst, simulate(inst))
    assert schedule.packs == ((), (("a",),))


# -- packs --------------------------------------------------------------------
def test_pack_two_starts_at_pack_one_completion(tiny2):
    """tiny2 alone: a runs [0, 10) (2 x (2 + 3)); b then runs from 10."""
    plan = PackPlan([[("a",), ("b",)]])
    schedule = check(tiny2, simulate(tiny2, plan))
    assert schedule.completion(tiny2, "a") == 10.0
    assert schedule["b"].compute_starts == (10.0, 13.0)
    assert schedule["b"].io_starts == (11.0, 14.0)
    assert schedule.packs == ((("a",), ("b",)),)
    assert schedule.method == "packs/fifo"


def test_pack_waits_for_its_slowest_job_and_its_releases():
    """Pack 1 = {a, b} completes at max(C_a, C_b); pack 2 = {c, d} starts
    there together, or at d's release if later."""
    a = Job.periodic("a", 1, 5, 1)        # [0,5) compute, I/O [5,6)
    b = Job.periodic("b", 1, 2, 2, 2)     # I/O [2,4), compute [4,6), I/O [6,8)
    c = Job.periodic("c", 1, 1, 1)
    d = Job.periodic("d", 1, 1, 1, release=3.0)
    inst = one_partition(a, b, c, d)
    schedule = check(inst, simulate(inst, PackPlan([[("a", "b"), ("c", "d")]])))
    c_pack1 = max(schedule.completion(inst, "a"), schedule.completion(inst, "b"))
    assert c_pack1 == 8.0
    assert schedule.start("c") == schedule.start("d") == 8.0
    late = inst.with_jobs([a, b, c, Job.periodic("d", 1, 1, 1, release=20.0)])
    schedule = check(late, simulate(late, PackPlan([[("a", "b"), ("c", "d")]])))
    assert schedule.start("c") == schedule.start("d") == 20.0


def test_pack_waits_for_predecessor_on_other_partition():
    """p (partition 0) runs [0, 4); s on partition 1 depends on p and starts
    at 4 with its pack-mate t."""
    platform = Platform((Partition(4), Partition(4)))
    jobs = (Job.periodic("p", 2, 3, 1), Job.periodic("s", 2, 1, 1, after=("p",)),
            Job.periodic("t", 2, 1, 1))
    inst = Instance("cross", platform, jobs)
    schedule = check(inst, simulate(inst, PackPlan({0: [("p",)], 1: [("s", "t")]})))
    assert schedule.start("s") == schedule.start("t") == 4.0
    assert schedule.packs == ((("p",),), (("s", "t"),))


def test_pack_plan_deps5():
    inst = read_instance(INSTANCES / "deps5.json")
    plan = PackPlan([[("pre", "x"), ("sim",)], [("y",), ("ana",)]])
    schedule = check(inst, simulate(inst, plan, "stretch"))
    done = schedule.completions(inst)
    assert schedule.start("sim") == max(done["pre"], done["x"])
    assert schedule.start("ana") == max(done["y"], done["sim"], 4.0)


# -- starts plans -------------------------------------------------------------
def test_starts_plan_node_gating_and_no_overtaking():
    """4 nodes. a (3 nodes) runs [0, 3). b (2 nodes) planned at 0 must wait
    for a: starts at 3. c (1 node) planned at 1 would fit beside a but may
    not overtake b: it starts with b at 3 (3 of 4 nodes then used)."""
    a = Job.periodic("a", 3, 2, 1)
    b = Job.periodic("b", 2, 1, 0)
    c = Job.periodic("c", 1, 1, 0)
    inst = one_partition(a, b, c, nodes=4)
    schedule = check(inst, simulate(inst, StartsPlan({"a": 0, "b": 0, "c": 1})))
    assert schedule.start("a") == 0.0
    assert schedule.start("b") == 3.0
    assert schedule.start("c") == 3.0
    assert schedule.packs is None
    assert schedule.method == "starts/fifo"


def test_starts_plan_waits_for_planned_start_and_release():
    """a is planned at 1 but released at 4; for the queue order its planned
    start counts as 4, so b (planned at 2.5) is not held behind it."""
    a = Job.periodic("a", 1, 1, 1, release=4.0)
    b = Job.periodic("b", 1, 1, 1)
    inst = one_partition(a, b)
    schedule = check(inst, simulate(inst, StartsPlan({"a": 1.0, "b": 2.5})))
    assert schedule.start("a") == 4.0
    assert schedule.start("b") == 2.5


def test_starts_plan_dependencies_across_partitions():
    inst = read_instance(INSTANCES / "deps5.json")
    part = {"pre": 0, "sim": 1, "ana": 0, "x": 0, "y": 1}
    start = {job.id: 0.0 for job in inst.jobs}
    schedule = check(inst, simulate(inst, StartsPlan(start, part), "longest-io"))
    done = schedule.completions(inst)
    # Partition 1 queues sim then y (same planned start, instance order):
    # sim (8 nodes) waits for pre, and y may not overtake it. Partition 0:
    # pre at 0, x at its release 1, ana after sim and its release 4.
    assert schedule.start("sim") == done["pre"]
    assert schedule.start("y") == done["sim"]
    assert schedule.start("ana") == max(done["sim"], 4.0)
    assert schedule.start("x") == 1.0


def test_starts_plan_listing_job_before_its_predecessor_does_not_deadlock():
    """a (partition 0) needs b (partition 1) but is planned before it; c on
    partition 1 needs d on partition 0, planned between. In planned-start
    order a heads queue 0 and c heads queue 1: each waits for a job behind
    the other. Raising starts to predecessors' (a -> 5) avoids the deadlock."""
    platform = Platform((Partition(4), Partition(4)))
    jobs = (Job.periodic("a", 1, 1, 1, after=("b",)), Job.periodic("b", 1, 1, 1),
            Job.periodic("c", 1, 1, 1, after=("d",)), Job.periodic("d", 1, 1, 1))
    inst = Instance("dl", platform, jobs)
    plan = StartsPlan({"a": 0, "b": 5, "c": 1, "d": 2},
                      {"a": 0, "b": 1, "c": 1, "d": 0})
    schedule = check(inst, simulate(inst, plan))
    done = schedule.completions(inst)
    assert schedule.start("d") == 2.0
    assert schedule.start("c") == done["d"] == 4.0
    assert schedule.start("b") == 5.0
    assert schedule.start("a") == done["b"] == 7.0


def test_plans_accept_numpy_numbers(tiny2):
    import numpy as np
    plan = StartsPlan({"a": np.int64(0), "b": np.float64(0.5)},
                      {"a": np.int64(0), "b": np.int32(0)})
    schedule = check(tiny2, simulate(tiny2, plan))
    assert schedule.start("b") == 0.5
    assert isinstance(schedule["b"].partition, int)


def test_starts_plan_partition_defaults_to_the_mapping(tiny2):
    schedule = check(tiny2, simulate(tiny2, StartsPlan({"a": 0, "b": 0})))
    assert schedule == simulate(tiny2, StartsPlan({"a": 0, "b": 0}, {"a": 0, "b": 0}))
    # same starts as the one pack, but no packs claimed
    assert schedule.jobs == simulate(tiny2).jobs


# -- determinism and bundled instances ----------------------------------------
@pytest.mark.parametrize("policy", POLICY_NAMES)
def test_bundled_one_pack_every_policy_is_deterministic(tucan5, policy):
    first = check(tucan5, simulate(tucan5, policy=policy))
    second = simulate(tucan5, policy=policy)
    assert first == second
    assert first.method == f"one-pack/{policy}"
    assert first.makespan(tucan5) >= max(j.length(1.0) for j in tucan5.jobs)


@pytest.mark.parametrize("name", ["tiny5", "hetero6"])
def test_bundled_instances_as_single_packs(name):
    inst = read_instance(INSTANCES / f"{name}.json")
    part = {job.id: job.partition if job.partition is not None else 0
            for job in inst.jobs}
    packs = [[(job.id,) for job in inst.jobs if part[job.id] == k]
             for k in range(inst.platform.num_partitions)]
    for policy in POLICY_NAMES:
        check(inst, simulate(inst, PackPlan(packs), policy))


# -- errors ---------------------------------------------------------------------
def _err(inst, plan, policy="fifo"):
    with pytest.raises(PlanError) as info:
        simulate(inst, plan, policy)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_plan_errors(tiny2):
    unknown = PackPlan([[("a", "b", "zz")]])
    assert "job 'zz' is not in the instance" in _err(tiny2, unknown)
    assert "job 'b' is missing" in _err(tiny2, PackPlan([[("a",)]]))
    assert "job 'a' appears twice" in _err(tiny2, PackPlan([[("a",), ("a", "b")]]))
    assert "partition=1 does not exist" in _err(tiny2, PackPlan([[("a",)], [("b",)]]))
    assert "pack 1 of partition 0 is empty" in _err(tiny2, PackPlan([[("a", "b"), ()]]))
    assert "missing" in _err(tiny2, StartsPlan({"a": 0}))
    assert "start=nan" in _err(tiny2, StartsPlan({"a": 0, "b": math.nan}))
    assert "partition=3 does not exist" in _err(
        tiny2, StartsPlan({"a": 0, "b": 0}, {"a": 0, "b": 3}))


def test_pack_wider_than_partition():
    inst = one_partition(Job.periodic("a", 3, 1, 1), Job.periodic("b", 2, 1, 1),
                         nodes=4)
    assert "pack 0 of partition 0 needs nodes=5 > 4" in _err(inst, None)
    check(inst, simulate(inst, PackPlan([[("a",), ("b",)]])))


def test_one_pack_on_unmapped_multi_partition_platform():
    inst = read_instance(INSTANCES / "hetero6.json")
    message = _err(inst, OnePackPlan())
    assert "partition is not set" in message and "2 partitions" in message


def test_plan_contradicting_instance_mapping(tiny2):
    platform = Platform((Partition(4), Partition(4)))
    inst = tiny2.replace(platform=platform)
    message = _err(inst, PackPlan([[("a",)], [("b",)]]))
    assert "job 'b'" in message and "maps job 'b' to partition 0" in message


def test_dependency_inside_a_pack():
    inst = one_partition(Job.periodic("a", 1, 1, 1), Job.periodic("b", 1, 1, 1,
                                                                  after=("a",)))
    assert "job 'b': depends on 'a' of the same pack" in _err(inst, OnePackPlan())
    check(inst, simulate(inst, PackPlan([[("a",), ("b",)]])))


def test_packs_waiting_in_a_cycle():
    platform = Platform((Partition(4), Partition(4)))
    jobs = (Job.periodic("a", 1, 1, 1, after=("b",)), Job.periodic("b", 1, 1, 1),
            Job.periodic("c", 1, 1, 1, after=("d",)), Job.periodic("d", 1, 1, 1))
    inst = Instance("cycle", platform, jobs)
    assert "cycle" in _err(inst, PackPlan([[("a",), ("d",)], [("c",), ("b",)]]))


def test_unknown_policy_lists_names(tiny2):
    with pytest.raises(OptionError, match=r"policy='edf' is unknown; choose one of "
                       r"lowest-id, longest-io,.* stretch"):
        simulate(tiny2, policy="edf")


def test_not_a_plan(tiny2):
    with pytest.raises(OptionError, match="is not a OnePackPlan"):
        simulate(tiny2, plan={"a": 0})


# -- properties -------------------------------------------------------------------
def _first_fit_packs(inst: Instance) -> list[list[tuple[str, ...]]]:
    packs: list[list[list[str]]] = [[] for _ in inst.platform.partitions]
    width: list[list[int]] = [[] for _ in inst.platform.partitions]
    for job in inst.jobs:
        k = job.partition
        cap = inst.platform.partitions[k].nodes
        for p, used in enumerate(width[k]):
            if used + job.nodes <= cap:
                packs[k][p].append(job.id)
                width[k][p] += job.nodes
                break
        else:
            packs[k].append([job.id])
            width[k].append(job.nodes)
    return [[tuple(p) for p in part] for part in packs]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(inst=instances(max_jobs=6, max_iterations=4),
       policy=st.sampled_from(POLICY_NAMES), data=st.data())
def test_random_instances_pack_and_starts_plans(inst, policy, data):
    """Packs start exactly at their gate; starts plans respect their plan."""
    packs = _first_fit_packs(inst)
    schedule = check(inst, simulate(inst, PackPlan(packs), policy))
    done = schedule.completions(inst)
    for part in packs:
        previous_end = 0.0
        for pack in part:
            gate = max([previous_end] + [inst.job(i).release for i in pack])
            for i in pack:
                assert schedule.start(i) == gate
            previous_end = max(done[i] for i in pack)

    start = {job.id: data.draw(st.integers(0, 20)) / 2 for job in inst.jobs}
    schedule = check(inst, simulate(inst, StartsPlan(start), policy))
    for k in range(inst.platform.num_partitions):
        ids = [job.id for job in inst.jobs if job.partition == k]
        ids.sort(key=lambda i: (max(start[i], inst.job(i).release), inst.index[i]))
        starts = [schedule.start(i) for i in ids]
        assert starts == sorted(starts)  # no overtaking
        for i in ids:
            assert schedule.start(i) >= max(start[i], inst.job(i).release)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(inst=instances(max_jobs=6, max_iterations=3, max_partitions=3),
       data=st.data())
def test_random_dags_under_starts_plans(inst, data):
    """Random dependencies (on lower-index jobs) and random planned starts,
    including starts before a predecessor's: every job starts, after its
    predecessors complete (validator rule 1)."""
    jobs = []
    for i, job in enumerate(inst.jobs):
        after = data.draw(st.lists(st.sampled_from([j.id for j in inst.jobs[:i]]),
                                   unique=True, max_size=2)) if i else []
        jobs.append(Job(job.id, job.nodes, job.compute, job.io_volume,
                        release=job.release, after=tuple(after),
                        partition=job.partition))
    dag = inst.with_jobs(jobs)
    start = {job.id: data.draw(st.integers(0, 10)) / 2 for job in dag.jobs}
    schedule = check(dag, simulate(dag, StartsPlan(start), "fifo"))
    done = schedule.completions(dag)
    for job in dag.jobs:
        for dep in job.after:
            assert schedule.start(job.id) >= done[dep]
