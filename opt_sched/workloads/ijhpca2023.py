"""The workload protocols of seed 000 (Jeannot, Pallez, Vidal, IJHPCA 2023,
§Workload Generation; digest ``notes/seed-000-001.md`` A.6, A.10).

Four families: ``mira`` or ``uniform`` sizes and durations, times a ``bn``
(bi-normal) or ``no`` (normal) I/O profile. Every job is periodic, released
at 0, with ``n_i ~ U{10..100}`` iterations. For job ``i`` with ``Q_i`` nodes
and total compute time ``D_i`` (``w_i = D_i / n_i``, A.10-6), the share of
I/O ``X_i`` gives the per-iteration *raw volume*

.. math:: u_i = X_i \\, w_i \\, Q_i / P \\qquad \\text{(seed 000: } v_i
          \\leftarrow \\mathcal N(\\mu, 0.1)\\, w_i Q_i / P\\text{)}.

Sizes and durations
-------------------
- ``mira``: ``P = 49152``; ``Q = 512 k``, ``k = 1..96``, with
  ``Pr(k) ∝ exp(-lambda 512 k)``, ``lambda = 1.35e-4`` (a discrete
  exponential on 512..49152, A.10-7); ``D ~ N(m, 0.1 m)`` truncated to
  ``D > 0``, with median ``m`` = 1 h (``Q < 4096``), 2 h (``4096 <= Q <=
  16384``), 0.5 h (``Q > 16384``) -- "a variance of 10 percent of the median"
  read as a standard deviation (unit-free, A.10-5).
- ``uniform``: ``P = 2048``; ``D ~ U[10, 100]`` minutes; ``Q`` on
  ``{2^j, j = 0..11}`` with the seed's mean
  ``Q-bar = P E[X] / (alpha (1 + E[X]))``, as the maximal-entropy law of that
  mean (the same choice as seed 003's generator, A.10-2).

I/O profiles (``X``, truncated to ``[0, 1]``)
---------------------------------------------
- ``bn``: a mixture of ``N(0.1, sqrt(0.1))`` and ``N(0.9, sqrt(0.1))``: the
  truncated means are 0.289 and 0.711 as the seed prints only with *variance*
  0.1 (tested). The share of the high class is
  ``p = clip((alpha - 0.289) / (0.711 - 0.289), 0, 1)``, so that
  ``E[X] = alpha`` whenever it can (the seed only says the prevalence
  "depends on alpha", A.10-4).
- ``no``: one normal of the same variance 0.1, truncated, whose location is
  set so that its *truncated* mean is ``alpha`` (with ``loc = alpha`` and a
  variance of 0.1 the realised mean would not be ``alpha``, A.10-3).

The draws are those of the trace profiles ``bn``/``no``
(:mod:`opt_sched.traces.profiles.seed000`), so a workload and a trace with
the same profile share one definition.

The bandwidth ``B``: two variants (A.10-1)
-----------------------------------------
- ``literal``: ``B = 1`` and ``v_i = u_i``. Then each job's average
  bandwidth is at most ``Q_i / P * B``, so the running jobs never ask more
  than ``B`` in all: neither the strict (list scheduling) nor the average
  (packs) constraint can bind (shown in a test).
- ``calibrated`` (the default, the one the seed must have meant): volumes
  ``v_i = u_i`` and ``B`` solved from eq. 2 so that the realised load is
  exactly ``alpha``:

  .. math:: \\alpha = \\frac{V / B}{W + U / B} \\iff
            B = \\frac{V / \\alpha - U}{W},

  with ``V = sum n_i u_i``, ``W = sum (Q_i/P) n_i w_i``,
  ``U = sum (Q_i/P) n_i u_i`` (needs ``alpha < V / U``; otherwise the
  workload is rejected).

Rejected workloads ("pathological", the seed gives no criterion)
---------------------------------------------------------------
A draw is rejected when its area-weighted I/O share
``sum Q_i D_i X_i / sum Q_i D_i`` differs from the profile's mean ``E[X]``
by more than :data:`REJECT_TOLERANCE` (a few large jobs with extreme ``X``
dominate the load), or when ``B`` cannot be calibrated. A rejected draw is
redrawn with the next sub-seed; :func:`generate_ijhpca2023` reports how many
were rejected in ``info``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import OptionError
from ..instance import Instance, Job, Platform
from ..traces.profiles.seed000 import (
    SEED000_SD,
    draw_bn_fractions,
    draw_no_fractions,
)
from ..traces.truncnorm import loc_for_truncated_mean, truncated_normal_mean
from .ics2020 import q_distribution, truncated_normal
from .limits import check_job_count

__all__ = [
    "FAMILIES",
    "REJECT_TOLERANCE",
    "Generated",
    "calibrated_bandwidth",
    "generate_ijhpca2023",
    "profile_mean",
]

FAMILIES = ("mira", "uniform")
PROFILES = ("bn", "no")
VARIANTS = ("calibrated", "literal")

BN_MEANS = (0.1, 0.9)
MIRA_LAMBDA = 1.35e-4
MIRA_P = 49152
UNIFORM_P = 2048
REJECT_TOLERANCE = 0.15
"""Largest accepted gap between a draw's area-weighted I/O share and E[X]."""


BN_TRUNCATED = tuple(truncated_normal_mean(m, SEED000_SD) for m in BN_MEANS)
"""The truncated class means, 0.2894 and 0.7106 (the seed prints 0.289 and
0.711)."""


def bn_high_share(alpha: float) -> float:
    """The share of high-I/O jobs of the ``bn`` profile for a target load."""
    lo, hi = BN_TRUNCATED
    return min(1.0, max(0.0, (alpha - lo) / (hi - lo)))


def profile_mean(profile: str, alpha: float) -> float:
    """``E[X]`` of an I/O profile at target load ``alpha``."""
    if profile == "bn":
        p = bn_high_share(alpha)
        return (1 - p) * BN_TRUNCATED[0] + p * BN_TRUNCATED[1]
    return alpha


def _io_shares(rng: np.random.Generator, profile: str, alpha: float,
               count: int) -> np.ndarray:
    if profile == "bn":
        return draw_bn_fractions(rng, count, bn_high_share(alpha))[0]
    return draw_no_fractions(rng, count, loc_for_truncated_mean(alpha, SEED000_SD))


def _mira_sizes_and_durations(rng: np.random.Generator, count: int
                              ) -> tuple[np.ndarray, np.ndarray]:
    k = np.arange(1, MIRA_P // 512 + 1)
    weight = np.exp(-MIRA_LAMBDA * 512 * k)
    q = 512 * rng.choice(k, size=count, p=weight / weight.sum())
    median = np.where(q < 4096, 3600.0, np.where(q <= 16384, 7200.0, 1800.0))
    duration = np.empty(count)
    for i in range(count):
        duration[i] = truncated_normal(rng, median[i], 0.1 * median[i], 1e-9,
                                       math.inf, 1)[0]
    return q, duration


def _uniform_sizes_and_durations(rng: np.random.Generator, count: int, alpha: float,
                                 profile: str) -> tuple[np.ndarray, np.ndarray]:
    ex = profile_mean(profile, alpha)
    q_bar = UNIFORM_P * ex / (alpha * (1 + ex))
    values = tuple(2 ** j for j in range(12))
    q = rng.choice(np.asarray(values), size=count, p=q_distribution(q_bar, values))
    return q, rng.uniform(600.0, 6000.0, size=count)


def calibrated_bandwidth(nodes: np.ndarray, iterations: np.ndarray,
                         compute: np.ndarray, raw: np.ndarray, P: int,
                         alpha: float) -> float:
    """``B`` with ``alpha = (V/B) / (W + U/B)`` (eq. 2), or ``nan`` if no
    positive ``B`` reaches ``alpha``."""
    share = nodes / P
    V = float(np.sum(iterations * raw))
    W = float(np.sum(share * iterations * compute))
    U = float(np.sum(share * iterations * raw))
    B = (V / alpha - U) / W
    return B if B > 0 and math.isfinite(B) else math.nan


@dataclass(frozen=True)
class Generated:
    """A seed-000 workload and how it was drawn."""

    instance: Instance
    family: str
    profile: str
    variant: str
    alpha: float
    bandwidth: float
    rejected: int


def generate_ijhpca2023(family: str, profile: str, alpha: float, seed: int, *,
                        jobs: int = 100, variant: str = "calibrated",
                        max_redraws: int = 1000) -> Generated:
    """One workload of family ``mira``/``uniform`` with I/O profile
    ``bn``/``no`` at target load ``alpha`` (see the module docstring).

    ``jobs`` (the seed does not say; 100 by default) are drawn; the same
    arguments always give the same workload.
    """
    if family not in FAMILIES:
        raise OptionError(f"family={family!r} is not one of {', '.join(FAMILIES)}")
    if profile not in PROFILES:
        raise OptionError(f"io_profile={profile!r} is not one of "
                          f"{', '.join(PROFILES)}")
    if variant not in VARIANTS:
        raise OptionError(f"variant={variant!r} is not one of {', '.join(VARIANTS)}")
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise OptionError(f"alpha={alpha!r} must be in (0, 1)")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise OptionError(f"jobs={jobs!r} must be an integer >= 1")
    check_job_count(jobs, f"jobs={jobs!r}")
    P = MIRA_P if family == "mira" else UNIFORM_P
    expected = profile_mean(profile, alpha)
    for rejected in range(max_redraws):
        rng = np.random.default_rng([int(seed), round(1e6 * alpha), rejected,
                                     FAMILIES.index(family), PROFILES.index(profile)])
        iterations = rng.integers(10, 101, size=jobs)
        if family == "mira":
            q, duration = _mira_sizes_and_durations(rng, jobs)
        else:
            q, duration = _uniform_sizes_and_durations(rng, jobs, alpha, profile)
        x = _io_shares(rng, profile, alpha, jobs)
        compute = duration / iterations
        raw = x * compute * q / P
        area = q * duration
        if abs(float(area @ x / area.sum()) - expected) > REJECT_TOLERANCE:
            continue
        if variant == "literal":
            band = 1.0
        else:
            band = calibrated_bandwidth(q, iterations, compute, raw, P, alpha)
            if math.isnan(band):
                continue
        width = len(str(jobs - 1))
        job_list = tuple(
            Job.periodic(f"j{i:0{width}d}", int(q[i]), float(compute[i]),
                         float(raw[i]), int(iterations[i]))
            for i in range(jobs))
        name = f"{family}-{profile}-a{alpha:g}-s{seed}-{variant}"
        inst = Instance(name, Platform.homogeneous(1, nodes=P, bandwidth=band),
                        job_list)
        return Generated(inst, family, profile, variant, float(alpha), band, rejected)
    raise OptionError(f"{family}-{profile} alpha={alpha:g} seed={seed}: every one of "
                      f"{max_redraws} draws was rejected")
