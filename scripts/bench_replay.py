"""Replay speed of the online schedulers on the KTH-SP2 trace (no I/O).

    PYTHONPATH=$PWD python scripts/bench_replay.py [--scheduler easy ...]
        [--trace ../shared/data/swf/KTH-SP2.swf.gz] [--nodes 100] [--repeat 3]
        [--profile]

Prints, per scheduler, the jobs replayed per second inside the library
(``replay()`` only, best of ``--repeat``) and the time since the script
started (imports, trace loading and one replay; add the interpreter's start
with ``time``). Goals (2 cores): EASY >= 100,000 jobs/s; a whole
conservative process under 5 s.

The trace is read by a minimal SWF reader (fields 2 submit, 4 run time,
5 allocated processors -- 8 requested if -1 --, 9 requested time; jobs with
run time <= 0 or no processors, or wider than the machine, are skipped).
"""

from __future__ import annotations

import time

_T0 = time.perf_counter()

import argparse  # noqa: E402
import gzip  # noqa: E402
from pathlib import Path  # noqa: E402

from opt_sched import Instance, Job, Platform  # noqa: E402
from opt_sched.scheduling import get_scheduler, replay  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TRACE_CANDIDATES = [p / "shared" / "data" / "swf" / "KTH-SP2.swf.gz"
                    for p in (REPO.parent, REPO.parent.parent)]


def read_swf(path: Path, nodes: int) -> tuple[Instance, int]:
    """The simulable jobs of an SWF trace as compute-only jobs, and how many
    were skipped."""
    opener = gzip.open if str(path).endswith(".gz") else open
    jobs = []
    skipped = 0
    with opener(path, "rt") as f:
        for line in f:
            if not line.strip() or line.lstrip().startswith(";"):
                continue
            fields = line.split()
            run = float(fields[3])
            procs = int(fields[4])
            if procs <= 0:
                procs = int(fields[7])
            if run <= 0 or procs <= 0 or procs > nodes:
                skipped += 1
                continue
            requested = float(fields[8])
            jobs.append(Job(fields[0], procs, (run,), (0.0,),
                            release=float(fields[1]),
                            walltime=requested if requested > 0 else None))
    return Instance(path.name, Platform.homogeneous(1, nodes=nodes),
                    tuple(jobs)), skipped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scheduler", nargs="+",
                        default=["fcfs", "easy", "conservative"])
    parser.add_argument("--trace", type=Path, default=None)
    parser.add_argument("--nodes", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true",
                        help="cProfile one replay of each scheduler")
    args = parser.parse_args()
    trace = args.trace or next((p for p in TRACE_CANDIDATES if p.is_file()), None)
    if trace is None:
        raise SystemExit("KTH-SP2.swf.gz not found; give --trace")
    t = time.perf_counter()
    instance, skipped = read_swf(trace, args.nodes)
    n = len(instance.jobs)
    print(f"{trace.name}: {n} jobs ({skipped} skipped), {args.nodes} nodes, "
          f"read in {time.perf_counter() - t:.2f} s")
    for name in args.scheduler:
        if args.profile:
            import cProfile
            import pstats

            prof = cProfile.Profile()
            prof.enable()
            replay(instance, get_scheduler(name))
            prof.disable()
            pstats.Stats(prof).sort_stats("tottime").print_stats(15)
        best = cpu = float("inf")
        for _ in range(args.repeat):
            t, c = time.perf_counter(), time.process_time()
            schedule = replay(instance, get_scheduler(name))
            best = min(best, time.perf_counter() - t)
            cpu = min(cpu, time.process_time() - c)
        assert len(schedule.jobs) == n
        print(f"{name:>14}: {n / best:10,.0f} jobs/s wall, {n / cpu:10,.0f} jobs/s CPU "
              f"({best:.3f} s per replay, {cpu:.3f} s CPU; "
              f"{time.perf_counter() - _T0:.2f} s since the script started)")


if __name__ == "__main__":
    main()
