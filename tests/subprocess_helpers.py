"""Helpers of the tests that drive ``opt-sched`` in a subprocess and talk to
it while it runs (Ctrl-C, progress lines)."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from .paths import load_script


def wait_for_line(process: subprocess.Popen, fragment: str, timeout: float
                  ) -> list[str]:
    """Read stderr lines until one contains ``fragment``; the lines read.
    Kills the process and fails if it never prints it."""
    lines: list[str] = []
    deadline = time.monotonic() + timeout
    assert process.stderr is not None
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        if not line:
            break
        lines.append(line)
        if fragment in line:
            return lines
    process.kill()
    process.communicate()
    raise AssertionError(f"never printed {fragment!r}: {lines}")


def write_hard_instance(folder: Path) -> Path:
    """20 jobs x 20 iterations at I/O load 1 (400 I/O phases, within the
    MILP models' limit), written to ``folder/hard.json``: no solver closes it
    in a few seconds."""
    from opt_sched.json_files import write_instance

    bench_exact = load_script("bench_exact")
    path = folder / "hard.json"
    write_instance(bench_exact.io_sched_instance(20, 20, 1.0, 0), path)
    return path
