"""The adversarial driver: a table of command-line cases, each run in a real
subprocess and checked for its exit status and its one-line message.

A case names the command's arguments, the expected exit status and words
the message on stderr must contain (case-insensitive). Every failing case
(status 1, 2 or 3) must print exactly one line, never a traceback. Inputs
are made by a ``setup`` callable in the test's own temporary folder; the
arguments may refer to it as ``{tmp}``.

Example
-------
>>> case = Case("bad-seed", ["generate", "--protocol", "mira", "--seed", "-1"],
...             2, ("seed", "-1"))
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

__all__ = ["Case", "Result", "check_case", "run_cli"]


@dataclass(frozen=True)
class Result:
    status: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Case:
    """One hostile call.

    Attributes
    ----------
    name
        The test id.
    args
        Arguments after ``opt-sched`` (or after ``python -m MODULE`` when
        ``module`` is set); ``{tmp}`` is replaced by the test's folder.
    status
        The expected exit status.
    words
        Words the stderr must contain (case-insensitive), e.g. the field and
        the value.
    setup
        Makes the inputs in the temporary folder before the call.
    module
        The module to run instead of ``opt_sched`` (``opt_sched.gang``).
    timeout
        Seconds before the case counts as a hang.
    """

    name: str
    args: Sequence[str]
    status: int
    words: tuple[str, ...] = ()
    setup: Callable[[Path], None] | None = None
    module: str = "opt_sched"
    timeout: float = 120.0
    env: dict[str, str] = field(default_factory=dict)


def run_cli(args: Sequence[str], *, module: str = "opt_sched", cwd: Path | None = None,
            timeout: float = 120.0, env: dict[str, str] | None = None) -> Result:
    """``python -m MODULE ARGS`` in a subprocess; returns status and output."""
    environment = {**os.environ, **(env or {})}
    environment.pop("OPT_SCHED_DEBUG", None)
    done = subprocess.run([sys.executable, "-m", module, *args], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout,
                          env=environment, stdin=subprocess.DEVNULL)
    return Result(done.returncode, done.stdout, done.stderr)


def check_case(case: Case, tmp: Path) -> Result:
    """Run ``case`` in ``tmp`` and assert its status and its message."""
    if case.setup is not None:
        case.setup(tmp)
    args = [a.replace("{tmp}", str(tmp)) for a in case.args]
    result = run_cli(args, module=case.module, cwd=tmp, timeout=case.timeout,
                     env=case.env)
    where = f"{case.name}: opt-sched {' '.join(args)}\nstderr: {result.stderr}"
    assert result.status == case.status, (f"exit {result.status}, not "
                                          f"{case.status}; {where}")
    assert "Traceback" not in result.stderr, where
    if case.status in (1, 2, 3):
        lines = [line for line in result.stderr.splitlines() if line.strip()]
        errors = [line for line in lines if "warning:" not in line]
        assert len(errors) == 1, f"not one line; {where}"
    lowered = result.stderr.lower()
    for word in case.words:
        assert word.lower() in lowered, f"{word!r} missing; {where}"
    return result
