"""Replay speed and peak memory of the online schedulers on the KTH-SP2
trace, or on a generated Mira workload.

    python scripts/bench_replay.py [--scheduler easy conservative ...]
        [--trace ../shared/data/swf/KTH-SP2.swf.gz | --mira JOBS] [--io-profile none]
        [--alpha 0.5] [--repeat 3] [--process] [--validate] [--profile]
        [--python-easy]

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

``--mira JOBS`` replays instead seed 000's Mira workload of ``JOBS`` jobs
(``opt-sched generate --protocol mira --jobs JOBS``: 49,152 machines, jobs
of 512 to 49,152 of them, BN I/O profile at alpha 0.5). Peak memory (issue
24): every line gives the peak resident set size, of this process after
the replays (``ru_maxrss``: it includes the workload itself) and, with
``--process``, of the ``opt-sched replay`` process. Goal: 100,000 Mira jobs
replayed with EASY under 2 GB (``--mira 100000 --scheduler easy --repeat 1
--process``).
"""

from __future__ import annotations

import time

_T0 = time.perf_counter()

import argparse  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

from opt_sched.json_files import write_instance  # noqa: E402
from opt_sched.scheduling import get_scheduler, replay  # noqa: E402
from opt_sched.traces import convert_trace, read_swf  # noqa: E402
from opt_sched.validation import assert_feasible  # noqa: E402
from opt_sched.workloads.ijhpca2023 import generate_ijhpca2023  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
TRACE = REPO.parent / "shared" / "data" / "swf" / "KTH-SP2.swf.gz"


def _mib(kib: int) -> str:
    """A ``ru_maxrss`` (KiB on Linux) in MiB."""
    return f"{kib / 1024:,.0f} MiB"


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scheduler", nargs="+",
                        default=["fcfs", "easy", "conservative"])
    parser.add_argument("--trace", type=Path, default=TRACE)
    parser.add_argument("--mira", type=int, default=None, metavar="JOBS",
                        help="replay seed 000's Mira workload of JOBS jobs instead")
    parser.add_argument("--io-profile", default="none")
    parser.add_argument("--alpha", type=float, default=None,
                        help="target I/O load of the profile (default: as drawn)")
    parser.add_argument("--execution", default="exclusive")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--process", action="store_true",
                        help="also time the whole opt-sched replay process")
    parser.add_argument("--validate", action="store_true",
                        help="validate every schedule (and pass --validate to the "
                             "process)")
    parser.add_argument("--python-easy", action="store_true",
                        help="also replay examples/python_easy.py (EASY written in "
                             "Python on the building blocks) and print its time "
                             "over the built-in easy's (issue 28's goal: <= 3)")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile one replay of each scheduler")
    return parser.parse_args()


def _load(args: argparse.Namespace):
    """``(instance, what to pass to opt-sched replay)``, with a line saying
    what was loaded."""
    t = time.perf_counter()
    if args.mira is not None:
        instance = generate_ijhpca2023("mira", "bn", 0.5, 0, jobs=args.mira).instance
        phases = sum(v > 0 for j in instance.jobs for v in j.io_volume)
        print(f"mira: {instance.num_jobs:,} jobs, {instance.platform.max_nodes:,} "
              f"nodes, {phases:,} I/O phases; "
              f"generated in {time.perf_counter() - t:.2f} s; peak RSS "
              f"{_mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)}; load "
              f"{os.getloadavg()[0]:.1f}")
        return instance, None
    if not args.trace.is_file():
        raise SystemExit(f"{args.trace} not found; give --trace")
    trace, skips = read_swf(args.trace)
    conversion = convert_trace(trace, args.io_profile, alpha=args.alpha)
    instance = conversion.instance
    print(f"{args.trace.name}: {instance.num_jobs} jobs ({skips.total_skipped} "
          f"skipped), {instance.platform.max_nodes} nodes, profile {args.io_profile}: "
          f"{conversion.num_io_phases:,} I/O phases, alpha "
          f"{instance.io_load():.3f}; read and converted in "
          f"{time.perf_counter() - t:.2f} s; load {os.getloadavg()[0]:.1f}")
    return instance, args.trace


def _process(args: argparse.Namespace, source: Path, name: str) -> str:
    """Run the whole ``opt-sched replay`` process ``--repeat`` times: its
    best wall time (one run is one noisy sample on a shared machine; issue
    25's ratio to the bare loop is ``scripts/bench_replay_ratio.py``) and
    its peak RSS."""
    walls, rss = [], 0
    for _ in range(args.repeat):
        wall, peak = _process_once(args, source, name)
        walls.append(wall)
        rss = max(rss, peak)
    return (f"; whole `opt-sched replay` process {min(walls):.2f} s (best of "
            f"{len(walls)}), peak RSS {_mib(rss)}")


def _process_once(args: argparse.Namespace, source: Path, name: str
                  ) -> tuple[float, int]:
    """One ``opt-sched replay`` process: its wall time and peak RSS."""
    command = [sys.executable, "-m", "opt_sched", "replay", str(source),
               "--scheduler", name, "--execution", args.execution, "--quiet"]
    if args.mira is None:
        command += ["--io-profile", args.io_profile]
        if args.alpha is not None:
            command += ["--alpha", str(args.alpha)]
    if args.validate:
        command.append("--validate")
    t = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t
    error = child.stderr.read() if child.stderr is not None else ""
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(error)
    return wall, usage.ru_maxrss


def main() -> None:
    args = _arguments()
    instance, source = _load(args)
    n = instance.num_jobs
    if args.process:
        from bench_startup import write_bytecode

        print(write_bytecode())
    with tempfile.TemporaryDirectory() as folder:
        if args.process and source is None:
            source = Path(folder) / "mira.json"
            write_instance(instance, source)
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
            line = (f"{name:>14}: {n / best:10,.0f} jobs/s wall, {n / cpu:10,.0f} "
                    f"jobs/s CPU ({best:.3f} s per replay, {cpu:.3f} s CPU)")
            if args.validate:
                t = time.perf_counter()
                assert_feasible(instance, schedule)
                line += f", validated in {time.perf_counter() - t:.2f} s"
            del schedule
            line += (f"; peak RSS so far "
                     f"{_mib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)}")
            if args.process:
                line += _process(args, source, name)
            print(line, flush=True)
        if args.python_easy:
            print(_python_easy_ratio(instance, args), flush=True)
    print(f"load average now {os.getloadavg()[0]:.1f} (2 cores)")


def _best_replay(instance, make, args) -> tuple[float, float, object]:
    """The best wall and the best CPU time of ``--repeat`` replays, and the
    last schedule (CPU time is what a busy machine disturbs least)."""
    best = cpu = float("inf")
    for _ in range(args.repeat):
        t, c = time.perf_counter(), time.process_time()
        schedule = replay(instance, make(), args.execution)
        best = min(best, time.perf_counter() - t)
        cpu = min(cpu, time.process_time() - c)
    return best, cpu, schedule


def _python_easy_ratio(instance, args) -> str:
    """EASY in Python on the building blocks (``examples/python_easy.py``)
    against the built-in ``easy``: the same schedule (every start and
    machine set), validated, and the ratio of the best replay times."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "python_easy", REPO / "examples" / "python_easy.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    replay(instance, module.PythonEasy(), args.execution)  # compile outside the timing
    built_in, built_in_cpu, ours = _best_replay(instance, lambda: get_scheduler("easy"),
                                                args)
    python, python_cpu, theirs = _best_replay(instance, module.PythonEasy, args)
    same = all(a.start == b.start and a.machines == b.machines
               for a, b in zip(ours.jobs, theirs.jobs))
    assert_feasible(instance, theirs)
    return (f"   python-easy: {python:.3f} s per replay against the built-in easy's "
            f"{built_in:.3f} s: {python / built_in:.2f}x (goal <= 3); CPU "
            f"{python_cpu:.3f} s against {built_in_cpu:.3f} s: "
            f"{python_cpu / built_in_cpu:.2f}x; same starts and machines: {same}; "
            f"validated")


if __name__ == "__main__":
    main()
