"""Named reports a spec can ask for (``outputs.reports``).

A report turns the rows of a campaign into the tables and figures of one
study. Each is ``write(spec, rows, out) -> list[Path]`` where ``rows`` is
:meth:`opt_sched.campaign.store.ResultStore.rows`.

- ``ics2020``: the tables and figures of seed 003's evaluation
  (:mod:`.ics2020`), the same as ``scripts/reproduce_ics2020.py`` wrote
  before campaigns existed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["REPORTS", "write_report"]


def _ics2020(spec: Any, rows: Mapping[str, Any], out: Path) -> list[Path]:
    from .ics2020 import write_report as write

    return write(spec, rows, out)


REPORTS: dict[str, Callable[[Any, Mapping[str, Any], Path], list[Path]]] = {
    "ics2020": _ics2020,
}


def write_report(name: str, spec: Any, rows: Mapping[str, Any], out: Path
                 ) -> list[Path]:
    """Run report ``name`` (a key of :data:`REPORTS`)."""
    return REPORTS[name](spec, rows, out)
