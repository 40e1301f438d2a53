"""SWF -> opt_sched -> SWF keeps every field we read (issue 26, "Conversion").

``opt-sched convert TRACE --to swf`` runs as a subprocess; the file it
writes is read again and compared with the first reading column by column
(ids, submit, run time, estimate, size, users, groups and the 18 raw
fields), and its job lines with the source's job lines parsed here with
numpy, independently of the reader.
"""

from __future__ import annotations

import gzip
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from opt_sched.traces import read_swf

from .paths import shared_data_dir


def convert(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "opt_sched", "convert", *args],
                          capture_output=True, text=True, timeout=300, cwd=cwd)


def raw_swf(path: Path) -> tuple[dict[str, str], np.ndarray]:
    """The ``; Key: value`` lines (first line of each key) and the job lines
    as a float table, read with plain Python and numpy."""
    opener = gzip.open if path.suffix == ".gz" else open
    header: dict[str, str] = {}
    rows = []
    with opener(path, "rt") as handle:
        for line in handle:
            text = line.strip()
            if not text:
                continue
            if text.startswith(";"):
                match = re.match(r";\s{0,3}([A-Za-z]\w*)\s*:(.*)$", text)
                if match:  # not a continuation line (indented further)
                    header.setdefault(match.group(1), match.group(2).strip())
                continue
            rows.append([float(x) for x in text.split()])
    return header, np.array(rows).reshape(-1, 18)


TRACES = [("swf", "KTH-SP2.swf.gz"),
          ("more-traces/swf", "HPC2N-2002-prefix3170-alea.swf.gz"),
          ("more-traces/swf", "Theta-2022-cqsimplus.swf.gz")]


@pytest.mark.parametrize(("folder", "name"), TRACES, ids=[n for _, n in TRACES])
def test_round_trip_keeps_every_field(folder, name, tmp_path):
    source = shared_data_dir() / folder / name
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    out = tmp_path / "out.swf"
    done = convert(str(source), "--to", "swf", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}" in done.stdout

    first, summary = read_swf(source)
    again, summary2 = read_swf(out)
    assert summary2.lines == summary2.kept == summary.kept == len(again)
    assert again.ids == first.ids
    assert again.users == first.users and again.groups == first.groups
    assert again.machine_size == first.machine_size
    for column in ("submit", "run_time", "walltime", "nodes", "swf_fields"):
        assert np.array_equal(getattr(again, column), getattr(first, column)), column

    # independently: every written job line is the source's line of the same
    # job number, and exactly the kept jobs are written, in submit order
    source_header, source_rows = raw_swf(source)
    header, rows = raw_swf(out)
    by_number = {int(row[0]): row for row in source_rows}
    assert len(rows) == summary.kept
    for row in rows:
        assert np.array_equal(row, by_number[int(row[0])])
    assert (np.diff(rows[:, 1]) >= 0).all()
    skipped = len(source_rows) - len(rows)
    assert skipped == summary.total_skipped

    # the header: SWF 2.2, counts of this file, the source's keys copied
    assert header["Version"] == "2.2"
    assert header["MaxJobs"] == header["MaxRecords"] == str(len(rows))
    for key, value in source_header.items():
        if key not in ("Version", "MaxJobs", "MaxRecords", "Note"):
            assert header[key] == value, key
    for key in ("Computer", "Installation", "UnixStartTime", "MaxNodes", "MaxProcs",
                "Note"):
        assert key in header, key
    assert "converted by opt_sched" in out.read_text()


def test_round_trip_of_the_converted_file_is_identical(tmp_path):
    """Converting the converted file again gives the same job lines."""
    source = shared_data_dir() / "more-traces" / "swf" / \
        "HPC2N-2002-prefix3170-alea.swf.gz"
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    once, twice = tmp_path / "once.swf", tmp_path / "twice.swf"
    assert convert(str(source), "--to", "swf", "--out", str(once)).returncode == 0
    assert convert(str(once), "--to", "swf", "--out", str(twice)).returncode == 0

    def jobs(path: Path) -> list[str]:
        return [line for line in path.read_text().splitlines()
                if not line.startswith(";")]

    assert jobs(once) == jobs(twice)
    # the fractional CPU times of field 6 survive exactly
    _, rows = raw_swf(once)
    assert (rows[:, 5] != np.floor(rows[:, 5])).any()


def test_integer_and_float_parsing_give_the_same_table(tmp_path):
    """The reader parses a file of integers as integers (the fast path) and
    falls back to floats when a field has a fraction: the same values
    written as ``x.0`` (every field then takes the float path) give the
    same table, and a fraction written into one field is kept exactly."""
    from opt_sched.traces.swf_reader import swf_records

    source = shared_data_dir() / "swf" / "KTH-SP2.swf.gz"
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    with gzip.open(source, "rt") as handle:
        lines = [next(handle) for _ in range(600)]
    as_integers = tmp_path / "int.swf"
    as_integers.write_text("".join(lines))
    as_floats = tmp_path / "float.swf"
    as_floats.write_text("".join(
        line if line.startswith(";") else
        " ".join(token + ".0" for token in line.split()) + "\n" for line in lines))
    ints = swf_records(as_integers).fields
    floats = swf_records(as_floats).fields
    assert len(ints) > 500
    assert np.array_equal(ints, floats)
    # a fractional field (field 6, average CPU time) on one job line
    job_lines = [k for k, line in enumerate(lines) if not line.startswith(";")]
    fields = lines[job_lines[7]].split()
    fields[5] = "12.25"
    lines[job_lines[7]] = " ".join(fields) + "\n"
    mixed = tmp_path / "mixed.swf"
    mixed.write_text("".join(lines))
    table = swf_records(mixed).fields
    assert table[7, 5] == 12.25
    assert np.array_equal(np.delete(table, 7, axis=0), np.delete(ints, 7, axis=0))
