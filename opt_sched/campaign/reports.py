"""Named reports a spec can ask for (``outputs.reports``): a registry.

A report turns the rows of a campaign into the tables and figures of one
study: ``write(spec, rows, out) -> list[Path]``, where ``rows`` is
:meth:`opt_sched.campaign.store.ResultStore.rows`.

Reports are plug-ins (:mod:`opt_sched.plugins`): a package declares one as
an entry point of the group ``opt_sched.reports`` (the name is the
report's, the object its ``write``), or a process sets
``REPORTS[name] = write``. The seed papers' reports are declared that way
by opt_sched's own ``pyproject.toml`` (:mod:`opt_sched.studies`):
``ics2020`` (seed 003), ``ijhpca2023`` (seed 000), ``goponenko`` (seed
001), ``rodrigo2017`` (seed 002), ``gang`` (seed 004). Nothing here imports
a study. Built in: ``window-gap``, the report of the framework's own
``window-gap`` experiment.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ..plugins import PluginMapping, describe
from .window_report import write_window_report

__all__ = ["REPORTS", "Report", "write_report"]

Report = Callable[[Any, Mapping[str, Any], Path], list[Path]]
"""``write(spec, rows, out) -> list[Path]``: the files written."""


def _check(name: str, value: Any) -> None:
    if not callable(value):
        raise TypeError(f"a report is a callable write(spec, rows, out), not "
                        f"{describe(value)}")


REPORTS: PluginMapping[Report] = PluginMapping(
    "reports", {"window-gap": write_window_report}, _check)
"""Report name -> ``write``: ``window-gap`` (the brackets of a sweep of the
``window-gap`` experiment, :mod:`.window_report`), then the entry points
(listing it loads them)."""


def write_report(name: str, spec: Any, rows: Mapping[str, Any], out: Path
                 ) -> list[Path]:
    """Run report ``name`` (a key of :data:`REPORTS`)."""
    return REPORTS[name](spec, rows, out)
