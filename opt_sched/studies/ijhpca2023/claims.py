"""Seed 000's directional claims, measured on a campaign (``claims.csv``).

The seed prints almost no numbers; its results are statements read from its
figures (digest ``notes/seed-000-001.md`` A.8-A.9). Each row of
:func:`claims_table` is one statement on one scope (a family, or a family
and a load), the measure that tests it, the measured value for every
strategy, and whether the statement holds on that scope (``yes`` / ``no``).
The verdict rule is written in the row (``rule``) and never uses a
threshold chosen after seeing the data: a comparison is strict (``<``, ``>``)
on means over the workloads of the scope.

Calibrated variant only (the experiments' variant). Inputs: the report's
``points`` (one row per run) and ``curves`` (100 bins per calibrated run).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

__all__ = ["claims_table"]

LABELS = {"ls": "LS", "random": "Random", "max": "Max", "char-dec": "Char-dec",
          "char-inc": "Char-inc"}
PACKS = ("random", "max", "char-dec", "char-inc")
FAMILIES = {"M-BN": ("mira", "bn"), "M-No": ("mira", "no"),
            "U-BN": ("uniform", "bn"), "U-No": ("uniform", "no")}
LOW = (0.2, 0.3, 0.4)
HIGH = (0.6, 0.7, 0.8)


def _row(claim: str, scope: str, measure: str, values: dict[str, float],
         holds: bool | None, rule: str) -> dict[str, object]:
    rec: dict[str, object] = {"claim": claim, "scope": scope, "measure": measure}
    for key, label in LABELS.items():
        rec[label] = values.get(key, np.nan)
    rec["holds"] = "n/a" if holds is None else ("yes" if holds else "no")
    rec["rule"] = rule
    return rec


def _means(frame: pd.DataFrame, column: str) -> dict[str, float]:
    return {k: float(v) for k, v in frame.groupby("strategy")[column].mean().items()}


def _in(frame: pd.DataFrame, alphas: tuple[float, ...]) -> pd.DataFrame:
    return frame[np.isclose(frame["alpha"].to_numpy()[:, None],
                            np.asarray(alphas)[None, :]).any(axis=1)]


def _family(frame: pd.DataFrame, label: str) -> pd.DataFrame:
    family, profile = FAMILIES[label]
    return frame[(frame["family"] == family) & (frame["profile"] == profile)]


def _all_present(values: dict[str, float], keys: tuple[str, ...]) -> bool:
    return all(k in values and np.isfinite(values[k]) for k in keys)


def _check(values: dict[str, float], keys: tuple[str, ...],
           test: Callable[[], bool]) -> bool | None:
    return test() if _all_present(values, keys) else None


def claims_table(points: pd.DataFrame, curves: pd.DataFrame) -> pd.DataFrame:
    """Every claim on every scope (see the module docstring)."""
    runs = points[(~points["copy"]) & (points["variant"] == "calibrated")]
    every = ("ls", *PACKS)
    rows = []
    thirds = curves.assign(third=np.minimum((curves["t"] * 3).astype(int), 2))
    for label in FAMILIES:
        fam = _family(runs, label)
        cur = _family(thirds, label)
        if not len(fam):
            continue
        # Figs. 4-5: LS flat, packs front-loaded then decaying
        if len(cur):
            first = _means(cur[cur["third"] == 0], "utilisation")
            last = _means(cur[cur["third"] == 2], "utilisation")
            drop = {k: first[k] - last[k] for k in first if k in last}
            rows.append(_row(
                "Figs. 4-5: LS utilisation is flat; packs start high and decay",
                label, "utilisation, first third minus last third of t/C_max "
                       "(mean over alphas and workloads)", drop,
                _check(drop, every, lambda d=drop: all(d["ls"] < d[p] for p in PACKS)),
                "LS drop < every pack's drop"))
        # Lesson 1: LS better at low load, Max better in steady state at high load
        low = _means(_in(fam, LOW), "utilisation")
        rows.append(_row(
            "Figs. 4-5: at low load (0.2-0.4) LS uses the platform best", label,
            "mean utilisation, alpha 0.2-0.4", low,
            _check(low, every, lambda v=low: all(v["ls"] > v[p] for p in PACKS)),
            "LS > every pack"))
        if len(cur):
            middle = _in(cur[cur["third"] == 1], HIGH)
            steady = _means(middle, "utilisation")
            rows.append(_row(
                "Lesson 1: in steady state at high load (0.6-0.8) Max beats LS",
                label, "mean utilisation over the middle third of t/C_max, "
                       "alpha 0.6-0.8", steady,
                _check(steady, ("ls", "max"), lambda v=steady: v["max"] > v["ls"]),
                "Max > LS"))
        lo = _means(_in(fam, (0.2,)), "utilisation")
        hi = _means(_in(fam, (0.8,)), "utilisation")
        fall = {k: lo[k] - hi[k] for k in lo if k in hi}
        rows.append(_row(
            "Figs. 4-5: LS utilisation degrades as the I/O load grows", label,
            "mean utilisation at alpha 0.2 minus at 0.8", fall,
            _check(fall, ("ls",), lambda v=fall: v["ls"] > 0), "LS value > 0"))
        # Figs. 6-7: packs slightly better stretch than LS, in all scenarios
        for column, name in (("mean_stretch", "mean"), ("max_stretch", "max")):
            per_alpha = fam.groupby(["alpha", "strategy"])[column].mean().unstack()
            wins = {p: float((per_alpha[p] < per_alpha["ls"]).mean())
                    for p in PACKS if p in per_alpha and "ls" in per_alpha}
            overall = _means(fam, column)
            rows.append(_row(
                f"Figs. 6-7: packs have a lower {name} stretch than LS", label,
                f"share of alphas where the pack's {name} stretch (mean over "
                f"workloads) < LS's (LS column: LS's {name} stretch, mean over "
                f"alphas and workloads)",
                {**wins, "ls": overall.get("ls", np.nan)},
                (all(w == 1.0 for w in wins.values()) if len(wins) == len(PACKS)
                 else None),
                "every pack below LS at every alpha"))
        # Char: best on Uniform, like the others on M-No, worst on M-BN
        mean = _means(fam, "mean_stretch")
        for char in ("char-dec", "char-inc"):
            others = [k for k in every if k != char]
            if label.startswith("U"):
                claim, test, rule = ("Figs. 6-7: Char gives the lowest mean stretch on "
                                     "Uniform workloads",
                                     lambda v=mean, c=char, o=others: all(
                                         v[c] < v[k] for k in o),
                                     f"{LABELS[char]} < every other strategy")
            elif label == "M-BN":
                claim, test, rule = ("Figs. 6-7: Char gives the highest mean stretch "
                                     "on M-BN",
                                     lambda v=mean, c=char, o=others: all(
                                         v[c] > v[k] for k in o),
                                     f"{LABELS[char]} > every other strategy")
            else:
                claim, test, rule = ("Figs. 6-7: Char performs like the other packs "
                                     "on M-No",
                                     lambda v=mean, c=char: min(v[p] for p in PACKS
                                                                if p != c) <= v[c]
                                     <= max(v[p] for p in PACKS if p != c),
                                     f"{LABELS[char]} within the other packs' range")
            rows.append(_row(claim, label, "mean stretch (mean over alphas and "
                                           "workloads)", mean,
                             _check(mean, every, test), rule))
        if label.startswith("M"):
            rows.append(_row(
                "Figs. 6-7: on Mira, Random has a lower mean stretch than Max", label,
                "mean stretch (mean over alphas and workloads)", mean,
                _check(mean, ("random", "max"),
                       lambda v=mean: v["random"] < v["max"]), "Random < Max"))
            # Fig. 8 and Lesson 3: packs drift, LS keeps a steady state
            if len(cur):
                firsts = cur[cur["third"] == 0]
                lasts = cur[cur["third"] == 2]
                proc = {k: _means(lasts, "allocation")[k] - _means(firsts,
                                                                   "allocation")[k]
                        for k in _means(firsts, "allocation")}
                band = {k: _means(lasts, "io_busy")[k] - _means(firsts, "io_busy")[k]
                        for k in _means(firsts, "io_busy")}
                rows.append(_row(
                    "Fig. 8: with packs, processors used decrease over time", label,
                    "processors used, last third minus first third", proc,
                    _check(proc, PACKS, lambda v=proc: all(v[p] < 0 for p in PACKS)),
                    "every pack < 0"))
                rows.append(_row(
                    "Fig. 8: with packs, bandwidth used increases over time", label,
                    "I/O busy share, last third minus first third", band,
                    _check(band, PACKS, lambda v=band: all(v[p] > 0 for p in PACKS)),
                    "every pack > 0"))
                rows.append(_row(
                    "Fig. 8: LS keeps processors and bandwidth roughly constant "
                    "(changes smaller than every pack's)", label,
                    "|processors| + |bandwidth| change, last minus first third",
                    {k: abs(proc[k]) + abs(band[k]) for k in proc if k in band},
                    _check(proc, every, lambda p=proc, b=band: all(
                        abs(p["ls"]) + abs(b["ls"]) < abs(p[k]) + abs(b[k])
                        for k in PACKS)),
                    "LS < every pack"))
            # Fig. 9: stretch rises with idle ratio; LS less idle, more stretch
            corr = {k: float(np.corrcoef(g["idle_ratio"], g["mean_stretch"])[0, 1])
                    for k, g in fam.groupby("strategy") if len(g) > 2}
            rows.append(_row(
                "Fig. 9: mean stretch increases with the idle ratio", label,
                "correlation of idle ratio and mean stretch over the runs", corr,
                _check(corr, every, lambda v=corr: all(v[k] > 0 for k in every)),
                "every strategy > 0"))
            efficient = fam[fam["idle_ratio"] < 0.10]
            low_idle = _means(efficient, "mean_stretch")
            counts = ", ".join(f"{LABELS[k]} {n}" for k, n in
                               efficient.groupby("strategy").size().items())
            for char in ("char-dec", "char-inc"):
                others = [k for k in every if k != char and k in low_idle]
                rows.append(_row(
                    "Fig. 9: on efficient workloads (idle ratio < 10 %), Char has "
                    "the lowest mean stretch", label,
                    f"mean stretch over the runs with idle ratio < 0.10 (runs: "
                    f"{counts or 'none'})",
                    low_idle,
                    (all(low_idle[char] < low_idle[k] for k in others)
                     if char in low_idle and others else None),
                    f"{LABELS[char]} < every other strategy present"))
            slope = {k: float(np.polyfit(g["idle_ratio"], g["mean_stretch"], 1)[0])
                     for k, g in fam.groupby("strategy") if len(g) > 2}
            for char in ("char-dec", "char-inc"):
                rows.append(_row(
                    "Fig. 9: as idle time grows, Char's stretch rises fastest", label,
                    "least-squares slope of mean stretch against idle ratio",
                    slope,
                    _check(slope, every, lambda v=slope, c=char: all(
                        v[c] > v[k] for k in every if k != c)),
                    f"{LABELS[char]} slope > every other strategy's"))
            idle = _means(fam, "idle_ratio")
            rows.append(_row(
                "Fig. 9: LS has a lower idle ratio than Random and Max", label,
                "idle ratio (mean over alphas and workloads)", idle,
                _check(idle, ("ls", "random", "max"), lambda v=idle: v["ls"] < min(
                    v["random"], v["max"])), "LS < Random and LS < Max"))
            rows.append(_row(
                "Fig. 9: LS has a higher mean stretch than Random and Max", label,
                "mean stretch (mean over alphas and workloads)", mean,
                _check(mean, ("ls", "random", "max"), lambda v=mean: v["ls"] > max(
                    v["random"], v["max"])), "LS > Random and LS > Max"))
    return pd.DataFrame(rows)
