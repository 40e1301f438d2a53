"""The campaign report ``window-gap``: the distribution of the brackets of a
sweep of the ``window-gap`` experiment (issue 27,
``campaigns/window-gap-kth-sp2.toml``).

Files, in the sweep's output folder:

- ``window-gap.csv``: one row per window and objective (scheduler, window
  start, objective, online value, best schedule found, lower bound, at
  least X, at most Y, width; fractions);
- ``window-gap.md``: per scheduler and objective, the median and 90th
  percentile of X, Y and the width
  (:func:`opt_sched.experiments.window_distribution.distribution`), and how
  many windows are not in it (unfinished, failed, or a side unknown);
- ``window-gap.png``: every window's bracket
  (:func:`~opt_sched.experiments.window_distribution.plot_brackets`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from ..files import atomic_write_text

__all__ = ["write_window_report"]


def write_window_report(spec: Any, rows: Mapping[str, Mapping[str, Any]], out: Path
                        ) -> list[Path]:
    """Write ``window-gap.csv``, ``window-gap.md`` and ``window-gap.png``
    (the plot only when some bracket is known) into ``out``."""
    from ..experiments.window_distribution import (
        Bracket,
        brackets_from_rows,
        distribution,
        distribution_markdown,
        plot_brackets,
    )

    out = Path(out)
    brackets = brackets_from_rows(rows)
    text = io.StringIO()
    writer = csv.DictWriter(text, [f.name for f in fields(Bracket)],
                            lineterminator="\n")
    writer.writeheader()
    writer.writerows(asdict(b) for b in brackets)
    atomic_write_text(out / "window-gap.csv", text.getvalue())
    written = [out / "window-gap.csv"]
    windows = [row for row in rows.values()
               if row["task"].get("instance", {}).get("experiment") == "window-gap"]
    finished = sum(row["status"] == "ok" for row in windows)
    unknown = sum(not b.known for b in brackets)
    name = getattr(spec, "name", "campaign")
    lines = [f"# Window brackets: {name}", "",
             f"{finished} of {len(windows)} window tasks finished "
             f"({len(windows) - finished} unfinished or failed); "
             f"{unknown} objective brackets with a side unknown are left out.", "",
             "X: the policy is at least X above the optimum (the best schedule "
             "found); Y: at most Y (the proven lower bound); width Y - X in "
             "points (models/window-gap.md).", "",
             distribution_markdown(distribution(brackets))]
    atomic_write_text(out / "window-gap.md", "\n".join(lines))
    written.append(out / "window-gap.md")
    if any(b.known for b in brackets):
        written.append(plot_brackets(brackets, out / "window-gap.png"))
    return written
