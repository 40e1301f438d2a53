"""Benchmark trace loading: KTH-SP2 -> Instance, per I/O profile.

Prints the best of ``--repeat`` runs of each step on
``../shared/data/swf/KTH-SP2.swf.gz`` (28,481 jobs, 100 processors):
reading the SWF file, and converting the trace into an ``Instance`` with the
profiles ``none``, ``bn`` (alpha 0.5) and ``darshan-cori`` (alpha 0.5), with
the number of phases built. The Darshan CSV is read once (cached) before the
timed runs; its first load is printed apart. For comparison it also times the
checked ``Job`` constructor on the ``none`` jobs (what the fast path avoids).

Run ``python scripts/bench_traces.py [--repeat 5] [--data ../shared/data]``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from opt_sched import Instance, Job, Platform
from opt_sched.traces import convert_trace, read_swf
from opt_sched.traces.profiles.darshan import load_darshan


def best(repeat: int, step):
    times = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = step()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", type=Path,
                        default=Path(__file__).resolve().parents[1].parent / "shared"
                        / "data")
    args = parser.parse_args()
    path = args.data / "swf" / "KTH-SP2.swf.gz"
    seconds, (trace, summary) = best(args.repeat, lambda: read_swf(path))
    print(summary.format())
    print(f"read_swf                {seconds:7.3f} s  ({len(trace)} jobs)")
    start = time.perf_counter()
    load_darshan("cori", args.data / "darshan")
    print(f"darshan-cori first load {time.perf_counter() - start:7.3f} s  (cached "
          f"afterwards)")
    options = {"data_dir": str(args.data / "darshan")}
    for profile, alpha, extra in (("none", None, {}), ("bn", 0.5, {}),
                                  ("darshan-cori", 0.5, options)):
        seconds, conversion = best(args.repeat, lambda p=profile, a=alpha, o=extra:
                                   convert_trace(trace, p, seed=0, alpha=a,
                                                 profile_options=o))
        phases = conversion.instance.num_io_phases
        print(f"to instance {profile:<12}{seconds:7.3f} s  ({phases} iterations, "
              f"{conversion.num_io_phases} with I/O; {conversion.describe()})")
    plain = convert_trace(trace, "none").instance

    def checked() -> Instance:
        jobs = tuple(Job(j.id, j.nodes, j.compute, j.io_volume, release=j.release,
                         walltime=j.walltime, user=j.user, group=j.group)
                     for j in plain.jobs)
        return Instance(plain.name, Platform.homogeneous(1, 100), jobs)

    seconds, _ = best(min(args.repeat, 2), checked)
    print(f"checked Job() path none {seconds:7.3f} s  (for comparison)")


if __name__ == "__main__":
    main()
