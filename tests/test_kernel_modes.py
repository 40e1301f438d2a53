"""The kernels as Python and compiled give the same schedules (issue 25, item
6: a small replay runs its kernels as Python, :mod:`opt_sched.kernels`).

Each case replays the same workload twice in real ``opt-sched replay``
processes, with ``OPT_SCHED_KERNELS=python`` and ``=compiled``, and compares
the two ``out_jobs.csv`` byte for byte; Batsim's own output is the third
witness on medium_late (every start and every machine).
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from opt_sched.kernels import (
    COLD_PYTHON_S,
    KERNELS,
    PYTHON_BUDGET_S,
    PYTHON_JOBS_PER_S,
    python_seconds,
)

from .paths import FIXTURES, REPO, shared_data_dir


def replay(args: list[str], kernels: str | None, cwd: Path
           ) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("OPT_SCHED_KERNELS", None)
    if kernels is not None:
        env["OPT_SCHED_KERNELS"] = kernels
    return subprocess.run([sys.executable, "-m", "opt_sched", "replay", *args],
                          cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def both(args: list[str], tmp_path: Path) -> tuple[bytes, bytes]:
    """``out_jobs.csv`` as Python and compiled (each run validated)."""
    outs = []
    for kernels in ("python", "compiled"):
        out = tmp_path / f"{kernels}.csv"
        done = replay([*args, "--validate", "--json", "--out", str(out)], kernels,
                      tmp_path)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["kernels"] == kernels
        outs.append(out.read_bytes())
    return outs[0], outs[1]


@pytest.mark.parametrize("scheduler", ["easy", "conservative"])
def test_medium_late_python_and_compiled_agree_with_batsim(scheduler, tmp_path):
    folder = shared_data_dir() / "batsim-medium_late"
    python, compiled = both([str(folder / "workload.json"), "--platform",
                             str(folder / "platform.xml"), "--mmax-workload",
                             "--scheduler", scheduler], tmp_path)
    assert python == compiled
    with open(tmp_path / "python.csv", newline="") as handle:
        ours = {r["job_id"]: r for r in csv.DictReader(handle)}
    with open(folder / scheduler / "out_jobs.csv", newline="") as handle:
        theirs = {r["job_id"]: r for r in csv.DictReader(handle)}
    assert ours.keys() == theirs.keys()
    for job, row in theirs.items():
        assert float(ours[job]["starting_time"]) == pytest.approx(
            float(row["starting_time"]), abs=1e-5), job
        assert ours[job]["allocated_resources"] == row["allocated_resources"], job


@pytest.mark.parametrize("execution", ["exclusive", "shared"])
def test_io_kernels_agree_as_python_and_compiled(execution, tmp_path):
    """The stepped engine (I/O phases) under both execution models."""
    python, compiled = both([str(FIXTURES / "traces" / "kth-sp2-head.swf"),
                             "--scheduler", "easy", "--io-profile", "bn",
                             "--alpha", "0.5", "--execution", execution], tmp_path)
    assert python == compiled


def test_auto_runs_a_small_replay_as_python_and_a_bad_mode_is_refused(tmp_path):
    trace = str(FIXTURES / "traces" / "kth-sp2-head.swf")
    done = replay([trace, "--scheduler", "easy", "--json"], None, tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert python_seconds(report["jobs"], report["io_phases"]) <= PYTHON_BUDGET_S
    assert report["kernels"] == "python"
    done = replay([trace, "--scheduler", "easy"], "fast", tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "OPT_SCHED_KERNELS='fast'" in lines[0], done.stderr


def choose_in_a_fresh_process(jobs: int, io_phases: int, cache: Path) -> list[str]:
    """``choose_kernels(jobs, io_phases)`` and numba's ``DISABLE_JIT`` after
    it, in a new interpreter whose numba cache is ``cache``."""
    code = ("from opt_sched.kernels import choose_kernels; "
            f"print(choose_kernels({jobs}, {io_phases})); "
            "import numba; print(int(numba.config.DISABLE_JIT))")
    env = dict(os.environ, PYTHONPATH=str(REPO), NUMBA_CACHE_DIR=str(cache))
    env.pop("OPT_SCHED_KERNELS", None)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, timeout=120, cwd=cache)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_auto_compiles_what_python_would_run_too_long(tmp_path):
    """Beyond :data:`COLD_PYTHON_S` of Python, ``auto`` compiles, warm cache
    or cold; in between, the cache decides."""
    big = int(COLD_PYTHON_S * PYTHON_JOBS_PER_S) + 1
    assert choose_in_a_fresh_process(big, 0, tmp_path) == ["compiled", "0"]
    middle = int((PYTHON_BUDGET_S + COLD_PYTHON_S) / 2 * PYTHON_JOBS_PER_S)
    assert PYTHON_BUDGET_S < python_seconds(middle, 0) < COLD_PYTHON_S
    assert choose_in_a_fresh_process(middle, 0, tmp_path) == ["python", "1"]
    # a compiled copy of the kernel in the cache: compiled is the faster
    module, function = KERNELS[False]
    stem = Path(module).stem
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / f"{stem}.{function}-1.py311.nbi").write_bytes(b"")
    assert choose_in_a_fresh_process(middle, 0, tmp_path) == ["compiled", "0"]
