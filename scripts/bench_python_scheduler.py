"""Replay time of a Python scheduler on the building blocks against the
built-in compiled scheduler it mirrors (issue 28's goal: <= 3x).

    python scripts/bench_python_scheduler.py [--trace ../shared/data/swf/KTH-SP2.swf.gz]
        [--repeat 3] [--profile]

Replays the trace (no I/O) with the built-in ``easy`` (the whole replay
in one compiled loop, :mod:`opt_sched.scheduling.fused`), with
``examples/python_easy.py``'s ``PythonEasy``, and with the built-in
``easy`` run through the same per-event engine loop as any Python
scheduler, alternately, ``--repeat`` times each, and prints the best
``replay()`` wall time of each, the ratio of the first two and the load
average (2 cores shared: a loaded machine slows the
Python side more). It also checks that both schedules have the same start
and machines for every job, and validates the Python one.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TRACE = REPO.parent / "shared" / "data" / "swf" / "KTH-SP2.swf.gz"
EXAMPLE = REPO / "examples" / "python_easy.py"


def _python_easy():
    """The ``PythonEasy`` class of ``examples/python_easy.py``."""
    spec = importlib.util.spec_from_file_location("python_easy", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.PythonEasy


class _Stepped:
    """A scheduler forwarding to another one, without its ``fused_spec``:
    the engine then runs it one Python call per event, as it runs any
    Python scheduler (the built-in EASY's own compiled passes, behind its
    Python side)."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.name = inner.name

    def attach(self, jobs, cluster) -> None:
        self.inner.attach(jobs, cluster)

    def submit(self, now: float, job: int) -> None:
        self.inner.submit(now, job)

    def complete(self, now: float, job: int, killed: bool) -> None:
        self.inner.complete(now, job, killed)

    def decide(self, now: float):
        return self.inner.decide(now)

    def next_wakeup(self, now: float) -> float:
        return self.inner.next_wakeup(now)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", type=Path, default=TRACE)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true",
                        help="cProfile one replay of the Python scheduler")
    args = parser.parse_args()
    if not args.trace.is_file():
        raise SystemExit(f"{args.trace} not found; give --trace")

    from opt_sched.scheduling import get_scheduler, replay
    from opt_sched.traces import convert_trace, read_swf
    from opt_sched.validation import assert_feasible

    trace, _ = read_swf(args.trace)
    instance = convert_trace(trace, "none").instance
    python_easy = _python_easy()
    makers = {"built-in easy": lambda: get_scheduler("easy"),
              "python-easy": python_easy,
              "stepped easy": lambda: _Stepped(get_scheduler("easy"))}
    schedules = {name: replay(instance, make()) for name, make in makers.items()}
    best = dict.fromkeys(makers, float("inf"))
    for _ in range(args.repeat):
        for name, make in makers.items():
            t = time.perf_counter()
            schedules[name] = replay(instance, make())
            best[name] = min(best[name], time.perf_counter() - t)
    ours, theirs = schedules["python-easy"], schedules["built-in easy"]
    same = sum(a.start == b.start and a.machines == b.machines
               for a, b in zip(ours.jobs, theirs.jobs))
    assert_feasible(instance, ours)
    n = instance.num_jobs
    print(f"{args.trace.name}: {n} jobs, best of {args.repeat}")
    notes = {"built-in easy": "the whole replay in one compiled loop",
             "python-easy": "examples/python_easy.py, one Python call per event",
             "stepped easy": "the built-in, run one Python call per event too"}
    for name, seconds in best.items():
        print(f"{name:>14}: {seconds:.3f} s ({n / seconds:,.0f} jobs/s; "
              f"{notes[name]})")
    print(f"ratio python / built-in: {best['python-easy'] / best['built-in easy']:.2f} "
          f"(goal <= 3); same starts and machines: {same}/{n}; validated")
    print(f"load average {os.getloadavg()[0]:.1f} (2 cores)")
    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
        replay(instance, python_easy())
        prof.disable()
        pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(20)


if __name__ == "__main__":
    main()
