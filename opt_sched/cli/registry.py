"""The commands of ``opt-sched``: one module each, one line here.

A command is a module of :mod:`opt_sched.cli.commands` that defines

- ``NAME`` -- the word typed after ``opt-sched``;
- ``HELP`` -- one line for ``opt-sched --help``;
- ``add_arguments(parser)`` -- its own options (``--json`` is added for
  every command);
- ``run(args) -> int`` -- the work; it returns an exit status
  (:mod:`.exit_codes`) and raises :class:`~opt_sched.errors.UserError` for
  bad input. It imports the heavy libraries (ortools, numba) inside, so
  that ``opt-sched --help`` stays fast.

Adding a command is one new module plus its name in :data:`COMMANDS` (the
command word; ``-`` in it is ``_`` in the module name).
"""

from __future__ import annotations

import argparse
import importlib
from types import ModuleType
from typing import Protocol

__all__ = ["COMMANDS", "Command", "load"]

COMMANDS: tuple[str, ...] = (
    "simulate",
    "validate",
    "bounds",
    "metrics",
    "generate",
    "compare",
    "solve",
    "gap",
    "replay",
    "plot",
    "sweep",
    "convert",
    "trace-info",
    "kernels",
)


class Command(Protocol):
    """What a command module provides (see the module docstring)."""

    NAME: str
    HELP: str

    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


def load(name: str) -> ModuleType:
    """The command module ``opt_sched.cli.commands.<name>`` (a ``-`` of the
    command word is a ``_`` of the module: ``trace-info`` ->
    ``trace_info``)."""
    return importlib.import_module(f"opt_sched.cli.commands.{name.replace('-', '_')}")
