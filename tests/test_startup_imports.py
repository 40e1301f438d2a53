"""``opt-sched --help`` and every ``opt-sched <command> --help`` start fast:
they import none of the heavy libraries (issue 25: start-up under 0.3 s).

Each case runs in a fresh process exactly as the ``opt-sched`` console
script does (``sys.argv`` set, ``main()`` called) and prints the heavy
modules left in ``sys.modules`` once ``--help`` has exited. Not a timing
test: a heavy import is what makes start-up slow, and it is deterministic.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from opt_sched.cli.registry import COMMANDS

from .paths import REPO

HEAVY = ("ortools", "pandas", "matplotlib", "numba", "dask", "pulp", "highspy",
         "networkx", "rich", "scipy")

WRAPPER = """
import sys
sys.argv = ["opt-sched", *{words!r}]
from opt_sched.cli import main
try:
    main()
except SystemExit as stop:
    assert stop.code == 0, stop.code
print("HEAVY=" + ",".join(name for name in {heavy!r} if name in sys.modules))
"""

def heavy_after(words: list[str]) -> list[str]:
    """The heavy modules a fresh ``opt-sched <words>`` process imported."""
    code = WRAPPER.format(words=words, heavy=HEAVY)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    line = next(line for line in done.stdout.splitlines() if line.startswith("HEAVY="))
    assert "usage: opt-sched" in done.stdout
    return [name for name in line.removeprefix("HEAVY=").split(",") if name]


def test_top_level_help_imports_nothing_heavy():
    assert heavy_after(["--help"]) == []


@pytest.mark.parametrize("command", list(COMMANDS))
def test_command_help_imports_nothing_heavy(command):
    assert heavy_after([command, "--help"]) == []


def test_lazy_names_still_import():
    """The names made lazy stay reachable by their public paths."""
    code = ("import opt_sched, opt_sched.scheduling as s, opt_sched.traces as t, "
            "opt_sched.campaign as c, opt_sched.gang as g, opt_sched.cli as cli\n"
            "from opt_sched import Instance, read_instance, Schedule, simulate\n"
            "assert s.SCHEDULERS['easy'] is s.EasyBackfilling\n"
            "assert callable(s.replay) and callable(cli.build_plan)\n"
            "assert t.PROFILE_NAMES and callable(c.run_sweep) and g.GANG_SCHEDULERS\n"
            "assert opt_sched.read_instance is read_instance\n"
            "print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=REPO, timeout=120, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
