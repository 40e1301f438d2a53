r"""Rule 5 under the ``exclusive`` execution model (seeds 000, 003).

One I/O phase at a time per I/O node, at full bandwidth, never interrupted.
I/O phase ``j`` of job ``i`` occupies :math:`[o_{ij}, o_{ij} + v_{ij}/b_{k(i)})`
(:meth:`ExclusiveIo.io_ends`). On each partition, sort the I/O phases of
positive length by start; each must start no earlier than the largest end
before it,

.. math::

    o_{(m)} \ge \max_{l < m} \left(o_{(l)} + \ell_{(l)} - \tau_{(l)}\right),

with :math:`\tau_{(l)} \le \ell_{(l)} / 2` the tolerance of the end of phase
``l`` (:mod:`~opt_sched.validation.tolerance`): an overlap of a whole phase
is never tolerated.

One violation per phase that starts inside an earlier one; its partner is the
earlier phase that ends last. Zero-length phases never conflict. That a phase
is a single interval (no interruption) follows from its stated end, if any,
being its start plus its length (rule 2).
"""

from __future__ import annotations

import numpy as np

from ...instance import Instance
from ...schedule import Schedule
from ..io_rule import IoPhases
from ..report import IO_RULE, Collector, format_time
from ..sweep import conflicts
from ..table import PhaseTable, phase_label
from ..tolerance import PhaseTolerances

__all__ = ["ExclusiveIo"]


class ExclusiveIo:
    """Exclusive, non-preemptive I/O: the validator's side of ``exclusive``."""

    execution = "exclusive"
    name = "exclusive-io"

    def io_ends(self, instance: Instance, schedule: Schedule,
                phases: IoPhases) -> np.ndarray:
        """``o + v / b``: a phase runs alone at full bandwidth."""
        return phases.start + phases.volume / phases.bandwidth

    def check(self, instance: Instance, schedule: Schedule, table: PhaseTable,
              tol: PhaseTolerances, out: Collector) -> None:
        """Report every I/O phase that starts inside an earlier one on its
        I/O node (see the module text)."""
        live = np.flatnonzero(table.o_started & (table.o_end > table.o_start))
        late, partner = conflicts(table.partition[table.job[live]],
                                  table.o_start[live],
                                  table.o_end[live] - tol.io[live], 0.0)
        late, partner = live[late], live[partner]
        out.found(IO_RULE, len(late))
        keep = np.argsort(table.o_start[late], kind="stable")[:out.room(IO_RULE)]
        for a, b in zip(partner[keep], late[keep]):
            la, lb = phase_label(table, a, "io"), phase_label(table, b, "io")
            k = int(table.partition[table.job[b]])
            out.add(IO_RULE, f"{la} [{format_time(table.o_start[a])}, "
                    f"{format_time(table.o_end[a])}) overlaps {lb} "
                    f"[{format_time(table.o_start[b])}, {format_time(table.o_end[b])}) "
                    f"on partition {k} at t={format_time(table.o_start[b])}",
                    jobs=(table.ids[table.job[a]], table.ids[table.job[b]]),
                    phases=(la, lb), time=table.o_start[b])
