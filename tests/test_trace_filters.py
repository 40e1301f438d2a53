"""Trace hygiene filters: time range, cancelled before start, zero run time,
flurries -- each explicit, counted, in the summary and in ``--json``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from opt_sched.cli import main
from opt_sched.traces.filters import find_flurries, user_keys
from opt_sched.traces.reading import TraceReading

from .test_trace_rules import records, row


def rule(summary, name):
    return next(r for r in summary.rules if r.name == name)


# -- time range ------------------------------------------------------------------
def test_time_range_keeps_start_and_drops_end():
    from opt_sched.traces.rules import records_to_trace

    data = records([row(k, submit=10.0 * k) for k in range(1, 7)])  # 10 .. 60
    trace, summary = records_to_trace(data, TraceReading(time_range=(20.0, 50.0)))
    assert trace.submit.tolist() == [20.0, 30.0, 40.0]          # [20, 50)
    assert summary.skipped == {"outside_time_range": 3}
    assert summary.examples["outside_time_range"] == (1, 5, 6)
    assert rule(summary, "time range").count == 3
    assert "[20, 50)" in rule(summary, "time range").rule


# -- cancelled and failed ------------------------------------------------------------
def test_cancelled_before_start_dropped_only_when_asked():
    from opt_sched.traces.rules import records_to_trace

    data = records([row(1, status=1), row(2, status=5, run=0),
                    row(3, status=5, run=-1), row(4, status=5, run=40),
                    row(5, status=0, run=30)])
    kept, summary = records_to_trace(data, TraceReading())
    # keep: the cancelled job that ran is replayed; the two that did not fall
    # to the run time rules (0 and unknown)
    assert kept.ids == ("1", "4", "5")
    assert summary.skipped == {"run_time_unknown": 1, "run_time_zero": 1}
    assert rule(summary, "cancelled").count == 3
    assert "3 jobs, 1 kept" in rule(summary, "cancelled").rule
    assert rule(summary, "failed jobs").count == 1
    dropped, summary = records_to_trace(data, TraceReading(cancelled="drop-unstarted"))
    assert dropped.ids == ("1", "4", "5")
    assert summary.skipped == {"cancelled_unstarted": 2}
    assert summary.examples["cancelled_unstarted"] == (2, 3)
    assert rule(summary, "cancelled").count == 2
    assert "; 1 cancelled jobs kept and replayed" in rule(summary, "cancelled").rule


# -- flurries ----------------------------------------------------------------------
def burst(user: int, size: int, start: float, count: int, step: float,
          first_job: int) -> list[list[float]]:
    return [row(first_job + k, submit=start + step * k, allocated=size, user=user)
            for k in range(count)]


def test_flurry_detector_follows_its_definition():
    rows = (burst(7, 2, 0.0, 6, 10.0, 1)          # a flurry: 6 jobs 10 s apart
            + burst(8, 2, 5.0, 6, 11.0, 101)      # 11 s apart: none at gap 10
            + burst(9, 1, 0.0, 3, 1.0, 201)       # 3 jobs of size 1 then
            + burst(9, 4, 3.0, 3, 1.0, 301))      # 3 of size 4: not similar
    data = records(rows)
    mask = np.ones(len(rows), dtype=bool)
    users = user_keys([str(int(r[11])) for r in rows])
    names = [str(int(r[11])) for r in rows]
    sizes = np.array([r[4] for r in rows])
    submit = np.array([r[1] for r in rows])
    found = find_flurries(submit, users, sizes, data.lines, mask, min_jobs=5, gap=10.0,
                          name=names.__getitem__)
    assert [(f.user, f.size, f.jobs, f.lines) for f in found] == [
        ("7", 2, 6, (1, 2, 3, 4, 5, 6))]
    assert found[0].end - found[0].start == 50.0
    # a looser gap finds user 8 too; a smaller minimum finds user 9's pieces
    assert len(find_flurries(submit, users, sizes, data.lines, mask, min_jobs=5,
                             gap=11.0)) == 2
    assert len(find_flurries(submit, users, sizes, data.lines, mask, min_jobs=3,
                             gap=1.0)) == 2


def test_flurries_are_listed_when_kept_and_counted_when_dropped():
    from opt_sched.traces.rules import records_to_trace

    rows = [*burst(7, 2, 0.0, 6, 10.0, 1), row(50, submit=1000.0, user=3)]
    data = records(rows)
    reading = {"flurry_jobs": 5, "flurry_gap": 10.0}
    kept, summary = records_to_trace(data, TraceReading(**reading))
    assert len(kept) == 7 and len(summary.flurries) == 1
    assert "user 7: 6 jobs of 2 processors in 50 s (lines 1-6)" in summary.format()
    dropped, summary = records_to_trace(data, TraceReading(flurries="drop", **reading))
    assert dropped.ids == ("50",)
    assert summary.skipped == {"flurry": 6} and rule(summary, "flurries").count == 6
    as_json = json.loads(json.dumps(summary.to_dict()))
    assert as_json["flurries"][0]["jobs"] == 6
    assert as_json["skip_reasons"]["flurry"]["count"] == 6


# -- the CLI ---------------------------------------------------------------------
def write_swf(path: Path, rows: list[list[float]]) -> Path:
    text = "; MaxProcs: 8\n" + "".join(" ".join(f"{x:g}" for x in r) + "\n"
                                       for r in rows)
    path.write_text(text)
    return path


def test_replay_json_carries_every_filter_count(tmp_path, capsys):
    rows = [*burst(7, 2, 0.0, 6, 10.0, 1),
            row(20, submit=100.0, status=5, run=0),         # cancelled unstarted
            row(21, submit=110.0, run=0),                   # zero run time
            row(22, submit=120.0, run=50),
            row(23, submit=5000.0, run=50)]                 # outside the range
    path = write_swf(tmp_path / "t.swf", rows)
    code = main(["replay", str(path), "--scheduler", "fcfs", "--json", "--validate",
                 "--time-range", "0:1000", "--cancelled", "drop-unstarted",
                 "--zero-run-time", "keep", "--flurries", "drop", "--flurry-jobs",
                 "5", "--flurry-gap", "10"])
    out = capsys.readouterr().out
    assert code == 0
    report = json.loads(out)
    reading = report["trace_reading"]
    assert {code: item["count"] for code, item in reading["skip_reasons"].items()} == {
        "outside_time_range": 1, "cancelled_unstarted": 1, "flurry": 6}
    assert reading["adjustments"]["run_time_zero_kept"]["count"] == 1
    counts = {r["name"]: r["count"] for r in reading["rules"]}
    assert counts["time range"] == 1 and counts["cancelled"] == 1
    assert counts["zero run time"] == 1 and counts["flurries"] == 6
    assert report["jobs"] == 2 and report["validated"]


def test_replay_prints_one_line_per_filter(tmp_path, capsys):
    path = write_swf(tmp_path / "t.swf", [row(1), row(2, submit=5, run=0)])
    assert main(["replay", str(path), "--scheduler", "fcfs", "--quiet"]) == 0
    err = capsys.readouterr().err
    for name in ("job size", "cancelled", "zero run time", "time range", "flurries",
                 "estimates", "failed jobs"):
        assert sum(f" {name}: " in line for line in err.splitlines()) == 1, name
    assert "drop: 1 jobs with run time 0 skipped" in err


@pytest.mark.parametrize("argv, message", [
    (["--time-range", "9:3"], "--time-range: '9:3': START must be before END"),
    (["--time-range", "a:b"], "--time-range: 'a:b' is not START:END"),
    (["--cancelled", "drop"], "--cancelled: invalid choice"),
    (["--flurry-jobs", "1"], "--flurry-jobs: '1' is not an integer >= 2"),
    (["--tz", "Mars/Olympus"], "--tz: 'Mars/Olympus' is not an IANA time zone"),
    (["--format", "csv"], "--format: 'csv' is unknown"),
])
def test_bad_values_exit_2_with_one_line(tmp_path, capsys, argv, message):
    path = write_swf(tmp_path / "t.swf", [row(1)])
    with pytest.raises(SystemExit) as exit_:
        main(["replay", str(path), *argv])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_trace_options_refused_on_an_instance_file(capsys):
    from .paths import INSTANCES

    code = main(["replay", str(INSTANCES / "tiny5.json"), "--job-size", "requested"])
    assert code == 2
    assert "--job-size applies to traces" in capsys.readouterr().err
