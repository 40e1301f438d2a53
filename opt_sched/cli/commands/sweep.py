"""``opt-sched sweep``: run a campaign spec (TOML), resumable, on this
machine, a Dask cluster or Slurm (:mod:`opt_sched.campaign`).

The command checks ``--out`` before anything runs: an empty name would
otherwise mean the current folder (``Path('')`` is ``.``) and scatter a
campaign's files there.
"""

from __future__ import annotations

import argparse

from ...campaign.cli_entry import HELP, NAME, add_arguments
from ...campaign.cli_entry import run as run_campaign
from ...errors import OptionError

__all__ = ["HELP", "NAME", "add_arguments", "check_output_folder", "run"]


def check_output_folder(text: str) -> None:
    """Raise :class:`OptionError` if ``text`` cannot name an output folder:
    empty or blank (the current folder by accident)."""
    if not text.strip():
        raise OptionError(f"--out={text!r}: the output folder needs a name "
                          "(an empty name would write into the current folder)")


def run(args: argparse.Namespace) -> int:
    """Check ``--out``, then run the sweep (:func:`opt_sched.campaign.
    cli_entry.run`)."""
    check_output_folder(args.out)
    return run_campaign(args)
