"""Start-up time of ``opt-sched``: every command's ``--help`` in fresh processes.

For ``opt-sched --help`` and ``opt-sched <command> --help`` of every command
of :data:`opt_sched.cli.registry.COMMANDS`, runs ``python -c <wrapper>`` ``N``
times and prints the best and median wall time, and which heavy modules the
process had imported when ``--help`` ended (the wrapper calls
``main([... '--help'])``, catches ``SystemExit`` and prints the heavy names
found in ``sys.modules``). The load average is printed before and after:
figures taken on a busy machine are not comparable.

Usage::

    python scripts/bench_startup.py            # 10 runs each
    python scripts/bench_startup.py -n 20 --commands replay solve
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence

from opt_sched.cli.registry import COMMANDS

HEAVY: tuple[str, ...] = ("ortools", "pandas", "matplotlib", "numba", "dask",
                          "pulp", "highspy", "networkx", "rich", "scipy", "numpy")

WRAPPER = """
import sys
from opt_sched.cli import main
try:
    main({argv!r})
except SystemExit:
    pass
heavy = {heavy!r}
print("HEAVY:" + ",".join(h for h in heavy if h in sys.modules), file=sys.stderr)
"""


def help_argv(command: str | None) -> list[str]:
    """The arguments of ``opt-sched [command] --help``."""
    return ([command] if command else []) + ["--help"]


def run_once(argv: Sequence[str]) -> tuple[float, list[str]]:
    """Wall time of one fresh process running ``main(argv)``, and the heavy
    modules it imported."""
    code = WRAPPER.format(argv=list(argv), heavy=HEAVY)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True,
                          text=True, check=False)
    elapsed = time.perf_counter() - start
    heavy: list[str] = []
    for line in done.stderr.splitlines():
        if line.startswith("HEAVY:"):
            heavy = [h for h in line[len("HEAVY:"):].split(",") if h]
    return elapsed, heavy


def bench(argv: Sequence[str], runs: int) -> tuple[float, float, list[str]]:
    """Best and median of ``runs`` timings of ``main(argv)``, and the heavy
    modules of the last run."""
    times: list[float] = []
    heavy: list[str] = []
    for _ in range(runs):
        elapsed, heavy = run_once(argv)
        times.append(elapsed)
    return min(times), statistics.median(times), heavy


def write_bytecode() -> str:
    """Write the package's bytecode before timing fresh processes, as an
    installed package has it: with ``PYTHONDONTWRITEBYTECODE`` set (some
    shells and containers set it), every process would otherwise compile
    the modules edited since their bytecode was last written (tens of ms).
    Returns a line to print."""
    import compileall

    import opt_sched

    compileall.compile_dir(os.path.dirname(opt_sched.__file__), quiet=1)
    flag = os.environ.get("PYTHONDONTWRITEBYTECODE")
    return ("bytecode of opt_sched written" +
            (" (PYTHONDONTWRITEBYTECODE is set here)" if flag else ""))


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--runs", type=int, default=10,
                        help="fresh processes per command (default 10)")
    parser.add_argument("--commands", nargs="*", default=None,
                        help="commands to time (default: all of the registry)")
    args = parser.parse_args(argv)
    commands: list[str | None] = [None, *(args.commands or COMMANDS)]
    print(write_bytecode())
    print(load_average())
    print(f"{'command':<28} {'best s':>7} {'median s':>9}  heavy modules")
    for command in commands:
        argv_ = help_argv(command)
        best, median, heavy = bench(argv_, args.runs)
        label = "opt-sched " + " ".join(argv_)
        print(f"{label:<28} {best:7.3f} {median:9.3f}  {' '.join(heavy) or '-'}",
              flush=True)
    print(load_average())
    return 0


if __name__ == "__main__":
    sys.exit(main())
