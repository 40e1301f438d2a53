"""``opt-sched simulate``: execute a plan with an I/O policy into a timed,
validated schedule, under the exclusive I/O model (default) or bandwidth
sharing (``--execution shared``). An option the chosen ``--plan`` does not
take (:data:`PLAN_OPTIONS`) is an error naming both."""

from __future__ import annotations

import argparse

from ..arguments import (
    add_execution_options,
    execution_spec,
    given_options,
    output_path,
    positive_int,
    refuse_options,
    sensibility,
)
from ..exit_codes import EXIT_OK
from ..output import print_json

NAME = "simulate"
HELP = "execute a plan with an I/O policy into a timed schedule"

PLAN_OPTIONS: dict[str, frozenset[str]] = {
    "one-pack": frozenset(),
    "packs": frozenset({"plan_file"}),
    "starts": frozenset({"plan_file"}),
    "make-pack": frozenset({"sensibility", "io_nodes"}),
    "first-fit": frozenset({"io_nodes"}),
}
"""``--plan`` -> the plan options it takes (of ``--plan-file``,
``--sensibility``, ``--io-nodes``)."""


def _refuse_foreign_plan_options(args: argparse.Namespace) -> None:
    """An option of another ``--plan`` is an error, never ignored."""
    every = set().union(*PLAN_OPTIONS.values())
    given = given_options(args, add_arguments) & every

    def applies_to(dest: str) -> str:
        return ", ".join(f"--plan {kind}" for kind, takes in PLAN_OPTIONS.items()
                         if dest in takes)

    refuse_options(given, PLAN_OPTIONS[args.plan], f"--plan {args.plan}", applies_to)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("instance")
    from ..plan_file import PLAN_KINDS

    parser.add_argument("--plan", default="one-pack", choices=PLAN_KINDS)
    parser.add_argument("--plan-file",
                        help="JSON with 'packs' or 'starts' (or a schedule)")
    parser.add_argument("--io-policy", default="fifo",
                        help="I/O list policy (default fifo)")
    parser.add_argument("--sensibility", type=sensibility, default=1.0,
                        help="Make-Pack I/O sensibility S (default 1; 'inf' = "
                             "First-Fit)")
    parser.add_argument("--io-nodes", type=positive_int, default=None,
                        help="allocate packs by LPT on the first R partitions")
    parser.add_argument("--out", type=output_path, help="write the schedule here")
    add_execution_options(parser)


def run(args: argparse.Namespace) -> int:
    from ...io import read_instance, write_schedule
    from ...metrics import summary
    from ...scheduling.execute import execute_plan
    from ...validation import assert_feasible
    from ..plan_file import build_plan

    _refuse_foreign_plan_options(args)
    spec = execution_spec(args)
    instance = read_instance(args.instance)
    plan = build_plan(instance, args)
    schedule = execute_plan(instance, plan, spec, policy=args.io_policy)
    report = assert_feasible(instance, schedule)
    if args.out:
        write_schedule(schedule, args.out, instance)
    stats = summary(instance, schedule, phase_table=report.table)
    if args.json:
        print_json({"instance": instance.name, "method": schedule.method,
                    "execution": spec.label, "feasible": True, **stats.to_dict()})
    else:
        print(f"{instance.name}: {schedule.method}, execution {spec.label} "
              f"(validated feasible)")
        print(stats.to_string())
        if args.out:
            print(f"schedule written to {args.out}")
    return EXIT_OK
