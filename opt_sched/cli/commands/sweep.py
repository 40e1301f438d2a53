"""``opt-sched sweep``: run a campaign spec (TOML), resumable, on this
machine, a Dask cluster or Slurm (:mod:`opt_sched.campaign`)."""

from ...campaign.cli_entry import HELP, NAME, add_arguments, run

__all__ = ["HELP", "NAME", "add_arguments", "run"]
