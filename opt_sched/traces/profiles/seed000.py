"""Profiles ``bn`` and ``no``: seed 000's I/O-time fractions (IJHPCA 2023).

Seed 000 (§"I/O behavior generation") draws the proportion ``X`` of time a
job spends doing I/O from normals truncated to ``[0, 1]``:

- ``bn`` (Bi-Normal): a low-I/O class ``N(0.1, sd^2)`` and a high-I/O class
  ``N(0.9, sd^2)``; a job is high-I/O with probability ``p``
  (``high_share``). ``sd = sqrt(0.1)``: the seed's truncated means 0.289 /
  0.711 come out only with that (:mod:`~opt_sched.traces.truncnorm`).
- ``no`` (Normal): one class ``N(mu, sd^2)``, ``mu`` = ``mean``, with the
  same ``sd = sqrt(0.1)`` (the seed's "variance 0.1", read as for ``bn``).

The seed says the prevalence of each class "depends on the I/O load alpha
that we want to obtain" without giving the rule. Here, when a target is
given and the parameter is not, it is set so that the *expected* load is the
target: with ``m`` the mean fraction that target needs (``mean_share``),

.. math:: p = \\mathrm{clip}\\left(\\frac{m - \\mu_1}{\\mu_2 - \\mu_1}, 0, 1\\right)

for ``bn`` (``mu_1``, ``mu_2`` the truncated means) and, for ``no``, ``mu``
such that the truncated mean is ``m`` (on a workload whose load factor ``A``
is 1 this is "mean alpha"). The remaining sampling error is removed by the
exact calibration of :mod:`~opt_sched.traces.calibration`. Without a target
``bn`` uses ``p = 0.5`` and ``no`` needs ``mean``.

Iterations: ``n_i ~ U{10, ..., 100}`` (seed 000, after Liu et al. 2012).
Draw order on the fraction stream: ``bn`` draws the class of every job
(``n`` uniforms) then one truncated normal per job; ``no`` draws the
truncated normals.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...errors import OptionError
from ..truncnorm import (
    loc_for_truncated_mean,
    sample_truncated_normal,
    truncated_normal_mean,
)
from .base import (
    ProfileDraw,
    check_finite,
    check_iterations,
    check_positive,
    check_unit,
    draw_iterations,
    profile_streams,
)

__all__ = ["SEED000_SD", "BiNormalProfile", "NormalProfile", "draw_bn_fractions",
           "draw_no_fractions"]

SEED000_SD = math.sqrt(0.1)
"""Standard deviation of seed 000's truncated normals (variance 0.1)."""


def draw_bn_fractions(rng: np.random.Generator, size: int, high_share: float,
                      low_loc: float = 0.1, high_loc: float = 0.9,
                      sd: float = SEED000_SD) -> tuple[np.ndarray, np.ndarray]:
    """Seed 000's Bi-Normal fractions: ``(fractions, is_high)``."""
    is_high = rng.random(size) < high_share
    locs = np.where(is_high, high_loc, low_loc)
    return sample_truncated_normal(rng, locs, sd, size), is_high


def draw_no_fractions(rng: np.random.Generator, size: int, mean: float,
                      sd: float = SEED000_SD) -> np.ndarray:
    """Seed 000's Normal fractions: ``N(mean, sd^2)`` truncated to [0, 1]."""
    return sample_truncated_normal(rng, mean, sd, size)


@dataclass(frozen=True)
class BiNormalProfile:
    """``bn``: options ``high_share`` (p), ``low_loc``, ``high_loc``, ``sd``,
    ``min_iterations``, ``max_iterations``."""

    high_share: float | None = None
    low_loc: float = 0.1
    high_loc: float = 0.9
    sd: float = SEED000_SD
    min_iterations: int = 10
    max_iterations: int = 100
    name: str = "bn"

    def __post_init__(self) -> None:
        if self.high_share is not None:
            check_unit(self.name, "high_share", self.high_share)
        check_finite(self.name, "low_loc", self.low_loc)
        check_finite(self.name, "high_loc", self.high_loc)
        check_positive(self.name, "sd", self.sd)
        check_iterations(self.name, self.min_iterations, self.max_iterations)

    def class_means(self) -> tuple[float, float]:
        """The truncated means ``(mu_1, mu_2)`` of the two classes."""
        return (truncated_normal_mean(self.low_loc, self.sd),
                truncated_normal_mean(self.high_loc, self.sd))

    def share_for_mean(self, mean_share: float) -> float:
        """``p`` whose expected fraction is ``mean_share`` (clipped to [0, 1])."""
        low, high = self.class_means()
        if high == low:
            return 0.5
        return min(1.0, max(0.0, (mean_share - low) / (high - low)))

    def draw(self, nodes: np.ndarray, run_time: np.ndarray, seed: int,
             mean_share: float | None = None) -> ProfileDraw:
        size = len(run_time)
        rng_iterations, rng_fractions = profile_streams(seed)
        if self.high_share is not None:
            share, source = float(self.high_share), "given"
        elif mean_share is not None:
            share, source = self.share_for_mean(mean_share), "from alpha"
        else:
            share, source = 0.5, "default"
        fractions, is_high = draw_bn_fractions(
            rng_fractions, size, share, self.low_loc, self.high_loc, self.sd)
        iterations = draw_iterations(rng_iterations, size, self.min_iterations,
                                     self.max_iterations)
        return ProfileDraw(fractions, iterations, None, {
            "high_share": share, "high_share_source": source,
            "high_jobs": int(is_high.sum()), "sd": self.sd})


@dataclass(frozen=True)
class NormalProfile:
    """``no``: options ``mean`` (mu), ``sd``, ``min_iterations``,
    ``max_iterations``."""

    mean: float | None = None
    sd: float = SEED000_SD
    min_iterations: int = 10
    max_iterations: int = 100
    name: str = "no"

    def __post_init__(self) -> None:
        if self.mean is not None:
            check_finite(self.name, "mean", self.mean)
        check_positive(self.name, "sd", self.sd)
        check_iterations(self.name, self.min_iterations, self.max_iterations)

    def draw(self, nodes: np.ndarray, run_time: np.ndarray, seed: int,
             mean_share: float | None = None) -> ProfileDraw:
        size = len(run_time)
        rng_iterations, rng_fractions = profile_streams(seed)
        if self.mean is not None:
            loc, source = float(self.mean), "given"
        elif mean_share is not None:
            loc, source = loc_for_truncated_mean(mean_share, self.sd), "from alpha"
        else:
            raise OptionError("io profile 'no' needs mean= (the normal's mu) or a "
                              "target alpha")
        fractions = draw_no_fractions(rng_fractions, size, loc, self.sd)
        iterations = draw_iterations(rng_iterations, size, self.min_iterations,
                                     self.max_iterations)
        return ProfileDraw(fractions, iterations, None, {
            "mean": loc, "mean_source": source, "sd": self.sd,
            "truncated_mean": truncated_normal_mean(loc, self.sd)})
