"""Hit a target I/O load alpha exactly by rescaling I/O-time fractions.

With the run time split of :mod:`~opt_sched.traces.profiles.base` (volume
``V_i = f_i T_i b``, contention-free length ``T_i``), the I/O load of SPEC §4
is

.. math:: \\alpha = \\frac{P \\sum_i V_i / b}{\\sum_i Q_i T_i}
          = \\sum_i a_i f_i, \\qquad a_i = \\frac{P T_i}{\\sum_j Q_j T_j},

independent of the bandwidth ``b``: the bandwidth only sets the unit of
volume. A target alpha is therefore reached through the fractions. Each is
mapped by the *odds scaling*

.. math:: g_c(f) = \\frac{c f}{1 - f + c f}
          \\quad\\Longleftrightarrow\\quad
          \\frac{g}{1 - g} = c \\, \\frac{f}{1 - f},

which keeps 0 and 1 fixed, keeps the order of the jobs' fractions and maps
``[0, 1]`` onto itself (a plain factor ``c f`` would leave ``[0, 1]``).
``alpha(c) = sum_i a_i g_c(f_i)`` increases strictly from
``sum_{f_i = 1} a_i`` (``c -> 0``) to ``sum_{f_i > 0} a_i`` (``c -> inf``);
``c`` is found by bisection on ``log c`` to machine precision. A target
outside that open interval is refused, naming the interval.

``A = sum_i a_i = P sum_i T_i / sum_i Q_i T_i`` is the *load factor*: the
mean fraction a target needs is ``alpha / A`` (``mean_share``). On KTH-SP2
(P = 100) ``A`` is about 11, so an alpha of 0.5 needs a mean fraction near
0.05.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import OptionError

__all__ = ["alpha_of", "load_weights", "odds_scale", "solve_odds_scale"]


def load_weights(nodes: np.ndarray, run_time: np.ndarray, machines: int
                 ) -> np.ndarray:
    """``a_i = P T_i / sum_j Q_j T_j``."""
    run_time = np.asarray(run_time, dtype=float)
    work = float(np.sum(np.asarray(nodes, dtype=float) * run_time))
    if work <= 0:
        raise OptionError("alpha: the trace has no work (sum Q_i T_i = 0)")
    return machines * run_time / work


def alpha_of(fractions: np.ndarray, weights: np.ndarray) -> float:
    """``alpha = sum_i a_i f_i``."""
    return float(np.sum(weights * fractions))  # pairwise sum; no BLAS threads


def odds_scale(fractions: np.ndarray, scale: float) -> np.ndarray:
    """``g_c(f) = c f / (1 - f + c f)`` elementwise."""
    f = np.asarray(fractions, dtype=float)
    if scale == 1.0:
        return f.copy()
    return scale * f / (1.0 - f + scale * f)


def solve_odds_scale(fractions: np.ndarray, weights: np.ndarray, target: float
                     ) -> float:
    """The ``c`` with ``sum_i a_i g_c(f_i) = target`` (module docstring).

    Raises
    ------
    OptionError
        ``target`` is not a finite number inside the reachable interval.
    """
    if isinstance(target, bool) or not isinstance(target, (int, float)) or \
            not math.isfinite(target) or target <= 0:
        raise OptionError(f"alpha={target!r} must be a finite number > 0")
    f = np.asarray(fractions, dtype=float)
    a = np.asarray(weights, dtype=float)
    low = float(a[f >= 1.0].sum())
    high = float(a[f > 0.0].sum())
    if not low < target < high:
        if high == 0.0:
            raise OptionError(f"alpha={target!r} is unreachable: no job does I/O "
                              f"(profile none, or all fractions 0)")
        raise OptionError(f"alpha={target!r} is unreachable with these fractions: "
                          f"alpha stays in ({low:.6g}, {high:.6g})")
    lo, hi = -745.0, 709.0   # log c: exp() stays finite and > 0
    for _ in range(2000):
        mid = 0.5 * (lo + hi)
        if alpha_of(odds_scale(f, math.exp(mid)), a) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 4e-16 * max(1.0, abs(mid)):
            break
    return math.exp(0.5 * (lo + hi))
