"""The trace format registry (opt_sched.traces.formats): detection by name
and by content, ``--format``, unknown files, plug-in entries."""

from __future__ import annotations

import gzip
import shutil

import numpy as np
import pytest

from opt_sched.cli import main
from opt_sched.errors import OptionError, TraceError
from opt_sched.traces import read_swf, read_trace
from opt_sched.traces.formats import (
    BUILTIN_FORMATS,
    TRACE_FORMATS,
    _check,
    detect_format,
)
from opt_sched.traces.reading import TraceFormat

from .paths import TRACES, shared_data_dir

HEAD = TRACES / "kth-sp2-head.swf"
WORKLOAD = TRACES / "workload-small.json"


def test_builtin_formats_are_registered():
    assert set(BUILTIN_FORMATS) <= set(TRACE_FORMATS)
    assert [TRACE_FORMATS[name].name for name in BUILTIN_FORMATS] == list(
        BUILTIN_FORMATS)


@pytest.mark.parametrize("source, name, expected", [
    (HEAD, "head.swf", "swf"),
    (HEAD, "head.txt", "swf"),              # by content: a ';' header
    (WORKLOAD, "w.json", "batsim"),
    (WORKLOAD, "w.data", "batsim"),         # by content: {"jobs": ...
    (TRACES / "jobs.sacct", "jobs.log", "sacct"),
    (TRACES / "jobs.pbs", "20240101", "pbs"),
])
def test_detect_by_name_then_content(tmp_path, source, name, expected):
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    path = tmp_path / name
    shutil.copy(source, path)
    assert detect_format(path).name == expected


def test_gzipped_content_is_sniffed(tmp_path):
    path = tmp_path / "log.gz"
    path.write_bytes(gzip.compress(HEAD.read_bytes()))
    assert detect_format(path).name == "swf"
    trace, _ = read_trace(path)
    expected, _ = read_swf(HEAD)
    assert trace.ids == expected.ids and np.array_equal(trace.nodes, expected.nodes)


def test_unknown_file_is_one_line_naming_it_and_the_formats(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello, this is not a workload\n")
    with pytest.raises(TraceError) as err:
        read_trace(path)
    message = str(err.value)
    assert "\n" not in message and message.startswith("notes.txt: ")
    for name in BUILTIN_FORMATS:
        assert name in message


def test_format_overrides_detection(tmp_path):
    path = tmp_path / "head.json"             # named like Batsim, SWF inside
    shutil.copy(HEAD, path)
    with pytest.raises(TraceError):
        read_trace(path)
    trace, _ = read_trace(path, format="swf")
    assert len(trace) == 40
    with pytest.raises(OptionError, match="format='csv' is unknown"):
        read_trace(path, format="csv")


def test_alea_21_field_file_is_refused_clearly(capsys):
    path = shared_data_dir() / "more-traces" / "swf" / "wagap-2013-alea-21fields.swf.gz"
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    with pytest.raises(TraceError, match=r"wagap-2013-alea-21fields\.swf\.gz line "
                                         r"\d+: 21 fields, expected 18 \(Alea's"):
        read_trace(path)
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "21 fields, expected 18" in err[0]


def test_a_registered_format_is_detected_after_the_builtin_ones(tmp_path):
    def sniff(path, head):
        return head.startswith("MYLOG")

    def read(path, platform, reading):
        return read_swf(HEAD, reading=reading)

    entry = TraceFormat("mylog", "a test format", sniff, read)
    TRACE_FORMATS["mylog"] = entry
    try:
        path = tmp_path / "x.log"
        path.write_text("MYLOG v1\n")
        assert detect_format(path) is entry
        assert len(read_trace(path)[0]) == 40
        # a plug-in object must be a TraceFormat named as its entry point
        with pytest.raises(ValueError, match="named 'mylog', not 'other'"):
            _check("other", entry)
        with pytest.raises(TypeError):
            _check("mylog", object())
    finally:
        del TRACE_FORMATS["mylog"]
