"""Times of accounting logs (opt_sched.traces.accounting_time): Slurm durations
and dates, PBS walltimes, epochs and record dates, time zones.

Expected epochs come from :func:`calendar.timegm` on the UTC reading and the
zone's offset written out by hand, not from the parsers' own datetime path.
"""

from __future__ import annotations

import calendar

import pytest

from opt_sched.errors import OptionError
from opt_sched.traces.accounting_time import (
    pbs_epoch,
    pbs_record_time,
    pbs_walltime,
    slurm_duration,
    slurm_timestamp,
    time_zone,
)

HOUR = 3600


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0,
        second: int = 0) -> float:
    return float(calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0)))


@pytest.mark.parametrize(("text", "seconds"), [
    ("1-02:03:04", 86400 + 2 * HOUR + 3 * 60 + 4),     # D-HH:MM:SS
    ("12-00:00:00", 12 * 86400),
    ("02:03:04", 2 * HOUR + 3 * 60 + 4),               # HH:MM:SS
    ("100:00:00", 100 * HOUR),                         # hours beyond a day
    ("03:04", 3 * 60 + 4),                             # MM:SS
    ("45", 45 * 60),                                   # MM (a time limit)
    ("2-12", 2 * 86400 + 12 * HOUR),                   # D-HH
    ("2-12:30", 2 * 86400 + 12 * HOUR + 30 * 60),      # D-HH:MM
    ("00:00:01.250", 1.25),                            # [.microseconds]
    (" 00:10:00 ", 600),
])
def test_slurm_durations(text, seconds):
    assert slurm_duration(text) == pytest.approx(seconds, abs=0)


@pytest.mark.parametrize("text", ["UNLIMITED", "Partition_Limit", "INFINITE",
                                  "Unknown", "None", "", "unlimited"])
def test_slurm_no_limit_and_unknown_are_none(text):
    assert slurm_duration(text) is None


@pytest.mark.parametrize("text", ["abc", "1:2:3:4", "-5", "1-", "1-2-3", "01:30.5:00",
                                  "1 day", "12h"])
def test_slurm_bad_durations(text):
    with pytest.raises(ValueError):
        slurm_duration(text)


def test_slurm_timestamps_in_utc_and_in_a_zone():
    assert slurm_timestamp("2024-03-01T12:00:00", "UTC") == utc(2024, 3, 1, 12)
    assert slurm_timestamp("2024-03-01T12:00:00", None) == utc(2024, 3, 1, 12)
    # Central European Time in March: UTC+1; summer time in July: UTC+2
    berlin = "Europe/Berlin"
    assert slurm_timestamp("2024-03-01T12:00:00", berlin) == utc(2024, 3, 1, 11)
    assert slurm_timestamp("2024-07-01T12:00:00", berlin) == utc(2024, 7, 1, 10)
    # an explicit offset wins over the zone
    assert slurm_timestamp("2024-03-01T12:00:00+02:00", berlin) == utc(2024, 3, 1, 10)
    assert slurm_timestamp("2024-03-01T12:00:00Z", berlin) == utc(2024, 3, 1, 12)


def test_slurm_timestamps_across_daylight_saving():
    # New York falls back on 2024-11-03 at 02:00 EDT: 01:30 happens twice,
    # read as the first (EDT, UTC-4); springs forward on 2024-03-10 at 02:00.
    assert slurm_timestamp("2024-11-03T01:30:00", "America/New_York") == utc(
        2024, 11, 3, 5, 30)
    assert slurm_timestamp("2024-11-03T03:00:00", "America/New_York") == utc(
        2024, 11, 3, 8)
    assert slurm_timestamp("2024-03-10T03:00:00", "America/New_York") == utc(
        2024, 3, 10, 7)


@pytest.mark.parametrize("text", ["Unknown", "None", "", "unknown"])
def test_slurm_unknown_dates(text):
    assert slurm_timestamp(text, "UTC") is None


@pytest.mark.parametrize("text", ["xyz", "2024-03-01 12:00:00", "2024-03-01",
                                  "2024-02-30T00:00:00", "2024-13-01T00:00:00",
                                  "1709280000"])
def test_slurm_bad_dates(text):
    with pytest.raises(ValueError):
        slurm_timestamp(text, "UTC")


def test_time_zones():
    assert time_zone("UTC").utcoffset(None).total_seconds() == 0
    assert time_zone(None).utcoffset(None).total_seconds() == 0
    with pytest.raises(OptionError, match="tz='Mars/Olympus'"):
        time_zone("Mars/Olympus")
    with pytest.raises(OptionError, match="IANA"):
        slurm_timestamp("2024-03-01T12:00:00", "../etc/passwd")


@pytest.mark.parametrize(("text", "seconds"), [
    ("01:00:00", HOUR), ("1:00:00", HOUR), ("100:00:00", 100 * HOUR),
    ("30:00", 1800), ("600", 600), ("600.5", 600.5), ("00:00:00", 0),
])
def test_pbs_walltimes(text, seconds):
    assert pbs_walltime(text) == seconds


@pytest.mark.parametrize("text", ["abc", "1:2:3:4", "-5", "1-00:00:00", "1h"])
def test_pbs_bad_walltimes(text):
    with pytest.raises(ValueError):
        pbs_walltime(text)


def test_pbs_epochs():
    assert pbs_epoch("1709280000") == utc(2024, 3, 1, 8)
    assert pbs_epoch("0") is None           # Torque's start=0: never ran
    assert pbs_epoch(None) is None
    assert pbs_epoch("") is None
    for bad in ("-1", "abc", "1.5e9"):
        with pytest.raises(ValueError):
            pbs_epoch(bad)


def test_pbs_record_dates():
    assert pbs_record_time("03/01/2024 08:00:00", "UTC") == utc(2024, 3, 1, 8)
    # US Central Standard Time in March before the change: UTC-6
    assert pbs_record_time("03/01/2024 08:00:00", "America/Chicago") == utc(
        2024, 3, 1, 14)
    for bad in ("13/01/2024 00:00:00", "2024-03-01 08:00:00", "03/01/2024",
                "02/30/2024 00:00:00"):
        with pytest.raises(ValueError):
            pbs_record_time(bad, "UTC")
