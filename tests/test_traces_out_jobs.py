"""Batsim out_jobs.csv writer (opt_sched.traces.out_jobs)."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest

from opt_sched import Instance, Job, JobSchedule, Platform, Schedule
from opt_sched.errors import OutputError, ScheduleFormatError
from opt_sched.traces import (
    OUT_JOBS_COLUMNS,
    interval_set,
    parse_interval_set,
    read_batsim,
    trace_to_instance,
    write_out_jobs,
)
from opt_sched.validation import validate

from .paths import shared_data_dir


def compare_tool() -> Path:
    tool = shared_data_dir().parent / "tools" / "compare_out_jobs.py"
    if not tool.is_file():
        pytest.skip("../shared/tools/compare_out_jobs.py absent")
    return tool


def run_compare(ours: Path, ref: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(compare_tool()), str(ours), str(ref),
                           *extra], capture_output=True, text=True, timeout=120)


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


# Three jobs on 4 machines, by hand (b = 2):
#   w0!1: 2 nodes, released 0, compute 3 then I/O volume 4 (2 s): [0, 5) on 0-1
#   w0!2: 1 node, released 1, compute 2, no I/O: starts 1 on machine 3, ends 3
#   w0!3: 3 nodes, released 2, compute 1 then I/O 2 (1 s): waits for machines
#         0-1 (free at 5) -> [5, 7) on 0, 1, 3
INSTANCE = Instance("hand", Platform.homogeneous(1, 4, 2.0), (
    Job("w0!1", 2, (3.0,), (4.0,), release=0.0, walltime=10.0),
    Job("w0!2", 1, (2.0,), (0.0,), release=1.0, walltime=2.0),
    Job("w0!3", 3, (1.0,), (2.0,), release=2.0),
))
SCHEDULE = Schedule((
    JobSchedule("w0!1", 0, (0.0,), (3.0,), machines=(0, 1)),
    JobSchedule("w0!2", 0, (1.0,), (3.0,), machines=(3,)),
    JobSchedule("w0!3", 0, (5.0,), (6.0,), machines=(0, 1, 3)),
), method="by-hand")


def test_interval_sets():
    assert interval_set([7, 0, 1, 2, 3]) == "0-3 7"
    assert interval_set([5]) == "5" and interval_set([]) == ""
    assert parse_interval_set("0 4-6") == (0, 4, 5, 6)
    assert parse_interval_set(interval_set([9, 1, 2, 4])) == (1, 2, 4, 9)
    with pytest.raises(ScheduleFormatError, match="'3-1'"):
        parse_interval_set("0 3-1")


def test_columns_and_values(tmp_path):
    assert validate(INSTANCE, SCHEDULE).feasible
    out = tmp_path / "out_jobs.csv"
    write_out_jobs(out, INSTANCE, SCHEDULE)
    header = out.read_text().splitlines()[0].split(",")
    assert tuple(header) == OUT_JOBS_COLUMNS
    rows = {row["job_id"]: row for row in read_rows(out)}
    first, second, third = rows["1"], rows["2"], rows["3"]
    assert first["workload_name"] == "w0"
    assert (float(first["starting_time"]), float(first["finish_time"]),
            float(first["execution_time"]), float(first["waiting_time"])) == (
        0.0, 5.0, 5.0, 0.0)
    assert first["allocated_resources"] == "0-1"
    assert first["requested_time"] == "10.0" and third["requested_time"] == "-1"
    assert (float(third["waiting_time"]), float(third["turnaround_time"]),
            float(third["stretch"])) == (3.0, 5.0, 2.5)   # (7-2)/(7-5)
    assert third["allocated_resources"] == "0-1 3"
    assert second["success"] == "1"
    assert second["final_state"] == "COMPLETED_SUCCESSFULLY"
    assert not list(tmp_path.glob(".*tmp"))  # the temp file was renamed


def test_machines_of_later_partitions_are_offset(tmp_path):
    from opt_sched import Partition

    instance = Instance("two", Platform((Partition(2), Partition(3))), (
        Job("a", 2, (1.0,), (0.0,)), Job("b", 2, (1.0,), (0.0,))))
    schedule = Schedule((JobSchedule("a", 0, (0.0,), (1.0,), machines=(0, 1)),
                         JobSchedule("b", 1, (0.0,), (1.0,), machines=(0, 2))))
    out = tmp_path / "out.csv"
    write_out_jobs(out, instance, schedule, workload_name="x")
    rows = read_rows(out)
    assert [row["allocated_resources"] for row in rows] == ["0-1", "2 4"]
    assert [row["workload_name"] for row in rows] == ["x", "x"]
    no_machines = Schedule((JobSchedule("a", 0, (0.0,), (1.0,)),
                            JobSchedule("b", 1, (0.0,), (1.0,))))
    write_out_jobs(out, instance, no_machines)
    assert [row["allocated_resources"] for row in read_rows(out)] == ["", ""]


def test_killed_job_row(tmp_path):
    killed = Schedule((
        JobSchedule("w0!1", 0, (0.0,), (3.0,), machines=(0, 1), killed_at=4.0),
        *SCHEDULE.jobs[1:]))
    out = tmp_path / "out_jobs.csv"
    write_out_jobs(out, INSTANCE, killed)
    row = read_rows(out)[0]
    assert row["success"] == "0"
    assert row["final_state"] == "COMPLETED_WALLTIME_REACHED"
    assert float(row["finish_time"]) == 4.0


def test_bad_path_and_schedule(tmp_path):
    with pytest.raises(OutputError, match="does not exist"):
        write_out_jobs(tmp_path / "no" / "out.csv", INSTANCE, SCHEDULE)
    with pytest.raises(OutputError, match="is a folder"):
        write_out_jobs(tmp_path, INSTANCE, SCHEDULE)
    short = Schedule(SCHEDULE.jobs[:2])
    with pytest.raises(ScheduleFormatError, match="'w0!3' is missing"):
        write_out_jobs(tmp_path / "out.csv", INSTANCE, short)
    assert not (tmp_path / "out.csv").exists()


def test_compare_tool_reads_ours(tmp_path):
    ours = tmp_path / "ours.csv"
    write_out_jobs(ours, INSTANCE, SCHEDULE)
    same = run_compare(ours, ours, "--machines")
    assert same.returncode == 0, same.stderr
    assert same.stdout.strip() == "starts 3/3, machines 3/3"
    perturbed = tmp_path / "perturbed.csv"
    lines = ours.read_text().splitlines()
    cells = lines[3].split(",")
    start = OUT_JOBS_COLUMNS.index("starting_time")
    cells[start] = repr(float(cells[start]) + 1e-3)
    lines[3] = ",".join(cells)
    perturbed.write_text("\n".join(lines) + "\n")
    diff = run_compare(ours, perturbed)
    assert diff.returncode == 1
    assert diff.stdout.strip() == "starts 2/3"


def test_batsim_reference_round_trip(tmp_path):
    """Batsim's own EASY schedule of medium_late, read into our Schedule and
    written back, is what compare_out_jobs.py expects: 801/801 starts and
    machines; the validator accepts it."""
    folder = shared_data_dir() / "batsim-medium_late"
    trace, _ = read_batsim(folder / "workload.json", folder / "platform.xml")
    instance = trace_to_instance(trace, "none")
    reference = folder / "easy" / "out_jobs.csv"
    jobs = []
    for row in read_rows(reference):
        job = instance.job(row["job_id"])
        start = float(row["starting_time"])
        jobs.append(JobSchedule(job.id, 0, (start,), (start + job.compute[0],),
                                machines=parse_interval_set(
                                    row["allocated_resources"])))
    schedule = Schedule(tuple(jobs), method="batsim-easy")
    # out_jobs.csv prints 6 decimals: a start can read 2e-8 s before its
    # submit time (job 1: 4.709164 against 4.709164021)
    assert not validate(instance, schedule).feasible
    assert validate(instance, schedule, resolution=1e-6).feasible
    ours = tmp_path / "out_jobs.csv"
    write_out_jobs(ours, instance, schedule, trace)
    result = run_compare(ours, reference, "--machines")
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "starts 801/801, machines 801/801"
    rows = {row["job_id"]: row for row in read_rows(ours)}
    assert rows["424242"]["profile"] == "delay_ft.B.1"
    for ref in read_rows(reference):
        mine = rows[ref["job_id"]]
        for column in ("finish_time", "waiting_time", "execution_time",
                       "turnaround_time", "stretch"):
            assert float(mine[column]) == pytest.approx(float(ref[column]),
                                                        abs=2e-6), column
