"""Which side of a window's mean-flow-time bracket is weak (issue 27)?

    python scripts/diagnose_window_flow.py --part schedule --windows 2474 19514
    python scripts/diagnose_window_flow.py --part bound --windows 2474 --long 240

Builds each KTH-SP2 window as the ``window-gap`` campaign task does
(:mod:`opt_sched.experiments.window_task`: ``darshan-cori`` at ``--alpha``,
EASY, state mode, ``--count`` jobs) and measures, at the real budget and at
``--long`` seconds, one side of the mean-flow-time bracket:

- ``schedule``: the heuristic search (:func:`~opt_sched.experiments.
  window_schedules.best_heuristic`) and CP-SAT's guided search
  (:func:`~opt_sched.exact.hpc_io.reserved_search.reserved_search`, hinted
  with the heuristic's schedule); every schedule validated with the
  reservations;
- ``bound``: the interval LP (:mod:`opt_sched.bounds_window_lp`, also with
  twice the intervals) and CP-SAT's bound on the rounded-down model
  (:func:`opt_sched.exact.solve`, ``search_share=0``).

CP-SAT runs on ``--workers`` (default 1) workers. One JSON line per
measurement (value and seconds), on stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

OBJECTIVE = "mean-flow-time"


def _window(start: int, count: int, alpha: float, seed: int, scheduler: str):
    from opt_sched.experiments.window_instance import extract_window
    from opt_sched.experiments.window_task import replayed_trace

    instance, schedule = replayed_trace("kth-sp2", "darshan-cori", alpha, seed,
                                        scheduler)
    window = extract_window(instance, schedule, start, count, mode="state")
    window.validate()
    return window


def _emit(**fields) -> None:
    print(json.dumps(fields, default=str), flush=True)


def schedule_side(window, start: int, short: float, long: float, workers: int) -> None:
    """The heuristic at ``0.4 short`` and ``long`` seconds; CP-SAT's guided
    search from the heuristic's schedule at ``short`` and ``long``."""
    from opt_sched.exact.hpc_io.reserved_search import reserved_search
    from opt_sched.experiments.window_schedules import best_heuristic
    from opt_sched.objectives import objective_value

    online = objective_value(window.instance, window.schedule, OBJECTIVE)
    _emit(start=start, side="online", value=online)
    best = None
    for seconds in (min(12.0, 0.4 * short), long):
        began = time.perf_counter()
        found = best_heuristic(window, OBJECTIVE, search_seconds=seconds)
        window.validate(found.schedule)
        _emit(start=start, side="heuristic", budget=seconds, value=found.value,
              name=found.name, seconds=time.perf_counter() - began)
        if best is None:
            best = found
    for seconds in (short, long):
        began = time.perf_counter()
        search = reserved_search(window.instance, window.reservations, OBJECTIVE,
                                 best.schedule, time_limit=seconds,
                                 num_workers=workers)
        value = None
        if search.schedule is not None:
            window.validate(search.schedule)
            value = objective_value(window.instance, search.schedule, OBJECTIVE)
        _emit(start=start, side="cpsat-search", budget=seconds, value=value,
              status=search.info.get("status"), seconds=time.perf_counter() - began)


def bound_side(window, start: int, short: float, long: float, workers: int) -> None:
    """The interval LP at ``short / 2`` and ``long`` seconds (and with twice
    the intervals at ``long``); CP-SAT's bound at ``short`` and ``long``."""
    from opt_sched import bounds_window_lp
    from opt_sched.exact import solve

    instance, res = window.instance, window.reservations
    horizon = max(window.schedule[job.id].completion(job, instance.bandwidth_of(job))
                  for job in instance.jobs)
    default = bounds_window_lp._INTERVALS
    for seconds, intervals in ((short / 2, default), (long, default),
                               (long, 2 * default)):
        began = time.perf_counter()
        out = bounds_window_lp.interval_lp_mean_flow_bound(
            instance, reservations=res, horizon=horizon, time_limit=seconds,
            intervals=intervals, refine=False)
        _emit(start=start, side="interval-lp", budget=seconds, intervals=intervals,
              value=out.get("interval-lp"), seconds=time.perf_counter() - began)
    for seconds in (short, long):
        began = time.perf_counter()
        result = solve(instance, "hpc-io-reserved", OBJECTIVE, "cpsat",
                       time_limit=seconds, num_workers=workers, reserved=window,
                       search_share=0.0, incumbent=window.schedule)
        _emit(start=start, side="cpsat-bound", budget=seconds,
              value=result.info.get("reserved_bound"),
              closed=result.info.get("closed"), seconds=time.perf_counter() - began)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("schedule", "bound"), required=True)
    parser.add_argument("--windows", nargs="+", type=int,
                        default=[2474, 19514, 27629, 8154])
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--alpha", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scheduler", default="easy")
    parser.add_argument("--short", type=float, default=15.0,
                        help="the real budget of one side (half of 30 s)")
    parser.add_argument("--long", type=float, default=150.0)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    side = schedule_side if args.part == "schedule" else bound_side
    for start in args.windows:
        window = _window(start, args.count, args.alpha, args.seed, args.scheduler)
        side(window, start, args.short, args.long, args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
