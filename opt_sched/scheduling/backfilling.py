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

The bandwidth a job asks for (its *demand*) comes from an estimate source
(:mod:`~opt_sched.scheduling.estimators`): the declared average bandwidth
``beta_i`` (default), or the history estimator (``estimates="history"``,
only with a rule that checks at start time and does not plan bandwidth:
a waiting job's demand then changes as jobs complete). A running job keeps
the demand it was admitted with until it ends. With the history source, a
demand above the admission limit ``L`` counts as ``L`` (the authors' code
caps it likewise), so a job whose estimate exceeds the limit still runs,
alone.

Slurm's backfilling limits (``bf_depth``, ``bf_interval``; off by
default) are :mod:`~opt_sched.scheduling.backfill_limits`.

The queue order's optional event hooks (``observe_submit``,
``observe_start``, ``observe_end``; :mod:`opt_sched.priority.observers`)
are called at every submission, start and end, so that history-aware
priorities (fair-share usage, the age of chained jobs) are exact.

When the workload does no I/O and the queue order has a static key (and no
hooks), the replay engine runs the whole replay in
:mod:`~opt_sched.scheduling.fused`, which calls the same compiled passes
(:meth:`ProfileScheduler.fused_spec`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import OptionError
from ..schedule import MachineSet
from . import backfill_kernel as bk
from . import profile as pf
from .backfill_limits import (
    LARGE_WORKLOAD,
    BackfillLimits,
    applied_depth,
    check_limits,
)
from .bandwidth import BandwidthRule, IgnoreBandwidth
from .base import Cluster, JobTable, Start
from .estimators import ESTIMATE_SOURCES, make_estimates
from .queue_order import QueueOrder, get_queue_order

__all__ = ["ProfileScheduler"]


_FEW_MACHINES = 64
"""Up to this many machines, a job's runs are found in a Python loop (numpy's
per-call cost dominates on short arrays)."""


def _machine_set(numbers: np.ndarray) -> MachineSet | tuple[int, ...]:
    """The machines the kernel chose for one job (increasing) as a
    :class:`~opt_sched.schedule.MachineSet`; as a plain tuple, for the
    engine to reject, if they are not strictly increasing (a kernel bug)."""
    if len(numbers) > _FEW_MACHINES:
        if not (np.diff(numbers) > 0).all():
            return tuple(numbers.tolist())
        return MachineSet.from_sorted_array(numbers)
    values = numbers.tolist()
    if values and values[0] < 0:
        return tuple(values)
    runs: list[tuple[int, int]] = []
    low = last = -2
    for m in values:
        if m <= last:
            return tuple(values)
        if m != last + 1:
            if last >= 0:
                runs.append((low, last + 1))
            low = m
        last = m
    if last >= 0:
        runs.append((low, last + 1))
    return MachineSet(runs)


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
    estimates
        Where demands come from: ``"declared"`` or ``"history"`` (see the
        module docstring).
    prior
        History only: isolated runs ``{job index: (run time, throughput)}``
        that pre-train the estimator (one per group;
        :func:`~opt_sched.scheduling.pretrain.isolated_runs`).
    bf_depth, bf_interval
        Slurm's backfilling limits (:mod:`~.backfill_limits`): at most
        ``bf_depth`` jobs examined per pass (``None``: the scheduler's
        default, all jobs except for conservative backfilling on a large
        workload; ``"all"``: all jobs), a backfill
        pass every ``bf_interval`` seconds and the FIFO part in between
        (0: every pass backfills). Defaults: batsched's behaviour; Slurm's
        are 50 and 30 (:data:`~.backfill_limits.SLURM_DEFAULTS`).
    """

    name = "profile"
    kind = bk.EASY
    """Which compiled pass (:data:`~opt_sched.scheduling.backfill_kernel.EASY`
    or ``CONSERVATIVE``)."""
    default_depth: int | None = None
    """The depth used without ``bf_depth`` on a workload of more than
    :data:`~.backfill_limits.LARGE_WORKLOAD` jobs (``None``: no limit; see
    :mod:`~.backfill_limits`)."""
    large_workload: int = LARGE_WORKLOAD
    """From how many jobs (exclusive) :attr:`default_depth` applies."""
    applied_bf_depth: int | None = None
    """The depth in force in the last replay (set by ``attach``)."""

    def __init__(self, order: str | QueueOrder = "fcfs", rjms_delay: float = 0.0,
                 bandwidth: BandwidthRule | None = None,
                 estimates: str = "declared",
                 prior: Mapping[int, tuple[float, float]] | None = None, *,
                 bf_depth: int | None = None, bf_interval: float = 0.0) -> None:
        if isinstance(rjms_delay, bool) or not isinstance(rjms_delay, (int, float)) \
                or not rjms_delay >= 0 or math.isinf(rjms_delay):
            raise OptionError(f"rjms_delay={rjms_delay!r} must be a number >= 0")
        if estimates not in ESTIMATE_SOURCES:
            raise OptionError(f"estimates={estimates!r} is not one of "
                              f"{', '.join(ESTIMATE_SOURCES)}")
        self.order = get_queue_order(order)
        self.rjms_delay = float(rjms_delay)
        self.rule = bandwidth if bandwidth is not None else IgnoreBandwidth()
        if estimates != "declared" and (self.rule.reserves or not self.rule.checks):
            raise OptionError(f"scheduler {self.name!r}: estimates={estimates!r} "
                              "needs a bandwidth rule checked at start time "
                              "(herbein, workload-adaptive)")
        if prior and estimates != "history":
            raise OptionError(f"scheduler {self.name!r}: a prior (pre-training) "
                              "needs estimates='history'")
        self.estimates = estimates
        self.prior = dict(prior) if prior else None
        self.bf_depth, self.bf_interval = check_limits(bf_depth, bf_interval)
        self._hooks = tuple(getattr(self.order, f"observe_{event}", None)
                            for event in ("submit", "start", "end"))

    # -- the Scheduler protocol -----------------------------------------------
    def attach(self, jobs: JobTable, cluster: Cluster) -> None:
        self._jobs = jobs
        self.order.attach(jobs, cluster)
        n = len(jobs)
        L = cluster.num_partitions
        sizes = [cluster.size(k) for k in range(L)]
        bands = [cluster.bandwidth(k) for k in range(L)]
        tracked = self.rule.reserves or self.rule.checks
        self._est = make_estimates(self.estimates, jobs, self.prior)
        self._dynamic = self.estimates != "declared"
        self._seen_version = -1
        capacities = [math.nan if self.rule.capacity(b) is None
                      else self.rule.capacity(b) for b in bands]
        limits = [self.rule.limit_for(b) for b in bands]
        lane = np.maximum(jobs.partition, 0)
        self._limit_of = np.asarray(limits, float)[lane]
        demand = (self._demands(np.arange(n)) if tracked else np.zeros(n))
        self._st = bk.new_state(jobs.nodes, jobs.estimate + self.rjms_delay, demand,
                                lane, sizes, bands, capacities, limits,
                                self.rule.check_mode, skip=self.rule.skips_refused)
        if not self._dynamic:
            self._check_demands(demand, lane, capacities, limits)
        self._lane_of = lane.tolist()
        self._queues: list[dict[int, None]] = [{} for _ in range(L)]
        self._released: list[list[int]] = [[] for _ in range(L)]
        self._active: dict[int, None] = {}
        self.applied_bf_depth = applied_depth(self.bf_depth, self.default_depth, n,
                                              self.large_workload)
        self._limits = (None if self.applied_bf_depth is None and self.bf_interval == 0
                        else BackfillLimits(self.applied_bf_depth, self.bf_interval))
        key = getattr(self.order, "static_key", None)
        hooked = any(h is not None for h in self._hooks)
        self._static_key = (None if key is None or hooked
                            else np.asarray(key(jobs), float))
        self._sorted: list[np.ndarray] = [np.empty(0, np.int64) for _ in range(L)]
        self._waiting = np.zeros(n, np.bool_)  # in a queue (for _sorted_queue)
        self._stale = [False] * L  # a job of the lane started since its last sort
        self._mbuf = np.zeros(sum(sizes), np.int64)
        self._moff = np.zeros(n + 1, np.int64)

    def _demands(self, jobs: np.ndarray) -> np.ndarray:
        """The admission demands of ``jobs`` from the estimate source (capped
        at the limit ``L`` for a dynamic source)."""
        rates = self._est.rates(jobs)
        if self._dynamic:
            rates = np.minimum(rates, self._limit_of[jobs])
        return rates

    def _refresh_demands(self) -> None:
        """Before a pass: the waiting jobs' demands from the latest
        estimates (running jobs keep theirs)."""
        waiting = [j for queue in self._queues for j in queue]
        if waiting:
            idx = np.asarray(waiting, np.int64)
            self._st[1][idx, bk.F_DEMAND] = self._demands(idx)
        self._seen_version = self._est.version

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
        self._waiting[job] = True
        self._st[0][job, bk.J_STATE] = bk.WAITING
        self._active[k] = None
        if self._hooks[0] is not None:
            self._hooks[0](now, job)

    def complete(self, now: float, job: int, killed: bool) -> None:
        if self._dynamic:
            self._est.observe(job, float(self._st[1][job, bk.F_START]), now)
        bk.complete_job(self._st, job)
        self._active[self._lane_of[job]] = None
        if self._hooks[2] is not None:
            self._hooks[2](now, job, killed)

    def decide(self, now: float) -> Sequence[Start]:
        if self._dynamic and (self._est.version != self._seen_version
                              or any(self._released)):
            self._refresh_demands()
        self._before_pass(now)
        st = self._st
        st[10][bk.G_NSTARTED] = 0
        sort = self.order.sort
        limits = self._limits
        lanes: object = self._active
        mode = bk.EVENT
        if limits is not None:
            mode = limits.mode(now)
            lanes = limits.lanes(mode, self._active, self._queues)
        for k in lanes:  # type: ignore[attr-defined]
            released = np.array(self._released[k], np.int64)
            order = (self._sorted_queue(k, released) if self._static_key is not None
                     else np.array(sort(list(self._queues[k]), now), np.int64))
            while not (bk.lane_pass(self.kind, st, k, now, order, len(order), released,
                                    len(released)) if limits is None else
                       bk.bounded_lane_pass(self.kind, st, k, now, order, len(order),
                                            released, len(released), limits.depth,
                                            mode)):
                self._st = st = bk.grow(
                    st, bk.placements_bound(self.kind, st, k, len(order)))
            self._released[k].clear()
        self._active.clear()
        count = bk.started_machines(st, self._mbuf, self._moff)
        if not count:
            return []
        numbers = self._mbuf
        off = self._moff[:count + 1].tolist()
        starts = []
        for s, j in enumerate(st[13][:count].tolist()):
            k = self._lane_of[j]
            del self._queues[k][j]
            self._waiting[j] = False
            self._stale[k] = True
            starts.append(Start(j, _machine_set(numbers[off[s]:off[s + 1]]), k))
        if self._hooks[1] is not None:
            for start in starts:
                self._hooks[1](now, start.job)
        return starts

    def _sorted_queue(self, k: int, released: np.ndarray) -> np.ndarray:
        """Lane ``k``'s waiting jobs sorted by ``(static key, submission
        order)``, kept between passes: the jobs started since are dropped,
        the ``released`` ones appended and a stable sort by key restores
        the order (the kept jobs were all submitted before the new ones).
        Equal to sorting the queue afresh, without a Python list per pass
        (long queues: thousands of jobs, a pass per event)."""
        kept = self._sorted[k]
        if self._stale[k]:
            kept = kept[self._waiting[kept]]
            self._stale[k] = False
        if len(released):
            kept = np.concatenate((kept, released))
            key = self._static_key[kept]
            if len(key) and key.min() != key.max():
                kept = kept[np.argsort(key, kind="stable")]
        self._sorted[k] = kept
        return kept

    def _before_pass(self, now: float) -> None:
        """Hook for subclasses: called before each decision's passes."""

    def next_wakeup(self, now: float) -> float:
        if self._limits is None:
            return math.inf
        return self._limits.next_wakeup(now, any(self._queues),
                                        bool(self._st[10][bk.G_NRUN]))

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
        order has neither a static key nor an age-and-size priority
        (:meth:`fused_priority`; it must then be asked at every pass), or
        wants the event hooks for anything else."""
        if self._dynamic or self.rule.check_mode == bk.CHECK_TARGET:
            return None
        if self.fused_priority() is not None:
            return self.kind, np.zeros(len(self._jobs))
        key = getattr(self.order, "static_key", None)
        if key is None or any(hook is not None for hook in self._hooks):
            return None
        return self.kind, key(self._jobs)

    def fused_priority(self):
        """The order's :class:`~opt_sched.scheduling.fused_order.AgeSizePriority`
        (after ``attach``), or ``None``."""
        get = getattr(self.order, "fused_priority", None)
        return None if get is None else get()
