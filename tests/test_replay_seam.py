"""The Scheduler / ExecutionModel seams: the batch simulator's behaviour,
written as a PlanScheduler and replayed under the stepped exclusive model,
gives exactly the schedules of the fused kernel; and online start rules
replayed on random workloads lose no job and pass the validator."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

import opt_sched.simulation as simulation
import opt_sched.validation as validation
from opt_sched import Instance, Job, Platform
from opt_sched.errors import InternalError, OptionError
from opt_sched.scheduling import (
    FCFS,
    PlanScheduler,
    Start,
    get_scheduler,
    register_scheduler,
    replay,
)

from .strategies import instances, slow_settings, starts_plan_runs

SETTINGS = slow_settings(60)


def _same_times(a, b) -> None:
    assert len(a.jobs) == len(b.jobs)
    for x, y in zip(a.jobs, b.jobs):
        assert x.id == y.id and x.partition == y.partition
        assert x.compute_starts == y.compute_starts, x.id
        assert x.io_starts == y.io_starts, x.id


@SETTINGS
@given(instance=instances(), policy=st.sampled_from(simulation.POLICY_NAMES))
def test_one_pack_replay_equals_the_fused_kernel(instance, policy):
    fused = simulation.simulate(instance, simulation.OnePackPlan(), policy=policy)
    stepped = replay(instance, PlanScheduler(instance), policy=policy)
    _same_times(fused, stepped)
    validation.assert_feasible(instance, stepped)


@SETTINGS
@given(run=starts_plan_runs())
def test_starts_plan_replay_equals_the_fused_kernel(run):
    instance, plan, policy = run
    fused = simulation.simulate(instance, plan, policy=policy)
    stepped = replay(instance, PlanScheduler(instance, plan), policy=policy)
    _same_times(fused, stepped)
    validation.assert_feasible(instance, stepped)


@SETTINGS
@given(instance=instances(mapped=False, max_jobs=7, max_partitions=3),
       policy=st.sampled_from(simulation.POLICY_NAMES))
def test_pack_plan_replay_equals_the_fused_kernel(instance, policy):
    import opt_sched.heuristics as heuristics

    plan = heuristics.pack_plan(instance, "make-pack", sensibility=1.0,
                                io_nodes=instance.platform.num_partitions)
    fused = simulation.simulate(instance, plan, policy=policy)
    stepped = replay(instance, PlanScheduler(instance, plan), policy=policy)
    _same_times(fused, stepped)


@st.composite
def online_workloads(draw, max_jobs: int = 12):
    """One partition, jobs with releases and wall times (some too short)."""
    nodes = draw(st.integers(2, 8))
    n = draw(st.integers(1, max_jobs))
    jobs = []
    for i in range(n):
        iters = draw(st.integers(1, 3))
        compute = tuple(draw(st.integers(0, 12)) / 2 for _ in range(iters))
        volume = tuple(draw(st.integers(0, 6)) / 2 for _ in range(iters))
        length = sum(compute) + sum(volume)
        wall = max(0.5, length + draw(st.integers(-4, 6)) / 2)
        deps = ()
        if i and draw(st.integers(0, 4)) == 0:
            deps = (f"j{draw(st.integers(0, i - 1))}",)
        jobs.append(Job(f"j{i}", draw(st.integers(1, nodes)), compute, volume,
                        release=draw(st.integers(0, 30)) / 2, walltime=wall,
                        after=deps))
    return Instance("online", Platform.homogeneous(1, nodes=nodes), tuple(jobs))


@SETTINGS
@given(instance=online_workloads(), policy=st.sampled_from(simulation.POLICY_NAMES),
       kill=st.booleans())
def test_fcfs_replay_loses_nothing_and_is_feasible(instance, policy, kill):
    schedule = replay(instance, FCFS(), policy=policy, kill_at_walltime=kill)
    validation.assert_feasible(instance, schedule)
    assert [js.id for js in schedule.jobs] == [j.id for j in instance.jobs]
    starts = {js.id: js.start for js in schedule.jobs}
    order = sorted(instance.jobs, key=lambda j: (j.release, instance.index[j.id]))
    # FCFS without dependencies: starts follow submission order
    if not instance.has_dependencies:
        got = [starts[j.id] for j in order]
        assert got == sorted(got)
    for js in schedule.jobs:
        job = instance.job(js.id)
        assert js.start >= job.release
        assert len(js.machines) == job.nodes
        if js.killed_at is not None:
            assert kill
            assert js.killed_at == pytest.approx(js.start + job.walltime)
    if not kill:
        assert schedule.info["killed"] == 0


def test_fcfs_hand_checked():
    """Two machines; a (2 nodes, 4 s) at 0, b (1 node, 1 s) at 1, c (1 node,
    2 s) at 1: a runs [0, 4); b and c wait for it (FCFS, b first) and start at
    4 on machines 0 and 1."""
    inst = Instance("h", Platform.homogeneous(1, nodes=2), (
        Job.periodic("a", 2, 4.0, 0.0, release=0.0, walltime=5.0),
        Job.periodic("b", 1, 1.0, 0.0, release=1.0, walltime=5.0),
        Job.periodic("c", 1, 2.0, 0.0, release=1.0, walltime=5.0)))
    schedule = replay(inst, "fcfs")
    assert [schedule[j].start for j in "abc"] == [0.0, 4.0, 4.0]
    assert schedule["b"].machines == (0,) and schedule["c"].machines == (1,)
    assert schedule.completions(inst) == {"a": 4.0, "b": 5.0, "c": 6.0}


def test_kill_at_walltime_truncates_at_start_plus_estimate():
    """One job of 3 iterations (compute 2, I/O 1 at b=1): alone it would end
    at 9; with walltime 4 it is killed at 4, after compute [0,2), I/O [2,3),
    and one unit of its second compute phase."""
    inst = Instance("k", Platform.homogeneous(1, nodes=1), (
        Job.periodic("a", 1, 2.0, 1.0, iterations=3, walltime=4.0),))
    schedule = replay(inst, "fcfs", kill_at_walltime=True)
    js = schedule["a"]
    assert js.killed_at == 4.0
    assert js.compute_starts == (0.0, 3.0) and js.io_starts == (2.0,)
    assert schedule.info["killed"] == 1
    assert schedule.completion(inst, "a") == 4.0


def test_a_scheduler_registered_from_outside_the_package():
    class LastComeFirst(FCFS):
        name = "lcfs"

        def submit(self, now, job):
            self._queue.appendleft(job)

    register_scheduler("lcfs-test", LastComeFirst)
    inst = Instance("h", Platform.homogeneous(1, nodes=1), (
        Job.periodic("a", 1, 4.0, 0.0, release=0.0),
        Job.periodic("b", 1, 1.0, 0.0, release=1.0),
        Job.periodic("c", 1, 1.0, 0.0, release=2.0)))
    schedule = replay(inst, get_scheduler("lcfs-test"))
    assert [schedule[j].start for j in "acb"] == [0.0, 4.0, 5.0]
    validation.assert_feasible(inst, schedule)


def test_a_scheduler_that_starts_a_busy_machine_is_a_bug():
    class Greedy(FCFS):
        def decide(self, now):
            return [Start(j, machines=(0,)) for j in list(self._queue)]

    inst = Instance("h", Platform.homogeneous(1, nodes=2), (
        Job.periodic("a", 1, 4.0, 0.0), Job.periodic("b", 1, 1.0, 0.0)))
    with pytest.raises(InternalError, match="not 1 distinct free machines"):
        replay(inst, Greedy())


def test_a_scheduler_that_never_starts_a_job_is_a_bug():
    class Lazy(FCFS):
        def decide(self, now):
            return []

    inst = Instance("h", Platform.homogeneous(1, nodes=2),
                    (Job.periodic("a", 1, 4.0, 0.0),))
    with pytest.raises(InternalError, match="left 1 jobs unfinished"):
        replay(inst, Lazy())


def test_unknown_scheduler_and_model_are_one_line_errors():
    inst = Instance("h", Platform.homogeneous(1, nodes=2),
                    (Job.periodic("a", 1, 4.0, 0.0),))
    with pytest.raises(OptionError, match="scheduler='nope' is unknown"):
        replay(inst, "nope")
    with pytest.raises(OptionError, match="execution='nope' is unknown"):
        replay(inst, "fcfs", "nope")


def test_dependencies_submit_at_the_predecessors_end():
    inst = Instance("d", Platform.homogeneous(1, nodes=4), (
        Job.periodic("a", 1, 3.0, 0.0),
        Job.periodic("b", 1, 1.0, 0.0, after=("a",)),
        Job.periodic("c", 1, 1.0, 0.0, release=5.0, after=("a",))))
    schedule = replay(inst, "fcfs")
    assert schedule["b"].start == 3.0 and schedule["c"].start == 5.0
    assert math.isclose(schedule.makespan(inst), 6.0)


def test_wide_partitions_take_the_lowest_free_machines():
    """5,000 machines (the numpy path of the engine's bit sets): a (3,000
    nodes) runs [0, 4), b (1,500) [0, 2), c (2,000) waits for b then takes
    b's 1,500 machines plus the 500 never used, [2, 3); d (1,000) waits
    behind c (FCFS) and takes the lowest of c's machines at 3."""
    inst = Instance("wide", Platform.homogeneous(1, nodes=5000), (
        Job.periodic("a", 3000, 4.0, 0.0), Job.periodic("b", 1500, 2.0, 0.0),
        Job.periodic("c", 2000, 1.0, 0.0, release=1.0),
        Job.periodic("d", 1000, 1.0, 0.0, release=1.0)))
    schedule = replay(inst, "fcfs")
    assert schedule["a"].machines == tuple(range(3000))
    assert schedule["b"].machines == tuple(range(3000, 4500))
    assert schedule["c"].start == 2.0
    assert schedule["c"].machines == tuple(range(3000, 5000))
    assert schedule["d"].start == 3.0
    assert schedule["d"].machines == tuple(range(3000, 4000))
    validation.assert_feasible(inst, schedule)
    plain = replay(inst, "fcfs", record_machines=False)
    assert all(js.machines is None for js in plain.jobs)
    assert [js.start for js in plain.jobs] == [js.start for js in schedule.jobs]
