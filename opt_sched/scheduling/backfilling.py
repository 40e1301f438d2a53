"""The machinery shared by the backfilling schedulers: one availability
:class:`~opt_sched.scheduling.profile.Profile` per partition, the waiting
queue, the running jobs and the reservations.

:class:`ProfileScheduler` keeps, for every partition ``k`` (a *lane*):

- the waiting jobs in submission order, the jobs submitted and whether a
  job ended at the current instant (batsched's ``_jobs_released_recently``
  and ``_jobs_ended_recently``);
- every running job's allocation ``[S_i, S_i + e_i)`` on its machines,
  with ``e_i`` the requested wall time plus ``rjms_delay`` (batsched adds
  its ``--rjms_delay``, 5 s by default, to every wall time);
- the reservations of waiting jobs.

At each pass it moves the profile to ``now`` and lets the subclass decide
(:meth:`ProfileScheduler._pass`). A subclass says which jobs to place in
which order; placing a job (:meth:`ProfileScheduler._place`) is batsched's
``add_job_first_fit``: the job starts now if its first fit starts now (and
the bandwidth rule admits it), otherwise the fit becomes its reservation.

Jobs that run past their estimate (only without kill at wall time) are
expected to end any moment: their machines are busy now and free in the
plan (:class:`~opt_sched.scheduling.profile.Profile`); a reservation made
before such an overrun may lie in the past, so the pass then re-plans every
reservation (``stale``). batsched never sees this: Batsim kills at the wall
time.

Jobs are scheduled on their pre-mapped partition, or on partition 0.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

from ..errors import OptionError
from .bandwidth import BandwidthRule, IgnoreBandwidth
from .base import Cluster, JobTable, Start
from .profile import Profile, lowest_machines
from .queue_order import QueueOrder, get_queue_order

__all__ = ["Lane", "ProfileScheduler"]


class Lane:
    """The state of one partition (see the module docstring)."""

    __slots__ = (
        "bandwidth",
        "ended",
        "ends",
        "free_count",
        "head",
        "index",
        "overdue",
        "profile",
        "queue",
        "released",
        "reserved",
        "running",
        "running_bw",
        "stale",
    )

    def __init__(self, index: int, size: int, bandwidth: float,
                 capacity: float | None) -> None:
        self.index = index
        self.bandwidth = bandwidth
        self.profile = Profile(size, bandwidth=capacity)
        self.queue: dict[int, None] = {}
        self.released: list[int] = []
        self.ended = False
        self.running: dict[int, tuple[float, float, int, float]] = {}
        self.running_bw = 0.0
        self.reserved: dict[int, tuple[float, float, int, float]] = {}
        self.ends: list[tuple[float, int]] = []
        self.overdue: dict[int, float] = {}
        self.head: int | None = None
        self.stale = False
        self.free_count = size


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

    def __init__(self, order: str | QueueOrder = "fcfs", rjms_delay: float = 0.0,
                 bandwidth: BandwidthRule | None = None) -> None:
        if isinstance(rjms_delay, bool) or not isinstance(rjms_delay, (int, float)) \
                or not rjms_delay >= 0 or math.isinf(rjms_delay):
            raise OptionError(f"rjms_delay={rjms_delay!r} must be a number >= 0")
        self.order = get_queue_order(order)
        self.rjms_delay = float(rjms_delay)
        self.rule = bandwidth if bandwidth is not None else IgnoreBandwidth()

    # -- the Scheduler protocol ------------------------------------------------
    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        self._jobs = jobs
        self._cluster = cluster
        self.order.attach(jobs, cluster)
        self._nodes = jobs.nodes.tolist()
        self._zero_nodes = 0 in self._nodes
        delay = self.rjms_delay
        self._estimate = [e + delay for e in jobs.estimate.tolist()]
        tracked = self.rule.reserves or self.rule.checks
        self._demand = jobs.bandwidth.tolist() if tracked else [0.0] * len(jobs)
        self._checks = self.rule.checks
        self._lanes = []
        for k in range(cluster.num_partitions):
            band = cluster.bandwidth(k)
            self._lanes.append(Lane(k, cluster.size(k), band,
                                    self.rule.capacity(band)))
        self._lane_of = [self._lanes[max(0, p)] for p in jobs.partition.tolist()]
        self._active: dict[int, Lane] = {}
        if tracked:
            self._check_demands()

    def _check_demands(self) -> None:
        """A job whose bandwidth exceeds its partition's capacity (or limit)
        could never start."""
        for j, demand in enumerate(self._demand):
            lane = self._lane_of[j]
            cap = lane.profile.capacity
            fits = (demand <= cap + lane.profile.tol if cap is not None
                    else self.rule.admits(demand, 0.0, lane.bandwidth))
            if not fits:
                limit = cap if cap is not None else getattr(self.rule, "limit", None)
                raise OptionError(
                    f"scheduler {self.name!r}: job {self._jobs.ids[j]!r} has average "
                    f"bandwidth {demand:g}, above the limit "
                    f"{lane.bandwidth if limit is None else limit:g}; it could never "
                    "start")

    def submit(self, now: float, job: int) -> None:
        lane = self._lane_of[job]
        lane.queue[job] = None
        lane.released.append(job)
        self._active[lane.index] = lane

    def complete(self, now: float, job: int, killed: bool) -> None:
        lane = self._lane_of[job]
        start, end, mask, demand = lane.running.pop(job)
        lane.profile.remove(start, end, mask, demand)
        lane.free_count += self._nodes[job]
        lane.overdue.pop(job, None)
        lane.running_bw = lane.running_bw - demand if lane.running else 0.0
        lane.ended = True
        self._active[lane.index] = lane

    def decide(self, now: float) -> Sequence[Start]:
        starts: list[Start] = []
        for lane in self._active.values():
            self._refresh(lane, now)
            self._pass(lane, now, starts)
            lane.released.clear()
            lane.ended = False
        self._active.clear()
        return starts

    def next_wakeup(self, now: float) -> float:
        return math.inf

    # -- for subclasses --------------------------------------------------------
    def _pass(self, lane: Lane, now: float, starts: list[Start]) -> None:
        """One scheduling pass of ``lane`` at ``now``: append the starts."""
        raise NotImplementedError

    def _refresh(self, lane: Lane, now: float) -> None:
        """Move the profile to ``now`` (batsched ``update_first_slice``);
        note the jobs past their estimated end; drop every reservation if
        one of them overran (``lane.stale``)."""
        ends = lane.ends
        running = lane.running
        while ends and ends[0][0] <= now:
            end, j = heapq.heappop(ends)
            if j in running:
                lane.overdue[j] = end
        busy = 0
        busy_bw = 0.0
        stale = False
        for j, end in lane.overdue.items():
            alloc = running[j]
            busy |= alloc[2]
            busy_bw += alloc[3]
            if end < now:
                stale = True
        lane.profile.advance(now, busy, busy_bw)
        lane.stale = stale
        if stale:
            for j in list(lane.reserved):
                self._unreserve(lane, j)
            lane.head = None
        elif self._checks and lane.reserved:
            # a head held back by an admission rule reserves from a past
            # instant: place it again from now
            for j, alloc in list(lane.reserved.items()):
                if alloc[0] < now:
                    self._unreserve(lane, j)
                    if j == lane.head:
                        lane.head = None

    def _fits_now(self, lane: Lane, job: int) -> int | None:
        """The machines ``job`` would take now without delaying any
        reservation, or ``None``."""
        mask = lane.profile.fit_now(self._nodes[job], self._estimate[job],
                                    self._demand[job])
        if mask is not None and self._checks and not self.rule.admits(
                self._demand[job], lane.running_bw, lane.bandwidth):
            return None
        return mask

    def _place(self, lane: Lane, job: int, now: float, starts: list[Start]) -> bool:
        """batsched ``add_job_first_fit``: start ``job`` now if its first
        fit starts now (and the bandwidth rule admits it), else keep that fit
        as its reservation. Returns whether it started."""
        est = self._estimate[job]
        demand = self._demand[job]
        fit = lane.profile.first_fit(self._nodes[job], est, demand)
        if fit is None:
            return False  # never fits (estimates of inf hold the machines)
        _, start, mask, now_ok = fit
        if now_ok and (not self._checks or self.rule.admits(
                demand, lane.running_bw, lane.bandwidth)):
            self._start(lane, job, mask, now, starts)
            return True
        lane.reserved[job] = alloc = (start, start + est, mask, demand)
        lane.profile.add(*alloc)
        return False

    def _unreserve(self, lane: Lane, job: int) -> None:
        lane.profile.remove(*lane.reserved.pop(job))

    def _start(self, lane: Lane, job: int, mask: int, now: float,
               starts: list[Start]) -> None:
        nodes = self._nodes[job]
        end = now + self._estimate[job]
        demand = self._demand[job]
        alloc = (now, end, mask, demand)
        lane.running[job] = alloc
        lane.free_count -= nodes
        lane.running_bw += demand
        lane.profile.add(*alloc)
        heapq.heappush(lane.ends, (end, job))
        del lane.queue[job]
        starts.append(Start(job, lowest_machines(mask, nodes)[1], lane.index))
