"""``opt-sched compare``: every heuristic x every I/O policy on one
instance, each schedule validated, with its gap to the best lower bound."""

from __future__ import annotations

import argparse
import sys

from ..arguments import (
    add_execution_options,
    add_table_options,
    execution_spec,
    output_path,
    positive_int,
)
from ..exit_codes import EXIT_OK
from ..output import show_rows
from ..rows import collect_rows

NAME = "compare"
HELP = "every heuristic x every I/O policy, validated"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("instance")
    parser.add_argument("--io-nodes", type=positive_int, default=None)
    parser.add_argument("--methods", default=None, metavar="SPECS",
                        help="comma-separated method specs, run as written, e.g. "
                             "'ls/fifo, make-pack(S=1)+lpt/*' (default: every "
                             "registered method that applies to the instance, "
                             "heuristics x every I/O policy)")
    parser.add_argument("--out", type=output_path,
                        help="write the table here as CSV (full precision)")
    add_table_options(parser)
    add_execution_options(parser)


def run(args: argparse.Namespace) -> int:
    from ...experiments.compare import compare
    from ...json_files import read_instance

    spec = execution_spec(args)
    instance = read_instance(args.instance)
    table, records = collect_rows(
        args, lambda rows: compare(instance, io_nodes=args.io_nodes, execution=spec,
                                   methods=args.methods))
    for heuristic, reason in table.attrs.get("skipped", ()):
        print(f"skipped {heuristic}: {reason}", file=sys.stderr)
    notes = {r.get("bound_note") for r in records} - {None}
    for note in sorted(n for n in notes if isinstance(n, str)):
        print(f"{note}: lower_bound and gap left empty", file=sys.stderr)
    chosen = ("the methods given" if args.methods is not None
              else "every heuristic x every I/O policy, every applicable online method")
    show_rows(records, args, title=f"{instance.name}: {chosen}, execution "
              f"{spec.label} (all schedules validated)")
    if args.out and not args.json:
        print(f"written to {args.out}")
    return EXIT_OK
