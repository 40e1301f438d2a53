r"""Rule 3, phase-order: the phases of a job run in order, never overlapping.

Compute ``j``, then I/O ``j``, then compute ``j+1``:
:math:`c_{ij} + w_{ij} \le o_{ij} + \tau` and
:math:`e^o_{ij} \le c_{i,j+1} + \tau`, with :math:`\tau` the tolerance of the
earlier phase's end (:mod:`~opt_sched.validation.tolerance`) and
:math:`e^o_{ij}` the I/O end of the execution model,
:math:`o_{ij} + v_{ij}/b_{k(i)}` under exclusive I/O.
Gaps are allowed: a job may wait for the I/O node, holding its nodes. A
killed job's I/O phase it never started is no phase.
"""

from __future__ import annotations

import numpy as np

from .report import Collector, format_time
from .table import PhaseTable, phase_label
from .tolerance import PhaseTolerances

__all__ = ["check_phase_order"]

RULE = 3


def check_phase_order(table: PhaseTable, tol: PhaseTolerances, out: Collector) -> None:
    """Rule 3 (see the module text); reported in time order of the
    offending start."""
    io_early = np.flatnonzero(table.o_started
                              & (table.c_end > table.o_start + tol.compute))
    same_job = table.job[1:] == table.job[:-1]
    next_early = np.flatnonzero(
        same_job & (table.o_end[:-1] > table.c_start[1:] + tol.io[:-1]))
    out.found(RULE, len(io_early) + len(next_early))
    when = np.concatenate((table.o_start[io_early], table.c_start[next_early + 1]))
    kind = np.concatenate((np.zeros(len(io_early), dtype=np.int64),
                           np.ones(len(next_early), dtype=np.int64)))
    slot = np.concatenate((io_early, next_early))
    for m in np.lexsort((slot, kind, when))[:out.room(RULE)]:
        g = int(slot[m])
        job = table.ids[table.job[g]]
        if kind[m] == 0:
            later = phase_label(table, g, "io")
            earlier = phase_label(table, g, "compute")
            ends = table.c_end[g]
        else:
            later = phase_label(table, g + 1, "compute")
            earlier = phase_label(table, g, "io")
            ends = table.o_end[g]
        out.add(RULE, f"{later} starts at t={format_time(when[m])} before {earlier} "
                f"ends at t={format_time(ends)}", jobs=(job,), phases=(earlier, later),
                time=when[m])
