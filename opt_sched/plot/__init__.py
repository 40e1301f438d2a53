"""Pictures of schedules (matplotlib), one function per module.

- :func:`plot_gantt` -- a Gantt chart of a time window: one row per machine
  (or per job when the schedule has no machines), jobs coloured, I/O phases
  drawn darker inside them, killed jobs outlined in red.
- :func:`plot_usage` -- utilisation, allocation and queue length over time.

Both draw in the schedule's seconds and label the time axis with UTC dates
when given ``epoch`` (the Unix time of t = 0: a trace's first submit), else
with seconds, hours or days since t = 0 (:mod:`~opt_sched.plot.time_axis`).
Both take an optional ``ax`` and return the matplotlib ``Axes`` (or
``Figure``), so that a caller composes and saves. Matplotlib is imported
with the non-interactive ``Agg`` backend unless one is already chosen.
"""

from __future__ import annotations

from .gantt import plot_gantt
from .usage import plot_usage

__all__ = ["plot_gantt", "plot_usage"]
