"""Test helpers of the online schedulers: a minimal Batsim workload loader
and an ``out_jobs.csv`` writer (private to the tests; the traces package
replaces them at merge)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from opt_sched import Instance, Job, Platform
from opt_sched.schedule import Schedule

REPO = Path(__file__).resolve().parents[1]
# ../shared next to the repo (a worktree sits one level deeper)
_CANDIDATES = [p / "shared" / "data" for p in (REPO.parent, REPO.parent.parent)]
SHARED_DATA = next((p for p in _CANDIDATES if p.is_dir()), _CANDIDATES[0])
BATSIM_MEDIUM = SHARED_DATA / "batsim-medium_late"


def load_batsim_workload(path: Path, nodes: int | None = None) -> Instance:
    """One partition of ``nodes`` machines (default: the workload's
    ``nb_res``), bandwidth 1; one compute-only job per Batsim job, its run
    time the ``delay`` of its profile, in the order of the file."""
    data = json.loads(Path(path).read_text())
    profiles = data["profiles"]
    jobs = []
    for job in data["jobs"]:
        delay = float(profiles[job["profile"]]["delay"])
        jobs.append(Job.periodic(str(job["id"]), int(job["res"]), delay, 0.0,
                                 release=float(job["subtime"]),
                                 walltime=float(job["walltime"])))
    size = int(data["nb_res"]) if nodes is None else nodes
    return Instance(Path(path).parent.name, Platform.homogeneous(1, nodes=size),
                    tuple(jobs))


def machine_intervals(machines: tuple[int, ...]) -> str:
    """Batsim's interval format: ``(0, 1, 2, 3, 7)`` -> ``"0-3 7"``."""
    parts = []
    ms = sorted(machines)
    i = 0
    while i < len(ms):
        j = i
        while j + 1 < len(ms) and ms[j + 1] == ms[j] + 1:
            j += 1
        parts.append(str(ms[i]) if i == j else f"{ms[i]}-{ms[j]}")
        i = j + 1
    return " ".join(parts)


def write_out_jobs(instance: Instance, schedule: Schedule, path: Path) -> None:
    """``job_id, submission_time, starting_time, finish_time,
    allocated_resources`` per job."""
    with open(path, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["job_id", "submission_time", "starting_time", "finish_time",
                      "allocated_resources"])
        for job, js in zip(instance.jobs, schedule.jobs):
            out.writerow([job.id, repr(job.release), repr(js.start),
                          repr(schedule.completion(instance, job.id)),
                          machine_intervals(js.machines)])
