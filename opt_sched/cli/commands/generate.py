"""``opt-sched generate``: a seeded workload of a generator protocol."""

from __future__ import annotations

import argparse

from ..arguments import output_path, positive_float, positive_int, seed
from ..exit_codes import EXIT_OK
from ..output import print_json

NAME = "generate"
HELP = "generate a workload"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--protocol", default="ics2020", help="ics2020 or tucan")
    parser.add_argument("--alpha-gen", type=positive_float, default=1.0)
    parser.add_argument("--seed", type=seed, default=0)
    parser.add_argument("--io-nodes", type=positive_int, default=1)
    parser.add_argument("--batch", type=positive_float, default=1.0,
                        help="iteration-batch multiplier (tucan)")
    parser.add_argument("--out", type=output_path, required=True)


def run(args: argparse.Namespace) -> int:
    from ...io import write_instance
    from ...workloads import generate

    instance = generate(args.protocol, alpha_gen=args.alpha_gen, seed=args.seed,
                        io_nodes=args.io_nodes, batch=args.batch)
    write_instance(instance, args.out)
    info = {"instance": instance.name, "out": str(args.out),
            "jobs": instance.num_jobs, "io_phases": instance.num_io_phases,
            "alpha": instance.io_load(),
            "partitions": instance.platform.num_partitions}
    if args.json:
        print_json(info)
    else:
        print(f"{args.out}: {info['jobs']} jobs, {info['io_phases']} I/O phases, "
              f"{info['partitions']} partition(s), actual alpha = "
              f"{info['alpha']:.4f}")
    return EXIT_OK
