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
"""

from __future__ import annotations

import math

from ..errors import OptionError

__all__ = ["BandwidthLimit", "BandwidthRule", "IgnoreBandwidth", "ReservedBandwidth"]


class BandwidthRule:
    """Nodes only (the base rule): no bandwidth is tracked or checked."""

    reserves = False
    """Whether the availability profile tracks bandwidth."""

    checks = False
    """Whether :meth:`admits` must be asked before a start."""

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
