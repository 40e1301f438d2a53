"""``opt-sched validate``: check a schedule against the rules of SPEC §3."""

from __future__ import annotations

import argparse

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


def _gang(args: argparse.Namespace) -> int:
    """A gang workload and its record (``opt-sched replay --scheduler gs ...
    --schedule FILE``): the gang rules of :mod:`opt_sched.gang.validate`."""
    from ...gang.record import read_record
    from ...gang.validate import validate_gang
    from ...gang.workload import read_workload

    violations = validate_gang(read_workload(args.instance),
                               read_record(args.schedule), rel_tol=args.tolerance)
    if args.json:
        print_json({"feasible": not violations,
                    "violations": [v.to_dict() for v in violations]})
    else:
        print("feasible" if not violations else
              f"INFEASIBLE, {len(violations)} violations")
        for v in violations[:50]:
            print(f"  {v}")
    return EXIT_INFEASIBLE if violations else EXIT_OK


def run(args: argparse.Namespace) -> int:
    from ...gang.workload import is_gang_workload_file
    from ...json_files import read_instance, read_schedule
    from ...validation import validate

    if is_gang_workload_file(args.instance):
        return _gang(args)
    instance = read_instance(args.instance)
    schedule = read_schedule(args.schedule)
    report = validate(instance, schedule, rel_tol=args.tolerance,
                      resolution=args.resolution or 0.0)
    if args.json:
        print_json(report.to_dict())
    else:
        print(report)
    return EXIT_OK if report.feasible else EXIT_INFEASIBLE
