"""The ``shared`` execution model: hand-checked sharing examples, the
congestion curve, caps, kills, and a property test that recomputes every
rate from the schedule's rate record."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import opt_sched.validation as validation
from opt_sched import Instance, Job, Platform, read_schedule, write_schedule
from opt_sched.errors import OptionError
from opt_sched.execution import Shared
from opt_sched.execution.shared import parse_eta
from opt_sched.scheduling import FCFS, PlanScheduler, replay

from .test_replay_seam import online_workloads


def _one_pack(*jobs: Job, nodes: int = 8, bandwidth: float = 1.0) -> Instance:
    return Instance("s", Platform.homogeneous(1, nodes=nodes, bandwidth=bandwidth),
                    tuple(jobs))


def _run(inst: Instance, model: Shared):
    return replay(inst, PlanScheduler(inst), model)


def test_two_equal_phases_that_start_together_end_together_at_twice_the_time():
    inst = _one_pack(Job.periodic("a", 1, 0.0, 3.0), Job.periodic("b", 1, 0.0, 3.0))
    schedule = _run(inst, Shared())
    # alone each would take 3 s; together each gets b/2 = 0.5 -> 6 s
    assert schedule["a"].io_ends == (6.0,) and schedule["b"].io_ends == (6.0,)
    assert schedule.makespan(inst) == 6.0


def test_a_late_phase_shares_then_runs_alone():
    """a: I/O of 2 from t=0; b: compute 1 then I/O of 2. [0,1): a alone at
    rate 1 (1 left); [1,3): both at 1/2, a ends at 3; b has 1 left, alone at
    rate 1: ends at 4."""
    inst = _one_pack(Job.periodic("a", 1, 0.0, 2.0), Job.periodic("b", 1, 1.0, 2.0))
    schedule = _run(inst, Shared())
    assert schedule["a"].io_ends == (3.0,)
    assert schedule["b"].io_starts == (1.0,) and schedule["b"].io_ends == (4.0,)


def test_proportional_share_with_a_binding_cap():
    """share='nodes', cap 0.6, b = 1. a (Q=1, v=1) alone on [0,1): capped at
    0.6, 0.4 left. From 1, b (Q=3, v=2) joins: unconstrained rates 0.25/0.75,
    b capped at 0.6, a gets the remaining 0.4: a ends at 2. b then alone,
    capped at 0.6 with 2 - 0.6 = 1.4 left: ends at 2 + 1.4/0.6."""
    inst = _one_pack(Job.periodic("a", 1, 0.0, 1.0), Job.periodic("b", 3, 1.0, 2.0))
    schedule = _run(inst, Shared(share="nodes", max_rate=0.6))
    assert schedule["a"].io_ends == (2.0,)
    assert schedule["b"].io_ends[0] == pytest.approx(2.0 + 1.4 / 0.6, rel=1e-12)


def test_congestion_efficiency_slows_everyone():
    """eta(2) = 0.5: two phases of 1 on b = 1 share 0.5 -> each at 0.25,
    both end at 4."""
    inst = _one_pack(Job.periodic("a", 1, 0.0, 1.0), Job.periodic("b", 1, 0.0, 1.0))
    schedule = _run(inst, Shared(eta="1:1,2:0.5"))
    assert schedule["a"].io_ends == (4.0,) and schedule["b"].io_ends == (4.0,)


def test_node_rate_caps_each_job_by_its_nodes():
    """node_rate 0.25, b = 1, equal share. a (Q=1, v=1) and b (Q=2, v=1)
    start together: equal shares 1/2 each, but a is capped at 0.25 and b
    (cap 0.5) takes its 1/2 ... b's cap is 0.5 = its share, so a: 0.25, b:
    0.5 (0.25 of the node unused). b ends at 2 having moved 1; a has moved
    0.5 and runs alone at its cap 0.25: ends at 2 + 0.5/0.25 = 4."""
    inst = _one_pack(Job.periodic("a", 1, 0.0, 1.0), Job.periodic("b", 2, 0.0, 1.0))
    schedule = _run(inst, Shared(node_rate=0.25))
    assert schedule["b"].io_ends == (2.0,)
    assert schedule["a"].io_ends == (4.0,)
    assert schedule.execution_record["node_rate"] == 0.25
    validation.assert_feasible(inst, schedule)
    assert rate_violations(inst, schedule) == []


def test_node_rate_under_a_nodes_share_with_congestion():
    """share='nodes', node_rate 0.5, b = 4, eta(3) = 0.75: three jobs on 2,
    2 and 4 nodes (caps 1, 1, 2), volumes 3, 3, 6, start together. Capacity
    0.75 * 4 = 3 shared by weight 2:2:4 -> 0.75, 0.75, 1.5, all below their
    caps: every job ends at 3 / 0.75 = 4 (the 4-node one moves 6 by 4)."""
    inst = _one_pack(Job.periodic("a", 2, 0.0, 3.0), Job.periodic("b", 2, 0.0, 3.0),
                     Job.periodic("c", 4, 0.0, 6.0), bandwidth=4.0)
    schedule = _run(inst, Shared(share="nodes", node_rate=0.5, eta="1:1,3:0.75"))
    assert [schedule[x].io_ends for x in "abc"] == [(4.0,), (4.0,), (4.0,)]
    validation.assert_feasible(inst, schedule)


def test_shared_rule_catches_a_broken_node_cap():
    """The same record without its node_rate: a's recorded level then lets a
    phase move more than its volume."""
    import copy
    import dataclasses

    inst = _one_pack(Job.periodic("a", 1, 0.0, 1.0), Job.periodic("b", 2, 0.0, 1.0))
    schedule = _run(inst, Shared(node_rate=0.25))
    record = copy.deepcopy(schedule.execution_record)
    del record["node_rate"]
    report = validation.validate(inst, dataclasses.replace(
        schedule, execution_record=record))
    assert any(v.rule == 5 and "moves" in v.message for v in report.violations)
    record["node_rate"] = -1
    from opt_sched.errors import ScheduleFormatError

    with pytest.raises(ScheduleFormatError, match="node_rate"):
        validation.validate(inst, dataclasses.replace(schedule,
                                                      execution_record=record))


def test_bad_options_are_one_line_errors():
    with pytest.raises(OptionError, match="share='fair'"):
        Shared(share="fair")
    with pytest.raises(OptionError, match="0 < eta <= 1"):
        parse_eta("1:1,2:1.5")
    with pytest.raises(OptionError, match="must increase"):
        parse_eta([(2, 0.9), (1, 1.0)])
    with pytest.raises(OptionError, match="max_rate"):
        Shared(max_rate=0)
    with pytest.raises(OptionError, match="node_rate"):
        Shared(node_rate=float("inf"))


def test_kill_cuts_a_shared_phase():
    """a and b share from 0 (rate 1/2 each); a (walltime 1) is killed at 1
    with 0.5 of its 1.5 moved; b then runs alone: 1.5 - 0.5 = 1 left at rate
    1 -> ends at 2."""
    inst = _one_pack(Job.periodic("a", 1, 0.0, 1.5, walltime=1.0),
                     Job.periodic("b", 1, 0.0, 1.5, walltime=10.0))
    schedule = replay(inst, FCFS(), Shared(), kill_at_walltime=True)
    assert schedule["a"].killed_at == 1.0 and schedule["a"].io_ends == (1.0,)
    assert schedule["b"].io_ends == (2.0,)


def rate_violations(inst: Instance, schedule, tol: float = 1e-7) -> list[str]:
    """Recompute every rate from the rate record (independently of the
    kernel): each phase's integral equals its volume (or stops at a kill),
    and each node delivers at most eta(m) b_k."""
    from types import SimpleNamespace

    raw = schedule.execution_record
    levels = [[tuple(x) for x in part] for part in raw["levels"]]
    record = SimpleNamespace(share=raw["share"], caps=raw["caps"],
                             eta=[tuple(p) for p in raw["eta"]], levels=levels,
                             node_rate=raw.get("node_rate"))
    eta = record.eta
    out = []

    def eta_of(m: int) -> float:
        if not eta:
            return 1.0
        ms = [p[0] for p in eta]
        vs = [p[1] for p in eta]
        return float(np.interp(m, ms, vs))

    for k, part in enumerate(inst.platform.partitions):
        levels = record.levels[k]
        times = [t for t, _ in levels]
        phases = []
        for js in schedule.jobs:
            if js.partition != k:
                continue
            job = inst.job(js.id)
            weight = 1.0 if record.share == "equal" else float(max(job.nodes, 1))
            cap = record.caps[k]
            if record.node_rate is not None:
                cap = min(cap, max(job.nodes, 1) * record.node_rate)
            for j, (o, e) in enumerate(zip(js.io_starts, js.io_ends)):
                if job.io_volume[j] > 0:
                    phases.append((js.id, j, o, e, weight, job.io_volume[j],
                                   js.killed_at, cap))
        cuts = sorted({p[2] for p in phases} | {p[3] for p in phases} | set(times))
        for a, b in itertools.pairwise(cuts):
            mid = (a + b) / 2
            pos = np.searchsorted(times, mid, side="right") - 1
            level = levels[pos][1] if pos >= 0 else 0.0
            live = [p for p in phases if p[2] <= mid < p[3]]
            total = sum(min(p[7], p[4] * level) for p in live)
            if live and total > eta_of(len(live)) * part.bandwidth * (1 + tol) + tol:
                out.append(f"node {k} over capacity on [{a}, {b})")
        for job_id, j, o, e, weight, volume, killed, cap in phases:
            moved = 0.0
            for a, b in itertools.pairwise(cuts):
                if a >= o and b <= e:
                    pos = np.searchsorted(times, (a + b) / 2, side="right") - 1
                    moved += min(cap, weight * levels[pos][1]) * (b - a)
            if killed is not None and math.isclose(e, killed):
                if moved > volume * (1 + tol) + tol:
                    out.append(f"{job_id}:io[{j}] moved {moved} > {volume}")
            elif not math.isclose(moved, volume, rel_tol=1e-7, abs_tol=1e-9):
                out.append(f"{job_id}:io[{j}] moved {moved} != {volume}")
    return out


SETTINGS = settings(max_examples=50, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(instance=online_workloads(), kill=st.booleans(),
       share=st.sampled_from(["equal", "nodes"]),
       cap=st.sampled_from([None, 0.5]),
       eta=st.sampled_from([None, "1:1,3:0.8"]),
       node_rate=st.sampled_from([None, 0.2, 0.35]))
def test_random_replays_under_sharing_integrate_exactly(instance, kill, share, cap,
                                                        eta, node_rate):
    model = Shared(share=share, max_rate=cap, eta=eta, node_rate=node_rate)
    schedule = replay(instance, FCFS(), model, kill_at_walltime=kill)
    assert [js.id for js in schedule.jobs] == [j.id for j in instance.jobs]
    assert schedule.execution == "shared"
    assert rate_violations(instance, schedule) == []
    validation.assert_feasible(instance, schedule)
    for js in schedule.jobs:
        job = instance.job(js.id)
        assert js.start >= job.release
        if js.killed_at is None:
            assert len(js.io_ends) == job.iterations


def test_the_rate_checker_catches_a_wrong_integral():
    inst = _one_pack(Job.periodic("a", 1, 0.0, 3.0), Job.periodic("b", 1, 0.0, 3.0))
    schedule = _run(inst, Shared())
    import dataclasses

    bad = dataclasses.replace(schedule.jobs[0], io_ends=(5.0,))
    broken = dataclasses.replace(schedule, jobs=(bad, schedule.jobs[1]))
    assert any("moved" in v for v in rate_violations(inst, broken))


def _two_sharing():
    inst = _one_pack(Job.periodic("a", 1, 0.0, 3.0), Job.periodic("b", 2, 1.0, 3.0))
    return inst, _run(inst, Shared())


def test_validator_accepts_a_shared_schedule_and_its_json_round_trip(tmp_path):
    inst, schedule = _two_sharing()
    validation.assert_feasible(inst, schedule)
    path = tmp_path / "s.json"
    write_schedule(schedule, path, inst)
    again = read_schedule(path)
    assert again.execution == "shared" and again.execution_record is not None
    assert validation.validate(inst, again).feasible


def test_shared_rule_catches_a_wrong_integral():
    import dataclasses

    inst, schedule = _two_sharing()
    js = schedule["a"]
    bad = dataclasses.replace(js, io_ends=(js.io_ends[0] + 0.5,))
    broken = dataclasses.replace(schedule, jobs=(bad, schedule.jobs[1]))
    report = validation.validate(inst, broken)
    assert not report.feasible
    assert any(v.rule == 5 and "moves" in v.message and v.jobs == ("a",)
               for v in report.violations), report.format()


def test_shared_rule_catches_over_allocation():
    """Raise the recorded level while both phases run: each then moves more
    than its volume, and together they get more than b."""
    import copy
    import dataclasses

    inst, schedule = _two_sharing()
    record = copy.deepcopy(schedule.execution_record)
    record["levels"][0] = [[t, lam * 1.5 if lam > 0 and t >= 1 else lam]
                           for t, lam in record["levels"][0]]
    broken = dataclasses.replace(schedule, execution_record=record)
    report = validation.validate(inst, broken)
    assert any("delivers" in v.message for v in report.violations), report.format()


def test_shared_rule_needs_its_record_and_stated_ends():
    import dataclasses

    from opt_sched.errors import ScheduleFormatError

    inst, schedule = _two_sharing()
    with pytest.raises(ScheduleFormatError, match="execution_record is missing"):
        validation.validate(inst, dataclasses.replace(schedule, execution_record=None))
    js = dataclasses.replace(schedule["a"], io_ends=None)
    report = validation.validate(
        inst, dataclasses.replace(schedule, jobs=(js, schedule.jobs[1])))
    assert any("states no end" in v.message for v in report.violations)


def test_each_partition_records_its_own_levels(tmp_path):
    """Two partitions. On 0 (b = 1) a and b (v = 3) start together: level
    1/2 on [0, 6), then 0. On 1 (b = 2) c (v = 2) runs alone: level 2 on
    [0, 1), then 0. The JSON round trip keeps the levels."""
    from opt_sched import Partition

    inst = Instance("two", Platform((Partition(4, 1.0), Partition(4, 2.0))),
                    (Job.periodic("a", 1, 0.0, 3.0, partition=0),
                     Job.periodic("b", 1, 0.0, 3.0, partition=0),
                     Job.periodic("c", 1, 0.0, 2.0, partition=1)))
    schedule = _run(inst, Shared())
    assert schedule["a"].io_ends == (6.0,) and schedule["c"].io_ends == (1.0,)
    levels = [np.asarray(part).tolist() for part in
              schedule.execution_record["levels"]]
    assert levels == [[[0.0, 0.5], [6.0, 0.0]], [[0.0, 2.0], [1.0, 0.0]]]
    path = tmp_path / "two.json"
    write_schedule(schedule, path, inst)
    assert read_schedule(path).execution_record["levels"] == levels


@SETTINGS
@given(instance=online_workloads(), kill=st.booleans(),
       cap=st.sampled_from([None, 0.5]))
def test_all_phases_is_phases_of_every_job(instance, kill, cap):
    """The one-pass result path gives each job's :meth:`Shared.phases`."""
    model = Shared(max_rate=cap)
    replay(instance, FCFS(), model, kill_at_walltime=kill)
    assert model.all_phases() == [model.phases(i) for i in range(instance.num_jobs)]
