"""Slurm ``sacct --parsable2`` logs (opt_sched.traces.slurm_sacct): every state
and time format, steps, arrays, heterogeneous jobs, pending jobs, time
zones, malformed lines (one error, exit 2), and the SWF round trip.

Expected values are computed here from the fixture's text with :mod:`csv`
and :func:`calendar.timegm`, not with the reader's parsers.
"""

from __future__ import annotations

import calendar
import csv
import gzip
import time

import numpy as np
import pytest

from opt_sched.errors import OptionError, TraceError
from opt_sched.traces import swf_format as swf
from opt_sched.traces.formats import detect_format
from opt_sched.traces.reading import TraceReading
from opt_sched.traces.slurm_sacct import read_sacct, sacct_records, sniff

from .paths import TRACES
from .trace_roundtrip import (
    assert_reader_refuses,
    assert_replay_refuses,
    assert_swf_round_trip,
)

SACCT = TRACES / "jobs.sacct"
MALFORMED = TRACES / "malformed.sacct"
MALFORMED_ERROR = ("malformed.sacct line 3: field Submit='2024-03-01 08:05' is not "
                   "a time")

# The documented mapping (instances/traces.md), written out independently.
EXPECTED_STATUS = {"COMPLETED": 1, "CANCELLED": 5, "FAILED": 0, "TIMEOUT": 0,
                   "NODE_FAIL": 0, "OUT_OF_MEMORY": 0, "PREEMPTED": 0,
                   "DEADLINE": 0, "BOOT_FAIL": 0}


def table() -> list[dict[str, str]]:
    """The fixture's rows, with their 1-based file line."""
    with SACCT.open() as handle:
        rows = list(csv.DictReader(handle, delimiter="|"))
    for number, row in enumerate(rows, start=2):
        row["line"] = str(number)
    return rows


def epoch(text: str) -> float:
    return float(calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%S")))


def hms(text: str) -> float:
    days, _, clock = text.rpartition("-")
    h, m, s = (int(x) for x in clock.split(":"))
    return (int(days) if days else 0) * 86400 + h * 3600 + m * 60 + s


@pytest.fixture(scope="module")
def records():
    return sacct_records(SACCT)


def test_lines_are_jobs_steps_or_unfinished(records):
    rows = table()
    steps = [r for r in rows if "." in r["JobID"]]
    jobs = [r for r in rows if "." not in r["JobID"]]
    unfinished = [int(r["line"]) for r in jobs if r["State"] in ("PENDING", "RUNNING")]
    assert len(steps) == 2 and len(jobs) == 19 and len(unfinished) == 3
    assert sum(records.not_jobs.values()) == len(steps)
    assert records.skipped == {"not_finished": tuple(unfinished)}
    assert len(records.fields) == len(jobs) - len(unfinished)
    assert records.ids == tuple(r["JobID"] for r in jobs
                                if int(r["line"]) not in unfinished)
    # arrays: one job per element; heterogeneous jobs: one job per component
    assert {"1008_1", "1008_2", "1009+0", "1009+1"} <= set(records.ids)


def test_every_state_maps_to_its_swf_status(records):
    by_id = {r["JobID"]: r for r in table()}
    states = set()
    for job_id, status in zip(records.ids, records.fields[:, swf.STATUS]):
        state = by_id[job_id]["State"].split()[0]
        states.add(state)
        assert status == EXPECTED_STATUS[state], job_id
    assert states == set(EXPECTED_STATUS)
    assert any(by_id[j]["State"].startswith("CANCELLED by ") for j in records.ids)


def test_times_sizes_and_limits(records):
    by_id = {r["JobID"]: r for r in table()}
    origin = min(epoch(by_id[j]["Submit"]) for j in records.ids)
    assert records.header["UnixStartTime"] == str(int(origin))
    assert records.header["TimeZoneString"] == "UTC"
    assert "sacct" in records.header["Note"]
    for k, job_id in enumerate(records.ids):
        row, got = by_id[job_id], records.fields[k]
        assert got[swf.SUBMIT] == epoch(row["Submit"]) - origin
        started = row["Start"] not in ("None", "Unknown") and row["AllocNodes"] != "0"
        if started:
            assert got[swf.WAIT] == epoch(row["Start"]) - epoch(row["Submit"])
            assert got[swf.RUN] == epoch(row["End"]) - epoch(row["Start"])
            assert got[swf.RUN] == hms(row["Elapsed"])      # no suspension here
            assert got[swf.ALLOCATED] == int(row["AllocNodes"])
        else:                                           # 1005, 1015: never ran
            assert (got[swf.WAIT], got[swf.RUN], got[swf.ALLOCATED]) == (-1, 0, -1)
        assert got[swf.REQ_PROCS] == int(row["ReqNodes"])
        limit = row["Timelimit"]
        assert got[swf.REQ_TIME] == (
            -1 if limit in ("UNLIMITED", "Partition_Limit") else hms(limit))
    assert {j for j in records.ids
            if records.fields[records.ids.index(j), swf.WAIT] == -1} == {"1005", "1015"}


def test_users_groups_and_partitions_are_numbered(records):
    by_id = {r["JobID"]: r for r in table()}
    users = [by_id[j]["User"] for j in records.ids]
    assert records.users == tuple(users)
    assert records.groups == tuple(by_id[j]["Group"] for j in records.ids)
    first = list(dict.fromkeys(users))
    assert records.fields[:, swf.USER].tolist() == [first.index(u) + 1 for u in users]
    partitions = [by_id[j]["Partition"] for j in records.ids]
    order = list(dict.fromkeys(partitions))
    assert records.fields[:, swf.QUEUE].tolist() == [order.index(p) + 1
                                                     for p in partitions]


def test_time_zone_shifts_the_origin_only(records):
    berlin = sacct_records(SACCT, TraceReading(tz="Europe/Berlin"))
    # 2024-03-01 is in Central European Time, UTC+1
    assert int(berlin.header["UnixStartTime"]) == int(
        records.header["UnixStartTime"]) - 3600
    assert berlin.header["TimeZoneString"] == "Europe/Berlin"
    np.testing.assert_array_equal(berlin.fields, records.fields)
    assert "time zone: UTC (assumed; give --tz)" in records.notes
    assert not any("time zone" in note for note in berlin.notes)
    with pytest.raises(OptionError, match="tz='Nowhere/Land'"):
        sacct_records(SACCT, TraceReading(tz="Nowhere/Land"))
    # UTC given is not UTC assumed
    given = sacct_records(SACCT, TraceReading(tz="UTC"))
    np.testing.assert_array_equal(given.fields, records.fields)
    assert not any("assumed" in note for note in given.notes)


def test_read_sacct_applies_the_rules():
    trace, summary = read_sacct(SACCT)
    rows = {r["JobID"]: r for r in table()}
    ran = [j for j in rows if "." not in j and rows[j]["State"] not in
           ("PENDING", "RUNNING") and rows[j]["Elapsed"] != "00:00:00"]
    assert sorted(trace.ids) == sorted(ran)
    assert summary.skipped["not_finished"] == 3
    assert summary.kept + summary.total_skipped == 19
    assert any("job steps" in note for note in summary.notes)
    # cancelled before it started: dropped by --cancelled drop-unstarted
    _, dropped = read_sacct(SACCT, None, TraceReading(cancelled="drop-unstarted"))
    assert dropped.skipped.get("cancelled_unstarted") == 1      # 1005
    # the registry finds the format by name and by content
    assert detect_format(SACCT).name == "sacct"
    assert sniff(SACCT, SACCT.read_text()[:500])
    assert not sniff(SACCT, "03/01/2024 08:00:00;Q;1.s;queue=batch\n")


def test_parsable_trailing_pipe_and_any_column_order(tmp_path, records):
    lines = SACCT.read_text().splitlines()
    names = lines[0].split("|")
    order = list(reversed(range(len(names))))
    shuffled = ["|".join(line.split("|")[k] for k in order) for line in lines]
    path = tmp_path / "shuffled.txt"
    path.write_text("\n".join(line + "|" for line in shuffled) + "\n")
    again = sacct_records(path)
    np.testing.assert_array_equal(again.fields, records.fields)
    assert again.ids == records.ids
    assert detect_format(path).name == "sacct"


def test_gzipped_log_reads_the_same(tmp_path, records):
    path = tmp_path / "jobs.sacct.gz"
    path.write_bytes(gzip.compress(SACCT.read_bytes()))
    again = sacct_records(path)
    np.testing.assert_array_equal(again.fields, records.fields)
    assert again.name == "jobs"
    assert detect_format(path).name == "sacct"


def test_malformed_line_names_line_and_field():
    assert_reader_refuses(sacct_records, MALFORMED, MALFORMED_ERROR)


GOOD = ("2001|batch|alice|2024-03-01T08:00:00|2024-03-01T08:01:00|"
        "2024-03-01T08:11:00|00:10:00|00:30:00|1|1|COMPLETED")
HEADER = ("JobID|Partition|User|Submit|Start|End|Elapsed|Timelimit|AllocNodes|"
          "ReqNodes|State")


@pytest.mark.parametrize(("column", "value", "message"), [
    (0, "abc", "field JobID='abc' is not a Slurm job id"),
    (10, "EXPLODED", "field State='EXPLODED' is not a Slurm job state"),
    (5, "tomorrow", "field End='tomorrow' is not a time"),
    (6, "1:2:3:4", "field Elapsed='1:2:3:4' is not a duration"),
    (7, "forever", "field Timelimit='forever' is not a duration"),
    (8, "-2", "field AllocNodes='-2' is not a node count"),
    (9, "two", "field ReqNodes='two' is not a node count"),
])
def test_malformed_variants(tmp_path, column, value, message):
    values = GOOD.split("|")
    values[column] = value
    path = tmp_path / "bad.sacct"
    path.write_text(f"{HEADER}\n{GOOD}\n{'|'.join(values)}\n")
    with pytest.raises(TraceError) as caught:
        sacct_records(path)
    assert str(caught.value) == f"bad.sacct line 3: {message}"


def test_malformed_structure(tmp_path):
    path = tmp_path / "short.sacct"
    path.write_text(f"{HEADER}\n{GOOD}|extra\n")
    with pytest.raises(TraceError, match=r"short.sacct line 2: 12 fields, expected 11"):
        sacct_records(path)
    path.write_text(HEADER.replace("Submit", "Eligible") + f"\n{GOOD}\n")
    with pytest.raises(TraceError, match=r"line 1: the sacct header has no column "
                                         r"Submit"):
        sacct_records(path)
    path.write_text(HEADER.replace("AllocNodes", "A").replace("ReqNodes", "B")
                    + f"\n{GOOD}\n")
    with pytest.raises(TraceError, match="AllocNodes, NNodes or ReqNodes"):
        sacct_records(path)
    path.write_text("\n\n")
    with pytest.raises(TraceError, match="no sacct header"):
        sacct_records(path)


def test_nnodes_stands_for_allocnodes_and_repeated_headers(tmp_path):
    path = tmp_path / "nnodes.sacct"
    header = HEADER.replace("AllocNodes", "NNodes")
    path.write_text(f"{header}\n{GOOD}\n{header}\n{GOOD.replace('2001', '2002')}\n")
    got = sacct_records(path)
    assert got.fields[:, swf.ALLOCATED].tolist() == [1, 1]
    assert got.not_jobs == {"repeated header lines": 1}
    assert "NNodes" in " ".join(got.notes)


def test_without_a_start_column(tmp_path):
    path = tmp_path / "nostart.sacct"
    header = "JobID|Submit|End|Elapsed|AllocNodes|State"
    path.write_text(f"{header}\n"
                    "1|2024-03-01T08:00:00|2024-03-01T08:30:00|00:20:00|2|COMPLETED\n"
                    "2|2024-03-01T08:00:00|2024-03-01T08:30:00|00:00:00|0|CANCELLED\n"
                    "3|2024-03-01T08:00:00|Unknown|00:05:00|1|RUNNING\n")
    got = sacct_records(path)
    # job 1 started at End - Elapsed = 08:10: wait 600, run 1200
    assert got.fields[0, [swf.WAIT, swf.RUN, swf.ALLOCATED]].tolist() == [600, 1200, 2]
    # job 2 never got nodes: cancelled while pending
    assert got.fields[1, [swf.WAIT, swf.RUN, swf.ALLOCATED, swf.STATUS]].tolist() == [
        -1, 0, -1, 5]
    assert got.skipped == {"not_finished": (4,)}


def test_cli_malformed_exits_2():
    assert_replay_refuses(MALFORMED, MALFORMED_ERROR)


def test_swf_round_trip_same_trace_and_schedule(tmp_path, records):
    assert_swf_round_trip(read_sacct(SACCT)[0], records, tmp_path)
