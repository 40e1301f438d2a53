"""``opt-sched generate``: a seeded workload of a generator protocol.

Protocols (each takes its own options, declared in :data:`PROTOCOL_OPTIONS`;
an option given to a protocol that does not take it is an error naming
both, never silently ignored):

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
  control after a fill phase (:mod:`opt_sched.workloads.nersc`);
- ``goponenko-w1``, ``goponenko-w2`` -- seed 001's HPC-cluster Workloads 1
  and 2 (``--nodes``, default 256; ``--repeats``, default 8 / 5), every
  choice the slides leave open documented in
  :mod:`opt_sched.workloads.goponenko`; deterministic. Run them under the
  file system model it names (``opt-sched replay --execution shared
  --share nodes --node-rate 0.5 --eta 1:1,4:0.8,16:0.75``).
"""

from __future__ import annotations

import argparse

from ...errors import OptionError
from ..arguments import (
    output_path,
    positive_float,
    positive_int,
    refuse_options,
    seed,
)
from ..exit_codes import EXIT_OK
from ..output import print_json

NAME = "generate"
HELP = "generate a workload (ics2020, tucan, mira, uniform, jann, goponenko-w1, ...)"

PROTOCOLS = ("ics2020", "tucan", "mira", "uniform", "jann", "nersc-edison",
             "goponenko-w1", "goponenko-w2", "fit:TRACE.swf")

PROTOCOL_OPTIONS: dict[str, frozenset[str]] = {
    "ics2020": frozenset({"seed", "alpha_gen", "io_nodes"}),
    "tucan": frozenset({"batch"}),
    "mira": frozenset({"seed", "io_profile", "alpha", "variant", "jobs"}),
    "uniform": frozenset({"seed", "io_profile", "alpha", "variant", "jobs"}),
    "jann": frozenset({"seed", "io_intensity", "mean_runtime", "mean_interarrival",
                       "jobs", "nodes", "placement"}),
    "nersc-edison": frozenset({"seed", "nodes", "days", "users", "accounts"}),
    "fit:TRACE.swf": frozenset({"seed", "nodes", "days", "users", "accounts"}),
    "goponenko-w1": frozenset({"nodes", "repeats"}),
    "goponenko-w2": frozenset({"nodes", "repeats"}),
}
"""Protocol -> the options (``argparse`` dests) it takes. Every other
protocol option is refused when given (:func:`refuse_foreign_options`)."""

OPTION_DEFAULTS: dict[str, object] = {
    "seed": 0, "alpha_gen": 1.0, "io_nodes": 1, "batch": 1.0, "io_profile": "bn",
    "alpha": 0.5, "variant": "calibrated", "io_intensity": "0.5",
    "mean_runtime": 3102.0, "mean_interarrival": 583.0, "days": 5.0, "accounts": 1,
}
"""Defaults of the protocol options, applied once the options given have
been checked (each is declared with the default ``None``, which tells an
option given from one left out). ``jobs``, ``nodes``, ``repeats``,
``users`` and ``placement`` have per-protocol defaults (see their help)."""


def _protocol(text: str) -> str:
    if text in PROTOCOLS[:-1] or (text.startswith("fit:") and len(text) > 4):
        return text
    raise argparse.ArgumentTypeError(f"{text!r} is not one of "
                                     f"{', '.join(PROTOCOLS)}")


def protocol_key(protocol: str) -> str:
    """The :data:`PROTOCOL_OPTIONS` entry of ``protocol`` (``fit:X.swf`` ->
    ``fit:TRACE.swf``)."""
    return "fit:TRACE.swf" if protocol.startswith("fit:") else protocol


def refuse_foreign_options(args: argparse.Namespace) -> None:
    """Refuse every protocol option given that ``args.protocol`` does not
    take, then fill in the defaults of the ones left out.

    Raises
    ------
    OptionError
        ``--batch does not apply to protocol ics2020 (it applies to: tucan)``.
    """
    takes = PROTOCOL_OPTIONS[protocol_key(args.protocol)]
    given = {dest for dest in set().union(*PROTOCOL_OPTIONS.values())
             if getattr(args, dest) is not None}

    def applies_to(dest: str) -> str:
        return ", ".join(name for name, options in PROTOCOL_OPTIONS.items()
                         if dest in options)

    refuse_options(given, takes, f"protocol {args.protocol}", applies_to)
    for dest, default in OPTION_DEFAULTS.items():
        if getattr(args, dest) is None:
            setattr(args, dest, default)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--protocol", default="ics2020", type=_protocol,
                        help=f"one of {', '.join(PROTOCOLS)} (default ics2020)")
    parser.add_argument("--out", type=output_path, required=True)
    parser.add_argument("--seed", type=seed, default=None,
                        help="random seed (default 0; not tucan, goponenko-w1/w2: "
                             "they are deterministic)")
    parser.add_argument("--alpha-gen", type=positive_float, default=None,
                        help="target I/O load (ics2020; default 1)")
    parser.add_argument("--io-nodes", type=positive_int, default=None,
                        help="I/O nodes / partitions (ics2020; default 1)")
    parser.add_argument("--batch", type=positive_float, default=None,
                        help="iteration-batch multiplier (tucan; default 1)")
    parser.add_argument("--io-profile", default=None, choices=["bn", "no"],
                        help="I/O profile (mira, uniform; default bn)")
    parser.add_argument("--alpha", type=positive_float, default=None,
                        help="target I/O load in (0, 1) (mira, uniform; default 0.5)")
    parser.add_argument("--variant", default=None,
                        choices=["calibrated", "literal"],
                        help="bandwidth solved from eq. 2, or B = 1 (mira, uniform; "
                             "default calibrated)")
    parser.add_argument("--jobs", type=positive_int, default=None,
                        help="number of jobs (mira, uniform: 100; jann: 10000)")
    parser.add_argument("--io-intensity", default=None,
                        help="r of every job, or 'mixed' (jann; default 0.5)")
    parser.add_argument("--mean-runtime", type=positive_float, default=None,
                        help="mean all-local execution time, s (jann; default 3102)")
    parser.add_argument("--mean-interarrival", type=positive_float, default=None,
                        help="mean inter-arrival time, s (jann; default 583)")
    parser.add_argument("--nodes", type=positive_int, default=None,
                        help="machine size (jann: 320; goponenko-w1/w2: 256; "
                             "nersc-edison, fit: the model's)")
    parser.add_argument("--repeats", type=positive_int, default=None,
                        help="periods of the pattern (goponenko-w1: 8, -w2: 5)")
    parser.add_argument("--placement", choices=("random", "contiguous"), default=None,
                        help="also draw the file nodes (jann)")
    parser.add_argument("--days", type=positive_float, default=None,
                        help="experiment length in days (nersc-edison, fit:; "
                             "default 5)")
    parser.add_argument("--users", type=positive_int, default=None,
                        help="spread jobs over this many users (nersc-edison, fit:)")
    parser.add_argument("--accounts", type=positive_int, default=None,
                        help="users' accounts (nersc-edison, fit:; default 1)")


def _instance(args: argparse.Namespace):
    if args.protocol.startswith("goponenko-w"):
        from ...workloads.goponenko import EXECUTION, goponenko_workload

        workload = int(args.protocol[-1])
        return goponenko_workload(workload, args.nodes or 256, args.repeats), {
            "execution": {"model": "shared", **EXECUTION}}
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

    refuse_foreign_options(args)
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
