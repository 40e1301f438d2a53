"""``opt-sched replay`` with seed 002's options, in real processes:
``--priority``, ``--bf-depth``/``--bf-interval`` (Slurm's limits) and
``--workflows`` with ``--workflow-mode``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opt_sched import Instance, Job, Platform
from opt_sched.json_files import read_instance, read_schedule, write_instance

from .test_cli import run_cli

DATA = Path(__file__).parent / "data" / "traces"
KTH = str(DATA / "kth-sp2-head.swf")

# a (48 cores, 1000 s) -> b (480 cores, 500 s); 24 cores per machine: a
# takes 2 machines, b 20. Critical path 1500 s; work 2*1000 + 20*500 =
# 12,000 machine-s; a pilot holds 20 machines for 1500 s = 30,000.
MANIFEST = {"name": "duo", "submit": 100.0, "tasks": [
    {"id": "a", "cores": 48, "runtime": 1000.0},
    {"id": "b", "cores": 480, "runtime": 500.0, "deps": ["a"]}]}


def _base(tmp_path: Path) -> Path:
    inst = Instance("base", Platform.homogeneous(1, nodes=20), (
        Job("x", 1, (10.0,), (0.0,), release=0.0, walltime=10.0),))
    path = tmp_path / "base.json"
    write_instance(inst, path)
    return path


def test_slurm_limits_and_priority_in_the_report():
    done = run_cli("replay", KTH, "--scheduler", "conservative", "--priority",
                   "multifactor", "--bf-depth", "--bf-interval", "--validate",
                   "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["bf_depth"] == 50 and report["bf_interval"] == 30.0
    assert report["priority"] == "multifactor" and report["validated"]
    done = run_cli("replay", KTH, "--scheduler", "easy", "--priority",
                   "fairshare:relative-2", "--bf-depth", "7", "--bf-interval", "0",
                   "--json")
    report = json.loads(done.stdout)
    assert (report["bf_depth"], report["bf_interval"]) == (7, 0.0)
    assert report["priority"] == "fairshare:relative-2"
    default = json.loads(run_cli("replay", KTH, "--json").stdout)
    assert (default["bf_depth"], default["bf_interval"]) == (None, 0.0)


@pytest.mark.parametrize("mode", ["chained", "pilot", "woas"])
def test_workflow_modes_alone(tmp_path, mode):
    manifest = tmp_path / "duo.json"
    manifest.write_text(json.dumps(MANIFEST))
    sched, inst = tmp_path / "s.json", tmp_path / "i.json"
    done = run_cli("replay", str(_base(tmp_path)), "--scheduler", "easy",
                   "--priority", "multifactor", "--workflows", str(manifest),
                   "--workflow-mode", mode, "--cores-per-node", "24", "--validate",
                   "--schedule", str(sched), "--instance-out", str(inst), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["workflow_mode"] == mode and report["workflows"] == 1
    # alone on the machine, every mode runs the critical path from t=100
    assert report["workflow_wait_h"] == pytest.approx(0.0)
    assert report["workflow_turnaround_h"] == pytest.approx(1500 / 3600)
    assert report["workflow_intermediate_wait_h"] == pytest.approx(0.0, abs=1e-12)
    waste = (20 * 1500 - 12000) * 24 / 3600 if mode == "pilot" else 0.0
    assert report["workflow_waste_core_hours"] == pytest.approx(waste, abs=1e-9)
    check = run_cli("validate", str(inst), str(sched))
    assert check.returncode == 0, check.stdout + check.stderr
    instance = read_instance(inst)
    schedule = read_schedule(sched)
    ids = [job.id for job in instance.jobs]
    if mode == "pilot":
        assert ids == ["x", "duo-0::*"]
    else:
        assert ids == ["x", "duo-0::a", "duo-0::b"]
        assert schedule["duo-0::b"].start >= schedule.completion(instance,
                                                                 "duo-0::a")


def test_workflows_on_a_trace_by_catalog_name():
    done = run_cli("replay", KTH, "--scheduler", "conservative", "--priority",
                   "multifactor", "--bf-depth", "--bf-interval", "--workflows",
                   "sipht", "cybershake", "--cores-per-node", "16", "--validate",
                   "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["workflows"] == 2 and report["workflow_mode"] == "woas"
    assert report["priority"] == "woas+multifactor"
    # 40 trace jobs, 12 Sipht tasks, 5 Cybershake tasks
    assert report["jobs"] == 57


@pytest.mark.parametrize("args, message", [
    (["--workflow-mode", "woas"], "--workflow-mode needs --workflows"),
    (["--bf-depth", "0"], "--bf-depth"),
    (["--bf-interval", "-1"], "--bf-interval"),
    (["--scheduler", "fcfs", "--bf-depth", "5"], "bf_depth"),
    (["--priority", "fairshare:karma"], "karma"),
    (["--workflows", "nosuchflow"], "nosuchflow"),
])
def test_bad_options_exit_2(args, message):
    done = run_cli("replay", KTH, *args)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
