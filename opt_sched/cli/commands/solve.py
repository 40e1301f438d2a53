"""``opt-sched solve``: an exact model, with its status, validated value and
proven lower bound.

While it runs, stderr shows the elapsed time, the phase, the incumbent and
the bound every few seconds (:mod:`..progress`; ``--quiet`` silences it).
Ctrl-C stops every solver within a fraction of a second (exit 130).
"""

from __future__ import annotations

import argparse
import sys

from ...errors import UserError
from ..arguments import output_path, positive_float, positive_int, seed
from ..exit_codes import EXIT_OK
from ..output import print_json
from ..progress import solve_progress

NAME = "solve"
HELP = "solve exactly (or with a proven bound)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    # the registry imports no solver (ortools, PuLP): its names are cheap
    from ...exact.registry import AUTO, problems, solver_choices
    from ...objectives import OBJECTIVES

    parser.add_argument("instance")
    parser.add_argument("--problem", default="io-sched", choices=problems())
    parser.add_argument("--objective", default="makespan", choices=OBJECTIVES,
                        help="max-flow-stretch and mean-flow-time (measured from "
                             "the releases): problem hpc-io")
    parser.add_argument("--solver", default=AUTO, choices=solver_choices(),
                        help="an exact backend; auto (the default): the "
                             "strongest one for the problem and objective "
                             "(io-sched: portfolio)")
    parser.add_argument("--time-limit", type=positive_float, default=60.0)
    parser.add_argument("--seed", type=seed, default=0)
    parser.add_argument("--workers", type=positive_int, default=2)
    parser.add_argument("--export", type=output_path,
                        help="write the model as .lp or .mps (MILP solvers)")
    parser.add_argument("--out", type=output_path,
                        help="write the validated schedule here")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress on stderr (elapsed time, phase, "
                             "incumbent and bound every few seconds)")


def _solve(instance, args: argparse.Namespace):
    """``(result, exported)``; the model file is written atomically."""
    from ...exact import solve
    from ...files import atomic_path

    options = {"problem": args.problem, "objective": args.objective,
               "solver": args.solver, "time_limit": args.time_limit,
               "seed": args.seed, "num_workers": args.workers}
    if not args.export:
        return solve(instance, **options), False
    temporary = None
    try:
        with atomic_path(args.export, required=False) as temporary:
            result = solve(instance, **options, export=str(temporary))
            exported = temporary.exists()
    except UserError as err:  # name the user's path, not the temporary one
        if temporary is None:
            raise
        raise type(err)(str(err).replace(str(temporary), str(args.export))) from None
    return result, exported


def _solver_label(requested: str, ran: str) -> str:
    """``auto -> portfolio`` when the solver was chosen, else its name."""
    return ran if requested == ran else f"{requested} -> {ran}"


def run(args: argparse.Namespace) -> int:
    from ...json_files import read_instance, write_schedule

    instance = read_instance(args.instance)
    with solve_progress("solve", args.time_limit, quiet=args.quiet):
        result, exported = _solve(instance, args)
    if args.export and not exported:
        print(f"opt-sched: warning: --export: solver {result.solver} wrote no model "
              f"for problem {args.problem} (the MILP solvers write .lp/.mps)",
              file=sys.stderr)
    if args.out and result.schedule is not None:
        write_schedule(result.schedule, args.out, instance)
    if args.json:
        print_json({"instance": instance.name, **result.to_dict()})
        return EXIT_OK

    def fmt(x: float | None) -> str:
        return "-" if x is None else f"{x:,.6g}"

    gap = "-" if result.gap is None else f"{100 * result.gap:.2f} %"
    print(f"{instance.name}: {args.problem} / {args.objective} / "
          f"{_solver_label(args.solver, result.solver)}")
    print(f"  status       {result.status}")
    print(f"  objective    {fmt(result.objective)}  (validated schedule)")
    print(f"  lower bound  {fmt(result.lower_bound)}")
    print(f"  gap          {gap}")
    print(f"  wall time    {result.wall_time:.2f} s")
    if args.out and result.schedule is not None:
        print(f"  schedule written to {args.out}")
    if exported:
        print(f"  model exported to {args.export}")
    return EXIT_OK
