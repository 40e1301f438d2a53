"""Rule 4 per machine (SPEC §9): stated machines are Q_i distinct numbers of
the partition, never held by two running jobs, stated for all jobs of a
partition or none.

The reference is ``tiny2`` under FIFO (P = 4; a: Q = 2 over [0, 11),
b: Q = 2 over [0, 8)): a on machines 0, 1 and b on 2, 3 is feasible.
"""

from __future__ import annotations

import dataclasses
import json

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

import opt_sched.simulation as simulation
from opt_sched import (
    Instance,
    Job,
    JobSchedule,
    Platform,
    Schedule,
    ScheduleFormatError,
    read_schedule,
    schedule_from_dict,
    schedule_to_dict,
)
from opt_sched.schedule import MachineSet
from opt_sched.validation import ValidationReport, validate

from .conftest import INSTANCES, TINY2_FIFO
from .strategies import slow_settings, starts_plan_runs
from .validation_helpers import only_rule

A, B = TINY2_FIFO.jobs


def on(entry: JobSchedule, *machines: int) -> JobSchedule:
    return dataclasses.replace(entry, machines=machines)


def rule4(report: ValidationReport, count: int = 1) -> list:
    return only_rule(report, 4, count)


def test_disjoint_machines_are_fine(tiny):
    assert validate(tiny, Schedule((on(A, 0, 1), on(B, 3, 2)))).feasible


def test_shared_machine_while_both_run(tiny):
    (v,) = rule4(validate(tiny, Schedule((on(A, 0, 1), on(B, 1, 2)))))
    assert v.jobs == ("a", "b") and v.time == 0.0
    assert "machine 1 of partition 0 is held by a over [0, 11) and by b" in v.message


def test_several_shared_machines_are_one_violation_per_pair(tiny):
    (v,) = rule4(validate(tiny, Schedule((on(A, 0, 1), on(B, 1, 0)))))
    assert "machines 0, 1 of partition 0 are held by a" in v.message


def test_machine_reused_after_the_holder_completes():
    inst = Instance("reuse", Platform.homogeneous(1, nodes=2),
                    (Job.periodic("x", 1, 1.0, 1.0), Job.periodic("y", 1, 1.0, 1.0),
                     Job.periodic("z", 1, 1.0, 1.0)))
    # x [0, 2) on machine 0; y [2, 4) on machine 0 (touching); z [1, 3) on 1
    sched = Schedule((JobSchedule("x", 0, (0.0,), (1.0,), machines=(0,)),
                      JobSchedule("y", 0, (2.0,), (3.0,), machines=(0,)),
                      JobSchedule("z", 0, (1.0,), (2.0,), machines=(1,))))
    assert validate(inst, sched, rel_tol=0.0).feasible
    # z on machine 0 instead overlaps x (from t=1) and y (from t=2); the
    # partner of each late job is the earlier one that reaches furthest
    clash = dataclasses.replace(sched, jobs=(*sched.jobs[:2],
                                             on(sched.jobs[2], 0)))
    found = rule4(validate(inst, clash), count=2)
    assert [v.jobs for v in found] == [("x", "z"), ("z", "y")]


def test_machines_are_numbered_per_partition():
    inst = Instance("two", Platform.homogeneous(2, nodes=1),
                    (Job.periodic("a", 1, 1.0, 1.0), Job.periodic("b", 1, 1.0, 1.0)))
    sched = Schedule((JobSchedule("a", 0, (0.0,), (1.0,), machines=(0,)),
                      JobSchedule("b", 1, (0.0,), (1.0,), machines=(0,))))
    assert validate(inst, sched).feasible


def test_wrong_number_of_machines(tiny):
    (v,) = rule4(validate(tiny, Schedule((on(A, 0), on(B, 2, 3)))))
    assert v.jobs == ("a",) and "holds 1 distinct machines but needs 2" in v.message


def test_repeated_machine(tiny):
    found = rule4(validate(tiny, Schedule((on(A, 0, 1), on(B, 2, 2)))), count=2)
    assert {v.jobs for v in found} == {("b",)}
    messages = " | ".join(v.message for v in found)
    assert "job b lists machine 2 more than once" in messages
    assert "job b holds 1 distinct machines but needs 2" in messages


def test_machine_outside_the_partition(tiny):
    (v,) = rule4(validate(tiny, Schedule((on(A, 0, 1), on(B, 2, 4)))))
    assert v.jobs == ("b",)
    assert "holds machine 4, outside the machines 0..3 of partition 0" in v.message


def test_all_or_none_per_partition(tiny):
    (v,) = rule4(validate(tiny, Schedule((on(A, 0, 1), B))))
    assert v.jobs == ("b",) and "states no machines" in v.message


def test_killed_job_releases_its_machines_at_the_kill():
    inst = Instance("kill", Platform.homogeneous(1, nodes=1),
                    (Job.periodic("k", 1, 4.0, 0.0, walltime=2.0),
                     Job.periodic("m", 1, 1.0, 0.0)))
    killed = JobSchedule("k", 0, (0.0,), (), killed_at=2.0, machines=(0,))
    after = JobSchedule("m", 0, (2.0,), (3.0,), machines=(0,))
    assert validate(inst, Schedule((killed, after))).feasible
    overlapping = dataclasses.replace(after, compute_starts=(1.5,), io_starts=(2.5,))
    report = validate(inst, Schedule((killed, overlapping)))
    # the node count (1 of 1) and machine 0 are both oversubscribed from 1.5
    found = rule4(report, count=2)
    assert all(set(v.jobs) == {"k", "m"} for v in found)


# -- property: simulated schedules with greedily assigned machines -------------
def assign_machines(instance: Instance, schedule: Schedule, eps: float) -> Schedule:
    """Lowest free machines in order of start, a machine being free again when
    its holder completes (within ``eps``, the validator's own tolerance)."""
    parts = instance.platform.partitions
    free_at = [[float("-inf")] * p.nodes for p in parts]
    chosen = {}
    for js in sorted(schedule.jobs, key=lambda js: js.start):
        job = instance.job(js.id)
        pool = free_at[js.partition]
        mine = [m for m, t in enumerate(pool) if t <= js.start + eps][:job.nodes]
        assert len(mine) == job.nodes, "the simulator oversubscribed a partition"
        for m in mine:
            pool[m] = schedule.completion(instance, js.id)
        chosen[js.id] = tuple(mine)
    return dataclasses.replace(schedule, jobs=tuple(
        dataclasses.replace(js, machines=chosen[js.id]) for js in schedule.jobs))


@slow_settings(40)
@given(run=starts_plan_runs(), data=st.data())
def test_simulated_schedules_with_greedy_machines_validate(run, data):
    instance, plan, policy = run
    schedule = simulation.simulate(instance, plan, policy=policy)
    eps = validate(instance, schedule).tolerance
    with_machines = assign_machines(instance, schedule, eps)
    report = validate(instance, with_machines)
    assert report.feasible, report.format()

    # mutation: give a job one machine of a job it runs alongside
    spans = {js.id: (js.start, schedule.completion(instance, js.id))
             for js in with_machines.jobs}
    pairs = [(a, b) for a in with_machines.jobs for b in with_machines.jobs
             if a.id < b.id and a.partition == b.partition
             and min(spans[a.id][1], spans[b.id][1])
             - max(spans[a.id][0], spans[b.id][0]) > 10 * eps]
    if not pairs:
        return
    a, b = data.draw(st.sampled_from(pairs))
    stolen = (a.machines[0], *b.machines[1:])
    broken = dataclasses.replace(with_machines, jobs=tuple(
        dataclasses.replace(js, machines=stolen) if js.id == b.id else js
        for js in with_machines.jobs))
    report = validate(instance, broken)
    assert {r for r, n in report.by_rule().items() if n} == {4}, report.format()
    assert any(set(v.jobs) == {a.id, b.id} and f"machine {a.machines[0]} " in v.message
               for v in report.violations), report.format()


# -- the schedule file ---------------------------------------------------------
def test_machines_and_kills_round_trip_through_the_file_format(tmp_path):
    killed = JobSchedule("k", 0, (0.0,), (), killed_at=2.0, machines=(0,))
    after = JobSchedule("m", 0, (2.0,), (3.0,), machines=(0,))
    sched = Schedule((killed, after), method="online")
    data = schedule_to_dict(sched)
    schema = json.loads((INSTANCES / "schemas" / "schedule.schema.json").read_text())
    jsonschema.validate(data, schema)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    assert read_schedule(path) == sched
    data["jobs"][1]["machines"] = [2**63]
    with pytest.raises(ScheduleFormatError, match=r"machines\[0\]=9223372036854775808"):
        schedule_from_dict(data)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema)


def test_machine_sets_are_written_as_interval_sets(tmp_path):
    """A replayed job's machines (a MachineSet) are written as Batsim's
    interval set, read back equal, accepted by the schema; a malformed
    string is bad input naming the job."""
    wide = JobSchedule("w", 0, (0.0,), (1.0,),
                       machines=MachineSet([(0, 49152), (65536, 65540)]))
    listed = JobSchedule("l", 0, (2.0,), (3.0,), machines=(5, 3))
    sched = Schedule((wide, listed), method="online")
    data = schedule_to_dict(sched)
    assert data["jobs"][0]["machines"] == "0-49151 65536-65539"
    assert data["jobs"][1]["machines"] == [5, 3]
    schema = json.loads((INSTANCES / "schemas" / "schedule.schema.json").read_text())
    jsonschema.validate(data, schema)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    back = read_schedule(path)
    assert back.jobs[0].machines == (*range(49152), 65536, 65537, 65538, 65539)
    assert back == sched
    data["jobs"][0]["machines"] = "0-4 7-x"
    with pytest.raises(ScheduleFormatError, match=r"job 'w'.*'7-x'"):
        schedule_from_dict(data)
