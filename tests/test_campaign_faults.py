"""Issue 24, item 4b: campaigns under faults, each in real subprocesses.

- two sweeps into one ``--out`` (one with ``--resume`` started while the
  other runs, or two started at the same instant) never run a task twice:
  the second is refused with one line (the folder's lock; each sweep used
  to run every task, each row ending with ``attempts`` 2);
- ``SIGTERM`` of the driver stops it like Ctrl-C (exit 130, one line, the
  finished rows kept) and leaves no process behind; ``SIGKILL`` leaves none
  either (the workers watch their driver), and neither holds the driver's
  stdout (``| tee`` ends);
- Ctrl-C (``SIGINT`` to the whole process group, as a terminal sends it)
  exits 130 within 2 s with one line: no traceback from the workers;
- a current folder that holds an ``opt_sched/`` folder (a checkout's
  parent) does not shadow the package in the workers.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# 12 tasks of about a second each (1500 jobs per instance): long enough to
# be interrupted midway on 2 workers, short enough for a test
SLOW = """
name = "faults"
[[groups]]
name = "g"
instances = [{ generator = "ics2020", alpha_gen = 2.0, n_jobs = 1500, \
seed = { start = 0, stop = 11 } }]
methods = ["first-fit+lpt/fifo"]
"""
TASKS = 12


def write_spec(folder: Path, text: str = SLOW) -> Path:
    path = folder / "spec.toml"
    path.write_text(text, encoding="utf-8")
    return path


def sweep_command(spec: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "opt_sched", "sweep", str(spec), "--out", str(out),
            "--workers", "2", "--chunk-size", "1", *extra]


def default_sigint() -> None:
    """In the child: Ctrl-C handled by Python, even if this test runs with
    SIGINT ignored (a background job)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(command: list[str], cwd: Path) -> subprocess.Popen:
    """The sweep in its own session (its workers too), output piped."""
    env = {k: v for k, v in os.environ.items() if k != "OPT_SCHED_DEBUG"}
    return subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True,
                            preexec_fn=default_sigint)


def rows(out: Path, status: str | None = None) -> list[tuple[str, int]]:
    """``(status, attempts)`` of the store's rows (``[]`` before it exists)."""
    db = out / "results.sqlite"
    if not db.exists():
        return []
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        found = con.execute("SELECT status, attempts FROM tasks").fetchall()
    except sqlite3.OperationalError:  # the table is not there yet
        return []
    finally:
        con.close()
    return [r for r in found if status is None or r[0] == status]


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 120.0
             ) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.1)


def alive_in_session(sid: int) -> list[str]:
    """The processes of session ``sid`` still running (zombies do not
    count: they hold nothing), as ``pid command``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        state, session = fields[0], int(fields[3])
        if session == sid and state != "Z":
            found.append(f"{entry.name} {cmdline.decode(errors='replace')[:100]}")
    return found


def assert_none_left(sid: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while alive_in_session(sid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive_in_session(sid), alive_in_session(sid)


def one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def running_sweep(folder: Path, status: str, what: str
                  ) -> tuple[subprocess.Popen, Path]:
    """A sweep of :data:`SLOW` into ``folder/out``, started with
    :func:`start`, once its store holds a row of ``status`` (``what``
    names that moment in a timeout); the process and its ``--out``."""
    spec, out = write_spec(folder), folder / "out"
    sweep = start(sweep_command(spec, out), folder)
    wait_for(lambda: rows(out, status), what)
    return sweep, out


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="reads /proc (Linux)")


# -- one sweep per folder ------------------------------------------------------
def test_resume_into_a_running_folder_is_refused(tmp_path: Path) -> None:
    spec, out = write_spec(tmp_path), tmp_path / "out"
    first = start(sweep_command(spec, out), tmp_path)
    try:
        wait_for(lambda: rows(out), "the first sweep to dispatch")
        second = subprocess.run(sweep_command(spec, out, "--resume"), cwd=tmp_path,
                                capture_output=True, text=True, timeout=120)
        assert first.poll() is None, "the first sweep ended too soon for the test"
        assert second.returncode == 2, second.stderr
        line = one_line(second.stderr)
        assert "in use by another sweep" in line and f"pid {first.pid}" in line
    finally:
        first.terminate()  # enough seen: stop it (as Ctrl-C does)
        first.communicate(timeout=60)
    assert {attempts for _, attempts in rows(out)} == {1}  # no task ran twice


def test_two_sweeps_started_together_run_each_task_once(tmp_path: Path) -> None:
    spec, out = write_spec(tmp_path), tmp_path / "out"
    both = [start(sweep_command(spec, out, "--resume"), tmp_path) for _ in range(2)]
    try:
        wait_for(lambda: any(p.poll() is not None for p in both), "a refusal")
        # the refusal can come before the other sweep's first row: wait for
        # that row (or its end) before stopping it, or the store is empty
        wait_for(lambda: rows(out) or all(p.poll() is not None for p in both),
                 "the other sweep to dispatch")
    finally:
        for sweep in both:
            sweep.terminate()  # the one still running: enough seen
    ends = [p.communicate(timeout=60) for p in both]
    refused = [err for p, (_, err) in zip(both, ends) if p.returncode == 2]
    assert len(refused) == 1, ends
    assert "in use by another sweep" in one_line(refused[0])
    assert rows(out) and {attempts for _, attempts in rows(out)} == {1}


# -- signals -------------------------------------------------------------------
@needs_proc
def test_sigterm_stops_like_ctrl_c_and_leaves_no_process(tmp_path: Path) -> None:
    sweep, out = running_sweep(tmp_path, "ok", "a finished task")
    os.kill(sweep.pid, signal.SIGTERM)
    # communicate() reads to the end of stdout and stderr: it returns only
    # once no process holds them (what `| tee` waits for)
    stdout, stderr = sweep.communicate(timeout=30)
    assert sweep.returncode == 130, stderr
    assert "interrupted" in one_line(stderr)
    assert stdout == ""
    assert_none_left(sweep.pid)
    assert len(rows(out, "ok")) >= 1  # finished rows kept
    assert len(rows(out, "ok")) < TASKS


@needs_proc
def test_sigkill_of_the_driver_leaves_no_process(tmp_path: Path) -> None:
    sweep, _ = running_sweep(tmp_path, "running", "dispatched tasks")
    os.kill(sweep.pid, signal.SIGKILL)
    sweep.communicate(timeout=30)  # no worker holds the driver's stdout
    assert sweep.returncode == -signal.SIGKILL
    assert_none_left(sweep.pid)


@needs_proc
def test_ctrl_c_exits_130_within_2_seconds_with_one_line(tmp_path: Path) -> None:
    sweep, out = running_sweep(tmp_path, "ok", "a finished task")
    kept = len(rows(out, "ok"))
    os.killpg(sweep.pid, signal.SIGINT)  # a terminal's Ctrl-C: the whole group
    start_time = time.monotonic()
    sweep.wait(timeout=30)
    elapsed = time.monotonic() - start_time
    _, stderr = sweep.communicate(timeout=30)
    assert sweep.returncode == 130, stderr
    assert elapsed < 2.0, elapsed
    assert "interrupted" in one_line(stderr)  # no traceback from the workers
    assert len(rows(out, "ok")) >= kept
    assert_none_left(sweep.pid)


# -- the current folder ----------------------------------------------------------
def test_a_folder_named_opt_sched_in_the_current_folder_does_not_shadow_workers(
        tmp_path: Path) -> None:
    """A checkout's parent holds ``opt_sched/`` (without ``__init__.py``):
    the workers must still import the installed package (every task used to
    fail with ``ImportError: cannot import name '__version__'``)."""
    script = Path(sys.executable).with_name("opt-sched")
    if not script.exists():
        pytest.skip("the opt-sched console script is not installed")
    (tmp_path / "opt_sched" / "tests").mkdir(parents=True)  # a checkout's root
    spec = write_spec(tmp_path, SLOW.replace("stop = 11", "stop = 1")
                      .replace("1500", "4"))
    done = subprocess.run([str(script), "sweep", str(spec), "--out", "out",
                           "--workers", "2", "--json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert '"ok": 2' in done.stdout


# -- the pieces, in process ------------------------------------------------------
def test_folder_lock_refuses_a_second_holder_and_is_released(tmp_path: Path) -> None:
    from opt_sched.campaign.folder_lock import FolderBusyError, hold_folder

    busy = pytest.raises(FolderBusyError, match=rf"pid {os.getpid()}\b")
    with hold_folder(tmp_path), busy, hold_folder(tmp_path):
        pass
    with hold_folder(tmp_path):  # released on exit
        pass


def test_store_with_a_damaged_page_is_refused_when_opened(tmp_path: Path) -> None:
    from opt_sched.campaign.sources import generator_source
    from opt_sched.campaign.store import ResultStore, StoreDamagedError
    from opt_sched.campaign.task import Task

    path = tmp_path / "results.sqlite"
    with ResultStore(path) as store:
        store.mark_dispatched([Task(generator_source("tucan", {"batch": float(b)}),
                                    "first-fit+lpt/fifo") for b in range(1, 300)])
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    data = bytearray(path.read_bytes())
    middle = len(data) // page // 2 * page  # a leaf page of the tasks
    data[middle:middle + 64] = b"\xab" * 64
    path.write_bytes(bytes(data))
    with pytest.raises(StoreDamagedError, match=r"damaged.*new --out"):
        ResultStore(path)
