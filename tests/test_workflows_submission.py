"""Chained, pilot and WoAS submissions replayed: dependencies respected,
pilot waste exact, WoAS intermediate waits, the two queue views."""

from __future__ import annotations

import math

import numpy as np
import pytest

from opt_sched import Instance, Job, Platform
from opt_sched.errors import OptionError
from opt_sched.priority import MultifactorOrder, StrictOrderScheduler
from opt_sched.scheduling import job_table, replay
from opt_sched.validation import assert_feasible
from opt_sched.workflows import (
    WORKFLOW_NAMES,
    Task,
    Workflow,
    WorkflowAwareOrder,
    build_workflow_workload,
    catalog_workflow,
    split_job_id,
    workflow_instance,
    workflow_records,
)
from opt_sched.workflows.woas import priority_view_table

BIG = Platform.homogeneous(1, nodes=1000)


def _ends(instance, schedule) -> dict[str, float]:
    out = {}
    for js in schedule.jobs:
        job = instance.job(js.id)
        out[js.id] = js.completion(job, instance.bandwidth_of(job))
    return out


def _regular(k: int, nodes: int, run: float, release: float) -> Job:
    return Job(f"r{k}", nodes, (run,), (0.0,), release=release, walltime=run,
               user="other", group="other")


def _background(seed: int, count: int, machine: int) -> Instance:
    rng = np.random.default_rng(seed)
    jobs = sorted((_regular(k, int(rng.integers(1, machine // 2)),
                            float(rng.integers(100, 20000)),
                            float(rng.integers(0, 40000))) for k in range(count)),
                  key=lambda j: j.release)
    return Instance("bg", Platform.homogeneous(1, nodes=machine), tuple(jobs))


@pytest.mark.parametrize("mode", ["chained", "woas"])
@pytest.mark.parametrize("priority", ["fcfs", "multifactor"])
def test_tasks_never_start_before_their_dependencies_end(mode, priority) -> None:
    base = _background(1, 60, 1000)
    names = list(WORKFLOW_NAMES)
    built = build_workflow_workload(names * 2, mode, base,
                                    submits=[1000.0 * k for k in range(12)])
    inst = built.instance
    order = priority if mode == "chained" else WorkflowAwareOrder(priority)
    sched = replay(inst, StrictOrderScheduler(order))
    assert_feasible(inst, sched)  # rule 1 checks dependencies too
    ends = _ends(inst, sched)
    for job in inst.jobs:
        for dep in job.after:
            assert sched[job.id].start >= ends[dep]
    # the replay engine submits a task only once its dependencies are done
    assert all(split_job_id(j.id) is not None for j in inst.jobs if j.after)


@pytest.mark.parametrize("name", WORKFLOW_NAMES)
def test_pilot_waste_is_width_times_critical_path_minus_work(name) -> None:
    wf = catalog_workflow(name)
    # independent geometry: longest path over real run times, width by
    # sampling the earliest schedule at every task start
    finish: dict[str, float] = {}
    start: dict[str, float] = {}
    for task in wf.tasks:
        start[task.id] = max((finish[d] for d in task.deps), default=0.0)
        finish[task.id] = start[task.id] + task.runtime
    cp = max(finish.values())
    width = max(sum(t.cores for t in wf.tasks if start[t.id] <= at < finish[t.id])
                for at in start.values())
    work = sum(t.cores * t.runtime for t in wf.tasks)
    built = build_workflow_workload([wf], "pilot", _background(2, 20, 2000))
    inst = built.instance
    sched = replay(inst, StrictOrderScheduler("fcfs"))
    assert_feasible(inst, sched)
    (record,) = workflow_records(inst, sched, built.workflows)
    assert record.allocated == pytest.approx(width * cp)
    assert record.waste == pytest.approx(width * cp - work)
    assert record.intermediate_wait == 0.0


def test_longwide_pilot_waste_by_hand() -> None:
    # 480 x (14340 + 3540) - (48 x 14340 + 480 x 3540) = 6,194,880 core-s
    built = build_workflow_workload(["longwide"], "pilot", platform=BIG)
    sched = replay(built.instance, "fcfs")
    (record,) = workflow_records(built.instance, sched, built.workflows)
    assert record.waste == pytest.approx(6_194_880.0)
    assert record.waste / 3600 == pytest.approx(1720.8)


@pytest.mark.parametrize("name", WORKFLOW_NAMES)
@pytest.mark.parametrize("priority", ["fcfs", "multifactor"])
def test_woas_alone_has_no_intermediate_wait(name, priority) -> None:
    built = build_workflow_workload([name], "woas", platform=BIG)
    inst = built.instance
    sched = replay(inst, StrictOrderScheduler(WorkflowAwareOrder(priority)))
    assert_feasible(inst, sched)
    ends = _ends(inst, sched)
    for job in inst.jobs:
        ready = max((ends[d] for d in job.after), default=job.release)
        assert sched[job.id].start == ready
    (record,) = workflow_records(inst, sched, built.workflows)
    assert record.wait == 0.0
    assert record.intermediate_wait == pytest.approx(0.0, abs=1e-6)
    assert record.runtime == pytest.approx(record.critical_path)


def _two_step() -> Workflow:
    return Workflow("two", (Task("T0", 2, 100.0), Task("T1", 10, 100.0, deps=("T0",))))


def test_woas_keeps_the_workflow_place_chained_loses_it() -> None:
    """10 machines. The workflow (T0: 2 x 100 s, then T1: 10 x 100 s) is
    submitted at 0, a 10-machine job r at 50. Chained: T1 becomes eligible at
    100, after r, so r runs [100, 200) and T1 [200, 300). WoAS: T1 keeps
    the workflow's place (submitted at 0), so it starts at 100."""
    base = Instance("r", Platform.homogeneous(1, nodes=10),
                    (_regular(0, 10, 100.0, 50.0),))
    chained = build_workflow_workload([_two_step()], "chained", base)
    s1 = replay(chained.instance, StrictOrderScheduler("fcfs"))
    assert s1["two-0::T1"].start == 200.0 and s1["r0"].start == 100.0
    woas = build_workflow_workload([_two_step()], "woas", base)
    s2 = replay(woas.instance, StrictOrderScheduler(WorkflowAwareOrder("fcfs")))
    assert s2["two-0::T1"].start == 100.0 and s2["r0"].start == 200.0
    assert_feasible(woas.instance, s2)
    (rec1,) = workflow_records(chained.instance, s1, chained.workflows)
    (rec2,) = workflow_records(woas.instance, s2, woas.workflows)
    assert (rec1.intermediate_wait, rec2.intermediate_wait) == (100.0, 0.0)
    assert (rec1.turnaround, rec2.turnaround) == (300.0, 200.0)


def test_priority_view_geometry() -> None:
    """The priority engine sees one job per workflow: LongWide as 480
    machines for 4 h + 1 h (requested), released at its submit time."""
    built = build_workflow_workload(["longwide", "montage"], "woas", platform=BIG,
                                    submits=[5.0, 7.0])
    table, rep, n = priority_view_table(job_table(built.instance))
    assert len(table) == n + 2
    assert list(table.nodes[n:]) == [480, 960]
    assert table.estimate[n] == 18000.0
    assert list(table.submit[n:]) == [5.0, 7.0]
    assert table.ids[n:] == ("longwide-0", "montage-1")
    assert rep[:2] == [n, n] and rep[2:] == [n + 1] * 5
    # the geometry factor is the workflow's: a wide workflow waits like a
    # wide job (anti-gaming, Paper V §3.3.3)
    order = MultifactorOrder()
    order.attach(table, type("C", (), {"num_partitions": 1, "running": {},
                                       "size": lambda self, k: 1000})())
    assert order.size_factor(n) < order.size_factor(0)


def test_workflow_instance_front_door() -> None:
    base = _background(3, 5, 1000)
    inst = workflow_instance(["cybershake"], "chained", base, submits=[100.0])
    ids = [j.id for j in inst.jobs]
    assert sum(1 for i in ids if i.startswith("cybershake-0::")) == 5
    assert split_job_id("cybershake-0::S2") == ("cybershake-0", "S2")
    assert split_job_id("r1") is None
    pilot = workflow_instance(["cybershake"], "pilot", base, submits=[100.0])
    assert "cybershake-0::*" in pilot.index
    releases = [j.release for j in inst.jobs]
    assert releases == sorted(releases)
    with pytest.raises(OptionError, match="mode"):
        workflow_instance(["cybershake"], "bulk", base)
    with pytest.raises(OptionError, match="exceeds the platform"):
        workflow_instance(["montage"], "pilot", platform=Platform.homogeneous(1, 100))
    with pytest.raises(OptionError, match="submit times"):
        workflow_instance(["montage"], "woas", base, submits=[1.0, 2.0])


def test_cores_per_node_rounds_tasks_up() -> None:
    built = build_workflow_workload(["cybershake"], "chained",
                                    platform=Platform.homogeneous(1, nodes=100),
                                    cores_per_node=24)
    nodes = {j.id.split("::")[1]: j.nodes for j in built.instance.jobs}
    assert nodes == {"S0": 5, "S1": 30, "S2": 30, "S3": 1, "S4": 1}
    pilot = build_workflow_workload(["cybershake"], "pilot",
                                    platform=Platform.homogeneous(1, nodes=100),
                                    cores_per_node=24)
    (job,) = pilot.instance.jobs
    assert job.nodes == 31 and job.walltime >= job.compute[0]
    assert math.isclose(job.compute[0], pilot.workflows["cybershake-0"]
                        .geometry.critical_path)
