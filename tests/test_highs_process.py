"""Where HiGHS runs (:mod:`opt_sched.highs_process`): the coexistence
probe's verdict, highspy's banner kept off standard output, Ctrl-C during a
solve, and the window LPs giving the same bound in this process and in a
fresh one."""

from __future__ import annotations

import importlib.util
import math
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from opt_sched.highs_process import HIGHS_ENV, probe_said_ok

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(importlib.util.find_spec("highspy") is None,
                                reason="highspy is not installed")


def test_the_probe_reads_only_its_last_line() -> None:
    """highspy 1.16 prints a banner before the probe's ``ok``: still ok."""
    banner = ("Running HiGHS 1.16.0 (git hash: f3f113d): Copyright (c) 2026\n"
              "Includes third-party software components\n")
    assert probe_said_ok(banner + "ok\n")
    assert probe_said_ok("ok")
    assert not probe_said_ok(banner)
    assert not probe_said_ok("ok\nTraceback (most recent call last):\n")
    assert not probe_said_ok("")


def _python(script: str, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT, **kwargs)


def test_highspy_loads_without_its_banner_on_standard_output() -> None:
    """A process that loads highspy through ``load_highspy`` and makes
    models prints only its own output (its ``--json`` stays JSON)."""
    proc = _python("""
        from opt_sched.highs_process import load_highspy
        highspy = load_highspy()
        h = highspy.Highs()
        h.setOptionValue("output_flag", False)
        h.run()
        print('{"ok": true}')
    """)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-2000:]
    assert out == '{"ok": true}\n', out


# a market-split MIP (Cornuejols and Dawande): 5 rows of 50 binaries with
# weights in 0..99 and right-hand sides half their sums; HiGHS runs it to
# its 60 s limit
_HARD_MIP = """
    import sys, time
    import numpy as np
    from opt_sched.highs_process import load_highspy, run_interruptibly
    highspy = load_highspy()
    rng = np.random.default_rng(1)
    m, n = 5, 50
    a = rng.integers(0, 100, (m, n))
    b = a.sum(1) // 2
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", 60.0)
    h.addVars(n + 2 * m, np.zeros(n + 2 * m), np.r_[np.ones(n), np.full(2 * m, np.inf)])
    h.changeColsIntegrality(n, np.arange(n, dtype=np.int32),
                            np.full(n, highspy.HighsVarType.kInteger, dtype=np.uint8))
    h.changeColsCost(2 * m, np.arange(n, n + 2 * m, dtype=np.int32), np.ones(2 * m))
    for i in range(m):
        idx = np.r_[np.arange(n), n + 2 * i, n + 2 * i + 1].astype(np.int32)
        h.addRow(float(b[i]), float(b[i]), len(idx), idx,
                 np.r_[a[i], 1.0, -1.0].astype(float))
    print("solving", file=sys.stderr, flush=True)
    began = time.perf_counter()
    try:
        run_interruptibly(h)
    except KeyboardInterrupt:
        print(f"interrupted after {time.perf_counter() - began:.1f} s",
              file=sys.stderr, flush=True)
        sys.exit(130)
    print("finished", h.modelStatusToString(h.getModelStatus()))
"""


def test_ctrl_c_stops_a_highs_solve_at_once() -> None:
    """SIGINT 1 s into a MIP that would run 60 s: the solve is cancelled
    and the KeyboardInterrupt reaches the caller within seconds (a plain
    ``Highs.run`` holds it until the time limit)."""
    proc = _python(_HARD_MIP)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert line.strip() == "solving", line + proc.stderr.read()[-2000:]
    time.sleep(1.0)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    seconds = time.perf_counter() - sent
    assert proc.returncode == 130, (proc.returncode, out, err[-2000:])
    assert "interrupted after" in err
    assert seconds < 5.0, seconds


def test_the_window_lp_gives_one_bound_in_both_modes(monkeypatch) -> None:
    """The start-indexed LP of a KTH-SP2-head window, its multipliers
    proposed in this process and in a fresh one: the same bound (each
    computed here by weak duality from what HiGHS proposed)."""
    from opt_sched.bounds_window_tindex import time_indexed_mean_flow_bound
    from tests.window_helpers import kth_head_window

    window = kth_head_window()
    bounds = {}
    for mode in ("in-process", "subprocess"):
        monkeypatch.setenv(HIGHS_ENV, mode)
        bounds[mode] = time_indexed_mean_flow_bound(
            window.instance, reservations=window.reservations, time_limit=30.0,
            cells=100)["time-indexed-lp"]
    assert math.isclose(bounds["in-process"], bounds["subprocess"],
                        rel_tol=1e-9), bounds


_HANDLERS = '''
import os
import sys

import numpy as np

from opt_sched.highs_process import serve


def doubles(data, limit):
    return {"x": 2 * data["x"]}


def buggy(data, limit):
    raise ValueError("a bug in the handler")


def exhausted(data, limit):
    raise MemoryError


def crashed(data, limit):
    os.abort()


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1:], globals()[os.environ["HANDLER"]]))
'''


@pytest.mark.parametrize("mode", ["in-process", "subprocess"])
def test_a_handler_bug_is_raised_not_taken_for_no_bound(
        mode: str, tmp_path: Path, monkeypatch) -> None:
    """``ask``: an exception of the handler is a bug and reaches the caller
    (a command then exits 3); only what lies outside opt_sched (the memory
    ran out, HiGHS crashed the process) is "no answer" (``None``)."""
    import numpy as np

    from opt_sched.highs_process import ask

    (tmp_path / "lp_handlers_for_test.py").write_text(_HANDLERS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv(HIGHS_ENV, mode)
    import lp_handlers_for_test as handlers

    def asked(name: str):
        monkeypatch.setenv("HANDLER", name)
        return ask(getattr(handlers, name), {"x": np.arange(3.0)}, 30.0, 30.0)

    assert asked("doubles")["x"].tolist() == [0.0, 2.0, 4.0]
    with pytest.raises((ValueError, RuntimeError), match="a bug in the handler"):
        asked("buggy")
    assert asked("exhausted") is None
    if mode == "subprocess":  # a crash in this process would end the test run
        assert asked("crashed") is None
