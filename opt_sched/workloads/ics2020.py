"""The synthetic workload protocol of seed 003 §6.2.2 (SPEC §8).

For a target I/O load ``alpha_gen`` and a seed, one workload is drawn as:

1. ``beta ~ U[0, 1]``: the share of low-I/O jobs.
2. ``n ~ U{25, ..., 100}`` jobs. Each job is periodic, and independently:
   ``n_i ~ U{250, ..., 1000}`` iterations; ``w_i ~ U[10, 100]``; it is a
   low-I/O job with probability ``beta``; its I/O ratio ``x_i = v_i / w_i``
   follows a normal law of mean ``mu_1 = 0.1`` (low) or ``mu_2 = 0.9``
   (high), standard deviation ``0.1``, truncated to ``[x, y]``.
3. ``Q_i`` is drawn from ``{2^j, j = 0..11}`` with mean

   .. math:: \\bar Q = \\frac{P(\\beta\\mu_1 + (1-\\beta)\\mu_2)}
                       {\\alpha_{gen}(1 + \\beta\\mu_1 + (1-\\beta)\\mu_2)}

   (seed 003; the seed replaces every quantity of eq. 6 by its average).

Choices the seed leaves open, made here:

- **Truncation interval** ``[x, y] = [0, 1]`` (``io_ratio_bounds``). The lower
  end must be ``>= 0`` (a volume is never negative). ``[0, 1]`` cuts both
  laws exactly one standard deviation from their mean on the near side
  (``0.1 - 0.1`` and ``0.9 + 0.1``) and nowhere else significant, so the two
  classes are distorted symmetrically: the truncated means are
  ``0.1 + 0.0288`` and ``0.9 - 0.0288`` (``sigma phi(1) / Phi(1)``), the
  mixture mean moves by at most 0.029, and the "low/high" labels keep
  their meaning (a high-I/O job spends at most as long in I/O as in
  compute). A wider upper end (e.g. 2) would leave the high class untouched
  but make the low one the only distorted class.
- **The Q distribution.** Among the distributions on ``{2^j}`` with mean
  ``Q-bar``, the one of maximal entropy, ``Pr(Q = q) ∝ exp(lambda q)``,
  with ``lambda`` solved by bisection (the mean increases with ``lambda``).
  ``Q-bar`` is clipped to ``[1, 2048]``, the means this set can have.
- **Volumes.** ``v_i = x_i w_i b``, so that ``x_i`` is the ratio of I/O
  *time* to compute time on a partition of bandwidth ``b`` (the seed has
  ``b = 1``, where ``v_i / w_i = x_i``).
- **Randomness.** One :class:`numpy.random.Generator` seeded with
  ``(seed, round(1e6 alpha_gen))``: workloads of different ``alpha_gen`` are
  independent draws, as in the seed, and the draws do not depend on
  ``io_nodes`` (the same jobs on 1, 3 or 5 I/O nodes).

The actual load of each workload is :meth:`Instance.io_load` (eq. 6); the
seed reports results against it, not against ``alpha_gen``.
"""

from __future__ import annotations

import math

import numpy as np

from ..errors import OptionError
from ..instance import Instance, Job, Platform
from .limits import MAX_ALPHA_GEN, check_job_count

__all__ = [
    "IO_RATIO_MEANS",
    "IO_RATIO_SD",
    "Q_VALUES",
    "generate_ics2020",
    "q_distribution",
    "q_mean_target",
    "truncated_normal",
]

IO_RATIO_MEANS = (0.1, 0.9)
"""``(mu_1, mu_2)``: mean I/O ratio of low- and high-I/O jobs."""

IO_RATIO_SD = 0.1

Q_VALUES = tuple(2 ** j for j in range(12))
"""The node counts ``{2^j, j = 0..11}``."""


def q_mean_target(alpha_gen: float, beta: float, nodes: int = 2048,
                  means: tuple[float, float] = IO_RATIO_MEANS) -> float:
    """``Q-bar`` of seed 003: ``P m / (alpha_gen (1 + m))`` with
    ``m = beta mu_1 + (1 - beta) mu_2``."""
    m = beta * means[0] + (1.0 - beta) * means[1]
    return nodes * m / (alpha_gen * (1.0 + m))


def q_distribution(mean: float, values: tuple[int, ...] = Q_VALUES) -> np.ndarray:
    """The maximal-entropy law on ``values`` with the given mean.

    ``p_q ∝ exp(lambda q)``; ``lambda`` is found by bisection on the
    increasing function ``lambda -> E[Q]``. A mean outside
    ``[min(values), max(values)]`` is clipped (a point mass at the end).

    Examples
    --------
    >>> p = q_distribution(100.0)
    >>> round(float(p @ np.asarray(Q_VALUES, float)), 6)
    100.0
    """
    q = np.asarray(values, dtype=float)
    lo_q, hi_q = float(q.min()), float(q.max())
    target = min(max(float(mean), lo_q), hi_q)
    if target <= lo_q:
        return (q == lo_q).astype(float)
    if target >= hi_q:
        return (q == hi_q).astype(float)
    scale = hi_q  # work with lambda * scale to keep exponents moderate

    def law(t: float) -> np.ndarray:
        z = t * q / scale
        z -= z.max()
        e = np.exp(z)
        return e / e.sum()

    lo, hi = -1.0, 1.0
    while float(law(lo) @ q) > target:
        lo *= 2.0
    while float(law(hi) @ q) < target:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if float(law(mid) @ q) < target:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * max(1.0, abs(mid)):
            break
    return law(0.5 * (lo + hi))


def truncated_normal(rng: np.random.Generator, mean: float, sd: float,
                     low: float, high: float, size: int) -> np.ndarray:
    """``size`` draws of ``N(mean, sd)`` conditioned on ``[low, high]``
    (rejection sampling; deterministic for a given generator state)."""
    out = np.empty(0)
    while len(out) < size:
        draw = rng.normal(mean, sd, size=max(16, 2 * (size - len(out))))
        out = np.concatenate([out, draw[(draw >= low) & (draw <= high)]])
    return out[:size]


def generate_ics2020(alpha_gen: float, seed: int, *, io_nodes: int = 1,
                     nodes: int = 2048, bandwidth: float = 1.0,
                     n_jobs: int | None = None,
                     io_ratio_bounds: tuple[float, float] = (0.0, 1.0)) -> Instance:
    """One workload of the seed 003 protocol (see the module docstring).

    Parameters
    ----------
    alpha_gen
        Target I/O load, ``> 0`` (the seed uses 0.5, 0.75, ..., 10).
    seed
        Integer seed; the same ``(alpha_gen, seed)`` gives the same jobs.
    io_nodes
        ``R`` homogeneous partitions of ``nodes`` nodes and ``bandwidth``.
    nodes, bandwidth
        ``P`` (2048) and ``b`` (1) per partition.
    n_jobs
        Overrides the number of jobs (drawn in 25..100 otherwise; the draw is
        still made, so the other draws do not move).
    io_ratio_bounds
        ``[x, y]`` of the truncated normals.

    Returns
    -------
    Instance
        Unmapped periodic jobs ``j00..``, all released at 0, named
        ``ics2020-a<alpha_gen>-s<seed>-r<io_nodes>``.

    Raises
    ------
    OptionError
        A parameter out of range.
    """
    if not (isinstance(alpha_gen, (int, float)) and math.isfinite(alpha_gen)
            and 0 < alpha_gen <= MAX_ALPHA_GEN):
        raise OptionError(f"ics2020: alpha_gen={alpha_gen!r} must be a number in "
                          f"(0, {MAX_ALPHA_GEN:g}] (MAX_ALPHA_GEN, "
                          f"opt_sched.workloads.limits)")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise OptionError(f"ics2020: seed={seed!r} must be an integer >= 0")
    if isinstance(io_nodes, bool) or not isinstance(io_nodes, int) or io_nodes < 1:
        raise OptionError(f"ics2020: io_nodes={io_nodes!r} must be an integer >= 1")
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, int)
                               or n_jobs < 1):
        raise OptionError(f"ics2020: n_jobs={n_jobs!r} must be an integer >= 1")
    if n_jobs is not None:
        check_job_count(n_jobs, f"ics2020: n_jobs={n_jobs!r}")
    low, high = io_ratio_bounds
    if not 0 <= low < high:
        raise OptionError(f"ics2020: io_ratio_bounds={io_ratio_bounds!r} must satisfy "
                          f"0 <= x < y")
    rng = np.random.default_rng([int(seed), round(1e6 * alpha_gen)])
    beta = float(rng.uniform(0.0, 1.0))
    drawn = int(rng.integers(25, 101))
    count = drawn if n_jobs is None else n_jobs
    iterations = rng.integers(250, 1001, size=count)
    compute = rng.uniform(10.0, 100.0, size=count)
    is_low = rng.uniform(0.0, 1.0, size=count) < beta
    ratio = np.where(
        is_low,
        truncated_normal(rng, IO_RATIO_MEANS[0], IO_RATIO_SD, low, high, count),
        truncated_normal(rng, IO_RATIO_MEANS[1], IO_RATIO_SD, low, high, count))
    q_bar = q_mean_target(alpha_gen, beta, nodes)
    q_values = tuple(v for v in Q_VALUES if v <= nodes)
    q = rng.choice(np.asarray(q_values), size=count, p=q_distribution(q_bar, q_values))
    width = len(str(count - 1))
    jobs = tuple(
        Job.periodic(f"j{i:0{width}d}", int(q[i]), float(compute[i]),
                     float(ratio[i] * compute[i] * bandwidth), int(iterations[i]))
        for i in range(count))
    platform = Platform.homogeneous(io_nodes, nodes=nodes, bandwidth=bandwidth)
    return Instance(f"ics2020-a{alpha_gen:g}-s{seed}-r{io_nodes}", platform, jobs)
