#!/usr/bin/env python
"""The ICS 2020 campaign through ``opt-sched sweep`` next to the old process
pool, back to back in one sitting.

    python scripts/bench_sweep.py [--quick] [--workers 2] [--repeat 1]

Each run is a fresh subprocess timed from the outside (interpreter start,
imports, the campaign, tables and figures):

- **old**: what ``scripts/reproduce_ics2020.py`` did before campaigns:
  ``run_campaign`` (a process pool over 399 per-workload tasks) then
  ``derive_tables``, ``write_tables``, ``plot_all``;
- **sweep**: ``python -m opt_sched.campaign campaigns/ics2020.toml --out DIR
  --workers N`` (3,192 tasks in 399 chunks, the SQLite store, the report).

It prints the load average (``os.getloadavg``) before and after each run,
both times, the sweep's overhead, the Fig. 15 geometric means of both
outputs (make-pack(S=1) over First-Fit on 1, 3, 5 I/O nodes), and whether
every CSV table of the two outputs is byte-identical. With ``--repeat K``
the two alternate K times. The machine is shared: read the figures with
the load next to them.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]

OLD = """
import sys
from pathlib import Path
from opt_sched.studies.ics2020.experiment import (
    QUICK, Campaign, derive_tables, plot_all, run_campaign, write_tables)

if __name__ == "__main__":
    out, workers, quick = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
    raw = run_campaign(QUICK if quick else Campaign(), workers=workers)
    tables = derive_tables(raw)
    write_tables(raw, tables, out)
    plot_all(tables, out)
"""


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f}"


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"bench_sweep: {' '.join(cmd[:4])} failed:\n{done.stderr[-3000:]}")
    return elapsed


def fig15(out: Path) -> str:
    table = pd.read_csv(out / "fig15_io_nodes.csv")
    means = table.groupby("io_nodes")["rel_makespan"].apply(
        lambda x: float(np.exp(np.log(x).mean())))
    return " / ".join(f"{v:.3f}" for v in means)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the CI subset")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=f"{REPO}{os.pathsep}"
                                      f"{os.environ.get('PYTHONPATH', '')}")
    spec = REPO / "campaigns" / ("ics2020-quick.toml" if args.quick else "ics2020.toml")
    times: dict[str, list[float]] = {"old": [], "sweep": []}
    with tempfile.TemporaryDirectory(prefix="bench_sweep.") as tmp:
        for k in range(args.repeat):
            old_out, new_out = Path(tmp) / f"old{k}", Path(tmp) / f"sweep{k}"
            old_out.mkdir()
            print(f"old   (run {k + 1}): {load()}", flush=True)
            times["old"].append(timed([sys.executable, "-c", OLD, str(old_out),
                                       str(args.workers), "1" if args.quick else "0"],
                                      env))
            print(f"      {times['old'][-1]:.1f} s", flush=True)
            print(f"sweep (run {k + 1}): {load()}", flush=True)
            times["sweep"].append(timed([sys.executable, "-m", "opt_sched.campaign",
                                         str(spec), "--out", str(new_out), "--workers",
                                         str(args.workers), "--quiet"], env))
            print(f"      {times['sweep'][-1]:.1f} s   ({load()})", flush=True)
        same = [p.name for p in sorted(old_out.glob("*.csv"))
                if p.read_bytes() == (new_out / p.name).read_bytes()]
        differ = [p.name for p in sorted(old_out.glob("*.csv")) if p.name not in same]
        old_best, new_best = min(times["old"]), min(times["sweep"])
        print()
        print(f"{'quick' if args.quick else 'full'} ICS 2020 campaign, "
              f"{args.workers} workers, {os.cpu_count()} cores")
        print(f"old process pool : {' '.join(f'{t:.1f}' for t in times['old'])} s")
        print(f"opt-sched sweep  : {' '.join(f'{t:.1f}' for t in times['sweep'])} s")
        print(f"sweep / old (best of each): {new_best / old_best:.3f}")
        print(f"Fig. 15 geomeans (1 / 3 / 5 I/O nodes): old {fig15(old_out)}, "
              f"sweep {fig15(new_out)}")
        print(f"CSV tables byte-identical: {len(same)}/{len(same) + len(differ)}"
              f"{'' if not differ else ' (differ: ' + ', '.join(differ) + ')'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
