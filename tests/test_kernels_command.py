"""``opt-sched kernels --compile`` compiles the replay kernels ahead of the
first real run (issue 25, item 6; :mod:`opt_sched.scheduling.compile_ahead`).

The command runs in a real process on the suite's own numba cache (what a
user's first run would use), so it costs the suite little: the kernels it
compiles are the ones the replay tests load.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from opt_sched.experiments.compile_ahead import TINY_SWF, warm_ups
from opt_sched.scheduling import SCHEDULERS, register_scheduler
from opt_sched.scheduling.fcfs import FCFS

from .paths import REPO


def kernels(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = dict(os.environ, PYTHONPATH=str(REPO), **env)
    environment.pop("OPT_SCHED_KERNELS", None)
    return subprocess.run([sys.executable, "-m", "opt_sched", "kernels", *args],
                          env=environment, capture_output=True, text=True, timeout=900)


def test_compile_fills_both_replay_loops_and_says_what_it_did():
    done = kernels("--compile", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["replay_loops"] == {"compute-only": True, "with I/O": True}
    assert report["cached_kernels"] > 0
    ran = {(w["kind"], w["method"], w["execution"], w["io"])
           for w in report["warm_ups"]}
    expected = {(w.kind, w.method, w.execution, w.io) for w in warm_ups()}
    assert ran == expected
    for warm_up in report["warm_ups"]:  # a skip always says why
        assert warm_up["skipped"] is None or warm_up["skipped"].strip()
    for name in ("easy", "conservative", "fcfs", "blocks", "makespan"):  # never skipped
        assert all(w["skipped"] is None for w in report["warm_ups"]
                   if w["method"] == name)
    status = kernels("--json")
    assert json.loads(status.stdout)["replay_loops"] == report["replay_loops"]


def test_warm_ups_read_the_registries():
    register_scheduler("warm-up-test-fcfs", FCFS)
    try:
        plan = warm_ups()
    finally:
        del SCHEDULERS["warm-up-test-fcfs"]
    assert {w.method for w in plan if w.method == "warm-up-test-fcfs"}
    assert {w.io for w in plan if w.kind == "replay"} == {False, True}


def test_the_tiny_trace_overflows_the_initial_profile():
    """90 one-machine jobs with distinct run times at t = 0: more distinct
    end times than the profile's 64 initial slices, so the state-growing
    kernel compiles too."""
    rows = [line.split() for line in TINY_SWF.splitlines() if not line.startswith(";")]
    at_zero = {row[3] for row in rows if row[1] == "0" and row[4] == "1"}
    assert len(at_zero) > 64


def test_nothing_to_compile_when_jit_is_off_is_exit_2():
    done = kernels("--compile", NUMBA_DISABLE_JIT="1")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "Python" in done.stderr
