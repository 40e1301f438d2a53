"""``easy``: EASY backfilling, as Batsim's reference scheduler does it.

This is the rule of batsched's ``easy_bf`` (``src/algo/easy_bf.cpp``,
``EasyBackfilling::make_decisions`` and
``sort_queue_while_handling_priority_job``), on the availability profile of
:mod:`~opt_sched.scheduling.profile` (batsched ``src/schedule.cpp``). Only the
first job of the queue, the *head* (batsched's "priority job"), holds a
reservation: specific machines ``M_h`` from a time ``t_h``, its first fit.
Every other job starts now only if its first fit starts now, that is if
``Q_i`` machines stay free over its whole estimate ``[now, now + e_i)``
without touching the head's reservation: a job that would run past ``t_h``
may only use machines outside ``M_h``. Machines are the lowest-numbered
ones that fit.

One pass at ``now`` (all events of the instant applied first: ended jobs
leave the profile, submitted jobs join the queue, the profile starts at
``now``):

1. The queue is sorted (:mod:`~opt_sched.scheduling.queue_order`). If the
   head changed since the last pass, the old head's reservation is dropped,
   and while the new head's first fit starts now it starts and the next job
   becomes the head; the first head that cannot start keeps its first fit
   as its reservation.
2. If no job ended at ``now``: only the jobs submitted at ``now`` (in
   submission order) are tried, while machines are free now; each starts if
   it fits now (and is not the head).
3. If a job ended and some machine is free now: the whole queue is
   traversed in order. The head is re-placed (it may start now, then the
   next job is the head and is placed in turn); every other job starts if
   it fits now.

So the head's start never moves later than its reservation (when no job
overruns its estimate): no backfilled job touches the reserved machines
over the reserved time, and the reservation is only ever recomputed after
jobs ended, when it can only move earlier.
"""

from __future__ import annotations

from . import backfill_kernel as bk
from .backfilling import ProfileScheduler

__all__ = ["EasyBackfilling"]


class EasyBackfilling(ProfileScheduler):
    """EASY backfilling (batsched ``easy_bf``); see the module docstring.

    The parameters are those of
    :class:`~opt_sched.scheduling.backfilling.ProfileScheduler`; without
    ``bf_depth`` or ``bf_interval``, no backfilling limit (as batsched).
    """

    name = "easy"
    kind = bk.EASY
