"""The machinery shared by the backfilling schedulers: the Python side of
:mod:`~opt_sched.scheduling.backfill_kernel` (their one, compiled,
implementation), behind the :class:`~opt_sched.scheduling.base.Scheduler`
seam.

:class:`ProfileScheduler` keeps, for every partition ``k`` (a *lane*):

- the waiting jobs in submission order, the jobs submitted and whether a
  job ended at the current instant (batsched's ``_jobs_released_recently``
  and ``_jobs_ended_recently``);
- every running job's allocation ``[S_i, S_i + e_i)`` on its machines, in
  an availability profile (:mod:`~opt_sched.scheduling.profile`), with
  ``e_i`` the requested wall time plus ``rjms_delay`` (batsched adds its
  ``--rjms_delay``, 5 s by default, to every wall time);
- the reservations of waiting jobs.

At each pass the profile moves to ``now`` and the subclass's pass decides
(EASY: :func:`~opt_sched.scheduling.backfill_kernel.easy_pass`;
conservative: :func:`~opt_sched.scheduling.backfill_kernel.conservative_pass`).
*Placing* a job is batsched's ``add_job_first_fit``: the job starts now if
its first fit starts now (and the bandwidth rule admits it), otherwise the
fit becomes its reservation.

Jobs that run past their estimate (only without kill at wall time) are
expected to end any moment: their machines are busy now and free in the
plan. A reservation made before such an overrun, or one that an admission
rule (``herbein``) did not let start, may lie in the past: the pass then
re-plans every reservation (``stale``) as after a job end. batsched never
sees this: Batsim kills at the wall time, and it has no admission rule.

Jobs are scheduled on their pre-mapped partition, or on partition 0.

When the workload does no I/O and the queue order has a static key, the
replay engine runs the whole replay in :mod:`~opt_sched.scheduling.fused`,
which calls the same compiled passes (:meth:`ProfileScheduler.fused_spec`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ..errors import OptionError
from . import backfill_kernel as bk
from . import profile as pf
from .bandwidth import BandwidthRule, IgnoreBandwidth
from .base import Cluster, JobTable, Start
from .queue_order import QueueOrder, get_queue_order

__all__ = ["ProfileScheduler"]


class ProfileScheduler:
    """Base of the profile (reservation) schedulers.

    Parameters
    ----------
    order
        The queue order: ``"fcfs"``, ``"sjf"`` or a
        :class:`~opt_sched.scheduling.queue_order.QueueOrder`.
    rjms_delay
        Added to every estimate (batsched's ``--rjms_delay``; 0 here by
        default, 5 in batsched).
    bandwidth
        The bandwidth rule (:mod:`~opt_sched.scheduling.bandwidth`).
    """

    name = "profile"
    kind = bk.EASY
    """Which compiled pass (:data:`~opt_sched.scheduling.backfill_kernel.EASY`
    or ``CONSERVATIVE``)."""

    def __init__(self, order: str | QueueOrder = "fcfs", rjms_delay: float = 0.0,
                 bandwidth: BandwidthRule | None = None) -> None:
        if isinstance(rjms_delay, bool) or not isinstance(rjms_delay, (int, float)) \
                or not rjms_delay >= 0 or math.isinf(rjms_delay):
            raise OptionError(f"rjms_delay={rjms_delay!r} must be a number >= 0")
        self.order = get_queue_order(order)
        self.rjms_delay = float(rjms_delay)
        self.rule = bandwidth if bandwidth is not None else IgnoreBandwidth()

    # -- the Scheduler protocol -----------------------------------------------
    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        self._jobs = jobs
        self.order.attach(jobs, cluster)
        n = len(jobs)
        L = cluster.num_partitions
        sizes = [cluster.size(k) for k in range(L)]
        bands = [cluster.bandwidth(k) for k in range(L)]
        tracked = self.rule.reserves or self.rule.checks
        demand = jobs.bandwidth if tracked else np.zeros(n)
        capacities = [math.nan if self.rule.capacity(b) is None
                      else self.rule.capacity(b) for b in bands]
        limits = [self.rule.limit_for(b) for b in bands]
        lane = np.maximum(jobs.partition, 0)
        self._st = bk.new_state(jobs.nodes, jobs.estimate + self.rjms_delay, demand,
                                lane, sizes, bands, capacities, limits,
                                self.rule.checks)
        self._check_demands(demand, lane, capacities, limits)
        self._lane_of = lane.tolist()
        self._queues: list[dict[int, None]] = [{} for _ in range(L)]
        self._released: list[list[int]] = [[] for _ in range(L)]
        self._active: dict[int, None] = {}
        self._mbuf = np.zeros(sum(sizes), np.int64)
        self._moff = np.zeros(n + 1, np.int64)

    def _check_demands(self, demand, lane, capacities, limits) -> None:
        """A job whose bandwidth exceeds its partition's capacity (or limit)
        could never start."""
        for j in np.flatnonzero(demand > 0):
            k = lane[j]
            cap = capacities[k] if not math.isnan(capacities[k]) else limits[k]
            if demand[j] > cap + pf.BW_TOL * max(cap, 1.0):
                raise OptionError(
                    f"scheduler {self.name!r}: job {self._jobs.ids[j]!r} has average "
                    f"bandwidth {demand[j]:g}, above the limit {cap:g}; it could "
                    "never start")

    def submit(self, now: float, job: int) -> None:
        k = self._lane_of[job]
        self._queues[k][job] = None
        self._released[k].append(job)
        self._st[0][job, bk.J_STATE] = bk.WAITING
        self._active[k] = None

    def complete(self, now: float, job: int, killed: bool) -> None:
        bk.complete_job(self._st, job)
        self._active[self._lane_of[job]] = None

    def decide(self, now: float) -> Sequence[Start]:
        st = self._st
        st[10][bk.G_NSTARTED] = 0
        sort = self.order.sort
        for k in self._active:
            queue = self._queues[k]
            order = np.array(sort(list(queue), now), np.int64)
            released = np.array(self._released[k], np.int64)
            while not bk.lane_pass(self.kind, st, k, now, order, len(order), released,
                                   len(released)):
                self._st = st = bk.grow(st, len(order))
            self._released[k].clear()
        self._active.clear()
        count = bk.started_machines(st, self._mbuf, self._moff)
        if not count:
            return []
        numbers = self._mbuf.tolist()
        off = self._moff[:count + 1].tolist()
        starts = []
        for s, j in enumerate(st[13][:count].tolist()):
            k = self._lane_of[j]
            del self._queues[k][j]
            starts.append(Start(j, tuple(numbers[off[s]:off[s + 1]]), k))
        return starts

    def next_wakeup(self, now: float) -> float:
        return math.inf

    # -- introspection (tests, debugging) -------------------------------------
    def head(self, partition: int = 0) -> int | None:
        """The head job of a partition's queue after the last pass."""
        h = int(self._st[4][partition, bk.L_HEAD])
        return None if h < 0 else h

    def reservations(self, partition: int = 0) -> dict[int, float]:
        """The waiting jobs of a partition holding a reservation, with its
        start."""
        ji, jf = self._st[0], self._st[1]
        return {j: float(jf[j, bk.F_START]) for j in self._queues[partition]
                if ji[j, bk.J_RES]}

    # -- the fused replay -------------------------------------------------------
    def fused_spec(self) -> tuple[int, np.ndarray | None] | None:
        """``(pass kind, static queue key or None for submission order)``
        for :mod:`~opt_sched.scheduling.fused`, or ``None`` if the queue
        order has no static key (it must then be asked at every pass)."""
        key = getattr(self.order, "static_key", None)
        if key is None:
            return None
        return self.kind, key(self._jobs)
