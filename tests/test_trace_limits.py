"""Issue 24, items 4 and 4c, below the command line: the shared text reader
(:func:`opt_sched.json_files.read_text_file`), the limits the trace readers apply,
exact SWF identifiers, and the fast job builder's parity with the checked
constructor. The command-line cases are in ``tests/adversarial/test_inputs.py``.
"""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import numpy as np
import pytest

from opt_sched import JobSchedule, Schedule
from opt_sched.errors import InstanceError, OptionError, SpecError, TraceError
from opt_sched.instance import Job
from opt_sched.json_files import read_text_file
from opt_sched.limits import MAX_COUNT, MAX_MACHINES, MAX_VALUE
from opt_sched.traces import Trace, convert_trace, read_batsim, read_swf
from opt_sched.traces.fast_jobs import periodic_jobs
from opt_sched.traces.reading import TraceReading
from opt_sched.traces.swf_writer import swf_lines

from .adversarial.test_inputs import corrupt_deflate, swf_line


# -- read_text_file ---------------------------------------------------------
@pytest.mark.parametrize("damage", ["deflate", "crc", "truncated"])
def test_damaged_gzip_is_one_user_error(tmp_path: Path, damage: str) -> None:
    text = "".join(swf_line(k, submit=k) + "\n" for k in range(1, 200))
    packed = gzip.compress(text.encode(), mtime=0)
    data = {"deflate": corrupt_deflate(text.encode()),
            "crc": packed[:-8] + bytes(8),
            "truncated": packed[: len(packed) // 2]}[damage]
    path = tmp_path / "t.swf.gz"
    path.write_bytes(data)
    with pytest.raises(TraceError, match=r"t\.swf\.gz: not a valid gzip file"):
        read_text_file(path, TraceError, gunzip=True)


def test_text_that_is_not_utf8_names_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "spec.toml"
    path.write_bytes(b"name = 'ok'\n\xe9t\xe9\n")
    with pytest.raises(SpecError, match=r"spec\.toml: cannot read: not UTF-8 text "
                                        r"\(byte 12\)"):
        read_text_file(path, SpecError)
    assert read_text_file(path, SpecError, errors="replace").count("\ufffd") == 2


def test_gzip_only_when_asked_and_only_by_its_magic(tmp_path: Path) -> None:
    path = tmp_path / "plain.gz"
    path.write_text("plain text\n")
    assert read_text_file(path, TraceError, gunzip=True) == "plain text\n"
    packed = tmp_path / "packed"
    packed.write_bytes(gzip.compress(b"inside\n"))
    assert read_text_file(packed, TraceError, gunzip=True) == "inside\n"


@pytest.mark.parametrize("make, reason", [
    (lambda p: p.mkdir(), "it is a folder"),
    (lambda p: None, "no such file"),
])
def test_unreadable_paths(tmp_path: Path, make, reason: str) -> None:
    path = tmp_path / "x.json"
    make(path)
    with pytest.raises(InstanceError, match=f"x.json: .*{reason}"):
        read_text_file(path)


# -- SWF: limits and exact identifiers ---------------------------------------
def write_swf_file(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "t.swf"
    path.write_text("".join(line + "\n" for line in lines))
    return path


@pytest.mark.parametrize("field, value, message", [
    ("submit", "1e308", r"line 2: field 2 \(submit time\)='1e308' exceeds the limit "
                        r"1e\+15"),
    ("run", "2e15", r"line 2: field 4 \(run time\)='2e15' exceeds"),
    ("requested", "1e-310", r"line 2: field 9 \(requested time\)='1e-310' is below"),
    ("processors", str(MAX_COUNT + 1), r"line 2: field 5 \(allocated processors\)="
                                       r"'1000000001' exceeds the limit 1,000,000,000"),
])
def test_swf_used_fields_within_limits(tmp_path: Path, field: str, value: str,
                                       message: str) -> None:
    path = write_swf_file(tmp_path, "; MaxProcs: 4", swf_line(1, **{field: value}))
    with pytest.raises(TraceError, match=message):
        read_swf(path)


def test_swf_limits_name_the_first_line(tmp_path: Path) -> None:
    path = write_swf_file(tmp_path, "; MaxProcs: 4", swf_line(1),
                          swf_line(2, processors=2**63), swf_line(3, run="1e300"))
    with pytest.raises(TraceError, match=r"t\.swf line 3: field 5"):
        read_swf(path)


def test_swf_at_the_limits_is_read(tmp_path: Path) -> None:
    path = write_swf_file(tmp_path, swf_line(1, submit=repr(MAX_VALUE),
                                             processors=MAX_MACHINES))
    trace, summary = read_swf(path)
    assert trace.submit[0] == MAX_VALUE and trace.machine_size is None
    assert trace.widest == MAX_MACHINES and summary.kept == 1


def test_swf_wide_job_is_skipped_when_the_header_sizes_the_machine(tmp_path: Path
                                                                   ) -> None:
    path = write_swf_file(tmp_path, "; MaxProcs: 4", swf_line(1, processors=10**8),
                          swf_line(2))
    trace, summary = read_swf(path)
    assert trace.ids == ("2",) and dict(summary.skipped) == {"wider_than_machine": 1}


def test_swf_identifiers_are_exact_integers(tmp_path: Path) -> None:
    big = 2**53
    user = 10**20 + 1
    line = swf_line(big + 1, submit=5).split()
    line[11] = str(user)
    path = write_swf_file(tmp_path, swf_line(big), " ".join(line),
                          swf_line("1.0", submit=9))
    trace, _ = read_swf(path)
    assert trace.ids == (str(big), str(big + 1), "1")
    assert trace.users == ("1", str(user), "1")
    schedule = Schedule(tuple(JobSchedule(job_id, 0, (float(k),), (100.0 + k,))
                              for k, job_id in enumerate(trace.ids)))
    instance = convert_trace(trace).instance
    written = [row.split() for row in swf_lines(instance, schedule, trace)
               if not row.startswith(";")]
    assert [row[0] for row in written] == [str(big), str(big + 1), "1"]
    assert written[1][11] == str(user)


# -- Batsim: limits ------------------------------------------------------------
def write_workload(tmp_path: Path, job: dict, delay: object = 10, **top) -> Path:
    path = tmp_path / "w.json"
    entry = {"id": 7, "subtime": 0, "walltime": 20, "res": 1, "profile": "p", **job}
    path.write_text(json.dumps({**top, "jobs": [entry],
                                "profiles": {"p": {"type": "delay", "delay": delay}}}))
    return path


@pytest.mark.parametrize("job, delay, message", [
    ({"res": 1e30}, 10, r"jobs\[0\] \(id 7\): res=1e\+30 exceeds the limit "
                        r"1,000,000,000"),
    ({"res": 2.5}, 10, r"res=2\.5 is not an integer"),
    ({}, math.inf, r"profile 'p': delay=inf exceeds the limit 1e\+15"),
    ({}, math.nan, r"profile 'p': delay=nan is not a finite number"),
    ({"subtime": -1e308}, 10, r"subtime=-1e\+308 is below the limit -1e\+15"),
    ({"walltime": 10**400}, 10, r"walltime=1000000000.*exceeds the limit"),
    ({"subtime": 5e-324}, 10, r"subtime=5e-324 is below the limit"),
    ({"profile": ["p"]}, 10, r"profile=\['p'\] is not a profile name"),
    ({"profile": 3}, 10, r"profile=3 is not a profile name"),
])
def test_batsim_fields_within_limits(tmp_path: Path, job: dict, delay: object,
                                     message: str) -> None:
    with pytest.raises(TraceError, match=message):
        read_batsim(write_workload(tmp_path, job, delay))


def test_batsim_machine_limit_from_the_platform(tmp_path: Path) -> None:
    platform = tmp_path / "platform.xml"
    platform.write_text('<platform><cluster id="c" radical="0-99999999"/></platform>')
    path = write_workload(tmp_path, {})
    with pytest.raises(TraceError, match=r"platform\.xml: compute hosts=100,000,000 "
                                         r"exceeds the limit 10,000,000"):
        read_batsim(path, platform)
    trace, _ = read_batsim(write_workload(tmp_path, {}, nb_res=32), platform,
                           TraceReading(machines="workload"))   # --mmax-workload
    assert trace.machine_size == 32


# -- conversion ---------------------------------------------------------------
def small_trace(machine_size: int | None, widest: int = 1) -> Trace:
    return Trace("t", "swf", machine_size, ["a"], [0.0], [10.0], [10.0], [widest],
                 [None], [None], [None], [1])


def test_convert_refuses_more_machines_than_the_limit() -> None:
    with pytest.raises(OptionError, match="nodes=100,000,000 exceeds the limit"):
        convert_trace(small_trace(4), nodes=10**8)
    with pytest.raises(OptionError, match="100,000,000 machines exceed the limit"):
        convert_trace(small_trace(None, widest=10**8))
    assert convert_trace(small_trace(None, 3)).instance.platform.total_nodes == 3


@pytest.mark.parametrize("column, value", [
    ("release", 1e308), ("compute", 2e15), ("volume", 1e16), ("walltime", 1e300),
    ("release", 1e-310), ("nodes", MAX_COUNT + 1),
])
def test_fast_jobs_refuse_what_the_checked_constructor_refuses(column: str,
                                                               value: float) -> None:
    """``periodic_jobs`` promises the same result as ``Job.periodic``: a
    value beyond the limits is refused with the constructor's message."""
    values = {"nodes": 1, "compute": 1.0, "volume": 0.0, "release": 0.0,
              "walltime": 5.0, column: value}
    with pytest.raises(InstanceError) as expected:
        Job.periodic("a", values["nodes"], values["compute"], values["volume"], 1,
                     release=values["release"], walltime=values["walltime"])
    with pytest.raises(InstanceError) as fast:
        periodic_jobs(["a"], np.array([values["nodes"]]), np.array([values["compute"]]),
                      np.array([values["volume"]]), np.array([1]),
                      np.array([values["release"]]), np.array([values["walltime"]]),
                      [None], [None])
    assert str(fast.value) == str(expected.value)


# -- the skip summary's brief form ----------------------------------------------
def test_skip_brief_names_counts_and_reasons(tmp_path: Path) -> None:
    path = write_swf_file(tmp_path, "; MaxProcs: 2", swf_line(1), swf_line(2, run=0),
                          swf_line(3, processors=3), swf_line(4, processors=5))
    _, summary = read_swf(path)
    assert summary.brief() == ("3 of 4 job lines skipped: 1 run time 0 (nothing to "
                               "simulate), 2 wider than the machine (2)")
    _, clean = read_swf(write_swf_file(tmp_path, swf_line(1)))
    assert clean.brief() == ""
