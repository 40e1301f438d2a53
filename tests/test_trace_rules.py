"""The reading rules (opt_sched.traces.rules.records_to_trace): one pipeline for
every format, every record counted, names from the records, the limits."""

from __future__ import annotations

import numpy as np
import pytest

from opt_sched.errors import OptionError, TraceError
from opt_sched.scheduling import replay
from opt_sched.traces import convert_trace, read_swf
from opt_sched.traces.reading import TraceReading, TraceRecords
from opt_sched.traces.rules import ZERO_RUN_TIME_KEPT, job_sizes, records_to_trace
from opt_sched.validation import validate

from .paths import TRACES


def row(job: int, submit: float = 0.0, run: float = 100.0, allocated: int = 4,
        requested: int = -1, walltime: float = 200.0, status: int = 1,
        user: int = 1) -> list[float]:
    """One SWF row of 18 fields (-1 = unknown) with the fields the rules read."""
    fields = [-1.0] * 18
    fields[0], fields[1], fields[3], fields[4] = job, submit, run, allocated
    fields[7], fields[8], fields[10], fields[11] = requested, walltime, status, user
    return fields


def records(rows: list[list[float]], **extra) -> TraceRecords:
    table = np.array(rows, dtype=float).reshape(-1, 18)
    return TraceRecords("log.txt", "log", "test", table,
                        np.arange(1, len(rows) + 1, dtype=np.int64), {}, 8, **extra)


def test_every_record_is_counted_with_the_formats_own_skips():
    # three job rows; the format itself skipped two pending jobs (lines 9, 10)
    # and saw 40 job steps, which are notes, not jobs
    data = records([row(1), row(2, run=0), row(3, allocated=16)],
                   skipped={"not_finished": (9, 10)},
                   not_jobs={"job steps (JobID 12.batch)": 40})
    trace, summary = records_to_trace(data, TraceReading())
    assert trace.ids == ("1",)
    assert summary.lines == 5                       # 3 rows + 2 pending
    assert summary.kept + summary.total_skipped == summary.lines
    assert dict(summary.skipped) == {"not_finished": 2, "run_time_zero": 1,
                                     "wider_than_machine": 1}
    assert summary.examples["not_finished"] == (9, 10)
    assert any("40 job steps" in note for note in summary.notes)
    assert trace.format == "test" and trace.name == "log"


def test_a_skipped_line_that_is_also_a_row_is_counted_once():
    data = records([row(1), row(2)], skipped={"not_finished": (2,)})
    trace, summary = records_to_trace(data, TraceReading())
    assert trace.ids == ("1",) and summary.lines == 2
    assert dict(summary.skipped) == {"not_finished": 1}


def test_names_come_from_the_records_when_given():
    data = records([row(1, submit=5), row(1, submit=3)],
                   ids=("1234_7", "1234_8"), users=("alice", None),
                   groups=("physics", "chem"))
    trace, _ = records_to_trace(data, TraceReading())
    # sorted by submit time: the second record first, its names with it
    assert trace.ids == ("1234_8", "1234_7")
    assert trace.users == (None, "alice")
    assert trace.groups == ("chem", "physics")


def test_duplicate_ids_name_both_lines():
    data = records([row(1), row(2)], ids=("a", "a"))
    with pytest.raises(TraceError, match=r"log\.txt line 2: job id='a' repeats "
                                         r"line 1"):
        records_to_trace(data, TraceReading())


def test_limits_name_the_value_when_there_is_no_swf_text():
    data = records([row(1), row(2, run=2e15)])
    with pytest.raises(TraceError, match=r"log\.txt line 2: run time=2000000000000000 "
                                         r"exceeds the limit 1e\+15"):
        records_to_trace(data, TraceReading())


def test_job_sizes_follow_the_reading():
    table = np.array([row(1, allocated=4, requested=8), row(2, allocated=-1,
                                                            requested=8),
                      row(3, allocated=4, requested=-1)])
    assert job_sizes(table, "allocated").tolist() == [4, 8, 4]
    assert job_sizes(table, "requested").tolist() == [8, 8, 4]


def test_reading_refuses_bad_values_in_one_line():
    with pytest.raises(OptionError, match="job-size='asked' is unknown"):
        TraceReading(job_size="asked")
    with pytest.raises(OptionError, match="flurry-jobs=1 must be"):
        TraceReading(flurry_jobs=1)
    with pytest.raises(OptionError, match="time-range=5:1 is empty"):
        TraceReading(time_range=(5.0, 1.0))


def test_read_swf_takes_a_reading_and_keeps_its_old_keyword():
    a, _ = read_swf(TRACES / "skips.swf", overrun="keep")
    b, _ = read_swf(TRACES / "skips.swf", reading=TraceReading(overrun="keep"))
    assert a.ids == b.ids and np.array_equal(a.walltime, b.walltime)


def test_zero_run_time_keep_replays_and_validates():
    # job 2 ran 0 s (less than 0.5 s, SWF rounding) and has no request
    data = records([row(1, run=50), row(2, submit=10, run=0, walltime=-1),
                    row(3, submit=20, run=30, walltime=10)])
    dropped, summary = records_to_trace(data, TraceReading())
    assert dropped.ids == ("1", "3") and summary.skipped == {"run_time_zero": 1}
    trace, summary = records_to_trace(data, TraceReading(zero_run_time="keep"))
    assert trace.ids == ("1", "2", "3") and summary.total_skipped == 0
    job = trace.job(1)
    assert job.run_time == ZERO_RUN_TIME_KEPT == 1.0
    assert job.walltime == 1.0            # unknown request: the (kept) run time
    assert summary.adjusted["run_time_zero_kept"] == 1
    assert trace.swf_fields[1, 3] == 0    # the log's own row is untouched
    instance = convert_trace(trace).instance
    schedule = replay(instance, "fcfs")
    report = validate(instance, schedule)
    assert report.feasible, report
    rule = next(r for r in summary.rules if r.name == "zero run time")
    assert rule.count == 1 and "run time 1 s" in rule.rule
