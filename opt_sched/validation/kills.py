r"""Rule 7, walltime-kill: a job is truncated only when killed at its wall time.

A schedule marks a job killed at its wall time with ``killed_at`` = ``K_i``
(SPEC §9: Slurm's behaviour, an option of online scheduling). The phase
table cuts the last phase the job started at ``K_i`` and sets
:math:`C_i = K_i` (:mod:`~opt_sched.validation.table`); rule 2 holds every
other phase to its full length. This rule checks that the kill is one:

- the job has a wall time :math:`e_i` (``job.walltime``), and
  :math:`|K_i - (S_i + e_i)| \le \tau(K_i, e_i)`;
- every phase it lists started by the kill, :math:`c_{ij} \le K_i + k\,u(K_i)`
  and :math:`o_{ij} \le K_i + k\,u(K_i)` (a phase started at the kill is cut
  to nothing);
- it was still running: a job that lists all its phases, whose last I/O phase
  would end (uncut) before :math:`K_i - \tau_i`, completed before its
  wall time and was not killed;
- in a schedule made with kills at the wall time (``info["kill_at_walltime"]``,
  as :func:`~opt_sched.scheduling.replay` records it), no job with a wall
  time runs past it unmarked: :math:`C_i \le S_i + e_i + \tau(S_i + e_i, e_i)`.
  A kill mark removed from such a schedule is reported here, not only
  through its consequences (overlaps of rules 4 and 5).

(:math:`\tau` and :math:`k\,u` as in :mod:`~opt_sched.validation.tolerance`.)

One violation per job for the first and last checks, one per phase for the
second.
"""

from __future__ import annotations

import math

import numpy as np

from ..instance import Instance
from .report import Collector, format_time
from .table import PhaseTable, phase_label
from .tolerance import PhaseTolerances

__all__ = ["check_kills"]

RULE = 7


def _check_unmarked(instance: Instance, table: PhaseTable, tol: PhaseTolerances,
                    out: Collector) -> None:
    """Jobs that run past their wall time unmarked, in a schedule that kills."""
    walltime = np.array([math.inf if job.walltime is None else job.walltime
                         for job in instance.jobs])
    due = table.start + walltime
    finite = table.listed & np.isnan(table.killed_at) & np.isfinite(due)
    late = np.flatnonzero(finite)
    late = late[table.end[late] > due[late] + tol.rule.end(due[late], walltime[late])]
    out.found(RULE, len(late))
    for i in late[:out.room(RULE)]:
        job = instance.jobs[i]
        out.add(RULE, f"job {job.id} runs until t={format_time(table.end[i])}, past "
                f"its wall time at S+e={format_time(due[i])}, in a schedule that "
                "kills jobs at their wall time, but it is not marked killed",
                jobs=(job.id,), time=due[i])


def check_kills(instance: Instance, table: PhaseTable, tol: PhaseTolerances,
                out: Collector, *, kills_at_walltime: bool = False) -> None:
    """Rule 7 (see the module text); ``kills_at_walltime``: the schedule
    was made killing every job still running at its wall time."""
    if kills_at_walltime:
        _check_unmarked(instance, table, tol, out)
    killed = np.flatnonzero(~np.isnan(table.killed_at))
    if not len(killed):
        return
    for i in killed:
        job = instance.jobs[i]
        kill, start = table.killed_at[i], table.start[i]
        if job.walltime is None:
            out.one(RULE, f"job {job.id} is killed at t={format_time(kill)} but has "
                    "no wall time", jobs=(job.id,), time=kill)
        elif not abs(kill - (start + job.walltime)) <= tol.rule.end(kill, job.walltime):
            out.one(RULE, f"job {job.id} is killed at t={format_time(kill)}, not at "
                    f"its wall time: it starts at t={format_time(start)} with wall "
                    f"time {format_time(job.walltime)}, so S+e="
                    f"{format_time(start + job.walltime)}", jobs=(job.id,), time=kill)
    kill_of = table.killed_at[table.job]
    late = []
    for kind, starts, live in (("compute", table.c_start, None),
                               ("io", table.o_start, table.o_started)):
        after = starts > kill_of + tol.rule.times(kill_of)  # NaN compares False
        if live is not None:
            after &= live
        late += [(float(starts[g]), kind, int(g)) for g in np.flatnonzero(after)]
    out.found(RULE, len(late))
    for when, kind, g in sorted(late)[:out.room(RULE)]:
        label = phase_label(table, g, kind)
        kill = table.killed_at[table.job[g]]
        out.add(RULE, f"{label} starts at t={format_time(when)}, after its job is "
                f"killed at t={format_time(kill)}", jobs=(table.ids[table.job[g]],),
                phases=(label,), time=when)
    for i in killed:
        job = instance.jobs[i]
        last = table.first[i + 1] - 1
        complete = (table.first[i + 1] - table.first[i] == job.iterations
                    and table.o_started[last])
        lo, hi = table.first[i], table.first[i + 1]
        finish = max(float(table.c_full_end[lo:hi].max()),
                     float(table.o_full_end[lo:hi].max()))
        kill = table.killed_at[i]
        if complete and finish < kill - tol.job[i] and not math.isnan(finish):
            out.one(RULE, f"job {job.id} completes all its phases at "
                    f"t={format_time(finish)}, before it is killed at "
                    f"t={format_time(kill)}: it was not running at its wall time",
                    jobs=(job.id,), time=finish)
