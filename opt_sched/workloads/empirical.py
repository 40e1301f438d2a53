r"""The empirical sampler of ScSF's workload model (seed 002, Paper IV §3.1).

One variable, one distribution, from a histogram of observed values with a
fixed bin width ``w`` (ScSF: requested wall time 1 min, inter-arrival 1 s,
cores = one node):

.. math:: p_k = \frac{\#\{x : b_k \le x < b_k + w\}}{n},
          \qquad b_k = x_{min} + k w .

Sampling draws ``u ~ U[0, 1)`` and returns the *value* of the bin ``k`` with
``F_{k-1} <= u < F_k`` (``F`` the cumulative of ``p``): the bin's low
edge (``"low"``, ScSF's ``interval_policy``, right for values that are
round numbers of the bin width such as requested minutes or nodes), its
midpoint (``"midpoint"``, the digest's reading), or a uniform point of it
(``"uniform"``). Variables are sampled independently, as ScSF does.

A sampler is also built from explicit ``(value, probability)`` pairs
(:meth:`EmpiricalSampler.from_pmf`), which is how the calibrated Edison
model is written (:mod:`~opt_sched.workloads.nersc_edison`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import OptionError

__all__ = ["POLICIES", "EmpiricalSampler"]

POLICIES = ("low", "midpoint", "uniform")


class EmpiricalSampler:
    """A discrete distribution over bin values (see the module docstring).

    Parameters
    ----------
    values
        The bins' low edges (increasing).
    probabilities
        ``p_k`` (non-negative, summing to a positive number; normalised).
    width
        The bin width (0 for point masses).
    policy
        ``"low"``, ``"midpoint"`` or ``"uniform"``.
    name
        For messages.
    """

    def __init__(self, values: Sequence[float], probabilities: Sequence[float], *,
                 width: float = 0.0, policy: str = "low", name: str = "variable"
                 ) -> None:
        vals = np.asarray(values, dtype=float)
        probs = np.asarray(probabilities, dtype=float)
        if vals.ndim != 1 or vals.shape != probs.shape or vals.size == 0:
            raise OptionError(f"{name}: {vals.size} values for {probs.size} "
                              f"probabilities")
        if not np.all(np.isfinite(vals)) or np.any(np.diff(vals) <= 0):
            raise OptionError(f"{name}: values must be finite and increasing")
        if not np.all(np.isfinite(probs)) or np.any(probs < 0) or probs.sum() <= 0:
            raise OptionError(f"{name}: probabilities must be >= 0 with a positive "
                              f"sum")
        if policy not in POLICIES:
            raise OptionError(f"{name}: policy={policy!r} is not one of "
                              f"{', '.join(POLICIES)}")
        if not math.isfinite(width) or width < 0:
            raise OptionError(f"{name}: width={width!r} must be >= 0")
        keep = probs > 0
        self.values = vals[keep]
        self.probabilities = probs[keep] / probs.sum()
        self.cumulative = np.cumsum(self.probabilities)
        self.cumulative[-1] = 1.0
        self.width = float(width)
        self.policy = policy
        self.name = name

    @classmethod
    def from_values(cls, data: Sequence[float], bin_width: float, *,
                    policy: str = "low", name: str = "variable",
                    origin: float | None = None) -> EmpiricalSampler:
        """The histogram of ``data`` with bins of ``bin_width`` starting at
        ``origin`` (default: the smallest value rounded down to the width)."""
        x = np.asarray(data, dtype=float)
        x = x[np.isfinite(x)]
        if x.size == 0:
            raise OptionError(f"{name}: no finite values to fit")
        if not bin_width > 0:
            raise OptionError(f"{name}: bin_width={bin_width!r} must be > 0")
        base = math.floor(x.min() / bin_width) * bin_width if origin is None \
            else float(origin)
        if x.min() < base:
            raise OptionError(f"{name}: origin={origin!r} is above the smallest "
                              f"value {x.min():g}")
        index = np.floor((x - base) / bin_width + 1e-9).astype(np.int64)
        bins, counts = np.unique(index, return_counts=True)
        return cls(base + bins * bin_width, counts, width=bin_width, policy=policy,
                   name=name)

    @classmethod
    def from_pmf(cls, values: Sequence[float], probabilities: Sequence[float], *,
                 name: str = "variable") -> EmpiricalSampler:
        """Point masses: ``values[k]`` with probability ``probabilities[k]``."""
        return cls(values, probabilities, width=0.0, policy="low", name=name)

    def sample(self, rng: np.random.Generator, size: int | None = None
               ) -> np.ndarray | float:
        """``size`` draws (one float for ``size=None``)."""
        count = 1 if size is None else int(size)
        u = rng.random(count)
        k = np.minimum(np.searchsorted(self.cumulative, u, side="right"),
                       len(self.values) - 1)
        out = self.values[k]
        if self.policy == "midpoint":
            out = out + self.width / 2
        elif self.policy == "uniform" and self.width > 0:
            out = out + rng.random(count) * self.width
        return float(out[0]) if size is None else out

    def mean(self) -> float:
        """The distribution's mean."""
        shift = {"low": 0.0, "midpoint": 0.5, "uniform": 0.5}[self.policy]
        return float(np.dot(self.values + shift * self.width, self.probabilities))

    def cdf(self, x: float) -> float:
        """``P(X <= x)`` for the ``low`` values (bin starts); for the other
        policies, ``P(bin start <= x)``."""
        return float(self.probabilities[self.values <= x].sum())
