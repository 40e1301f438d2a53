"""Batsim conformance: EASY and conservative backfilling reproduce Batsim's
reference scheduler (batsched ``easy_bf`` / ``conservative_bf``) on
``../shared/data/batsim-medium_late`` (801 jobs, 32 machines): the same
``starting_time`` (within 1e-6) and the same ``allocated_resources`` for
every job of the reference ``out_jobs.csv``."""

from __future__ import annotations

import csv

import pytest

from opt_sched.scheduling import get_scheduler, replay

from .online_helpers import BATSIM_MEDIUM, load_batsim_workload


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
