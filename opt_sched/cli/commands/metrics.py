"""``opt-sched metrics``: the metrics of a schedule (SPEC §4)."""

from __future__ import annotations

import argparse
import sys

from ..exit_codes import EXIT_OK
from ..output import print_json

NAME = "metrics"
HELP = "metrics of a schedule (SPEC §4)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("instance")
    parser.add_argument("schedule")
    parser.add_argument("--per-job", action="store_true",
                        help="also print the job table")


def run(args: argparse.Namespace) -> int:
    import pandas as pd

    from ...json_files import read_instance, read_schedule
    from ...metrics import job_table, summary
    from ...validation import validate

    instance = read_instance(args.instance)
    schedule = read_schedule(args.schedule)
    report = validate(instance, schedule)
    stats = summary(instance, schedule)
    table = job_table(instance, schedule)
    if args.json:
        print_json({"instance": instance.name, "feasible": report.feasible,
                    "violations": len(report.violations),
                    "summary": stats.to_dict(),
                    "jobs": table.reset_index().to_dict(orient="records")})
        return EXIT_OK
    if not report.feasible:
        print(f"opt-sched: warning: the schedule is INFEASIBLE "
              f"({len(report.violations)} violations; see `opt-sched validate`)",
              file=sys.stderr)
    with pd.option_context("display.width", 160, "display.max_rows", 200):
        print(stats.to_string())
        if args.per_job:
            print()
            print(table.to_string())
    return EXIT_OK
