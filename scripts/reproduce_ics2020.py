#!/usr/bin/env python
"""Regenerate the data behind the evaluation of seed 003 (ICS 2020).

    python scripts/reproduce_ics2020.py [--quick] [--out DIR] [--workers N] [--resume]

Runs the campaign ``campaigns/ics2020.toml`` (``--quick``:
``campaigns/ics2020-quick.toml``, 3 alpha_gen x 2 workloads, 2 batches)
with ``opt-sched sweep`` and its ``ics2020`` report: CSV tables and PNG
plots (Figs. 5-8, 10-12, 14, 15 and the gap to the lower bound) in
``--out``, with the results store ``results.sqlite``. Prints the summary
and the elapsed time. A folder that already holds results is continued
only with ``--resume`` (finished tasks are skipped). The same as

    opt-sched sweep campaigns/ics2020.toml --out DIR --workers N

See ``docs/reproduction-ics2020.md``, :mod:`opt_sched.campaign` and
:mod:`opt_sched.studies.ics2020.experiment`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import pandas as pd

from opt_sched.campaign import ResultStore, parse_spec, run_sweep
from opt_sched.campaign.executors.local import LocalExecutor
from opt_sched.campaign.spec import tomllib
from opt_sched.errors import UserError
from opt_sched.studies.ics2020.experiment import derive_tables
from opt_sched.studies.ics2020.report import raw_tables

CAMPAIGNS = Path(__file__).resolve().parents[1] / "campaigns"


def load(quick: bool, bounds: bool):
    path = CAMPAIGNS / ("ics2020-quick.toml" if quick else "ics2020.toml")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    if not bounds:
        for group in data["groups"]:
            group["metrics"] = [m for m in group.get("metrics", [])
                                if m != "lower_bound"]
    return parse_spec(data, base=path.parent, path=str(path))


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
    parser.add_argument("--resume", action="store_true",
                        help="continue a folder that already holds results")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    executor = LocalExecutor(args.workers)
    try:
        spec = load(args.quick, not args.no_bounds)
        result = run_sweep(spec, args.out, executor=executor, resume=args.resume)
    except UserError as err:
        print(f"reproduce_ics2020: error: {err}", file=sys.stderr)
        return 2
    finally:
        executor.close()
    with ResultStore(Path(args.out) / "results.sqlite") as store:
        tables = derive_tables(raw_tables(spec, store.rows()))
    elapsed = time.perf_counter() - start
    with pd.option_context("display.width", 200, "display.float_format",
                           "{:.3f}".format):
        print(tables["summary"].to_string(index=False))
        print()
        print(tables["fig14_node_time"].to_string(index=False))
    csvs = sum(p.suffix == ".csv" for p in result.files)
    pngs = sum(p.suffix == ".png" for p in result.files)
    print(f"\n{csvs} CSV and {pngs} PNG files in {args.out}/ ({result.ok} tasks ok, "
          f"{result.failed} failed, {result.skipped} finished before)")
    print(f"elapsed: {elapsed:.1f} s with {args.workers} worker(s)"
          f"{' (quick)' if args.quick else ''}")
    return 0 if result.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
