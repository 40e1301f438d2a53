#!/usr/bin/env python
"""Regenerate the data behind the evaluation of seed 003 (ICS 2020).

    python scripts/reproduce_ics2020.py [--quick] [--out DIR] [--workers N]

Writes CSV tables and PNG plots (Figs. 5-8, 10-12, 14, 15 and the gap to the
lower bound) into ``--out`` and prints the elapsed time. The full campaign
is alpha_gen in {0.5, 0.75, ..., 10} x 10 workloads plus the Tucan batches;
``--quick`` runs a small subset (3 alpha_gen x 2 workloads, 2 batches).
The runs are method specs of :mod:`opt_sched.methods` (listed on stderr at
the start); the tables keep the seed's labels (``make-pack(S=1)``, ``fifo``).
See ``docs/reproduction-ics2020.md`` and :mod:`opt_sched.experiments.ics2020`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import pandas as pd

from opt_sched.experiments.ics2020 import (
    QUICK,
    RUNS_MANY_NODES,
    RUNS_ONE_NODE,
    Campaign,
    derive_tables,
    plot_all,
    run_campaign,
    stderr_progress,
    write_tables,
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--quick", action="store_true",
                        help="small subset for CI (under a minute)")
    parser.add_argument("--out", default="results/ics2020",
                        help="output folder (default: results/ics2020)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="worker processes (default: every core)")
    parser.add_argument("--no-bounds", action="store_true",
                        help="skip the lower bounds (and the gap column)")
    args = parser.parse_args(argv)
    campaign = QUICK if args.quick else Campaign()
    if args.no_bounds:
        campaign = Campaign(campaign.alpha_gens, campaign.seeds, campaign.batches,
                            campaign.io_nodes, campaign.n_jobs, bounds=False)
    stderr_progress(f"runs on 1 I/O node: {', '.join(RUNS_ONE_NODE)}; on "
                    f"{', '.join(str(r) for r in campaign.io_nodes if r > 1)}: "
                    f"{', '.join(RUNS_MANY_NODES)}; Tucan: one-pack/<each policy>")
    start = time.perf_counter()
    raw = run_campaign(campaign, workers=args.workers, progress=stderr_progress)
    tables = derive_tables(raw)
    out = Path(args.out)
    csvs = write_tables(raw, tables, out)
    pngs = plot_all(tables, out)
    elapsed = time.perf_counter() - start
    with pd.option_context("display.width", 200, "display.float_format",
                           "{:.3f}".format):
        print(tables["summary"].to_string(index=False))
        print()
        print(tables["fig14_node_time"].to_string(index=False))
    print(f"\n{len(csvs)} CSV and {len(pngs)} PNG files in {out}/")
    print(f"elapsed: {elapsed:.1f} s with {args.workers} worker(s)"
          f"{' (quick)' if args.quick else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
