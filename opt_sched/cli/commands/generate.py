"""``opt-sched generate``: a seeded workload of a registered generator.

The protocols are the generators of the campaign registry
(:data:`opt_sched.campaign.sources.GENERATORS`, plug-ins included): the
same names and parameters a campaign spec uses. Each parameter of a
generator is an option (``io_nodes`` -> ``--io-nodes``); an option given
to a protocol that does not take it is an error naming both, never
silently ignored. A required parameter left out takes the generator's
``cli_defaults`` (a one-off workload), else it is an error.

A gang generator (``jann``, ``gang-kth``) writes a gang workload file,
which ``opt-sched replay --scheduler gs|iogs|...`` reads; the others write
an opt_sched instance. A generator that names its execution model
(``goponenko-w1``, ``goponenko-w2``: the shared model of seed 001's file
system) prints it, to pass to ``replay --execution``.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..arguments import flag, output_path, refuse_options
from ..exit_codes import EXIT_OK
from ..output import print_json

NAME = "generate"
HELP = "generate a workload of a registered generator (ics2020, mira, jann, ...)"


def _registry():
    from ...campaign.sources import GENERATORS

    return GENERATORS


def _protocol(text: str) -> str:
    registry = _registry()
    if text in registry:
        return text
    raise argparse.ArgumentTypeError(f"{text!r} is not one of "
                                     f"{', '.join(registry)}")


def _takers(dest: str) -> str:
    """The generators that take parameter ``dest``."""
    return ", ".join(name for name, generator in _registry().items()
                     if any(p.name == dest for p in generator.params))


def _option_help(dest: str) -> str:
    """``ics2020 (default 1), mira (default 100)``: who takes ``dest``."""
    parts = []
    for name, generator in _registry().items():
        for p in generator.params:
            if p.name == dest:
                default = generator.cli_defaults.get(dest, p.default)
                if default is not None:
                    parts.append(f"{name}: {default}")
                else:
                    parts.append(f"{name} (required)" if p.required else name)
    return "; ".join(parts)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    registry = _registry()
    lines = [f"{name} ({generator.help})" if generator.help else name
             for name, generator in registry.items()]
    parser.add_argument("--protocol", default="ics2020", type=_protocol,
                        help="the generator: " + "; ".join(lines)
                        + " (default ics2020)")
    parser.add_argument("--out", type=output_path, required=True)
    seen: set[str] = set()
    for generator in registry.values():
        for p in generator.params:
            if p.name in seen:
                continue
            seen.add(p.name)
            choices = f" ({'|'.join(p.choices)})" if p.choices else ""
            parser.add_argument(flag(p.name), dest=p.name, default=None,
                                metavar=p.kind.upper(),
                                help=f"{p.kind}{choices} -- {_option_help(p.name)}")


def _typed(dest: str, text: str, kind: str, choices: tuple[str, ...]) -> Any:
    """The option's text as the parameter's kind (a word among ``choices``
    stays a word)."""
    from ...errors import OptionError

    if kind == "str" or text in choices:
        return text
    try:
        return int(text) if kind == "int" else float(text)
    except ValueError:
        wanted = "an integer" if kind == "int" else "a number"
        raise OptionError(f"{flag(dest)}={text!r} is not {wanted}") from None


def generator_params(args: argparse.Namespace) -> dict[str, Any]:
    """The parameters of ``args.protocol`` from the options given (typed and
    checked like a campaign spec's), the generator's ``cli_defaults`` for the
    required ones left out.

    Raises
    ------
    OptionError
        ``--batch does not apply to protocol ics2020 (it applies to: tucan)``.
    SpecError
        A value of the wrong type or out of its declared range.
    """
    from ...campaign.sources import resolve_params

    generator = _registry()[args.protocol]
    every = {p.name for g in _registry().values() for p in g.params}
    given = {dest for dest in every if getattr(args, dest, None) is not None}
    takes = {p.name for p in generator.params}
    refuse_options(given, takes, f"protocol {args.protocol}", _takers)
    params: dict[str, Any] = dict(generator.cli_defaults)
    for p in generator.params:
        if p.name in given:
            params[p.name] = _typed(p.name, getattr(args, p.name), p.kind, p.choices)
    return resolve_params("generate", f"generator {args.protocol!r}", params,
                          generator.params)


def _write(workload: Any, kind: str, out) -> dict[str, Any]:
    """Write ``workload`` atomically; the facts to print."""
    if kind == "gang":
        from ...gang.workload import write_workload

        write_workload(workload, out)
        return {"workload": str(out), "jobs": len(workload), "nodes": workload.nodes,
                "offered_load": workload.offered_load()}
    from ...json_files import write_instance

    write_instance(workload, out)
    return {"instance": workload.name, "out": str(out), "jobs": workload.num_jobs,
            "io_phases": workload.num_io_phases, "alpha": workload.io_load(),
            "partitions": workload.platform.num_partitions,
            "bandwidth": workload.platform.partitions[0].bandwidth}


def run(args: argparse.Namespace) -> int:
    generator = _registry()[args.protocol]
    params = generator_params(args)
    info = _write(generator.build(params), generator.workload, args.out)
    info.update(generator=args.protocol, params=params)
    if generator.execution is not None:
        info["execution"] = dict(generator.execution)
    if args.json:
        print_json(info)
    elif generator.workload == "gang":
        print(f"{args.out}: {info['jobs']} gang jobs on {info['nodes']} nodes, "
              f"offered all-local load {info['offered_load']:.3f}")
    else:
        print(f"{args.out}: {info['jobs']} jobs, {info['io_phases']} I/O phases, "
              f"{info['partitions']} partition(s), actual alpha = "
              f"{info['alpha']:.4f}")
        if generator.execution is not None:
            options = " ".join(f"--{key.replace('_', '-')} {value}"
                               for key, value in generator.execution.items()
                               if key != "model")
            print(f"  run it under: --execution {generator.execution['model']} "
                  f"{options}")
    return EXIT_OK
