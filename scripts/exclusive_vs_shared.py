"""Exclusive against shared I/O (issue 12, item 6): do the conclusions of
seeds 003 and 000 change when concurrent I/O phases share the bandwidth?

    PYTHONPATH=. python scripts/exclusive_vs_shared.py --out results/exclusive-vs-shared

Two comparisons, each under three execution models (SPEC §10):
``exclusive`` (the seeds' model: one I/O phase at a time, FIFO), ``shared``
(equal shares of ``b``, each phase up to ``b``, no congestion) and
``shared+eta`` (the same with seed 001's congestion curve
``eta = 1:1,4:0.8,16:0.75``, :data:`opt_sched.workloads.goponenko.EXECUTION`).

- **Seed 003, Fig. 15**: Make-Pack (S = 1) against First-Fit, both placed by
  LPT on 1, 3 and 5 I/O nodes, FIFO, on a subset of the synthetic protocol
  (``alpha_gen`` in 1, 2, 4, 6, 8, 10; workload seeds 0-2: 18 workloads);
  per workload and number of I/O nodes the makespan ratio Make-Pack /
  First-Fit and the ratio of the mean pack max stretch; geometric means.
- **Seed 000, LS against packs**: I/O-aware list scheduling (``ls``) against
  pack scheduling with the Max order (and Char, non-increasing) on the
  Uniform family, BN profile, ``alpha`` 0.2 / 0.5 / 0.8, workload seeds 0-2,
  and on one Mira workload (``alpha`` 0.5, seed 0; Mira's pack replays are
  slow, ~40 s each), through :func:`opt_sched.studies.ijhpca2023.experiment.run_point`;
  the makespan and mean stretch ratios pack / LS.

Why a script and not a campaign: seed 000's generator is not a campaign
source on this branch, and both halves print one table.

Writes ``seed003.csv``, ``seed000.csv`` and ``summary.md`` into ``--out``
(atomically) and prints the summary.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from opt_sched import Platform, methods
from opt_sched.execution import ExecutionSpec
from opt_sched.files import atomic_write_csv, atomic_write_text
from opt_sched.metrics import summary
from opt_sched.validation import assert_feasible
from opt_sched.workloads import generate_ics2020

ETA = "1:1,4:0.8,16:0.75"
MODELS = {"exclusive": ExecutionSpec(), "shared": ExecutionSpec("shared"),
          "shared+eta": ExecutionSpec("shared", eta=ETA)}
ALPHA_GENS = (1.0, 2.0, 4.0, 6.0, 8.0, 10.0)
SEEDS = (0, 1, 2)
IO_NODES = (1, 3, 5)
PACK_RUNS = ("first-fit+lpt/fifo", "make-pack(S=1)+lpt/fifo")


def geomean(values) -> float:
    values = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else math.nan


def seed003(log) -> pd.DataFrame:
    rows = []
    for alpha_gen in ALPHA_GENS:
        for seed in SEEDS:
            base = generate_ics2020(alpha_gen, seed)
            for r in IO_NODES:
                inst = base if r == 1 else base.replace(
                    platform=Platform.homogeneous(r, nodes=2048, bandwidth=1.0),
                    name=base.name.replace("-r1", f"-r{r}"))
                for model, spec in MODELS.items():
                    for text in PACK_RUNS:
                        t0 = time.perf_counter()
                        method = methods.method(text)
                        schedule = method.run(inst, execution=spec)
                        assert_feasible(inst, schedule)
                        m = summary(inst, schedule)
                        rows.append({
                            "alpha_gen": alpha_gen, "seed": seed,
                            "alpha": float(base.io_load()), "io_nodes": r,
                            "model": model, "heuristic": method.head,
                            "makespan": float(m["makespan"]),
                            "mean_pack_max_stretch": float(m["mean_pack_max_stretch"]),
                            "seconds": time.perf_counter() - t0})
            log(f"seed 003: alpha_gen={alpha_gen:g} seed={seed} done")
    return pd.DataFrame(rows)


def seed000(log) -> pd.DataFrame:
    from opt_sched.studies.ijhpca2023.experiment import run_point

    points = [("uniform", a, s, st) for a in (0.2, 0.5, 0.8) for s in SEEDS
              for st in ("ls", "max", "char-dec")]
    points += [("mira", 0.5, 0, st) for st in ("ls", "max")]
    rows = []
    for family, alpha, seed, strategy in points:
        for model, spec in MODELS.items():
            execution = spec.model if not spec.options else spec.build("fifo")
            row = run_point(family, "bn", alpha, seed, strategy, execution=execution)
            row["model"] = model
            row["execution"] = spec.label
            rows.append(row)
        log(f"seed 000: {family} alpha={alpha:g} seed={seed} {strategy} done")
    return pd.DataFrame(rows)


def ratios003(table: pd.DataFrame) -> pd.DataFrame:
    key = ["alpha_gen", "seed", "io_nodes", "model"]
    wide = table.pivot_table(index=key, columns="heuristic",
                             values=["makespan", "mean_pack_max_stretch"])
    out = []
    for (r, model), g in wide.groupby(level=["io_nodes", "model"]):
        mk = g[("makespan", "make-pack(S=1)")] / g[("makespan", "first-fit")]
        st = (g[("mean_pack_max_stretch", "make-pack(S=1)")]
              / g[("mean_pack_max_stretch", "first-fit")])
        out.append({"io_nodes": r, "model": model, "workloads": len(g),
                    "makespan_ratio_geomean": geomean(mk),
                    "makespan_ratio_min": float(mk.min()),
                    "makespan_ratio_max": float(mk.max()),
                    "make_pack_faster_share": float((mk < 1).mean()),
                    "stretch_ratio_geomean": geomean(st)})
    return pd.DataFrame(out)


def ratios000(table: pd.DataFrame) -> pd.DataFrame:
    key = ["family", "alpha", "seed", "model"]
    wide = table.pivot_table(index=key, columns="strategy",
                             values=["makespan", "mean_stretch"])
    out = []
    for (family, alpha, model), g in wide.groupby(level=["family", "alpha", "model"]):
        rec = {"family": family, "alpha": alpha, "model": model, "workloads": len(g)}
        for strategy in ("max", "char-dec"):
            if ("makespan", strategy) in g:
                rec[f"{strategy}/ls makespan"] = geomean(
                    g[("makespan", strategy)] / g[("makespan", "ls")])
                rec[f"{strategy}/ls stretch"] = geomean(
                    g[("mean_stretch", strategy)] / g[("mean_stretch", "ls")])
        out.append(rec)
    return pd.DataFrame(out)


def markdown(frame: pd.DataFrame) -> str:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in frame.iterrows():
        lines.append("| " + " | ".join(f"{v:.3f}" if isinstance(v, float) else str(v)
                                       for v in r) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("results/exclusive-vs-shared"))
    parser.add_argument("--only", choices=("seed003", "seed000"), default=None)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    parts = []
    t0 = time.perf_counter()
    if args.only in (None, "seed003"):
        raw = seed003(log)
        atomic_write_csv(raw, args.out / "seed003.csv")
        parts.append("## Seed 003, Fig. 15: Make-Pack (S=1) / First-Fit, LPT, FIFO\n\n"
                     + markdown(ratios003(raw)))
    if args.only in (None, "seed000"):
        raw = seed000(log)
        atomic_write_csv(raw.drop(columns=[c for c in raw.columns
                                           if c.startswith("curve_")]),
                         args.out / "seed000.csv")
        parts.append("## Seed 000: packs / LS (BN profile)\n\n"
                     + markdown(ratios000(raw)))
    text = "\n".join(parts) + f"\n{time.perf_counter() - t0:.0f} s\n"
    name = "summary.md" if args.only is None else f"summary-{args.only}.md"
    atomic_write_text(args.out / name, text)
    print(text)
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
