#!/usr/bin/env python
"""The mean-flow-time lower bounds of a window, each with its time (issue 27).

    python scripts/measure_window_bounds.py [--trace ../shared/data/swf/KTH-SP2.swf.gz]
        [--windows 2474:40 4097:40 7343:40 8154:40 8966:40] [--scheduler easy]
        [--alpha 0.5] [--seed 0] [--lp-seconds 10] [--search-seconds 5]
        [--no-counts] [--reference reports.json] [--json out.json]

Builds the windows as ``scripts/window_gaps.py`` does (the trace with
``darshan-cori`` I/O at ``--alpha``, replayed under exclusive I/O,
:func:`opt_sched.experiments.window_instance.extract_window` in ``state``
mode) and computes, on each, every mean-flow-time bound the window bracket
uses except CP-SAT's: the combinatorial ones of
:func:`opt_sched.bounds_flow.flow_bounds`, ``split-srpt``,
``exclusive-srpt``, ``beside-knapsack`` (:mod:`opt_sched.bounds_window`) and
``interval-lp`` (:mod:`opt_sched.bounds_window_lp`, ``--lp-seconds``, its
completion intervals up to the makespan of the best heuristic schedule,
found in ``--search-seconds``, as the bracket does with its incumbent).

Prints one row per window: the online value, the heuristic schedule's value
(an upper side), each bound and its seconds, and the best. With
``--reference`` (a ``window_gaps.py --json`` file), also the bracket's
``best_found`` and ``lower_bound`` of that run for the same window.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from window_gaps import TRACE, parse_window  # this folder, on sys.path when run

WINDOWS = ("2474:40", "4097:40", "7343:40", "8154:40", "8966:40")


def _reference(path: str | None) -> dict[tuple[int, int], dict]:
    """``(start, count) -> mean-flow-time item`` of a ``window_gaps.py``
    report file (the first scheduler's)."""
    if path is None:
        return {}
    out: dict[tuple[int, int], dict] = {}
    for report in json.loads(Path(path).read_text()):
        key = (report["window"]["start"], report["window"]["count"])
        item = report["objectives"].get("mean-flow-time")
        if item is not None and key not in out:
            out[key] = item
    return out


def measure(window, *, lp_seconds: float, search_seconds: float,
            counts: bool) -> dict:
    """Every bound of ``window`` (name -> value) with its seconds, the
    online value and the heuristic schedule's."""
    from opt_sched.bounds_flow import flow_bounds
    from opt_sched.bounds_window import (
        beside_mean_flow_bound,
        exclusive_mean_flow_bound,
        split_mean_flow_bound,
    )
    from opt_sched.bounds_window_lp import interval_lp_mean_flow_bound
    from opt_sched.experiments.window_schedules import best_heuristic
    from opt_sched.objectives import objective_value

    instance, res = window.instance, window.reservations
    objective = "mean-flow-time"
    online = objective_value(instance, window.schedule, objective)
    started = time.perf_counter()
    heuristic = best_heuristic(window, objective, search_seconds=search_seconds)
    window.validate(heuristic.schedule)
    upper = objective_value(instance, heuristic.schedule, objective)
    horizon = max(heuristic.schedule[job.id].completion(job, instance.bandwidth_of(job))
                  for job in instance.jobs)
    search = time.perf_counter() - started
    calls = {
        "flow": lambda: flow_bounds(instance, objective, reservations=res),
        "split": lambda: split_mean_flow_bound(instance, reservations=res),
        "exclusive": lambda: exclusive_mean_flow_bound(instance, reservations=res),
        "beside": lambda: beside_mean_flow_bound(instance, reservations=res),
        "lp": lambda: interval_lp_mean_flow_bound(
            instance, reservations=res, horizon=horizon, time_limit=lp_seconds,
            counts=counts),
    }
    bounds: dict[str, float] = {}
    seconds: dict[str, float] = {}
    for call in calls.values():
        started = time.perf_counter()
        found = call()
        took = time.perf_counter() - started
        for key, value in found.items():
            bounds[key] = float(value)
            seconds[key] = took
    best = max(bounds, key=bounds.__getitem__)
    return {"online": online, "heuristic": upper, "heuristic_seconds": search,
            "bounds": bounds, "seconds": seconds, "best": best,
            "bound": bounds[best], "queued_at_t0": window.info.get("queued_at_t0")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default=str(TRACE))
    parser.add_argument("--windows", nargs="+", type=parse_window,
                        default=[parse_window(w) for w in WINDOWS])
    parser.add_argument("--scheduler", default="easy")
    parser.add_argument("--alpha", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--lp-seconds", type=float, default=10.0)
    parser.add_argument("--search-seconds", type=float, default=5.0)
    parser.add_argument("--no-counts", action="store_true",
                        help="the interval LP without its count rows")
    parser.add_argument("--reference", default=None,
                        help="a window_gaps.py --json file to compare with")
    parser.add_argument("--json", default=None, help="write the measures here")
    args = parser.parse_args()

    from opt_sched.experiments.window_instance import extract_window
    from opt_sched.scheduling import replay
    from opt_sched.traces import convert_trace, read_swf

    if not Path(args.trace).is_file():
        print(f"{args.trace}: no such file", file=sys.stderr)
        return 2
    trace, _ = read_swf(args.trace)
    instance = convert_trace(trace, "darshan-cori", seed=args.seed,
                             alpha=args.alpha).instance
    schedule = replay(instance, args.scheduler)
    reference = _reference(args.reference)
    print("| window | queued | online | heuristic | best bound (by) | interval-lp (s) "
          "| beside-knapsack (s) | wide-srpt | ref best_found | ref bound |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    out = []
    for start, count in args.windows:
        window = extract_window(instance, schedule, start, count)
        found = measure(window, lp_seconds=args.lp_seconds,
                        search_seconds=args.search_seconds,
                        counts=not args.no_counts)
        found["window"] = f"{start}:{count}"
        out.append(found)
        ref = reference.get((start, count), {})
        b, s = found["bounds"], found["seconds"]

        def cell(name: str, b=b, s=s) -> str:
            return "n/a" if name not in b else f"{b[name]:.0f} ({s[name]:.1f})"

        print(f"| {start}:{count} | {found['queued_at_t0']} | {found['online']:.0f} | "
              f"{found['heuristic']:.0f} | {found['bound']:.0f} ({found['best']}) | "
              f"{cell('interval-lp')} | {cell('beside-knapsack')} | "
              f"{b.get('wide-srpt', float('nan')):.0f} | "
              f"{ref.get('best_found', float('nan')):.0f} | "
              f"{ref.get('lower_bound', float('nan')):.0f} |", flush=True)
    if args.json:
        from opt_sched.files import atomic_write_text

        atomic_write_text(args.json, json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
