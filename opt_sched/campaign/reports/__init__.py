"""Named reports a spec can ask for (``outputs.reports``).

A report turns the rows of a campaign into the tables and figures of one
study. Each is ``write(spec, rows, out) -> list[Path]`` where ``rows`` is
:meth:`opt_sched.campaign.store.ResultStore.rows`.

- ``ics2020``: the tables and figures of seed 003's evaluation
  (:mod:`.ics2020`), the same as ``scripts/reproduce_ics2020.py`` wrote
  before campaigns existed.
- ``ijhpca2023``: the figures of seed 000's evaluation and the certified
  gaps (:mod:`.ijhpca2023`).
- ``goponenko``: seed 001's improvements over the default scheduler, beside
  the slides' figures (:mod:`.goponenko`).
- ``rodrigo2017``: seed 002's WoAS study (:mod:`.rodrigo2017`): turnaround
  speed-ups, utilisation gains and slowdowns from ``workflow-share``
  experiment tasks.
- ``gang``: seed 004's gang-scheduling tables and slowdown figures
  (:mod:`.gang`), the same tables as ``scripts/reproduce_gang.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["REPORTS", "write_report"]


def _ics2020(spec: Any, rows: Mapping[str, Any], out: Path) -> list[Path]:
    from .ics2020 import write_report as write

    return write(spec, rows, out)


def _ijhpca2023(spec: Any, rows: Mapping[str, Any], out: Path) -> list[Path]:
    from .ijhpca2023 import write_report as write

    return write(spec, rows, out)


def _goponenko(spec: Any, rows: Mapping[str, Any], out: Path) -> list[Path]:
    from .goponenko import write_report as write

    return write(spec, rows, out)


def _rodrigo2017(spec: Any, rows: Mapping[str, Any], out: Path) -> list[Path]:
    from .rodrigo2017 import write_report as write

    return write(spec, rows, out)


def _gang(spec: Any, rows: Mapping[str, Any], out: Path) -> list[Path]:
    from .gang import write_report as write

    return write(spec, rows, out)


REPORTS: dict[str, Callable[[Any, Mapping[str, Any], Path], list[Path]]] = {
    "ics2020": _ics2020,
    "ijhpca2023": _ijhpca2023,
    "goponenko": _goponenko,
    "rodrigo2017": _rodrigo2017,
    "gang": _gang,
}


def write_report(name: str, spec: Any, rows: Mapping[str, Any], out: Path
                 ) -> list[Path]:
    """Run report ``name`` (a key of :data:`REPORTS`)."""
    return REPORTS[name](spec, rows, out)
