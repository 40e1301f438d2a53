"""``opt-sched simulate``: execute a plan with an I/O policy into a timed,
validated schedule, under the exclusive I/O model (default) or bandwidth
sharing (``--execution shared``).

``--plan`` is a method spec of the registry that makes a plan
(``one-pack``, ``make-pack(S=2)+lpt(R=2)``, ``first-fit+lpt``, a plug-in's),
or ``packs``/``starts`` with ``--plan-file``
(:mod:`opt_sched.cli.plan_file`)."""

from __future__ import annotations

import argparse

from ..arguments import add_execution_options, execution_spec, output_path
from ..exit_codes import EXIT_OK
from ..output import print_json

NAME = "simulate"
HELP = "execute a plan with an I/O policy into a timed schedule"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("instance")
    parser.add_argument("--plan", default="one-pack", metavar="SPEC",
                        help="a method spec that makes a plan (one-pack, "
                             "'make-pack(S=2)+lpt(R=2)', first-fit+lpt, ...; an "
                             "unknown name lists the methods), or packs / starts "
                             "with --plan-file (default one-pack)")
    parser.add_argument("--plan-file",
                        help="JSON with 'packs' or 'starts' (or a schedule)")
    parser.add_argument("--io-policy", default=None,
                        help="I/O list policy (default fifo, or the spec's /policy)")
    parser.add_argument("--out", type=output_path, help="write the schedule here")
    add_execution_options(parser)


def run(args: argparse.Namespace) -> int:
    from ...json_files import read_instance, write_schedule
    from ...metrics import summary
    from ...scheduling.execute import execute_plan
    from ...validation import assert_feasible
    from ..plan_file import build_plan

    spec = execution_spec(args)
    instance = read_instance(args.instance)
    plan, policy = build_plan(instance, args)
    schedule = execute_plan(instance, plan, spec, policy=policy)
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
