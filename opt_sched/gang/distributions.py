r"""Hyper-Erlang distributions of common order (Jann et al. 1997).

A hyper-Erlang distribution of common order ``k`` with two branches is a
mixture: with probability :math:`p_j` the value is an Erlang-``k`` variable
of rate :math:`\lambda_j` (the sum of ``k`` exponentials), ``j = 1, 2``.
It generalises the exponential (one branch, ``k = 1``), the
hyper-exponential (``k = 1``) and the Erlang (one branch) distributions, and
Jann et al. fit one to the inter-arrival and service times of each job-size
range by matching three moments.

We do not have Jann et al.'s fitted parameters (neither for the CTC SP2
nor for ASCI Blue-Pacific), so :func:`hyper_erlang` builds the two-branch
distribution from the first two moments instead, with *balanced means*
(:math:`p_1 \mu_1 = p_2 \mu_2`, :math:`\mu_j = k/\lambda_j` the branch
means). For a mean ``m`` and a coefficient of variation ``c``:

.. math::

    E[X^2] = \left(1 + \tfrac1k\right) \sum_j p_j \mu_j^2
           = \left(1 + \tfrac1k\right) \frac{m^2}{4 p_1 p_2},
    \qquad
    p_1 p_2 = \frac{1 + 1/k}{4 (1 + c^2)},

so :math:`p_1 = (1 + \sqrt{1 - 4 p_1 p_2}) / 2`, :math:`\mu_j = m / (2 p_j)`.
This needs :math:`c^2 \ge 1/k` (an Erlang-``k`` alone has :math:`c^2 = 1/k`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import OptionError

__all__ = ["HyperErlang", "hyper_erlang"]


@dataclass(frozen=True)
class HyperErlang:
    """Two-branch hyper-Erlang of common ``order``: branch ``j`` has
    probability ``probs[j]`` and rate ``rates[j]`` (per stage)."""

    order: int
    probs: tuple[float, float]
    rates: tuple[float, float]

    @property
    def mean(self) -> float:
        return sum(p * self.order / r for p, r in zip(self.probs, self.rates))

    @property
    def cv(self) -> float:
        k = self.order
        second = sum(p * (k * (k + 1)) / r**2 for p, r in zip(self.probs, self.rates))
        return math.sqrt(second / self.mean**2 - 1.0)

    def sample(self, rng: np.random.Generator, count: int) -> np.ndarray:
        """``count`` independent draws."""
        branch = rng.random(count) >= self.probs[0]
        rate = np.where(branch, self.rates[1], self.rates[0])
        return rng.gamma(self.order, 1.0, count) / rate


def hyper_erlang(mean: float, cv: float, order: int = 1) -> HyperErlang:
    """The balanced-means two-branch hyper-Erlang of ``order`` with this
    ``mean`` and coefficient of variation ``cv`` (see the module docstring).

    Raises
    ------
    OptionError
        ``mean <= 0``, ``order < 1`` or ``cv**2 < 1/order``.
    """
    if not mean > 0:
        raise OptionError(f"mean={mean!r} must be > 0")
    if isinstance(order, bool) or int(order) != order or order < 1:
        raise OptionError(f"order={order!r} must be an integer >= 1")
    if not cv * cv >= 1.0 / order - 1e-12:
        floor = 1 / math.sqrt(order)
        raise OptionError(f"cv={cv!r} is below 1/sqrt(order)={floor:.3g}: no "
                          f"hyper-Erlang of order {order} has it")
    product = (1.0 + 1.0 / order) / (4.0 * (1.0 + cv * cv))
    p1 = (1.0 + math.sqrt(max(0.0, 1.0 - 4.0 * product))) / 2.0
    p2 = 1.0 - p1
    if p2 <= 1e-15:  # cv^2 == 1/k: a single Erlang
        rate = order / mean
        return HyperErlang(int(order), (1.0, 0.0), (rate, rate))
    rates = (order * 2.0 * p1 / mean, order * 2.0 * p2 / mean)
    return HyperErlang(int(order), (p1, p2), rates)
