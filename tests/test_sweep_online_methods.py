"""``opt-sched sweep`` runs the batsched schedulers ``fcfs``, ``easy`` and
``conservative`` on a trace source, and each task's row is the schedule a
direct :func:`opt_sched.scheduling.replay` of the same workload makes.

Two trace sources: the campaign generator ``kth-sp2`` (a 200-job slice of
the real KTH-SP2 log, skipped without the shared data folder), and the
bundled head of that log converted to an instance file (always run). Each
sweep is a real subprocess with one worker process; every direct schedule
goes through the validator.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from opt_sched import Instance, read_instance
from opt_sched.scheduling import replay
from opt_sched.validation import assert_feasible

from .paths import REPO, shared_data_dir
from .plugin_helpers import head_instance

SCHEDULERS = ("fcfs", "easy", "conservative")
KTH_SLICE = {"alpha": 0.5, "seed": 0, "bandwidth": 20.0, "jobs": 200}
"""200 jobs: enough queueing that the three schedulers' mean waits differ."""


def run_sweep(spec: Path, out: Path) -> subprocess.CompletedProcess:
    """``python -m opt_sched sweep SPEC --out OUT --workers 1``."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "opt_sched", "sweep", str(spec),
                           "--out", str(out), "--workers", "1"],
                          cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)


def write_spec(path: Path, instance_entry: str) -> Path:
    """A one-group campaign: ``instance_entry`` x the three schedulers."""
    methods = ", ".join(f'"{name}"' for name in SCHEDULERS)
    path.write_text(f'name = "online"\n\n[[groups]]\nname = "trace"\n'
                    f"instances = [{instance_entry}]\nmethods = [{methods}]\n")
    return path


def kth_source(tmp_path: Path) -> tuple[str, Callable[[], Instance]]:
    """The ``kth-sp2`` generator entry and the same workload, built directly."""
    shared_data_dir()  # skips the test when absent
    from opt_sched.workloads.kth import kth_workload

    entry = "{ generator = \"kth-sp2\", " + ", ".join(
        f"{key} = {value}" for key, value in KTH_SLICE.items()) + " }"
    return entry, lambda: kth_workload(**KTH_SLICE)


def head_source(tmp_path: Path) -> tuple[str, Callable[[], Instance]]:
    """The bundled KTH-SP2 head (I/O profile ``bn``, arrivals compressed) as
    an instance file, and that file read back."""
    path = head_instance(tmp_path)
    return f'"{path.name}"', lambda: read_instance(path)


def mean_wait(instance: Instance, schedule) -> float:
    """Mean of start minus submission over the jobs, from the schedule."""
    waits = [schedule[job.id].start - job.release for job in instance.jobs]
    return sum(waits) / len(waits)


@pytest.mark.parametrize("source", [kth_source, head_source],
                         ids=["kth-sp2-generator", "bundled-head-file"])
def test_sweep_runs_fcfs_easy_conservative_on_a_trace(tmp_path, source):
    entry, build = source(tmp_path)
    spec = write_spec(tmp_path / "online.toml", entry)
    proc = run_sweep(spec, tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    with open(tmp_path / "out" / "tasks.csv", newline="") as handle:
        rows = {row["method"]: row for row in csv.DictReader(handle)}
    assert sorted(rows) == sorted(SCHEDULERS)
    assert {row["status"] for row in rows.values()} == {"ok"}, rows
    instance = build()
    waits = {}
    for name in SCHEDULERS:
        direct = replay(instance, name)
        assert_feasible(instance, direct)
        row = rows[name]
        assert int(row["num_jobs"]) == instance.num_jobs
        assert float(row["makespan"]) == pytest.approx(direct.makespan(instance),
                                                       rel=1e-12)
        waits[name] = mean_wait(instance, direct)
        assert float(row["mean_wait"]) == pytest.approx(waits[name], rel=1e-9)
    # the workload queues enough that the three rows name three schedules
    assert len(set(waits.values())) == len(SCHEDULERS), waits
