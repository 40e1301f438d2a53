"""Rule 0, job-coverage: a schedule that loses, invents or repeats a job is
infeasible (exit 1), and the report names the job; pack lists likewise.

The reference is ``tiny2`` under FIFO (``tests/conftest.py``: a and b, both
feasible by hand). Each test breaks it in one way.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from opt_sched import (
    Instance,
    Job,
    JobSchedule,
    Platform,
    Schedule,
    ScheduleFormatError,
    read_instance,
    schedule_to_dict,
)
from opt_sched.validation import validate

from .conftest import INSTANCES, TINY2_FIFO
from .validation_helpers import only_rule

A, B = TINY2_FIFO.jobs
TINY2 = INSTANCES / "tiny2.json"


def test_missing_job_is_a_violation_naming_it(tiny):
    (v,) = only_rule(validate(tiny, Schedule((A,))), 0)
    assert v.jobs == ("b",) and v.name == "job-coverage" and v.time is None
    assert v.message == "rule 0 job-coverage: job b is missing from the schedule"


def test_extra_job_is_a_violation_naming_it(tiny):
    stray = JobSchedule("zz", 0, (0.0,), (1.0,))
    (v,) = only_rule(validate(tiny, Schedule((A, stray, B))), 0)
    assert v.jobs == ("zz",)
    assert "job zz (entry 1) is not in the instance 'tiny2'" in v.message


def test_duplicated_job_is_a_violation_naming_it(tiny):
    # the repeated entry is not judged (it may be anything of the right shape):
    # the first entry of a is, and is feasible
    again = dataclasses.replace(A, compute_starts=(100.0, 200.0))
    (v,) = only_rule(validate(tiny, Schedule((A, B, again))), 0)
    assert v.jobs == ("a",)
    assert "job a is listed again at entry 2 (first at entry 0)" in v.message


def test_every_lost_job_is_counted(tiny):
    report = validate(tiny, Schedule((JobSchedule("x", 0, (0.0,), (0.0,)),
                                      JobSchedule("y", 0, (0.0,), (0.0,)))))
    found = only_rule(report, 0, count=4)       # x, y unknown; a, b missing
    assert sorted(v.jobs[0] for v in found) == ["a", "b", "x", "y"]


def test_missing_predecessor_is_not_judged_twice():
    inst = Instance("chain", Platform.homogeneous(1, nodes=2),
                    (Job.periodic("a", 1, 1.0, 1.0),
                     Job.periodic("b", 1, 1.0, 1.0, after=("a",))))
    # b alone at 0: its predecessor a is missing, and that is all we can say
    sched = Schedule((JobSchedule("b", 0, (0.0,), (1.0,)),))
    (v,) = only_rule(validate(inst, sched), 0)
    assert v.jobs == ("a",)


def test_shape_errors_stay_format_errors(tiny):
    with pytest.raises(ScheduleFormatError, match="compute_starts has 1 entries"):
        validate(tiny, Schedule((A, JobSchedule("b", 0, (0.0,), (1.0,)))))
    with pytest.raises(ScheduleFormatError, match="partition=3 does not exist"):
        validate(tiny, Schedule((A, dataclasses.replace(B, partition=3))))
    # the shape of an unknown job's entry is not judged: only that it is unknown
    odd = JobSchedule("zz", 7, (0.0, 1.0, 2.0), ())
    assert only_rule(validate(tiny, Schedule((A, B, odd))), 0)[0].jobs == ("zz",)


def test_check_shape_keeps_coverage_for_other_callers(tiny):
    with pytest.raises(ScheduleFormatError, match="'b' is missing"):
        Schedule((A,)).check_shape(tiny)
    with pytest.raises(ScheduleFormatError, match="'a' appears twice"):
        Schedule((A, B, A)).check_shape(tiny)
    Schedule((A,)).check_shape(tiny, coverage=False)


# -- pack lists ----------------------------------------------------------------
def test_pack_list_missing_a_job_names_it(two_packs):
    inst, sched = two_packs
    (v,) = only_rule(validate(inst, dataclasses.replace(sched, packs=((("a", "b"),),))),
                     6)
    assert v.jobs == ("c",) and "job c is in no pack" in v.message


def test_pack_list_repeating_a_job_names_it(two_packs):
    inst, sched = two_packs
    twice = dataclasses.replace(sched, packs=((("a", "b"), ("c", "b")),))
    (v,) = only_rule(validate(inst, twice), 6)
    assert v.jobs == ("b",)
    assert "job b is in pack 1 of partition 0 and already in pack 0" in v.message


def test_pack_member_missing_from_the_schedule(two_packs):
    inst, sched = two_packs
    lost_c = dataclasses.replace(sched, jobs=sched.jobs[:2])
    (v,) = only_rule(validate(inst, lost_c), 0)
    assert v.jobs == ("c",)


# -- through the command line, in a real process -------------------------------
def run_validate(instance_path, schedule_data, tmp_path):
    path = tmp_path / "schedule.json"
    path.write_text(json.dumps(schedule_data))
    return subprocess.run([sys.executable, "-m", "opt_sched", "validate",
                           str(instance_path), str(path)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("case,job,fragment", [
    ("missing", "b", "job b is missing from the schedule"),
    ("extra", "zz", "job zz (entry 2) is not in the instance 'tiny2'"),
    ("duplicate", "a", "job a is listed again at entry 2"),
])
def test_cli_lost_job_exits_1_naming_it(case, job, fragment, tmp_path):
    instance = read_instance(TINY2)
    data = schedule_to_dict(TINY2_FIFO, instance)
    if case == "missing":
        data["jobs"] = [e for e in data["jobs"] if e["id"] != job]
    elif case == "extra":
        data["jobs"].append({"id": job, "partition": 0, "compute_starts": [0],
                             "io_starts": [0]})
    else:
        data["jobs"].append(dict(data["jobs"][0]))
    done = run_validate(TINY2, data, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"rule 0 job-coverage: {fragment}" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr
