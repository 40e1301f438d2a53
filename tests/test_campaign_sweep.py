"""Sweeps end to end: kill and resume, failures, executors, the ICS 2020 port."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from opt_sched.campaign import ResultStore, load_spec, run_sweep
from opt_sched.campaign.executors.local import LocalExecutor
from opt_sched.campaign.summary import TIMING_COLUMNS
from opt_sched.errors import OptionError

REPO = Path(__file__).resolve().parents[1]

SMALL = """
name = "small"
[[groups]]
name = "g"
instances = [{{ generator = "ics2020", alpha_gen = {alphas}, seed = {seeds}, \
n_jobs = 4 }}]
methods = ["first-fit+lpt/fifo", "make-pack(S=1)+lpt/fifo"]
metrics = ["lower_bound"]
"""


def python_path() -> str:
    return f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"


def write_spec(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def read_tasks(out: Path) -> pd.DataFrame:
    return pd.read_csv(out / "tasks.csv").drop(columns=list(TIMING_COLUMNS))


def run_local(spec_path: Path, out: Path, workers: int = 1, **kwargs):
    executor = LocalExecutor(workers)
    try:
        return run_sweep(load_spec(spec_path), out, executor=executor,
                         progress=False, **kwargs)
    finally:
        executor.close()


def ok_count(db: Path) -> int:
    if not db.exists():
        return 0
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        query = "SELECT COUNT(*) FROM tasks WHERE status = 'ok'"
        return con.execute(query).fetchone()[0]
    except sqlite3.OperationalError:  # the table is not there yet
        return 0
    finally:
        con.close()


def test_sigkill_midway_then_resume_equals_uninterrupted_run(tmp_path):
    spec = write_spec(tmp_path / "kill.toml",
                      SMALL.format(alphas="[1.0, 2.0, 4.0, 8.0]",
                                   seeds="{ start = 0, stop = 4 }"))
    total = 4 * 5 * 2
    out, log = tmp_path / "killed", tmp_path / "executions.log"
    env = dict(os.environ, PYTHONPATH=python_path(),
               CAMPAIGN_TEST_LOG=str(log), CAMPAIGN_TEST_SLEEP="0.1")
    cmd = [sys.executable, "-m", "tests.campaign_counting", str(spec), str(out)]
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while ok_count(out / "results.sqlite") < 10:
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, "the sweep made no progress"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the driver, its fork server and workers
    proc.wait()
    with ResultStore(out / "results.sqlite") as store:
        finished_before = store.ok_keys()
        rows_before = store.rows()
    assert 10 <= len(finished_before) < total, "kill was not midway"
    assert all(rows_before[k]["attempts"] == 1 for k in finished_before)

    # rerun without --resume refuses to touch the folder
    again = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    assert again.returncode != 0 and "--resume" in again.stderr
    resumed = subprocess.run([*cmd, "--resume"], cwd=REPO, env=env, capture_output=True,
                             text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr

    executions = Counter(log.read_text().split())
    assert all(executions[k] == 1 for k in finished_before), \
        "a task finished before the kill ran again"
    with ResultStore(out / "results.sqlite") as store:
        rows = store.rows()
    assert len(rows) == total and all(r["status"] == "ok" for r in rows.values())
    assert all(rows[k]["attempts"] == 1 for k in finished_before)
    # each task ran once, except those in flight at the kill (at most the
    # window of 2 x 2 workers chunks of one task), which ran twice
    in_flight = [k for k, n in executions.items() if n > 1]
    assert len(executions) == total and len(in_flight) <= 4
    assert all(executions[k] == 2 and rows[k]["attempts"] == 2 for k in in_flight)

    reference = tmp_path / "uninterrupted"
    run_local(spec, reference)
    pd.testing.assert_frame_equal(read_tasks(out), read_tasks(reference))


# lpt(R=2) on a platform of 1 I/O partition: the spec is valid (ranges and
# methods are checked when it is loaded), the task fails when it runs
FAILING = """
name = "small"
[[groups]]
name = "g"
instances = [{{ generator = "ics2020", alpha_gen = 2.0, seed = {seeds}, n_jobs = 4, \
io_nodes = [1, 2] }}]
methods = ["first-fit+lpt(R=2)/fifo", "make-pack(S=1)+lpt/fifo"]
"""


def test_failed_task_is_recorded_and_the_sweep_goes_on(tmp_path):
    spec = write_spec(tmp_path / "bad.toml", FAILING.format(seeds="[0, 1]"))
    result = run_local(spec, tmp_path / "out")
    # R=2 exceeds the 1 partition of io_nodes = 1: the method refuses it when
    # the task runs, so its 2 seeds fail; the 6 other tasks succeed
    assert (result.ok, result.failed, result.pending) == (6, 2, 0)
    failures = pd.read_csv(tmp_path / "out" / "failures.csv")
    assert len(failures) == 2
    assert set(failures["instance"]) == {
        "ics2020(alpha_gen=2,io_nodes=1,n_jobs=4,seed=0)",
        "ics2020(alpha_gen=2,io_nodes=1,n_jobs=4,seed=1)"}
    for error in failures["error"]:
        assert error.startswith("OptionError: method first-fit+lpt(R=2)/fifo: not "
                                "for instance")
        assert "R=2 exceeds" in error and "\n" not in error
    methods = pd.read_csv(tmp_path / "out" / "methods.csv")
    assert sorted(zip(methods["ok"], methods["failed"])) == [(2, 2), (4, 0)]
    # a resumed sweep skips the failed tasks too, unless asked to retry them
    again = run_local(spec, tmp_path / "out", resume=True)
    assert (again.ran, again.skipped) == (0, 8)
    retried = run_local(spec, tmp_path / "out", resume=True, retry_failed=True)
    assert (retried.ran, retried.failed) == (2, 2)


def test_cli_exit_status_and_json_summary(tmp_path):
    spec = write_spec(tmp_path / "bad.toml", FAILING.format(seeds="[0]"))
    env = dict(os.environ, PYTHONPATH=python_path())
    sweep = [sys.executable, "-m", "opt_sched.campaign"]
    done = subprocess.run([*sweep, str(spec), "--out", str(tmp_path / "out"),
                           "--workers", "1", "--json"],
                          cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1, done.stderr  # finished, with failed tasks
    summary = json.loads(done.stdout)
    assert (summary["ok"], summary["failed"]) == (3, 1)
    assert {f["method"] for f in summary["failures"]} == {"first-fit+lpt(R=2)/fifo"}
    bad = write_spec(tmp_path / "typo.toml", "name = 'x'\n[[groups]]\nname = 'g'\n"
                     "instances = ['nowhere.json']\nmethods = ['first-fit+lpt/fifo']\n")
    done = subprocess.run([*sweep, str(bad), "--out", str(tmp_path / "out2")],
                          cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "groups[0].instances[0]" in done.stderr


def test_resume_refused_without_flag_and_rerun_runs_nothing(tmp_path):
    spec = write_spec(tmp_path / "s.toml", SMALL.format(alphas="[2.0]", seeds="[0]"))
    first = run_local(spec, tmp_path / "out")
    assert (first.ran, first.ok) == (2, 2)
    with pytest.raises(OptionError, match="--resume"):
        run_local(spec, tmp_path / "out")
    second = run_local(spec, tmp_path / "out", resume=True)
    assert (second.ran, second.skipped, second.ok) == (0, 2, 2)
    with ResultStore(tmp_path / "out" / "results.sqlite") as store:
        assert [r["attempts"] for r in store.rows().values()] == [1, 1]


def test_local_and_dask_local_cluster_give_identical_tables(tmp_path):
    pytest.importorskip("distributed",
                        reason="Dask is the optional extra opt_sched[dask]")
    from opt_sched.campaign.executors.dask_executor import DaskExecutor

    spec_path = write_spec(tmp_path / "s.toml", SMALL.format(alphas="[1.0, 6.0]",
                                                             seeds="[0, 1, 2]"))
    run_local(spec_path, tmp_path / "local", workers=2)
    executor = DaskExecutor("local", workers=2, processes=False)
    try:
        result = run_sweep(load_spec(spec_path), tmp_path / "dask", executor=executor,
                           progress=False)
    finally:
        executor.close()
    assert result.ok == 12
    pd.testing.assert_frame_equal(read_tasks(tmp_path / "local"),
                                  read_tasks(tmp_path / "dask"))


def test_ics2020_report_equals_the_old_process_pool(tmp_path):
    """The sweep's ICS 2020 tables equal run_campaign's (same subset)."""
    from opt_sched.studies.ics2020.experiment import (
        Campaign,
        derive_tables,
        run_campaign,
    )

    text = (REPO / "campaigns" / "ics2020-quick.toml").read_text()
    text = (text.replace("alpha_gen = [1.0, 4.0, 8.0], seed = [0, 1]",
                         "alpha_gen = [1.0, 8.0], seed = [0]")
            .replace("batch = [4.0, 1.0]", "batch = [0.5, 0.25]"))
    assert "alpha_gen = [1.0, 8.0], seed = [0]" in text
    assert "batch = [0.5, 0.25]" in text
    spec = write_spec(tmp_path / "ics.toml", text)
    run_local(spec, tmp_path / "out", workers=2)
    raw = run_campaign(Campaign(alpha_gens=(1.0, 8.0), seeds=(0,), batches=(0.5, 0.25)),
                       workers=1)
    tables = derive_tables(raw)
    for name, table in {**{f"raw_{k}": v for k, v in raw.items()}, **tables}.items():
        path = tmp_path / "old.csv"
        table.to_csv(path, index=False)
        new = tmp_path / "out" / f"{name}.csv"
        assert path.read_bytes() == new.read_bytes(), name
    assert (tmp_path / "out" / "fig15_io_nodes.png").stat().st_size > 0


def test_pivots_and_figures_the_spec_asks_for(tmp_path):
    text = SMALL.format(alphas="[1.0, 6.0]", seeds="[0, 1]") + """
[outputs]
tables = ["tasks", "failures"]

[[outputs.pivots]]
name = "geo"
index = ["method"]
columns = ["alpha_gen"]
values = "makespan"
agg = "geomean"

[[outputs.figures]]
name = "makespan"
x = "alpha_gen"
y = "makespan"
"""
    result = run_local(write_spec(tmp_path / "s.toml", text), tmp_path / "out")
    assert result.ok == 8
    out = tmp_path / "out"
    assert not (out / "methods.csv").exists()  # not asked for
    assert (out / "makespan.png").read_bytes()[:4] == b"\x89PNG"
    tasks = pd.read_csv(out / "tasks.csv")
    geo = pd.read_csv(out / "geo.csv").set_index("method")
    for method in ("first-fit+lpt/fifo", "make-pack(S=1)+lpt/fifo"):
        for alpha in (1.0, 6.0):
            values = tasks[(tasks["method"] == method)
                           & (tasks["alpha_gen"] == alpha)]["makespan"].tolist()
            assert len(values) == 2  # two workload seeds
            by_hand = (values[0] * values[1]) ** 0.5  # geometric mean of two
            assert geo.loc[method, str(alpha)] == pytest.approx(by_hand, rel=1e-12)


def test_progress_counts_and_eta():
    import io

    from opt_sched.campaign.progress import Progress

    stream = io.StringIO()
    with Progress("demo", 4, stream=stream, fancy=False, every=0.0) as bar:
        bar.advance(1, 1)
        assert (bar.done, bar.ok, bar.failed) == (2, 1, 1)
        assert bar.eta() is not None and bar.eta() >= 0
    lines = stream.getvalue().splitlines()
    assert lines[0].startswith("sweep demo: 2/4 tasks, 1 ok, 1 failed")
    fancy = io.StringIO()
    with Progress("demo", 2, stream=fancy, fancy=True) as bar:
        bar.advance(2, 0)
    assert "2/2" in fancy.getvalue() and "0 failed" in fancy.getvalue()


def test_the_code_version_names_the_commit_of_a_checkout():
    """Each task's ``code_version``: the package version and, run from a git
    checkout of opt_sched (as CI's clone), the checkout's commit, so that a
    sweep resumed with other code tells its tasks apart."""
    import shutil

    from opt_sched import __version__
    from opt_sched.campaign.store import _code_version

    root = Path(__file__).resolve().parents[1]
    version = _code_version()
    if shutil.which("git") is None or not (root / ".git").exists():
        assert version == __version__
        return
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=7", "HEAD"],
                          capture_output=True, text=True, check=True).stdout.strip()
    assert version.startswith(f"{__version__}+g{head}"), (version, head)
