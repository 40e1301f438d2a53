"""``opt-sched gap``: heuristics against proven bounds on many instances.

Every finished row is kept in ``--out`` as soon as it is finished (the
library rewrites the file atomically after each instance), so that Ctrl-C
loses none; the interrupt line counts the whole rows in the file
(:mod:`..rows`).
"""

from __future__ import annotations

import argparse

from ..arguments import (
    add_execution_options,
    add_table_options,
    execution_spec,
    output_path,
    positive_float,
    positive_int,
    seed,
)
from ..exit_codes import EXIT_OK
from ..output import show_rows
from ..rows import collect_rows

NAME = "gap"
HELP = "heuristics vs proven bounds on many instances"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # the registry imports no solver (ortools, PuLP): its names are cheap
    from ...exact.registry import AUTO, solver_choices
    from ...objectives import BATCH_OBJECTIVES

    parser.add_argument("instances", nargs="+", help="instance files or folders")
    parser.add_argument("--methods", default=None,
                        help="comma-separated method specs, e.g. 'ls/fifo, "
                             "make-pack(S=1)+lpt/*' (default: every registered "
                             "default that makes the instance's problem and "
                             "applies to it)")
    parser.add_argument("--objective", default="makespan", choices=BATCH_OBJECTIVES)
    parser.add_argument("--solver", default=AUTO, choices=solver_choices(),
                        help="the exact solver of every instance; auto (the "
                             "default): the strongest one for each instance's "
                             "problem (io-sched: portfolio); its row is "
                             "named after the solver that ran")
    parser.add_argument("--time-limit", type=positive_float, default=10.0,
                        help="exact solver time limit per instance (s)")
    parser.add_argument("--seed", type=seed, default=0,
                        help="random seed of the solver and the methods (default 0)")
    parser.add_argument("--workers", type=positive_int, default=2,
                        help="solver threads per instance (default 2)")
    parser.add_argument("--processes", type=positive_int, default=1,
                        help="instances solved at once, each in its own process "
                             "(default 1)")
    parser.add_argument("--out", type=output_path,
                        help="write the rows here as CSV as they finish (full "
                             "precision)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress on stderr")
    add_table_options(parser)
    add_execution_options(parser)


def run(args: argparse.Namespace) -> int:
    from ...experiments.gap import gap_table

    spec = execution_spec(args)  # only bounds proven under it are used
    # gap_table checks every input first, then hands over each finished row
    # as it goes; the row file rewrites --out atomically: Ctrl-C loses none
    _, records = collect_rows(
        args, lambda rows: gap_table(
            args.instances, methods=args.methods, time_limit=args.time_limit,
            solver=args.solver, objective=args.objective, seed=args.seed,
            num_workers=args.workers, progress=not args.quiet, on_row=rows.add,
            workers=args.processes, execution=spec))
    show_rows(records, args)
    if args.out and not args.json:
        print(f"written to {args.out}")
    return EXIT_OK
