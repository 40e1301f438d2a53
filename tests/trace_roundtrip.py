"""Checks shared by the accounting-log tests (sacct and PBS): the round
trip through SWF (the log's records written as SWF rows and read back give
the same trace, and that trace replays to the same, validated, schedule),
and the refusal of a malformed log, by the reader and on the command
line."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from opt_sched.errors import TraceError
from opt_sched.scheduling import replay
from opt_sched.traces import convert_trace, read_trace
from opt_sched.traces.reading import TraceRecords
from opt_sched.traces.trace import Trace
from opt_sched.validation import validate

from .paths import REPO


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def swf_text(records: TraceRecords) -> str:
    """The records as an SWF file: the header keys, then one line per row."""
    head = [f"; {key}: {line}" for key, value in records.header.items()
            for line in str(value).splitlines()]
    rows = [" ".join(_number(v) for v in row) for row in records.fields]
    return "\n".join(head + rows) + "\n"


def assert_same_trace(log: Trace, swf: Trace) -> None:
    """Same jobs in the same order: submit, run time, estimate, size."""
    assert len(log) == len(swf) > 0
    for column in ("submit", "run_time", "walltime", "nodes"):
        np.testing.assert_array_equal(getattr(log, column), getattr(swf, column),
                                      err_msg=column)
    assert log.machine_size == swf.machine_size
    assert log.header["UnixStartTime"] == swf.header["UnixStartTime"]


def assert_same_replay(log: Trace, swf: Trace, scheduler: str = "easy") -> None:
    """EASY replays both to the same starts; both schedules are feasible."""
    starts = []
    for trace in (log, swf):
        instance = convert_trace(trace, "none").instance
        schedule = replay(instance, scheduler)
        report = validate(instance, schedule)
        assert report.feasible, report.format()
        starts.append([job.start for job in schedule.jobs])
    assert starts[0] == starts[1]


def assert_swf_round_trip(log: Trace, records: TraceRecords, folder: Path) -> None:
    """``records`` (the log's) written as ``folder/jobs.swf`` read back as
    SWF: the same trace as ``log``, replayed to the same starts."""
    path = folder / "jobs.swf"
    path.write_text(swf_text(records))
    again, _ = read_trace(path)
    assert again.format == "swf"
    assert_same_trace(log, again)
    assert_same_replay(log, again)


def assert_reader_refuses(read: Callable[[Path], object], path: Path,
                          message: str) -> None:
    """``read(path)`` raises a :class:`TraceError` whose message is
    ``message``, whole."""
    with pytest.raises(TraceError) as caught:
        read(path)
    assert str(caught.value) == message


def assert_replay_refuses(path: Path, message: str) -> None:
    """``opt-sched replay PATH`` exits 2 with ``message`` on stderr and no
    traceback."""
    done = subprocess.run([sys.executable, "-m", "opt_sched", "replay", str(path)],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr
    assert "Traceback" not in done.stderr
