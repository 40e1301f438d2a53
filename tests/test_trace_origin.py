"""The time origin of a trace (issue 26, defect 1): t = 0 is the first submit.

A log whose submit times are Unix epochs (Theta 2022: about 1.64e9 under
``UnixStartTime: 0``) used to be measured from 1970: a makespan of 1.67e9 s
and a utilisation of 0.014. The conversion now shifts the releases to the
first submit, the writers give the file's own times back, the summary names
the date, and the pictures read dates. A small epoch-time fixture is written
here; Theta 2022 itself is read from the shared data.
"""

from __future__ import annotations

import csv
import json
import re
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest

from opt_sched.errors import OptionError
from opt_sched.metrics import summary
from opt_sched.plot import plot_gantt, plot_usage
from opt_sched.plot.pyplot import pyplot
from opt_sched.plot.time_axis import time_unit
from opt_sched.scheduling import get_scheduler, replay
from opt_sched.traces import convert_trace, read_swf
from opt_sched.traces.time_origin import EPOCH_FLOOR, TimeOrigin, clock_epoch
from opt_sched.validation import assert_feasible

from .paths import shared_data_dir
from .test_cli import run_cli

FIRST = 1_641_021_254          # Theta 2022's first submit (2022-01-01 07:14:14 UTC)
JOBS = [  # (offset from FIRST, run time, processors, requested time)
    (0, 3000, 4, 3600),
    (30, 1200, 8, 1800),
    (60, 600, 2, 900),
    (600, 4000, 6, 5000),
    (3600, 900, 4, 1200),
    (7200, 5000, 8, 6000),
]
MACHINES = 8


def epoch_swf(folder: Path) -> Path:
    """A small SWF log in Unix epochs, headed like Theta 2022's."""
    lines = ["; Version: 2.2", "; Computer: epoch fixture (hand-made)",
             "; UnixStartTime: 0", f"; MaxNodes: {MACHINES}",
             f"; MaxProcs: {MACHINES}"]
    for number, (offset, run, procs, request) in enumerate(JOBS, start=1):
        fields = [number, FIRST + offset, -1, run, procs, -1, -1, procs, request,
                  -1, 1, 1, 1, -1, 1, -1, -1, -1]
        lines.append(" ".join(str(f) for f in fields))
    path = folder / "epoch.swf"
    path.write_text("\n".join(lines) + "\n")
    return path


def utc(epoch: float, fmt: str = "%Y-%m-%d %H:%M") -> str:
    return datetime.fromtimestamp(epoch, tz=timezone.utc).strftime(fmt)


# -- the rule -----------------------------------------------------------------
@pytest.mark.parametrize(("header", "first", "expected"), [
    ({"UnixStartTime": "843480031"}, 0.0, 843480031.0),   # KTH-SP2: relative
    ({"UnixStartTime": "0"}, float(FIRST), 0.0),          # Theta: epochs
    ({}, float(FIRST), 0.0),                              # no key, epochs
    ({}, 5094.0, None),                                   # Lublin: no date
    ({"UnixStartTime": "0"}, 120.0, None),                # 0 over relative times
    ({"UnixStartTime": "soon"}, float(FIRST), 0.0),       # unreadable: epochs?
    ({"UnixStartTime": "-5"}, 10.0, None),
    ({}, None, None),
])
def test_clock_epoch(header, first, expected):
    assert clock_epoch(header, first) == expected


def test_the_floor_is_1980():
    assert utc(EPOCH_FLOOR, "%Y-%m-%d %H:%M:%S") == "1980-01-01 00:00:00"


# -- the conversion -----------------------------------------------------------
def test_conversion_starts_at_the_first_submit(tmp_path):
    trace, _ = read_swf(epoch_swf(tmp_path))
    conversion = convert_trace(trace)
    releases = np.array([job.release for job in conversion.instance.jobs])
    assert list(releases) == [float(offset) for offset, *_ in JOBS]
    origin = conversion.origin
    assert origin.shift == FIRST and origin.epoch == FIRST and origin.first_submit
    assert origin.describe() == f"times from the first submit, {utc(FIRST)} UTC"
    assert origin.to_dict()["utc"] == utc(FIRST, "%Y-%m-%dT%H:%M:%SZ")
    # origin=0 keeps the file's clock (the old behaviour)
    kept = convert_trace(trace, origin=0)
    assert [job.release for job in kept.instance.jobs] == list(trace.submit)
    assert kept.origin.shift == 0 and kept.origin.epoch == 0.0
    assert not kept.origin.first_submit
    with pytest.raises(OptionError, match="after the first submit"):
        convert_trace(trace, origin=FIRST + 1)
    with pytest.raises(OptionError, match="finite"):
        convert_trace(trace, origin=float("nan"))


def test_a_relative_log_has_no_date():
    origin = TimeOrigin.of_trace({}, np.array([5094.0, 6000.0]))
    assert origin.shift == 5094.0 and origin.epoch is None
    assert "t = 5094 s of the file's clock" in origin.describe()
    zero = TimeOrigin.of_trace({"UnixStartTime": "843480031",
                                "TimeZoneString": "Europe/Stockholm"},
                               np.array([0.0, 10.0]))
    assert zero.epoch == 843480031.0
    assert zero.describe() == ("times from the first submit, "
                               f"{utc(843480031)} UTC (site time zone "
                               "Europe/Stockholm)")


def test_metrics_start_at_the_first_submit(tmp_path):
    """Makespan and utilisation over [first submit, last end], recomputed
    here from the schedule's own starts and the trace's run times."""
    trace, _ = read_swf(epoch_swf(tmp_path))
    instance = convert_trace(trace).instance
    schedule = replay(instance, get_scheduler("easy"))
    assert_feasible(instance, schedule)
    stats = summary(instance, schedule)
    ends = np.array([schedule[j].start for j in trace.ids]) + trace.run_time
    makespan = float(ends.max())          # t = 0 is the first submit
    assert stats["makespan"] == pytest.approx(makespan)
    assert stats["makespan"] < 86400       # not 1.64e9
    area = float(np.dot(trace.nodes, trace.run_time))
    assert stats["utilisation"] == pytest.approx(area / (MACHINES * makespan))


# -- the command line ---------------------------------------------------------
def test_replay_writes_the_files_clock_and_says_the_origin(tmp_path):
    log = epoch_swf(tmp_path)
    out = tmp_path / "out_jobs.csv"
    done = run_cli("replay", str(log), "--scheduler", "easy", "--validate",
                   "--json", "--out", str(out))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    with open(out, newline="") as handle:
        rows = list(csv.DictReader(handle))
    submits = [float(r["submission_time"]) for r in rows]
    assert sorted(submits) == [float(FIRST + offset) for offset, *_ in JOBS]
    finish = max(float(r["finish_time"]) for r in rows)
    assert report["makespan"] == pytest.approx(finish - min(submits))
    work = sum(int(r["requested_number_of_resources"]) * float(r["execution_time"])
               for r in rows)
    assert report["utilisation"] == pytest.approx(
        work / (MACHINES * (finish - min(submits))))
    assert report["time_origin"]["epoch"] == FIRST
    assert report["time_origin"]["utc"] == utc(FIRST, "%Y-%m-%dT%H:%M:%SZ")
    text = run_cli("replay", str(log), "--scheduler", "easy")
    assert text.returncode == 0, text.stderr
    assert f"times from the first submit, {utc(FIRST)} UTC" in text.stdout


# -- the pictures -------------------------------------------------------------
DATE = re.compile(r"^(\d{4}-\d{2}-\d{2}|\d{2}-\d{2} \d{2}:\d{2}|"
                  r"(\d{4}-\d{2}-\d{2} )?\d{2}:\d{2}(:\d{2})?)$")


@pytest.fixture
def epoch_schedule(tmp_path):
    trace, _ = read_swf(epoch_swf(tmp_path))
    conversion = convert_trace(trace)
    schedule = replay(conversion.instance, get_scheduler("easy"))
    assert_feasible(conversion.instance, schedule)
    return conversion, schedule


def _labels(ax) -> list[str]:
    ax.figure.canvas.draw()
    return [t.get_text() for t in ax.get_xticklabels() if t.get_text()]


def test_gantt_axis_reads_utc_dates(epoch_schedule):
    conversion, schedule = epoch_schedule
    ax = plot_gantt(conversion.instance, schedule, epoch=conversion.origin.epoch)
    labels = _labels(ax)
    assert len(labels) >= 2 and all(DATE.match(label) for label in labels), labels
    assert ax.get_xlabel() == "date (UTC)"
    assert ax.xaxis.get_offset_text().get_text() == ""
    # each tick is at the instant its label names
    for tick, label in zip(ax.get_xticks(), labels):
        moment = datetime.fromtimestamp(FIRST + tick, tz=timezone.utc)
        assert label.endswith(moment.strftime("%H:%M")), (label, moment)
    pyplot().close(ax.figure)


def test_axes_without_a_date_read_hours(epoch_schedule):
    conversion, schedule = epoch_schedule
    ax = plot_gantt(conversion.instance, schedule, since="the first submit")
    span = max(schedule.completions(conversion.instance).values())
    assert time_unit(span) == ("hours", 3600.0)       # 12,200 s
    assert ax.get_xlabel() == "hours since the first submit"
    values = [float(label) for label in _labels(ax)]
    assert values[0] >= 0 and values[-1] <= span / 3600 + 1e-9
    assert np.allclose(np.array(ax.get_xticks()) / 3600, values)
    pyplot().close(ax.figure)
    figure = plot_usage(conversion.instance, schedule,
                        epoch=conversion.origin.epoch)
    bottom = figure.axes[-1]
    assert bottom.get_xlabel() == "date (UTC)"
    assert all(DATE.match(label) for label in _labels(bottom))
    pyplot().close(figure)


@pytest.mark.parametrize(("span", "unit"), [(60.0, "s"), (3 * 3600.0, "s"),
                                            (3 * 3600.0 + 1, "hours"),
                                            (10 * 86400.0, "hours"),
                                            (400 * 86400.0, "days")])
def test_time_units(span, unit):
    assert time_unit(span)[0] == unit


# -- Theta 2022 ---------------------------------------------------------------
def test_theta_2022_with_easy_is_measured_from_its_first_submit():
    """The issue's figure: utilisation between 0.7 and 0.8 (0.759 measured
    from the first submit; 0.014 from 1970)."""
    path = shared_data_dir() / "more-traces" / "swf" / "Theta-2022-cqsimplus.swf.gz"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    trace, _ = read_swf(path)
    assert trace.submit[0] > 1.6e9 and trace.header.get("UnixStartTime") == "0"
    conversion = convert_trace(trace)
    instance = conversion.instance
    schedule = replay(instance, get_scheduler("easy"))
    report = assert_feasible(instance, schedule)
    stats = summary(instance, schedule, phase_table=report.table)
    ends = np.array([schedule[j].start for j in trace.ids]) + trace.run_time
    assert stats["makespan"] == pytest.approx(float(ends.max()))
    assert stats["makespan"] < 400 * 86400           # about a year, not 52
    assert 0.7 < stats["utilisation"] < 0.8
    assert conversion.origin.epoch == trace.submit[0]
    assert utc(conversion.origin.epoch).startswith("2022-01-01")
