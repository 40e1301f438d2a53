"""The argument parser of ``opt-sched``, built from the command registry."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import NoReturn

from .. import __version__
from . import registry
from .exit_codes import EXIT_BAD_INPUT

__all__ = ["OneLineParser", "chosen_command", "make_parser"]

DESCRIPTION = ("Optimal and certified-bounded schedules for I/O-aware HPC batch "
               "scheduling, and the gap of practical heuristics to them.")
EPILOG = ("exit status: 0 ok; 1 the schedule is infeasible (validate); 2 bad "
          "input; 3 a bug of opt-sched; 130 interrupted")


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit status 2 (every
    entry point of opt_sched uses it: ``opt-sched``, ``python -m
    opt_sched.gang``)."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message}\n")



def chosen_command(argv: Sequence[str]) -> str | None:
    """The command named in ``argv`` (its first word that is not an
    option), or ``None`` (``opt-sched --help``, ``opt-sched --version``)."""
    return next((word for word in argv if not word.startswith("-")), None)


def make_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """One sub-command per module of :data:`~.registry.COMMANDS`.

    Without ``argv`` every command gets its options. With ``argv``, only the
    command it names does: the others are listed with their one line of
    help, so that ``opt-sched --help`` and ``opt-sched <command> ...`` do not
    import what every other command's options need (numpy, numba, the
    registries behind ``choices``)."""
    wanted = None if argv is None else chosen_command(argv)
    parser = OneLineParser(prog="opt-sched", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version",
                        version=f"opt-sched {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                parser_class=OneLineParser)
    for name in registry.COMMANDS:
        command = registry.load(name)
        p = sub.add_parser(command.NAME, help=command.HELP,
                           description=command.HELP, epilog=EPILOG)
        if argv is None or wanted == command.NAME:
            p.add_argument("--json", action="store_true",
                           help="machine-readable output (full precision)")
            command.add_arguments(p)
        p.set_defaults(run=command.run)
    return parser
