"""SWF reader and writer (opt_sched.traces): parse, skips, errors, round trip."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opt_sched import JobSchedule, Schedule
from opt_sched.errors import OptionError, TraceError
from opt_sched.traces import read_swf, trace_to_instance, write_swf
from opt_sched.validation import validate

from .paths import TRACES, shared_data_dir


def job_lines(path: Path) -> list[str]:
    """The job lines of an SWF file, counted independently of the reader."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as handle:
        return [line for line in handle if line.strip() and not
                line.lstrip().startswith(";")]


# -- the KTH head fixture ------------------------------------------------------
def test_fixture_parses_every_line():
    trace, summary = read_swf(TRACES / "kth-sp2-head.swf")
    lines = job_lines(TRACES / "kth-sp2-head.swf")
    assert summary.lines == len(lines) == 40
    assert summary.kept == len(trace) == 40 and summary.total_skipped == 0
    assert trace.machine_size == 100
    assert trace.header["MaxProcs"] == "100"
    # the header's URL continuation line belongs to "Information"
    assert trace.header["Information"].splitlines() == [
        "http://www.pdc.kth.se/", "http://www.cs.huji.ac.il/labs/parallel/workload/"]
    # job 1 of KTH-SP2, read by eye: submit 0, run 97225 s, 56 processors,
    # requested 210000 s, user 1, group 1
    first = trace.job(0)
    assert (first.id, first.submit, first.run_time, first.nodes, first.walltime,
            first.user, first.group, first.line) == (
        "1", 0.0, 97225.0, 56, 210000.0, "1", "group:1", 20)
    # every job of the head is in the file order (submit times increase)
    assert list(trace.ids) == [str(k) for k in range(1, 41)]


def test_gzipped_and_plain_read_the_same(tmp_path):
    plain = TRACES / "kth-sp2-head.swf"
    packed = tmp_path / "head.swf.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    a, _ = read_swf(plain)
    b, _ = read_swf(packed)
    assert b.name == "head"
    assert a.ids == b.ids
    for column in ("submit", "run_time", "walltime", "nodes"):
        assert np.array_equal(getattr(a, column), getattr(b, column))


# -- skips and adjustments -----------------------------------------------------
def test_every_skip_reason_is_counted():
    trace, summary = read_swf(TRACES / "skips.swf")
    assert summary.lines == len(job_lines(TRACES / "skips.swf")) == 14
    assert summary.kept + summary.total_skipped == summary.lines
    # expected by construction (tests/data/traces/README.md)
    assert dict(summary.skipped) == {
        "negative_value": 1, "submit_unknown": 1, "run_time_unknown": 1,
        "run_time_zero": 1, "processors_unknown": 1, "processors_zero": 1,
        "wider_than_machine": 2}
    assert dict(summary.adjusted) == {"walltime_unknown": 1, "walltime_short": 1}
    # file lines: header is 8 lines, job k is on line 8 + k
    assert summary.examples["wider_than_machine"] == (15, 21)
    assert summary.examples["run_time_unknown"] == (10,)
    assert sorted(trace.ids, key=int) == ["1", "4", "9", "10", "12", "14"]
    text = summary.format()
    assert "8 skipped" in text and "wider than the machine (100)" in text
    assert "line 15, 21" in text


def test_rules_for_processors_and_estimates():
    trace, _ = read_swf(TRACES / "skips.swf")
    by_id = {trace.ids[k]: trace.job(k) for k in range(len(trace))}
    assert by_id["4"].nodes == 80            # allocated -1 -> requested 80
    assert by_id["9"].walltime == 13714.0    # requested -1 -> run time
    assert by_id["10"].walltime == 13197.0   # requested 100 < run -> run time
    assert by_id["12"].group == "exe:12"     # executable wins over group
    # job 14 was submitted before 12 and 13: rows are in submit order
    assert list(trace.submit) == sorted(trace.submit)
    assert trace.ids.index("14") < trace.ids.index("12")


def test_overrun_keep_keeps_the_short_request():
    trace, summary = read_swf(TRACES / "skips.swf", overrun="keep")
    assert trace.job(trace.ids.index("10")).walltime == 100.0
    assert dict(summary.adjusted) == {"walltime_unknown": 1,
                                      "walltime_short_kept": 1}
    with pytest.raises(OptionError, match="overrun='trim'"):
        read_swf(TRACES / "skips.swf", overrun="trim")


# -- malformed lines -------------------------------------------------------------
def test_malformed_field_names_line_and_field():
    with pytest.raises(TraceError) as err:
        read_swf(TRACES / "malformed-field.swf")
    assert str(err.value) == ("malformed-field.swf line 4: field 5 (allocated "
                              "processors)='abc' is not an integer")


def test_wrong_field_count_names_the_line():
    with pytest.raises(TraceError, match=r"malformed-count.swf line 4: 17 fields, "
                                         r"expected 18"):
        read_swf(TRACES / "malformed-count.swf")


@pytest.mark.parametrize(("field", "token", "message"), [
    (2, "soon", "field 2 (submit time)='soon' is not a number"),
    (4, "nan", "field 4 (run time)='nan' is not a number"),
    (8, "2.5", "field 8 (requested processors)='2.5' is not an integer"),
    (12, "bob", "field 12 (user id)='bob' is not an integer"),
    (9, "inf", "field 9 (requested time)='inf' is not a number"),
])
def test_malformed_variants(tmp_path, field, token, message):
    lines = (TRACES / "kth-sp2-head.swf").read_text().splitlines()
    tokens = lines[29].split()          # line 30 = job 11
    tokens[field - 1] = token
    lines[29] = " ".join(tokens)
    path = tmp_path / "bad.swf"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TraceError) as err:
        read_swf(path)
    assert str(err.value) == f"bad.swf line 30: {message}"


def test_malformed_header_and_duplicate_ids(tmp_path):
    lines = (TRACES / "kth-sp2-head.swf").read_text().splitlines()
    bad = tmp_path / "header.swf"
    bad.write_text("\n".join(["; MaxProcs: lots", *lines[19:]]) + "\n")
    with pytest.raises(TraceError, match=r"header.swf line 1: header "
                                         r"MaxProcs='lots' is not an integer"):
        read_swf(bad)
    dup = tmp_path / "dup.swf"
    dup.write_text("\n".join([*lines, lines[25]]) + "\n")
    with pytest.raises(TraceError, match=r"dup.swf line 60: field 1 \(job number\)"
                                         r"='7' repeats line 26"):
        read_swf(dup)
    with pytest.raises(TraceError, match="no such file"):
        read_swf(tmp_path / "missing.swf")


def test_a_trace_with_nothing_simulable(tmp_path):
    lines = (TRACES / "skips.swf").read_text().splitlines()
    only_bad = [line for line in lines
                if line.startswith(";") or line.split()[0] in {"2", "3", "5"}]
    path = tmp_path / "bad-only.swf"
    path.write_text("\n".join(only_bad) + "\n")
    trace, summary = read_swf(path)
    assert len(trace) == 0 and summary.lines == 3 and summary.total_skipped == 3
    with pytest.raises(OptionError, match="no simulable job"):
        trace_to_instance(trace)
    header_only = tmp_path / "empty.swf"
    header_only.write_text("; MaxProcs: 8\n")
    trace, summary = read_swf(header_only)
    assert len(trace) == 0 and summary.lines == 0 and trace.machine_size == 8


_VALUE = st.sampled_from([-7, -1, 0, 1, 3, 50, 99, 100, 101, 3600])


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(_VALUE, _VALUE, _VALUE, _VALUE, _VALUE), min_size=1,
                max_size=25))
def test_random_lines_are_kept_or_counted(tmp_path, rows):
    """Every job line is kept or skipped for one counted reason, and every
    kept job is simulable: submit >= 0, run > 0, 1 <= Q <= 100, e >= run."""
    text = ["; MaxProcs: 100"]
    for k, (submit, run, allocated, requested, wall) in enumerate(rows, start=1):
        fields = [k, submit, -1, run, allocated, -1, -1, requested, wall, -1, 1, 1,
                  1, -1, -1, -1, -1, -1]
        text.append(" ".join(str(x) for x in fields))
    path = tmp_path / "random.swf"
    path.write_text("\n".join(text) + "\n")
    trace, summary = read_swf(path)
    assert summary.lines == len(rows)
    assert summary.kept + summary.total_skipped == len(rows) == len(trace) + sum(
        summary.skipped.values())
    assert (trace.submit >= 0).all() and (trace.run_time > 0).all()
    assert (trace.nodes >= 1).all() and (trace.nodes <= 100).all()
    assert (trace.walltime >= trace.run_time).all()
    for k in range(len(trace)):
        submit, run, allocated, requested, _ = rows[int(trace.ids[k]) - 1]
        assert trace.nodes[k] == (requested if allocated == -1 else allocated)


# -- the real KTH-SP2 log --------------------------------------------------------
def test_kth_sp2_counts():
    path = shared_data_dir() / "swf" / "KTH-SP2.swf.gz"
    trace, summary = read_swf(path)
    lines = job_lines(path)
    print(summary.format())
    assert summary.lines == len(lines)
    assert summary.kept + summary.total_skipped == summary.lines
    assert len(trace) == summary.kept
    # KTH-SP2 as archived: 28,481 job lines (ids up to 28,490), 100 processors;
    # every line has run time >= 1, 1..100 processors and requested time >=
    # the run time (checked independently here), so nothing is skipped.
    table = np.array([line.split() for line in lines], dtype=float)
    assert len(table) == 28481 and trace.machine_size == 100
    simulable = ((table[:, 3] > 0) & (table[:, 4] > 0) & (table[:, 4] <= 100)
                 & (table[:, 1] >= 0))
    assert summary.kept == int(simulable.sum()) == 28481
    assert summary.adjusted == {} and summary.skipped == {}
    assert np.array_equal(np.sort(trace.run_time), np.sort(table[:, 3]))
    assert int(trace.nodes.sum()) == int(table[:, 4].sum())
    assert any("MaxJobs=28490" in note for note in summary.notes)


# -- writer ---------------------------------------------------------------------
def _replay_by_hand(instance):
    """A feasible schedule of a no-I/O instance: the jobs run one after
    another, each 10 s after the later of the previous end and its release,
    on machines 0..Q-1."""
    jobs = []
    clock = 0.0
    for job in instance.jobs:
        start = max(clock, job.release) + 10.0
        end = start + job.compute[0]
        jobs.append(JobSchedule(job.id, 0, (start,), (end,),
                                machines=tuple(range(job.nodes))))
        clock = end
    return Schedule(tuple(jobs), method="serial-by-hand")


def test_write_swf_round_trip(tmp_path):
    trace, _ = read_swf(TRACES / "kth-sp2-head.swf")
    instance = trace_to_instance(trace, "none")
    schedule = _replay_by_hand(instance)
    assert validate(instance, schedule).feasible
    out = tmp_path / "ours.swf"
    write_swf(out, instance, schedule, trace)
    again, summary = read_swf(out)
    assert summary.kept == len(trace) and again.machine_size == 100
    raw = np.array([line.split() for line in job_lines(out)], dtype=float)
    for k, job in enumerate(instance.jobs):
        js = schedule[job.id]
        assert raw[k, 0] == int(job.id)
        assert raw[k, 1] == job.release
        assert raw[k, 2] == js.start - job.release          # wait filled in
        assert raw[k, 3] == job.compute[0]                   # run = C - S
        assert raw[k, 4] == raw[k, 7] == job.nodes
        assert raw[k, 8] == job.walltime
    # fields not recomputed are copied from the trace (user, group)
    assert np.array_equal(raw[:, 11], trace.swf_fields[:, 11])
    assert np.array_equal(raw[:, 12], trace.swf_fields[:, 12])
    assert "UnixStartTime: 843480031" in out.read_text()


def test_write_swf_without_trace_numbers_jobs_and_marks_kills(tmp_path):
    from opt_sched import Instance, Job, Platform

    instance = Instance("x", Platform.homogeneous(1, 4), (
        Job("a", 2, (5.0,), (0.0,), release=1.0, walltime=3.0, user="ann",
            group="exe:7"),
        Job("b", 1, (2.0,), (0.0,), user="bob")))
    schedule = Schedule((
        JobSchedule("a", 0, (1.0,), (6.0,), machines=(0, 1), killed_at=4.0),
        JobSchedule("b", 0, (0.0,), (2.0,), machines=(2,))))
    out = tmp_path / "x.swf"
    write_swf(out, instance, schedule)
    rows = [line.split() for line in job_lines(out)]
    assert rows[0][:5] == ["1", "1", "0", "3", "2"]     # killed at 4: run 3
    assert rows[0][10] == "0" and rows[1][10] == "1"   # status failed / done
    assert rows[0][11:14] == ["1", "-1", "7"]          # users numbered, exe 7
    assert rows[1][:4] == ["2", "0", "0", "2"]


# -- the one pipeline --------------------------------------------------------------
def test_read_swf_is_the_records_through_the_rules():
    from opt_sched.traces.reading import TraceReading
    from opt_sched.traces.rules import records_to_trace
    from opt_sched.traces.swf_reader import swf_records

    path = TRACES / "skips.swf"
    records = swf_records(path)
    assert records.format == "swf" and records.fields.shape == (14, 18)
    assert records.machine_size == 100 and records.lines[0] == 9
    direct, summary = read_swf(path)
    again, other = records_to_trace(records, TraceReading())
    assert direct.ids == again.ids and direct.groups == again.groups
    for column in ("submit", "run_time", "walltime", "nodes", "lines"):
        assert np.array_equal(getattr(direct, column), getattr(again, column))
    assert summary.skipped == other.skipped and summary.adjusted == other.adjusted
    # the summary names the reading and every filter, with its count
    names = [rule.name for rule in summary.rules]
    assert names == ["job size", "failed jobs", "cancelled", "zero run time",
                     "time range", "flurries", "estimates"]
    zero = summary.rules[names.index("zero run time")]
    assert zero.count == summary.skipped["run_time_zero"] == 1
