"""``conservative``: conservative backfilling, as Batsim's reference
scheduler does it.

This is the rule of batsched's ``conservative_bf``
(``src/algo/conservative_bf.cpp``, ``ConservativeBackfilling::make_decisions``)
on the availability profile of :mod:`~opt_sched.scheduling.profile`
(batsched ``src/schedule.cpp``). *Every* waiting job holds a reservation
(specific machines from a time, its first fit when it was placed), and the
reservations persist between passes. One pass at ``now`` (all events of the
instant applied first):

1. If no job ended at ``now``: each job submitted at ``now``, in submission
   order, is placed at its first fit around the existing reservations; it
   starts now if that fit starts now, otherwise the fit is its reservation.
2. If a job ended: the schedule is compressed. In queue order, each waiting
   job's reservation is dropped and the job is placed again at its first
   fit (starting now if that fit starts now). The jobs after it still hold
   their old reservations while it is placed.

A job's new fit is never later than its old reservation (when no job
overruns its estimate): the jobs placed before it could not use its old
slot, which was still reserved, and the jobs that ended only freed room.
So no job ever starts after its first reservation.
"""

from __future__ import annotations

from . import backfill_kernel as bk
from .backfill_limits import CONSERVATIVE_DEFAULT_DEPTH
from .backfilling import ProfileScheduler

__all__ = ["ConservativeBackfilling"]


class ConservativeBackfilling(ProfileScheduler):
    """Conservative backfilling (batsched ``conservative_bf``); see the
    module docstring.

    The parameters are those of
    :class:`~opt_sched.scheduling.backfilling.ProfileScheduler`; without
    ``bf_depth``, no depth limit (as batsched) on a workload of at most
    :data:`~opt_sched.scheduling.backfill_limits.LARGE_WORKLOAD` jobs and a
    depth of
    :data:`~opt_sched.scheduling.backfill_limits.CONSERVATIVE_DEFAULT_DEPTH`
    on a larger one (``bf_depth="all"``: no limit).
    """

    name = "conservative"
    kind = bk.CONSERVATIVE
    default_depth = CONSERVATIVE_DEFAULT_DEPTH
