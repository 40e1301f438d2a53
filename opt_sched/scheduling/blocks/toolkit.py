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

Nothing is paid for a block a scheduler does not call: a submission
appends to a list, an end is noted, and the profile is brought up to date
(ends applied, moved to ``now``) in one compiled call, at the first block
of a pass that reads it. A pass that starts nothing builds nothing.

Starts are collected by the blocks and returned by :meth:`Blocks.finish`
as :class:`~opt_sched.scheduling.base.Start` objects (machines chosen: the
lowest-numbered that fit), which the engine checks like any other.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ...errors import OptionError
from ...schedule import MachineSet
from .. import backfill_kernel as bk
from ..backfilling import _machine_set
from ..base import Cluster, JobTable, Start
from . import kernel as kn

__all__ = ["Blocks", "Fit", "Profile", "QueueArrays"]

_EMPTY = np.empty(0, np.int64)


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


def _int_array(jobs: object) -> np.ndarray:
    """``jobs`` as a 1-d ``int64`` array (no copy when it is one)."""
    if getattr(jobs, "dtype", None) is _INT64 and jobs.ndim == 1:  # type: ignore[attr-defined]
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
        self._arr = [_EMPTY] * L
        self._new: list[list[int]] = [[] for _ in range(L)]
        # bookkeeping by counters: a lane is synced in pass ``_pass`` if
        # ``_synced[k] == _pass``; its queue array holds no started job if
        # ``_filtered[k] == _version`` (bumped by every block that starts)
        self._pass = 0
        self._synced = [-1] * L
        self._all_synced = -1
        self._version = 0
        self._filtered = [0] * L
        self.waiting = 0
        """How many jobs wait (all partitions)."""
        self._ended = np.zeros(max(n, 1), np.int64)
        self._nend = 0
        self._now = -math.inf
        self._mbuf = np.zeros(sum(sizes), np.int64)
        self._moff = np.zeros(n + 1, np.int64)
        self._out = np.zeros((1, self._st[12].shape[1]), np.uint64)

    # -- events and the pass -------------------------------------------------------
    def submit(self, job: int) -> None:
        """``job`` waits (in submission order)."""
        self._new[self._lane[job]].append(job)
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

    def finish(self) -> list[Start]:
        """The jobs the blocks started in this pass, as
        :class:`~opt_sched.scheduling.base.Start` objects."""
        st = self._st
        if self._all_synced == self._pass:  # the ends seen by this pass
            st[4][:, bk.L_ENDED] = 0
        else:
            for k in range(self.partitions):
                if self._synced[k] == self._pass:
                    st[4][k, bk.L_ENDED] = 0
        count = int(st[10][bk.G_NSTARTED])
        if not count:
            return []
        bk.started_machines(st, self._mbuf, self._moff)
        numbers = self._mbuf
        off = self._moff[:count + 1].tolist()
        starts = []
        lanes = self._lane
        for s, j in enumerate(st[13][:count].tolist()):
            k = lanes[j]
            starts.append(Start(j, _machine_set(numbers[off[s]:off[s + 1]]), k))
        self.waiting -= count
        st[10][bk.G_NSTARTED] = 0
        return starts

    # -- the queue -----------------------------------------------------------------
    def queue(self, partition: int = 0) -> np.ndarray:
        """The jobs waiting on ``partition`` (not started in this pass), in
        submission order: an ``int64`` array of job indices (read it; the
        blocks take slices and filtered copies of it)."""
        arr = self._arr[partition]
        if self._filtered[partition] != self._version:
            arr = arr[self._state[arr] == bk.WAITING]
            self._filtered[partition] = self._version
        new = self._new[partition]
        if new:
            arr = np.concatenate((arr, np.array(new, np.int64)))
            new.clear()
        self._arr[partition] = arr
        return arr

    def queue_arrays(self, now: float, partition: int = 0) -> QueueArrays:
        """:meth:`queue` with the jobs' features (:class:`QueueArrays`)."""
        q = self.queue(partition)
        t = self.jobs
        submit = t.submit[q]
        return QueueArrays(q, t.nodes[q], t.estimate[q], submit, now - submit)

    # -- the profile ---------------------------------------------------------------
    def _sync(self, k: int) -> None:
        """Apply the pending ends and move lane ``k`` to ``now`` (once per
        pass)."""
        order = self.queue(k)
        kn.sync(self._st, self._ended, self._nend, k, self._now, order, len(order))
        self._nend = 0
        self._synced[k] = self._pass
        if self.partitions == 1:
            self._all_synced = self._pass

    def _sync_all(self) -> None:
        for k in range(self.partitions):
            if self._synced[k] != self._pass:
                self._sync(k)
        self._all_synced = self._pass

    def _fold(self) -> tuple[int, np.ndarray]:
        """``(lane, its queue)`` for a kernel that syncs the lane first
        (:func:`~.kernel.start_in_order`), marked synced; ``(-1, empty)``
        if every lane is synced (those of several partitions are synced
        here)."""
        if self._all_synced == self._pass:
            return -1, _EMPTY
        if self.partitions > 1:
            self._sync_all()
            return -1, _EMPTY
        self._synced[0] = self._all_synced = self._pass
        return 0, self.queue(0)

    def _grow(self, placements: int) -> None:
        self._st = bk.grow(self._st, max(placements, 1))

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
            r = kn.fits_now(self._st, job, self._now, float(before))
            if r >= 0:
                return bool(r)
            self._grow(1)

    def start(self, job: int, before: float = math.inf) -> bool:
        """Start waiting ``job`` now if :meth:`fits_now` (on the
        lowest-numbered machines that fit; a reservation it holds is given
        up); whether it started."""
        self._ready(job)
        while True:
            r = kn.start_one(self._st, job, self._now, float(before))
            if r >= 0:
                if r:
                    self._version += 1
                return bool(r)
            self._grow(1)

    def _starting(self, size: int, call: Callable[[int, np.ndarray], int]) -> int:
        """Run a compiled block that may start jobs: ``call(k, order)`` with
        the ended jobs folded in (:meth:`_fold`); when it reports no room
        (a negative result) the state grows for ``size`` more jobs and the
        call is repeated. Returns the block's result (the jobs started)."""
        k, order = self._fold()
        while True:
            r = call(k, order)
            if k >= 0:
                self._nend, k = 0, -1
            if r >= 0:
                if r:
                    self._version += 1
                return r
            self._grow(size)

    def start_in_order(self, jobs: np.ndarray) -> int:
        """Start ``jobs`` in order while each fits now (its own reservation
        given up); stop at the first that does not. Returns the index in
        ``jobs`` of that first job (``len(jobs)``: all started)."""
        jobs = _int_array(jobs)
        return self._starting(len(jobs), lambda k, order: kn.start_in_order(
            self._st, jobs, len(jobs), self._now, self._ended, self._nend, k, order,
            len(order)))

    def start_fitting(self, jobs: np.ndarray, before: float = math.inf) -> int:
        """Start, in order, every job of ``jobs`` that fits now
        (:meth:`fits_now` at its turn, after the earlier starts) and is
        expected to end by ``before``; jobs holding a reservation are
        skipped. Returns how many started."""
        jobs = _int_array(jobs)
        return self._starting(len(jobs), lambda k, order: kn.start_fitting(
            self._st, jobs, len(jobs), self._now, float(before), self._ended,
            self._nend, k, order, len(order)))

    def place(self, jobs: np.ndarray) -> int:
        """Place each job of ``jobs`` in order, as batsched's
        ``add_job_first_fit`` (conservative backfilling): its reservation,
        if any, is dropped; it starts now if its :meth:`first_fit` starts
        now, else it is reserved there (none if it never fits). The jobs
        after it keep their reservations meanwhile. Returns how many
        started."""
        jobs = _int_array(jobs)
        return self._starting(len(jobs), lambda k, order: kn.place_in_order(
            self._st, jobs, len(jobs), self._now, self._ended, self._nend, k, order,
            len(order)))

    def ended(self, partition: int = 0) -> bool:
        """Whether a job of ``partition`` ended since the last pass that
        read the profile (batsched's "jobs ended recently": conservative
        backfilling compresses its reservations then)."""
        if self._synced[partition] != self._pass:
            self._sync(partition)
        return bool(self._st[4][partition, bk.L_ENDED])

    def has_reservation(self, jobs: np.ndarray) -> np.ndarray:
        """For each job of ``jobs``, whether it holds a reservation (a
        boolean array)."""
        return self._st[0][_int_array(jobs), bk.J_RES] != 0

    def first_fit(self, job: int) -> Fit:
        """Where waiting ``job`` fits first (its own reservation counts as
        free): batsched's ``add_job_first_fit``, the earliest ``t`` (``now``
        or a later slice start) where ``Q_j`` machines are free over ``[t,
        t + e_j)``, on the lowest-numbered such machines. Nothing changes."""
        self._ready(job)
        while True:
            t = kn.first_fit(self._st, job, self._out)
            if t != -1.0:
                break
            self._grow(1)
        if math.isinf(t):
            return Fit(math.inf, MachineSet())
        return Fit(float(t), _mask_set(self._out[0]))

    def earliest_start(self, job: int) -> float:
        """``first_fit(job).start``."""
        self._ready(job)
        while True:
            t = kn.first_fit(self._st, job, self._out)
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
            t = kn.reserve(self._st, job)
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
        return self.reserve(head)

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
        return kn.clear_reservations(self._st, jobs, len(jobs))

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

