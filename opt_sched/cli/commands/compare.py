"""``opt-sched compare``: every heuristic x every I/O policy on one
instance, each schedule validated, with its gap to the best lower bound."""

from __future__ import annotations

import argparse
import sys

from ..arguments import add_table_options, output_path, positive_int
from ..exit_codes import EXIT_OK
from ..output import show_rows
from ..rows import RowFile

NAME = "compare"
HELP = "every heuristic x every I/O policy, validated"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("instance")
    parser.add_argument("--io-nodes", type=positive_int, default=None)
    parser.add_argument("--out", type=output_path,
                        help="write the table here as CSV (full precision)")
    add_table_options(parser)


def run(args: argparse.Namespace) -> int:
    from ...experiments.compare import compare
    from ...io import read_instance

    instance = read_instance(args.instance)
    with RowFile(args.out) as rows:
        try:
            table = compare(instance, io_nodes=args.io_nodes)
        except KeyboardInterrupt:
            if rows.path is None and rows.rows and not args.json:
                show_rows(rows.rows, args, title="finished before the interruption")
            raise
        records = table.to_dict(orient="records")
        if args.out:
            rows.replace(records)
    for heuristic, reason in table.attrs.get("skipped", ()):
        print(f"skipped {heuristic}: {reason}", file=sys.stderr)
    show_rows(records, args, title=f"{instance.name}: every heuristic x every I/O "
              "policy (all schedules validated)")
    if args.out and not args.json:
        print(f"written to {args.out}")
    return EXIT_OK
