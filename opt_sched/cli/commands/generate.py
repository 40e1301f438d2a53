"""``opt-sched generate``: a seeded workload of a generator protocol.

Protocols (each reads its own options; the others are ignored):

- ``ics2020`` -- seed 003 §6.2.2 (``--alpha-gen``, ``--seed``,
  ``--io-nodes``); ``tucan`` -- seed 003 Table 1 (``--batch``);
- ``mira``, ``uniform`` -- seed 000 (``--io-profile bn|no``, ``--alpha``,
  ``--variant calibrated|literal``, ``--jobs``, ``--seed``);
- ``jann`` -- seed 004's gang workload (``--io-intensity R|mixed``,
  ``--mean-runtime``, ``--mean-interarrival``, ``--jobs``, ``--nodes``,
  ``--seed``, ``--placement``); it writes a gang workload file, which
  ``opt-sched replay --scheduler gs|iogs|...`` reads;
- ``nersc-edison``, ``fit:TRACE.swf`` -- seed 002's NERSC-calibrated
  model, or one fitted to an SWF trace (``--nodes``, ``--days``,
  ``--seed``, ``--users``, ``--accounts``): arrivals under job-pressure
  control after a fill phase (:mod:`opt_sched.workloads.nersc`).
"""

from __future__ import annotations

import argparse

from ...errors import OptionError
from ..arguments import output_path, positive_float, positive_int, seed
from ..exit_codes import EXIT_OK
from ..output import print_json

NAME = "generate"
HELP = "generate a workload (ics2020, tucan, mira, uniform, jann)"

PROTOCOLS = ("ics2020", "tucan", "mira", "uniform", "jann", "nersc-edison",
             "fit:TRACE.swf")


def _protocol(text: str) -> str:
    if text in PROTOCOLS[:-1] or (text.startswith("fit:") and len(text) > 4):
        return text
    raise argparse.ArgumentTypeError(f"{text!r} is not one of "
                                     f"{', '.join(PROTOCOLS)}")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--protocol", default="ics2020", type=_protocol,
                        help=f"one of {', '.join(PROTOCOLS)}")
    parser.add_argument("--seed", type=seed, default=0)
    parser.add_argument("--out", type=output_path, required=True)
    parser.add_argument("--alpha-gen", type=positive_float, default=1.0,
                        help="target I/O load (ics2020)")
    parser.add_argument("--io-nodes", type=positive_int, default=1,
                        help="I/O nodes / partitions (ics2020)")
    parser.add_argument("--batch", type=positive_float, default=1.0,
                        help="iteration-batch multiplier (tucan)")
    parser.add_argument("--io-profile", default="bn", choices=["bn", "no"],
                        help="I/O profile (mira, uniform)")
    parser.add_argument("--alpha", type=positive_float, default=0.5,
                        help="target I/O load in (0, 1) (mira, uniform)")
    parser.add_argument("--variant", default="calibrated",
                        choices=["calibrated", "literal"],
                        help="bandwidth solved from eq. 2, or B = 1 (mira, uniform)")
    parser.add_argument("--jobs", type=positive_int, default=None,
                        help="number of jobs (mira, uniform: 100; jann: 10000)")
    parser.add_argument("--io-intensity", default="0.5",
                        help="r of every job, or 'mixed' (jann)")
    parser.add_argument("--mean-runtime", type=positive_float, default=3102.0,
                        help="mean all-local execution time, s (jann)")
    parser.add_argument("--mean-interarrival", type=positive_float, default=583.0,
                        help="mean inter-arrival time, s (jann)")
    parser.add_argument("--nodes", type=positive_int, default=None,
                        help="machine size (jann: 320)")
    parser.add_argument("--placement", choices=("random", "contiguous"), default=None,
                        help="also draw the file nodes (jann)")
    parser.add_argument("--days", type=positive_float, default=5.0,
                        help="experiment length in days (nersc-edison, fit:)")
    parser.add_argument("--users", type=positive_int, default=None,
                        help="spread jobs over this many users (nersc-edison, fit:)")
    parser.add_argument("--accounts", type=positive_int, default=1,
                        help="users' accounts (nersc-edison, fit:)")


def _instance(args: argparse.Namespace):
    if args.protocol == "nersc-edison" or args.protocol.startswith("fit:"):
        from ...workloads.nersc import DAY, generate_nersc

        return generate_nersc(args.protocol, nodes=args.nodes,
                              duration=args.days * DAY, seed=args.seed,
                              users=args.users, accounts=args.accounts), {}
    if args.protocol in ("ics2020", "tucan"):
        from ...workloads import generate

        return generate(args.protocol, alpha_gen=args.alpha_gen, seed=args.seed,
                        io_nodes=args.io_nodes, batch=args.batch), {}
    from ...workloads.ijhpca2023 import generate_ijhpca2023

    if not args.alpha < 1:
        raise OptionError(f"--alpha={args.alpha:g} must be below 1 ({args.protocol})")
    gen = generate_ijhpca2023(args.protocol, args.io_profile, args.alpha, args.seed,
                              jobs=args.jobs or 100, variant=args.variant)
    return gen.instance, {"bandwidth": gen.bandwidth, "rejected": gen.rejected}


def _jann(args: argparse.Namespace) -> int:
    from ...gang.jann import jann_workload
    from ...gang.placement import place_files
    from ...gang.workload import write_workload

    intensity: float | str = args.io_intensity
    if intensity != "mixed":
        try:
            intensity = float(intensity)
        except ValueError:
            raise OptionError(f"--io-intensity={args.io_intensity!r} is not a number "
                              f"in [0, 1] or 'mixed'") from None
    workload = jann_workload(args.jobs or 10_000, args.mean_runtime, intensity,
                             args.seed, mean_interarrival=args.mean_interarrival,
                             nodes=args.nodes or 320)
    if args.placement is not None:
        workload = place_files(workload, args.placement, args.seed)
    write_workload(workload, args.out)
    info = {"workload": str(args.out), "jobs": len(workload), "nodes": workload.nodes,
            "offered_load": workload.offered_load()}
    if args.json:
        print_json(info)
    else:
        print(f"{args.out}: {info['jobs']} gang jobs on {info['nodes']} nodes, "
              f"offered all-local load {info['offered_load']:.3f}")
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    from ...io import write_instance

    if args.protocol == "jann":
        return _jann(args)
    instance, extra = _instance(args)
    write_instance(instance, args.out)
    info = {"instance": instance.name, "out": str(args.out),
            "jobs": instance.num_jobs, "io_phases": instance.num_io_phases,
            "alpha": instance.io_load(),
            "partitions": instance.platform.num_partitions, **extra}
    if args.json:
        print_json(info)
    else:
        print(f"{args.out}: {info['jobs']} jobs, {info['io_phases']} I/O phases, "
              f"{info['partitions']} partition(s), actual alpha = "
              f"{info['alpha']:.4f}")
    return EXIT_OK
