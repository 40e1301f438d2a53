"""Batsim JSON workload and platform readers (opt_sched.traces)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from opt_sched.errors import TraceError
from opt_sched.traces import count_compute_hosts, read_batsim, read_trace
from opt_sched.traces.reading import TraceReading

from .paths import TRACES, shared_data_dir


def test_platform_counts_compute_hosts():
    # host0, host1 and the cluster radical 0-3,8 (5 nodes); not the master
    # host nor the storage host
    assert count_compute_hosts(TRACES / "platform-small.xml") == 7


def test_small_workload():
    # Batsim's default (--all-hosts): the platform's 7 compute hosts,
    # whatever nb_res (4)
    default, summary = read_batsim(TRACES / "workload-small.json",
                                   TRACES / "platform-small.xml",
                                   TraceReading(machines="platform"))
    assert default.machine_size == 7
    assert "wider than the machine (7) (jobs[4])" in summary.format()
    assert any("compute hosts of platform-small.xml" in note
               for note in summary.notes)
    # --mmax-workload: at most nb_res = 4
    trace, summary = read_batsim(TRACES / "workload-small.json",
                                 TRACES / "platform-small.xml",
                                 TraceReading(machines="workload"))
    assert trace.machine_size == 4          # min(7 hosts, nb_res 4)
    assert summary.lines == 6 and summary.kept == 4
    assert dict(summary.skipped) == {"wider_than_machine": 1, "run_time_zero": 1}
    assert dict(summary.adjusted) == {"walltime_unknown": 1, "walltime_short": 1}
    assert summary.examples["wider_than_machine"] == (4,)
    assert "wider than the machine (4) (jobs[4])" in summary.format()
    assert any("7 compute hosts" in note for note in summary.notes)
    assert default.ids == trace.ids
    # opt_sched's default: nb_res, the workload's own statement
    auto, _ = read_batsim(TRACES / "workload-small.json",
                          TRACES / "platform-small.xml")
    assert auto.machine_size == 4 and auto.ids == trace.ids
    # submit order; ties (w0!1, w0!2 at 0) keep file order
    assert trace.ids == ("w0!1", "w0!2", "w0!3", "w0!4")
    assert list(trace.run_time) == [40.0, 7.5, 7.5, 40.0]
    assert list(trace.walltime) == [50.0, 7.5, 100.0, 40.0]
    assert trace.profiles == ("long", "short", "short", "long")
    assert trace.groups == trace.profiles
    assert trace.users == (None, None, None, "alice")
    # read_trace dispatches on the name
    again, _ = read_trace(TRACES / "workload-small.json")
    assert again.ids == trace.ids and again.machine_size == 4


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "w.json"
    path.write_text(json.dumps(data))
    return path


def _base() -> dict:
    return json.loads((TRACES / "workload-small.json").read_text())


def test_non_delay_profile_is_named(tmp_path):
    data = _base()
    data["profiles"]["long"] = {"type": "parallel_homogeneous", "cpu": 1e9,
                                "com": 0}
    with pytest.raises(TraceError) as err:
        read_batsim(_write(tmp_path, data))
    assert str(err.value) == ("w.json: jobs[1] (id 'w0!1'): profile 'long' has "
                              "type 'parallel_homogeneous'; only 'delay' profiles "
                              "can be replayed")


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["jobs"][0].pop("subtime"),
     "jobs[0] (id 'w0!3'): missing field 'subtime'"),
    (lambda d: d["jobs"][0].update(res="two"),
     "jobs[0] (id 'w0!3'): res='two' is not an integer"),
    (lambda d: d["jobs"][0].update(profile="nope"),
     "jobs[0] (id 'w0!3'): profile 'nope' is not defined"),
    (lambda d: d["jobs"][1].update(id="w0!3"),
     "jobs[1] (id 'w0!3'): id 'w0!3' repeats jobs[0]"),
    (lambda d: d["jobs"][0].update(walltime="1h"),
     "jobs[0] (id 'w0!3'): walltime='1h' is not a finite number"),
    (lambda d: d.pop("profiles"), "missing field 'profiles'"),
])
def test_malformed_workloads(tmp_path, change, message):
    data = _base()
    change(data)
    with pytest.raises(TraceError) as err:
        read_batsim(_write(tmp_path, data))
    assert str(err.value) == f"w.json: {message}"


def test_invalid_json(tmp_path):
    path = tmp_path / "w.json"
    path.write_text('{"jobs": [')
    with pytest.raises(TraceError, match=r"w.json: not valid JSON \(line 1"):
        read_batsim(path)


def test_medium_late_workload():
    folder = shared_data_dir() / "batsim-medium_late"
    trace, summary = read_batsim(folder / "workload.json", folder / "platform.xml",
                                 TraceReading(machines="workload"))
    print(summary.format())
    data = json.loads((folder / "workload.json").read_text())
    assert summary.lines == len(data["jobs"]) == 801
    assert summary.kept == len(trace) == 801 and summary.total_skipped == 0
    # platform.xml has 128 compute hosts (Batsim's default); nb_res and
    # Batsim's reference run (--mmax-workload) used 32
    assert count_compute_hosts(folder / "platform.xml") == 128
    assert trace.machine_size == data["nb_res"] == 32
    default, _ = read_batsim(folder / "workload.json", folder / "platform.xml",
                             TraceReading(machines="platform"))
    assert default.machine_size == 128 and default.ids == trace.ids
    # run times are the delays of the jobs' profiles, read here directly
    delay = {job["id"]: data["profiles"][job["profile"]]["delay"]
             for job in data["jobs"]}
    walltime = {job["id"]: job["walltime"] for job in data["jobs"]}
    for k, job_id in enumerate(trace.ids):
        assert trace.run_time[k] == delay[int(job_id)]
        assert trace.walltime[k] == walltime[int(job_id)]
    # job 424242 is first in the file but submitted last (t = 16000)
    assert trace.ids[-1] == "424242" and trace.submit[-1] == 16000.0
    assert np.all(np.diff(trace.submit) >= 0)


def test_hygiene_filters_reach_batsim_workloads(tmp_path):
    """A Batsim workload goes through the same counted reading rules as SWF:
    ``--time-range`` keeps exactly the jobs submitted in ``[start, end)``
    (counted independently from the JSON), and ``--zero-run-time keep``
    keeps a job of delay 0 (1 s) instead of skipping it."""
    folder = shared_data_dir() / "batsim-medium_late"
    if not (folder / "workload.json").is_file():
        pytest.skip("../shared/data/batsim-medium_late is absent")
    data = json.loads((folder / "workload.json").read_text())
    delays = {name: p["delay"] for name, p in data["profiles"].items()}
    start, end = 1000.0, 5000.0
    expected = [str(j["id"]) for j in data["jobs"]
                if start <= j["subtime"] < end and delays[j["profile"]] > 0]
    trace, summary = read_batsim(folder / "workload.json", folder / "platform.xml",
                                 TraceReading(time_range=(start, end),
                                              machines="workload"))
    assert sorted(trace.ids) == sorted(expected)
    assert summary.skipped["outside_time_range"] == sum(
        not start <= j["subtime"] < end for j in data["jobs"])
    assert summary.kept + summary.total_skipped == len(data["jobs"])

    zero = {"nb_res": 2, "jobs": [{"id": 1, "subtime": 0, "res": 1, "profile": "z"},
                                  {"id": 2, "subtime": 1, "res": 1, "profile": "d"}],
            "profiles": {"z": {"type": "delay", "delay": 0},
                         "d": {"type": "delay", "delay": 5}}}
    tmp = tmp_path / "z.json"
    tmp.write_text(json.dumps(zero))
    dropped, _ = read_batsim(tmp)
    kept, kept_summary = read_batsim(tmp, reading=TraceReading(zero_run_time="keep"))
    assert dropped.ids == ("2",) and kept.ids == ("1", "2")
    assert kept.run_time[0] == 1.0 and kept_summary.adjusted["run_time_zero_kept"] == 1
