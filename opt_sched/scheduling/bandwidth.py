"""Bandwidth rules of the I/O-aware schedulers: how a job's average I/O
bandwidth ``beta_i`` (:attr:`JobTable.bandwidth`) limits when it starts.
A rule only states its parameters; the compiled passes
(:mod:`~opt_sched.scheduling.backfill_kernel`) apply them, with a relative
tolerance of ``1e-9`` on sums of bandwidths.

A rule is composed into a profile scheduler
(:class:`~opt_sched.scheduling.backfilling.ProfileScheduler`):

- :class:`IgnoreBandwidth` -- nodes only (``easy``, ``conservative``).
- :class:`ReservedBandwidth` -- seed 000's *strict constraint*: at every
  instant the running jobs' average bandwidths sum to at most ``B``,

  .. math:: \\beta_i + \\sum_{j\\ \\text{running}} \\beta_j \\le B ,

  and bandwidth is planned like nodes: the availability profile tracks the
  free bandwidth over time, so a reservation holds both nodes and bandwidth
  and a backfilled job may not take bandwidth the reservation needs.
- :class:`BandwidthLimit` -- Herbein et al.'s admission limit ``L``: a job
  starts (in order or as a backfill) only if
  ``beta_i + sum_{running} beta_j <= L``; reservations hold nodes only.
- :class:`TargetThroughput` -- seed 001's workload-adaptive rule: the limit
  ``L`` (the "hard limit"), and a throughput *target* for the regular jobs
  of the two-group approximation (the math is in
  :mod:`~opt_sched.scheduling.adaptive`, which keeps the target up to date);
  a job the rule refuses holds no reservation.

The demands ``beta_i`` are the declared average bandwidths, or, for the
rules checked at start time, estimates from history
(:mod:`~opt_sched.scheduling.estimators`).
"""

from __future__ import annotations

import math

from ..errors import OptionError
from .backfill_kernel import CHECK_LIMIT, CHECK_NONE, CHECK_TARGET

__all__ = ["BandwidthLimit", "BandwidthRule", "IgnoreBandwidth", "ReservedBandwidth",
           "TargetThroughput"]


class BandwidthRule:
    """Nodes only (the base rule): no bandwidth is tracked or checked."""

    reserves = False
    """Whether the availability profile tracks bandwidth."""

    checks = False
    """Whether an admission test is made before a start."""

    skips_refused = False
    """Whether a job that fits now but is refused by the admission test gets
    no reservation (``False``: it keeps its first fit, now, as its
    reservation -- its machines stay reserved while it waits)."""

    @property
    def check_mode(self) -> int:
        """The compiled admission rule (``backfill_kernel.CHECK_*``)."""
        return CHECK_LIMIT if self.checks else CHECK_NONE

    def capacity(self, partition_bandwidth: float) -> float | None:
        """The bandwidth capacity the profile tracks (``None``: none)."""
        return None

    def limit_for(self, partition_bandwidth: float) -> float:
        """The admission limit ``L`` checked at start time (``inf``: none)."""
        return math.inf


class IgnoreBandwidth(BandwidthRule):
    """Nodes only."""


class ReservedBandwidth(BandwidthRule):
    """Seed 000's strict constraint, with bandwidth reserved like nodes.

    ``capacity`` overrides the partition bandwidth ``B`` (``None``: ``B``).
    """

    reserves = True

    def __init__(self, capacity: float | None = None) -> None:
        if capacity is not None and not (capacity > 0 and math.isfinite(capacity)):
            raise OptionError(f"bandwidth={capacity!r} must be a positive number")
        self._capacity = capacity

    def capacity(self, partition_bandwidth: float) -> float | None:
        return partition_bandwidth if self._capacity is None else self._capacity


class BandwidthLimit(BandwidthRule):
    """Start only if ``beta_i + sum_running beta_j <= L``; ``limit`` is
    ``L`` in bandwidth units (``None``: the partition bandwidth ``B``)."""

    checks = True

    def __init__(self, limit: float | None = None) -> None:
        if limit is not None and not (limit > 0 and math.isfinite(limit)):
            raise OptionError(f"limit={limit!r} must be a positive number")
        self.limit = limit

    def limit_for(self, partition_bandwidth: float) -> float:
        return partition_bandwidth if self.limit is None else self.limit


class TargetThroughput(BandwidthLimit):
    """Seed 001's workload-adaptive admission: the hard limit ``L`` of
    :class:`BandwidthLimit`, and for a *regular* job ``j`` (excess ``r'_j``
    over the background of the two-group approximation) also

    .. math:: X + r'_j / 2 \\le R^{*\\prime}

    where ``X`` is the running jobs' total excess and ``R*'`` the reduced
    target -- the start brings ``X`` no further from the target than it is --
    unless no regular job runs (so I/O never starves). A job refused by
    either test holds no reservation: its machines stay free for others.
    :class:`~opt_sched.scheduling.adaptive.WorkloadAdaptive` sets ``X``,
    ``R*'``, ``r'_j`` and the groups before each pass.
    """

    skips_refused = True

    @property
    def check_mode(self) -> int:
        return CHECK_TARGET
