r"""Rule 6, pack-discipline (when ``schedule.packs`` is set, or asked for).

The packs cover every job of the instance exactly once, each on its job's
partition; all jobs of a pack start together,
:math:`S_i \le S_\pi + k\,u(S_\pi)` with :math:`S_\pi = \min_{i \in \pi} S_i`;
and pack ``p+1`` of a partition starts after pack ``p`` has completed,
:math:`S_{\pi_{p+1}} \ge C_l - \tau_l` with ``l`` the job of pack ``p`` that
completes last and :math:`\tau_l` the tolerance of its completion (idle time
between packs is allowed; empty packs are ignored). A job missing from the
packs, listed in two packs or unknown to the instance is reported by name.
Timing is checked on the jobs validly placed (their first pack, on their own
partition) that the schedule lists (rule 0 reports the others).
"""

from __future__ import annotations

import numpy as np

from ..instance import Instance
from ..schedule import Schedule
from .report import Collector, format_time, name_list
from .table import PhaseTable
from .tolerance import PhaseTolerances

__all__ = ["check_pack_discipline"]

RULE = 6


def _check_cover(instance: Instance, schedule: Schedule, table: PhaseTable,
                 out: Collector) -> dict[str, tuple[int, int]]:
    """Coverage of the packs; returns job id -> (partition, pack) of its first
    placement."""
    count = instance.platform.num_partitions
    seen: dict[str, tuple[int, int]] = {}
    for k, row in enumerate(schedule.packs or ()):
        for p, pack in enumerate(row):
            for job_id in pack:
                where = f"pack {p} of partition {k}"
                if job_id not in instance.index:
                    out.one(RULE, f"{where} names unknown job {job_id}",
                            jobs=(job_id,))
                    continue
                if job_id in seen:
                    k0, p0 = seen[job_id]
                    out.one(RULE, f"job {job_id} is in {where} and already in pack "
                            f"{p0} of partition {k0}", jobs=(job_id,))
                    continue
                seen[job_id] = (k, p)
                runs_on = int(table.partition[instance.index[job_id]])
                if k >= count:
                    out.one(RULE, f"job {job_id} is in {where}, which does not exist "
                            f"(platform has {count} partitions)", jobs=(job_id,))
                elif runs_on >= 0 and runs_on != k:
                    out.one(RULE, f"job {job_id} runs on partition {runs_on} but is in "
                            f"{where}", jobs=(job_id,))
    for job in instance.jobs:
        if job.id not in seen:
            out.one(RULE, f"job {job.id} is in no pack", jobs=(job.id,))
    return seen


def check_pack_discipline(instance: Instance, schedule: Schedule, table: PhaseTable,
                          tol: PhaseTolerances, out: Collector) -> None:
    """Rule 6 (see the module text)."""
    if schedule.packs is None:
        out.one(RULE, "the schedule has no packs but pack discipline was requested")
        return
    seen = _check_cover(instance, schedule, table, out)
    ids = table.ids
    for k, row in enumerate(schedule.packs):
        # (pack, completion, job, tolerance of the completion)
        previous: tuple[int, float, str, float] | None = None
        for p, pack in enumerate(row):
            members = [instance.index[j] for j in dict.fromkeys(pack)
                       if seen.get(j) == (k, p)
                       and table.partition[instance.index[j]] == k]
            if not members:
                continue
            first = members[int(np.argmin(table.start[members]))]
            s_pack = float(table.start[first])
            slack = float(tol.rule.times(s_pack))
            late = [i for i in members if table.start[i] > s_pack + slack]
            if late:
                detail = [f"{ids[i]} at t={format_time(table.start[i])}" for i in late]
                out.one(RULE, f"pack {p} of partition {k} starts at "
                        f"t={format_time(s_pack)} ({ids[first]}) but not all its "
                        f"jobs do: {name_list(detail)}",
                        jobs=[ids[first], *(ids[i] for i in late)], time=s_pack)
            if previous is not None and s_pack < previous[1] - previous[3]:
                out.one(RULE, f"pack {p} of partition {k} starts at "
                        f"t={format_time(s_pack)} ({ids[first]}) before pack "
                        f"{previous[0]} completes at t={format_time(previous[1])} "
                        f"({previous[2]})", jobs=(ids[first], previous[2]), time=s_pack)
            last = members[int(np.argmax(table.end[members]))]
            previous = (p, float(table.end[last]), ids[last], float(tol.job[last]))
