"""The time origin of a trace's instance: t = 0 is the first submit.

A log counts time in its own clock: SWF submit times are seconds since the
header's ``UnixStartTime`` (KTH-SP2 starts at 0), but some files hold Unix
epochs (Theta 2022: submits near 1.64e9 under ``UnixStartTime: 0``), and
Batsim workloads start wherever their author chose. Measured from the
clock's zero, an epoch log has a makespan of 52 years and a utilisation of
0.014. So the conversion (:func:`~opt_sched.traces.convert.convert_trace`)
shifts every release by the *origin* (the first kept submit, unless the
caller gives another), and every metric, curve and picture of the instance
starts there. The writers add the origin back (``out_jobs.csv`` holds the
workload's own times, as Batsim writes them).

The date of the origin is known when the clock is anchored
(:func:`clock_epoch`):

- t = 0 of the file is the header's ``UnixStartTime`` (SWF 2.2), or, with
  none, 0: the submit times are then Unix epochs themselves (Theta 2022
  writes ``UnixStartTime: 0`` over epoch times);
- the first submit must then fall after :data:`EPOCH_FLOOR` (1980-01-01);
  before it the times are relative (``UnixStartTime: 0`` over times counted
  from 0 is no date in 1970), the date is unknown, and times are shown as
  seconds, hours or days since the first submit.

Dates are printed in UTC; the log's ``TimeZoneString`` (the site's zone) is
named beside them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone

from ..errors import OptionError

__all__ = ["EPOCH_FLOOR", "TimeOrigin", "clock_epoch", "format_epoch"]

EPOCH_FLOOR = 315_532_800.0
"""1980-01-01 00:00 UTC as a Unix time: a clock whose first submit falls
before it has no known date (no public batch log is older)."""


def clock_epoch(header: Mapping[str, str], first_submit: float | None) -> float | None:
    """The Unix epoch of the file's t = 0, or ``None`` when the date is unknown
    (module docstring): the header's ``UnixStartTime`` when it is a
    non-negative integer, else 0 (the times are epochs themselves); either way
    only when the first submit then falls after :data:`EPOCH_FLOOR`. ``trace-info``
    and the SWF writer use it too.
    """
    if first_submit is None:
        return None
    start = 0.0
    text = str(header.get("UnixStartTime", "")).split()
    if text:
        try:
            value = int(text[0])
        except ValueError:
            value = -1
        if value >= 0:
            start = float(value)
    return start if start + first_submit >= EPOCH_FLOOR else None


def format_epoch(epoch: float, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """``epoch`` as a UTC date: ``1641021254`` -> ``"2022-01-01 07:14"``."""
    return datetime.fromtimestamp(epoch, tz=timezone.utc).strftime(fmt)


@dataclass(frozen=True)
class TimeOrigin:
    """Where t = 0 of an instance built from a trace lies.

    Attributes
    ----------
    shift
        The file-clock time of t = 0: instance times are file times minus
        ``shift`` (and ``out_jobs.csv``/SWF times are instance times plus
        it).
    epoch
        The Unix time of t = 0, or ``None`` when the file's date is unknown.
    zone
        The log's ``TimeZoneString``, if it gives one.
    first_submit
        ``True`` when t = 0 is the first submit (the default origin).
    """

    shift: float = 0.0
    epoch: float | None = None
    zone: str | None = None
    first_submit: bool = True

    @classmethod
    def of_trace(cls, header: Mapping[str, str], submits, origin: float | None = None
                 ) -> TimeOrigin:
        """The origin of a trace with these ``header`` and sorted ``submits``:
        the first submit, or ``origin`` (file clock, at most the first
        submit, so that no release is negative).

        Raises
        ------
        OptionError
            ``origin`` is not a finite number or lies after the first submit.
        """
        first = float(submits[0]) if len(submits) else 0.0
        if origin is None:
            shift = first
        else:
            if isinstance(origin, bool) or not isinstance(origin, (int, float)) or \
                    not math.isfinite(origin):
                raise OptionError(f"origin={origin!r} must be a finite number")
            if origin > first:
                raise OptionError(f"origin={origin:g} is after the first submit "
                                  f"({first:g}): releases would be negative")
            shift = float(origin)
        anchor = clock_epoch(header, first if len(submits) else None)
        zone = header.get("TimeZoneString") or None
        return cls(shift, None if anchor is None else anchor + shift,
                   zone if zone and "\n" not in zone else None,
                   origin is None or shift == first)

    def describe(self) -> str:
        """One line for the replay summary: ``times from the first submit,
        2022-01-01 07:14 UTC``."""
        what = "the first submit" if self.first_submit else "the given origin"
        if self.epoch is not None:
            zone = f" (site time zone {self.zone})" if self.zone else ""
            return f"times from {what}, {format_epoch(self.epoch)} UTC{zone}"
        if self.shift == 0:
            return f"times from {what} (t = 0 of the file; its date is unknown)"
        return (f"times from {what} (t = {self.shift:g} s of the file's clock; "
                f"its date is unknown)")

    def to_dict(self) -> dict[str, object]:
        """For ``--json``: ``shift``, ``epoch``, ``utc`` (the date or None),
        ``zone``, ``first_submit``."""
        return {"shift": self.shift, "epoch": self.epoch,
                "utc": None if self.epoch is None else
                format_epoch(self.epoch, "%Y-%m-%dT%H:%M:%SZ"),
                "zone": self.zone, "first_submit": self.first_submit}
