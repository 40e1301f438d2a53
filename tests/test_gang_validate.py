"""The gang validator: it accepts the hand-checked Fig. 7 migration schedule,
and each of its six rules catches one mutation of it (and only that rule
fires). Also the record's JSON and Schedule round trips."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from opt_sched.errors import InfeasibleScheduleError, ScheduleFormatError
from opt_sched.gang.record import GangRecord, read_record, write_record
from opt_sched.gang.simulator import simulate_gang
from opt_sched.gang.validate import (
    GANG_RULES,
    assert_gang_feasible,
    validate_gang,
)

from .test_gang_matrix import fig7_workload

# Fig. 7 under Migrate-IOGS (hand trace in test_gang_matrix): jobs A, C, B, D
# (indices 0-3); D runs remote on {0,2} in slice 1, migrates to {0,1} (stall
# 20 s in slice 4), and finishes at 2320; C has a replica in row 1.


@pytest.fixture(scope="module")
def fig7():
    workload = fig7_workload()
    record = simulate_gang(workload, "migrate-iogs", mpl=2, migration_budget=64,
                           migration_cost=20)
    return workload, record


def rules(violations) -> set[int]:
    return {v.rule for v in violations}


def with_array(record: GangRecord, name: str, index, value) -> GangRecord:
    array = np.array(getattr(record, name))
    array[index] = value
    return dataclasses.replace(record, **{name: array})


def test_valid_schedule_passes(fig7):
    workload, record = fig7
    assert validate_gang(workload, record) == []
    assert_gang_feasible(workload, record)


def test_rule1_release(fig7):
    # D (index 3) first runs in slice 1 at t=200; say it arrives at 300.
    workload, record = fig7
    late = dataclasses.replace(workload, arrival=np.array([0.0, 0.0, 0.0, 300.0]))
    found = validate_gang(late, record)
    assert rules(found) == {1}
    assert any("job 'D'" in v.message and "slice 1" in v.message for v in found)
    assert all(v.message.startswith("rule 1 release:") for v in found)


def test_rule2_node_exclusive(fig7):
    # Move B (index 2) from node 1 onto node 3 (and make 3 its file node, so
    # its locality stays right): in row 1 it now shares node 3 with C's
    # replica (slices 3 and 5).
    workload, record = fig7
    files = list(workload.file_nodes)
    files[2] = (3,)
    placements = list(record.placements)
    placements[2] = ((3,),)
    moved = dataclasses.replace(record, placements=tuple(placements),
                                file_nodes=tuple(files))
    found = validate_gang(dataclasses.replace(workload, file_nodes=tuple(files)),
                          moved)
    assert rules(found) == {2}
    assert {v.phases for v in found} == {("slice 3",), ("slice 5",)}
    assert set(found[0].jobs) == {"B", "C"}
    assert found[0].message.startswith("rule 2 node-exclusive: node 3 runs job ")
    assert "in slice 3 (row 1, [600, 800))" in found[0].message


def test_rule2_slices_overlap_in_time(fig7):
    workload, record = fig7
    # slice 2 [400, 600) now starts at 390, inside slice 1 [200, 400): two
    # rows at once. (Its runs also gain 10 s, so rule 4 fires as well.)
    shifted = with_array(record, "slice_start", 2, 390.0)
    found = validate_gang(workload, shifted)
    assert 2 in rules(found)
    assert any("slice 2 starts at t=390 before slice 1 ends" in v.message
               for v in found)


def test_rule3_gang(fig7):
    # D's first placement loses a task: (0,) for 2 tasks.
    workload, record = fig7
    placements = list(record.placements)
    placements[3] = ((0,), (0, 1))
    broken = dataclasses.replace(record, placements=tuple(placements))
    found = validate_gang(workload, broken)
    assert rules(found) == {3}
    assert "job 'D' placement 0 has 1 distinct nodes for its 2 tasks" in \
        found[0].message


def test_rule3_job_twice_in_a_slice(fig7):
    # B's run in slice 7 is relabelled as slice 9 -- where B already runs.
    workload, record = fig7
    runs_b = record.runs_of(2)
    k7 = int(runs_b[record.run_slice[runs_b] == 7][0])
    broken = with_array(record, "run_slice", k7, 9)
    found = validate_gang(workload, broken)
    assert 3 in rules(found)
    assert any("job 'B' runs twice in slice 9" in v.message for v in found)


def test_rule4_work(fig7):
    # C finishes at 1200, the end of its last run (slice 5); state 1210.
    workload, record = fig7
    late = with_array(record, "finish", 1, 1210.0)
    found = validate_gang(workload, late)
    assert rules(found) == {4}
    assert any("job 'C' finishes at t=1210, outside its last run in slice 5"
               in v.message for v in found)


def test_rule4_migration_stall_is_paid(fig7):
    # D's 20 s stall dropped: it would get 20 all-local seconds too many,
    # and its one migration is not paid.
    workload, record = fig7
    free = with_array(record, "run_stall", np.flatnonzero(record.run_stall > 0), 0.0)
    found = validate_gang(workload, free)
    assert rules(found) == {4}
    messages = " | ".join(v.message for v in found)
    assert "job 'D' gets 1020 all-local seconds of work, not its 1000" in messages
    assert "its 1 migrations cost 20 s" in messages


def test_rule5_io_locality(fig7):
    # Say D's file nodes are {0,2}: its first placement is then local, but
    # the schedule charged it remote I/O (and the migrated placement {0,1}
    # local). The schedule's times are unchanged, so only rule 5 fires.
    workload, record = fig7
    files = list(workload.file_nodes)
    files[3] = (0, 2)
    other = dataclasses.replace(workload, file_nodes=tuple(files))
    relabelled = dataclasses.replace(record, file_nodes=tuple(files))
    found = validate_gang(other, relabelled)
    assert rules(found) == {5}
    assert "job 'D' in slice 1 is charged remote (t_remote per block) but its 2 " \
           "tasks sit on its file nodes" in found[0].message
    # the record's file nodes must be the workload's
    found = validate_gang(other, record)
    assert any("the record's file nodes" in v.message for v in found)


def test_rule6_coverage(fig7):
    workload, record = fig7
    renamed = dataclasses.replace(record, job_ids=("A", "C", "X", "D"))
    found = validate_gang(workload, renamed)
    assert rules(found) == {6}
    messages = {v.message for v in found}
    assert "rule 6 coverage: job 'X' is not in the workload 'fig7'" in messages
    assert ("rule 6 coverage: job 'B' of the workload is missing from the schedule"
            in messages)
    unfinished = with_array(record, "finish", 0, np.nan)
    assert any("job 'A' has no finish time" in v.message
               for v in validate_gang(workload, unfinished))


def test_rule_names_are_the_six():
    assert GANG_RULES == {1: "release", 2: "node-exclusive", 3: "gang", 4: "work",
                          5: "io-locality", 6: "coverage"}


def test_assert_raises_internal_error(fig7):
    workload, record = fig7
    with pytest.raises(InfeasibleScheduleError, match="rule 4 work"):
        assert_gang_feasible(workload, with_array(record, "finish", 1, 1210.0))


def test_json_round_trip(fig7, tmp_path):
    workload, record = fig7
    path = tmp_path / "fig7.json"
    write_record(record, path)
    back = read_record(path)
    assert back.to_dict() == record.to_dict()
    assert validate_gang(workload, json.loads(path.read_text())) == []


def test_schedule_round_trip(fig7):
    workload, record = fig7
    schedule = record.to_schedule()
    assert schedule.execution == "serverless-gang"
    assert schedule["D"].machines == (0, 1)
    assert schedule["D"].compute_starts == (200.0,)
    assert schedule["D"].compute_ends == (2320.0,)
    assert GangRecord.from_schedule(schedule).to_dict() == record.to_dict()
    assert validate_gang(workload, schedule) == []


def test_malformed_inputs(fig7):
    _workload, record = fig7
    with pytest.raises(ScheduleFormatError, match="format"):
        GangRecord.from_dict({"format": "nope"})
    with pytest.raises(ScheduleFormatError, match="run_slice"):
        dataclasses.replace(record, run_slice=np.full(len(record.run_slice), 99))
    with pytest.raises(ScheduleFormatError, match="gang workload"):
        validate_gang(object(), record)  # type: ignore[arg-type]


@pytest.mark.parametrize("offset", [0.0, 1e6, 1e9])
def test_the_tolerance_does_not_grow_with_the_clock(fig7, offset):
    """The Fig. 7 schedule moved to ``offset`` stays feasible, and slice 2
    starting a millisecond inside slice 1 is caught there too (the old
    tolerance, 1e-9 of the horizon, was a whole second at 1e9)."""
    workload, record = fig7
    late_workload = dataclasses.replace(workload, arrival=workload.arrival + offset)
    moved = dataclasses.replace(
        record, admitted=record.admitted + offset, finish=record.finish + offset,
        slice_start=record.slice_start + offset, slice_end=record.slice_end + offset)
    assert validate_gang(late_workload, moved) == []
    early = with_array(moved, "slice_start", 2, moved.slice_end[1] - 1e-3)
    assert 2 in rules(validate_gang(late_workload, early))
