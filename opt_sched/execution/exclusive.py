"""The ``exclusive`` execution model (SPEC §3 rule 5, seeds 000 and 003).

Each partition's I/O node serves one I/O phase at a time, at the full
bandwidth ``b_k``, without preemption: phase ``j`` of job ``i`` lasts
``d_ij = v_ij / b_k``. A job that finishes compute phase ``j`` requests its
I/O node and waits, keeping its machines, until the node picks it; when the
node frees and several phases wait, the I/O list *policy* picks one (seed
003 §5.1, :mod:`opt_sched.simulation.policies`); ties go to the earliest
request, then to the lowest instance index. A zero-volume phase takes no
time and never waits. After its last I/O phase the job ends.

This is the model of the batch simulator: both run the one exclusive-I/O
event loop (:mod:`opt_sched.simulation.events`), here stepped between
job-level events, so the same plan gives the same schedule through
:func:`opt_sched.simulate` and through :func:`opt_sched.scheduling.replay`
(tested).

When no job does I/O, a job is one delay ``sum_j w_ij``: a Python heap of
ends replaces the event loop (a compiled call per event costs more than the
event; measured on KTH-SP2, FCFS: 0.50 s through the heap, 0.68 s through
the event loop), and the fused replay
(:mod:`opt_sched.scheduling.fused`) runs such workloads itself for the
backfilling schedulers, then hands the starts to :meth:`Exclusive.adopt`.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence

import numpy as np

from ..instance import Instance
from ..simulation import events as ek
from ..simulation.policies import PhaseTable, Policy, get_policy
from .base import JobPhases
from .stepping import take_pending

__all__ = ["Exclusive"]


class Exclusive:
    """One exclusive, non-preemptive I/O node per partition.

    Parameters
    ----------
    policy
        The I/O list policy (a name of
        :data:`~opt_sched.simulation.policies.POLICY_NAMES`, or a
        :class:`~opt_sched.simulation.policies.Policy`).
    """

    name = "exclusive"

    def __init__(self, policy: str | Policy = "fifo") -> None:
        self.policy = policy if isinstance(policy, Policy) else get_policy(policy)

    # -- setup -------------------------------------------------------------------
    def attach(self, instance: Instance) -> None:
        jobs = instance.jobs
        n = len(jobs)
        off, w, v = instance.phase_arrays
        counts = np.diff(off)
        self._n = n
        self._off = off
        self._offl = off.tolist()
        self._w = w
        self._compute_only = not np.any(v > 0)
        self._killed: dict[int, float] = {}
        if self._compute_only:
            self._attach_compute_only(instance, off, w)
            return
        job_of = np.repeat(np.arange(n), counts)
        bands = [p.bandwidth for p in instance.platform.partitions]
        R = len(bands)
        tables = np.zeros((3, R, int(off[-1])))
        for k, b in enumerate(bands):
            d_k = v / b
            table = PhaseTable(job_of, off, w, d_k)
            tables[ek.T_D, k] = d_k
            tables[ek.T_DONE, k] = table.done()
            if self.policy.phase_key is not None:
                tables[ek.T_KEY, k] = self.policy.phase_key(table)
        self._mode = self.policy.mode
        self._tables = tables
        state = ek.new_state(off, w, R)
        _, self._ji, self._jf, self._pf, self._ki, self._wheap, self._meta = state
        self._ended = self._ji[ek.J_ENDED]
        self._step_args = (n, self._mode, *state)
        self._pending: list[tuple[int, int]] = []

    def _attach_compute_only(self, instance: Instance, off: np.ndarray,
                             w: np.ndarray) -> None:
        """No job does any I/O: a job is one delay ``sum_j w_ij``; a heap of
        ends replaces the compiled steps (no per-call overhead)."""
        n = self._n
        total = np.add.reduceat(w, off[:-1]) if len(w) else np.zeros(n)
        self._total = total.tolist()
        self._wl = w.tolist()
        self._starts = [math.nan] * n
        self._heap: list[tuple[float, int]] = []
        self._status = [0] * n

    def job_lengths(self) -> np.ndarray | None:
        """When no job does I/O (after :meth:`attach`): each job's length,
        the sum of its compute phases; ``None`` otherwise. A replay engine
        may then run the jobs itself (as delays) and :meth:`adopt` the
        result."""
        return np.asarray(self._total) if self._compute_only else None

    def adopt(self, starts: Sequence[float], killed_at: dict[int, float]) -> None:
        """Take the starts (and kills) of a compute-only replay run outside
        the model (:mod:`opt_sched.scheduling.fused`), for :meth:`phases`."""
        if not self._compute_only:
            raise ValueError("adopt() needs a compute-only workload")
        self._starts = list(starts)
        self._killed = dict(killed_at)

    # -- stepping ---------------------------------------------------------------
    def start(self, now: float, job: int, partition: int) -> None:
        if self._compute_only:
            self._starts[job] = now
            self._status[job] = ek.RUNNING
            heapq.heappush(self._heap, (now + self._total[job], job))
            return
        self._pending.append((job, partition))

    def advance(self, until: float) -> tuple[float, Sequence[int]]:
        if self._compute_only:
            heap = self._heap
            while heap and self._status[heap[0][1]] != ek.RUNNING:
                heapq.heappop(heap)
            if not heap or heap[0][0] > until:
                return until, ()
            t = heap[0][0]
            ended = []
            while heap and heap[0][0] == t:
                _, j = heapq.heappop(heap)
                if self._status[j] == ek.RUNNING:
                    self._status[j] = ek.DONE
                    ended.append(j)
            return t, ended
        if self.next_time() > until:
            return until, ()  # no event up to until: nothing to apply
        t, count = ek.step(float(until), False, *self._step_args)
        return t, self._ended[:count].tolist() if count else ()

    def settle(self, now: float) -> Sequence[int]:
        if self._compute_only:
            if self._heap and self._heap[0][0] == now:
                return self.advance(now)[1]
            return ()
        if self._pending:
            jobs, parts = take_pending(self._pending)
            ek.start_jobs(jobs, parts, float(now), self._off, self._ji, self._jf,
                          self._pf, self._meta, self._tables)
        elif self._meta[ek.TOUCHED] == 0 and self.next_time() > now:
            return ()  # no event at now, no I/O node to choose: nothing to do
        count = ek.step(float(now), True, *self._step_args)[1]
        return self._ended[:count].tolist() if count else ()

    def kill(self, now: float, job: int) -> None:
        self._killed[job] = now
        if self._compute_only:
            if self._status[job] == ek.RUNNING:
                self._status[job] = ek.KILLED
            return
        ek.kill(job, self._n, self._mode, self._ji, self._jf, self._ki, self._wheap,
                self._meta)

    def next_time(self) -> float:
        if self._compute_only:
            return self._heap[0][0] if self._heap else math.inf
        if self._meta[ek.HSIZE] == 0:
            return math.inf
        return float(self._jf[ek.F_EVT, self._ji[ek.J_HEAP, 0]])

    # -- results ------------------------------------------------------------------
    def all_phases(self) -> list[JobPhases]:
        """:meth:`phases` of every job, in job order (one pass)."""
        if not self._compute_only:
            cs = self._pf[ek.P_CSTART].tolist()
            io = self._pf[ek.P_IOSTART].tolist()
            done = (self._ji[ek.J_STATUS, :self._n] == ek.DONE).tolist()
            killed = self._killed
            off = self._offl
            return [JobPhases(tuple(cs[off[i]:off[i + 1]]),
                              tuple(io[off[i]:off[i + 1]]))
                    if done[i] and i not in killed else self.phases(i)
                    for i in range(self._n)]
        offl, w, killed = self._offl, self._wl, self._killed
        if not killed and len(w) == self._n:  # one compute phase per job
            return [JobPhases((start,), (start + wi,))
                    for start, wi in zip(self._starts, w)]
        out = []
        for job, start in enumerate(self._starts):
            lo = offl[job]
            if offl[job + 1] - lo == 1 and job not in killed:
                out.append(JobPhases((start,), (start + w[lo],)))
            else:
                out.append(self.phases(job))
        return out

    def phases(self, job: int) -> JobPhases:
        lo, hi = self._offl[job], self._offl[job + 1]
        killed_at = self._killed.get(job)
        if self._compute_only:
            start = self._starts[job]
            w = self._wl
            if hi - lo == 1 and killed_at is None:
                return JobPhases((start,), (start + w[lo],))
            starts = [start]
            for p in range(lo, hi - 1):
                starts.append(starts[-1] + w[p])
            ios = [c + w[lo + m] for m, c in enumerate(starts)]
            return _cut(starts, ios, killed_at)
        cs = self._pf[ek.P_CSTART, lo:hi]
        io = self._pf[ek.P_IOSTART, lo:hi]
        started = int(np.count_nonzero(~np.isnan(cs)))
        io_started = int(np.count_nonzero(~np.isnan(io)))
        return _cut(cs[:started].tolist(), io[:io_started].tolist(), killed_at)


def _cut(compute: list[float], io: list[float], killed_at: float | None
         ) -> JobPhases:
    """The phases of a job, keeping for a killed job only those that started
    strictly before ``killed_at`` (its first phase always)."""
    if killed_at is not None:
        compute = compute[:1] + [c for c in compute[1:] if c < killed_at]
        io = [o for o in io[:len(compute)] if o < killed_at]
    return JobPhases(tuple(compute), tuple(io))
