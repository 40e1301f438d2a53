"""Replay speed of the online schedulers on the KTH-SP2 trace.

    python scripts/bench_replay.py [--scheduler easy conservative ...]
        [--trace ../shared/data/swf/KTH-SP2.swf.gz] [--io-profile none]
        [--alpha 0.5] [--repeat 3] [--process] [--profile]

Prints, per scheduler, the jobs replayed per second inside the library
(``replay()`` only, best of ``--repeat``; wall and CPU), the I/O phases
simulated, and with ``--process`` the wall time of the whole ``opt-sched
replay TRACE --scheduler S`` process (interpreter start, imports, trace
reading, conversion, replay, output). Goals (2 cores): EASY without I/O at
>= 100,000 jobs/s in the library and the whole process under 3 s;
conservative's process under 5 s; EASY with ``--io-profile darshan-cori``
over the whole trace under 10 s.

The trace is read by :func:`opt_sched.traces.read_swf` and converted by
:func:`opt_sched.traces.convert_trace` (``instances/traces.md``).
"""

from __future__ import annotations

import time

_T0 = time.perf_counter()

import argparse  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from opt_sched.scheduling import get_scheduler, replay  # noqa: E402
from opt_sched.traces import convert_trace, read_swf  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TRACE = REPO.parent / "shared" / "data" / "swf" / "KTH-SP2.swf.gz"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scheduler", nargs="+",
                        default=["fcfs", "easy", "conservative"])
    parser.add_argument("--trace", type=Path, default=TRACE)
    parser.add_argument("--io-profile", default="none")
    parser.add_argument("--alpha", type=float, default=None,
                        help="target I/O load of the profile (default: as drawn)")
    parser.add_argument("--execution", default="exclusive")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--process", action="store_true",
                        help="also time the whole opt-sched replay process")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile one replay of each scheduler")
    args = parser.parse_args()
    if not args.trace.is_file():
        raise SystemExit(f"{args.trace} not found; give --trace")
    t = time.perf_counter()
    trace, skips = read_swf(args.trace)
    conversion = convert_trace(trace, args.io_profile, alpha=args.alpha)
    instance = conversion.instance
    n = instance.num_jobs
    print(f"{args.trace.name}: {n} jobs ({skips.total_skipped} skipped), "
          f"{instance.platform.max_nodes} nodes, profile {args.io_profile}: "
          f"{conversion.num_io_phases:,} I/O phases, alpha "
          f"{instance.io_load():.3f}; read and converted in "
          f"{time.perf_counter() - t:.2f} s; load {os.getloadavg()[0]:.1f}")
    for name in args.scheduler:
        if args.profile:
            import cProfile
            import pstats

            prof = cProfile.Profile()
            prof.enable()
            replay(instance, get_scheduler(name), args.execution)
            prof.disable()
            pstats.Stats(prof).sort_stats("tottime").print_stats(15)
        best = cpu = float("inf")
        for _ in range(args.repeat):
            t, c = time.perf_counter(), time.process_time()
            schedule = replay(instance, get_scheduler(name), args.execution)
            best = min(best, time.perf_counter() - t)
            cpu = min(cpu, time.process_time() - c)
        assert len(schedule.jobs) == n
        line = (f"{name:>14}: {n / best:10,.0f} jobs/s wall, {n / cpu:10,.0f} jobs/s "
                f"CPU ({best:.3f} s per replay, {cpu:.3f} s CPU)")
        if args.process:
            command = [sys.executable, "-m", "opt_sched", "replay", str(args.trace),
                       "--scheduler", name, "--io-profile", args.io_profile,
                       "--execution", args.execution, "--quiet"]
            if args.alpha is not None:
                command += ["--alpha", str(args.alpha)]
            t = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True)
            wall = time.perf_counter() - t
            if done.returncode != 0:
                raise SystemExit(done.stderr)
            line += f"; whole `opt-sched replay` process {wall:.2f} s"
        print(line)
    print(f"load average now {os.getloadavg()[0]:.1f} (2 cores)")


if __name__ == "__main__":
    main()
