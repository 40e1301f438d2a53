"""``Blocks``: the building blocks of a Python scheduler, with a Python face
on compiled code.

A :class:`Blocks` keeps, for every partition ``k`` (a *lane*), what the
built-in backfilling schedulers keep (it is their state,
:mod:`~opt_sched.scheduling.backfill_kernel`):

- the waiting jobs, in submission order (:meth:`Blocks.queue`, an array);
- the **availability profile** (:mod:`~opt_sched.scheduling.profile`):
  every running job ``i`` holds its machines over ``[S_i, S_i + e_i)``
  (``e_i`` its requested time, plus ``rjms_delay``), every reservation
  its machines over ``[s_j, s_j + e_j)``. A running job past its estimate
  (possible only when jobs are not killed at their wall time) is expected
  to end any moment: its machines are busy now and free in the plan.

The blocks read and change that state, each in one compiled call:

========================================  ==========================================
:meth:`~Blocks.fits_now` ``(j, before)``  ``Q_j`` machines free now and over ``[now,
                                          now + e_j)`` without touching any other
                                          job's reservation (and ``now + e_j <=
                                          before``)
:meth:`~Blocks.earliest_start` ``(j)``    the first fit of ``j``: the earliest ``t
                                          >= now`` (``now`` or a slice start) with
                                          ``Q_j`` machines free over ``[t, t +
                                          e_j)``; ``inf`` if never
:meth:`~Blocks.first_fit` ``(j)``         that time and the machines: the
                                          lowest-numbered ones free over the whole
                                          window (batsched's ``add_job_first_fit``)
:meth:`~Blocks.shadow_time` ``(head)``    reserve ``head`` there (EASY's shadow time)
:meth:`~Blocks.start_in_order` ``(js)``   start ``js`` in order while each fits now
:meth:`~Blocks.start_fitting` ``(js)``    start every job of ``js`` that fits now
                                          (backfilling), in order
:meth:`~Blocks.place` ``(js)``            each job of ``js`` in order starts now if
                                          its first fit starts now, else is
                                          reserved there (conservative
                                          backfilling)
========================================  ==========================================

and, for conservative backfilling as batsched does it,
:meth:`~Blocks.released` (the jobs submitted since the last pass),
:meth:`~Blocks.ended` (a job ended since) and :meth:`~Blocks.stale` (the
reservations were dropped).

Nothing is paid for a block a scheduler does not call: a submission is
appended to its partition's queue array, an end is noted, and the profile
is brought up to date (ends applied, moved to ``now``) within the first
compiled block of a pass that reads it. Reading the queue costs no
compiled call. A compiled call takes one array, the handle of the whole
state (:mod:`.handle`), not its fourteen arrays. A pass that starts
nothing builds nothing.

Starts are collected by the blocks and returned by :meth:`Blocks.finish`
as :class:`~opt_sched.scheduling.base.Start` objects (machines chosen: the
lowest-numbered that fit; one compiled call writes the runs of every
started job's machines), which the engine checks like any other.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import OptionError
from ...schedule import MachineSet
from .. import backfill_kernel as bk
from ..base import Cluster, JobTable, Start
from . import handle
from . import kernel as kn

__all__ = ["Blocks", "Fit", "Profile", "QueueArrays"]


@dataclass(frozen=True, slots=True)
class Fit:
    """Where a job fits first: from ``start`` (``inf``: never) on
    ``machines`` (empty when it never fits)."""

    start: float
    machines: MachineSet


@dataclass(frozen=True)
class Profile:
    """A snapshot of a partition's availability profile at ``times[0] =
    now``: slice ``i`` is ``[times[i], times[i+1])`` (the last one
    unbounded) and has ``free[i]`` machines free (expected free: busy
    machines of jobs past their estimate count as free in the plan;
    ``busy_now`` are they). :meth:`machines` names them."""

    times: np.ndarray
    free: np.ndarray
    busy_now: MachineSet
    _sets: tuple[MachineSet, ...]

    def machines(self, i: int) -> MachineSet:
        """The machines free in slice ``i``."""
        return self._sets[i]

    def free_at(self, t: float) -> int:
        """Machines expected free at time ``t >= times[0]``."""
        return int(self.free[np.searchsorted(self.times, t, side="right") - 1])


@dataclass(frozen=True)
class QueueArrays:
    """The waiting jobs of a partition as arrays, in submission order:
    their indices, node counts ``Q_j``, requested times ``e_j`` (as the
    :class:`~opt_sched.scheduling.base.JobTable` has them, without
    ``rjms_delay``), submit times and waits ``now - submit``."""

    jobs: np.ndarray
    nodes: np.ndarray
    estimate: np.ndarray
    submit: np.ndarray
    wait: np.ndarray

    def __len__(self) -> int:
        return len(self.jobs)


_INT64 = np.dtype(np.int64)
_NSTARTED = bk.G_NSTARTED
_SETS = 4096
"""How many machine sets :meth:`Blocks.finish` keeps to hand out again."""


def _int_array(jobs: object) -> np.ndarray:
    """``jobs`` as a 1-d ``int64`` array (no copy when it is one; the
    compiled blocks take any strides)."""
    if jobs.__class__ is np.ndarray and jobs.dtype is _INT64 \
            and jobs.ndim == 1:  # type: ignore[attr-defined]
        return jobs  # type: ignore[return-value]
    return np.ascontiguousarray(jobs, np.int64).reshape(-1)


def _mask_set(words: np.ndarray) -> MachineSet:
    """The machines of one bit-set row (bit ``m % 64`` of word ``m // 64``)."""
    bits = np.unpackbits(words.astype("<u8").view(np.uint8), bitorder="little")
    return MachineSet.from_sorted_array(np.flatnonzero(bits).astype(np.int64))


class Blocks:
    """The building blocks over one replay (see the module docstring).

    Parameters
    ----------
    jobs, cluster
        What :meth:`~opt_sched.scheduling.base.Scheduler.attach` received.
    rjms_delay
        Seconds added to every estimate (batsched's ``--rjms_delay``).

    A job runs on its pre-mapped partition, or on partition 0.
    :meth:`submit`, :meth:`complete` forward the engine's events;
    :meth:`begin` and :meth:`finish` bracket a pass (a
    :class:`~opt_sched.scheduling.blocks.BlockScheduler` calls all four).
    """

    def __init__(self, jobs: JobTable, cluster: Cluster,
                 rjms_delay: float = 0.0) -> None:
        if isinstance(rjms_delay, bool) or not isinstance(rjms_delay, (int, float)) \
                or not rjms_delay >= 0 or math.isinf(rjms_delay):
            raise OptionError(f"rjms_delay={rjms_delay!r} must be a number >= 0")
        self.jobs = jobs
        self.cluster = cluster
        n = len(jobs)
        L = cluster.num_partitions
        self.partitions = L
        sizes = [cluster.size(k) for k in range(L)]
        lane = np.maximum(jobs.partition, 0)
        self._st = bk.new_state(jobs.nodes, jobs.estimate + float(rjms_delay),
                                np.zeros(n), lane, sizes,
                                [cluster.bandwidth(k) for k in range(L)],
                                [math.nan] * L, [math.inf] * L, bk.CHECK_NONE)
        self._lane = lane.tolist()
        self._state = self._st[0][:, bk.J_STATE]  # a view: grow() keeps ji
        size = max(n, 1)
        lanes = np.zeros((L, 5), np.int64)
        lanes[1:, kn.Q_OFF] = np.cumsum(np.bincount(lane, minlength=L))[:-1]
        self._qoff = lanes[:, kn.Q_OFF].tolist()
        self._queue = np.zeros(size, np.int64)
        self._lanes = lanes
        self._qlen = lanes[:, kn.Q_LEN]  # a view
        self._submitted = np.zeros(size, np.int64)
        self._ended = np.zeros(size, np.int64)
        self._out = np.zeros(2 * size + 2 * sum(sizes) + 2, np.int64)
        self._mask = np.zeros((1, self._st[12].shape[1]), np.uint64)
        self._extras = (self._queue, lanes, self._submitted, self._ended,
                        np.zeros(2, np.int64), self._out, self._mask)
        self._h = handle.make(self._st, self._extras)
        self._g = self._st[10]  # grow() keeps it
        self._nsub = 0  # jobs submitted so far (``_submitted[:_nsub]``)
        self._nend = 0  # jobs ended so far (``_ended[:_nend]``)
        # a lane is synced in pass ``_pass`` if ``_synced[k] == _pass``
        self._pass = 0
        self._synced = [-1] * L
        self._all_synced = -1
        # ``_submitted[_released_from:_released_to]``: this pass's new jobs
        self._released_from = self._released_to = 0
        self.waiting = 0
        """How many jobs wait (all partitions)."""
        self._now = -math.inf
        self._sets: dict[tuple[int, ...], MachineSet] = {}

    # -- events and the pass -------------------------------------------------------
    def submit(self, job: int) -> None:
        """``job`` waits (in submission order)."""
        k = self._lane[job]
        n = self._qlen[k]
        self._queue[self._qoff[k] + n] = job
        self._qlen[k] = n + 1
        self._submitted[self._nsub] = job
        self._nsub += 1
        self._state[job] = bk.WAITING
        self.waiting += 1

    def complete(self, job: int) -> None:
        """``job`` ended: its machines are free (applied at the next sync)."""
        self._ended[self._nend] = job
        self._nend += 1

    def begin(self, now: float) -> None:
        """A pass at ``now`` starts: the profile will be moved there."""
        self._now = now
        self._pass += 1
        self._released_from = self._released_to
        self._released_to = self._nsub

    def finish(self) -> list[Start]:
        """The jobs the blocks started in this pass, as
        :class:`~opt_sched.scheduling.base.Start` objects."""
        if not self._g[_NSTARTED]:
            return []
        m = kn.finish(self._h)
        out = self._out[:m].tolist()
        starts: list[Start] = []
        add = starts.append
        lanes = self._lane
        sets = self._sets  # machine sets are immutable: equal ones are shared
        i = 0
        while i < m:
            j, c = out[i], out[i + 1]
            i += 2
            bounds = tuple(out[i:i + c])
            machines = sets.get(bounds)
            if machines is None:
                if len(sets) >= _SETS:
                    sets.clear()
                machines = sets[bounds] = MachineSet._from_bounds(bounds)
            add(Start(j, machines, lanes[j]))
            i += c
        self.waiting -= len(starts)
        return starts

    # -- the queue -----------------------------------------------------------------
    def queue(self, partition: int = 0) -> np.ndarray:
        """The jobs waiting on ``partition`` (not started in this pass), in
        submission order: a new ``int64`` array of job indices."""
        if self._g[_NSTARTED]:  # drop the jobs started in this pass
            kn.compact(self._h, partition)
        a = self._qoff[partition]
        return self._queue[a:a + self._qlen[partition]].copy()

    def released(self, partition: int = 0) -> np.ndarray:
        """The jobs of ``partition`` submitted since the previous pass and
        still waiting, in submission order (batsched's "jobs released
        recently": conservative backfilling places only them when no job
        ended)."""
        jobs = self._submitted[self._released_from:self._released_to]
        if self.partitions > 1:
            jobs = jobs[np.maximum(self.jobs.partition[jobs], 0) == partition]
        return jobs[self._state[jobs] == bk.WAITING]

    def queue_arrays(self, now: float, partition: int = 0) -> QueueArrays:
        """:meth:`queue` with the jobs' features (:class:`QueueArrays`)."""
        q = self.queue(partition)
        t = self.jobs
        submit = t.submit[q]
        return QueueArrays(q, t.nodes[q], t.estimate[q], submit, now - submit)

    # -- the profile ---------------------------------------------------------------
    def _sync(self, k: int) -> None:
        """Apply the ends since the last sync and move lane ``k`` to
        ``now`` (once per pass)."""
        kn.sync(self._h, self._nend, k, self._now)
        self._synced[k] = self._pass
        if self.partitions == 1:
            self._all_synced = self._pass

    def _fold(self) -> int:
        """The lane a compiled block that may start jobs should sync first
        (one call less per pass), marked synced; ``-1`` if none (the lanes
        of several partitions are synced here)."""
        if self._all_synced == self._pass:
            return -1
        if self.partitions > 1:
            self._sync_all()
            return -1
        self._synced[0] = self._all_synced = self._pass
        return 0

    def _sync_all(self) -> None:
        for k in range(self.partitions):
            if self._synced[k] != self._pass:
                self._sync(k)
        self._all_synced = self._pass

    def _grow(self, placements: int) -> None:
        self._st = bk.grow(self._st, max(placements, 1))
        self._h = handle.make(self._st, self._extras)

    def _ready(self, job: int) -> None:
        k = self._lane[job]
        if self._synced[k] != self._pass:
            self._sync(k)

    def fits_now(self, job: int, before: float = math.inf) -> bool:
        """Whether waiting ``job`` could start now: ``Q_j`` machines free
        now and over ``[now, now + e_j)`` in the profile (running jobs until
        their estimated ends, the reservations of other jobs), and it is
        expected to end by ``before`` (``now + e_j <= before``). Nothing
        changes."""
        self._ready(job)
        while True:
            r = kn.fits_now(self._h, job, self._now, float(before))
            if r >= 0:
                return bool(r)
            self._grow(1)

    def start(self, job: int, before: float = math.inf) -> bool:
        """Start waiting ``job`` now if :meth:`fits_now` (on the
        lowest-numbered machines that fit; a reservation it holds is given
        up); whether it started."""
        self._ready(job)
        while True:
            r = kn.start_one(self._h, job, self._now, float(before))
            if r >= 0:
                return bool(r)
            self._grow(1)

    def start_in_order(self, jobs: np.ndarray) -> int:
        """Start ``jobs`` in order while each fits now (its own reservation
        given up); stop at the first that does not. Returns the index in
        ``jobs`` of that first job (``len(jobs)``: all started)."""
        jobs = _int_array(jobs)
        k = -1 if self._all_synced == self._pass else self._fold()
        while True:
            r = kn.start_in_order(self._h, jobs, self._now, self._nend, k)
            if r >= 0:
                return r
            k = -1
            self._grow(len(jobs))

    def start_fitting(self, jobs: np.ndarray, before: float = math.inf) -> int:
        """Start, in order, every job of ``jobs`` that fits now
        (:meth:`fits_now` at its turn, after the earlier starts) and is
        expected to end by ``before``; jobs holding a reservation are
        skipped. Returns how many started."""
        jobs = _int_array(jobs)
        k = -1 if self._all_synced == self._pass else self._fold()
        while True:
            r = kn.start_fitting(self._h, jobs, self._now, float(before), self._nend, k)
            if r >= 0:
                return r
            k = -1
            self._grow(len(jobs))

    def place(self, jobs: np.ndarray) -> int:
        """Place each job of ``jobs`` in order, as batsched's
        ``add_job_first_fit`` (conservative backfilling): its reservation,
        if any, is dropped; it starts now if its :meth:`first_fit` starts
        now, else it is reserved there (none if it never fits). The jobs
        after it keep their reservations meanwhile. Returns how many
        started."""
        jobs = _int_array(jobs)
        k = -1 if self._all_synced == self._pass else self._fold()
        while True:
            r = kn.place_in_order(self._h, jobs, self._now, self._nend, k)
            if r >= 0:
                return r
            k = -1
            self._grow(len(jobs))

    def ended(self, partition: int = 0) -> bool:
        """Whether a job of ``partition`` ended since the last pass that
        read its queue or profile (batsched's "jobs ended recently":
        conservative backfilling compresses its reservations then)."""
        if self._synced[partition] != self._pass:
            self._sync(partition)
        return bool(self._lanes[partition, kn.Q_ENDED])

    def stale(self, partition: int = 0) -> bool:
        """Whether every reservation of ``partition`` was dropped when this
        pass brought its profile up to date, because one could not be kept:
        a running job is past its estimate (possible only when jobs are not
        killed at their wall time), or a reservation lies in the past.
        Conservative backfilling then places every waiting job again."""
        if self._synced[partition] != self._pass:
            self._sync(partition)
        return bool(self._st[4][partition, bk.L_STALE])

    def has_reservation(self, jobs: np.ndarray) -> np.ndarray:
        """For each job of ``jobs``, whether it holds a reservation (a
        boolean array)."""
        return self._st[0][_int_array(jobs), bk.J_RES] != 0

    def first_fit(self, job: int) -> Fit:
        """Where waiting ``job`` fits first (its own reservation counts as
        free): batsched's ``add_job_first_fit``, the earliest ``t`` (``now``
        or a later slice start) where ``Q_j`` machines are free over ``[t,
        t + e_j)``, on the lowest-numbered such machines. Nothing changes."""
        t = self.earliest_start(job)
        if math.isinf(t):
            return Fit(math.inf, MachineSet())
        return Fit(t, _mask_set(self._mask[0]))

    def earliest_start(self, job: int) -> float:
        """``first_fit(job).start``."""
        self._ready(job)
        while True:
            t = kn.first_fit(self._h, job)
            if t != -1.0:
                return float(t)
            self._grow(1)

    def reserve(self, job: int) -> float:
        """Reserve waiting ``job`` at its :meth:`first_fit` (a reservation
        it held is placed again): its machines are then held over ``[t, t +
        e_j)`` in the profile. Returns ``t`` (``inf``: it never fits -- its
        machines are held by jobs of unknown length -- and gets no
        reservation)."""
        self._ready(job)
        while True:
            t = kn.reserve(self._h, job)
            if t != -1.0:
                return float(t)
            self._grow(1)

    def shadow_time(self, head: int) -> float:
        """EASY's *shadow time*: :meth:`reserve` the ``head`` of the queue
        at its first fit, on the machines Batsim's reference scheduler
        would reserve (the lowest-numbered machines free over the whole
        requested window), and return its start. Later jobs then start now
        (:meth:`start_fitting`) only without touching those machines over
        that window."""
        if self._synced[self._lane[head]] != self._pass:
            self._sync(self._lane[head])
        while True:
            t = kn.reserve(self._h, head)
            if t != -1.0:
                return t
            self._grow(1)

    def unreserve(self, job: int) -> None:
        """Drop ``job``'s reservation, if it holds one."""
        self.clear_reservations(np.array([job], np.int64))

    def clear_reservations(self, jobs: np.ndarray | None = None) -> int:
        """Drop the reservations of ``jobs`` (default: every waiting job);
        returns how many were dropped."""
        if jobs is None:
            jobs = (self.queue(0) if self.partitions == 1 else
                    np.concatenate([self.queue(k) for k in range(self.partitions)]))
        jobs = _int_array(jobs)
        if self._all_synced != self._pass:
            self._sync_all()
        return kn.clear_reservations(self._h, jobs)

    def reservation(self, job: int) -> Fit | None:
        """``job``'s reservation (start and machines), or ``None``."""
        ji, jf = self._st[0], self._st[1]
        if not ji[job, bk.J_RES]:
            return None
        return Fit(float(jf[job, bk.F_START]),
                   _mask_set(self._st[2][ji[job, bk.J_SLOT]]))

    def profile(self, partition: int = 0) -> Profile:
        """A snapshot of ``partition``'s availability profile
        (:class:`Profile`), moved to ``now``."""
        if self._synced[partition] != self._pass:
            self._sync(partition)
        st = self._st
        nsl = int(st[4][partition, bk.L_NSL])
        rows = st[7][partition, :nsl]
        sets = tuple(_mask_set(rows[i]) for i in range(nsl))
        return Profile(st[6][partition, :nsl].copy(),
                       np.array([len(s) for s in sets], np.int64),
                       _mask_set(st[9][partition]), sets)

    def started(self) -> Sequence[int]:
        """The jobs started so far in this pass, in order."""
        st = self._st
        return st[13][:int(st[10][bk.G_NSTARTED])].tolist()
