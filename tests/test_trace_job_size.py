"""``--job-size allocated|requested`` on KTH-SP2: the two readings differ
exactly on the jobs whose SWF fields 5 and 8 differ (issue 26 says 219)."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

from opt_sched.cli import main
from opt_sched.traces import read_swf
from opt_sched.traces.reading import TraceReading

from .paths import REPO, shared_data_dir


@pytest.fixture(scope="module")
def kth():
    path = shared_data_dir() / "swf" / "KTH-SP2.swf.gz"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return path


def differing_fields(path) -> dict[str, tuple[int, int, int]]:
    """Job number -> (file line, field 5, field 8) of the job lines whose
    fields 5 and 8 are both known and differ, read with plain Python."""
    out = {}
    with gzip.open(path, "rt") as handle:
        for number, line in enumerate(handle, start=1):
            tokens = line.split()
            if not tokens or tokens[0].startswith(";"):
                continue
            allocated, requested = int(tokens[4]), int(tokens[7])
            if -1 not in (allocated, requested) and allocated != requested:
                out[tokens[0]] = (number, allocated, requested)
    return out


def test_the_readings_differ_exactly_where_fields_5_and_8_differ(kth):
    expected = differing_fields(kth)
    assert len(expected) == 219
    a, summary_a = read_swf(kth)
    r, summary_r = read_swf(kth, reading=TraceReading(job_size="requested"))
    assert a.ids == r.ids            # the same jobs, only their sizes change
    changed = {a.ids[k] for k in np.flatnonzero(a.nodes != r.nodes)}
    assert changed == set(expected)
    for k in np.flatnonzero(a.nodes != r.nodes):
        line, allocated, requested = expected[a.ids[k]]
        assert (a.nodes[k], r.nodes[k], a.lines[k]) == (allocated, requested, line)
    for summary, reading in ((summary_a, "allocated"), (summary_r, "requested")):
        assert {c.id for c in summary.size_changes} == set(expected)
        size = next(rule for rule in summary.rules if rule.name == "job size")
        assert size.count == 219 and size.rule.startswith(reading)


def test_replay_lists_the_jobs_whose_size_changes(kth, capsys):
    expected = differing_fields(kth)
    assert main(["replay", str(kth), "--scheduler", "fcfs", "--job-size",
                 "requested", "--json", "--validate"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["validated"] and report["jobs"] == 28481
    changes = report["trace_reading"]["size_changes"]
    assert {c["id"]: (c["line"], c["allocated"], c["requested"])
            for c in changes} == expected
    rules = {r["name"]: r["rule"] for r in report["trace_reading"]["rules"]}
    assert rules["job size"].startswith("requested processors (SWF field 8")
    assert "219 jobs have fields 5 and 8 different" in rules["job size"]


def test_summary_names_the_reading(capsys):
    head = REPO / "tests" / "data" / "traces" / "kth-sp2-head.swf"
    assert main(["replay", str(head), "--scheduler", "fcfs", "--quiet",
                 "--validate"]) == 0
    err = capsys.readouterr().err
    assert "job size: allocated processors (SWF field 5, else field 8)" in err
