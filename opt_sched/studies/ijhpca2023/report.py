"""The seed 000 (IJHPCA 2023) report: its figures and the certified gaps,
from a campaign's rows (``campaigns/ijhpca2023.toml``).

Input: the successful tasks of generator ``ijhpca2023`` whose method is one
of the strategies (:data:`~opt_sched.studies.ijhpca2023.experiment.STRATEGY_SPECS`:
LS, Random, Max, Char-dec, Char-inc). A task with ``copy_jobs`` /
``copy_iterations`` ran on a down-scaled copy; the others on the workload.

Outputs (each figure as PNG *and* CSV, every file written atomically):

``points.csv``
    One row per task: the draw, the strategy, makespan, max and mean
    stretch, idle ratio ``1 - allocation`` (seed 000: "the cumulated
    processor-time of non-allocated resources over the total processor-time
    of the execution"), utilisation (node-time computing or doing I/O over
    ``P C_max``), the combinatorial bound and its gap.
``fig4_utilisation_mira`` / ``fig5_utilisation_uniform``
    Utilisation over normalised time ``t / C_max`` (100 bins), the mean over
    the workloads (seeds) of each (profile, alpha, strategy) -- "each trace
    presents the average of ten executions".
``fig6_max_stretch`` / ``fig7_mean_stretch``
    Max and mean stretch against alpha, per family: every run as a point,
    the mean with a 95 % confidence interval (Student t) as a line.
``fig8_usage_a<alpha>``
    M-BN and M-No: running applications, share of processors allocated and
    share of time the I/O node is busy ("bandwidth used": one transfer at a
    time at full ``B``), over normalised time, mean over the workloads.
``fig9_stretch_vs_idle``
    M-BN and M-No: mean stretch against idle ratio, one point per run,
    coloured by its utilisation ("final average occupation"), with each
    strategy's mean and 95 % interval.
``gaps_full.csv``, ``gaps_copies.csv``, ``gap_table.csv``
    Certified gaps (:mod:`opt_sched.studies.ijhpca2023.experiment` states what
    each bound certifies): on every workload, ``(C_max - L) / L`` with ``L``
    the best proven bound (combinatorial, or the CP-SAT bound of the
    workload's prefix copy, a relaxation); on every copy, each strategy's
    makespan against the copy's CP-SAT bound.
``summary_table.csv`` / ``.md``
    Per family, at alpha 0.2, 0.5 and 0.8: mean stretch, idle ratio and the
    median certified gap of each strategy.
``steady_state.csv``, ``fig8_trends.csv``
    The numbers behind the seed's directional claims (utilisation in the
    middle of the run; usage in the first and last thirds).
``rejections.csv``
    Rejected draws per (family, profile, variant, alpha) (the generator's
    rule, :mod:`opt_sched.workloads.ijhpca2023`).

Curves and rejections are not in the rows (rows are flat): the report
*re-runs* the draws -- regenerates each workload (cheap, deterministic) and,
for the curves, replays each strategy through the same registry method as the
task did, in a pool of local processes. Each replay must give the stored
makespan exactly (the runs are deterministic), else the report stops with an
:class:`~opt_sched.errors.InternalError`. Curves are drawn for the
calibrated variant (the one the experiments use) at every alpha of the
campaign.

CP-SAT runs on each distinct copy once, under the copy tasks' ``time_limit``
(:data:`DEFAULT_COPY_TIME_LIMIT` when they set none), and its results are
kept in ``cpsat_copies.csv`` of the output folder, so a ``--resume`` does
not solve again. Its bound depends on the time limit and the machine's
load; it is proven either way.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from opt_sched.errors import InternalError
from opt_sched.files import atomic_path
from opt_sched.files import atomic_write_csv as write_csv
from opt_sched.objectives import gap_or_nan
from opt_sched.studies.ijhpca2023.claims import claims_table
from opt_sched.studies.ijhpca2023.common import (
    CURVES,
    DRAW,
    FAMILY_LABELS,
    FAMILY_ORDER,
    STRATEGY_LABELS,
    SUMMARY_ALPHAS,
)
from opt_sched.studies.ijhpca2023.figures import (
    fig_idle,
    fig_stretch,
    fig_usage,
    fig_utilisation,
    mean_curves,
)

__all__ = ["DEFAULT_COPY_TIME_LIMIT", "points_table", "write_report"]

DEFAULT_COPY_TIME_LIMIT = 10.0
"""Seconds of CP-SAT per copy when the copy tasks set no ``time_limit``."""

# -- the points ------------------------------------------------------------------
@lru_cache(maxsize=256)
def _strategy(method: str) -> str | None:
    from opt_sched.studies.ijhpca2023.experiment import strategy_of

    try:
        return strategy_of(method)
    except Exception:  # a method of another study in the same campaign
        return None


def points_table(spec: Any, rows: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """One row per successful seed-000 task (see the module docstring)."""
    records = []
    for task in spec.tasks:
        if task.source.generator != "ijhpca2023":
            continue
        row = rows.get(task.key)
        strategy = _strategy(task.method)
        if row is None or row["status"] != "ok" or strategy is None:
            continue
        m = row["metrics"]
        p = dict(task.source.params)
        copy = p["copy_jobs"] is not None or p["copy_iterations"] is not None
        records.append({
            "group": task.group, "family": p["family"], "profile": p["profile"],
            "label": FAMILY_LABELS[(p["family"], p["profile"])],
            "alpha": p["alpha"], "seed": p["seed"], "variant": p["variant"],
            "jobs": p["jobs"], "copy": copy,
            "copy_jobs": p["copy_jobs"], "copy_iterations": p["copy_iterations"],
            "strategy": strategy, "method": task.method, "method_seed": task.seed,
            "time_limit": task.limits.time_limit,
            "alpha_realised": m["io_load_alpha"], "makespan": m["makespan"],
            "max_stretch": m["max_stretch"], "mean_stretch": m["mean_stretch"],
            "idle_ratio": 1.0 - m["allocation"], "utilisation": m["utilisation"],
            "io_occupancy": m["io_occupancy"],
            "lower_bound": m.get("lower_bound", math.nan),
            "gap": m.get("gap", math.nan)})
    columns = ["group", "family", "profile", "label", "alpha", "seed", "variant",
               "jobs", "copy", "copy_jobs", "copy_iterations", "strategy", "method",
               "method_seed", "time_limit", "alpha_realised", "makespan",
               "max_stretch", "mean_stretch", "idle_ratio", "utilisation",
               "io_occupancy", "lower_bound", "gap"]
    table = pd.DataFrame.from_records(records, columns=columns)
    return table.drop_duplicates(["family", "profile", "alpha", "seed", "variant",
                                  "jobs", "copy_jobs", "copy_iterations", "strategy"],
                                 ignore_index=True)


# -- re-running draws: rejections and curves ---------------------------------------
def _draw_task(item: tuple[dict[str, Any], list[tuple[str, str, int]]]
               ) -> dict[str, Any]:
    """Regenerate one workload; replay ``runs`` (strategy, spec, method seed)
    and return their makespans and usage curves (a pool worker)."""
    from opt_sched import methods
    from opt_sched.studies.ijhpca2023.experiment import usage_curves
    from opt_sched.workloads.ijhpca2023 import generate_ijhpca2023

    params, runs = item
    gen = generate_ijhpca2023(params["family"], params["profile"], params["alpha"],
                              params["seed"], jobs=params["jobs"],
                              variant=params["variant"])
    out: dict[str, Any] = {"rejected": gen.rejected, "bandwidth": gen.bandwidth,
                           "runs": {}}
    for strategy, spec, seed in runs:
        schedule = methods.method(spec).run(gen.instance, seed=seed)
        out["runs"][strategy] = (float(schedule.makespan(gen.instance)),
                                 usage_curves(gen.instance, schedule))
    return out


def _pool_map(function: Any, items: list[Any]) -> list[Any]:
    """``function`` over ``items`` in local processes (in this one when
    there are few items or one core)."""
    workers = min(os.cpu_count() or 1, len(items))
    if workers <= 1 or len(items) < 4:
        return [function(item) for item in items]
    from concurrent.futures import ProcessPoolExecutor

    from ...worker_processes import worker_context

    with ProcessPoolExecutor(max_workers=workers, mp_context=worker_context()) as pool:
        chunk = max(1, len(items) // (8 * workers))
        return list(pool.map(function, items, chunksize=chunk))


def rerun_draws(points: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rejections of every full-size draw, and the curves of the calibrated
    ones (one row per run and bin); see the module docstring.

    Raises
    ------
    InternalError
        A replay's makespan differs from the stored one.
    """
    full = points[~points["copy"]]
    items, keys = [], []
    for key, g in full.groupby(list(DRAW), sort=True):
        params = dict(zip(DRAW, key))
        runs = ([(r.strategy, r.method, int(r.method_seed)) for r in g.itertuples()]
                if params["variant"] == "calibrated" else [])
        items.append((params, runs))
        keys.append((key, g))
    results = _pool_map(_draw_task, items)
    rejections, curves = [], []
    for (key, g), result in zip(keys, results):
        params = dict(zip(DRAW, key))
        rejections.append({**params, "rejected": result["rejected"],
                           "bandwidth": result["bandwidth"]})
        stored = dict(zip(g["strategy"], g["makespan"]))
        for strategy, (makespan, curve) in result["runs"].items():
            if not math.isclose(makespan, stored[strategy], rel_tol=1e-12):
                raise InternalError(
                    f"ijhpca2023 report: replaying {strategy} on {params} gives "
                    f"makespan {makespan!r}, the campaign stored "
                    f"{stored[strategy]!r} (the run is not deterministic)")
            bins = len(curve["curve_utilisation"])
            frame = pd.DataFrame({name.removeprefix("curve_"): curve[name]
                                  for name in CURVES})
            frame.insert(0, "t", (np.arange(bins) + 0.5) / bins)
            for k, v in {**params, "strategy": strategy}.items():
                frame.insert(0, k, v)
            curves.append(frame)
    curve_table = (pd.concat(curves, ignore_index=True) if curves
                   else pd.DataFrame(columns=[*DRAW, "strategy", "t",
                                              *(c.removeprefix("curve_")
                                                for c in CURVES)]))
    return pd.DataFrame(rejections), curve_table


# -- CP-SAT on the copies -----------------------------------------------------------
COPY_KEY = ("family", "profile", "alpha", "seed", "variant", "jobs", "copy_jobs",
            "copy_iterations", "time_limit")


def solve_copies(points: pd.DataFrame, cache: Path) -> pd.DataFrame:
    """CP-SAT on each distinct copy of ``points`` (cached in ``cache``)."""
    from opt_sched.studies.ijhpca2023.experiment import certify_copy, prefix_copy
    from opt_sched.workloads.ijhpca2023 import generate_ijhpca2023

    copies = points[points["copy"]].copy()
    copies["time_limit"] = copies["time_limit"].fillna(DEFAULT_COPY_TIME_LIMIT)
    wanted = copies.drop_duplicates(list(COPY_KEY))[list(COPY_KEY)]
    done = (pd.read_csv(cache, keep_default_na=True) if cache.exists()
            else pd.DataFrame(columns=list(COPY_KEY)))

    def identity(rec: Mapping[str, Any]) -> tuple:
        return tuple(float(rec[k]) if k in ("alpha", "time_limit") else
                     (int(rec[k]) if k in ("seed", "jobs", "copy_jobs",
                                           "copy_iterations") and pd.notna(rec[k])
                      else rec[k]) for k in COPY_KEY)

    known = {identity(r): r for r in done.to_dict("records")}
    records = list(known.values())
    workers = min(2, os.cpu_count() or 1)
    for rec in wanted.to_dict("records"):
        if identity(rec) in known:
            continue
        gen = generate_ijhpca2023(rec["family"], rec["profile"], rec["alpha"],
                                  int(rec["seed"]), jobs=int(rec["jobs"]),
                                  variant=rec["variant"])
        jobs = None if pd.isna(rec["copy_jobs"]) else int(rec["copy_jobs"])
        iters = None if pd.isna(rec["copy_iterations"]) else int(rec["copy_iterations"])
        copy = prefix_copy(gen.instance, jobs, iters)
        result = certify_copy(copy, float(rec["time_limit"]), num_workers=workers)
        records.append({**rec, **result})
        known[identity(rec)] = records[-1]
        write_csv(pd.DataFrame(records), cache)  # a killed report keeps these
    table = pd.DataFrame(records)
    if not len(table):
        return pd.DataFrame(columns=[*COPY_KEY, "cpsat_status", "cpsat_makespan",
                                     "cpsat_bound", "combinatorial_bound",
                                     "cpsat_seconds"])
    keep = {identity(r) for r in wanted.to_dict("records")}
    return table[[identity(r) in keep for r in table.to_dict("records")]
                 ].reset_index(drop=True)


def _certified_gap(makespan: pd.Series, bound: pd.Series) -> pd.Series:
    """``(C - L) / L`` row by row, by the project's one gap
    (:func:`opt_sched.objectives.gap_or_nan`: rounding noise is 0, a makespan
    below a proven bound raises BoundViolationError, no bound gives NaN)."""
    return pd.Series([gap_or_nan(c, b) for c, b in zip(makespan, bound)],
                     index=makespan.index, dtype=float)


def gap_tables(points: pd.DataFrame, solved: pd.DataFrame
               ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """``gaps_full``, ``gaps_copies`` and the aggregated ``gap_table``."""
    draw = ["family", "profile", "alpha", "seed", "variant", "jobs"]
    copy_bound = (solved.groupby(draw)["cpsat_bound"].max().rename("copy_bound")
                  if len(solved) else pd.Series(dtype=float, name="copy_bound"))
    full = points[~points["copy"]].copy()
    if len(copy_bound):
        full = full.merge(copy_bound.reset_index(), on=draw, how="left")
    else:
        full["copy_bound"] = math.nan
    full["best_bound"] = np.fmax(full["lower_bound"], full["copy_bound"])
    full["bound_source"] = np.where(full["copy_bound"] > full["lower_bound"],
                                    "cpsat-copy", "combinatorial")
    full["certified_gap"] = _certified_gap(full["makespan"], full["best_bound"])
    gaps_full = full[[*draw, "label", "strategy", "makespan", "lower_bound",
                      "copy_bound", "best_bound", "bound_source", "certified_gap"]]

    copies = points[points["copy"]].copy()
    copies["time_limit"] = copies["time_limit"].fillna(DEFAULT_COPY_TIME_LIMIT)
    if len(copies) and len(solved):
        merged = copies.merge(solved, on=list(COPY_KEY), how="left")
    else:
        merged = copies.assign(cpsat_status=None, cpsat_makespan=math.nan,
                               cpsat_bound=math.nan, combinatorial_bound=math.nan,
                               cpsat_seconds=math.nan)
    merged["best_bound"] = np.fmax(merged["lower_bound"], merged["cpsat_bound"])
    merged["certified_gap"] = _certified_gap(merged["makespan"], merged["best_bound"])
    gaps_copies = merged[[*draw, "copy_jobs", "copy_iterations", "time_limit", "label",
                          "strategy", "makespan", "lower_bound", "cpsat_status",
                          "cpsat_makespan", "cpsat_bound", "best_bound",
                          "certified_gap", "cpsat_seconds"]]

    rows = []
    for (label, variant, alpha, strategy), g in gaps_full.groupby(
            ["label", "variant", "alpha", "strategy"], sort=True):
        c = gaps_copies[(gaps_copies["label"] == label)
                        & (gaps_copies["variant"] == variant)
                        & np.isclose(gaps_copies["alpha"], alpha)
                        & (gaps_copies["strategy"] == strategy)]
        rows.append({"label": label, "variant": variant, "alpha": alpha,
                     "strategy": strategy, "workloads": len(g),
                     "median_gap": float(g["certified_gap"].median()),
                     "mean_gap": float(g["certified_gap"].mean()),
                     "max_gap": float(g["certified_gap"].max()),
                     "cpsat_copy_bound_used": int((g["bound_source"]
                                                   == "cpsat-copy").sum()),
                     "copies": len(c),
                     "copies_optimal": int((c["cpsat_status"] == "optimal").sum()),
                     "median_copy_gap": float(c["certified_gap"].median())
                     if len(c) else math.nan,
                     "max_copy_gap": float(c["certified_gap"].max())
                     if len(c) else math.nan})
    return gaps_full, gaps_copies, pd.DataFrame(rows)


def summary_table(points: pd.DataFrame, gap_table: pd.DataFrame) -> pd.DataFrame:
    """Per family, alpha in :data:`SUMMARY_ALPHAS` and strategy (calibrated
    variant): mean stretch, idle ratio, median certified gap (workload and
    copy)."""
    full = points[(~points["copy"]) & (points["variant"] == "calibrated")]
    rows = []
    for label in FAMILY_ORDER:
        for alpha in SUMMARY_ALPHAS:
            for strategy in STRATEGY_LABELS:
                g = full[(full["label"] == label) & np.isclose(full["alpha"], alpha)
                         & (full["strategy"] == strategy)]
                if not len(g):
                    continue
                gaps = gap_table[(gap_table["label"] == label)
                                 & (gap_table["variant"] == "calibrated")
                                 & np.isclose(gap_table["alpha"], alpha)
                                 & (gap_table["strategy"] == strategy)]
                rows.append({
                    "family": label, "alpha": alpha,
                    "strategy": STRATEGY_LABELS[strategy], "runs": len(g),
                    "mean_stretch": float(g["mean_stretch"].mean()),
                    "max_stretch": float(g["max_stretch"].mean()),
                    "idle_ratio": float(g["idle_ratio"].mean()),
                    "utilisation": float(g["utilisation"].mean()),
                    "median_gap": float(gaps["median_gap"].iloc[0])
                    if len(gaps) else math.nan,
                    "median_copy_gap": float(gaps["median_copy_gap"].iloc[0])
                    if len(gaps) else math.nan})
    return pd.DataFrame(rows)


def _markdown(table: pd.DataFrame) -> str:
    head = "| " + " | ".join(table.columns) + " |\n"
    rule = "|" + "|".join("---" for _ in table.columns) + "|\n"
    body = ""
    for rec in table.itertuples(index=False):
        cells = [f"{v:.3f}".replace("-0.000", "0.000") if isinstance(v, float)
                 else str(v) for v in rec]
        body += "| " + " | ".join(cells) + " |\n"
    return head + rule + body


def steady_state(curves: pd.DataFrame, window: tuple[float, float] = (0.1, 0.6)
                 ) -> pd.DataFrame:
    """Mean utilisation per (family, profile, alpha, strategy) over the whole
    run and over ``window`` of normalised time (the "steady state" of
    Lesson 1: after the start, before the workload runs out)."""
    rows = []
    for key, g in curves.groupby(["family", "profile", "alpha", "strategy"]):
        inside = g[(g["t"] >= window[0]) & (g["t"] < window[1])]
        rows.append({"label": FAMILY_LABELS[(key[0], key[1])], "alpha": key[2],
                     "strategy": key[3], "utilisation": float(g["utilisation"].mean()),
                     f"utilisation_{window[0]:g}_{window[1]:g}":
                         float(inside["utilisation"].mean())})
    return pd.DataFrame(rows)


def thirds(curves: pd.DataFrame) -> pd.DataFrame:
    """Fig. 8's trends (and Figs. 4-5's shape): mean utilisation, allocation,
    I/O busy share and running jobs in the first, middle and last third of
    normalised time."""
    rows = []
    third = np.minimum((curves["t"] * 3).astype(int), 2)
    for key, g in curves.assign(third=third).groupby(
            ["family", "profile", "alpha", "strategy"]):
        rec = {"label": FAMILY_LABELS[(key[0], key[1])], "alpha": key[2],
               "strategy": key[3]}
        for name in ("utilisation", "allocation", "io_busy", "running"):
            for k, part in g.groupby("third"):
                rec[f"{name}_{('first', 'middle', 'last')[k]}"] = float(
                    part[name].mean())
        rows.append(rec)
    return pd.DataFrame(rows)


# -- the report -------------------------------------------------------------------
def write_report(spec: Any, rows: Mapping[str, Mapping[str, Any]], out: Path
                 ) -> list[Path]:
    """Every table and figure of the module docstring into ``out``."""
    points = points_table(spec, rows)
    written = [write_csv(points, out / "points.csv")]
    rejections, curves = rerun_draws(points)
    if len(rejections):
        rej = (rejections.groupby(["family", "profile", "variant", "alpha"])
               ["rejected"].agg(workloads="size", rejected="sum",
                                max_per_workload="max")
               .reset_index())
    else:
        rej = pd.DataFrame(columns=["family", "profile", "variant", "alpha",
                                    "workloads", "rejected", "max_per_workload"])
    written.append(write_csv(rej, out / "rejections.csv"))
    solved = solve_copies(points, out / "cpsat_copies.csv")
    gaps_full, gaps_copies, gap_table = gap_tables(points, solved)
    written += [write_csv(gaps_full, out / "gaps_full.csv"),
                write_csv(gaps_copies, out / "gaps_copies.csv"),
                write_csv(gap_table, out / "gap_table.csv")]
    summary = summary_table(points, gap_table)
    written.append(write_csv(summary, out / "summary_table.csv"))
    with atomic_path(out / "summary_table.md") as tmp:
        Path(tmp).write_text(_markdown(summary) if len(summary) else "", "utf-8")
    written.append(out / "summary_table.md")

    mean = mean_curves(curves) if len(curves) else pd.DataFrame(
        columns=["family", "profile", "variant", "alpha", "strategy", "t",
                 *(c.removeprefix("curve_") for c in CURVES), "runs"])
    written += fig_utilisation(mean, "mira", out / "fig4_utilisation_mira")
    written += fig_utilisation(mean, "uniform", out / "fig5_utilisation_uniform")
    written.append(write_csv(steady_state(curves) if len(curves) else pd.DataFrame(),
                             out / "steady_state.csv"))
    written.append(write_csv(thirds(curves) if len(curves) else pd.DataFrame(),
                             out / "fig8_trends.csv"))
    written.append(write_csv(claims_table(points, curves), out / "claims.csv"))
    for alpha in _present(mean["alpha"], SUMMARY_ALPHAS):
        written += fig_usage(mean, alpha, out / f"fig8_usage_a{alpha:g}")
    full = points[~points["copy"]]
    for variant in sorted(set(full["variant"])):
        part = full[full["variant"] == variant]
        suffix = "" if variant == "calibrated" else f"_{variant}"
        written += fig_stretch(part, "max_stretch", out / f"fig6_max_stretch{suffix}")
        written += fig_stretch(part, "mean_stretch", out / f"fig7_mean_stretch{suffix}")
        written += fig_idle(part, out / f"fig9_stretch_vs_idle{suffix}")
    return written


def _present(values: Iterable[float], wanted: Iterable[float]) -> list[float]:
    have = sorted(set(float(v) for v in values))
    return [a for a in wanted if any(math.isclose(a, h) for h in have)]
