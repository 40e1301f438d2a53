"""Machine time that is already taken when a schedule starts.

A window of an online schedule (``opt_sched.experiments.window``) starts
while other jobs are still running: they hold nodes until their ends, and
their remaining I/O phases occupy the I/O node at fixed times. For the
window's exact model and bounds these are :class:`Reservations` of a
one-partition platform, measured from the window start (time 0):

- ``node_holds``: pairs ``(end, nodes)``: ``nodes`` nodes are held on
  ``[0, end)``. Free nodes ``f(t) = P - sum_{end > t} nodes`` only grow;
- ``io_busy``: the half-open intervals ``[start, end)`` on which the I/O node
  serves reserved I/O (sorted, disjoint after :meth:`Reservations.build`
  merges them).

A schedule *respects* the reservations when, at every ``t``, its jobs use at
most ``f(t)`` nodes and none of its I/O phases overlaps an ``io_busy``
interval. The rules of SPEC §3 otherwise hold as usual.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .errors import OptionError
from .rate_profile import RateProfile

__all__ = ["Reservations"]


@dataclass(frozen=True)
class Reservations:
    """Nodes held from time 0 and I/O-node busy intervals (module doc)."""

    node_holds: tuple[tuple[float, int], ...] = ()
    io_busy: tuple[tuple[float, float], ...] = ()

    @classmethod
    def build(cls, node_holds: Iterable[tuple[float, int]] = (),
              io_busy: Iterable[tuple[float, float]] = ()) -> Reservations:
        """Check the entries, drop empty ones, sort holds by end and merge
        overlapping or touching busy intervals."""
        holds = []
        for end, nodes in node_holds:
            if not (math.isfinite(end) and end >= 0) or int(nodes) != nodes \
                    or nodes < 0:
                raise OptionError(f"reservations: node hold (end={end!r}, "
                                  f"nodes={nodes!r}) needs end >= 0 and nodes >= 0")
            if end > 0 and nodes > 0:
                holds.append((float(end), int(nodes)))
        busy = []
        for start, end in sorted(io_busy):
            if not (math.isfinite(start) and math.isfinite(end) and start <= end):
                raise OptionError(f"reservations: I/O interval [{start!r}, {end!r}) "
                                  "is not an interval")
            if end <= start:
                continue
            if busy and start <= busy[-1][1]:
                busy[-1] = (busy[-1][0], max(busy[-1][1], end))
            else:
                busy.append((float(start), float(end)))
        return cls(tuple(sorted(holds)), tuple(busy))

    @cached_property
    def _busy_ends(self) -> np.ndarray:
        return np.fromiter((e for _, e in self.io_busy), float)

    @property
    def empty(self) -> bool:
        return not self.node_holds and not self.io_busy

    @property
    def held_nodes(self) -> int:
        """Nodes held at time 0."""
        return sum(q for _, q in self.node_holds)

    @property
    def last_end(self) -> float:
        """The end of the last reservation (0 without any)."""
        ends = [e for e, _ in self.node_holds] + [e for _, e in self.io_busy]
        return max(ends, default=0.0)

    def check_fits(self, nodes: int) -> None:
        """:class:`OptionError` if the holds need more than ``nodes`` nodes."""
        if self.held_nodes > nodes:
            raise OptionError(f"reservations hold {self.held_nodes} nodes at time 0, "
                              f"the partition has {nodes}")

    def free_from(self, nodes: int, need: int) -> float:
        """The first time at which ``need`` of ``nodes`` nodes are free (they
        stay free from then on)."""
        if need > nodes:
            raise OptionError(f"reservations: {need} nodes needed, partition has "
                              f"{nodes}")
        free = nodes - self.held_nodes
        if free >= need:
            return 0.0
        for end, q in self.node_holds:  # sorted by end
            free += q
            if free >= need:
                return end
        raise OptionError("reservations: inconsistent node holds")  # pragma: no cover

    def node_profile(self, nodes: int) -> RateProfile:
        """``f(t)``, the free nodes, as a rate (node-seconds per second)."""
        self.check_fits(nodes)
        if not self.node_holds:
            return RateProfile.constant(float(nodes))
        starts, rates = [0.0], [float(nodes - self.held_nodes)]
        for end, q in self.node_holds:
            if end == starts[-1]:
                rates[-1] += q
            else:
                starts.append(end)
                rates.append(rates[-1] + q)
        return RateProfile(starts, rates)

    def io_profile(self, bandwidth: float) -> RateProfile:
        """The I/O node's rate: ``bandwidth`` outside the busy intervals, 0
        inside."""
        starts, rates = [0.0], [bandwidth]
        for start, end in self.io_busy:
            if start <= starts[-1]:
                rates[-1] = 0.0
            else:
                starts.append(start)
                rates.append(0.0)
            starts.append(end)
            rates.append(bandwidth)
        return RateProfile(starts, rates)

    def io_first_fit(self, ready: float, duration: float) -> float:
        """The earliest ``s >= ready`` with ``[s, s + duration)`` free of every
        busy interval (a non-preemptive I/O phase alone on the node)."""
        s = ready
        if duration <= 0 or not self.io_busy:
            return s
        # the first busy interval ending after s
        k = int(np.searchsorted(self._busy_ends, s, side="right"))
        while k < len(self.io_busy):
            start, end = self.io_busy[k]
            if s + duration <= start:
                return s
            s = max(s, end)
            k += 1
        return s
