"""Ctrl-C: stop within about a second, keep every finished row, print one
line, exit 130, never a traceback and never a half-written file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest

from opt_sched.cli.boundary import run_command
from opt_sched.cli.rows import RowFile
from opt_sched.files import pending_temporaries

from .conftest import INSTANCES, REPO
from .subprocess_helpers import wait_for_line

# -- in-process: the boundary -------------------------------------------------------


def test_interrupt_reports_the_rows_kept(tmp_path, capsys):
    out = tmp_path / "rows.csv"

    def command(args):
        with RowFile(out) as rows:
            rows.add({"instance": "a", "value": 1.0 / 3.0})
            rows.add({"instance": "b", "value": 2.5})
            raise KeyboardInterrupt

    assert run_command(command, None) == 130
    err = capsys.readouterr().err
    assert err == f"opt-sched: interrupted, 2 rows kept in {out}\n"
    table = pd.read_csv(out)
    assert list(table["instance"]) == ["a", "b"]
    assert table["value"][0] == 1.0 / 3.0  # full precision


def test_interrupt_before_any_row(tmp_path, capsys):
    out = tmp_path / "rows.csv"

    def command(args):
        with RowFile(out):
            raise KeyboardInterrupt

    assert run_command(command, None) == 130
    assert capsys.readouterr().err == (f"opt-sched: interrupted, no row finished, "
                                       f"{out} not written\n")
    assert not out.exists()


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_interrupt_during_a_write_leaves_the_previous_file(tmp_path, monkeypatch,
                                                           capsys):
    """Ctrl-C arriving inside ``os.write`` of an atomic write: the file still
    holds the rows of the previous write, complete, and no temporary file
    stays behind."""
    out = tmp_path / "rows.csv"
    real_write = os.write

    def command(args):
        with RowFile(out) as rows:
            rows.add({"instance": "a", "value": 1.0})

            def interrupted_write(fd, data):
                if ".tmp-" in os.readlink(f"/proc/self/fd/{fd}"):  # the row file
                    raise KeyboardInterrupt
                return real_write(fd, data)

            monkeypatch.setattr(os, "write", interrupted_write)
            rows.add({"instance": "b", "value": 2.0})
        return 0

    assert run_command(command, None) == 130
    monkeypatch.setattr(os, "write", real_write)
    assert capsys.readouterr().err == f"opt-sched: interrupted, 1 row kept in {out}\n"
    assert list(pd.read_csv(out)["instance"]) == ["a"]
    assert [p.name for p in tmp_path.iterdir()] == ["rows.csv"]
    assert pending_temporaries() == []


def test_errors_map_to_exit_codes(capsys):
    from opt_sched.errors import InfeasibleScheduleError, InstanceError

    def raising(exc):
        def command(args):
            raise exc
        return command

    assert run_command(raising(InstanceError("job 'a': nodes=-1 must be >= 0")),
                       None) == 2
    assert capsys.readouterr().err == ("opt-sched: error: job 'a': nodes=-1 must "
                                       "be >= 0\n")
    assert run_command(raising(InstanceError("two\nlines")), None) == 2
    assert capsys.readouterr().err == "opt-sched: error: two; lines\n"
    assert run_command(raising(InfeasibleScheduleError("rule 5")), None) == 3
    assert "internal error (a bug, please report): rule 5" in capsys.readouterr().err
    # an unexpected exception is a bug too: exit 3, one line, no traceback
    assert run_command(raising(ZeroDivisionError("division by zero")), None) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "ZeroDivisionError" in err
    assert "Traceback" not in err


def test_warnings_are_one_line(capsys):
    import warnings

    from opt_sched.errors import InexactGridWarning

    def command(args):
        warnings.warn("time grid 0.5 is not exact for job 'a'", InexactGridWarning,
                      stacklevel=1)
        return 0

    assert run_command(command, None) == 0
    assert capsys.readouterr().err == ("opt-sched: warning: time grid 0.5 is not "
                                       "exact for job 'a'\n")


def test_closed_stdout_is_quiet():
    """``opt-sched compare ... | head -1``: no BrokenPipeError traceback."""
    shell = (f"{sys.executable} -m opt_sched compare "
             f"{INSTANCES / 'deps5.json'} --plain | head -1")
    done = subprocess.run(["bash", "-c", shell], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.stdout.count("\n") == 1
    assert "Traceback" not in done.stderr and "Error" not in done.stderr, done.stderr


# -- real processes: SIGINT ---------------------------------------------------------
# gap_table is replaced by a fake that reports three finished rows through the
# ``on_row`` callback and then blocks in native code without the GIL (a numba
# loop that ignores signals, like a CP-SAT search that does not stop): only the
# watchdog of the CLI can end the process.
_STUCK_GAP = r"""
import sys
import numba
import opt_sched.experiments.gap as gap

@numba.njit(nogil=True)
def spin(n):
    x = 1
    for i in range(n):
        x = (x * 1103515245 + 12345 + i) % 2147483648
    return x

def fake_gap_table(instances, *, on_row=None, **options):
    spin(10)  # compile first
    for k in range(3):
        on_row({"instance": f"i{k}", "method": "m", "value": 1.0 / (k + 3),
                "gap": 0.1 * k})
    print("stuck in native code", file=sys.stderr, flush=True)
    spin(10**13)
    raise AssertionError("unreachable")

gap.gap_table = fake_gap_table
from opt_sched.cli import main
sys.argv = ["opt-sched", *sys.argv[1:]]
sys.exit(main())
"""


def _start(args: list[str]) -> subprocess.Popen:
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "PYTHONPATH": str(REPO)})


def _interrupt(process: subprocess.Popen, limit: float) -> tuple[float, str, str]:
    started = time.monotonic()
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"still running {limit} s after SIGINT: {err}") from None
    return time.monotonic() - started, out, err


def test_ctrl_c_in_native_code_stops_within_two_seconds(tmp_path):
    out = tmp_path / "rows.csv"
    process = _start([sys.executable, "-c", _STUCK_GAP, "gap", "x.json",
                      "--out", str(out)])
    wait_for_line(process, "stuck in native code", timeout=120)
    time.sleep(0.5)
    seconds, _, stderr = _interrupt(process, limit=5)
    assert process.returncode == 130, stderr
    assert seconds < 2.0, seconds
    assert stderr == f"opt-sched: interrupted, 3 rows kept in {out}\n"
    rows = pd.read_csv(out)
    assert list(rows["instance"]) == ["i0", "i1", "i2"]
    assert rows["value"][1] == 1.0 / 4.0
    assert [p.name for p in tmp_path.iterdir()] == ["rows.csv"]


def test_ctrl_c_twice_stops_at_once(tmp_path):
    process = _start([sys.executable, "-c", _STUCK_GAP, "gap", "x.json"])
    wait_for_line(process, "stuck in native code", timeout=120)
    process.send_signal(signal.SIGINT)
    time.sleep(0.05)
    seconds, _, stderr = _interrupt(process, limit=5)
    assert process.returncode == 130
    assert seconds < 0.9, seconds  # well before the 1 s grace
    assert stderr == "opt-sched: interrupted, 3 finished rows (no --out file)\n"


def test_ctrl_c_during_a_cpsat_solve_keeps_the_finished_rows(tmp_path):
    """The issue's scenario: ``gap`` on two quick instances then tucan5 with
    a 30 s limit; Ctrl-C 3 s into tucan5's solve."""
    out = tmp_path / "rows.csv"
    process = _start([sys.executable, "-m", "opt_sched", "gap",
                      str(INSTANCES / "tiny2.json"), str(INSTANCES / "tiny5.json"),
                      str(INSTANCES / "tucan5.json"), "--time-limit", "30",
                      "--solver", "cpsat", "--out", str(out)])
    wait_for_line(process, "tucan5", timeout=120)
    time.sleep(3)
    seconds, _, stderr = _interrupt(process, limit=5)
    assert process.returncode == 130, stderr
    assert seconds < 2.0, seconds
    assert "Traceback" not in stderr
    last = stderr.strip().splitlines()[-1]
    rows = pd.read_csv(out)
    assert last == f"opt-sched: interrupted, {len(rows)} rows kept in {out}"
    # every row of the two finished instances, none of tucan5
    assert set(rows["instance"]) == {"tiny2", "tiny5"}
    assert (rows["method"] == "cpsat").sum() == 2
    assert [p.name for p in tmp_path.iterdir()] == ["rows.csv"]
