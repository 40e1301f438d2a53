"""Scale of the seed 002 simulation: a 5-day Edison-sized run with
workflows, WoAS and multifactor priority, on one core (issue 15, item 6).

    python scripts/bench_nersc.py [--scheduler conservative easy]
        [--workflows cybershake sipht montage widelong floodplain longwide]
        [--share 0.02] [--mode woas] [--nodes 5576] [--days 5] [--seed 0]
        [--profile]

The run is what one ``workflow-share`` campaign task does, with every
workflow of ``--workflows`` at ``--share`` of the submitted core-hours each:

1. generate the NERSC-model (Edison) workload: fill to a 4 h wait, 1 day
   of stabilisation, ``--days`` measured (:func:`opt_sched.workloads.nersc.
   generate_workload`);
2. add the workflows in ``--mode`` (:func:`opt_sched.workflows.
   build_workflow_workload`);
3. replay with ``--scheduler`` over Slurm's multifactor priority (age and
   size, ScSF's Edison weights), wrapped by WoAS in ``woas`` mode, with
   Slurm's backfilling limits (``bf_depth`` 50, ``bf_interval`` 30 s);
4. validate the schedule (:func:`opt_sched.validation.assert_feasible`,
   dependencies included) and measure (workflow records, utilisation,
   regular-job slowdowns).

Prints the jobs, the wall and CPU time of each phase and their total, per
scheduler, and the load average. Goal: the total under 60 s on one core
(the process is single-threaded).
"""

from __future__ import annotations

import argparse
import os
import time

from opt_sched.scheduling import replay
from opt_sched.studies.rodrigo2017.experiment import make_scheduler
from opt_sched.validation import assert_feasible
from opt_sched.workflows import WORKFLOW_NAMES, build_workflow_workload
from opt_sched.workflows.metrics import (
    regular_slowdowns,
    utilisation,
    workflow_records,
)
from opt_sched.workloads.nersc import generate_workload

GOAL_S = 60.0


class _Clock:
    """Wall and CPU time of named phases."""

    def __init__(self) -> None:
        self.phases: list[tuple[str, float, float]] = []

    def run(self, name: str, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        t, c = time.perf_counter(), time.process_time()
        out = fn(*args, **kwargs)
        self.phases.append((name, time.perf_counter() - t, time.process_time() - c))
        return out

    def total(self) -> tuple[float, float]:
        return (sum(w for _, w, _ in self.phases), sum(c for _, _, c in self.phases))


def simulate(scheduler: str, args: argparse.Namespace, profile: bool = False
             ) -> tuple[_Clock, dict[str, float]]:
    """One simulation, timed phase by phase."""
    clock = _Clock()
    day = 86400.0
    load = clock.run("generate", generate_workload, "nersc-edison", nodes=args.nodes,
                     duration=args.days * day, stabilisation=day, seed=args.seed,
                     workflows=[(wf, args.share) for wf in args.workflows])
    times = [t for t, _ in load.workflow_submissions]
    wfs = [wf for _, wf in load.workflow_submissions]
    built = clock.run("add workflows", build_workflow_workload, wfs, args.mode,
                      load.instance, submits=times,
                      cores_per_node=load.cores_per_node, platform=load.platform)
    instance = built.instance
    sched = make_scheduler(scheduler, "multifactor", args.mode,
                           cores_per_node=load.cores_per_node, bf_depth=50,
                           bf_interval=30.0)
    if profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        prof.enable()
    schedule = clock.run("replay", replay, instance, sched)
    if profile:
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(20)
    clock.run("validate", assert_feasible, instance, schedule)

    def measure() -> dict[str, float]:
        t0, t1 = load.window
        inside = {k: v for k, v in built.workflows.items() if t0 <= v.submit < t1}
        records = workflow_records(instance, schedule, inside)
        util, actual = utilisation(instance, schedule, built.workflows, (t0, t1))
        slow = regular_slowdowns(instance, schedule,
                                 cores_per_node=load.cores_per_node,
                                 window=(t0, t1))
        return {"workflows": len(records), "utilisation": util, "actual": actual,
                "slowdown_all": slow["all"]}

    facts = clock.run("measure", measure)
    facts["jobs"] = instance.num_jobs
    facts["workflow_jobs"] = instance.num_jobs - load.fill_jobs - load.regular_jobs
    facts["nodes"] = load.platform.total_nodes
    facts["pressure"] = load.pressure
    return clock, facts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scheduler", nargs="+", default=["conservative", "easy"])
    parser.add_argument("--workflows", nargs="+", default=list(WORKFLOW_NAMES))
    parser.add_argument("--share", type=float, default=0.02,
                        help="share of the core-hours of each workflow type")
    parser.add_argument("--mode", default="woas",
                        choices=["woas", "chained", "pilot"])
    parser.add_argument("--nodes", type=int, default=5576,
                        help="machines of 24 cores (Edison: 5,576)")
    parser.add_argument("--days", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", action="store_true",
                        help="cProfile the replay")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} (2 cores); "
          f"{args.nodes:,} nodes x 24 cores, 1 + {args.days:g} days, "
          f"{', '.join(args.workflows)} at {100 * args.share:g} % each, "
          f"mode {args.mode}, multifactor, bf_depth 50, bf_interval 30 s")
    for name in args.scheduler:
        clock, facts = simulate(name, args, args.profile)
        wall, cpu = clock.total()
        phases = ", ".join(f"{p} {w:.1f}" for p, w, _ in clock.phases)
        verdict = "under" if wall < GOAL_S else "OVER"
        print(f"{name:>13}: {facts['jobs']:,} jobs ({facts['workflow_jobs']:,} "
              f"workflow jobs, {facts['workflows']:,} workflows measured), "
              f"pressure {facts['pressure']:.3f}, utilisation "
              f"{facts['utilisation']:.3f}")
        print(f"{'':>13}  total {wall:.1f} s wall, {cpu:.1f} s CPU ({verdict} the "
              f"{GOAL_S:g} s goal); phases (s wall): {phases}")
    print(f"load average now {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
