"""Time seed 000's campaign through ``opt-sched sweep`` and print the figure
with the machine's load next to it.

    PYTHONPATH=$PWD python scripts/bench_ijhpca2023.py \
        [--spec campaigns/ijhpca2023.toml] [--out results/ijhpca2023] [--workers 2]

The goal (issue 11): the full campaign, report included, in under 20
minutes on 2 cores. The machine may be shared: the load averages before and
after the run (``/proc/loadavg``, as ``uptime`` prints them) are printed
beside the time, and the per-group task time is read back from
``tasks.csv``. The output folder must not hold results already (the run
would only resume).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]


def load() -> str:
    """The 1-, 5- and 15-minute load averages."""
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", default=str(REPO / "campaigns" / "ijhpca2023.toml"))
    parser.add_argument("--out", default=str(REPO / "results" / "ijhpca2023"))
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    out = Path(args.out)
    if (out / "results.sqlite").exists():
        print(f"{out} already holds results: choose another --out", file=sys.stderr)
        return 2
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}"
           f"{os.environ.get('PYTHONPATH', '')}"}
    before = load()
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "opt_sched", "sweep", args.spec,
                           "--out", str(out), "--workers", str(args.workers)],
                          env=env, check=False)
    elapsed = time.perf_counter() - start
    after = load()
    print(f"campaign {Path(args.spec).name}: {elapsed / 60:.1f} min on "
          f"{args.workers} workers (exit {done.returncode}); load average "
          f"(1/5/15 min) before {before}, after {after}; {os.cpu_count()} cores")
    tasks = out / "tasks.csv"
    if tasks.exists():
        table = pd.read_csv(tasks)
        per = table.groupby(["group", "status"])["wall_time"].agg(["count", "mean",
                                                                    "sum"])
        print("method time per task (s), by group:")
        print(per.round(3).to_string())
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
