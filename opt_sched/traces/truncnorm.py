"""The normal distribution truncated to an interval: moments and sampling.

Seed 000's I/O profiles draw each job's I/O-time fraction ``X`` from a
normal ``N(mu, sd^2)`` truncated to ``[0, 1]``. With ``alpha = (low - mu)/sd``,
``beta = (high - mu)/sd`` and ``Z = Phi(beta) - Phi(alpha)``, its mean is

.. math:: E[X] = \\mu + sd \\, \\frac{\\varphi(\\alpha) - \\varphi(\\beta)}{Z}.

With ``sd = sqrt(0.1)`` the means of ``mu = 0.1`` and ``mu = 0.9`` on
``[0, 1]`` are 0.2894 and 0.7106: the 0.289 / 0.711 the seed prints (with
``sd = 0.1`` they would be 0.129 / 0.871), so the seed's "variance 0.1" is
meant literally.

Sampling is by inversion, ``X = mu + sd * Phi^{-1}(Phi(alpha) + U Z)`` with
``U ~ U[0, 1)`` (one uniform per value, so a seed gives the same values on
every platform numpy supports); an interval in the upper tail is sampled in
its mirror image, where the CDF values are small and exact.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["loc_for_truncated_mean", "normal_cdf", "normal_ppf",
           "sample_truncated_normal", "truncated_normal_mean"]

_SQRT2 = math.sqrt(2.0)


def normal_cdf(x: float) -> float:
    """``Phi(x)``, accurate in both tails (via ``erfc``)."""
    return 0.5 * math.erfc(-x / _SQRT2)


def _density(x: float) -> float:
    return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def _mass(a: float, b: float) -> float:
    """``Phi(b) - Phi(a)`` for ``a <= b``, computed in the accurate tail."""
    if a > 0:
        return normal_cdf(-a) - normal_cdf(-b)
    return normal_cdf(b) - normal_cdf(a)


def truncated_normal_mean(loc: float, scale: float, low: float = 0.0,
                          high: float = 1.0) -> float:
    """``E[X]`` for ``X ~ N(loc, scale^2)`` truncated to ``[low, high]``."""
    a, b = (low - loc) / scale, (high - loc) / scale
    mass = _mass(a, b)
    if mass <= 0.0:  # the whole mass is beyond double precision: an endpoint
        return low if a > 0 else high
    return loc + scale * (_density(a) - _density(b)) / mass


def loc_for_truncated_mean(mean: float, scale: float, low: float = 0.0,
                           high: float = 1.0) -> float:
    """The ``loc`` whose truncated mean is ``mean`` (bisection; the truncated
    mean increases with ``loc``). ``mean`` outside what ``loc`` in
    ``[low - 20 scale, high + 20 scale]`` reaches is clipped to that range."""
    lo, hi = low - 20.0 * scale, high + 20.0 * scale
    if mean <= truncated_normal_mean(lo, scale, low, high):
        return lo
    if mean >= truncated_normal_mean(hi, scale, low, high):
        return hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if truncated_normal_mean(mid, scale, low, high) < mean:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-15 * max(1.0, abs(mid)):
            break
    return 0.5 * (lo + hi)


# Wichura (1988), algorithm AS 241 (PPND16): Phi^{-1} to about 1e-16.
# Coefficients of numerator / denominator polynomials, lowest power first.
_A = (3.387132872796366608, 133.14166789178437745, 1971.5909503065514427,
      13731.693765509461125, 45921.953931549871457, 67265.770927008700853,
      33430.575583588128105, 2509.0809287301226727)
_B = (1.0, 42.313330701600911252, 687.1870074920579083, 5394.1960214247511077,
      21213.794301586595867, 39307.89580009271061, 28729.085735721942674,
      5226.495278852545925)
_C = (1.42343711074968357734, 4.6303378461565452959, 5.7694972214606914055,
      3.64784832476320460504, 1.27045825245236838258, 0.24178072517745061177,
      0.0227238449892691845833, 7.7454501427834140764e-4)
_D = (1.0, 2.05319162663775882187, 1.6763848301838038494,
      0.68976733498510000455, 0.14810397642748007459, 0.0151986665636164571966,
      5.475938084995344946e-4, 1.05075007164441684324e-9)
_E = (6.6579046435011037772, 5.4637849111641143699, 1.7848265399172913358,
      0.29656057182850489123, 0.026532189526576123093, 0.0012426609473880784386,
      2.71155556874348757815e-5, 2.01033439929228813265e-7)
_F = (1.0, 0.59983220655588793769, 0.13692988092273580531,
      0.0148753612908506148525, 7.868691311456132591e-4, 1.8463183175100546818e-5,
      1.4215117583164458887e-7, 2.04426310338993978564e-15)


def _poly(coefficients: tuple[float, ...], x: np.ndarray) -> np.ndarray:
    out = np.full_like(x, coefficients[-1])
    for c in coefficients[-2::-1]:
        out = out * x + c
    return out


def normal_ppf(p: np.ndarray) -> np.ndarray:
    """``Phi^{-1}(p)`` elementwise for ``0 < p < 1`` (AS 241, vectorised)."""
    p = np.asarray(p, dtype=float)
    q = p - 0.5
    out = np.empty_like(p)
    central = np.abs(q) <= 0.425
    r = 0.180625 - q[central] ** 2
    out[central] = q[central] * _poly(_A, r) / _poly(_B, r)
    tail = ~central
    r = np.sqrt(-np.log(np.where(q[tail] < 0, p[tail], 1.0 - p[tail])))
    near = r <= 5.0
    value = np.empty_like(r)
    value[near] = _poly(_C, r[near] - 1.6) / _poly(_D, r[near] - 1.6)
    value[~near] = _poly(_E, r[~near] - 5.0) / _poly(_F, r[~near] - 5.0)
    out[tail] = np.where(q[tail] < 0, -value, value)
    return out


def sample_truncated_normal(rng: np.random.Generator, loc: np.ndarray | float,
                            scale: float, size: int, low: float = 0.0,
                            high: float = 1.0) -> np.ndarray:
    """``size`` values of ``N(loc, scale^2)`` truncated to ``[low, high]``.

    ``loc`` is a scalar or one value per draw. Uses exactly ``size`` values
    of ``rng.random``.
    """
    u = rng.random(size)
    locs = np.broadcast_to(np.asarray(loc, dtype=float), (size,))
    mirror = np.empty(size, dtype=bool)
    base = np.empty(size)
    mass = np.empty(size)
    values, inverse = np.unique(locs, return_inverse=True)
    for k, mu in enumerate(values.tolist()):
        a, b = (low - mu) / scale, (high - mu) / scale
        flip = a + b > 0
        if flip:  # sample -Z on [-b, -a], in the lower tail
            a, b = -b, -a
        chosen = inverse == k
        mirror[chosen] = flip
        base[chosen] = normal_cdf(a)
        mass[chosen] = _mass(a, b)
    p = np.clip(base + u * mass, 1e-300, 1.0 - 1e-16)
    z = normal_ppf(p)
    out = locs + scale * np.where(mirror, -z, z)
    return np.clip(out, low, high)
