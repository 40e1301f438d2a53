"""Batsim conformance: EASY and conservative backfilling reproduce Batsim's
reference scheduler (batsched ``easy_bf`` / ``conservative_bf``) on
``../shared/data/batsim-medium_late`` (801 jobs, 32 machines of its
128-host platform: Batsim was run with ``--mmax-workload``): the same
``starting_time`` (within 1e-6) and the same ``allocated_resources`` for
every job of the reference ``out_jobs.csv``. The workload is read by the
traces package, and the last test goes through the command line and the
shared comparison tool, as a user would."""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest

from opt_sched.scheduling import get_scheduler, replay
from opt_sched.traces import parse_interval_set, read_batsim, trace_to_instance
from opt_sched.traces.reading import TraceReading

from .paths import shared_data_dir
from .test_cli import run_cli


@pytest.fixture(scope="module")
def folder():
    return shared_data_dir() / "batsim-medium_late"


@pytest.fixture(scope="module")
def workload(folder):
    trace, skips = read_batsim(folder / "workload.json", folder / "platform.xml",
                               TraceReading(machines="workload"))
    assert skips.total_skipped == 0
    return trace_to_instance(trace)


@pytest.mark.parametrize("algorithm", ["easy", "conservative"])
@pytest.mark.parametrize("rjms_delay", [0.0, 5.0])
def test_batsim_reference(workload, folder, algorithm, rjms_delay, capsys):
    schedule = replay(workload, get_scheduler(algorithm, rjms_delay=rjms_delay))
    ours = {js.id: js for js in schedule.jobs}
    with open(folder / algorithm / "out_jobs.csv", newline="") as f:
        reference = list(csv.DictReader(f))
    assert len(reference) == len(ours) == 801
    starts = sum(abs(ours[r["job_id"]].start - float(r["starting_time"])) <= 1e-6
                 for r in reference)
    machines = sum(frozenset(ours[r["job_id"]].machines)
                   == frozenset(parse_interval_set(r["allocated_resources"]))
                   for r in reference)
    with capsys.disabled():
        print(f"\n{algorithm} (rjms_delay={rjms_delay:g}) vs Batsim: "
              f"starts {starts}/{len(reference)}, machines {machines}/{len(reference)}")
    assert (starts, machines) == (801, 801)


@pytest.mark.parametrize("algorithm", ["easy", "conservative"])
def test_replay_command_and_the_shared_comparison_tool_agree(folder, algorithm,
                                                               tmp_path):
    """``opt-sched replay workload.json --scheduler X --out out_jobs.csv``,
    then ``../shared/tools/compare_out_jobs.py --machines``."""
    tool = folder.parent.parent / "tools" / "compare_out_jobs.py"
    if not tool.is_file():
        pytest.skip(f"{tool} absent")
    out = tmp_path / "out_jobs.csv"
    done = run_cli("replay", str(folder / "workload.json"), "--scheduler", algorithm,
                   "--mmax-workload", "--validate", "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = subprocess.run([sys.executable, str(tool), str(out),
                             str(folder / algorithm / "out_jobs.csv"), "--machines"],
                            capture_output=True, text=True)
    assert result.stdout.strip() == "starts 801/801, machines 801/801", result
    assert result.returncode == 0
