"""``opt-sched replay`` and ``opt-sched plot`` in real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd

from .test_cli import run_cli

DATA = Path(__file__).parent / "data" / "traces"
REPO = Path(__file__).resolve().parents[1]


def test_replay_a_swf_trace_with_io_writes_every_output(tmp_path):
    out = {name: tmp_path / name for name in
           ("jobs.csv", "s.swf", "sched.json", "inst.json", "g.png", "u.png")}
    done = run_cli("replay", str(DATA / "kth-sp2-head.swf"), "--scheduler", "fcfs",
                   "--io-profile", "bn", "--alpha", "0.5", "--seed", "3",
                   "--validate", "--kill-at-walltime",
                   "--out", str(out["jobs.csv"]), "--swf", str(out["s.swf"]),
                   "--schedule", str(out["sched.json"]),
                   "--instance-out", str(out["inst.json"]),
                   "--gantt", str(out["g.png"]), "--usage", str(out["u.png"]))
    assert done.returncode == 0, done.stderr
    assert "validated feasible" in done.stdout
    for path in out.values():
        assert path.stat().st_size > 0, path
    jobs = pd.read_csv(out["jobs.csv"])
    assert len(jobs) == 40
    # the written schedule validates against the written instance
    check = run_cli("validate", str(out["inst.json"]), str(out["sched.json"]))
    assert check.returncode == 0, check.stdout + check.stderr
    # and the picture of it can be drawn again from the files
    again = run_cli("plot", str(out["inst.json"]), str(out["sched.json"]),
                    "--window", "0:50000", "--out", str(tmp_path / "again.png"))
    assert again.returncode == 0, again.stderr


def test_replay_json_report(tmp_path):
    done = run_cli("replay", str(DATA / "kth-sp2-head.swf"), "--scheduler", "fcfs",
                   "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["jobs"] == 40 and report["io_phases"] == 0
    assert report["makespan"] > 0 and report["killed"] == 0


def test_replay_compares_with_the_batsim_tool(tmp_path):
    """Our out_jobs.csv is read by the shared comparison tool (FCFS is not the
    reference's algorithm, so only the format is checked here; EASY and
    conservative conformance are in tests/test_online_*.py)."""
    tool = REPO.parent / "shared" / "tools" / "compare_out_jobs.py"
    if not tool.is_file():
        import pytest

        pytest.skip(f"{tool} absent")
    out = tmp_path / "ours.csv"
    done = run_cli("replay", str(DATA / "workload-small.json"), "--platform",
                   str(DATA / "platform-small.xml"), "--scheduler", "fcfs",
                   "--out", str(out))
    assert done.returncode == 0, done.stderr
    same = subprocess.run([sys.executable, str(tool), str(out), str(out),
                           "--machines"], capture_output=True, text=True)
    assert same.returncode == 0 and "machines" in same.stdout, same.stdout


def test_replay_bad_inputs_are_one_line_errors(tmp_path):
    bad = run_cli("replay", str(DATA / "malformed-field.swf"), "--scheduler", "fcfs")
    assert bad.returncode == 2 and "line" in bad.stderr and "field" in bad.stderr
    assert "Traceback" not in bad.stderr and bad.stderr.count("\n") == 1
    profile = run_cli("replay", str(DATA / "kth-sp2-head.swf"), "--io-profile",
                      "lustre")
    assert profile.returncode == 2 and "lustre" in profile.stderr
    narrow = run_cli("replay", str(DATA / "kth-sp2-head.swf"), "--nodes", "2")
    assert narrow.returncode == 2 and "nodes" in narrow.stderr
    assert "Traceback" not in narrow.stderr
    missing = run_cli("replay", str(tmp_path / "none.swf"))
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_gang_through_the_front_door(tmp_path):
    """generate --protocol jann, replay --scheduler migrate-iogs, validate the
    record; a corrupted record exits 1 naming a gang rule."""
    workload = tmp_path / "w.json"
    done = run_cli("generate", "--protocol", "jann", "--jobs", "120",
                   "--io-intensity", "0.5", "--seed", "2", "--out", str(workload))
    assert done.returncode == 0, done.stderr
    record = tmp_path / "r.json"
    done = run_cli("replay", str(workload), "--scheduler", "migrate-iogs",
                   "--placement", "contiguous", "--validate", "--schedule",
                   str(record), "--out", str(tmp_path / "jobs.csv"))
    assert done.returncode == 0, done.stderr
    assert run_cli("validate", str(workload), str(record)).returncode == 0
    data = json.loads(record.read_text())
    data["jobs"]["finish"] = [f + 500.0 for f in data["jobs"]["finish"]]
    record.write_text(json.dumps(data))
    bad = run_cli("validate", str(workload), str(record))
    assert bad.returncode == 1 and "rule 4 work" in bad.stdout, bad.stdout
