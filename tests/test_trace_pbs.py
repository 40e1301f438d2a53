"""PBS/Torque accounting logs (opt_sched.traces.pbs_accounting): E records,
D and A records of jobs that never started, unfinished jobs, record types
that are not jobs, node counts (exec_host, nodect, nodes, select), time
zones, malformed lines (one error, exit 2), and the SWF round trip."""

from __future__ import annotations

import numpy as np
import pytest

from opt_sched.errors import TraceError
from opt_sched.traces import swf_format as swf
from opt_sched.traces.formats import detect_format
from opt_sched.traces.pbs_accounting import pbs_records, read_pbs, sniff
from opt_sched.traces.reading import TraceReading

from .paths import TRACES
from .trace_roundtrip import (
    assert_reader_refuses,
    assert_replay_refuses,
    assert_swf_round_trip,
)

PBS = TRACES / "jobs.pbs"
MALFORMED = TRACES / "malformed.pbs"
MALFORMED_ERROR = "malformed.pbs line 2: field qtime='abc' is not an epoch (seconds)"

ORIGIN = 1709280000       # 2024-03-01 08:00:00 UTC, the qtime of 101.server

# Worked out by hand from jobs.pbs (tests/data/traces/README.md):
# id: (line, submit - ORIGIN, wait, run, allocated, requested, walltime, status)
EXPECTED = {
    # qtime +0, start +5, end +1805; hosts n01 n02; nodect 2; Exit_status 0
    "101.server": (7, 0, 5, 1800, 2, 2, 3600, 1),
    # D record before its E: cancelled while running (Exit_status 271)
    "102.server": (9, 300, 900, 1200, 1, 1, 1800, 5),
    # Q at 08:10:00, D at 08:12:00, never started: cancelled before start
    "103.server": (5, 600, -1, 0, -1, -1, -1, 5),
    # PBS Pro: exec_host cn1/0*8+cn2/0*8+cn3/0*8; Exit_status -29 (walltime)
    "104.pbs01": (12, 3600, 10, 1205, 3, 3, 1200, 0),
    # array element; Exit_status 1
    "105[1].pbs01": (15, 5400, 0, 300, 1, 1, 600, 0),
    # no nodect: select=2:ncpus=16 is 2 chunks; walltime=600 is seconds
    "106.pbs01": (16, 5100, 400, 500, 2, 2, 600, 1),
    # Q at 10:02:00, aborted by the server (A) before it started
    "109.server": (22, 7320, -1, 0, -1, -1, -1, 0),
    # Torque: nodes=n07:ppn=4+n08:ppn=4 (2 named hosts); walltime 1:00:00
    "110.server": (23, 6000, 300, 2700, 2, 2, 3600, 1),
}
COLUMNS = (swf.SUBMIT, swf.WAIT, swf.RUN, swf.ALLOCATED, swf.REQ_PROCS, swf.REQ_TIME,
           swf.STATUS)


@pytest.fixture(scope="module")
def records():
    return pbs_records(PBS)


def test_jobs_match_the_hand_worked_values(records):
    assert records.header["UnixStartTime"] == str(ORIGIN)
    assert "PBS" in records.header["Note"]
    assert sorted(records.ids) == sorted(EXPECTED)
    for k, job_id in enumerate(records.ids):
        line, *values = EXPECTED[job_id]
        assert records.lines[k] == line, job_id
        assert records.fields[k, list(COLUMNS)].tolist() == values, job_id
    assert list(records.lines) == sorted(records.lines)        # file order


def test_every_line_is_counted_once(records):
    lines = [line for line in PBS.read_text().splitlines() if line.strip()]
    kinds = [line.split(";")[1] for line in lines]
    # 107 is still queued (line 17), 108 still running (line 19)
    assert records.skipped == {"not_finished": (17, 19)}
    assert len(records.fields) + sum(records.not_jobs.values()) + 2 == len(lines)
    # the not_jobs are the Q, S, D and L records except those standing for a
    # job: 103's D (line 5), 109's A (22), 107's Q (17), 108's S (19)
    assert records.not_jobs == {
        "records of type Q (queued)": kinds.count("Q") - 1,
        "records of type S (started)": kinds.count("S") - 1,
        "records of type D (deleted)": kinds.count("D") - 1,
        "records of type L (licenses)": kinds.count("L")}


def test_users_and_groups(records):
    by_id = dict(zip(records.ids, zip(records.users, records.groups)))
    assert by_id["101.server"] == ("alice", "physics")
    assert by_id["102.server"] == ("bob", "chem")
    assert by_id["103.server"] == (None, None)        # a D record names no owner
    users = [u for u in records.users if u is not None]
    first = list(dict.fromkeys(users))
    assert [int(x) for x in records.fields[:, swf.USER] if x != -1] == [
        first.index(u) + 1 for u in users]
    assert records.fields[records.ids.index("103.server"), swf.GROUP] == -1


def test_time_zone_moves_only_the_record_dates(records):
    chicago = pbs_records(PBS, TraceReading(tz="America/Chicago"))
    assert chicago.header["UnixStartTime"] == str(ORIGIN)   # epochs: no zone
    moved = [records.ids.index(j) for j in ("103.server", "109.server")]
    # Central Standard Time, UTC-6: the Q dates are 6 h later in UTC
    np.testing.assert_array_equal(chicago.fields[moved, swf.SUBMIT],
                                  records.fields[moved, swf.SUBMIT] + 6 * 3600)
    rest = [k for k in range(len(records.ids)) if k not in moved]
    np.testing.assert_array_equal(chicago.fields[rest], records.fields[rest])
    assert any("time zone: UTC (assumed; give --tz)" in n for n in records.notes)
    assert not any("time zone" in n for n in chicago.notes)


def test_read_pbs_applies_the_rules():
    trace, summary = read_pbs(PBS)
    ran = sorted(j for j, values in EXPECTED.items() if values[3] > 0)
    assert sorted(trace.ids) == ran
    assert summary.skipped == {"not_finished": 2, "run_time_zero": 2}
    _, dropped = read_pbs(PBS, None, TraceReading(cancelled="drop-unstarted"))
    assert dropped.skipped["cancelled_unstarted"] == 1          # 103 (109 failed)
    assert detect_format(PBS).name == "pbs"
    assert sniff(PBS, PBS.read_text()[:300])
    assert not sniff(PBS, "JobID|Submit|State\n")


def test_malformed_line_names_line_and_field():
    assert_reader_refuses(pbs_records, MALFORMED, MALFORMED_ERROR)


GOOD = ("03/01/2024 08:30:00;E;201.server;user=alice group=physics queue=batch "
        "qtime=1709280000 start=1709280060 exec_host=n01/0 Resource_List.nodect=1 "
        "Resource_List.walltime=01:00:00 end=1709281860 Exit_status=0")


@pytest.mark.parametrize(("old", "new", "message"), [
    ("Resource_List.walltime=01:00:00", "Resource_List.walltime=1h",
     "field Resource_List.walltime='1h' is not a walltime ([[HH:]MM:]SS)"),
    ("Exit_status=0", "Exit_status=ok", "field Exit_status='ok' is not an integer"),
    ("Resource_List.nodect=1", "Resource_List.nodect=x",
     "field Resource_List.nodect='x' is not an integer"),
    ("end=1709281860", "end=-5", "field end='-5' is not an epoch (seconds)"),
    ("03/01/2024 08:30:00", "13/01/2024 08:30:00",
     "field date='13/01/2024 08:30:00' is not a time (MM/DD/YYYY HH:MM:SS)"),
    ("03/01/2024 08:30:00;E;", "2024-03-01 08:30:00;E;",
     "not a PBS accounting record"),
])
def test_malformed_variants(tmp_path, old, new, message):
    path = tmp_path / "bad.pbs"
    path.write_text(GOOD.replace("201", "200") + "\n" + GOOD.replace(old, new) + "\n")
    with pytest.raises(TraceError) as caught:
        pbs_records(path)
    assert str(caught.value).startswith(f"bad.pbs line 2: {message}")


def test_torque_start_zero_and_missing_fields(tmp_path):
    path = tmp_path / "odd.pbs"
    path.write_text(
        "03/01/2024 08:30:00;E;301.s;user=a queue=q qtime=1709280000 start=0 "
        "end=1709280100 Exit_status=-1 Resource_List.nodes=4:ppn=8\n"
        "03/01/2024 08:31:00;E;302.s;user=a queue=q ctime=1709280010 start=1709280020 "
        "exec_host=h1/0-7+h2/0-7+h3/0-7 resources_used.walltime=00:02:00\n")
    got = pbs_records(path)
    # 301 never ran (start=0): wait -1, run 0; requested 4 nodes from nodes=4:ppn=8
    assert got.fields[0, [swf.WAIT, swf.RUN, swf.ALLOCATED, swf.REQ_PROCS,
                          swf.STATUS]].tolist() == [-1, 0, -1, 4, 0]
    # 302: submit from ctime, run from resources_used.walltime (no end), no
    # Exit_status: status unknown
    assert got.fields[1, [swf.SUBMIT, swf.WAIT, swf.RUN, swf.ALLOCATED, swf.REQ_PROCS,
                          swf.REQ_TIME, swf.STATUS]].tolist() == [
        10, 10, 120, 3, -1, -1, -1]


def test_cli_malformed_exits_2():
    assert_replay_refuses(MALFORMED, MALFORMED_ERROR)


def test_swf_round_trip_same_trace_and_schedule(tmp_path, records):
    assert_swf_round_trip(read_pbs(PBS)[0], records, tmp_path)
