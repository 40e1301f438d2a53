r"""Rule 1, release-and-dependencies.

:math:`S_i \ge r_i - k\,u(r_i)` (so also :math:`S_i \ge 0` up to rounding,
releases being non-negative) and :math:`S_i \ge C_p - \tau_p` for every
predecessor ``p`` in ``job.after``, with :math:`\tau_p` the tolerance of the
end ``C_p`` (:mod:`~opt_sched.validation.tolerance`). ``C_p`` is the
completion of ``p``: the end of its last phase, or its kill time if it was
killed at its wall time. Jobs the schedule does not list are skipped (rule 0
reports them).
"""

from __future__ import annotations

import numpy as np

from ..instance import Instance
from .report import Collector, format_time
from .table import PhaseTable, phase_label
from .tolerance import PhaseTolerances

__all__ = ["check_release_and_dependencies", "first_phase_label"]

RULE = 1


def first_phase_label(table: PhaseTable, i: int) -> str:
    """The label of the phase that starts job ``i`` (``S_i``)."""
    lo, hi = table.first[i], table.first[i + 1]
    g_c = lo + int(np.argmin(table.c_start[lo:hi]))
    io = np.where(table.o_started[lo:hi], table.o_start[lo:hi], np.inf)
    g_o = lo + int(np.argmin(io))
    if table.o_started[g_o] and table.o_start[g_o] < table.c_start[g_c]:
        return phase_label(table, g_o, "io")
    return phase_label(table, g_c, "compute")


def check_release_and_dependencies(instance: Instance, table: PhaseTable,
                                   tol: PhaseTolerances, out: Collector) -> None:
    """Rule 1 (see the module text)."""
    release = np.array([job.release for job in instance.jobs])
    slack = tol.rule.times(np.maximum(np.abs(table.start), release))
    early = np.flatnonzero(table.start < release - slack)
    out.found(RULE, len(early))
    for i in early[:out.room(RULE)]:
        job = instance.jobs[i]
        what = ("time 0" if job.release == 0
                else f"its release {format_time(job.release)}")
        out.add(RULE, f"job {job.id} starts at t={format_time(table.start[i])} before "
                f"{what}", jobs=(job.id,), phases=(first_phase_label(table, i),),
                time=table.start[i])
    for i, job in enumerate(instance.jobs):
        if not job.after or not table.listed[i]:
            continue
        for dep in job.after:
            p = instance.index[dep]
            if table.listed[p] and table.start[i] < table.end[p] - tol.job[p]:
                out.one(RULE, f"job {job.id} starts at t={format_time(table.start[i])} "
                        f"before its predecessor {dep} completes at "
                        f"t={format_time(table.end[p])}",
                        jobs=(job.id, dep), phases=(first_phase_label(table, i),),
                        time=table.start[i])
