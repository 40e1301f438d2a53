"""``Schedule.check_shape``: every malformed shape is refused with its one
line, whichever path (the common case's quick checks or the detailed ones)
sees it first; a well-formed schedule passes."""

from __future__ import annotations

import dataclasses
import enum

import numpy as np
import pytest

from opt_sched import Instance, Job, JobSchedule, Platform, Schedule
from opt_sched.errors import ScheduleFormatError

INSTANCE = Instance("shape", Platform.homogeneous(2, nodes=4),
                    (Job("a", 1, (1.0, 2.0), (1.0, 1.0)),
                     Job("b", 2, (3.0,), (2.0,))))


def _good() -> list[JobSchedule]:
    return [JobSchedule("a", 0, (0.0, 3.0), (1.0, 5.0)),
            JobSchedule("b", 1, (0.0,), (3.0,))]


def _with(index: int, **changes) -> Schedule:
    jobs = _good()
    jobs[index] = dataclasses.replace(jobs[index], **changes)
    return Schedule(tuple(jobs))


class Part(enum.IntEnum):
    SECOND = 1


def test_a_well_formed_schedule_passes() -> None:
    Schedule(tuple(_good())).check_shape(INSTANCE)
    _with(1, partition=Part.SECOND).check_shape(INSTANCE)  # an int subclass
    _with(0, compute_ends=(1.0, 5.0), io_ends=(2.0, 6.0)).check_shape(INSTANCE)
    _with(0, compute_starts=(0.0,), io_starts=(), killed_at=0.5).check_shape(INSTANCE)
    _with(0, compute_starts=(0.0,), io_starts=(1.0,), killed_at=1.5).check_shape(
        INSTANCE)


@pytest.mark.parametrize("schedule, words", [
    (Schedule((*_good(), _good()[0])), "job 'a' appears twice"),
    (Schedule((_good()[0],)), "job 'b' is missing"),
    (Schedule((*_good(), JobSchedule("z", 0, (0.0,), (1.0,)))),
     "job 'z' is not in the instance"),
    (_with(0, partition=2), "partition=2 does not exist"),
    (_with(0, partition=-1), "partition=-1 does not exist"),
    (_with(0, partition=True), "partition=True does not exist"),
    (_with(0, partition=np.int64(0)), "does not exist"),
    (_with(0, partition="0"), "partition='0' does not exist"),
    (_with(0, compute_starts=(0.0,)), "compute_starts has 1 entries, expected 2"),
    (_with(0, io_starts=(1.0, 5.0, 9.0)), "io_starts has 3 entries, expected 2"),
    (_with(0, compute_ends=(1.0,)), "compute_ends has 1 entries, expected 2"),
    (_with(1, io_ends=()), "io_ends has 0 entries, expected 1"),
    (_with(0, compute_starts=(0.0, 3.0, 6.0), killed_at=1.0),
     "a killed job lists the 1 to 2 phases it started"),
    (_with(0, compute_starts=(0.0,), io_starts=(1.0, 5.0), killed_at=1.0), "io_starts"),
])
def test_a_malformed_schedule_is_refused(schedule: Schedule, words: str) -> None:
    with pytest.raises(ScheduleFormatError, match=words.replace("(", r"\(")):
        schedule.check_shape(INSTANCE)
