"""Periodic jobs and their multiplicities: what one period of a cyclic
schedule must contain (``models/cyclic.md``).

A job is *periodic* (SPEC §2) when ``w_ij = w_i`` and ``v_ij = v_i``; with
``v_i > 0`` each of its iterations is one operation of duration
``d_i = v_i / b_k`` preceded by ``w_i`` of compute, so its *cycle* is
``c_i = w_i + d_i`` (the characteristic time). A cyclic schedule repeats a
period of length ``lambda`` in which job ``i`` runs ``m_i >= 1`` iterations.

Multiplicities (:func:`multiplicities`):

- ``"completion"`` (makespan): ``m_i`` proportional to ``n_i``, so that
  every job runs out of iterations after about the same number of periods
  and the node keeps every job until the end;
- ``"rate"`` (max stretch): ``m_i`` proportional to ``1 / c_i``, so that
  ``m_i c_i`` is about the same for every job and the period slows every job
  by about the same factor ``lambda / (m_i c_i)``.

When every job has the same contention-free length ``T_i = n_i c_i`` (the
Tucan applications of seed 003, Table 1) the two rules coincide.
The ratios are made integers by :func:`small_integer_ratio`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ....errors import OptionError
from ..orders import NodeJobs

__all__ = ["RULES", "CyclicPattern", "cyclic_pattern", "is_periodic_node",
           "multiplicities", "small_integer_ratio"]

RULES = ("completion", "rate")

MAX_OPS_PER_PERIOD = 24
"""Default cap on ``sum_i m_i`` (operations in one period), raised to the
number of jobs when there are more."""


def small_integer_ratio(weights: Sequence[float], cap: int) -> tuple[int, ...]:
    """Integers ``m_i >= 1`` proportional to ``weights`` with ``sum m <= cap``.

    Exact when the weights have a rational ratio whose reduced integers sum to
    at most ``cap`` (e.g. ``(1, 2, 4, 4, 2)`` for ``1/c`` of the Tucan
    applications); otherwise, among the scalings ``m_i = max(1,
    round(M w_i / max w))`` with ``sum m <= cap``, the one of smallest
    relative error ``max_i |m_i / (M w_i / max w) - 1|`` (ties: smaller sum).

    Examples
    --------
    >>> small_integer_ratio([1 / 42, 1 / 21, 1 / 10.5, 1 / 10.5, 1 / 21], 24)
    (1, 2, 4, 4, 2)
    >>> small_integer_ratio([3, 3, 3], 24)
    (1, 1, 1)
    """
    if not weights or min(weights) <= 0:
        raise OptionError(f"multiplicities: weights {list(weights)!r} must be > 0")
    if cap < len(weights):
        raise OptionError(f"multiplicities: cap={cap} is below the number of jobs "
                          f"{len(weights)}")
    fractions = [Fraction(w).limit_denominator(10**6) for w in weights]
    if all(abs(float(f) - w) <= 1e-12 * w for f, w in zip(fractions, weights)):
        lcm = math.lcm(*(f.denominator for f in fractions))
        ints = [int(f * lcm) for f in fractions]
        g = math.gcd(*ints)
        exact = tuple(x // g for x in ints)
        if sum(exact) <= cap:
            return exact
    top = max(weights)
    best: tuple[float, int, tuple[int, ...]] | None = None
    for scale in range(1, cap + 1):
        ms = tuple(max(1, round(scale * w / top)) for w in weights)
        if sum(ms) > cap:
            break
        error = max(abs(m / (scale * w / top) - 1.0) for m, w in zip(ms, weights))
        key = (error, sum(ms), ms)
        if best is None or key[:2] < best[:2]:
            best = key
    assert best is not None  # scale 1 gives all ones, within the cap
    return best[2]


@dataclass(frozen=True)
class CyclicPattern:
    """What one period holds on one node.

    ``jobs[p]`` is the local job (of ``node``) of pattern job ``p``, which
    runs ``multiplicity[p]`` iterations per period; ``compute[p]`` and
    ``duration[p]`` are its ``w`` and ``d``. Jobs without I/O are not in the
    pattern (they never use the node).
    """

    node: NodeJobs
    jobs: tuple[int, ...]
    multiplicity: tuple[int, ...]
    compute: tuple[float, ...]
    duration: tuple[float, ...]

    @property
    def cycle(self) -> tuple[float, ...]:
        """``c_p = w_p + d_p``."""
        return tuple(w + d for w, d in zip(self.compute, self.duration))

    @property
    def num_ops(self) -> int:
        return sum(self.multiplicity)

    def period_lower_bound(self) -> float:
        """``max(sum_p m_p d_p, max_p m_p c_p)``: the node serves the period's
        I/O one operation at a time, and job ``p`` runs ``m_p`` whole cycles
        per period (the steady-state LP of ``models/cyclic.md``)."""
        load = math.fsum(m * d for m, d in zip(self.multiplicity, self.duration))
        chain = max((m * c for m, c in zip(self.multiplicity, self.cycle)),
                    default=0.0)
        return max(load, chain)

    def serial_period(self) -> float:
        """``sum_p m_p c_p``: each job runs its ``m_p`` iterations alone in its
        own slot; always a feasible period."""
        return math.fsum(m * c for m, c in zip(self.multiplicity, self.cycle))


def is_periodic_node(node: NodeJobs) -> bool:
    """Every job of ``node`` that does I/O is periodic with I/O at every
    iteration, and at least one job does I/O."""
    instance = node.instance
    using = 0
    for j, i in enumerate(node.members):
        job = instance.jobs[i]
        if not node.durations[j]:
            continue
        using += 1
        if not job.is_periodic or len(node.durations[j]) != job.iterations:
            return False
    return using > 0


def multiplicities(node: NodeJobs, rule: str = "completion",
                   cap: int | None = None) -> tuple[int, ...]:
    """``m_p`` for the jobs of ``node`` that do I/O (module docstring).

    ``cap`` bounds ``sum m`` (default ``max(MAX_OPS_PER_PERIOD, jobs)``); a
    job never runs more iterations per period than it has (``m_p <= n_p``).
    """
    if rule not in RULES:
        raise OptionError(f"rule={rule!r} is not one of {', '.join(RULES)}")
    using = [j for j in range(node.num_jobs) if node.durations[j]]
    if cap is None:
        cap = max(MAX_OPS_PER_PERIOD, len(using))
    if rule == "completion":
        weights = [float(node.counts[j]) for j in using]
    else:
        weights = [1.0 / (node.lags[j][0] + node.durations[j][0]) for j in using]
    ratio = small_integer_ratio(weights, cap)
    return tuple(min(m, node.counts[j]) for m, j in zip(ratio, using))


def cyclic_pattern(node: NodeJobs, rule: str = "completion",
                   multiplicity: Sequence[int] | None = None,
                   cap: int | None = None) -> CyclicPattern:
    """The pattern of ``node`` (its periodic jobs with I/O).

    Raises
    ------
    OptionError
        A job with I/O is not periodic (:func:`is_periodic_node`), or a given
        ``multiplicity`` has the wrong length or a value ``< 1``.
    """
    if not is_periodic_node(node):
        raise OptionError(f"cyclic: partition {node.partition} of "
                          f"{node.instance.name!r} has a non-periodic job with I/O "
                          "(or no I/O at all)")
    using = tuple(j for j in range(node.num_jobs) if node.durations[j])
    if multiplicity is None:
        ms = multiplicities(node, rule, cap)
    else:
        ms = tuple(int(m) for m in multiplicity)
        if len(ms) != len(using) or min(ms) < 1:
            raise OptionError(f"cyclic: multiplicity={list(multiplicity)!r} needs "
                              f"{len(using)} integers >= 1")
    return CyclicPattern(node, using, ms,
                         tuple(node.lags[j][0] for j in using),
                         tuple(node.durations[j][0] for j in using))
