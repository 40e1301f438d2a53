"""The yardstick of issue 25's replay goal: a bare pure-Python, count-based
EASY loop over an SWF trace, in its own process.

    python scripts/bench_bare_easy.py [--trace ../shared/data/swf/KTH-SP2.swf.gz]

It reads the trace with nothing but the standard library, keeps the jobs
with a positive run time and processor count that fit the machine
(``MaxProcs`` of the header), and replays EASY backfilling on node *counts*
(no machine identities, no I/O, no validation, no output): the head of the
queue gets a reservation at the earliest time enough nodes are free by the
running jobs' requested times; a later job starts now if it fits and ends
by then, or uses only the nodes the head leaves spare. It prints the jobs
replayed, the makespan and the wall time of the whole process, the figure
``opt-sched replay TRACE --scheduler easy`` is compared with
(``scripts/bench_replay.py --process``; goal: within 4x).
"""

from __future__ import annotations

import time

_T0 = time.perf_counter()

import argparse  # noqa: E402
import gzip  # noqa: E402
import heapq  # noqa: E402
import os  # noqa: E402
from pathlib import Path  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TRACE = REPO.parent / "shared" / "data" / "swf" / "KTH-SP2.swf.gz"


def read_jobs(path: Path) -> tuple[int, list[tuple[float, float, float, int]]]:
    """``(machine size, [(submit, run, requested, procs)])`` in submit order."""
    opener = gzip.open if path.suffix == ".gz" else open
    size = 0
    jobs = []
    with opener(path, "rt") as handle:
        for line in handle:
            if line.startswith(";"):
                if "MaxProcs:" in line:
                    size = int(line.split(":", 1)[1])
                continue
            f = line.split()
            if len(f) < 18:
                continue
            run, procs, req = float(f[3]), int(f[4]), float(f[8])
            if procs <= 0:
                procs = int(f[7])
            if run <= 0 or procs <= 0 or procs > size:
                continue
            jobs.append((float(f[1]), run, req if req > 0 else run, procs))
    jobs.sort(key=lambda j: j[0])
    return size, jobs


def easy(size: int, jobs: list[tuple[float, float, float, int]]) -> float:
    """EASY backfilling on node counts; returns the makespan."""
    free = size
    queue: list[int] = []
    ends: list[tuple[float, int]] = []  # (actual end, job)
    running: dict[int, float] = {}  # job -> estimated end
    nxt, n, now, makespan = 0, len(jobs), 0.0, 0.0
    while nxt < n or queue or ends:
        t_arr = jobs[nxt][0] if nxt < n else float("inf")
        t_end = ends[0][0] if ends else float("inf")
        now = min(t_arr, t_end)
        while ends and ends[0][0] <= now:
            _, j = heapq.heappop(ends)
            free += jobs[j][3]
            del running[j]
        while nxt < n and jobs[nxt][0] <= now:
            queue.append(nxt)
            nxt += 1
        while queue and jobs[queue[0]][3] <= free:  # FCFS starts
            j = queue.pop(0)
            free -= jobs[j][3]
            heapq.heappush(ends, (now + jobs[j][1], j))
            running[j] = now + jobs[j][2]
            makespan = max(makespan, now + jobs[j][1])
        if not queue:
            continue
        need, avail, shadow = jobs[queue[0]][3], free, now
        for est, j in sorted((e, j) for j, e in running.items()):
            avail += jobs[j][3]
            if avail >= need:
                shadow = max(est, now)
                break
        extra = avail - need
        kept = [queue[0]]
        for j in queue[1:]:
            q = jobs[j][3]
            if q <= free and (now + jobs[j][2] <= shadow or q <= extra):
                free -= q
                if now + jobs[j][2] > shadow:
                    extra -= q
                heapq.heappush(ends, (now + jobs[j][1], j))
                running[j] = now + jobs[j][2]
                makespan = max(makespan, now + jobs[j][1])
            else:
                kept.append(j)
        queue = kept
    return makespan


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", type=Path, default=TRACE)
    args = parser.parse_args()
    size, jobs = read_jobs(args.trace)
    makespan = easy(size, jobs)
    wall = time.perf_counter() - _T0
    print(f"{len(jobs)} jobs on {size} nodes, makespan {makespan:,.0f} s; "
          f"whole process {wall:.2f} s (load average "
          f"{os.getloadavg()[0]:.2f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
