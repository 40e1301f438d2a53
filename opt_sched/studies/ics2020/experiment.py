"""Reproduction of the evaluation of seed 003 (ICS 2020), §6.

Two campaigns, each a set of independent tasks run on a process pool:

**Tucan (Figs. 5-8).** The workload of Table 1 (:func:`tucan_workload`) at
each iteration batch, every job on one I/O node as one pack
(``one-pack/<policy>``), under each of the eight I/O policies of seed 003.
Per (batch, policy): makespan, max stretch, and both relative to FIFO; per
application: its stretch (Fig. 7).

**Synthetic (Figs. 10-15).** For each ``alpha_gen`` and seed, one workload of
the §6.2.2 protocol (:func:`generate_ics2020`) and these validated runs:

=====================================  =========  =========
method spec (:mod:`opt_sched.methods`)  I/O nodes  figures
=====================================  =========  =========
first-fit+lpt/fifo (baseline)           1, 3, 5    all
make-pack(S=1)+lpt/fifo                 1, 3, 5    10-15
make-pack(S=alpha)+lpt/fifo             1          10-14
make-pack(S=1)+lpt/longest-remaining    1          10-12
=====================================  =========  =========

The tables label a run by the seed's names: ``heuristic`` is the method
part of the spec (``make-pack(S=1)``) and ``policy`` its I/O policy.

With ``R > 1`` the packs are placed by LPT (§6.2.4). Each row also carries
the best makespan lower bound of the workload on ``R`` I/O nodes and the gap
``(C_max - L) / L`` — the measure the seed could not give.

Derived tables (:func:`derive_tables`), per workload and relative to the
First-Fit + FIFO run of the same workload and ``R``: relative makespan (Fig.
10), relative mean over packs of the pack's max stretch (Fig. 11, the seed's
footnote 4), ratio of pack counts (Fig. 12), the measured makespan over the
contention-free one the plan predicts (Fig. 13, :func:`predicted_makespan`;
not normalised), exec / delay / idle node-time
divided by First-Fit's total node-time ``N C_max`` (Fig. 14: First-Fit's bar
sums to 1), and the relative makespan of make-pack(S=1) on 1, 3, 5 I/O nodes
with its geometric mean (Fig. 15).
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from opt_sched.files import atomic_write_csv
from opt_sched.heuristics.pack_plan import predicted_makespan
from opt_sched.instance import Instance, Platform
from opt_sched.plot.pyplot import pyplot, save_figure

__all__ = [
    "FULL_ALPHA_GENS",
    "FULL_SEEDS",
    "IO_NODES",
    "QUICK",
    "TUCAN_BATCHES",
    "Campaign",
    "derive_tables",
    "plot_all",
    "predicted_makespan",
    "raw_frames",
    "run_campaign",
    "stderr_progress",
    "synthetic_task",
    "tucan_task",
    "write_tables",
]

FULL_ALPHA_GENS = tuple(0.5 + 0.25 * k for k in range(39))
"""``alpha_gen`` in {0.5, 0.75, ..., 10} (seed 003 §6.2.2)."""

FULL_SEEDS = tuple(range(10))
"""Ten workloads per ``alpha_gen``."""

TUCAN_BATCHES = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
"""Iteration batches for Figs. 5-8 (the seed mentions batches up to 64)."""

IO_NODES = (1, 3, 5)

BASELINE = "first-fit"
"""The label (:attr:`~opt_sched.methods.Method.head`) every run is divided by."""
RUNS_ONE_NODE = ("first-fit+lpt/fifo", "make-pack(S=1)+lpt/fifo",
                 "make-pack(S=alpha)+lpt/fifo", "make-pack(S=1)+lpt/longest-remaining")
"""Method specs (:mod:`opt_sched.methods`) run on one I/O node."""
RUNS_MANY_NODES = ("first-fit+lpt/fifo", "make-pack(S=1)+lpt/fifo")
"""Method specs run on 3 and 5 I/O nodes (LPT over every partition)."""


@dataclass(frozen=True)
class Campaign:
    """What to run. :data:`QUICK` is the CI subset."""

    alpha_gens: tuple[float, ...] = FULL_ALPHA_GENS
    seeds: tuple[int, ...] = FULL_SEEDS
    batches: tuple[float, ...] = TUCAN_BATCHES
    io_nodes: tuple[int, ...] = IO_NODES
    n_jobs: int | None = None
    bounds: bool = True


QUICK = Campaign(alpha_gens=(1.0, 4.0, 8.0), seeds=(0, 1), batches=(1.0, 4.0))


def _measure(instance: Instance, schedule) -> dict[str, float]:
    from opt_sched.metrics import summary
    from opt_sched.validation import assert_feasible

    assert_feasible(instance, schedule)
    m = summary(instance, schedule)
    return {"makespan": float(m["makespan"]), "max_stretch": float(m["max_stretch"]),
            "mean_pack_max_stretch": float(m["mean_pack_max_stretch"]),
            "num_packs": int(m["num_packs"]), "exec": float(m["exec_node_time"]),
            "delay": float(m["delay_node_time"]), "idle": float(m["idle_node_time"])}


def synthetic_task(alpha_gen: float, seed: int, io_nodes: Sequence[int] = IO_NODES,
                   n_jobs: int | None = None, bounds: bool = True
                   ) -> list[dict[str, object]]:
    """All runs of one synthetic workload (module table); one row per run.

    ``heuristic`` is the method's label in the seed (its
    :attr:`~opt_sched.methods.Method.head`, e.g. ``make-pack(S=1)``),
    ``policy`` its I/O policy and ``sensibility`` the ``S`` it used.
    """
    from opt_sched import methods
    from opt_sched.bounds import lower_bound
    from opt_sched.objectives import gap_or_nan
    from opt_sched.workloads import generate_ics2020

    base = generate_ics2020(alpha_gen, seed, n_jobs=n_jobs)
    alpha = base.io_load()
    rows = []
    for r in io_nodes:
        instance = base if r == 1 else base.replace(
            platform=Platform.homogeneous(r, nodes=2048, bandwidth=1.0),
            name=base.name.replace("-r1", f"-r{r}"))
        bound = lower_bound(instance, "makespan") if bounds else math.nan
        for spec in RUNS_ONE_NODE if r == 1 else RUNS_MANY_NODES:
            method = methods.method(spec)
            schedule = method.run(instance)
            row = {"alpha_gen": alpha_gen, "seed": seed, "alpha": alpha,
                   "n_jobs": base.num_jobs, "io_nodes": r, "heuristic": method.head,
                   "policy": method.policy,
                   "sensibility": method.effective(instance)["sensibility"]}
            row.update(_measure(instance, schedule))
            row["predicted_makespan"] = predicted_makespan(instance, schedule.packs)
            row["lower_bound"] = bound
            row["gap"] = gap_or_nan(row["makespan"], bound)
            rows.append(row)
    return rows


def tucan_task(batch: float, bounds: bool = True
               ) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """Every policy on the Tucan workload at ``batch``: ``one-pack/<policy>``.

    Returns ``(rows, app_rows)``: one row per policy, and one per policy x
    application with its stretch.
    """
    from opt_sched import methods
    from opt_sched.bounds import lower_bound
    from opt_sched.objectives import gap_or_nan
    from opt_sched.simulation import POLICY_NAMES
    from opt_sched.workloads import tucan_workload

    instance = tucan_workload(batch)
    bound = lower_bound(instance, "makespan") if bounds else math.nan
    rows, apps = [], []
    for policy in POLICY_NAMES:  # seed 003's eight, not later registrations
        schedule = methods.method(f"one-pack/{policy}").run(instance)
        row = {"batch": batch, "policy": policy}
        row.update(_measure(instance, schedule))
        row["lower_bound"] = bound
        row["gap"] = gap_or_nan(row["makespan"], bound)
        rows.append(row)
        for app, stretch in schedule.stretches(instance).items():
            apps.append({"batch": batch, "policy": policy, "app": app,
                         "stretch": stretch})
    return rows, apps


def _run(tasks: list[tuple[str, Callable, tuple]], workers: int,
         progress: Callable[[str], None] | None) -> dict[str, list]:
    """Run ``(kind, fn, args)`` tasks; results grouped by kind, in task order."""
    results: dict[int, object] = {}
    start = time.perf_counter()

    def report(done: int, what: str) -> None:
        if progress is None:
            return
        elapsed = time.perf_counter() - start
        eta = elapsed / done * (len(tasks) - done)
        progress(f"[{done}/{len(tasks)}] {what}  {elapsed:.0f}s elapsed, "
                 f"~{eta:.0f}s left")

    if workers <= 1:
        for n, (kind, fn, args) in enumerate(tasks):
            results[n] = fn(*args)
            report(n + 1, f"{kind}{args[:2]}")
    else:
        from ...worker_processes import worker_context

        with ProcessPoolExecutor(max_workers=workers,
                                 mp_context=worker_context()) as pool:
            futures = {pool.submit(fn, *args): n
                       for n, (kind, fn, args) in enumerate(tasks)}
            for done, future in enumerate(as_completed(futures), start=1):
                n = futures[future]
                results[n] = future.result()
                report(done, f"{tasks[n][0]}{tasks[n][2][:2]}")
    grouped: dict[str, list] = {}
    for n, (kind, _, _) in enumerate(tasks):
        grouped.setdefault(kind, []).append(results[n])
    return grouped


def run_campaign(campaign: Campaign = QUICK, *, workers: int | None = None,
                 progress: Callable[[str], None] | None = None
                 ) -> dict[str, pd.DataFrame]:
    """Run both campaigns; return the raw tables ``synthetic``, ``tucan`` and
    ``tucan_apps`` (see :func:`derive_tables` for the figure tables).

    ``workers`` defaults to every core; 1 runs in this process. Tasks are
    submitted longest first (large batches, then synthetic workloads).
    """
    if workers is None:
        workers = os.cpu_count() or 1
    tasks: list[tuple[str, Callable, tuple]] = []
    for batch in sorted(campaign.batches, reverse=True):
        tasks.append(("tucan", tucan_task, (batch, campaign.bounds)))
    for alpha_gen in campaign.alpha_gens:
        for seed in campaign.seeds:
            tasks.append(("synthetic", synthetic_task,
                          (alpha_gen, seed, campaign.io_nodes, campaign.n_jobs,
                           campaign.bounds)))
    grouped = _run(tasks, workers, progress)
    synthetic = [row for rows in grouped.get("synthetic", []) for row in rows]
    tucan = [row for rows, _ in grouped.get("tucan", []) for row in rows]
    apps = [row for _, rows in grouped.get("tucan", []) for row in rows]
    return raw_frames(synthetic, tucan, apps)


def raw_frames(synthetic: list[dict], tucan: list[dict], apps: list[dict]
               ) -> dict[str, pd.DataFrame]:
    """The raw tables of a run from their rows: ``synthetic``, ``tucan``
    (sorted by batch, then policy) and ``tucan_apps``."""
    return {
        "synthetic": pd.DataFrame(synthetic),
        "tucan": pd.DataFrame(tucan).sort_values(["batch", "policy"],
                                                 ignore_index=True)
        if tucan else pd.DataFrame(),
        "tucan_apps": pd.DataFrame(apps),
    }


def _geomean(values: Iterable[float]) -> float:
    arr = np.asarray(list(values), dtype=float)
    return float(np.exp(np.log(arr).mean())) if len(arr) else math.nan


def derive_tables(raw: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """The per-figure tables from the raw ones (see the module docstring)."""
    out: dict[str, pd.DataFrame] = {}
    tucan = raw.get("tucan")
    if tucan is not None and not tucan.empty:
        fifo = tucan[tucan["policy"] == "fifo"].set_index("batch")
        t = tucan.copy()
        t["rel_makespan"] = t["makespan"] / t["batch"].map(fifo["makespan"])
        t["rel_max_stretch"] = t["max_stretch"] / t["batch"].map(fifo["max_stretch"])
        out["fig5_8_tucan"] = t
        out["fig7_tucan_apps"] = raw["tucan_apps"]
    syn = raw.get("synthetic")
    if syn is None or syn.empty:
        return out
    key = ["alpha_gen", "seed", "io_nodes"]
    base = syn[(syn["heuristic"] == BASELINE) & (syn["policy"] == "fifo")]
    base = base.set_index(key)
    rel = syn.join(base[["makespan", "mean_pack_max_stretch", "max_stretch",
                         "num_packs"]].add_prefix("ff_"), on=key)
    rel["rel_makespan"] = rel["makespan"] / rel["ff_makespan"]
    rel["rel_mean_pack_max_stretch"] = (rel["mean_pack_max_stretch"]
                                        / rel["ff_mean_pack_max_stretch"])
    rel["rel_max_stretch"] = rel["max_stretch"] / rel["ff_max_stretch"]
    rel["pack_ratio"] = rel["num_packs"] / rel["ff_num_packs"]
    rel["robustness"] = rel["makespan"] / rel["predicted_makespan"]
    total_ff = rel["ff_makespan"] * 2048 * rel["io_nodes"]
    for part in ("exec", "delay", "idle"):
        rel[f"{part}_norm"] = rel[part] / total_ff
    one = rel[rel["io_nodes"] == 1]
    out["fig10_12_relative"] = one[
        ["alpha_gen", "seed", "alpha", "n_jobs", "heuristic", "policy", "sensibility",
         "rel_makespan", "rel_mean_pack_max_stretch", "rel_max_stretch", "pack_ratio",
         "num_packs", "robustness", "gap"]].reset_index(drop=True)
    fig14 = one[one["policy"] == "fifo"].groupby("heuristic", sort=False)[
        ["exec_norm", "delay_norm", "idle_norm", "rel_makespan"]].mean()
    out["fig14_node_time"] = fig14.reset_index()
    mp = rel[(rel["heuristic"] == "make-pack(S=1)") & (rel["policy"] == "fifo")]
    out["fig15_io_nodes"] = mp[["alpha_gen", "seed", "alpha", "io_nodes",
                                "rel_makespan", "gap"]].reset_index(drop=True)
    summary_rows = []
    for (label, policy), group in one.groupby(["heuristic", "policy"], sort=False):
        summary_rows.append({
            "io_nodes": 1, "heuristic": label, "policy": policy,
            "workloads": len(group),
            "mean_rel_makespan": group["rel_makespan"].mean(),
            "geomean_rel_makespan": _geomean(group["rel_makespan"]),
            "geomean_rel_mean_pack_max_stretch": _geomean(
                group["rel_mean_pack_max_stretch"]),
            "mean_pack_ratio": group["pack_ratio"].mean(),
            "median_robustness": group["robustness"].median(),
            "max_robustness": group["robustness"].max(),
            "mean_gap": group["gap"].mean(), "median_gap": group["gap"].median(),
            "max_gap": group["gap"].max()})
    for r, group in rel[rel["policy"] == "fifo"].groupby("io_nodes"):
        if r == 1:
            continue
        for label, g in group.groupby("heuristic", sort=False):
            summary_rows.append({
                "io_nodes": r, "heuristic": label, "policy": "fifo",
                "workloads": len(g), "mean_rel_makespan": g["rel_makespan"].mean(),
                "geomean_rel_makespan": _geomean(g["rel_makespan"]),
                "geomean_rel_mean_pack_max_stretch": _geomean(
                    g["rel_mean_pack_max_stretch"]),
                "mean_pack_ratio": g["pack_ratio"].mean(),
                "median_robustness": g["robustness"].median(),
                "max_robustness": g["robustness"].max(),
                "mean_gap": g["gap"].mean(), "median_gap": g["gap"].median(),
                "max_gap": g["gap"].max()})
    out["summary"] = pd.DataFrame(summary_rows)
    return out


def plot_all(tables: dict[str, pd.DataFrame], out: Path) -> list[Path]:
    """One PNG per figure (matplotlib, Agg backend) into ``out``."""
    plt = pyplot()

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def save(fig, name: str) -> None:
        path = out / name
        fig.tight_layout()
        written.append(save_figure(fig, path))

    t = tables.get("fig5_8_tucan")
    if t is not None:
        for column, name, title in (
                ("max_stretch", "fig5_tucan_max_stretch.png", "Max stretch"),
                ("rel_makespan", "fig6_8_tucan_rel_makespan.png",
                 "Makespan relative to FIFO")):
            fig, ax = plt.subplots(figsize=(7, 4.5))
            for policy, g in t.groupby("policy", sort=False):
                ax.plot(g["batch"], g[column], marker="o", label=policy)
            ax.set_xscale("log", base=2)
            ax.set_xlabel("iteration batch")
            ax.set_ylabel(title)
            ax.set_title(f"Tucan workload: {title.lower()} (seed 003 Fig. "
                         f"{'5' if column == 'max_stretch' else '6/8'})")
            ax.legend(fontsize=7)
            save(fig, name)
        apps = tables["fig7_tucan_apps"]
        last = apps[apps["batch"] == apps["batch"].max()]
        pivot = last.pivot(index="policy", columns="app", values="stretch")
        fig, ax = plt.subplots(figsize=(8, 4.5))
        pivot.plot.bar(ax=ax)
        ax.set_ylabel("stretch")
        ax.set_title(f"Tucan: stretch per application, batch "
                     f"{apps['batch'].max():g} (seed 003 Fig. 7)")
        save(fig, "fig7_tucan_app_stretch.png")
    rel = tables.get("fig10_12_relative")
    if rel is not None:
        runs = rel[rel["heuristic"] != BASELINE]
        for column, name, label in (
                ("rel_makespan", "fig10_rel_makespan.png",
                 "makespan / First-Fit (Fig. 10)"),
                ("rel_mean_pack_max_stretch", "fig11_rel_stretch.png",
                 "mean pack max stretch / First-Fit (Fig. 11)"),
                ("pack_ratio", "fig12_pack_ratio.png",
                 "packs / First-Fit packs (Fig. 12)"),
                ("robustness", "fig13_robustness.png",
                 "makespan / contention-free prediction (Fig. 13)"),
                ("gap", "extra_gap_to_lower_bound.png",
                 "(makespan - LB) / LB, one I/O node")):
            fig, ax = plt.subplots(figsize=(7, 4.5))
            data = rel if column in ("gap", "robustness") else runs
            for (h, p), g in data.groupby(["heuristic", "policy"], sort=False):
                ax.scatter(g["alpha"], g[column], s=9, label=f"{h} / {p}")
            ax.set_xlabel("actual I/O load alpha (eq. 6)")
            ax.set_ylabel(label)
            if column != "gap":
                ax.axhline(1.0, color="grey", lw=0.8)
            if column in ("rel_mean_pack_max_stretch", "robustness"):
                ax.set_yscale("log")
            ax.legend(fontsize=7)
            save(fig, name)
    fig14 = tables.get("fig14_node_time")
    if fig14 is not None:
        fig, ax = plt.subplots(figsize=(6, 4.5))
        bottom = np.zeros(len(fig14))
        for part in ("exec_norm", "delay_norm", "idle_norm"):
            ax.bar(fig14["heuristic"], fig14[part], bottom=bottom,
                   label=part.replace("_norm", ""))
            bottom += fig14[part].to_numpy()
        ax.set_ylabel("node-time / First-Fit node-time (mean)")
        ax.set_title("Exec / delay / idle (seed 003 Fig. 14)")
        ax.legend()
        save(fig, "fig14_node_time.png")
    f15 = tables.get("fig15_io_nodes")
    if f15 is not None:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for r, g in f15.groupby("io_nodes"):
            ax.scatter(g["alpha"], g["rel_makespan"], s=9,
                       label=f"{r} I/O node(s), geomean "
                             f"{_geomean(g['rel_makespan']):.2f}")
        ax.axhline(1.0, color="grey", lw=0.8)
        ax.set_xlabel("actual I/O load alpha (eq. 6)")
        ax.set_ylabel("makespan make-pack(S=1) / First-Fit")
        ax.set_title("Multiple I/O nodes, LPT (seed 003 Fig. 15)")
        ax.legend(fontsize=8)
        save(fig, "fig15_io_nodes.png")
    return written


def write_tables(raw: dict[str, pd.DataFrame], tables: dict[str, pd.DataFrame],
                 out: Path) -> list[Path]:
    """Every raw and derived table as ``<name>.csv`` in ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, table in {**{f"raw_{k}": v for k, v in raw.items()}, **tables}.items():
        written.append(atomic_write_csv(table, out / f"{name}.csv"))
    return written


def stderr_progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
