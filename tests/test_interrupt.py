"""Ctrl-C stops a CP-SAT search at once (in a real subprocess)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, sys.argv[1])
    from bench_exact import io_sched_instance
    from opt_sched.exact import solve

    # 20 jobs x 50 iterations at I/O load 1: CP-SAT does not close it in 60 s
    instance = io_sched_instance(20, 50, 1.0, 0)
    print("ready", flush=True)
    try:
        solve(instance, "io-sched", time_limit=120)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        sys.exit(130)
    print("finished", flush=True)
""")


@pytest.mark.skipif(os.name != "posix", reason="SIGINT delivery is POSIX")
def test_sigint_stops_a_cpsat_solve_within_seconds() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", SCRIPT, str(ROOT / "scripts")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(4.0)  # the model is built and CP-SAT is searching
        assert proc.poll() is None
        sent = time.perf_counter()
        proc.send_signal(signal.SIGINT)
        line = proc.stdout.readline().strip()
        stopped = time.perf_counter() - sent
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err[-2000:]
    assert line == "interrupted" and out == ""
    # the search stopped and KeyboardInterrupt reached the caller at once
    assert stopped < 2.0, f"{stopped:.2f} s from SIGINT to KeyboardInterrupt"
