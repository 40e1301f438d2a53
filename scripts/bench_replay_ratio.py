"""Issue 25's replay goal as one figure: the whole ``opt-sched replay`` of
KTH-SP2 with EASY against a bare pure-Python count-based EASY loop's
process (``scripts/bench_bare_easy.py``); goal: at most 4x.

    python scripts/bench_replay_ratio.py [--runs 8] [--before OTHER_CHECKOUT]

Each round runs, one after the other, the replay process of this checkout,
the replay process of ``--before`` (another checkout of the repository, run
with ``PYTHONPATH`` pointing at it: before and after in one sitting) and
the bare loop's process. The rounds interleave the processes so that a
drift of the shared machine touches all of them; the figure is the best
(least disturbed) wall time of each over the rounds, and their ratio. The
package's bytecode is written first (``bench_startup.write_bytecode``), and
each checkout's replay runs once untimed (numba's kernel cache filled,
the files in the page cache).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

from bench_startup import load_average, write_bytecode

REPO = Path(__file__).resolve().parents[1]
TRACE = REPO.parent / "shared" / "data" / "swf" / "KTH-SP2.swf.gz"
GOAL = 4.0


def _wall(command: list[str], env: dict[str, str] | None = None) -> float:
    """The wall time of one process; exits with its stderr if it fails."""
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, env=env)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    return wall


def _replay(checkout: Path | None, trace: Path,
            scheduler: str) -> tuple[list[str], dict[str, str]]:
    """The replay command of ``checkout`` (this one when ``None``)."""
    env = dict(os.environ)
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout)
    return ([sys.executable, "-m", "opt_sched", "replay", str(trace),
             "--scheduler", scheduler, "--quiet"], env)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8, help="rounds (default 8)")
    parser.add_argument("--trace", type=Path, default=TRACE)
    parser.add_argument("--scheduler", default="easy")
    parser.add_argument("--before", type=Path, default=None,
                        help="another checkout to time in the same rounds")
    args = parser.parse_args(argv)
    if not args.trace.is_file():
        raise SystemExit(f"{args.trace} not found; give --trace")
    print(write_bytecode())
    if args.before is not None:
        subprocess.run([sys.executable, "-m", "compileall", "-q",
                        str(args.before / "opt_sched")], check=True)
    runs = {"this checkout": _replay(None, args.trace, args.scheduler)}
    if args.before is not None:
        runs[f"before ({args.before.name})"] = _replay(args.before, args.trace,
                                                       args.scheduler)
    bare = ([sys.executable, str(REPO / "scripts" / "bench_bare_easy.py"),
             "--trace", str(args.trace)], None)
    for command, env in runs.values():
        _wall(command, env)  # untimed: kernel cache and page cache warm
    print(load_average() + " before")
    best = dict.fromkeys([*runs, "bare loop"], float("inf"))
    for _ in range(args.runs):
        for label, (command, env) in [*runs.items(), ("bare loop", bare)]:
            best[label] = min(best[label], _wall(command, env))
    print(load_average() + " after")
    for label, seconds in best.items():
        ratio = seconds / best["bare loop"]
        print(f"{label:>24}: {seconds:.3f} s (best of {args.runs})"
              + ("" if label == "bare loop" else
                 f", {ratio:.2f}x the bare loop (goal {GOAL:g}x)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
