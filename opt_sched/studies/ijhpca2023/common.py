"""Names and statistics shared by the ``ijhpca2023`` report modules."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["CURVES", "DRAW", "FAMILY_LABELS", "FAMILY_ORDER", "STRATEGY_LABELS",
           "SUMMARY_ALPHAS", "ci", "stats"]

SUMMARY_ALPHAS = (0.2, 0.5, 0.8)
STRATEGY_LABELS = {"ls": "LS", "random": "Random", "max": "Max",
                   "char-dec": "Char-dec", "char-inc": "Char-inc"}
FAMILY_LABELS = {("mira", "bn"): "M-BN", ("mira", "no"): "M-No",
                 ("uniform", "bn"): "U-BN", ("uniform", "no"): "U-No"}
FAMILY_ORDER = ("M-BN", "M-No", "U-BN", "U-No")
DRAW = ("family", "profile", "alpha", "seed", "variant", "jobs")
CURVES = ("curve_utilisation", "curve_allocation", "curve_running", "curve_io_busy")
_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
"""Two-sided 95 % Student t quantiles for 1..30 degrees of freedom (1.96
beyond)."""



def ci(values: np.ndarray) -> tuple[float, float, float]:
    """Mean and its 95 % Student t interval."""
    n = len(values)
    mean = float(np.mean(values)) if n else math.nan
    if n < 2:
        return mean, math.nan, math.nan
    t = _T95[n - 2] if n - 1 <= len(_T95) else 1.96
    half = t * float(np.std(values, ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half


def stats(points: pd.DataFrame, keys: list[str], value: str) -> pd.DataFrame:
    out = []
    for key, g in points.groupby(keys, sort=True):
        vals = g[value].to_numpy(dtype=float)
        mean, low, high = ci(vals)
        out.append({**dict(zip(keys, key)), "runs": len(vals), "mean": mean,
                    "ci_low": low, "ci_high": high, "median": float(np.median(vals)),
                    "min": float(vals.min()), "max": float(vals.max())})
    return pd.DataFrame(out)


