"""``solve`` shows its progress on stderr (issue 24): elapsed time, phase,
incumbent and bound every few seconds; ``--quiet`` silences it; ``--json``
stays clean JSON on stdout."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from opt_sched.cli.progress import ProgressLines, format_line

from .conftest import REPO
from .subprocess_helpers import write_hard_instance

LINE = re.compile(r"^opt-sched: solve (?P<elapsed>[0-9.]+) s / (?P<limit>[0-9.]+) s"
                  r"(?:  (?P<phase>[^ ].*?))?"
                  r"(?:  incumbent (?P<incumbent>[0-9,.e+-]+))?"
                  r"(?:  bound (?P<bound>[0-9,.e+-]+))?"
                  r"(?:  gap (?P<gap>[0-9.]+) %)?$")


def _number(text: str) -> float:
    return float(text.replace(",", ""))


# -- the line and the state ----------------------------------------------------


def test_format_line_leaves_out_what_is_unknown():
    assert format_line("solve", 1.04, 60, None, None, None) == \
        "opt-sched: solve 1.0 s / 60 s"
    assert format_line("solve", 12.06, 60.0, "cpsat: optimise", 1250.0, 1200.0) == (
        "opt-sched: solve 12.1 s / 60 s  cpsat: optimise  incumbent 1,250  "
        "bound 1,200  gap 4.17 %")      # SPEC §7: (x - L) / L = 50 / 1200
    # a bound reported above the incumbent mid-search shows no gap
    assert format_line("solve", 2.0, None, None, 10.0, 11.0).endswith("bound 11")


def test_incumbent_goes_down_bound_goes_up():
    lines = ProgressLines("solve", 10, stream=io.StringIO(), terminal=False)
    lines.update("bounds", bound=10.0)
    lines.update(incumbent=14.0)
    lines.update(incumbent=15.0, bound=9.0)  # a worse node's report
    lines.update("cpsat: optimise", incumbent=12.0, bound=11.0)
    assert (lines.phase, lines.incumbent, lines.bound) == ("cpsat: optimise",
                                                           12.0, 11.0)


def test_a_named_search_keeps_its_name_through_a_nameless_restart():
    """The window names each objective's solve; the solve's front door
    restarts again, without a name: the lines still say the objective, and
    the values start over."""
    lines = ProgressLines("window bound", 3, stream=io.StringIO(), terminal=False)
    lines.update("makespan", restart=True)
    lines.update("bounds", bound=5.0)
    lines.update(restart=True)
    assert (lines.search, lines.bound) == ("makespan", None)
    lines.update("certify", bound=7.0)
    assert lines.line().endswith("makespan, certify  bound 7")
    lines.update("mean-flow-time", restart=True)
    assert lines.search == "mean-flow-time" and lines.phase is None


def test_the_clock_starts_after_the_set_up():
    now = [100.0]
    lines = ProgressLines("solve", 10, stream=io.StringIO(), terminal=False,
                          clock=lambda: now[0], setup_phase="set-up")
    lines.update("set-up")
    now[0] = 130.0  # 30 s of compiling kernels: not part of the time limit
    lines.update("bounds")
    now[0] = 131.5
    assert lines.line() == "opt-sched: solve 1.5 s / 10 s  bounds"


def test_other_output_erases_the_status_line_first(monkeypatch):
    """On a terminal, a warning printed during the solve starts on a clean
    line, not after the status line."""
    buffer = io.StringIO()
    monkeypatch.setattr(sys, "stderr", buffer)
    with ProgressLines("solve", 10, terminal=True) as lines:
        assert sys.stderr is not buffer
        lines._print("opt-sched: solve 1.0 s / 10 s")
        print("opt-sched: warning: something", file=sys.stderr)
    assert sys.stderr is buffer
    assert buffer.getvalue() == ("\r\x1b[2Kopt-sched: solve 1.0 s / 10 s"
                                 "\r\x1b[2Kopt-sched: warning: something\n")


def test_no_line_before_the_timed_work_but_the_heartbeat():
    """Imports and set-up print nothing for :data:`HEARTBEAT` seconds (a
    quick solve stays silent); then the first line comes :data:`FIRST_LINE`
    after the first phase, the next when something moved :data:`PERIOD`
    later."""
    from opt_sched.cli.progress import FIRST_LINE, HEARTBEAT, PERIOD

    now = [0.0]
    lines = ProgressLines("solve", 10, stream=io.StringIO(), terminal=False,
                          clock=lambda: now[0], setup_phase="set-up")
    lines._started = lines._last_line = 0.0
    now[0] = HEARTBEAT - 0.1
    assert not lines._due(now[0])  # importing
    lines.update("set-up")
    assert not lines._due(now[0])
    assert lines._due(HEARTBEAT)  # a long set-up: the heartbeat
    lines.update("bounds")  # the clock starts
    assert not lines._due(now[0] + FIRST_LINE - 0.1)
    assert lines._due(now[0] + FIRST_LINE)
    lines._lines, lines._last_line, lines._changed = 1, now[0] + FIRST_LINE, False
    assert not lines._due(now[0] + FIRST_LINE + PERIOD)  # nothing moved
    lines.update(bound=3.0)
    assert lines._due(now[0] + FIRST_LINE + PERIOD)


# -- a real solve ---------------------------------------------------------------


@pytest.fixture(scope="module")
def hard_instance(tmp_path_factory) -> Path:
    return write_hard_instance(tmp_path_factory.mktemp("instances"))


def _solve(*args: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "opt_sched", "solve", *args],
                          capture_output=True, text=True, timeout=300,
                          env=environment, stdin=subprocess.DEVNULL)


def _progress(stderr: str) -> list[re.Match]:
    """The progress lines; every line of stderr must be one."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    matches = [LINE.match(line) for line in lines]
    assert all(matches), stderr
    return matches  # type: ignore[return-value]


def test_solve_shows_elapsed_phase_incumbent_and_bound(hard_instance):
    done = _solve(str(hard_instance), "--time-limit", "6", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)  # stdout is the JSON report alone
    lines = _progress(done.stderr)
    assert len(lines) >= 2
    elapsed = [float(m["elapsed"]) for m in lines]
    assert elapsed == sorted(elapsed) and elapsed[-1] <= 6.0 + 1.0
    assert {m["limit"] for m in lines} == {"6"}
    # a phase of the solver that ran (auto: the portfolio, whose first stage
    # is CP-SAT's bisection); which stage a one-per-interval line catches
    # depends on the machine's speed
    stages = ("cpsat:", f"{report['solver']}:")
    assert any(m["phase"] and m["phase"].startswith(stages) for m in lines), lines
    moving = [m for m in lines if m["incumbent"] and m["bound"]]
    assert moving, done.stderr
    for m in moving:  # what was shown is what was proven and found
        assert _number(m["bound"]) <= report["lower_bound"] * (1 + 1e-5)
        assert _number(m["incumbent"]) >= report["objective"] * (1 - 1e-5)
        assert _number(m["bound"]) <= _number(m["incumbent"])


def test_solve_shows_the_phases_of_the_portfolio(hard_instance):
    done = _solve(str(hard_instance), "--solver", "portfolio", "--time-limit", "6")
    assert done.returncode == 0, done.stderr
    phases = {m["phase"] for m in _progress(done.stderr) if m["phase"]}
    assert any(p.startswith("portfolio:") for p in phases), phases
    assert "status" in done.stdout and "lower bound" in done.stdout


def test_quiet_silences_the_progress(hard_instance):
    done = _solve(str(hard_instance), "--time-limit", "3", "--quiet")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "status" in done.stdout


def test_a_quick_solve_prints_no_progress():
    done = _solve(str(REPO / "instances" / "tiny2.json"), "--time-limit", "5")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


WINDOW_LINE = re.compile(r"^opt-sched: window bound [0-9.]+ s / 3 s  "
                         r"(?P<objective>[a-z-]+), "
                         r"(?:cpsat: [a-z ]+|bounds|search|certify)"
                         r"(?:  bound (?P<bound>[0-9,.e+-]+))?$")


def test_replay_window_shows_the_progress_of_its_bounds():
    """``replay --window``: each CP-SAT bound shows its objective, phase and
    proven bound; stdout stays the JSON report."""
    from opt_sched.experiments.window import WINDOW_OBJECTIVES

    trace = REPO / "tests" / "data" / "traces" / "kth-sp2-head.swf"
    done = subprocess.run(
        [sys.executable, "-m", "opt_sched", "replay", str(trace), "--scheduler",
         "easy", "--io-profile", "bn", "--alpha", "0.5", "--window", "5:30",
         "--window-time-limit", "3", "--json"],
        capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    objectives = json.loads(done.stdout)["window"]["objectives"]
    lines = [WINDOW_LINE.match(line) for line in done.stderr.splitlines()
             if line.startswith("opt-sched: window bound")]
    assert lines and all(lines), done.stderr
    for match in lines:
        assert match["objective"] in WINDOW_OBJECTIVES
        if match["bound"]:
            shown = _number(match["bound"])
            assert shown <= objectives[match["objective"]]["bound"] * (1 + 1e-5)


@pytest.mark.skipif(os.name != "posix", reason="needs a pseudo-terminal")
def test_on_a_terminal_one_status_line_is_rewritten_then_erased(hard_instance):
    import pty

    main_end, terminal = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "opt_sched", "solve", str(hard_instance),
             "--time-limit", "3"], stdout=subprocess.PIPE, stderr=terminal,
            stdin=subprocess.DEVNULL, env={**os.environ, "PYTHONPATH": str(REPO)})
        os.close(terminal)
        chunks = []
        while True:
            try:
                data = os.read(main_end, 4096)
            except OSError:  # the process has closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        out, _ = process.communicate(timeout=120)
    finally:
        os.close(main_end)
    shown = b"".join(chunks).decode()
    assert process.returncode == 0, shown
    assert "\n" not in shown.replace("\r\n", "\n").strip("\n"), shown  # one line
    frames = shown.split("\r\x1b[2K")
    assert len(frames) >= 3 and frames[0] == "", shown
    assert all(f.startswith("opt-sched: solve ") for f in frames[1:-1]), shown
    assert frames[-1] == ""  # erased at the end
    assert b"status" in out
