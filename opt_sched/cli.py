"""The ``opt-sched`` command line.

Every command reads instance / schedule files, calls the library and prints a
table (or JSON with ``--json``). Exit status: 0 success (``validate``:
feasible), 1 ``validate`` found violations, 2 bad input (one line on stderr,
never a traceback), 3 internal error (a method produced a schedule the
validator rejects: a bug), 130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

__all__ = ["build_plan", "main", "make_parser"]

from .errors import InternalError, PlanError, UserError

EXIT_OK, EXIT_INFEASIBLE, EXIT_BAD_INPUT, EXIT_BUG = 0, 1, 2, 3


class _Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if hasattr(value, "item"):  # numpy scalars
        return _jsonable(value.item())
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _print_json(data: Any) -> None:
    print(json.dumps(_jsonable(data), indent=1))


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number")
    return value


def _sensibility(text: str) -> float:
    if text.lower() in ("inf", "infinity"):
        return math.inf
    return _positive_float(text)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be >= 1")
    return value


# -- plans -------------------------------------------------------------------
def _read_plan_file(path: str) -> dict[str, Any]:
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        raise PlanError(f"{path}: no such file") from None
    except json.JSONDecodeError as err:
        raise PlanError(
            f"{path}: not valid JSON (line {err.lineno}: {err.msg})") from None
    if not isinstance(data, dict):
        raise PlanError(f"{path}: expected an object with 'packs' or 'starts'")
    return data


def build_plan(instance, args: argparse.Namespace):
    """The plan named by ``--plan`` (and ``--plan-file``, ``--sensibility``...)."""
    from .simulation import OnePackPlan, PackPlan, StartsPlan

    kind = args.plan
    if kind in ("make-pack", "first-fit"):
        from .heuristics import pack_plan

        sensibility = math.inf if kind == "first-fit" else args.sensibility
        return pack_plan(instance, kind, sensibility=sensibility,
                         io_nodes=args.io_nodes)
    if kind == "one-pack":
        return OnePackPlan()
    if args.plan_file is None:
        raise PlanError(f"--plan {kind} needs --plan-file (a JSON file with "
                        f"'{'packs' if kind == 'packs' else 'starts'}', or a schedule)")
    data = _read_plan_file(args.plan_file)
    if kind == "packs":
        if "packs" not in data:
            raise PlanError(f"{args.plan_file}: no 'packs' field")
        return PackPlan(data["packs"])
    # starts: {"starts": {"id": {"partition": k, "start": t}}} or a schedule file
    if "starts" in data:
        starts = data["starts"]
        if not isinstance(starts, dict):
            raise PlanError(f"{args.plan_file}: 'starts' must map job ids to "
                            "{partition, start}")
        try:
            partition = {k: int(v["partition"]) for k, v in starts.items()}
            start = {k: float(v["start"]) for k, v in starts.items()}
        except (KeyError, TypeError, ValueError):
            raise PlanError(f"{args.plan_file}: every 'starts' entry needs "
                            "numeric 'partition' and 'start'") from None
        return StartsPlan(partition=partition, start=start)
    from .io import schedule_from_dict

    schedule = schedule_from_dict(data)
    return StartsPlan(partition={js.id: js.partition for js in schedule.jobs},
                      start={js.id: js.start for js in schedule.jobs})


def _emit_table(table, args: argparse.Namespace, title: str | None = None) -> None:
    """Write ``table`` to ``--out`` (CSV) if asked; print it as JSON records
    with ``--json``, else as text."""
    import pandas as pd

    if args.out:
        table.to_csv(args.out, index=False)
    if args.json:
        _print_json(table.to_dict(orient="records"))
        return
    with pd.option_context("display.width", 200, "display.max_rows", 1000,
                           "display.float_format", "{:.4g}".format):
        if title:
            print(title)
        print(table.to_string(index=False))
    if args.out:
        print(f"written to {args.out}")


# -- commands ------------------------------------------------------------------
def _cmd_simulate(args: argparse.Namespace) -> int:
    from .io import read_instance, write_schedule
    from .metrics import summary
    from .simulation import simulate
    from .validation import assert_feasible

    instance = read_instance(args.instance)
    plan = build_plan(instance, args)
    schedule = simulate(instance, plan, policy=args.io_policy)
    assert_feasible(instance, schedule)
    if args.out:
        write_schedule(schedule, args.out, instance)
    stats = summary(instance, schedule)
    if args.json:
        _print_json({"instance": instance.name, "method": schedule.method,
                     "feasible": True, **stats.to_dict()})
    else:
        print(f"{instance.name}: {schedule.method} (validated feasible)")
        print(stats.to_string())
        if args.out:
            print(f"schedule written to {args.out}")
    return EXIT_OK


def _cmd_validate(args: argparse.Namespace) -> int:
    from .io import read_instance, read_schedule
    from .validation import validate

    instance = read_instance(args.instance)
    schedule = read_schedule(args.schedule)
    report = validate(instance, schedule, rel_tol=args.tolerance)
    if args.json:
        _print_json(report.to_dict())
    else:
        print(report)
    return EXIT_OK if report.feasible else EXIT_INFEASIBLE


def _cmd_bounds(args: argparse.Namespace) -> int:
    from .bounds import makespan_bounds, max_stretch_bounds
    from .io import read_instance

    instance = read_instance(args.instance)
    ms = makespan_bounds(instance)
    st = max_stretch_bounds(instance)
    if args.json:
        _print_json({"instance": instance.name, "makespan": ms, "max_stretch": st,
                     "best_makespan": max(ms.values()),
                     "best_max_stretch": max(st.values())})
        return EXIT_OK
    print(f"{instance.name}: lower bounds")
    for title, bounds in (("makespan", ms), ("max stretch", st)):
        best = max(bounds, key=bounds.get)
        print(f"  {title}:")
        for name, value in bounds.items():
            mark = "  <- best" if name == best else ""
            print(f"    {name:<22} {value:14.6g}{mark}")
    return EXIT_OK


def _cmd_metrics(args: argparse.Namespace) -> int:
    import pandas as pd

    from .io import read_instance, read_schedule
    from .metrics import job_table, summary
    from .validation import validate

    instance = read_instance(args.instance)
    schedule = read_schedule(args.schedule)
    report = validate(instance, schedule)
    stats = summary(instance, schedule)
    table = job_table(instance, schedule)
    if args.json:
        _print_json({"instance": instance.name, "feasible": report.feasible,
                     "violations": len(report.violations),
                     "summary": stats.to_dict(),
                     "jobs": table.reset_index().to_dict(orient="records")})
    else:
        if not report.feasible:
            print(f"warning: the schedule is INFEASIBLE ({len(report.violations)} "
                  "violations; see `opt-sched validate`)", file=sys.stderr)
        with pd.option_context("display.width", 160, "display.max_rows", 200):
            print(stats.to_string())
            if args.per_job:
                print()
                print(table.to_string())
    return EXIT_OK


def _cmd_generate(args: argparse.Namespace) -> int:
    from .io import write_instance
    from .workloads import generate

    instance = generate(args.protocol, alpha_gen=args.alpha_gen, seed=args.seed,
                        io_nodes=args.io_nodes, batch=args.batch)
    write_instance(instance, args.out)
    info = {"instance": instance.name, "out": args.out, "jobs": instance.num_jobs,
            "io_phases": instance.num_io_phases, "alpha": instance.io_load(),
            "partitions": instance.platform.num_partitions}
    if args.json:
        _print_json(info)
    else:
        print(f"{args.out}: {info['jobs']} jobs, {info['io_phases']} I/O phases, "
              f"{info['partitions']} partition(s), actual alpha = {info['alpha']:.4f}")
    return EXIT_OK


def _cmd_compare(args: argparse.Namespace) -> int:

    from .experiments.compare import compare
    from .io import read_instance

    instance = read_instance(args.instance)
    table = compare(instance, io_nodes=args.io_nodes)
    _emit_table(table, args, title=f"{instance.name}: every heuristic x every "
                "I/O policy (all schedules validated)")
    return EXIT_OK


def _cmd_solve(args: argparse.Namespace) -> int:
    from .exact import solve
    from .io import read_instance, write_schedule

    instance = read_instance(args.instance)
    result = solve(instance, problem=args.problem, objective=args.objective,
                   solver=args.solver, time_limit=args.time_limit, seed=args.seed,
                   num_workers=args.workers, export=args.export)
    if args.out and result.schedule is not None:
        write_schedule(result.schedule, args.out, instance)
    if args.json:
        _print_json({"instance": instance.name, **result.to_dict()})
    else:
        def fmt(x: float | None) -> str:
            return "-" if x is None else f"{x:.6g}"

        gap = "-" if result.gap is None else f"{100 * result.gap:.3f} %"
        print(f"{instance.name}: {args.problem} / {args.objective} / {args.solver}")
        print(f"  status       {result.status}")
        print(f"  objective    {fmt(result.objective)}  (validated schedule)")
        print(f"  lower bound  {fmt(result.lower_bound)}")
        print(f"  gap          {gap}")
        print(f"  wall time    {result.wall_time:.2f} s")
        if args.out and result.schedule is not None:
            print(f"  schedule written to {args.out}")
        if args.export:
            print(f"  model exported to {args.export}")
    return EXIT_OK


def _cmd_gap(args: argparse.Namespace) -> int:

    from .experiments.gap import gap_table

    table = gap_table(args.instances, methods=args.methods,
                      time_limit=args.time_limit, solver=args.solver,
                      objective=args.objective, progress=not args.quiet)
    _emit_table(table, args)
    return EXIT_OK


# -- parser --------------------------------------------------------------------
def make_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="opt-sched", description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", action="version", version="opt-sched 0.1.0")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def command(name: str, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--json", action="store_true", help="machine-readable output")
        return p

    p = command("simulate", "execute a plan with an I/O policy into a timed schedule")
    p.add_argument("instance")
    p.add_argument("--plan", default="one-pack",
                   choices=["one-pack", "packs", "starts", "make-pack", "first-fit"])
    p.add_argument("--plan-file", help="JSON with 'packs' or 'starts' (or a schedule)")
    p.add_argument("--io-policy", default="fifo", help="I/O list policy (default fifo)")
    p.add_argument("--sensibility", type=_sensibility, default=1.0,
                   help="Make-Pack I/O sensibility S (default 1; 'inf' = First-Fit)")
    p.add_argument("--io-nodes", type=_positive_int, default=None,
                   help="allocate packs by LPT on the first R partitions")
    p.add_argument("--out", help="write the schedule here")
    p.set_defaults(func=_cmd_simulate)

    p = command("validate", "check a schedule against SPEC §3 rules 1-6")
    p.add_argument("instance")
    p.add_argument("schedule")
    p.add_argument("--tolerance", type=_positive_float, default=1e-9,
                   help="relative tolerance (default 1e-9 of the horizon)")
    p.set_defaults(func=_cmd_validate)

    p = command("bounds", "lower bounds on makespan and max stretch")
    p.add_argument("instance")
    p.set_defaults(func=_cmd_bounds)

    p = command("metrics", "metrics of a schedule (SPEC §4)")
    p.add_argument("instance")
    p.add_argument("schedule")
    p.add_argument("--per-job", action="store_true", help="also print the job table")
    p.set_defaults(func=_cmd_metrics)

    p = command("generate", "generate a workload")
    p.add_argument("--protocol", default="ics2020", help="ics2020 or tucan")
    p.add_argument("--alpha-gen", type=_positive_float, default=1.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--io-nodes", type=_positive_int, default=1)
    p.add_argument("--batch", type=_positive_float, default=1.0,
                   help="iteration-batch multiplier (tucan)")
    p.add_argument("--out", required=True)
    p.set_defaults(func=_cmd_generate)

    p = command("compare", "every heuristic x every I/O policy, validated")
    p.add_argument("instance")
    p.add_argument("--io-nodes", type=_positive_int, default=None)
    p.add_argument("--out", help="write the table as CSV")
    p.set_defaults(func=_cmd_compare)

    p = command("solve", "solve exactly (or with a proven bound)")
    p.add_argument("instance")
    p.add_argument("--problem", default="io-sched",
                   choices=["io-sched", "hpc-io", "packs", "planning"])
    p.add_argument("--objective", default="makespan",
                   choices=["makespan", "max-stretch"])
    p.add_argument("--solver", default="cpsat", choices=["cpsat", "cbc", "highs"])
    p.add_argument("--time-limit", type=_positive_float, default=60.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=_positive_int, default=2)
    p.add_argument("--export", help="write the model as .lp or .mps (MILP solvers)")
    p.add_argument("--out", help="write the validated schedule here")
    p.set_defaults(func=_cmd_solve)

    p = command("gap", "heuristics vs proven bounds on many instances")
    p.add_argument("instances", nargs="+", help="instance files or folders")
    p.add_argument("--methods", default=None,
                   help="comma-separated heuristics (default: all)")
    p.add_argument("--objective", default="makespan",
                   choices=["makespan", "max-stretch"])
    p.add_argument("--solver", default="cpsat", choices=["cpsat", "cbc", "highs"])
    p.add_argument("--time-limit", type=_positive_float, default=10.0,
                   help="exact solver time limit per instance (s)")
    p.add_argument("--out", help="write the table as CSV")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=_cmd_gap)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = make_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except InternalError as err:
        print(f"opt-sched: internal error (a bug, please report): {err}",
              file=sys.stderr)
        return EXIT_BUG
    except UserError as err:
        print(f"opt-sched: error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("opt-sched: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

