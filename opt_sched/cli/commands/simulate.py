"""``opt-sched simulate``: execute a plan with an I/O policy into a timed,
validated schedule."""

from __future__ import annotations

import argparse

from ..arguments import output_path, positive_int, sensibility
from ..exit_codes import EXIT_OK
from ..output import print_json
from ..plan_file import PLAN_KINDS, build_plan

NAME = "simulate"
HELP = "execute a plan with an I/O policy into a timed schedule"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("instance")
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


def run(args: argparse.Namespace) -> int:
    from ...io import read_instance, write_schedule
    from ...metrics import summary
    from ...simulation import simulate
    from ...validation import assert_feasible

    instance = read_instance(args.instance)
    plan = build_plan(instance, args)
    schedule = simulate(instance, plan, policy=args.io_policy)
    assert_feasible(instance, schedule)
    if args.out:
        write_schedule(schedule, args.out, instance)
    stats = summary(instance, schedule)
    if args.json:
        print_json({"instance": instance.name, "method": schedule.method,
                    "feasible": True, **stats.to_dict()})
    else:
        print(f"{instance.name}: {schedule.method} (validated feasible)")
        print(stats.to_string())
        if args.out:
            print(f"schedule written to {args.out}")
    return EXIT_OK
