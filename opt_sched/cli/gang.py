"""Command-line entry of the gang subsystem.

Two commands, to be mounted on the ``opt-sched`` front door at merge
(``add_arguments`` / ``run``, or the per-command functions), and available
meanwhile as ``python -m opt_sched.gang``::

    python -m opt_sched.gang generate --protocol jann --io-intensity 0.5 \\
        --mean-runtime 3102 --jobs 10000 --seed 1 --out W.json
    python -m opt_sched.gang generate --protocol swf --trace KTH-SP2.swf.gz \\
        --seed 1 --out kth.json
    python -m opt_sched.gang replay W.json --scheduler migrate-iogs \\
        [--mpl 5] [--quantum 200] [--migration-budget 64] \\
        [--migration-cost 20] [--placement random|contiguous] [--seed 0] \\
        --out out_jobs.csv [--schedule S.json] [--validate] [--json]

``replay`` writes one CSV row per job (:data:`~opt_sched.gang.metrics.JOB_COLUMNS`)
and prints the summary (a table, or JSON with ``--json``); ``--schedule``
also writes the gang schedule record. The commands run inside the error
boundary of ``opt-sched`` (:func:`opt_sched.cli.boundary.run_command`), with
its exit status: 0 success, 2 bad input (one line on stderr naming the
field and the value), 3 a bug (``--validate`` found a violation, or any
other exception: one line), 130 interrupted (one line).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
from collections.abc import Sequence
from typing import Any

from ..errors import OptionError, UserError
from ..files import atomic_write_text
from .arguments import (
    non_negative_float,
    non_negative_int,
    output_path,
    positive_float,
    positive_int,
    seed,
)
from .exit_codes import EXIT_INTERRUPTED, EXIT_OK
from .parser import OneLineParser
from .replay_doors import ReplayDoor

__all__ = [
    "add_arguments",
    "add_gang_options",
    "add_generate_arguments",
    "add_replay_arguments",
    "main",
    "run",
    "run_generate",
    "run_replay",
]

def _intensity(text: str) -> float | str:
    if text == "mixed":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number or 'mixed'") \
            from None
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be in [0, 1)")
    return value


# -- generate ----------------------------------------------------------------------
def add_generate_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``generate`` for the gang protocols."""
    parser.add_argument("--protocol", choices=("jann", "swf"), required=True,
                        help="jann: synthetic ASCI Blue-Pacific-like stream; "
                             "swf: a log (--trace) with r drawn per job")
    parser.add_argument("--io-intensity", type=_intensity, default=0.5,
                        help="r of every job (0.1, 0.33, 0.5 in the seed) or "
                             "'mixed' (jann; default 0.5)")
    parser.add_argument("--mean-runtime", type=positive_float, default=3102.0,
                        help="mean all-local execution time in seconds (jann; "
                             "default 3102)")
    parser.add_argument("--mean-interarrival", type=positive_float, default=583.0,
                        help="mean inter-arrival time in seconds (jann; default 583)")
    parser.add_argument("--jobs", type=positive_int, default=None,
                        help="number of jobs (jann: default 10000; swf: the first N)")
    parser.add_argument("--nodes", type=positive_int, default=None,
                        help="machine size (jann: default 320; swf: the header's)")
    parser.add_argument("--trace", default=None, help="SWF file (swf protocol)")
    parser.add_argument("--seed", type=seed, default=0, help="random seed (default 0)")
    parser.add_argument("--placement", choices=("random", "contiguous"), default=None,
                        help="also draw and store the file nodes")
    parser.add_argument("--out", type=output_path, required=True,
                        help="workload JSON file to write")


GENERATE_OPTIONS = {
    "jann": frozenset({"io_intensity", "mean_runtime", "mean_interarrival", "jobs",
                       "nodes", "seed", "placement"}),
    "swf": frozenset({"trace", "jobs", "nodes", "seed", "placement"}),
}
"""Protocol -> the ``generate`` options it takes; any other one given is an
error naming it (never silently ignored)."""


def _refuse_foreign_options(args: argparse.Namespace) -> None:
    """An option of the other protocol (:data:`GENERATE_OPTIONS`) is an
    error naming it, never silently ignored."""
    from .arguments import given_options, refuse_options

    def applies_to(dest: str) -> str:
        return ", ".join(f"--protocol {name}" for name, takes
                         in GENERATE_OPTIONS.items() if dest in takes)

    given = given_options(args, add_generate_arguments) - {"protocol", "out"}
    refuse_options(given, GENERATE_OPTIONS[args.protocol],
                   f"--protocol {args.protocol}", applies_to)


def run_generate(args: argparse.Namespace) -> int:
    """``generate``: write a gang workload file."""
    from ..gang.jann import jann_workload
    from ..gang.placement import place_files
    from ..gang.swf import swf_workload
    from ..gang.workload import write_workload

    _refuse_foreign_options(args)
    if args.protocol == "jann":
        workload = jann_workload(args.jobs or 10_000, args.mean_runtime,
                                 args.io_intensity, args.seed,
                                 mean_interarrival=args.mean_interarrival,
                                 nodes=args.nodes or 320)
    else:
        if args.trace is None:
            raise UserError("--protocol swf needs --trace FILE")
        workload = swf_workload(args.trace, seed=args.seed, nodes=args.nodes,
                                jobs=args.jobs)
        _refuse_dropped_jobs(workload, args.nodes)
    if args.placement is not None:
        workload = place_files(workload, args.placement, args.seed)
    write_workload(workload, args.out)
    print(f"{args.out}: {len(workload)} jobs on {workload.nodes} nodes, offered "
          f"all-local load {workload.offered_load():.3f}")
    return EXIT_OK


def _refuse_dropped_jobs(workload: Any, nodes: int | None) -> None:
    """``--nodes`` below the log's widest job would silently leave jobs out
    (:func:`~opt_sched.gang.swf.swf_workload` drops them): refuse it."""
    if nodes is None:
        return
    dropped = workload.meta["skipped"].get(f"size>{nodes}", 0)
    if dropped:
        raise OptionError(f"--nodes={nodes} is narrower than {dropped} jobs of "
                          f"{workload.meta['source']} (the widest needs "
                          f"{workload.meta['widest_job']} nodes); give --nodes >= "
                          f"{workload.meta['widest_job']} or leave it out")


# -- replay ------------------------------------------------------------------------
def add_gang_options(parser: Any) -> None:
    """The gang schedulers' options (``--mpl``, ``--quantum``,
    ``--migration-budget``, ``--migration-cost``, ``--placement``), one
    definition for ``opt-sched replay`` and ``python -m opt_sched.gang
    replay``; ``parser`` may be an argument group."""
    from ..gang.placement import PLACEMENTS

    parser.add_argument("--mpl", type=positive_int, default=5,
                        help="multiprogramming level: rows of the matrix (default 5)")
    parser.add_argument("--quantum", type=positive_float, default=200.0,
                        help="time slice T in seconds (default 200)")
    parser.add_argument("--migration-budget", type=non_negative_int, default=64,
                        help="Q: tasks migrated per slice (migrate-iogs; default 64)")
    parser.add_argument("--migration-cost", type=non_negative_float, default=20.0,
                        help="C: migration cost in seconds (migrate-iogs; default 20)")
    parser.add_argument("--placement", choices=PLACEMENTS, default=None,
                        help="file-node placement (default: the workload's, else "
                             "random)")


def add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``replay`` for gang workloads."""
    from ..gang.schedulers import GANG_SCHEDULERS

    parser.add_argument("workload", help="gang workload JSON (from generate)")
    parser.add_argument("--scheduler", choices=tuple(GANG_SCHEDULERS), required=True)
    add_gang_options(parser)
    parser.add_argument("--seed", type=seed, default=0,
                        help="seed of the file-node placement (default 0)")
    parser.add_argument("--out", type=output_path, default=None,
                        help="per-job CSV to write")
    parser.add_argument("--schedule", type=output_path, default=None,
                        help="also write the gang schedule record (JSON)")
    parser.add_argument("--validate", action="store_true",
                        help="check the schedule with the independent validator")
    parser.add_argument("--json", action="store_true", help="print JSON")


def _csv(table: dict[str, Any]) -> str:
    from ..gang.metrics import JOB_COLUMNS

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(JOB_COLUMNS)
    columns = [table[c].tolist() for c in JOB_COLUMNS]
    for row in zip(*columns):
        writer.writerow([_cell(v) for v in row])
    return buffer.getvalue()


def _cell(value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    return value


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def _refuse_scheduler_options(args: argparse.Namespace) -> None:
    """``--migration-budget`` / ``--migration-cost`` given to a scheduler
    whose factory does not take them (all but migrate-iogs) is an error
    (:func:`_options_taken`, as ``opt-sched replay`` decides)."""
    from .arguments import given_options, refuse_options

    def applies_to(dest: str) -> str:
        return ", ".join(name for name in _gang_schedulers()
                         if dest in _options_taken(name))

    given = {dest for dest in given_options(args, add_replay_arguments)
             if dest.startswith("migration_")}
    refuse_options(given, _options_taken(args.scheduler),
                   f"gang scheduler {args.scheduler}", applies_to)


def run_replay(args: argparse.Namespace) -> int:
    """``replay``: simulate, (validate,) write the CSV, print the summary."""
    from ..errors import InfeasibleScheduleError
    from ..gang.metrics import gang_job_table, gang_summary
    from ..gang.placement import place_files
    from ..gang.record import write_record
    from ..gang.simulator import simulate_gang
    from ..gang.validate import validate_gang
    from ..gang.workload import read_workload

    _refuse_scheduler_options(args)
    workload = read_workload(args.workload)
    if args.placement is not None or workload.file_nodes is None:
        workload = place_files(workload, args.placement or "random", args.seed)
    record = simulate_gang(workload, args.scheduler, mpl=args.mpl,
                           quantum=args.quantum,
                           migration_budget=args.migration_budget,
                           migration_cost=args.migration_cost)
    summary = gang_summary(workload, record)
    summary["placement"] = workload.placement
    if args.validate:
        violations = validate_gang(workload, record)
        if violations:
            shown = "; ".join(v.message for v in violations[:5])
            raise InfeasibleScheduleError(f"{len(violations)} violations: {shown}")
        summary["validated"] = True
    if args.out:
        atomic_write_text(args.out, _csv(gang_job_table(workload, record)))
    if args.schedule:
        write_record(record, args.schedule)
    if args.json:
        print(json.dumps(_jsonable(summary), indent=1))
    else:
        width = max(len(k) for k in summary)
        for key, value in summary.items():
            shown = f"{value:.6g}" if isinstance(value, float) else value
            print(f"{key:<{width}}  {shown}")
    return EXIT_OK


# -- both --------------------------------------------------------------------------
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``generate`` and ``replay`` sub-commands to ``parser``."""
    sub = parser.add_subparsers(dest="gang_command", required=True,
                                parser_class=OneLineParser)
    add_generate_arguments(sub.add_parser(
        "generate", help="write a gang workload (jann protocol or an SWF log)"))
    add_replay_arguments(sub.add_parser(
        "replay", help="gang-schedule a workload on a serverless-I/O machine"))


def run(args: argparse.Namespace) -> int:
    """Run the sub-command chosen by :func:`add_arguments`' parser."""
    if args.gang_command == "generate":
        return run_generate(args)
    return run_replay(args)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m opt_sched.gang``: parse, then run inside the error boundary
    of ``opt-sched`` (:func:`opt_sched.cli.boundary.run_command`): exit 2 and
    one line for bad input, 3 for a bug, 130 and one line for Ctrl-C."""
    from .boundary import interrupt_line, run_command

    parser = OneLineParser(prog="python -m opt_sched.gang",
                           description="Gang scheduling on a serverless-I/O machine "
                                       "(seed 004).")
    add_arguments(parser)
    try:
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        print(interrupt_line(), file=sys.stderr)
        return EXIT_INTERRUPTED
    return run_command(run, args, owns_process=argv is None)


# -- the door of ``opt-sched replay`` ----------------------------------------------
GANG_OPTIONS = frozenset({"mpl", "quantum", "migration_budget", "migration_cost",
                          "placement"})
"""Options of the gang schedulers only."""

GANG_TAKES = GANG_OPTIONS | {"seed", "out", "schedule", "validate", "quiet"}
"""Every option the replay of a gang workload takes (``--seed`` draws the
file nodes); the others belong to the space-sharing schedulers."""


def _gang_schedulers() -> Sequence[str]:
    from ..gang.schedulers import GANG_SCHEDULERS

    return tuple(GANG_SCHEDULERS)


def _options_taken(scheduler: str) -> frozenset[str]:
    """:data:`GANG_TAKES` less the scheduler options its factory does not
    take (``--migration-budget`` and ``--migration-cost``: migrate-iogs)."""
    import inspect

    from ..gang.schedulers import GANG_SCHEDULERS

    params = inspect.signature(GANG_SCHEDULERS[scheduler]).parameters
    return frozenset(dest for dest in GANG_TAKES
                     if not dest.startswith("migration_") or dest in params)


def _replay_gang_workload(args: argparse.Namespace) -> int:
    """``opt-sched replay WORKLOAD --scheduler <gang scheduler>``."""
    args.workload = args.trace
    return run_replay(args)


def _door() -> ReplayDoor:
    from ..gang.serverless import EXECUTION

    return ReplayDoor(EXECUTION, "gang scheduling (seed 004)", "gang",
                      _gang_schedulers, add_gang_options, GANG_OPTIONS,
                      _options_taken, _replay_gang_workload)


REPLAY_DOOR = _door()
"""The gang schedulers' door of ``opt-sched replay`` (entry point
``serverless-gang`` of the group ``opt_sched.replay_doors``)."""
