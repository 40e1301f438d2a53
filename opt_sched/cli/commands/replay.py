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

Seed 002 (``docs/reproduction-rodrigo2017.md``): ``--priority`` takes
``fcfs``, ``multifactor`` or ``fairshare:OPERATOR`` (the queue order of the
backfilling schedulers); ``--bf-depth`` and ``--bf-interval`` set Slurm's
backfilling limits (alone: Slurm's 50 jobs and 30 s); ``--workflows`` adds
workflows (manifests or catalog names, submitted at their manifest's
``submit``, else 0) to the workload, as ``--workflow-mode`` chained jobs,
pilot jobs or WoAS jobs (the priority order then wrapped by WoAS), and the
report gains the workflow metrics.

Registry methods (``--methods``): instead of ``--scheduler``, one or more
method specs of :mod:`opt_sched.methods` (comma-separated, e.g. ``"fcfs,
easy(order=sjf), conservative/fifo"``), replayed one after the other on the
same instance under the same execution model, one summary row each. The
two are exclusive: a spec carries its scheduler's parameters and its I/O
policy (``/fifo``), so the options that tune ``--scheduler`` (``--order``,
``--priority``, ``--limit``, ``--estimates``, ``--pretrain``,
``--bf-depth``, ``--bf-interval``, ``--io-policy``, ``--workflows``,
``--kill-at-walltime``, ``--window``, the gang options) are refused with
``--methods``. ``--seed`` seeds the I/O profile and every method. The
outputs of one schedule (``--out``, ``--swf``, ``--schedule``, ``--gantt``,
``--usage``) take one method: with several they are refused (exit 2)
rather than overwritten.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import OptionError
from ...gc_pause import gc_paused
from ...kernels import ENV, PYTHON_BUDGET_S, choose_kernels, python_seconds
from ..arguments import (
    add_execution_options,
    execution_spec,
    given_options,
    non_negative_float,
    output_path,
    positive_float,
    positive_int,
    rate,
    refuse_options,
    seed,
)
from ..exit_codes import EXIT_OK
from ..output import print_json

if TYPE_CHECKING:
    from ...instance import Instance
    from ...schedule import Schedule
    from ...validation.phase_table import PhaseTable

NAME = "replay"
HELP = "replay an online scheduler over a trace (SWF, Batsim) or workload"



def _depth(text: str) -> int | str:
    """``--bf-depth``: a positive integer, or ``all`` (no limit)."""
    from ...scheduling.backfill_limits import NO_DEPTH_LIMIT

    if text == NO_DEPTH_LIMIT:
        return NO_DEPTH_LIMIT
    try:
        return positive_int(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer >= 1 or "
                                         f"'{NO_DEPTH_LIMIT}'") from None

def _window(text: str) -> tuple[float, float]:
    try:
        lo, hi = (float(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not START:END") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
        raise argparse.ArgumentTypeError(f"{text!r}: END must be after START")
    return lo, hi


def _job_window(text: str) -> tuple[int, int]:
    """``START:COUNT`` of ``--window``: integers, ``START >= 0``, ``COUNT >= 1``."""
    try:
        start, count = (int(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not START:COUNT (two "
                                         "integers)") from None
    if start < 0 or count < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: START must be >= 0 and COUNT "
                                         ">= 1")
    return start, count


DEFAULT_SCHEDULER = "easy"
"""The scheduler of a replay that names neither ``--scheduler`` nor
``--methods``."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from ...scheduling import SCHEDULERS
    from ...scheduling.estimators import ESTIMATE_SOURCES
    from ...traces import PROFILE_NAMES

    parser.add_argument("trace", help="SWF (.swf, .swf.gz), Batsim workload "
                        "(.json with 'profiles') or opt_sched instance (.json)")
    from ..replay_doors import doors

    others = [(door, tuple(door.schedulers())) for door in doors()]
    parser.add_argument("--scheduler", default=None,
                        choices=sorted(SCHEDULERS) + [name for _, names in others
                                                      for name in names],
                        help=f"the start rule (default {DEFAULT_SCHEDULER})"
                             + "".join(f"; {', '.join(names)}: {door.noun} "
                                       f"schedulers, on their own workloads"
                                       for door, names in others))
    parser.add_argument("--methods", default=None, metavar="SPECS",
                        help="instead of --scheduler: comma-separated registry "
                             "method specs (e.g. 'fcfs, easy(order=sjf)'), each "
                             "replayed on the same instance, one row each")
    parser.add_argument("--order", default=None,
                        help="queue order of the backfilling schedulers "
                             "(fcfs, sjf, ...)")
    parser.add_argument("--priority", default=None,
                        help="priority queue order (fcfs, multifactor, "
                             "fairshare:OPERATOR)")
    parser.add_argument("--limit", type=positive_float, default=None,
                        help="bandwidth limit L of the schedulers whose method "
                             "takes limit (default: the I/O node's bandwidth)")
    parser.add_argument("--estimates", choices=ESTIMATE_SOURCES, default=None,
                        help="where the schedulers whose method takes estimates "
                             "take job rates: declared, or seed 001's history "
                             "estimator")
    parser.add_argument("--pretrain", action="store_true",
                        help="prime the history estimator with one isolated run "
                             "of every job group (seed 001; the schedulers whose "
                             "method takes pretrain)")
    from ...scheduling.backfill_limits import (
        CONSERVATIVE_DEFAULT_DEPTH,
        LARGE_WORKLOAD,
        NO_DEPTH_LIMIT,
        SLURM_DEFAULTS,
    )

    parser.add_argument("--bf-depth", type=_depth, nargs="?", default=None,
                        const=SLURM_DEFAULTS["bf_depth"], metavar="N",
                        help="backfilling examines at most N jobs per pass "
                             f"(alone: Slurm's {SLURM_DEFAULTS['bf_depth']}; "
                             f"'{NO_DEPTH_LIMIT}': no limit; default: no limit, "
                             f"except conservative on more than {LARGE_WORKLOAD:,} "
                             f"jobs: {CONSERVATIVE_DEFAULT_DEPTH})")
    parser.add_argument("--bf-interval", type=non_negative_float, nargs="?",
                        default=None, const=SLURM_DEFAULTS["bf_interval"],
                        metavar="SECONDS",
                        help="a backfilling pass every SECONDS, only the FIFO "
                             "part in between (alone: Slurm's "
                             f"{SLURM_DEFAULTS['bf_interval']:g} s; default 0: "
                             "every pass)")
    parser.add_argument("--cores-per-node", type=positive_int, default=1,
                        help="cores of one machine, for workflow tasks (cores -> "
                             "machines) and the multifactor size factor "
                             "(default 1)")
    from ...workflows.submission import MODES

    parser.add_argument("--workflows", nargs="+", default=None, metavar="MANIFEST",
                        help="add workflows: manifest files (.json) or catalog "
                             "names (longwide, widelong, floodplain, montage, "
                             "cybershake, sipht, A4, ...)")
    parser.add_argument("--workflow-mode", choices=MODES, default=None,
                        help="how --workflows are submitted (default woas)")
    parser.add_argument("--io-profile", default="none", choices=PROFILE_NAMES,
                        help="I/O phases of trace jobs (default none)")
    load = parser.add_mutually_exclusive_group()
    load.add_argument("--alpha", type=positive_float, default=None,
                      help="calibrate the I/O shares to this I/O load")
    load.add_argument("--bandwidth", type=rate, default=None,
                      help="I/O node bandwidth")
    parser.add_argument("--nodes", type=positive_int, default=None,
                        help="machine size (default: the trace's)")
    parser.add_argument("--platform", default=None,
                        help="Batsim platform XML (default: platform.xml beside "
                             "the workload)")
    add_execution_options(parser)
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
                        help="START:END of the Gantt chart, in seconds (a "
                             "trace's t = 0 is its first submit)")
    parser.add_argument("--usage", type=output_path,
                        help="utilisation and queue curves (PNG)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bar, no progress of the window bounds")
    parser.add_argument("--window", type=_job_window, default=None,
                        metavar="START:COUNT",
                        help="window bracket: the online makespan, max flow "
                             "stretch and mean flow time of the jobs queued when "
                             "job START arrives plus the next arrivals, COUNT jobs "
                             "(20-60), against the best schedule found and a "
                             "lower bound for every clairvoyant schedule that "
                             "leaves the jobs running then as they ran "
                             "(models/window-gap.md)")
    parser.add_argument("--window-time-limit", type=positive_float, default=30.0,
                        help="seconds per objective of the window bracket, half "
                             "for the schedule search, half for the bound "
                             "(default 30)")
    parser.add_argument("--window-mode", choices=("state", "consecutive"),
                        default="state",
                        help="window jobs: 'state' (default) the jobs queued at "
                             "the window start plus the next arrivals; "
                             "'consecutive' COUNT jobs from START, the queued "
                             "ones left out (the first definition)")
    for door, _ in others:
        door.add_options(parser.add_argument_group(door.title))
    from ..trace_options import add_trace_options

    add_trace_options(parser)


def _instance_data(path: Path) -> dict | None:
    """The parsed file if it is an opt_sched instance (a JSON object with a
    ``platform``), else ``None`` (a trace)."""
    if path.suffix.lower() != ".json":
        return None
    from ...errors import TraceError
    from ...json_files import load_json

    data = load_json(path, TraceError)
    return data if isinstance(data, dict) and "platform" in data else None


def _load(args: argparse.Namespace):
    """``(instance, trace or None, skip summary or None, conversion or None)``."""
    from ...json_files import instance_from_dict
    from ...traces import convert_trace, read_trace

    path = Path(args.trace)
    if not path.is_file():
        raise OptionError(f"trace={args.trace!r}: no such file")
    data = _instance_data(path)
    if data is not None:
        if args.io_profile != "none" or args.alpha or args.bandwidth or args.nodes:
            raise OptionError("--io-profile/--alpha/--bandwidth/--nodes apply to "
                              "traces, not to instance files")
        from ..trace_options import given_trace_options

        if given_trace_options(args):
            raise OptionError(f"{given_trace_options(args)[0]} applies to traces, "
                              f"not to instance files")
        return instance_from_dict(data), None, None, None
    platform = args.platform
    if platform is None and path.name.lower().endswith((".json", ".json.gz")):
        beside = path.parent / "platform.xml"
        platform = beside if beside.is_file() else None
    from ..trace_options import trace_reading

    trace, skips = read_trace(path, platform, trace_reading(args), args.format)
    conversion = convert_trace(trace, args.io_profile, seed=args.seed,
                               alpha=args.alpha, bandwidth=args.bandwidth,
                               nodes=args.nodes)
    return conversion.instance, trace, skips, conversion


def _scheduler(args: argparse.Namespace, instance=None, execution=None,
               woas: bool = False):
    from ...scheduling import get_queue_order, get_scheduler

    options: dict[str, object] = {}
    for key in ("limit", "estimates"):
        if getattr(args, key) is not None:
            _check_method_param(args.scheduler, key)
            options[key] = getattr(args, key)
    if args.pretrain:
        from ...scheduling.pretrain import isolated_runs

        _check_method_param(args.scheduler, "pretrain")
        options.setdefault("estimates", "history")
        options["prior"] = isolated_runs(
            instance, lambda: execution.build(args.io_policy), policy=args.io_policy)
    if args.order is not None and args.priority is not None:
        raise OptionError("give --order or --priority, not both")
    spec = args.priority if args.priority is not None else args.order
    if spec is not None or woas:
        spec = "fcfs" if spec is None else spec
        extra = ({"cores_per_node": args.cores_per_node}
                 if spec.strip().lower() == "multifactor" else {})
        order = get_queue_order(spec, **extra)
        if woas:
            from ...workflows import woas_order

            order = woas_order(order)
        options["order"] = order
    if args.bf_depth is not None:
        options["bf_depth"] = args.bf_depth
    if args.bf_interval is not None:
        options["bf_interval"] = args.bf_interval
    _check_takes(args.scheduler, options)
    return get_scheduler(args.scheduler, **options)


def _check_takes(name: str, options: dict[str, object]) -> None:
    """A one-line error naming the option a scheduler does not take."""
    import inspect

    from ...scheduling import SCHEDULERS

    factory = SCHEDULERS.get(name)
    if factory is None:
        return
    params = inspect.signature(factory).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return
    flags = {"order": "--order/--priority/--workflow-mode woas",
             "bf_depth": "--bf-depth", "bf_interval": "--bf-interval"}
    for key in options:
        if key not in params:
            flag = flags.get(key, "--" + key.replace("_", "-"))
            takers = [other for other, make in SCHEDULERS.items()
                      if key in inspect.signature(make).parameters]
            raise OptionError(f"{flag}: scheduler {name!r} takes no {key} "
                              f"(the schedulers {', '.join(takers)} do)")


def _check_method_param(scheduler: str, key: str) -> None:
    """Refuse ``--key`` for ``scheduler`` unless the registry method of that
    name declares a parameter ``key`` (``limit``, ``estimates``,
    ``pretrain``: ``herbein`` and ``workload-adaptive`` today); the error
    names the methods that do."""
    from ... import methods

    def takes(name: str) -> bool:
        return any(p.name == key for p in methods.get_entry(name).params)

    if scheduler in methods.names() and takes(scheduler):
        return
    from ...scheduling import SCHEDULERS

    takers = [name for name in methods.names() if name in SCHEDULERS and takes(name)]
    raise OptionError(f"--{key} applies to {', '.join(takers)}, not to "
                      f"{scheduler!r}")


def _with_workflows(args: argparse.Namespace, instance):
    """``(instance, submitted workflows or None)``: ``--workflows`` added to
    the workload in ``--workflow-mode``."""
    if args.workflows is None:
        if args.workflow_mode is not None:
            raise OptionError("--workflow-mode needs --workflows")
        return instance, None
    from ...workflows import build_workflow_workload

    built = build_workflow_workload(args.workflows, args.workflow_mode or "woas",
                                    instance, cores_per_node=args.cores_per_node)
    return built.instance, built.workflows


def _workflow_report(instance, schedule, workflows, cores_per_node: int) -> dict:
    """Median workflow wait, runtime, turnaround and intermediate wait (h),
    waste (core-h), utilisation and actual utilisation."""
    import numpy as np

    from ...workflows import utilisation, workflow_records

    records = workflow_records(instance, schedule, workflows)
    hour = 3600.0

    def median(values):
        return float(np.median(values)) if values else None

    _, actual = utilisation(instance, schedule, workflows)
    return {
        "workflows": len(records),
        "workflow_wait_h": median([r.wait / hour for r in records]),
        "workflow_runtime_h": median([r.runtime / hour for r in records]),
        "workflow_turnaround_h": median([r.turnaround / hour for r in records]),
        "workflow_intermediate_wait_h": median([r.intermediate_wait / hour
                                                for r in records]),
        "workflow_waste_core_hours": sum(r.waste for r in records) * cores_per_node
        / hour,
        "actual_utilisation": actual,
    }


COMPILING = "compiling kernels, first run only"
"""What the progress bar says until the first jobs end: numba compiles the
replay kernels on their first call (tens of seconds on a cold cache)."""


def _io_phases(instance, conversion) -> int:
    """The workload's I/O phases (the trace conversion counted them)."""
    if conversion is not None:
        return conversion.num_io_phases
    return sum(1 for job in instance.jobs for v in job.io_volume if v > 0)


def _progress(quiet: bool, total: int, *, compiling: bool = True):
    """A rich progress bar on a terminal, else nothing. Until the first
    progress report it says :data:`COMPILING` when the kernels run compiled
    (the first report comes once they are compiled and running)."""
    if quiet or not sys.stderr.isatty():
        return None, None
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeRemainingColumn(), transient=True)
    task = bar.add_task(f"replay ({COMPILING})" if compiling else "replay",
                        total=total)

    def report(done: int, _total: int) -> None:
        bar.update(task, completed=done, description="replay")

    return bar, report


_ALWAYS = frozenset({"trace", "scheduler"})


def _applies_to(dest: str) -> str:
    """What an option applies to, for the error of one that does not."""
    from ..replay_doors import applies_to

    return applies_to(dest) or "the space-sharing schedulers, on traces and instances"


def check_applicable_options(args: argparse.Namespace) -> None:
    """Refuse an option given that the chosen scheduler does not take: a
    scheduler behind a :class:`~opt_sched.cli.replay_doors.ReplayDoor` (seed
    004's gang schedulers) takes what its door says, the space-sharing ones
    every option but the doors' own.

    Raises
    ------
    OptionError
        ``--io-profile does not apply to gang scheduler gs (it applies to:
        the space-sharing schedulers ...)``.
    """
    from ..replay_doors import door_of, kind_options

    given = given_options(args, add_arguments) - _ALWAYS
    door = door_of(args.scheduler)
    if door is not None:
        takes = door.takes(args.scheduler)
        target = f"{door.noun} scheduler {args.scheduler}"
    else:
        takes = given - kind_options()
        target = f"scheduler {args.scheduler}"
    refuse_options(given, takes, target, _applies_to)


def run(args: argparse.Namespace) -> int:
    from ..replay_doors import door_of

    if args.methods is not None:
        return _registry_methods(args)
    if args.scheduler is None:
        args.scheduler = DEFAULT_SCHEDULER
    check_applicable_options(args)
    door = door_of(args.scheduler)
    return _space_sharing(args) if door is None else door.run(args)


METHOD_REFUSES = frozenset({"scheduler", "order", "priority", "limit", "estimates",
                            "pretrain", "bf_depth", "bf_interval", "cores_per_node",
                            "workflows", "workflow_mode", "io_policy",
                            "kill_at_walltime", "window", "window_time_limit",
                            "window_mode"})
"""Options of ``--scheduler`` that ``--methods`` refuses (with every
:class:`~opt_sched.cli.replay_doors.ReplayDoor`'s own options): a method
spec carries its own parameters and I/O policy (``easy(order=sjf)/fifo``)."""

ONE_SCHEDULE = ("out", "swf", "schedule", "gantt", "usage")
"""Outputs of one schedule: ``--methods`` takes them with one method only."""

ROW_KEYS = ("makespan", "mean_wait", "max_wait", "mean_turnaround", "mean_slowdown",
            "mean_bounded_slowdown", "utilisation", "allocation", "killed")
"""The summary figures of one ``--methods`` row."""


def _method_options_applies_to(dest: str) -> str:
    return ("--scheduler (with --methods, write the parameters and the I/O policy "
            "into each spec, e.g. 'easy(order=sjf)/fifo')")


def _registry_methods(args: argparse.Namespace) -> int:
    """``--methods``: each registry method replayed on the same instance
    under the same execution model, one summary row each (validated with
    ``--validate``)."""
    from ... import methods as registry
    from ...metrics import summary_values
    from ..arguments import flag
    from ..output import show_rows

    given = given_options(args, add_arguments) - {"trace", "methods"}
    if "scheduler" in given:
        raise OptionError("give --scheduler or --methods, not both")
    from ..replay_doors import kind_options

    refuse_options(given, given - METHOD_REFUSES - kind_options(), "--methods",
                   _method_options_applies_to)
    chosen = registry.expand(args.methods)  # SpecError: exit 2, one line
    if not chosen:
        raise OptionError(f"--methods={args.methods!r} names no method")
    outputs = [dest for dest in ONE_SCHEDULE if getattr(args, dest)]
    if len(chosen) > 1 and outputs:
        raise OptionError(f"{flag(outputs[0])}: writes one schedule, and --methods "
                          f"names {len(chosen)} methods (give one method, or one "
                          "replay per method)")
    # a few objects per job and no cycles: the collector pauses
    # (opt_sched.gc_pause)
    with gc_paused():
        instance, trace, skips, conversion = _load(args)
        phases = _io_phases(instance, conversion)
        choose_kernels(len(chosen) * instance.num_jobs, len(chosen) * phases)
        for method in chosen:
            reason = method.supports(instance)
            if reason:
                raise OptionError(f"--methods: {method.spec} does not run on "
                                  f"{instance.name}: {reason}")
        spec = execution_spec(args)
        rows: list[dict[str, object]] = []
        for method in chosen:
            t0 = time.perf_counter()
            schedule = method.run(instance, seed=args.seed, execution=spec)
            seconds = time.perf_counter() - t0
            # the validator's phase table serves the summary: built once
            table = _validated_table(instance, schedule) if args.validate else None
            stats = summary_values(instance, schedule, phase_table=table)
            rows.append({"method": schedule.method, "execution": schedule.execution,
                         **{key: stats[key] for key in ROW_KEYS},
                         "validated": bool(args.validate), "replay_seconds": seconds})
            if len(chosen) == 1:
                _write_outputs(args, instance, schedule, trace, _origin(conversion))
    if args.instance_out:
        _write_instance(instance, args.instance_out)
    if args.json:
        print_json({"trace": str(args.trace), "instance": instance.name,
                    "jobs": instance.num_jobs,
                    "skipped": 0 if skips is None else skips.total_skipped,
                    "trace_reading": None if skips is None else skips.to_dict(),
                    "io_profile": args.io_profile, "io_phases": phases,
                    "time_origin": _origin_json(conversion), "rows": rows})
        return EXIT_OK
    if skips is not None:
        print(skips.format(), file=sys.stderr)
    if conversion is not None and args.io_profile != "none":
        print(conversion.describe())
    if conversion is not None:
        print(conversion.origin.describe())
    show_rows(rows, args, title=f"{instance.name}: {instance.num_jobs} jobs, {phases} "
              f"I/O phases, {len(rows)} method(s), execution {spec.label}"
              + (" (validated feasible)" if args.validate else ""))
    _say_written(args)
    return EXIT_OK


def _origin(conversion):
    """The time origin of a trace's instance (t = 0 is the first submit,
    :mod:`opt_sched.traces.time_origin`), or ``None`` for an instance file."""
    return None if conversion is None else conversion.origin


def _origin_json(conversion) -> dict | None:
    origin = _origin(conversion)
    return None if origin is None else origin.to_dict()


def _write_outputs(args: argparse.Namespace, instance, schedule, trace,
                   origin=None) -> None:
    """The outputs of one schedule: ``--out``, ``--swf``, ``--schedule``,
    ``--gantt``, ``--usage``. ``out_jobs.csv`` holds the workload's own
    times (``origin`` added back); the pictures read dates when the origin
    has one."""
    from ...json_files import write_schedule
    from ...traces import write_out_jobs, write_swf

    if args.out:
        write_out_jobs(args.out, instance, schedule, trace,
                       origin=0.0 if origin is None else origin.shift)
    if args.swf:
        write_swf(args.swf, instance, schedule, trace,
                  origin=0.0 if origin is None else origin.shift)
    if args.schedule:
        write_schedule(schedule, args.schedule, instance)
    for option, kind in ((args.gantt, "gantt"), (args.usage, "usage")):
        if option:
            _draw(kind, instance, schedule, option, args.gantt_window, origin)


def _say_written(args: argparse.Namespace) -> None:
    for label, path in (("out_jobs.csv", args.out), ("SWF", args.swf),
                        ("schedule", args.schedule), ("instance", args.instance_out),
                        ("Gantt chart", args.gantt), ("usage curves", args.usage)):
        if path:
            print(f"{label} written to {path}")


def _validated_table(instance: Instance, schedule: Schedule) -> PhaseTable:
    """The validator's phase table of a feasible ``schedule`` (it serves the
    summary too: built once); :class:`InfeasibleSchedule` otherwise."""
    from ...validation import assert_feasible

    return assert_feasible(instance, schedule).table


def _write_instance(instance: Instance, path: str) -> None:
    from ...json_files import write_instance

    write_instance(instance, path)


def _space_sharing(args: argparse.Namespace) -> int:
    from ...metrics import summary_values
    from ...scheduling import replay

    # a replay builds a few objects per job that live until the command
    # ends and make no cycles: the collector pauses (opt_sched.gc_pause),
    # except while a window's bracket searches
    with gc_paused():
        t0 = time.perf_counter()
        instance, trace, skips, conversion = _load(args)
        instance, workflows = _with_workflows(args, instance)
        loaded = time.perf_counter() - t0
        phases = _io_phases(instance, conversion)
        kernels = choose_kernels(instance.num_jobs, phases)  # before any kernel import
        spec = execution_spec(args)
        scheduler = _scheduler(args, instance, spec,
                               woas=workflows is not None
                               and (args.workflow_mode or "woas") == "woas")
        bar, callback = _progress(args.quiet or args.json, instance.num_jobs,
                                  compiling=kernels == "compiled")
        t1 = time.perf_counter()
        if bar is not None:
            with bar:
                schedule = replay(instance, scheduler, spec.build(args.io_policy),
                                  policy=args.io_policy,
                                  kill_at_walltime=args.kill_at_walltime,
                                  progress=callback)
        else:
            schedule = replay(instance, scheduler, spec.build(args.io_policy),
                              policy=args.io_policy,
                              kill_at_walltime=args.kill_at_walltime)
        replayed = time.perf_counter() - t1
        # the validator's phase table serves the summary: built once
        table = _validated_table(instance, schedule) if args.validate else None
        _write_outputs(args, instance, schedule, trace, _origin(conversion))
        if args.instance_out:
            _write_instance(instance, args.instance_out)
        stats = summary_values(instance, schedule, phase_table=table)
    window = None
    if args.window is not None:
        from ...experiments.window import window_gap
        from ..progress import solve_progress

        # each bound's phase and value on stderr, unless --quiet
        with solve_progress("window bound", args.window_time_limit,
                            quiet=args.quiet):
            window = window_gap(instance, schedule, *args.window,
                                time_limit=args.window_time_limit,
                                mode=args.window_mode)
    report = {
        "trace": str(args.trace), "instance": instance.name, "jobs": instance.num_jobs,
        "skipped": 0 if skips is None else skips.total_skipped,
        "trace_reading": None if skips is None else skips.to_dict(),
        "scheduler": schedule.method, "execution": schedule.execution,
        "priority": getattr(getattr(scheduler, "order", None), "name", None),
        "bf_depth": schedule.info.get("bf_depth", getattr(scheduler, "bf_depth", None)),
        "bf_interval": getattr(scheduler, "bf_interval", None),
        "io_profile": args.io_profile, "io_phases": phases,
        "time_origin": _origin_json(conversion),
        "validated": bool(args.validate), "load_seconds": loaded,
        "replay_seconds": replayed, "kernels": kernels,
        "jobs_per_second": instance.num_jobs / replayed if replayed > 0 else None,
        **{k: stats[k] for k in ("makespan", "mean_wait", "max_wait",
                                 "mean_turnaround", "mean_slowdown",
                                 "mean_bounded_slowdown", "utilisation",
                                 "allocation", "killed", "io_load_alpha")},
    }
    if window is not None:
        report["window"] = _window_json(window)
    if workflows is not None:
        report["workflow_mode"] = args.workflow_mode or "woas"
        report.update(_workflow_report(instance, schedule, workflows,
                                       args.cores_per_node))
    if args.json:
        print_json(report)
        return EXIT_OK
    if skips is not None:
        print(skips.format(), file=sys.stderr)
    if conversion is not None and args.io_profile != "none":
        print(conversion.describe())
    skipped = f" ({skips.brief()})" if skips is not None and skips.total_skipped else ""
    print(f"{instance.name}: {instance.num_jobs} jobs{skipped}, {phases} I/O phases, "
          f"scheduler {schedule.method}, execution {schedule.execution}"
          + (" (validated feasible)" if args.validate else ""))
    if conversion is not None:
        print(conversion.origin.describe())
    print(f"replayed in {replayed:.2f} s ({report['jobs_per_second']:,.0f} jobs/s, "
          f"kernels {kernels}); loaded in {loaded:.2f} s")
    if kernels == "python" and python_seconds(instance.num_jobs, phases) > \
            PYTHON_BUDGET_S:
        print(f"kernels ran as Python: numba's cache is cold, and compiling them "
              f"costs more than this replay; {ENV}=compiled compiles them once "
              f"for faster replays after", file=sys.stderr)
    if args.bf_depth is None and report["bf_depth"] is not None:
        from ...scheduling.backfill_limits import LARGE_WORKLOAD, NO_DEPTH_LIMIT

        print(f"bf_depth {report['bf_depth']}: the default of {schedule.method} on "
              f"more than {LARGE_WORKLOAD:,} jobs (--bf-depth {NO_DEPTH_LIMIT}: "
              "no limit)")
    keys = ["makespan", "mean_wait", "max_wait", "mean_turnaround", "mean_slowdown",
            "mean_bounded_slowdown", "utilisation", "allocation", "killed"]
    if workflows is not None:
        keys += ["workflow_mode", "workflows", "workflow_wait_h", "workflow_runtime_h",
                 "workflow_turnaround_h", "workflow_intermediate_wait_h",
                 "workflow_waste_core_hours", "actual_utilisation"]
    for key in keys:
        value = report[key]
        print(f"  {key:28s} {value:,.6g}" if isinstance(value, float)
              else f"  {key:28s} {value}")
    if window is not None:
        print(_window_text(window))
    _say_written(args)
    return EXIT_OK


def _window_json(window: dict) -> dict:
    """The window report without the solver's internals: per objective
    ``online``, ``best_found``, ``lower_bound``, the bracket ``at_least`` /
    ``at_most`` (fractions) and its ``width``, and where each side comes
    from."""
    objectives = {name: {k: v for k, v in item.items()
                         if k not in ("cpsat_info", "search_info")}
                  for name, item in window["objectives"].items()}
    return {**window["window"], "objectives": objectives}


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.2f}%"


def _window_text(window: dict) -> str:
    w = window["window"]
    queued = (f"{w['queued_at_t0']} jobs queued at t0 are in the window"
              if w.get("mode", "state") == "state" else
              f"{w['queued_left_out']} jobs queued at t0 are left out")
    lines = [f"window {w['start']}:{w['count']} ({w.get('mode', 'state')}, "
             f"{w.get('jobs', w['count'])} jobs {w['first_job']}.."
             f"{w['last_job']}, t0={w['t0']:g}): {w['running_jobs']} running jobs "
             f"hold {w['held_nodes']} nodes and {w['reserved_io_time']:.6g} s of "
             f"I/O; {queued}",
             f"  {'objective':18s} {'online':>12s} {'best found':>12s} "
             f"{'lower bound':>12s}  the policy is above the optimum by"]
    for name, item in window["objectives"].items():
        best = item.get("best_found")
        shown_best = "n/a" if best is None else f"{best:12.6g}"
        if best is None:
            bracket = f"at most {_percent(item['gap'])}"
        else:
            bracket = (f"at least {_percent(item['at_least'])}, at most "
                       f"{_percent(item['at_most'])} (width "
                       f"{max(0.0, 100 * item['width']):.2f} points)"
                       if item.get("width") is not None else
                       f"at least {_percent(item['at_least'])}")
        solved = " (CP-SAT solved the relaxation)" if item["cpsat_closed"] else ""
        lines.append(f"  {name:18s} {item['online']:12.6g} {shown_best:>12s} "
                     f"{item['bound']:12.6g}  {bracket}")
        lines.append(f"  {'':18s} schedule by {item.get('found_by', 'n/a')}, "
                     f"bound by {item['source']}{solved}")
    return "\n".join(lines)


def _draw(kind, instance, schedule, path, window, origin=None) -> None:
    from ...plot import plot_gantt, plot_usage
    from ...plot.pyplot import save_figure

    axis = ({} if origin is None else
            {"epoch": origin.epoch, "since": "the first submit"
             if origin.first_submit else "the origin"})
    if kind == "gantt":
        figure = plot_gantt(instance, schedule, window=window, **axis).figure
    else:
        figure = plot_usage(instance, schedule, window=window, **axis)
    save_figure(figure, path, dpi=130, format="png")
