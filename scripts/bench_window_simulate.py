"""How fast the window brackets' event simulation (the schedule side's list
policies, :func:`opt_sched.exact.hpc_io.earliest.simulate`) runs on
KTH-SP2 windows, from 40 jobs to a thousand queued (FCFS), and whether
another checkout gives the same schedules.

    python scripts/bench_window_simulate.py [--before OTHER_CHECKOUT]
        [--windows conservative:11968 conservative:19352 fcfs:6572]

Per window: the seconds per simulation of the online schedule's left shift
(its I/O order given) and of the SPT order in each mode and I/O rule, the
best of ``--rounds``. With ``--before`` (another checkout of the
repository, run with ``PYTHONPATH`` pointing at it: before and after in one
sitting) the same simulations there, their ratio, and whether every
schedule is the same (a digest of the simulated times; the I/O rules that
the other checkout lacks are left out). Prints the load average.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WINDOWS = ("conservative:11968", "conservative:19352", "conservative:12252",
           "fcfs:6572")


def measure(windows: list[str], rounds: int) -> dict[str, dict[str, list]]:
    """``{window: {case: [seconds, digest]}}`` in this process's checkout."""
    from opt_sched.exact.hpc_io import earliest
    from opt_sched.experiments.window_instance import extract_window
    from opt_sched.experiments.window_task import replayed_trace

    out: dict[str, dict[str, list]] = {}
    for item in windows:
        scheduler, start = item.split(":")
        instance, schedule = replayed_trace("kth-sp2", "darshan-cori", 0.5, 0,
                                            scheduler)
        window = extract_window(instance, schedule, int(start), 40)
        jobs = window.instance.jobs
        plans = earliest.plans_of(window.instance)
        nodes = window.instance.platform.partitions[0].nodes
        online = window.schedule
        order, io_order = earliest.orders_of(
            [online[job.id].start for job in jobs],
            [[online[job.id].io_starts[k] for k, v in enumerate(job.io_volume) if v > 0]
             for job in jobs])
        bandwidth = window.instance.platform.partitions[0].bandwidth
        spt = sorted(range(len(plans)), key=lambda i: (jobs[i].length(bandwidth), i))
        cases = {"left-shift": (order, {"io_order": io_order})}
        for mode in earliest.MODES:
            for rule in earliest.IO_RULES:
                cases[f"spt-{mode}-{rule}"] = (spt, {"mode": mode, "io_rule": rule})
        row = {}
        for case, (ranked, kwargs) in cases.items():
            best = float("inf")
            for _ in range(rounds):
                began = time.perf_counter()
                timing = earliest.simulate(plans, nodes, window.reservations, ranked,
                                           **kwargs)
                best = min(best, time.perf_counter() - began)
            digest = hashlib.sha256(repr(
                None if timing is None else (timing.start, timing.op_start,
                                             timing.completion)).encode()).hexdigest()
            row[case] = [best, digest[:16]]
        out[f"{item} ({len(plans)} jobs)"] = row
    return out


def _child(checkout: Path, windows: list[str], rounds: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    done = subprocess.run([sys.executable, __file__, "--child", "--rounds", str(rounds),
                           "--windows", *windows], env=env, capture_output=True,
                          text=True)
    if done.returncode != 0:
        sys.exit(f"{checkout}: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--windows", nargs="+", default=list(WINDOWS),
                        help="SCHEDULER:START of KTH-SP2 windows of 40 jobs")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--before", type=Path, help="another checkout")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.windows, args.rounds)))
        return 0
    print(f"load average {os.getloadavg()[0]:.2f} (1 min)", file=sys.stderr)
    after = _child(REPO, args.windows, args.rounds)
    before = _child(args.before, args.windows, args.rounds) if args.before else {}
    print("| window | list policies: s each (this / before / ratio) | "
          "left shift: s (this / before / ratio) | same schedules |")
    print("|---|---|---|---|")
    for window, row in after.items():
        then_row = before.get(window, {})
        lists = [c for c in row if c != "left-shift" and (not before or c in then_row)]
        now = sum(row[c][0] for c in lists) / len(lists)
        cells = [f"{now:.3f}", f"{row['left-shift'][0]:.3f}"]
        if before:
            then = sum(then_row[c][0] for c in lists) / len(lists)
            shift = then_row["left-shift"][0]
            cells = [f"{now:.3f} / {then:.3f} / {then / now:.1f}x",
                     f"{row['left-shift'][0]:.3f} / {shift:.3f} / "
                     f"{shift / row['left-shift'][0]:.1f}x"]
            same = all(row[c][1] == then_row[c][1] for c in [*lists, "left-shift"])
            cells.append(f"yes ({len(lists) + 1})" if same else "NO")
        else:
            cells.append("")
        print(f"| {window} | " + " | ".join(cells) + " |")
    print(f"load average {os.getloadavg()[0]:.2f} (1 min)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
