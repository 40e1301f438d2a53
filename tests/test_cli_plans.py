"""Plan files for ``simulate --plan starts|packs`` are checked against the
instance: a bad one is one line naming the file, the job and the field, exit
status 2 (issue 8, point 7: they used to be accepted with exit 0)."""

from __future__ import annotations

import json

import pytest

from opt_sched import read_instance, read_schedule
from opt_sched.cli import main
from opt_sched.validation import validate

from .conftest import INSTANCES
from .test_cli import run_cli
from .test_cli_outputs import assert_one_line

TINY2 = str(INSTANCES / "tiny2.json")  # jobs a, b; 2 iterations each; 1 partition


def starts(**entries) -> dict:
    return {"starts": {job: {"partition": 0, "start": t} for job, t in entries.items()}}


def write(tmp_path, data, name="plan.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


# -- real processes ----------------------------------------------------------------
@pytest.mark.parametrize("text,fragments", [
    (json.dumps(starts(a=-5, b=0)), ["job 'a': start=-5 must be >= 0"]),
    # a job listed twice: JSON would keep only the last entry
    ('{"starts": {"a": {"partition": 0, "start": 1}, "a": {"partition": 0, '
     '"start": 0}, "b": {"partition": 0, "start": 0}}}',
     ["key 'a' appears twice"]),
    (json.dumps(starts(a=0)), ["job 'b' is missing"]),
], ids=["negative-start", "duplicate-job", "missing-job"])
def test_bad_starts_plan_from_a_real_process(text, fragments, tmp_path):
    plan = write(tmp_path, text)
    done = run_cli("simulate", TINY2, "--plan", "starts", "--plan-file", plan)
    assert_one_line(done, 2, f"{plan}: ", *fragments)
    assert done.stdout == ""


# -- every check (in-process) ----------------------------------------------------
def bad_schedule(mutate) -> dict:
    from opt_sched.json_files import schedule_to_dict
    from opt_sched.simulation import simulate

    inst = read_instance(TINY2)
    data = schedule_to_dict(simulate(inst), inst)
    mutate(data)
    return data


@pytest.mark.parametrize("kind,data,fragment", [
    ("starts", starts(a=0, b=0, c=1), "job 'c' is not in the instance 'tiny2'"),
    ("starts", starts(a=float("nan"), b=0).__repr__(), "not valid JSON"),
    ("starts", {"starts": {"a": {"partition": 0, "start": "soon"},
                           "b": {"partition": 0, "start": 0}}},
     "job 'a': start='soon' is not a finite number"),
    ("starts", {"starts": {"a": {"partition": 3, "start": 0},
                           "b": {"partition": 0, "start": 0}}},
     "job 'a': partition=3 does not exist (platform has 1)"),
    ("starts", {"starts": {"a": {"start": 0}, "b": {"partition": 0, "start": 0}}},
     "job 'a': missing field 'partition'"),
    ("starts", {"starts": {"a": {"partition": 0, "start": 0, "speed": 2},
                           "b": {"partition": 0, "start": 0}}},
     "job 'a': unknown key 'speed'"),
    ("starts", {"starts": [0, 1]}, "'starts' must map job ids"),
    ("starts", {"starts": {}, "colour": "red"}, "unknown key 'colour'"),
    ("starts", [1, 2], "expected an object"),
    ("starts", {"plan": 1}, "expected 'starts' or a schedule's 'jobs'"),
    # a schedule used as a starts plan: wrong lengths, duplicates, negatives
    ("starts", bad_schedule(lambda d: d["jobs"][0]["compute_starts"].pop()),
     "job 'a': compute_starts has 1 entries but the job has 2 iterations"),
    ("starts", bad_schedule(lambda d: d["jobs"][1]["io_starts"].append(99)),
     "job 'b': io_starts has 3 entries but the job has 2 iterations"),
    ("starts", bad_schedule(lambda d: d["jobs"].append(dict(d["jobs"][0]))),
     "job 'a' appears twice"),
    ("starts", bad_schedule(lambda d: d["jobs"].pop()), "job 'b' is missing"),
    ("starts", bad_schedule(lambda d: d["jobs"][0]["compute_starts"].__setitem__(
        0, -1.0)), "job 'a': compute_starts=-1.0 must be >= 0"),
    # packs
    ("packs", {"packs": [[["a"], ["a", "b"]]]}, "job 'a' appears twice"),
    ("packs", {"packs": [[["a"]]]}, "job 'b' is missing"),
    ("packs", {"packs": [[["a", "b"]], [["x"]]]}, "partition=1 does not exist"),
    ("packs", {"starts": {}}, "no 'packs' field"),
    ("packs", {"packs": "ab"}, "is not a list per partition"),
], ids=["unknown-job", "nan-start", "text-start", "no-such-partition",
        "no-partition", "unknown-entry-key", "starts-not-a-map", "unknown-top-key",
        "not-an-object", "neither", "schedule-short", "schedule-long",
        "schedule-duplicate", "schedule-missing", "schedule-negative",
        "packs-duplicate", "packs-missing", "packs-partition", "packs-absent",
        "packs-string"])
def test_bad_plan_files(kind, data, fragment, tmp_path, capsys):
    plan = write(tmp_path, data)
    code = main(["simulate", TINY2, "--plan", kind, "--plan-file", plan])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and f"{plan}: " in err and fragment in err, err


def test_good_plan_files_run_and_validate(tmp_path, capsys):
    """A starts plan, a packs plan and a schedule used as a plan all give
    validated schedules that respect the planned starts."""
    inst = read_instance(TINY2)
    out = tmp_path / "s.json"
    plan = write(tmp_path, starts(a=4, b=0.5))
    assert main(["simulate", TINY2, "--plan", "starts", "--plan-file", plan,
                 "--out", str(out)]) == 0
    schedule = read_schedule(out)
    assert validate(inst, schedule).feasible
    assert schedule["a"].start >= 4 and schedule["b"].start >= 0.5
    assert main(["simulate", TINY2, "--plan", "starts", "--plan-file", str(out)]) == 0
    packs = write(tmp_path, {"packs": [[["b"], ["a"]]]}, "packs.json")
    assert main(["simulate", TINY2, "--plan", "packs", "--plan-file", packs,
                 "--out", str(out)]) == 0
    schedule = read_schedule(out)
    assert validate(inst, schedule).feasible
    # pack 2 (a) starts when pack 1 (b) has completed
    assert schedule["a"].start >= schedule.completion(inst, "b")
    capsys.readouterr()
