"""The ``window-gap`` campaign experiment (issue 27): a sweep runs trace
windows as tasks, with two worker processes, and each row is the bracket
the library computes for that window (recomputed here)."""

from __future__ import annotations

import csv
import subprocess
import sys

import numpy as np
import pytest

from opt_sched.experiments.window_task import window_task

from .paths import REPO

HEAD = REPO / "tests" / "data" / "traces" / "kth-sp2-head.swf"


def test_window_gap_experiment_in_a_sweep(tmp_path):
    spec = tmp_path / "windows.toml"
    spec.write_text(
        'name = "windows"\n\n[[groups]]\nname = "head"\n'
        f'experiment = {{ name = "window-gap", trace = "{HEAD.as_posix()}", '
        'start = [8, 16], count = 6, scheduler = ["easy", "fcfs"], '
        'io_profile = "bn", time_limit = 2.0 }\nseeds = [0]\n\n'
        '[outputs]\nreports = ["window-gap"]\n')
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "opt_sched", "sweep", str(spec),
                           "--out", str(out), "--workers", "2"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr
    with open(out / "tasks.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 4 and {r["status"] for r in rows} == {"ok"}, rows
    for row in rows:
        for objective in ("makespan", "max_flow_stretch", "mean_flow_time"):
            online = float(row[f"{objective}_online"])
            best = float(row[f"{objective}_best_found"])
            bound = float(row[f"{objective}_lower_bound"])
            assert bound <= best * (1 + 1e-9) and best <= online * (1 + 1e-9)
    # one row recomputed in this process: the online side is exact, the
    # bracket holds it
    row = next(r for r in rows if r["scheduler"] == "easy" and r["start"] == "8")
    params = {"trace": str(HEAD), "start": 8, "count": 6, "scheduler": "easy",
              "io_profile": "bn", "alpha": 0.5, "time_limit": 2.0, "mode": "state"}
    direct = window_task(params, 0)
    for objective in ("makespan", "max_flow_stretch", "mean_flow_time"):
        assert direct[f"{objective}_online"] == pytest.approx(
            float(row[f"{objective}_online"]), rel=1e-12)
    assert row["first_job"] == str(direct["first_job"])
    _check_report(out, rows)


def _check_report(out, rows: list[dict[str, str]]) -> None:
    """The ``window-gap`` report holds every task's brackets, and its table
    the medians computed here from ``tasks.csv`` with numpy."""
    with open(out / "window-gap.csv", newline="") as handle:
        brackets = list(csv.DictReader(handle))
    assert len(brackets) == 3 * len(rows)
    for row in rows:
        for objective in ("makespan", "max-flow-stretch", "mean-flow-time"):
            mine = [b for b in brackets if (b["scheduler"], b["start"], b["objective"])
                    == (row["scheduler"], row["start"], objective)]
            assert len(mine) == 1
            key = objective.replace("-", "_")
            for field in ("online", "best_found", "lower_bound", "at_least",
                          "at_most", "width"):
                assert float(mine[0][field]) == pytest.approx(
                    float(row[f"{key}_{field}"]), rel=1e-12, abs=1e-300)
    text = (out / "window-gap.md").read_text()
    assert f"{len(rows)} of {len(rows)} window tasks finished" in text
    for scheduler in ("easy", "fcfs"):
        x = [float(r["mean_flow_time_at_least"]) for r in rows
             if r["scheduler"] == scheduler]
        line = next(line for line in text.splitlines()
                    if line.startswith(f"| {scheduler} | mean-flow-time | 2 |"))
        median = f"{100 * float(np.quantile(x, 0.5)):,.1f} %"
        assert median == line.split("|")[4].strip()
    assert (out / "window-gap.png").stat().st_size > 0
