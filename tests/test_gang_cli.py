"""``python -m opt_sched.gang``: generate, replay with --validate, exit codes."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from opt_sched.cli.gang import main
from opt_sched.gang.record import read_record
from opt_sched.gang.validate import validate_gang
from opt_sched.gang.workload import read_workload

REPO = Path(__file__).resolve().parents[1]


def gang(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "opt_sched.gang", *args], env=env,
                          capture_output=True, text=True, timeout=300)


def test_generate_and_replay(tmp_path):
    workload = tmp_path / "w.json"
    done = gang("generate", "--protocol", "jann", "--io-intensity", "0.33",
                "--mean-runtime", "1500", "--jobs", "120", "--seed", "4",
                "--out", str(workload))
    assert done.returncode == 0, done.stderr
    assert "120 jobs on 320 nodes" in done.stdout
    jobs_csv, schedule = tmp_path / "jobs.csv", tmp_path / "s.json"
    done = gang("replay", str(workload), "--scheduler", "migrate-iogs",
                "--placement", "contiguous", "--migration-budget", "32",
                "--out", str(jobs_csv), "--schedule", str(schedule), "--validate",
                "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["validated"] is True and summary["jobs"] == 120
    assert summary["scheduler"] == "migrate-iogs"
    assert summary["placement"] == "contiguous"
    rows = list(csv.DictReader(jobs_csv.open()))
    assert len(rows) == 120 and rows[0]["id"] == "1"
    assert set(rows[0]) >= {"wait", "response", "response_from_start", "slowdown",
                            "slowdown_from_start", "local_at_start", "local_at_end"}
    record = read_record(schedule)
    assert record.params["migration_budget"] == 32
    # the written schedule passes the validator against the placed workload
    from opt_sched.gang.placement import place_files

    placed = place_files(read_workload(workload), "contiguous", 0)
    assert validate_gang(placed, record) == []
    mean = sum(float(r["slowdown"]) for r in rows) / len(rows)
    assert mean == pytest.approx(summary["mean_slowdown"])


def test_generate_swf(tmp_path):
    trace = tmp_path / "t.swf"
    trace.write_text("; MaxNodes: 4\n1 0 0 100 2 -1 -1 2 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
                     "2 50 0 300 4 -1 -1 4 400 -1 1 1 1 -1 -1 -1 -1 -1\n")
    out = tmp_path / "t.json"
    assert main(["generate", "--protocol", "swf", "--trace", str(trace), "--out",
                 str(out), "--placement", "random"]) == 0
    workload = read_workload(out)
    assert workload.nodes == 4 and workload.file_nodes is not None
    assert main(["replay", str(out), "--scheduler", "gs", "--out",
                 str(tmp_path / "j.csv"), "--validate"]) == 0


@pytest.mark.parametrize("args, message", [
    (["replay", "missing.json", "--scheduler", "gs", "--out", "x.csv"],
     "no such file"),
    (["replay", "w.json", "--scheduler", "fifo", "--out", "x.csv"],
     "invalid choice"),
    (["generate", "--protocol", "jann", "--io-intensity", "1.5", "--out", "w.json"],
     "must be in [0, 1)"),
    (["generate", "--protocol", "swf", "--out", "w.json"], "needs --trace"),
    (["replay", "w.json", "--scheduler", "gs", "--quantum", "0", "--out", "x.csv"],
     "must be a positive number"),
])
def test_bad_input_exits_2(tmp_path, args, message):
    gang("generate", "--protocol", "jann", "--jobs", "5", "--out",
         str(tmp_path / "w.json"))
    done = subprocess.run([sys.executable, "-m", "opt_sched.gang", *args],
                          env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_unwritable_output_exits_2(tmp_path):
    gang("generate", "--protocol", "jann", "--jobs", "5", "--out",
         str(tmp_path / "w.json"))
    done = gang("replay", str(tmp_path / "w.json"), "--scheduler", "gs", "--out",
                str(tmp_path / "no" / "such" / "dir.csv"))
    assert done.returncode == 2 and "does not exist" in done.stderr
