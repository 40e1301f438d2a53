"""``opt-sched convert LOG --to swf|batsim`` (issue 26, "Conversion").

Real processes (``python -m opt_sched convert ...``): exit 0 with a file
that reads back to the same jobs, exit 2 with one line for bad input.
Expected values are computed here from the raw files (numpy, json), not
from the reader under test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from opt_sched.traces import read_batsim, read_swf

from .paths import FIXTURES, shared_data_dir
from .test_swf_roundtrip import raw_swf

TRACES = FIXTURES / "traces"
HEAD = TRACES / "kth-sp2-head.swf"


def opt_sched(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "opt_sched", *args],
                          capture_output=True, text=True, timeout=300, cwd=cwd)


def one_line_error(done: subprocess.CompletedProcess, *fragments: str) -> str:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    for fragment in fragments:
        assert fragment in done.stderr, done.stderr
    return done.stderr


def same_jobs(a, b) -> None:
    assert a.ids == b.ids
    assert a.users == b.users
    for column in ("submit", "run_time", "walltime", "nodes"):
        assert np.array_equal(getattr(a, column), getattr(b, column)), column


# -- SWF -> Batsim ---------------------------------------------------------------
def test_kth_to_batsim_reads_back_the_same_jobs(tmp_path):
    source = shared_data_dir() / "swf" / "KTH-SP2.swf.gz"
    out = tmp_path / "kth.json"
    done = opt_sched("convert", str(source), "--to", "batsim", "--out", str(out))
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text())
    header, rows = raw_swf(source)
    # independently: one job per line, nb_res from the header, delay profiles
    assert data["nb_res"] == int(header["MaxProcs"])
    assert len(data["jobs"]) == len(rows)
    assert {p["type"] for p in data["profiles"].values()} == {"delay"}
    by_id = {job["id"]: job for job in data["jobs"]}
    for row in rows[:: 97]:
        job = by_id[int(row[0])]
        assert (job["subtime"], job["res"], job["walltime"]) == (row[1], row[4], row[8])
        assert data["profiles"][job["profile"]]["delay"] == row[3]
        assert job["user"] == str(int(row[11]))
    # and read_batsim gives the trace read_swf gives
    trace, _ = read_swf(source)
    again, summary = read_batsim(out)
    assert summary.kept == summary.lines == len(rows)
    same_jobs(trace, again)
    assert again.machine_size == 100


def test_unknown_requests_are_written_as_no_walltime(tmp_path):
    """NASA iPSC has no requested time: Batsim's ``walltime`` is -1, so the
    estimate read back is the run time again."""
    source = shared_data_dir() / "more-traces" / "swf" / "NASA-iPSC-1993-3.1-cln.swf.gz"
    out = tmp_path / "nasa.json"
    assert opt_sched("convert", str(source), "--to", "batsim", "--out",
                     str(out)).returncode == 0
    data = json.loads(out.read_text())
    assert {job["walltime"] for job in data["jobs"]} == {-1}
    trace, _ = read_swf(source)
    again, _ = read_batsim(out)
    same_jobs(trace, again)


# -- Batsim -> SWF and Batsim -> Batsim -------------------------------------------
def test_batsim_workload_to_swf_and_back(tmp_path):
    folder = shared_data_dir() / "batsim-medium_late"
    workload = folder / "workload.json"
    raw = json.loads(workload.read_text())
    out = tmp_path / "medium.swf"
    done = opt_sched("convert", str(workload), "--to", "swf", "--out", str(out))
    assert done.returncode == 0, done.stderr
    header, rows = raw_swf(out)
    delays = {name: p["delay"] for name, p in raw["profiles"].items()}
    # independently: every job of the workload, submit order, run = delay
    assert len(rows) == len(raw["jobs"])
    by_number = {int(row[0]): row for row in rows}
    for job in raw["jobs"]:
        row = by_number[int(job["id"])]
        assert (row[1], row[3], row[4]) == (job["subtime"], delays[job["profile"]],
                                            job["res"])
    assert (np.diff(rows[:, 1]) >= 0).all()
    assert header["Version"] == "2.2" and header["MaxJobs"] == str(len(rows))
    # the machine size the workload was read with (the platform beside it)
    trace, _ = read_batsim(workload, folder / "platform.xml")
    assert header["MaxProcs"] == str(trace.machine_size)
    again, _ = read_swf(out)
    for column in ("submit", "run_time", "walltime", "nodes"):
        assert np.array_equal(getattr(again, column), getattr(trace, column))
    # profiles become executable numbers: equal profile, equal number
    names = {str(job["id"]): job["profile"] for job in raw["jobs"]}
    exe = {}
    for job_id, group in zip(again.ids, again.groups):
        exe.setdefault(names[job_id], group)
        assert exe[names[job_id]] == group


def test_batsim_to_batsim_keeps_profile_names(tmp_path):
    out = tmp_path / "w.json"
    done = opt_sched("convert", str(TRACES / "workload-small.json"), "--to",
                     "batsim", "--platform", str(TRACES / "platform-small.xml"),
                     "--out", str(out))
    assert done.returncode == 0, done.stderr
    raw = json.loads((TRACES / "workload-small.json").read_text())
    data = json.loads(out.read_text())
    written = {job["id"]: job["profile"] for job in data["jobs"]}
    for job in raw["jobs"]:
        if job["id"] in written:
            assert written[job["id"]] == job["profile"]
    first, _ = read_batsim(TRACES / "workload-small.json",
                           TRACES / "platform-small.xml")
    again, _ = read_batsim(out)
    same_jobs(first, again)


# -- options, outputs, errors -------------------------------------------------------
def test_default_output_name_and_json(tmp_path):
    done = opt_sched("convert", str(HEAD), "--to", "swf", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    out = tmp_path / "kth-sp2-head.swf"
    assert out.is_file() and report["out"] == "kth-sp2-head.swf"
    _, rows = raw_swf(HEAD)
    assert report["jobs"] == len(rows) == len(raw_swf(out)[1])
    assert report["summary"]["kept"] == len(rows)
    assert report["to"] == "swf" and report["format"] == "swf"


def test_human_output_prints_the_summary_and_the_file(tmp_path):
    out = tmp_path / "head.json"
    done = opt_sched("convert", str(HEAD), "--to", "batsim", "--out", str(out))
    assert done.returncode == 0, done.stderr
    _, rows = raw_swf(HEAD)
    assert f"{len(rows)} kept" in done.stdout
    assert f"wrote {out}: Batsim workload, {len(rows)} jobs" in done.stdout


def test_skipped_records_are_not_written(tmp_path):
    """skips.swf keeps 6 of 14 jobs (tests/data/traces/README.md): the SWF
    written holds exactly those lines, unchanged."""
    out = tmp_path / "kept.swf"
    assert opt_sched("convert", str(TRACES / "skips.swf"), "--to", "swf", "--out",
                     str(out)).returncode == 0
    _, source = raw_swf(TRACES / "skips.swf")
    _, rows = raw_swf(out)
    assert sorted(int(r[0]) for r in rows) == [1, 4, 9, 10, 12, 14]
    by_number = {int(row[0]): row for row in source}
    for row in rows:
        assert np.array_equal(row, by_number[int(row[0])])
    assert f"{len(rows)} of {len(source)} records kept" in out.read_text()


def test_time_range_is_applied_and_noted(tmp_path):
    _, rows = raw_swf(HEAD)
    start, end = rows[5, 1], rows[20, 1]
    expected = int(((rows[:, 1] >= start) & (rows[:, 1] < end)).sum())
    out = tmp_path / "window.swf"
    done = opt_sched("convert", str(HEAD), "--to", "swf", "--out", str(out),
                     "--time-range", f"{start:g}:{end:g}")
    assert done.returncode == 0, done.stderr
    _, written = raw_swf(out)
    assert len(written) == expected
    assert ((written[:, 1] >= start) & (written[:, 1] < end)).all()


def test_out_onto_the_log_itself_is_refused(tmp_path):
    log = tmp_path / "x.swf"
    log.write_bytes(HEAD.read_bytes())
    done = opt_sched("convert", str(log), "--to", "swf", "--out", str(log))
    one_line_error(done, "--out", "the log itself")
    assert log.read_bytes() == HEAD.read_bytes()


def test_out_into_a_missing_folder(tmp_path):
    target = tmp_path / "no" / "such" / "out.swf"
    done = opt_sched("convert", str(HEAD), "--to", "swf", "--out", str(target))
    one_line_error(done, str(target), "does not exist")
    assert not (tmp_path / "no").exists()


def test_the_alea_21_field_file_is_refused(tmp_path):
    source = shared_data_dir() / "more-traces" / "swf" / \
        "wagap-2013-alea-21fields.swf.gz"
    out = tmp_path / "x.swf"
    done = opt_sched("convert", str(source), "--to", "swf", "--out", str(out))
    one_line_error(done, source.name, "21")
    assert not out.exists()


def test_malformed_line_is_one_error(tmp_path):
    done = opt_sched("convert", str(TRACES / "malformed-field.swf"), "--to", "batsim",
                     "--out", str(tmp_path / "x.json"))
    one_line_error(done, "malformed-field.swf", "line", "field 5")


def test_unknown_target_is_a_usage_error():
    done = opt_sched("convert", str(HEAD), "--to", "csv")
    one_line_error(done, "--to")


@pytest.mark.parametrize("fixture", sorted(p.name for p in TRACES.glob("*.sacct"))
                         + sorted(p.name for p in TRACES.glob("*.pbs"))
                         + sorted(p.name for p in TRACES.glob("*.acct")))
def test_every_accounting_fixture_converts(fixture, tmp_path):
    """Each accounting-log fixture (helper formats: sacct, PBS) converts to
    SWF, or is refused in one line when it is a malformed fixture; the SWF
    reads back to the same jobs."""
    from opt_sched.traces import read_trace

    path = TRACES / fixture
    out = tmp_path / "x.swf"
    done = opt_sched("convert", str(path), "--to", "swf", "--out", str(out))
    if fixture.startswith("malformed"):
        one_line_error(done, fixture)
        return
    assert done.returncode == 0, done.stderr
    first, _ = read_trace(path)
    again, _ = read_swf(out)
    for column in ("submit", "run_time", "walltime", "nodes"):
        assert np.array_equal(getattr(again, column), getattr(first, column)), column
