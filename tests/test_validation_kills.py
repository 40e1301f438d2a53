"""Rule 7 and the cut of killed jobs (SPEC §9): truncated at S+e, nowhere else.

Job k: Q = 2 on a partition of P = 2, b = 1, three iterations of w = 2,
v = 1, wall time e. Alone from 0 it runs::

    compute [0, 2)  io [2, 3)  compute [3, 5)  io [5, 6)  compute [6, 8)  io [8, 9)

- e = 4.5: killed at 4.5 during compute[1], which is cut to [3, 4.5); it
  lists compute (0, 3) and io (2,).
- e = 5.5: killed at 5.5 during io[1], cut to [5, 5.5); it lists compute
  (0, 3) and io (2, 5).
"""

from __future__ import annotations

import dataclasses

import pytest

from opt_sched import (
    Instance,
    Job,
    JobSchedule,
    Platform,
    Schedule,
    ScheduleFormatError,
)
from opt_sched.validation import validate

from .validation_helpers import only_rule


def instance_with(walltime: float | None, *extra: Job) -> Instance:
    return Instance("kill", Platform.homogeneous(1, nodes=2),
                    (Job.periodic("k", 2, 2.0, 1.0, 3, walltime=walltime), *extra))


IN_COMPUTE = JobSchedule("k", 0, (0.0, 3.0), (2.0,), killed_at=4.5)
IN_IO = JobSchedule("k", 0, (0.0, 3.0), (2.0, 5.0), killed_at=5.5)


# -- accepted ------------------------------------------------------------------
@pytest.mark.parametrize("entry,walltime", [(IN_COMPUTE, 4.5), (IN_IO, 5.5)])
def test_killed_at_its_walltime_is_accepted(entry, walltime):
    inst = instance_with(walltime)
    sched = Schedule((entry,))
    report = validate(inst, sched)
    assert report.feasible, report.format()
    assert sched.completion(inst, "k") == walltime          # C = S + e


def test_cut_phase_stated_end_is_the_kill():
    inst = instance_with(5.5)
    stated = dataclasses.replace(IN_IO, compute_ends=(2.0, 5.0), io_ends=(3.0, 5.5))
    assert validate(inst, Schedule((stated,))).feasible
    # the full length (io[1] to 6) is not what ran
    uncut = dataclasses.replace(IN_IO, io_ends=(3.0, 6.0))
    (v,) = only_rule(validate(inst, Schedule((uncut,))), 2)
    assert v.phases == ("k:io[1]",) and "cut by the kill at t=5.5" in v.message


def test_killed_job_frees_its_nodes_at_the_kill():
    other = Job.periodic("m", 2, 1.0, 0.0)
    inst = instance_with(4.5, other)
    after = JobSchedule("m", 0, (4.5,), (5.5,))
    assert validate(inst, Schedule((IN_COMPUTE, after))).feasible
    before = JobSchedule("m", 0, (4.4,), (5.4,))
    (v,) = only_rule(validate(inst, Schedule((IN_COMPUTE, before))), 4)
    assert set(v.jobs) == {"k", "m"} and v.time == pytest.approx(4.4)


def test_waiting_for_the_io_node_at_the_kill_is_accepted():
    # compute[1] ends at 5; the job waits for the I/O node until its kill at 5.5
    inst = instance_with(5.5)
    waiting = dataclasses.replace(IN_COMPUTE, killed_at=5.5)
    assert validate(inst, Schedule((waiting,))).feasible


# -- rejected ------------------------------------------------------------------
def test_killed_elsewhere_than_the_walltime():
    inst = instance_with(4.5)
    early = dataclasses.replace(IN_COMPUTE, killed_at=4.0)
    (v,) = only_rule(validate(inst, Schedule((early,))), 7)
    assert v.jobs == ("k",) and v.time == 4.0
    assert "not at its wall time" in v.message and "S+e=4.5" in v.message


def test_killed_without_a_walltime():
    (v,) = only_rule(validate(instance_with(None), Schedule((IN_COMPUTE,))), 7)
    assert v.jobs == ("k",) and "has no wall time" in v.message


def test_phase_started_after_the_kill():
    inst = instance_with(4.5)
    # lists io[1] at 5, after the kill at 4.5
    late = dataclasses.replace(IN_COMPUTE, io_starts=(2.0, 5.0))
    (v,) = only_rule(validate(inst, Schedule((late,))), 7)
    assert v.phases == ("k:io[1]",) and v.time == 5.0


def test_job_that_completed_was_not_killed():
    inst = instance_with(10.0)
    whole = JobSchedule("k", 0, (0.0, 3.0, 6.0), (2.0, 5.0, 8.0), killed_at=10.0)
    (v,) = only_rule(validate(inst, Schedule((whole,))), 7)
    assert v.jobs == ("k",) and "completes all its phases at t=9" in v.message


def test_earlier_phase_may_not_be_truncated():
    inst = instance_with(5.5)
    # compute[0] stated to end at 1.5: only the last started phase may be cut
    short = dataclasses.replace(IN_IO, compute_ends=(1.5, 5.0))
    (v,) = only_rule(validate(inst, Schedule((short,))), 2)
    assert v.phases == ("k:compute[0]",)


def test_job_not_killed_may_not_drop_phases():
    with pytest.raises(ScheduleFormatError, match="compute_starts has 2 entries"):
        validate(instance_with(4.5), Schedule((dataclasses.replace(IN_COMPUTE,
                                                                   killed_at=None),)))


@pytest.mark.parametrize("compute,io,match", [
    ((), (), "compute_starts has 0 entries"),
    ((0.0,), (2.0, 5.0), "io_starts has 2 entries"),
    ((0.0, 3.0, 6.0), (2.0,), "io_starts has 1 entries"),
])
def test_killed_job_phase_lists_must_fit(compute, io, match):
    entry = JobSchedule("k", 0, compute, io, killed_at=4.5)
    with pytest.raises(ScheduleFormatError, match=match):
        validate(instance_with(4.5), Schedule((entry,)))


def test_killed_job_stated_ends_match_their_starts():
    entry = dataclasses.replace(IN_COMPUTE, io_ends=(3.0, 6.0))
    with pytest.raises(ScheduleFormatError, match="io_ends has 2 entries, expected 1"):
        validate(instance_with(4.5), Schedule((entry,)))
