"""``opt-sched sweep``: run a campaign spec (TOML), resumable, on this
machine, a Dask cluster or Slurm (:mod:`opt_sched.campaign`).

The command checks ``--out`` before anything runs: an empty name would
otherwise mean the current folder (``Path('')`` is ``.``) and scatter a
campaign's files there.

``--methods SPECS`` (comma-separated method specs, as
:func:`opt_sched.methods.split_specs` reads them) replaces the ``methods``
of every method group of the spec file; experiment groups and explicit
``[[tasks]]`` keep theirs. Each spec is checked against each group's
instances as a written one would be (a bad spec: exit 2). Tasks are keyed by
their content, so ``--resume`` with other ``--methods`` adds the new
methods' tasks to the same folder.
"""

from __future__ import annotations

import argparse

from ...errors import OptionError
from ..campaign import HELP, NAME
from ..campaign import add_arguments as add_campaign_arguments
from ..campaign import run as run_campaign

__all__ = ["HELP", "NAME", "add_arguments", "check_output_folder", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The campaign's arguments, plus ``--methods``."""
    add_campaign_arguments(parser)
    parser.add_argument("--methods", type=_specs, default=None, metavar="SPECS",
                        help="comma-separated method specs replacing every method "
                             "group's methods, e.g. 'fcfs, easy, conservative'")


def _specs(text: str) -> list[str]:
    """``--methods``: the specs, split at the commas outside parentheses
    (syntax and names are checked with the spec file)."""
    from ...errors import SpecError
    from ...methods.spec import split_specs

    try:
        specs = split_specs(text)
    except SpecError as err:
        raise argparse.ArgumentTypeError(str(err)) from None
    if not specs:
        raise argparse.ArgumentTypeError(f"{text!r} names no method")
    return specs


def check_output_folder(text: str) -> None:
    """Raise :class:`OptionError` if ``text`` cannot name an output folder:
    empty or blank (the current folder by accident)."""
    if not text.strip():
        raise OptionError(f"--out={text!r}: the output folder needs a name "
                          "(an empty name would write into the current folder)")


def run(args: argparse.Namespace) -> int:
    """Check ``--out``, then run the sweep (:func:`opt_sched.cli.campaign.run`;
    ``--methods`` reaches the spec loader there)."""
    check_output_folder(args.out)
    return run_campaign(args)
