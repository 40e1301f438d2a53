"""``opt-sched trace-info TRACE`` (issue 26, "Trace facts").

Real processes; every figure is recomputed here from the raw SWF columns
with numpy (job lines parsed by :func:`tests.test_swf_roundtrip.raw_swf`),
not taken from the code under test.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone

import numpy as np
import pytest

from .paths import shared_data_dir
from .test_cli_convert import HEAD, TRACES, one_line_error, opt_sched
from .test_swf_roundtrip import raw_swf


def info(*args: str) -> dict:
    done = opt_sched("trace-info", *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def expected_facts(rows: np.ndarray, machines: int) -> dict:
    """The facts of SWF job lines that are all kept (allocated processors
    known, run time positive), from the raw columns."""
    submit, run, size, request = rows[:, 1], rows[:, 3], rows[:, 4], rows[:, 8]
    span = submit.max() - submit.min()
    known = request > 0
    return {"jobs": len(rows), "users": len(np.unique(rows[rows[:, 11] != -1, 11])),
            "span": span, "work": float((run * size).sum()),
            "offered_load": float((run * size).sum() / (machines * span)),
            "median_size": float(np.median(size)), "median_run": float(np.median(run)),
            "known": int(known.sum()),
            "over": int((request[known] > run[known]).sum()),
            "under": int((request[known] < run[known]).sum()),
            "exact": int((request[known] == run[known]).sum())}


def check(report: dict, want: dict) -> None:
    assert report["jobs"] == want["jobs"]
    assert report["users"] == want["users"]
    assert report["span"] == pytest.approx(want["span"], rel=1e-12)
    assert report["work"] == pytest.approx(want["work"], rel=1e-12)
    assert report["offered_load"] == pytest.approx(want["offered_load"], rel=1e-12)
    assert report["sizes"]["quantiles"]["median"] == want["median_size"]
    assert report["run_times"]["quantiles"]["median"] == want["median_run"]
    e = report["estimates"]
    assert (e["known"], e["over"], e["under"], e["exact"]) == (
        want["known"], want["over"], want["under"], want["exact"])
    assert sum(b["jobs"] for b in report["sizes"]["bins"]) == want["jobs"]
    assert sum(b["jobs"] for b in report["run_times"]["bins"]) == want["jobs"]


def test_kth_facts_from_the_raw_columns():
    source = shared_data_dir() / "swf" / "KTH-SP2.swf.gz"
    header, rows = raw_swf(source)
    machines = int(header["MaxProcs"])
    report = info(str(source))
    assert report["machines"] == report["machine_size"] == machines
    check(report, expected_facts(rows, machines))
    # dates: UnixStartTime + the first and last submit, in UTC
    origin = int(header["UnixStartTime"])
    first = datetime.fromtimestamp(origin + rows[:, 1].min(), tz=timezone.utc)
    last = datetime.fromtimestamp(origin + rows[:, 1].max(), tz=timezone.utc)
    assert report["start_date"] == first.strftime("%Y-%m-%d %H:%M:%S UTC")
    assert report["end_date"] == last.strftime("%Y-%m-%d %H:%M:%S UTC")
    assert report["time_zone"] == header["TimeZoneString"]
    # size bins in powers of two, counted here
    bins = {b["bin"]: b["jobs"] for b in report["sizes"]["bins"]}
    size = rows[:, 4]
    assert bins["1"] == int((size == 1).sum())
    assert bins["3-4"] == int(((size >= 3) & (size <= 4)).sum())
    assert bins["65-128"] == int(((size >= 65) & (size <= 128)).sum())
    assert report["summary"]["kept"] == len(rows)


def test_theta_epoch_times_give_dates_and_its_load():
    """Theta 2022: submit times are Unix epochs under ``UnixStartTime 0``;
    26% of the jobs ran longer than requested."""
    source = shared_data_dir() / "more-traces" / "swf" / "Theta-2022-cqsimplus.swf.gz"
    header, rows = raw_swf(source)
    machines = int(header["MaxProcs"])
    report = info(str(source))
    check(report, expected_facts(rows, machines))
    first = datetime.fromtimestamp(rows[:, 1].min(), tz=timezone.utc)
    assert report["start_date"] == first.strftime("%Y-%m-%d %H:%M:%S UTC")
    assert report["start_date"].startswith("2022-")
    assert report["origin"] == 0


def test_relative_times_have_no_dates():
    """Lublin's model: no UnixStartTime and times from 0: no date."""
    source = shared_data_dir() / "more-traces" / "swf" / "lublin_256-DIRLAB.swf.gz"
    header, rows = raw_swf(source)
    report = info(str(source))
    assert report["start_date"] is None and report["origin"] is None
    assert report["machine_size"] == int(header["MaxNodes"])
    check(report, expected_facts(rows, int(header["MaxNodes"])))


def test_skipped_jobs_are_left_out_and_counted():
    """NASA iPSC: 173 jobs with run time 0 are skipped (default reading); the
    facts are those of the others, and no request is known."""
    source = shared_data_dir() / "more-traces" / "swf" / "NASA-iPSC-1993-3.1-cln.swf.gz"
    header, rows = raw_swf(source)
    kept = rows[rows[:, 3] > 0]
    report = info(str(source))
    assert report["summary"]["records"] == len(rows)
    assert report["summary"]["skipped"] == len(rows) - len(kept)
    check(report, expected_facts(kept, int(header["MaxProcs"])))
    assert report["estimates"]["known"] == 0
    assert report["estimates"]["unknown"] == len(kept)


def test_human_output_and_plot(tmp_path):
    picture = tmp_path / "facts.png"
    done = opt_sched("trace-info", str(HEAD), "--plot", str(picture))
    assert done.returncode == 0, done.stderr
    _, rows = raw_swf(HEAD)
    assert done.stdout.startswith(f"kth-sp2-head (swf): {len(rows)} jobs")
    for word in ("span", "offered load", "size", "run time", "requests",
                 f"{len(rows)} kept", f"wrote {picture}"):
        assert word in done.stdout, word
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_batsim_workload(tmp_path):
    """Any format read_trace reads: a Batsim workload (no SWF rows)."""
    raw = json.loads((TRACES / "workload-small.json").read_text())
    report = info(str(TRACES / "workload-small.json"), "--platform",
                  str(TRACES / "platform-small.xml"))
    assert report["format"] == "batsim"
    assert report["summary"]["records"] == len(raw["jobs"])
    assert report["jobs"] == report["summary"]["kept"]
    e = report["estimates"]
    assert e["known"] + e["unknown"] == report["jobs"]
    assert e["over"] + e["exact"] + e["under"] == e["known"]


def test_bad_plot_suffix_is_refused_before_reading(tmp_path):
    done = opt_sched("trace-info", str(HEAD), "--plot", str(tmp_path / "x.txt"))
    one_line_error(done, "--plot", "txt")
    assert not (tmp_path / "x.txt").exists()


def test_the_alea_21_field_file_is_refused():
    source = shared_data_dir() / "more-traces" / "swf" / \
        "wagap-2013-alea-21fields.swf.gz"
    done = opt_sched("trace-info", str(source))
    one_line_error(done, source.name, "21")


def test_missing_file_is_one_line(tmp_path):
    done = opt_sched("trace-info", str(tmp_path / "none.swf"))
    one_line_error(done, "none.swf")


@pytest.mark.parametrize("fixture", sorted(
    p.name for pattern in ("*.sacct", "*.pbs", "*.acct") for p in TRACES.glob(pattern)
    if not p.name.startswith("malformed")))
def test_every_accounting_fixture(fixture):
    """Any format read_trace reads: the accounting-log fixtures (sacct, PBS)."""
    report = info(str(TRACES / fixture))
    assert report["format"] in ("sacct", "pbs")
    assert report["jobs"] == report["summary"]["kept"] > 0
    e = report["estimates"]
    assert e["known"] + e["unknown"] == report["jobs"]
    assert e["over"] + e["exact"] + e["under"] == e["known"]


def test_the_table_in_traces_md_is_the_scripts_output():
    """instances/traces.md holds the table scripts/trace_table.py prints
    (generated, not typed by hand)."""
    import subprocess
    import sys

    from .paths import INSTANCES, REPO

    data = shared_data_dir()
    done = subprocess.run([sys.executable, str(REPO / "scripts" / "trace_table.py"),
                           "--data", str(data)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    table = done.stdout.strip()
    assert table.count("\n") == 7  # header, rule, six traces
    assert table in (INSTANCES / "traces.md").read_text()
