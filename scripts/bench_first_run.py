"""The first replay after an install: numba compiling on the first call
against the kernels compiled ahead (``opt-sched kernels --compile``), and
numba's optimisation levels (issue 25).

    python scripts/bench_first_run.py [--trace ../shared/data/swf/KTH-SP2.swf.gz]
        [--io-profile darshan-cori] [--scheduler easy]
        [--strategies cold ahead opt1]

Each strategy starts from an empty numba cache (a fresh ``NUMBA_CACHE_DIR``)
and times whole ``opt-sched`` processes (wall, and CPU):

- ``cold``: ``opt-sched replay`` compiles the kernels on their first call;
- ``ahead``: ``opt-sched kernels --compile`` (once, after the install), then
  the first ``opt-sched replay``;
- ``opt1``: like ``cold`` with ``NUMBA_OPT=1`` (numba's default is 3), then
  a second replay from that cache (the price of the cheaper compile);
- ``python``: the kernels as Python (``OPT_SCHED_KERNELS=python``), no
  compiling at all.

Goal: the first replay of KTH-SP2 with ``darshan-cori`` and of Batsim
medium_late at most 10 s on 2 cores. The machine is shared: the load
average is printed before each run.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TRACE = REPO.parent / "shared" / "data" / "swf" / "KTH-SP2.swf.gz"
STRATEGIES = ("cold", "ahead", "opt1", "python")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one ``opt-sched`` process
    (its output is discarded; a failure stops the benchmark). The CPU time
    is the figure a busy machine disturbs least."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "opt_sched", *command], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _replay(args: argparse.Namespace, out: Path) -> list[str]:
    command = ["replay", str(args.trace), "--scheduler", args.scheduler,
               "--io-profile", args.io_profile, "--out", str(out), "--quiet"]
    if args.platform:
        command += ["--platform", str(args.platform)]
    return command


def run_strategy(name: str, args: argparse.Namespace
                 ) -> list[tuple[str, tuple[float, float]]]:
    """The timed steps of one strategy, each from the same fresh cache."""
    with tempfile.TemporaryDirectory(prefix="bench-first-run-") as folder:
        env = {**os.environ, "NUMBA_CACHE_DIR": str(Path(folder) / "cache")}
        env.pop("OPT_SCHED_KERNELS", None)
        replay = _replay(args, Path(folder) / "out_jobs.csv")
        if name == "cold":
            return [("first replay", _timed(replay, env))]
        if name == "ahead":
            compiled = _timed(["kernels", "--compile"], env)
            return [("kernels --compile", compiled),
                    ("first replay", _timed(replay, env))]
        if name == "opt1":
            env["NUMBA_OPT"] = "1"
            return [("first replay", _timed(replay, env)),
                    ("second replay", _timed(replay, env))]
        env["OPT_SCHED_KERNELS"] = "python"
        return [("first replay", _timed(replay, env))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", type=Path, default=TRACE)
    parser.add_argument("--platform", type=Path, default=None,
                        help="a Batsim platform, for a Batsim workload")
    parser.add_argument("--io-profile", default="darshan-cori")
    parser.add_argument("--scheduler", default="easy")
    parser.add_argument("--strategies", nargs="+", choices=STRATEGIES,
                        default=["cold", "ahead"])
    args = parser.parse_args()
    if not args.trace.exists():
        sys.exit(f"no trace at {args.trace}: put ../shared beside the checkout")
    print(f"{args.trace.name}, {args.scheduler}, I/O {args.io_profile}")
    for name in args.strategies:
        load = _load()
        steps = run_strategy(name, args)
        shown = ", ".join(f"{step} {wall:.1f} s (CPU {cpu:.1f} s)"
                          for step, (wall, cpu) in steps)
        print(f"  {name:<7} {shown}   (load before: {load})", flush=True)


if __name__ == "__main__":
    main()
