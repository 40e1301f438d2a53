"""``opt-sched replay``: an online scheduler over a trace or a workload.

The input is an SWF trace (``.swf``, ``.swf.gz``), a Batsim JSON workload
(with ``--platform`` or the ``platform.xml`` beside it), or an opt_sched
instance file (jobs with releases and wall times). A trace is turned into
an instance with an I/O profile (``--io-profile``, seeded, with ``--alpha``
or ``--bandwidth``; ``instances/traces.md``); the jobs' I/O phases then run
under the execution model, so contention changes the real end times and the
scheduler reacts to them. Outputs: Batsim's ``out_jobs.csv`` (``--out``),
SWF (``--swf``), the opt_sched schedule (``--schedule``), the converted
instance (``--instance-out``), and pictures (``--gantt``, ``--usage``).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

from ...errors import OptionError
from ..arguments import output_path, positive_float, positive_int, seed
from ..exit_codes import EXIT_OK
from ..output import print_json

NAME = "replay"
HELP = "replay an online scheduler over a trace (SWF, Batsim) or workload"


def _window(text: str) -> tuple[float, float]:
    try:
        lo, hi = (float(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not START:END") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
        raise argparse.ArgumentTypeError(f"{text!r}: END must be after START")
    return lo, hi


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ...execution import EXECUTION_MODELS
    from ...scheduling import SCHEDULERS
    from ...traces import PROFILE_NAMES

    parser.add_argument("trace", help="SWF (.swf, .swf.gz), Batsim workload "
                        "(.json with 'profiles') or opt_sched instance (.json)")
    from ...gang.schedulers import GANG_SCHEDULERS

    parser.add_argument("--scheduler", default="easy",
                        choices=sorted(SCHEDULERS) + list(GANG_SCHEDULERS),
                        help="the start rule (default easy); gs, iogs, "
                             "adaptive-iogs, migrate-iogs gang-schedule a gang "
                             "workload (opt-sched generate --protocol jann)")
    parser.add_argument("--order", default=None,
                        help="queue order of the backfilling schedulers "
                             "(fcfs, sjf, ...)")
    parser.add_argument("--priority", default=None,
                        help="priority queue order (fcfs, multifactor, "
                             "fairshare:OPERATOR)")
    parser.add_argument("--io-profile", default="none", choices=PROFILE_NAMES,
                        help="I/O phases of trace jobs (default none)")
    load = parser.add_mutually_exclusive_group()
    load.add_argument("--alpha", type=positive_float, default=None,
                      help="calibrate the I/O shares to this I/O load")
    load.add_argument("--bandwidth", type=positive_float, default=None,
                      help="I/O node bandwidth")
    parser.add_argument("--nodes", type=positive_int, default=None,
                        help="machine size (default: the trace's)")
    parser.add_argument("--platform", default=None,
                        help="Batsim platform XML (default: platform.xml beside "
                             "the workload)")
    parser.add_argument("--execution", default="exclusive",
                        choices=sorted(EXECUTION_MODELS),
                        help="execution model of the I/O phases")
    parser.add_argument("--io-policy", default="fifo",
                        help="I/O list policy of the exclusive model")
    parser.add_argument("--kill-at-walltime", action="store_true",
                        help="kill jobs still running at their wall time (Slurm)")
    parser.add_argument("--seed", type=seed, default=0,
                        help="seed of the I/O profile (default 0)")
    parser.add_argument("--validate", action="store_true",
                        help="check the schedule with the validator (exit 3 if "
                             "it fails)")
    parser.add_argument("--out", type=output_path, help="Batsim out_jobs.csv")
    parser.add_argument("--swf", type=output_path, help="the schedule as SWF")
    parser.add_argument("--schedule", type=output_path,
                        help="the opt_sched schedule (JSON)")
    parser.add_argument("--instance-out", type=output_path,
                        help="the converted instance (JSON)")
    parser.add_argument("--gantt", type=output_path, help="Gantt chart (PNG)")
    parser.add_argument("--gantt-window", type=_window, default=None,
                        help="START:END of the Gantt chart")
    parser.add_argument("--usage", type=output_path,
                        help="utilisation and queue curves (PNG)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    gang = parser.add_argument_group("gang scheduling (seed 004)")
    gang.add_argument("--mpl", type=positive_int, default=5,
                      help="multiprogramming level: rows of the matrix (default 5)")
    gang.add_argument("--quantum", type=positive_float, default=200.0,
                      help="time slice T in seconds (default 200)")
    gang.add_argument("--migration-budget", type=int, default=64,
                      help="Q: tasks migrated per slice (migrate-iogs; default 64)")
    gang.add_argument("--migration-cost", type=float, default=20.0,
                      help="C: migration cost in seconds (migrate-iogs; default 20)")
    gang.add_argument("--placement", choices=("random", "contiguous"), default=None,
                      help="file-node placement (default: the workload's, else "
                           "random)")


def _instance_data(path: Path) -> dict | None:
    """The parsed file if it is an opt_sched instance (a JSON object with a
    ``platform``), else ``None`` (a trace)."""
    if path.suffix.lower() != ".json":
        return None
    from ...errors import TraceError
    from ...io import load_json

    data = load_json(path, TraceError)
    return data if isinstance(data, dict) and "platform" in data else None


def _load(args: argparse.Namespace):
    """``(instance, trace or None, skip summary or None, conversion or None)``."""
    from ...io import instance_from_dict
    from ...traces import convert_trace, read_trace

    path = Path(args.trace)
    if not path.is_file():
        raise OptionError(f"trace={args.trace!r}: no such file")
    data = _instance_data(path)
    if data is not None:
        if args.io_profile != "none" or args.alpha or args.bandwidth or args.nodes:
            raise OptionError("--io-profile/--alpha/--bandwidth/--nodes apply to "
                              "traces, not to instance files")
        return instance_from_dict(data), None, None, None
    platform = args.platform
    if platform is None and path.name.lower().endswith((".json", ".json.gz")):
        beside = path.parent / "platform.xml"
        platform = beside if beside.is_file() else None
    trace, skips = read_trace(path, platform)
    conversion = convert_trace(trace, args.io_profile, seed=args.seed,
                               alpha=args.alpha, bandwidth=args.bandwidth,
                               nodes=args.nodes)
    return conversion.instance, trace, skips, conversion


def _scheduler(args: argparse.Namespace):
    from ...scheduling import get_scheduler

    options = {}
    if args.order is not None:
        options["order"] = args.order
    if args.priority is not None:
        options["order"] = args.priority if args.order is None else options["order"]
        if args.order is not None:
            raise OptionError("give --order or --priority, not both")
    return get_scheduler(args.scheduler, **options)


def _progress(quiet: bool, total: int):
    """A rich progress bar on a terminal, else nothing."""
    if quiet or not sys.stderr.isatty():
        return None, None
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TimeRemainingColumn,
    )

    bar = Progress("replay", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                   transient=True)
    task = bar.add_task("jobs", total=total)
    return bar, (lambda done, _total: bar.update(task, completed=done))


def _gang(args: argparse.Namespace) -> int:
    """Gang schedulers replay a gang workload (:mod:`opt_sched.gang`)."""
    from ...gang.cli_entry import run_replay

    if args.migration_budget < 0 or args.migration_cost < 0:
        raise OptionError("--migration-budget and --migration-cost must be >= 0")
    args.workload = args.trace
    return run_replay(args)


def run(args: argparse.Namespace) -> int:
    from ...gang.schedulers import GANG_SCHEDULERS

    if args.scheduler in GANG_SCHEDULERS:
        return _gang(args)
    return _space_sharing(args)


def _space_sharing(args: argparse.Namespace) -> int:
    from ...files import atomic_path
    from ...io import write_instance, write_schedule
    from ...metrics import summary
    from ...scheduling import replay
    from ...traces import write_out_jobs, write_swf
    from ...validation import assert_feasible

    t0 = time.perf_counter()
    instance, trace, skips, conversion = _load(args)
    loaded = time.perf_counter() - t0
    scheduler = _scheduler(args)
    bar, callback = _progress(args.quiet or args.json, instance.num_jobs)
    t1 = time.perf_counter()
    if bar is not None:
        with bar:
            schedule = replay(instance, scheduler, args.execution,
                              policy=args.io_policy,
                              kill_at_walltime=args.kill_at_walltime,
                              progress=callback)
    else:
        schedule = replay(instance, scheduler, args.execution, policy=args.io_policy,
                          kill_at_walltime=args.kill_at_walltime)
    replayed = time.perf_counter() - t1
    if args.validate:
        assert_feasible(instance, schedule)
    if args.out:
        write_out_jobs(args.out, instance, schedule, trace)
    if args.swf:
        write_swf(args.swf, instance, schedule, trace)
    if args.schedule:
        write_schedule(schedule, args.schedule, instance)
    if args.instance_out:
        write_instance(instance, args.instance_out)
    for option, kind in ((args.gantt, "gantt"), (args.usage, "usage")):
        if option:
            _draw(kind, instance, schedule, option, args.gantt_window, atomic_path)
    stats = summary(instance, schedule).to_dict()
    phases = conversion.num_io_phases if conversion is not None else sum(
        1 for job in instance.jobs for v in job.io_volume if v > 0)
    report = {
        "trace": str(args.trace), "instance": instance.name, "jobs": instance.num_jobs,
        "skipped": 0 if skips is None else skips.total_skipped,
        "scheduler": schedule.method, "execution": schedule.execution,
        "io_profile": args.io_profile, "io_phases": phases,
        "validated": bool(args.validate), "load_seconds": loaded,
        "replay_seconds": replayed,
        "jobs_per_second": instance.num_jobs / replayed if replayed > 0 else None,
        **{k: stats[k] for k in ("makespan", "mean_wait", "max_wait",
                                 "mean_turnaround", "mean_slowdown",
                                 "mean_bounded_slowdown", "utilisation",
                                 "allocation", "killed", "io_load_alpha")},
    }
    if args.json:
        print_json(report)
        return EXIT_OK
    if skips is not None:
        print(skips.format(), file=sys.stderr)
    if conversion is not None and args.io_profile != "none":
        print(conversion.describe())
    print(f"{instance.name}: {instance.num_jobs} jobs, {phases} I/O phases, "
          f"scheduler {schedule.method}, execution {schedule.execution}"
          + (" (validated feasible)" if args.validate else ""))
    print(f"replayed in {replayed:.2f} s ({report['jobs_per_second']:,.0f} jobs/s); "
          f"loaded in {loaded:.2f} s")
    for key in ("makespan", "mean_wait", "max_wait", "mean_turnaround",
                "mean_slowdown", "mean_bounded_slowdown", "utilisation",
                "allocation", "killed"):
        value = report[key]
        print(f"  {key:22s} {value:,.6g}" if isinstance(value, float)
              else f"  {key:22s} {value}")
    for label, path in (("out_jobs.csv", args.out), ("SWF", args.swf),
                        ("schedule", args.schedule), ("instance", args.instance_out),
                        ("Gantt chart", args.gantt), ("usage curves", args.usage)):
        if path:
            print(f"{label} written to {path}")
    return EXIT_OK


def _draw(kind, instance, schedule, path, window, atomic_path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ...plot import plot_gantt, plot_usage

    if kind == "gantt":
        figure = plot_gantt(instance, schedule, window=window).figure
    else:
        figure = plot_usage(instance, schedule, window=window)
    with atomic_path(path) as temporary:
        figure.savefig(temporary, dpi=130, format="png")
    plt.close(figure)
