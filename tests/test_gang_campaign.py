"""Seed 004 through ``opt-sched sweep``: the ``jann`` generator, the four gang
methods of the registry and the ``gang`` report.

The expected values are computed here by the direct path -- the workload
generator, :func:`simulate_gang`, :func:`validate_gang` and
:func:`gang_summary` called by hand -- never by the campaign code under
test (sources, methods, ``measure_schedule``, the report's row mapping).
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from opt_sched import methods
from opt_sched.campaign import load_spec
from opt_sched.campaign.execute import run_task
from opt_sched.campaign.sources import generator_source
from opt_sched.campaign.task import Task
from opt_sched.errors import OptionError, SpecError
from opt_sched.gang import gang_summary, place_files, simulate_gang, validate_gang
from opt_sched.gang.claims import claims_table
from opt_sched.gang.jann import jann_workload
from opt_sched.gang.report import report

REPO = Path(__file__).resolve().parents[1]
QUICK = REPO / "campaigns" / "gang-quick.toml"
SCHEDULERS = ("gs", "iogs", "adaptive-iogs", "migrate-iogs")


def sweep(out: Path, *extra: str) -> dict:
    env = dict(os.environ, PYTHONPATH=f"{REPO}{os.pathsep}"
                                      f"{os.environ.get('PYTHONPATH', '')}")
    done = subprocess.run(
        [sys.executable, "-m", "opt_sched", "sweep", str(QUICK), "--out", str(out),
         "--quiet", "--json", *extra],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def direct(task: Task) -> tuple[dict, list]:
    """The summary and the validator's verdict of ``task``, by hand: the
    method text is parsed here with a plain string split."""
    p = dict(task.source.params)
    workload = place_files(jann_workload(p["jobs"], p["mean_runtime"],
                                         p["io_intensity"], p["seed"],
                                         mean_interarrival=p["mean_interarrival"],
                                         nodes=p["nodes"]), p["placement"], p["seed"])
    name, _, args = task.method.partition("(")
    options = dict(a.split("=") for a in args.rstrip(")").split(",") if a)
    record = simulate_gang(workload, name,
                           migration_budget=int(options.get("Q", 64)),
                           migration_cost=float(options.get("C", 20)))
    return gang_summary(workload, record), validate_gang(workload, record)


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("gang-quick")
    first = sweep(out)
    return out, first


def test_quick_spec_matches_direct_replay(quick):
    out, first = quick
    spec = load_spec(QUICK)
    assert first["tasks"] == len(spec.tasks) == 44
    assert first["ok"] == 44 and first["failed"] == 0
    tasks = pd.read_csv(out / "tasks.csv")
    assert (tasks["status"] == "ok").all()
    rows = []
    for task, got in zip(spec.tasks, tasks.to_dict("records")):
        assert got["key"] == task.key
        summary, violations = direct(task)
        assert violations == []  # every schedule passes the validator
        for name in ("mean_wait", "mean_response", "mean_response_from_start",
                     "mean_slowdown", "mean_slowdown_from_start",
                     "matrix_utilisation", "node_utilisation", "makespan"):
            assert got[name] == pytest.approx(summary[name], rel=1e-12), name
        for name in ("local_jobs_at_start", "local_jobs_at_end", "migrations",
                     "slices", "jobs"):
            assert got[name] == summary[name], name
        p = dict(task.source.params)
        name, _, args = task.method.partition("(")
        row = {"part": task.group, "placement": p["placement"], "scheduler": name,
               "seed": p["seed"], "r": p["io_intensity"],
               "mean_runtime": p["mean_runtime"], **summary,
               "offered_load": got["offered_load"]}
        if task.group == "cost":
            row["migration_cost"] = float(args.rstrip(")").split("=")[1])
        if task.group == "budget":
            row["migration_budget"] = int(args.rstrip(")").split("=")[1])
        rows.append(row)
    text = (out / "gang.md").read_text()
    assert report(rows) in text
    assert claims_table(rows) in text
    # claim 1 by hand from the direct rows: GS / IOGS slowdown, contiguous, 1800 s
    pick = {(r["part"], r["placement"], r["r"], r["mean_runtime"], r["scheduler"]): r
            for r in rows if r["part"] == "grid"}
    gs, iogs = (pick[("grid", "contiguous", 0.5, 1800.0, s)]["mean_slowdown"]
                for s in ("gs", "iogs"))
    assert f"| 1 | r = 0.5: IOGS beats GS on slowdown, > 100 % (slowdown GS / IOGS) " \
           f"| 1800: {gs / iogs:.2f}, " in text
    # the report shows every part: the tables are not empty
    assert "| 1800 | " in text and "| contiguous | 0.5 | 0 |" in text
    assert "| contiguous | 0.5 | 16 |" in text
    for placement in ("random", "contiguous"):
        assert (out / f"gang_slowdown_{placement}.png").stat().st_size > 1000
    assert len(pd.read_csv(out / "gang.csv")) == 44


def test_resume_skips_finished_tasks(quick):
    out, _ = quick
    before = (out / "gang.md").read_text()
    again = sweep(out, "--resume")
    assert again["skipped"] == 44 and again["ran"] == 0 and again["ok"] == 44
    assert (out / "gang.md").read_text() == before


def test_invalid_gang_schedule_is_a_failed_task(monkeypatch):
    # flip the locality of every run: the work (rule 4) and the I/O cost
    # (rule 5) no longer match; the row names the first violation
    import opt_sched.gang as gang

    real = gang.simulate_gang

    def broken(*args, **kwargs):
        record = real(*args, **kwargs)
        return dataclasses.replace(record, run_local=~record.run_local)

    monkeypatch.setattr(gang, "simulate_gang", broken)
    source = generator_source("jann", {"io_intensity": 0.5, "mean_runtime": 900,
                                       "jobs": 40, "placement": "contiguous"})
    result = run_task(Task(source, "iogs"))
    assert result.status == "failed"
    assert result.error.startswith("InfeasibleScheduleError: iogs on ")
    assert "rule 4 work" in result.error or "rule 5 io-locality" in result.error


def test_gang_methods_in_the_registry():
    assert methods.method("migrate-iogs(Q=64,C=20)").spec == "migrate-iogs"
    assert methods.method("migrate-iogs(Q=0,C=0.5)").spec == "migrate-iogs(Q=0,C=0.5)"
    assert methods.method("gs(mpl=3,quantum=100)").spec == "gs(mpl=3,quantum=100)"
    for bad in ("migrate-iogs(Q=-1)", "migrate-iogs(C=-2)", "iogs(mpl=0)",
                "gs(Q=3)", "gs/fifo"):
        with pytest.raises(SpecError):
            methods.method(bad)
    source = generator_source("jann", {"io_intensity": "mixed", "mean_runtime": 900,
                                       "jobs": 60})
    from opt_sched.campaign.sources import build_instance

    workload = build_instance(source)
    # Migrate-IOGS with Q = 0 is Adaptive-IOGS exactly, through the registry too
    a = methods.method("adaptive-iogs").run(workload)
    m = methods.method("migrate-iogs(Q=0)").run(workload)
    assert a.info["gang"]["runs"] == m.info["gang"]["runs"]
    assert a.info["gang"]["slices"] == m.info["gang"]["slices"]
    with pytest.raises(OptionError, match="serverless-gang"):
        methods.method("gs").run(workload, execution="shared")


def test_gang_methods_refuse_hpc_instances():
    from opt_sched.json_files import read_instance

    instance = read_instance(REPO / "instances" / "deps5.json")
    for name in SCHEDULERS:
        reason = methods.method(name).supports(instance)
        assert reason and "gang workload" in reason


def test_jann_generator_parameters():
    source = generator_source("jann", {"io_intensity": 0, "mean_runtime": 1800})
    params = dict(source.params)
    assert params["io_intensity"] == 0.0 and isinstance(params["io_intensity"], float)
    assert (params["jobs"], params["nodes"], params["placement"], params["seed"]) == (
        10_000, 320, "random", 0)
    with pytest.raises(SpecError, match="io_intensity"):
        generator_source("jann", {"io_intensity": "high", "mean_runtime": 1800})
    with pytest.raises(SpecError, match="placement"):
        generator_source("jann", {"io_intensity": 0.5, "mean_runtime": 1800,
                                  "placement": "striped"})
    with pytest.raises(SpecError, match="mean_runtime"):
        generator_source("jann", {"io_intensity": 0.5})
