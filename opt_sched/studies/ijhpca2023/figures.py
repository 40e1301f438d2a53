"""Seed 000's figures (PNG + CSV) for the ``ijhpca2023`` report: Figs. 4-5
(utilisation over normalised time), 6-7 (max and mean stretch against the
load), 8 (usage over time on Mira), 9 (mean stretch against idle ratio).
See :mod:`.ijhpca2023` for the data they read."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from opt_sched.files import atomic_write_csv as write_csv
from opt_sched.plot.pyplot import pyplot, save_figure
from opt_sched.studies.ijhpca2023.common import (
    CURVES,
    FAMILY_LABELS,
    FAMILY_ORDER,
    STRATEGY_LABELS,
    ci,
    stats,
)

__all__ = ["fig_idle", "fig_stretch", "fig_usage", "fig_utilisation", "mean_curves"]


# -- figures ----------------------------------------------------------------------
def _with(stem: Path, suffix: str) -> Path:
    """``stem`` + ``suffix`` (``Path.with_suffix`` would eat ``a0.2``'s
    ``.2``)."""
    return stem.parent / f"{stem.name}{suffix}"


def _save(fig: Any, target: Path) -> Path:
    return save_figure(fig, target, format="png")


def _colour(strategy: str) -> str:
    return {"ls": "black", "random": "tab:blue", "max": "tab:orange",
            "char-dec": "tab:green", "char-inc": "tab:red"}[strategy]


def mean_curves(curves: pd.DataFrame) -> pd.DataFrame:
    keys = ["family", "profile", "variant", "alpha", "strategy", "t"]
    values = [c.removeprefix("curve_") for c in CURVES]
    out = curves.groupby(keys, sort=True)[values].mean()
    out["runs"] = curves.groupby(keys, sort=True).size()
    return out.reset_index()


def fig_utilisation(mean: pd.DataFrame, family: str, target: Path) -> list[Path]:
    data = mean[mean["family"] == family]
    csv = write_csv(data[["family", "profile", "alpha", "strategy", "t", "utilisation",
                          "runs"]], _with(target, ".csv"))
    if not len(data):
        return [csv]
    plt = pyplot()
    alphas = sorted(data["alpha"].unique())
    profiles = [p for p in ("no", "bn") if p in set(data["profile"])]
    fig, axes = plt.subplots(len(profiles), len(alphas), squeeze=False,
                             figsize=(2.3 * len(alphas), 2.4 * len(profiles)),
                             sharex=True, sharey=True)
    for r, profile in enumerate(profiles):
        for c, alpha in enumerate(alphas):
            ax = axes[r][c]
            part = data[(data["profile"] == profile) & (data["alpha"] == alpha)]
            for strategy, g in part.groupby("strategy", sort=False):
                ax.plot(g["t"], g["utilisation"], color=_colour(strategy), lw=1,
                        label=STRATEGY_LABELS[strategy])
            ax.set_title(f"{FAMILY_LABELS[(family, profile)]}, alpha={alpha:g}",
                         fontsize=8)
            ax.set_ylim(0, 1.02)
            if c == 0:
                ax.set_ylabel("utilisation")
            if r == len(profiles) - 1:
                ax.set_xlabel("t / C_max")
    axes[0][0].legend(fontsize=6)
    fig.tight_layout()
    return [csv, _save(fig, _with(target, ".png"))]


def fig_stretch(points: pd.DataFrame, value: str, target: Path) -> list[Path]:
    table = stats(points, ["label", "variant", "alpha", "strategy"], value)
    csv = write_csv(table, _with(target, ".csv"))
    if not len(points):
        return [csv]
    plt = pyplot()
    labels = [f for f in FAMILY_ORDER if f in set(points["label"])]
    fig, axes = plt.subplots(1, len(labels), squeeze=False,
                             figsize=(3.2 * len(labels), 3.2))
    for c, label in enumerate(labels):
        ax = axes[0][c]
        for strategy in STRATEGY_LABELS:
            g = points[(points["label"] == label) & (points["strategy"] == strategy)]
            if not len(g):
                continue
            s = table[(table["label"] == label) & (table["strategy"] == strategy)]
            ax.scatter(g["alpha"], g[value], s=4, alpha=0.35, color=_colour(strategy))
            ax.plot(s["alpha"], s["mean"], color=_colour(strategy), lw=1.2,
                    label=STRATEGY_LABELS[strategy])
            ax.fill_between(s["alpha"], s["ci_low"], s["ci_high"],
                            color=_colour(strategy), alpha=0.15, lw=0)
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("alpha")
    axes[0][0].set_ylabel(value.replace("_", " "))
    axes[0][0].legend(fontsize=6)
    fig.tight_layout()
    return [csv, _save(fig, _with(target, ".png"))]


def fig_usage(mean: pd.DataFrame, alpha: float, target: Path) -> list[Path]:
    data = mean[(mean["family"] == "mira") & np.isclose(mean["alpha"], alpha)]
    csv = write_csv(data[["family", "profile", "alpha", "strategy", "t", "running",
                          "allocation", "io_busy", "runs"]],
                    _with(target, ".csv"))
    if not len(data):
        return [csv]
    plt = pyplot()
    profiles = [p for p in ("bn", "no") if p in set(data["profile"])]
    names = (("running", "running applications"), ("allocation", "processors used"),
             ("io_busy", "bandwidth used"))
    fig, axes = plt.subplots(len(profiles), 3, squeeze=False,
                             figsize=(9, 2.6 * len(profiles)), sharex=True)
    for r, profile in enumerate(profiles):
        part = data[data["profile"] == profile]
        for c, (name, title) in enumerate(names):
            ax = axes[r][c]
            for strategy, g in part.groupby("strategy", sort=False):
                ax.plot(g["t"], g[name], color=_colour(strategy), lw=1,
                        label=STRATEGY_LABELS[strategy])
            ax.set_title(f"{FAMILY_LABELS[('mira', profile)]}, alpha={alpha:g}: "
                         f"{title}", fontsize=8)
            if r == len(profiles) - 1:
                ax.set_xlabel("t / C_max")
    axes[0][0].legend(fontsize=6)
    fig.tight_layout()
    return [csv, _save(fig, _with(target, ".png"))]


def fig_idle(points: pd.DataFrame, target: Path) -> list[Path]:
    data = points[points["family"] == "mira"]
    cols = ["label", "alpha", "seed", "strategy", "idle_ratio", "mean_stretch",
            "utilisation"]
    csv = write_csv(data[cols], _with(target, ".csv"))
    if not len(data):
        return [csv]
    plt = pyplot()
    labels = [f for f in ("M-BN", "M-No") if f in set(data["label"])]
    strategies = [s for s in STRATEGY_LABELS if s in set(data["strategy"])]
    fig, axes = plt.subplots(len(labels), len(strategies), squeeze=False,
                             figsize=(2.5 * len(strategies), 2.5 * len(labels)),
                             sharex=True, sharey=True)
    for r, label in enumerate(labels):
        for c, strategy in enumerate(strategies):
            ax = axes[r][c]
            g = data[(data["label"] == label) & (data["strategy"] == strategy)]
            dots = ax.scatter(g["idle_ratio"], g["mean_stretch"], c=g["utilisation"],
                              cmap="viridis", vmin=0, vmax=1, s=6)
            mx, xl, xh = ci(g["idle_ratio"].to_numpy())
            my, yl, yh = ci(g["mean_stretch"].to_numpy())
            ax.errorbar([mx], [my], xerr=[[mx - xl], [xh - mx]],
                        yerr=[[my - yl], [yh - my]], color="red", lw=1, capsize=2)
            ax.set_title(f"{label}: {STRATEGY_LABELS[strategy]}", fontsize=8)
            if r == len(labels) - 1:
                ax.set_xlabel("idle ratio")
            if c == 0:
                ax.set_ylabel("mean stretch")
    fig.colorbar(dots, ax=axes, shrink=0.6, label="utilisation")
    return [csv, _save(fig, _with(target, ".png"))]


