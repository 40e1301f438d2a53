"""Times in batch accounting logs: Slurm and PBS/Torque durations and dates.

Every parser returns seconds (a ``float``) or ``None`` for "unknown / no
limit", and raises ``ValueError`` for text that is not a time; the log
readers turn that into a :class:`~opt_sched.errors.TraceError` naming the
file, the line and the field.

Slurm (``sacct``, https://slurm.schedmd.com/sacct.html):

- durations (``Elapsed``, ``Timelimit``): ``[D-]HH:MM:SS[.frac]``, and the
  shorter forms Slurm accepts for a time limit: ``MM:SS``, ``MM`` (minutes),
  ``D-HH``, ``D-HH:MM``. ``UNLIMITED``, ``Partition_Limit``, ``INFINITE``,
  ``Unknown``, ``None`` and an empty field are ``None``.
- dates (``Submit``, ``Start``, ``End``): ISO 8601 ``2024-03-01T12:00:00``,
  a wall-clock reading in the cluster's time zone (``--tz``, an IANA name;
  UTC by default). A reading that a daylight-saving change makes ambiguous
  is taken as the first of the two instants (``fold=0``); one that does not
  exist (the skipped hour) is read with the offset before the change, as
  :mod:`zoneinfo` does. An explicit offset (``+01:00``, ``Z``) wins over
  the zone. ``Unknown``, ``None`` and an empty field are ``None``.

PBS/Torque accounting records:

- ``qtime``, ``ctime``, ``start``, ``end``: Unix epochs (seconds, UTC);
  ``0`` or a missing value is ``None``.
- walltimes (``Resource_List.walltime``, ``resources_used.walltime``):
  ``[[HH:]MM:]SS[.frac]`` -- a plain number is *seconds* here, while Slurm
  reads a plain number as minutes.
- the record's own date ``MM/DD/YYYY HH:MM:SS``, a wall-clock reading in the
  server's time zone (same rules as Slurm's dates).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone, tzinfo
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..errors import OptionError

__all__ = ["UNKNOWN_WORDS", "pbs_epoch", "pbs_record_time", "pbs_walltime",
           "slurm_duration", "slurm_timestamp", "time_zone"]

UNKNOWN_WORDS: frozenset[str] = frozenset({"", "unknown", "none", "n/a"})
"""Field values (lower case) that mean "not known" in ``sacct`` output."""

_NO_LIMIT = frozenset({"unlimited", "partition_limit", "infinite"})
_SLURM_DURATION = re.compile(
    r"^(?:(?P<days>\d+)-(?P<dh>\d+)(?::(?P<dm>\d+)(?::(?P<ds>\d+(?:\.\d*)?))?)?"
    r"|(?P<a>\d+)(?::(?P<b>\d+(?:\.\d*)?)(?::(?P<c>\d+(?:\.\d*)?))?)?)$")
_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?"
                  r"(?:Z|[+-]\d{2}:?\d{2})?$")
_PBS_WALLTIME = re.compile(r"^(?:(?:(\d+):)?(\d+):)?(\d+(?:\.\d*)?)$")
_PBS_DATE = re.compile(r"^(\d{2})/(\d{2})/(\d{4}) (\d{2}):(\d{2}):(\d{2})$")


@lru_cache(maxsize=32)
def time_zone(name: str | None) -> tzinfo:
    """The :class:`~zoneinfo.ZoneInfo` of IANA name ``name`` (``None`` and
    ``"UTC"``: UTC); an unknown name is an :class:`OptionError`."""
    if name is None or name.upper() == "UTC":
        return timezone.utc
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise OptionError(f"tz={name!r} is not a known time zone (give an IANA "
                          f"name such as Europe/Paris or UTC)") from None


def slurm_duration(text: str) -> float | None:
    """Seconds of a Slurm duration, ``None`` when unknown or unlimited.

    ``D-HH:MM:SS`` = ``86400 D + 3600 HH + 60 MM + SS``; ``D-HH`` and
    ``D-HH:MM`` leave the rest 0; without days, ``HH:MM:SS``, ``MM:SS`` and
    ``MM`` (minutes), as Slurm's own ``time_str2secs``.
    """
    word = text.strip()
    if word.lower() in UNKNOWN_WORDS or word.lower() in _NO_LIMIT:
        return None
    match = _SLURM_DURATION.match(word)
    if match is None:
        raise ValueError(word)
    parts = match.groupdict()
    if parts["days"] is not None:
        return (86400 * int(parts["days"]) + 3600 * int(parts["dh"])
                + 60 * int(parts["dm"] or 0) + float(parts["ds"] or 0))
    a, b, c = parts["a"], parts["b"], parts["c"]
    if c is not None:                       # HH:MM:SS
        if "." in b:
            raise ValueError(word)
        return 3600 * int(a) + 60 * float(b) + float(c)
    if b is not None:                       # MM:SS
        return 60 * int(a) + float(b)
    return 60.0 * int(a)                    # MM


def slurm_timestamp(text: str, tz: str | None) -> float | None:
    """The Unix epoch of a ``sacct`` date (see the module notes), or ``None``."""
    word = text.strip()
    if word.lower() in UNKNOWN_WORDS:
        return None
    if _ISO.match(word) is None:
        raise ValueError(word)
    moment = datetime.fromisoformat(word)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=time_zone(tz))
    return moment.timestamp()


def pbs_epoch(text: str | None) -> float | None:
    """A PBS epoch field (``qtime=1709294400``): seconds, ``None`` when
    missing or 0 (Torque writes ``start=0`` for a job that never ran)."""
    if text is None or not text.strip():
        return None
    value = int(text.strip())
    if value < 0:
        raise ValueError(text)
    return float(value) if value else None


def pbs_walltime(text: str | None) -> float | None:
    """Seconds of a PBS walltime ``[[HH:]MM:]SS[.frac]``, ``None`` if missing."""
    if text is None or not text.strip():
        return None
    match = _PBS_WALLTIME.match(text.strip())
    if match is None:
        raise ValueError(text)
    hours, minutes, seconds = match.groups()
    return 3600 * int(hours or 0) + 60 * int(minutes or 0) + float(seconds)


def pbs_record_time(text: str, tz: str | None) -> float:
    """The Unix epoch of a record date ``MM/DD/YYYY HH:MM:SS`` read in ``tz``."""
    match = _PBS_DATE.match(text.strip())
    if match is None:
        raise ValueError(text)
    month, day, year, hour, minute, second = (int(x) for x in match.groups())
    moment = datetime(year, month, day, hour, minute, second,
                      tzinfo=time_zone(tz))
    return moment.timestamp()
