"""Batsim conformance: EASY and conservative backfilling reproduce Batsim's
reference scheduler (batsched ``easy_bf`` / ``conservative_bf``) on
``../shared/data/batsim-medium_late`` (801 jobs, 32 machines): the same
``starting_time`` (within 1e-6) and the same ``allocated_resources`` for
every job of the reference ``out_jobs.csv``."""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest

from opt_sched.scheduling import get_scheduler, replay

from .online_helpers import (
    BATSIM_MEDIUM,
    SHARED_DATA,
    load_batsim_workload,
    machine_intervals,
    write_out_jobs,
)

COMPARE = SHARED_DATA.parent / "tools" / "compare_out_jobs.py"


def _machines(text: str) -> frozenset[int]:
    out: set[int] = set()
    for part in text.split():
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return frozenset(out)


@pytest.fixture(scope="module")
def workload():
    if not (BATSIM_MEDIUM / "workload.json").is_file():
        pytest.skip("../shared/data absent")
    return load_batsim_workload(BATSIM_MEDIUM / "workload.json")


@pytest.mark.parametrize("algorithm", ["easy", "conservative"])
@pytest.mark.parametrize("rjms_delay", [0.0, 5.0])
def test_batsim_reference(workload, algorithm, rjms_delay, capsys):
    schedule = replay(workload, get_scheduler(algorithm, rjms_delay=rjms_delay))
    ours = {js.id: js for js in schedule.jobs}
    with open(BATSIM_MEDIUM / algorithm / "out_jobs.csv", newline="") as f:
        reference = list(csv.DictReader(f))
    assert len(reference) == len(ours) == 801
    starts = sum(abs(ours[r["job_id"]].start - float(r["starting_time"])) <= 1e-6
                 for r in reference)
    machines = sum(frozenset(ours[r["job_id"]].machines)
                   == _machines(r["allocated_resources"]) for r in reference)
    with capsys.disabled():
        print(f"\n{algorithm} (rjms_delay={rjms_delay:g}) vs Batsim: "
              f"starts {starts}/{len(reference)}, machines {machines}/{len(reference)}")
    assert (starts, machines) == (801, 801)


@pytest.mark.parametrize("algorithm", ["easy", "conservative"])
def test_the_shared_comparison_tool_agrees(workload, algorithm, tmp_path):
    """Our out_jobs.csv (job_id, starting_time, allocated_resources in
    Batsim's interval format) through ../shared/tools/compare_out_jobs.py."""
    if not COMPARE.is_file():
        pytest.skip("../shared/tools absent")
    out = tmp_path / "out_jobs.csv"
    write_out_jobs(workload, replay(workload, algorithm), out)
    result = subprocess.run([sys.executable, str(COMPARE), str(out),
                             str(BATSIM_MEDIUM / algorithm / "out_jobs.csv"),
                             "--machines"], capture_output=True, text=True)
    assert result.stdout.strip() == "starts 801/801, machines 801/801", result
    assert result.returncode == 0


def test_machine_intervals():
    assert machine_intervals((0, 1, 2, 3, 7)) == "0-3 7"
    assert machine_intervals((5,)) == "5"
    assert machine_intervals((4, 2, 3, 9, 10)) == "2-4 9-10"
