"""``opt-sched validate``: check a schedule against the rules of SPEC §3."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..arguments import positive_float
from ..exit_codes import EXIT_INFEASIBLE, EXIT_OK
from ..output import print_json

NAME = "validate"
HELP = ("check a schedule against SPEC §3 rules 1-6 (exit 1 and every "
        "violation if it is infeasible)")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("instance")
    parser.add_argument("schedule")
    parser.add_argument("--tolerance", type=positive_float, default=1e-10,
                        help="relative tolerance on phase lengths (default 1e-10; "
                             "8 ulps of the times compared are always absorbed)")
    parser.add_argument("--resolution", type=positive_float, default=None,
                        help="the precision the schedule's times were written "
                             "with, if coarser than floating point (Batsim's "
                             "out_jobs.csv: 1e-6)")


def _other_kind(kind, args: argparse.Namespace) -> int:
    """A workload of another shape and its schedule (``opt-sched replay
    --scheduler gs ... --schedule FILE``): the rules of its
    :class:`~opt_sched.schedule_kinds.ScheduleKind`."""
    violations = kind.validate_files(Path(args.instance), Path(args.schedule),
                                     args.tolerance)
    if args.json:
        print_json({"feasible": not violations, "execution": kind.name,
                    "violations": [dict(v.to_dict()) for v in violations]})
    else:
        print("feasible" if not violations else
              f"INFEASIBLE, {len(violations)} violations")
        for v in violations[:50]:
            print(f"  {v}")
    return EXIT_INFEASIBLE if violations else EXIT_OK


def run(args: argparse.Namespace) -> int:
    from ...json_files import read_instance, read_schedule
    from ...schedule_kinds import kind_of_file
    from ...validation import validate

    kind = kind_of_file(args.instance)
    if kind is not None:
        return _other_kind(kind, args)
    instance = read_instance(args.instance)
    schedule = read_schedule(args.schedule)
    report = validate(instance, schedule, rel_tol=args.tolerance,
                      resolution=args.resolution or 0.0)
    if args.json:
        print_json(report.to_dict())
    else:
        print(report)
    return EXIT_OK if report.feasible else EXIT_INFEASIBLE
