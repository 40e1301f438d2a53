"""Ctrl-C on every long-running command, in a real process (issue 24).

Each command is started with the default SIGINT disposition (a shell's
background job, or a test run from one, ignores SIGINT: the child restores
it before Python starts, so Python installs its own handler), interrupted
once it is busy, and must: exit 130 within 2 s, print one line (progress
lines of ``solve`` aside), keep what it finished and leave no half-written
file.

``solve`` is checked with every registered solver (read from the registry),
on a 20 x 20 IO-SCHED instance at I/O load 1 that none of them closes in a
few seconds. Before the fix, ``portfolio`` and ``lns`` ran to their time
limit and exited 0 (their CP-SAT calls installed CP-SAT's own SIGINT
handler), and a second Ctrl-C on ``lns`` aborted with
``std::bad_function_call``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import pandas as pd
import pytest

from .conftest import INSTANCES, REPO
from .subprocess_helpers import wait_for_line as wait_for
from .subprocess_helpers import write_hard_instance

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGINT is POSIX")

LIMIT = 2.0
"""Seconds from SIGINT to the end of the process."""

PROGRESS = "opt-sched: solve "
INTERRUPTED = "opt-sched: interrupted"


def _default_sigint() -> None:
    """In the child before ``exec``: SIGINT back to its default, so that the
    new Python installs its handler even if this test runs with SIGINT
    ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(args: Sequence[str], *, module: str = "opt_sched",
          cwd: Path | None = None) -> subprocess.Popen:
    """``python -m MODULE ARGS`` with SIGINT handled by Python."""
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    environment.pop("OPT_SCHED_DEBUG", None)
    return subprocess.Popen([sys.executable, "-m", module, *args], cwd=cwd,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=environment,
                            preexec_fn=_default_sigint)


def interrupt(process: subprocess.Popen, *, twice: bool = False
              ) -> tuple[float, str, str]:
    """SIGINT (twice, 50 ms apart, with ``twice``); ``(seconds until the
    process ended, stdout, stderr)``."""
    assert process.poll() is None, "the command ended before the SIGINT"
    started = time.monotonic()
    process.send_signal(signal.SIGINT)
    if twice:
        time.sleep(0.05)
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=LIMIT + 10)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"still running {LIMIT + 10} s after SIGINT: "
                             f"{err[-2000:]}") from None
    return time.monotonic() - started, out, err


def assert_stopped(seconds: float, process: subprocess.Popen, err: str) -> str:
    """Exit 130 within :data:`LIMIT`, no traceback, exactly one line besides
    the progress lines; returns that line."""
    assert process.returncode == 130, (process.returncode, err[-2000:])
    assert seconds < LIMIT, (seconds, err[-2000:])
    assert "Traceback" not in err and "terminate called" not in err, err[-2000:]
    lines = [line for line in err.splitlines()
             if line.strip() and not line.startswith(PROGRESS)]
    assert len(lines) == 1, err[-2000:]
    assert lines[0].startswith(INTERRUPTED), lines
    return lines[0]


def leftovers(folder: Path) -> list[str]:
    """Temporary files of atomic writes left in ``folder``."""
    return sorted(p.name for p in folder.iterdir()
                  if p.name.startswith(".") or ".tmp" in p.name)


# -- inputs ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def hard_instance(tmp_path_factory) -> Path:
    return write_hard_instance(tmp_path_factory.mktemp("instances"))


@pytest.fixture(scope="module")
def gang_workload(tmp_path_factory) -> Path:
    """A jann gang workload of 60,000 jobs: its replay takes several
    seconds."""
    folder = tmp_path_factory.mktemp("gang")
    done = subprocess.run([sys.executable, "-m", "opt_sched", "generate",
                           "--protocol", "jann", "--jobs", "60000", "--seed", "1",
                           "--out", str(folder / "jann.json")],
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    return folder / "jann.json"


def _io_sched_solvers() -> list[str]:
    """Every registered solver (the registry, not a list written here)."""
    from opt_sched.exact.registry import solvers

    return list(solvers())


def _problem_of(solver: str) -> str:
    """io-sched if the solver runs it, else its first problem."""
    from opt_sched.exact.registry import EXACT_MODELS

    problems = [m.problem for m in EXACT_MODELS if solver in m.solvers]
    return "io-sched" if "io-sched" in problems else problems[0]


# -- solve ----------------------------------------------------------------------


@pytest.mark.parametrize("solver", _io_sched_solvers())
def test_solve_stops_on_ctrl_c(solver, hard_instance, tmp_path):
    schedule = tmp_path / "schedule.json"
    process = start(["solve", str(hard_instance), "--problem", _problem_of(solver),
                     "--solver", solver, "--time-limit", "60",
                     "--out", str(schedule)], cwd=tmp_path)
    wait_for(process, PROGRESS, timeout=120)  # in the solver
    seconds, out, err = interrupt(process)
    line = assert_stopped(seconds, process, err)
    assert line == INTERRUPTED
    assert out == ""
    assert not schedule.exists() and leftovers(tmp_path) == []


@pytest.mark.parametrize("solver", ["lns", "portfolio"])
def test_solve_ctrl_c_twice_does_not_abort(solver, hard_instance, tmp_path):
    """The second Ctrl-C ends the process at once, with status 130 (it
    aborted with ``std::bad_function_call``, status -6)."""
    process = start(["solve", str(hard_instance), "--solver", solver,
                     "--time-limit", "60"], cwd=tmp_path)
    wait_for(process, PROGRESS, timeout=120)
    seconds, _, err = interrupt(process, twice=True)
    assert assert_stopped(seconds, process, err) == INTERRUPTED


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (``/proc``)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc")
def test_ctrl_c_stops_the_cbc_process(hard_instance, tmp_path):
    """``--solver cbc`` runs CBC in a child process: Ctrl-C ends it too (it
    went on, orphaned, for the rest of its time limit)."""
    process = start(["solve", str(hard_instance), "--solver", "cbc",
                     "--time-limit", "60", "--quiet"], cwd=tmp_path)
    deadline = time.monotonic() + 120
    while not (children := _children(process.pid)):
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.1)
    time.sleep(0.3)
    seconds, _, err = interrupt(process)
    assert assert_stopped(seconds, process, err) == INTERRUPTED
    time.sleep(0.2)
    assert [pid for pid in children if Path(f"/proc/{pid}").exists()] == []


# -- gap, generate, replay, gang replay ----------------------------------------


def test_gap_keeps_the_finished_rows(hard_instance, tmp_path):
    """Two quick instances then the hard one: Ctrl-C in its solve keeps the
    rows of the first two."""
    out = tmp_path / "rows.csv"
    process = start(["gap", str(INSTANCES / "tiny2.json"),
                     str(INSTANCES / "tiny5.json"), str(hard_instance),
                     "--time-limit", "60", "--out", str(out)], cwd=tmp_path)
    wait_for(process, "io20x20", timeout=120)
    time.sleep(1.0)
    seconds, _, err = interrupt(process)
    line = assert_stopped(seconds, process, err)
    rows = pd.read_csv(out)
    assert line == f"{INTERRUPTED}, {len(rows)} rows kept in {out}"
    assert set(rows["instance"]) == {"tiny2", "tiny5"}
    assert leftovers(tmp_path) == []


def test_generate_stops_on_ctrl_c(tmp_path):
    out = tmp_path / "workload.json"
    process = start(["generate", "--protocol", "jann", "--jobs", "1000000",
                     "--seed", "1", "--out", str(out)], cwd=tmp_path)
    time.sleep(2.0)
    seconds, _, err = interrupt(process)
    assert assert_stopped(seconds, process, err) == INTERRUPTED
    assert not out.exists() and leftovers(tmp_path) == []


def test_replay_stops_on_ctrl_c(shared_data, tmp_path):
    trace = shared_data / "swf" / "KTH-SP2.swf.gz"
    if not trace.exists():
        pytest.skip(f"{trace} is absent")
    out = tmp_path / "out_jobs.csv"
    # darshan-cori's raw shares (I/O load 8.7): about 9 s in all on 2 cores,
    # so the Ctrl-C lands in the replay (bn at alpha 0.5 now ends in 3.7 s)
    process = start(["replay", str(trace), "--io-profile", "darshan-cori",
                     "--out", str(out)], cwd=tmp_path)
    time.sleep(3.0)  # loaded, replaying
    seconds, _, err = interrupt(process)
    assert assert_stopped(seconds, process, err) == INTERRUPTED
    assert not out.exists() and leftovers(tmp_path) == []


def test_replay_window_stops_on_ctrl_c(tmp_path):
    """Ctrl-C in a CP-SAT bound of ``replay --window``."""
    trace = REPO / "tests" / "data" / "traces" / "kth-sp2-head.swf"
    out = tmp_path / "out_jobs.csv"
    process = start(["replay", str(trace), "--scheduler", "easy", "--io-profile",
                     "bn", "--alpha", "0.5", "--window", "5:30",
                     "--window-time-limit", "60", "--out", str(out)], cwd=tmp_path)
    wait_for(process, "opt-sched: window bound", timeout=120)
    seconds, _, err = interrupt(process)
    lines = [line for line in err.splitlines()
             if not line.startswith("opt-sched: window bound")]
    assert assert_stopped(seconds, process, "\n".join(lines)) == INTERRUPTED
    # the replay had finished: its out_jobs.csv was written before the bounds
    assert out.exists() and leftovers(tmp_path) == []


def _interrupted_gang_replay(entry: str, workload: Path, folder: Path
                            ) -> tuple[float, subprocess.Popen, str]:
    """Gang replay of ``workload`` by ``python -m ENTRY``, SIGINT 3 s in."""
    process = start(["replay", str(workload), "--scheduler", "iogs",
                     "--out", str(folder / "jobs.csv")], module=entry, cwd=folder)
    time.sleep(3.0)  # replaying (about 10 s in all)
    seconds, _, err = interrupt(process)
    assert process.returncode == 130, (process.returncode, err[-2000:])
    assert seconds < LIMIT, seconds
    assert "Traceback" not in err, err[-2000:]
    assert not (folder / "jobs.csv").exists() and leftovers(folder) == []
    return seconds, process, err


def test_gang_replay_stops_on_ctrl_c(gang_workload, tmp_path):
    """``opt-sched replay --scheduler iogs`` (the gang path of replay)."""
    seconds, process, err = _interrupted_gang_replay("opt_sched", gang_workload,
                                                     tmp_path)
    assert assert_stopped(seconds, process, err) == INTERRUPTED


def test_gang_entry_stops_on_ctrl_c(gang_workload, tmp_path):
    """``python -m opt_sched.gang replay``: exit 130 within the limit, one
    line (it printed nothing)."""
    _, _, err = _interrupted_gang_replay("opt_sched.gang", gang_workload, tmp_path)
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and "interrupted" in lines[0], err[-2000:]


# -- Ctrl-C inside a callback from C -------------------------------------------
# numba's compiler calls Python back through ctypes while it compiles a kernel
# (the first run of a command): a Ctrl-C there printed "Exception ignored on
# calling ctypes callback function ... Traceback ... KeyboardInterrupt" and
# the command went on.
_IN_A_CALLBACK = r"""
import ctypes, sys, time
from opt_sched.cli.boundary import run_command

def busy():
    print("in the callback", file=sys.stderr, flush=True)
    end = time.monotonic() + 3
    while time.monotonic() < end:
        time.sleep(0.01)

def command(args):
    ctypes.CFUNCTYPE(None)(busy)()
    time.sleep(5)  # the rest of the work
    return 0

sys.exit(run_command(command, None, owns_process=True))
"""


def test_ctrl_c_in_a_callback_from_c_is_one_line_not_a_traceback(tmp_path):
    process = subprocess.Popen([sys.executable, "-c", _IN_A_CALLBACK],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, preexec_fn=_default_sigint, cwd=tmp_path,
                               env={**os.environ, "PYTHONPATH": str(REPO)})
    wait_for(process, "in the callback", timeout=60)
    time.sleep(0.3)
    seconds, _, err = interrupt(process)
    assert (process.returncode, err) == (130, f"{INTERRUPTED}\n")
    assert seconds < LIMIT


# -- the one stoppable path of CP-SAT ------------------------------------------


def test_run_solver_switches_cpsat_sigint_handler_off():
    """A ``CpSolver`` built with OR-Tools' defaults catches SIGINT itself
    (a Ctrl-C then ends one search, not the command): ``run_solver`` turns
    that off whoever built the solver."""
    from ortools.sat.python import cp_model

    from opt_sched.exact.cpsat.interrupt import run_solver

    model = cp_model.CpModel()
    x = model.new_int_var(0, 3, "x")
    model.add(x >= 2)
    model.minimize(x)
    solver = cp_model.CpSolver()
    assert solver.parameters.catch_sigint_signal  # OR-Tools' default
    assert run_solver(solver, model) == cp_model.OPTIMAL
    assert solver.value(x) == 2
    assert not solver.parameters.catch_sigint_signal


def _direct_solves(path: Path) -> list[str]:
    """``<...solver>.solve(...)``/``.Solve(...)`` calls in ``path``."""
    import ast

    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in ("solve", "Solve",
                                       "solve_with_solution_callback") \
                and isinstance(node.func.value, ast.Name) \
                and "solver" in node.func.value.id.lower():
            found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    return found


def test_every_cpsat_search_goes_through_run_solver():
    """The LNS repairs, the deadline questions and the cyclic period called
    ``solver.solve`` directly (CP-SAT's SIGINT handler on: Ctrl-C ignored)."""
    interrupt_module = REPO / "opt_sched" / "exact" / "cpsat" / "interrupt.py"
    direct = [where for path in sorted((REPO / "opt_sched").rglob("*.py"))
              if path != interrupt_module for where in _direct_solves(path)]
    assert direct == []
