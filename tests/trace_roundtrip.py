"""Round trip of an accounting log through SWF (used by the sacct and PBS
tests): the log's records written as SWF rows and read back give the same
trace, and that trace replays to the same (validated) schedule."""

from __future__ import annotations

import numpy as np

from opt_sched.scheduling import replay
from opt_sched.traces import convert_trace
from opt_sched.traces.reading import TraceRecords
from opt_sched.traces.trace import Trace
from opt_sched.validation import validate


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
