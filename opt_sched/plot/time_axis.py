"""A readable time axis: dates when t = 0 has one, else s, hours or days.

The pictures draw in the instance's seconds (t = 0 is a trace's first
submit, :mod:`opt_sched.traces.time_origin`); only the ticks and the label
change:

- ``epoch`` given (the Unix time of t = 0): ticks fall on round dates
  (matplotlib's :class:`~matplotlib.dates.AutoDateLocator`) and read as UTC
  dates, ``2022-03-01``, ``03-01 12:00`` or ``12:00:30`` depending on their
  spacing; the label says ``date (UTC)``;
- otherwise the span ``hi - lo`` picks the unit: seconds up to 3 hours,
  hours up to 10 days, days beyond; ticks are round numbers of that unit
  (:class:`~matplotlib.ticker.MaxNLocator`), the label names it and the
  origin (``hours since the first submit``).

No tick reads ``1.64e9`` or carries an offset.
"""

from __future__ import annotations

from datetime import datetime, timezone

import numpy as np

__all__ = ["TIME_UNITS", "set_time_axis", "time_unit"]

TIME_UNITS: tuple[tuple[str, float, float], ...] = (
    ("s", 1.0, 3 * 3600.0),
    ("hours", 3600.0, 10 * 86400.0),
    ("days", 86400.0, float("inf")),
)
"""``(name, seconds per unit, largest span shown in it)``."""


def time_unit(span: float) -> tuple[str, float]:
    """The unit of an axis spanning ``span`` seconds: ``(name, seconds)``."""
    for name, seconds, largest in TIME_UNITS:
        if span <= largest:
            return name, seconds
    return TIME_UNITS[-1][0], TIME_UNITS[-1][1]  # pragma: no cover - inf above


def _date_ticks(lo: float, hi: float, epoch: float) -> tuple[np.ndarray, list[str]]:
    """Round UTC dates in ``[lo, hi]`` (instance seconds) and their labels."""
    import matplotlib.dates as mdates

    start = datetime.fromtimestamp(epoch + lo, tz=timezone.utc)
    end = datetime.fromtimestamp(epoch + hi, tz=timezone.utc)
    locator = mdates.AutoDateLocator(minticks=3, maxticks=9, tz=timezone.utc)
    numbers = locator.tick_values(start, end)
    moments = [mdates.num2date(n, tz=timezone.utc) for n in numbers]
    ticks = np.array([m.timestamp() - epoch for m in moments])
    slack = 1e-6 * max(1.0, hi - lo)
    inside = (ticks >= lo - slack) & (ticks <= hi + slack)
    ticks = ticks[inside]
    moments = [m for m, keep in zip(moments, inside) if keep]
    step = float(np.min(np.diff(ticks))) if len(ticks) > 1 else hi - lo
    if step >= 86400:
        fmt = "%Y-%m-%d"
    elif step >= 60:
        fmt = "%m-%d %H:%M" if hi - lo >= 86400 else "%H:%M"
    else:
        fmt = "%H:%M:%S"
    labels = [m.strftime(fmt) for m in moments]
    if labels and fmt in ("%H:%M", "%H:%M:%S"):
        labels[0] = moments[0].strftime("%Y-%m-%d ") + labels[0]
    return ticks, labels


def set_time_axis(ax, lo: float, hi: float, *, epoch: float | None = None,
                  since: str = "t = 0") -> None:
    """Ticks and label of the x axis of ``ax`` over ``[lo, hi]`` (instance
    seconds; module docstring). ``since`` names t = 0 in the label."""
    from matplotlib.ticker import MaxNLocator, NullFormatter

    if not hi > lo:
        hi = lo + 1.0
    if epoch is not None:
        ticks, labels = _date_ticks(lo, hi, epoch)
        ax.set_xlabel("date (UTC)")
    else:
        name, seconds = time_unit(hi - lo)
        values = MaxNLocator(nbins=8, steps=[1, 2, 2.5, 5, 10]).tick_values(
            lo / seconds, hi / seconds)
        values = values[(values >= lo / seconds - 1e-9)
                        & (values <= hi / seconds + 1e-9)]
        ticks = values * seconds
        labels = [f"{v:g}" for v in values]
        ax.set_xlabel(f"{name} since {since}")
    ax.set_xticks(ticks, labels)
    ax.xaxis.set_minor_formatter(NullFormatter())
