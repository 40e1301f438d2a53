r"""Rule 2, phase-lengths: every phase has its exact length.

Compute phase ``j`` lasts :math:`w_{ij}`; I/O phase ``j`` ends where the
execution model's I/O rule says (:math:`o_{ij} + v_{ij}/b_{k(i)}` under
exclusive I/O). Only the last phase a killed job started may be shorter: it
is cut at the kill (rule 7 checks the kill itself). Two checks:

- stated ends: an end the schedule states equals the true end within the
  tolerance :math:`\tau` of that end (:mod:`~opt_sched.validation.tolerance`),
  :math:`|e^c_{ij} - (c_{ij} + w_{ij})| \le \tau` and
  :math:`|e^o_{ij} - (o_{ij} + v_{ij}/b_{k(i)})| \le \tau`; an I/O
  phase is a single interval, so a longer stated end is an interruption;
- checkable times: every phase lies within
  :math:`|t| \le T_{\max}` (start and end), beyond which consecutive
  floating-point times are too far apart for any length to be shown
  (:func:`~opt_sched.validation.tolerance.checkable_time_limit`). A
  start at ``1e308`` is reported here, whatever else it breaks.
"""

from __future__ import annotations

import numpy as np

from ..instance import Instance
from .report import Collector, format_time
from .table import PhaseTable, phase_label
from .tolerance import PhaseTolerances, checkable_time_limit

__all__ = ["check_phase_lengths"]

RULE = 2


def _check_range(instance: Instance, table: PhaseTable, limit: float,
                 out: Collector) -> None:
    """Phases beyond the checkable range :math:`|t| \\le T_{\\max}`."""
    found = []
    for kind, starts, ends, live in (
            ("compute", table.c_start, table.c_full_end, None),
            ("io", table.o_start, table.o_full_end, table.o_started)):
        if live is None:    # w >= 0: start <= end, so check start low, end high
            far = (starts < -limit) | (ends > limit)
        else:               # a model's stated end may come before its start
            far = ((np.minimum(starts, ends) < -limit)
                   | (np.maximum(starts, ends) > limit))
        if live is not None:
            far &= live
        found += [(kind, int(g)) for g in np.flatnonzero(far)]
    out.found(RULE, len(found))
    for kind, g in found[:out.room(RULE)]:
        job = instance.jobs[table.job[g]]
        j = int(table.iteration[g])
        if kind == "compute":
            start, what = table.c_start[g], f"length w={format_time(job.compute[j])}"
        else:
            start = table.o_start[g]
            what = (f"length (volume {format_time(job.io_volume[j])} at bandwidth "
                    f"{format_time(table.o_bandwidth[g])})")
        label = phase_label(table, g, kind)
        out.add(RULE, f"{label} starts at t={format_time(start)}, beyond "
                f"|t| <= {limit:.3g}, where floating-point times are too far apart: "
                f"its {what} cannot be checked",
                jobs=(job.id,), phases=(label,), time=start)


def _check_stated(instance: Instance, table: PhaseTable, tol: PhaseTolerances,
                  out: Collector) -> None:
    """Stated ends against true ends."""
    for kind, stated, starts, ends, full, slack in (
            ("compute", table.c_stated, table.c_start, table.c_end, table.c_full_end,
             tol.compute),
            ("io", table.o_stated, table.o_start, table.o_end, table.o_full_end,
             tol.io)):
        given = ~np.isnan(stated)
        if kind == "io":
            given &= table.o_started
        bad = np.flatnonzero(given & ~(np.abs(stated - ends) <= slack))
        out.found(RULE, len(bad))
        for g in bad[:out.room(RULE)]:
            job = instance.jobs[table.job[g]]
            j = int(table.iteration[g])
            if kind == "compute":
                why = f"w={format_time(job.compute[j])}"
            else:
                why = (f"volume {format_time(job.io_volume[j])} at bandwidth "
                       f"{format_time(table.o_bandwidth[g])}")
            if ends[g] != full[g]:
                kill = table.killed_at[table.job[g]]
                why += f", cut by the kill at t={format_time(kill)}"
            label = f"{job.id}:{kind}[{j}]"
            out.add(RULE, f"{label} starts at t={format_time(starts[g])} and is "
                    f"stated to end at t={format_time(stated[g])}, but it lasts "
                    f"{format_time(ends[g] - starts[g])} ({why}) and ends at "
                    f"t={format_time(ends[g])}",
                    jobs=(job.id,), phases=(label,), time=starts[g])


def check_phase_lengths(instance: Instance, table: PhaseTable, tol: PhaseTolerances,
                        scale: float, out: Collector) -> None:
    """Rule 2 (see the module text); ``scale`` is the instance scale ``D``."""
    _check_range(instance, table, checkable_time_limit(scale), out)
    _check_stated(instance, table, tol, out)
