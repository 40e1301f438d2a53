"""The fused replay: the whole online replay of a workload without I/O in
one compiled loop (numba, ``cache=True``), for the backfilling schedulers.

:func:`~opt_sched.scheduling.replay.replay` runs it instead of stepping
Python objects when the execution model has nothing to simulate (no job
does I/O: a job is one delay of ``sum_j w_ij``) and the scheduler is a
:class:`~opt_sched.scheduling.backfilling.ProfileScheduler` whose queue
order has a static key. The loop applies the engine's rules exactly -- the
same instants, completions before kills before submissions, submissions in
``(time, index)`` order, one pass per instant and another one when jobs
end at that instant -- and makes its decisions with the scheduler's own
compiled passes (:mod:`~opt_sched.scheduling.backfill_kernel`); so it is the
same replay, only without the per-event Python calls (tested against the
stepped engine).

Slurm's backfilling limits (:mod:`~opt_sched.scheduling.backfill_limits`)
are applied as in the stepped path: the same pass modes, and a wake-up at
``next_bf`` while jobs wait (registers ``bf``: ``next_bf``, whether the last
pass was a backfill pass).

The waiting jobs of each lane are kept sorted by ``(key, submission
order)``, or, for an order with an age-and-size priority
(:mod:`~opt_sched.scheduling.fused_order`: multifactor without fair-share,
WoAS over it), in submission order and sorted at each pass; the loop
stops between instants when the number of ended jobs crosses a multiple
of ``report_every``, so that the engine can report progress, and
resumes.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..schedule import MachineSet
from ..simulation.heaps import ev_push, ev_remove_root
from . import backfill_kernel as bk
from . import fused_order as fo
from . import profile as pf

__all__ = ["FusedRun"]

DONE = 0
PAUSED = 1
STUCK = 2

# int registers
R_ENDED, R_NREL = 0, 1
# heaps: arrivals, completions, kills
H_ARR, H_END, H_KILL = 0, 1, 2


@njit(inline="always")
def _push(times, heap, prio, size, h, t, j):
    """Put job ``j`` on heap ``h`` at time ``t`` (ties: lowest index)."""
    times[j] = t
    size[h] = ev_push(heap, size[h], times, prio, j)


@njit(inline="always")
def _pop(times, heap, prio, size, h):
    """Remove and return the job at the top of heap ``h``."""
    j = heap[0]
    size[h] = ev_remove_root(heap, size[h], times, prio)
    return j


@njit(cache=True)
def _end(st, j, t, killed, killed_t, act, regs, pred_left, succ_off, succ, submit,
         at, aj, prio, size):
    bk.complete_job(st, j)
    if killed:
        killed_t[j] = t
    act[st[0][j, bk.J_LANE]] = 1
    regs[R_ENDED] += 1
    for p in range(succ_off[j], succ_off[j + 1]):
        s = succ[p]
        pred_left[s] -= 1
        if pred_left[s] == 0:
            _push(at, aj, prio, size, H_ARR, max(submit[s], t), s)


@njit(cache=True)
def _submit(st, j, key, qoff, qn, qj, rel, regs, act):
    ji = st[0]
    ji[j, bk.J_STATE] = bk.WAITING
    k = ji[j, bk.J_LANE]
    base = qoff[k]
    lo, hi = 0, qn[k]
    while lo < hi:  # first queued job with a larger key (ties: submission order)
        mid = (lo + hi) // 2
        if key[qj[base + mid]] <= key[j]:
            lo = mid + 1
        else:
            hi = mid
    for i in range(qn[k], lo, -1):
        qj[base + i] = qj[base + i - 1]
    qj[base + lo] = j
    qn[k] += 1
    rel[regs[R_NREL]] = j
    regs[R_NREL] += 1
    act[k] = 1


@njit(cache=True)
def run(kind, st, key, submit, length, kill_after, pred_left, succ_off, succ, qoff,
        qn, qj, start_t, killed_t, moff, mach, ht, hj, size, regs, act, rel,
        report_every, limits, bf, darr, dpar):
    """Replay until every job ended (``DONE``), until the ended count
    crosses a multiple of ``report_every`` (``PAUSED``: call again to
    resume), or until nothing can happen any more (``STUCK``). Returns the
    status and the (maybe grown) scheduler state, which the caller owns
    (the loop itself works on borrowed views, see
    :func:`~opt_sched.scheduling.backfill_kernel.borrow`)."""
    sb = bk.borrowed(st)
    ji = sb[0]
    n = submit.shape[0]
    b = bk.borrow
    at, aj = b(ht[H_ARR]), b(hj[H_ARR])
    ct, cj = b(ht[H_END]), b(hj[H_END])
    kt, kj = b(ht[H_KILL]), b(hj[H_KILL])
    key, submit, length, kill_after = b(key), b(submit), b(length), b(kill_after)
    pred_left, succ_off, succ, qoff = b(pred_left), b(succ_off), b(succ), b(qoff)
    qn, qj, start_t, killed_t = b(qn), b(qj), b(start_t), b(killed_t)
    moff, mach, size, regs, act, rel = (b(moff), b(mach), b(size), b(regs), b(act),
                                        b(rel))
    L = qn.shape[0]
    prio = np.arange(n)  # heap ties: the lowest job index first
    if darr is not None:
        qs, qsn, inq, pr, tmp, drep, delig, dsize, danchor, dseq, dcount = darr
        qs, qsn, inq, pr, tmp = b(qs), b(qsn), b(inq), b(pr), b(tmp)
        drep, delig, dsize, danchor, dseq, dcount = (b(drep), b(delig), b(dsize),
                                                      b(danchor), b(dseq), b(dcount))
        grouped, w_age, w_size, max_age = dpar[0] != 0.0, dpar[1], dpar[2], dpar[3]
    depth, interval = bk.UNLIMITED_DEPTH, 0.0
    if limits is not None:
        depth, interval = limits
    tprev = -math.inf
    while regs[R_ENDED] < n:
        mark = regs[R_ENDED] // report_every
        while size[H_KILL] > 0 and ji[kj[0], bk.J_STATE] != bk.RUNNING:
            _pop(kt, kj, prio, size, H_KILL)
        while size[H_END] > 0 and ji[cj[0], bk.J_STATE] != bk.RUNNING:
            _pop(ct, cj, prio, size, H_END)
        until = math.inf
        if size[H_ARR] > 0:
            until = at[aj[0]]
        if size[H_KILL] > 0 and kt[kj[0]] < until:
            until = kt[kj[0]]
        if interval > 0.0 and tprev < bf[0] < until:  # the next backfill pass
            waiting = 0
            for k in range(L):
                waiting += qn[k]
            if waiting > 0 and (sb[10][bk.G_NRUN] > 0 or bf[1] == 0.0):
                until = bf[0]
        if until == math.inf and size[H_END] == 0:
            return STUCK, st
        # 1. the instant: job ends, kills, submissions
        t = until
        if size[H_END] > 0 and ct[cj[0]] <= until:
            t = ct[cj[0]]
            while size[H_END] > 0 and ct[cj[0]] == t:
                j = _pop(ct, cj, prio, size, H_END)
                if ji[j, bk.J_STATE] == bk.RUNNING:
                    _end(sb, j, t, False, killed_t, act, regs, pred_left, succ_off,
                         succ, submit, at, aj, prio, size)
        while size[H_KILL] > 0 and kt[kj[0]] <= t:
            j = _pop(kt, kj, prio, size, H_KILL)
            if ji[j, bk.J_STATE] == bk.RUNNING:
                _end(sb, j, t, True, killed_t, act, regs, pred_left, succ_off, succ,
                     submit, at, aj, prio, size)
        while size[H_ARR] > 0 and at[aj[0]] <= t:
            j = _pop(at, aj, prio, size, H_ARR)
            _submit(sb, j, key, qoff, qn, qj, rel, regs, act)
        # 2. passes until no job ends at t
        while True:
            sb[10][bk.G_NSTARTED] = 0
            if darr is not None:
                for r in range(regs[R_NREL]):
                    dcount[0] = fo.stamp(rel[r], t, drep, delig, dseq, dcount[0])
            mode = bk.EVENT
            if interval > 0.0:
                if t >= bf[0]:
                    mode = bk.SWEEP
                    bf[0] = t + interval
                    bf[1] = 1.0
                else:
                    mode = bk.FIFO
                    bf[1] = 0.0
            for k in range(L):
                if not act[k] and not (mode == bk.SWEEP and qn[k] > 0):
                    continue
                act[k] = 0
                base, m = qoff[k], qn[k]
                order = qj[base:base + m]
                if darr is not None:
                    fo.sort_lane(ji, qj, qs, qsn, base, m, k, t, inq, pr, tmp, drep,
                                 delig, dsize, danchor, dseq, grouped, w_age, w_size,
                                 max_age)
                    order = qs[base:base + m]
                while True:
                    if limits is None:
                        done = bk.lane_pass(kind, sb, k, t, order, m, rel,
                                            regs[R_NREL])
                    else:
                        done = bk.bounded_lane_pass(kind, sb, k, t, order, m, rel,
                                                    regs[R_NREL], depth, mode)
                    if done:
                        break
                    st = bk.grow(st, bk.placements_bound(kind, sb, k, m))
                    sb = bk.borrowed(st)
                    ji = sb[0]
                w = 0
                for i in range(m):
                    j = qj[base + i]
                    if ji[j, bk.J_STATE] == bk.WAITING:
                        qj[base + w] = j
                        w += 1
                qn[k] = w
            regs[R_NREL] = 0
            started, masks = sb[13], sb[2]
            for s in range(sb[10][bk.G_NSTARTED]):
                j = started[s]
                start_t[j] = t
                pf.machines_of(masks, ji[j, bk.J_SLOT], mach, moff[j])
                _push(ct, cj, prio, size, H_END, t + length[j], j)
                if kill_after[j] < math.inf:
                    _push(kt, kj, prio, size, H_KILL, t + kill_after[j], j)
            ended_now = False
            while size[H_END] > 0 and ct[cj[0]] == t:
                j = _pop(ct, cj, prio, size, H_END)
                if ji[j, bk.J_STATE] == bk.RUNNING:
                    ended_now = True
                    _end(sb, j, t, False, killed_t, act, regs, pred_left, succ_off,
                         succ, submit, at, aj, prio, size)
            if not ended_now:
                break
            while size[H_ARR] > 0 and at[aj[0]] <= t:
                j = _pop(at, aj, prio, size, H_ARR)
                _submit(sb, j, key, qoff, qn, qj, rel, regs, act)
        tprev = t
        if regs[R_ENDED] // report_every != mark and regs[R_ENDED] < n:
            return PAUSED, st
    return DONE, st


class FusedRun:
    """One fused replay: the loop's arrays, built from the scheduler's
    state and the workload.

    Parameters
    ----------
    scheduler
        An attached :class:`~opt_sched.scheduling.backfilling.ProfileScheduler`.
    kind, key
        Its :meth:`~opt_sched.scheduling.backfilling.ProfileScheduler.fused_spec`.
    submit, length, estimate
        Per job: submit time, real length (the sum of its compute phases),
        requested wall time (``inf``: none).
    after
        Per job, the indices of the jobs it waits for.
    kill_at_walltime
        Kill a job still running at ``S_i + e_i``.
    """

    def __init__(self, scheduler, kind: int, key: np.ndarray, submit: np.ndarray,
                 length: np.ndarray, estimate: np.ndarray,
                 after: tuple[tuple[int, ...], ...], kill_at_walltime: bool,
                 report_every: int) -> None:
        n = len(submit)
        st = scheduler._st
        ji = st[0]
        self.scheduler = scheduler
        self.kind = kind
        self.key = np.ascontiguousarray(key, float)
        self.submit = np.ascontiguousarray(submit, float)
        self.length = np.ascontiguousarray(length, float)
        self.kill_after = (np.ascontiguousarray(estimate, float) if kill_at_walltime
                           else np.full(n, math.inf))
        self.pred_left = np.array([len(a) for a in after], np.int64)
        # successors, job by job (CSR)
        pairs = [(p, i) for i, preds in enumerate(after) for p in preds]
        counts = np.zeros(n + 1, np.int64)
        succ = np.zeros(max(len(pairs), 1), np.int64)
        if pairs:
            pred, job = np.array(pairs, np.int64).T
            np.add.at(counts, pred + 1, 1)
            succ[:len(pairs)] = job[np.argsort(pred, kind="stable")]
        self.succ_off = np.cumsum(counts)
        self.succ = succ
        L = st[4].shape[0]
        lane = ji[:, bk.J_LANE]
        per_lane = np.bincount(lane, minlength=L)
        self.qoff = np.zeros(L + 1, np.int64)
        np.cumsum(per_lane, out=self.qoff[1:])
        self.qn = np.zeros(L, np.int64)
        self.qj = np.zeros(max(n, 1), np.int64)
        self.start_t = np.full(n, math.nan)
        self.killed_t = np.full(n, math.nan)
        self.moff = np.zeros(n + 1, np.int64)
        np.cumsum(ji[:, bk.J_NODES], out=self.moff[1:])
        self.mach = np.zeros(max(int(self.moff[-1]), 1), np.int64)
        self.ht = np.zeros((3, max(n, 1)))
        self.hj = np.zeros((3, max(n, 1)), np.int64)
        self.size = np.zeros(3, np.int64)
        first = np.flatnonzero(self.pred_left == 0)
        order = first[np.lexsort((first, self.submit[first]))]
        self.ht[H_ARR, order] = self.submit[order]
        self.hj[H_ARR, :len(order)] = order  # sorted: already a heap
        self.size[H_ARR] = len(order)
        self.regs = np.zeros(2, np.int64)
        self.act = np.zeros(L, np.int64)
        self.rel = np.zeros(max(n, 1), np.int64)
        self.report_every = max(1, int(report_every))
        limits = getattr(scheduler, "_limits", None)
        depth = bk.UNLIMITED_DEPTH if limits is None else int(limits.depth)
        interval = 0.0 if limits is None else float(limits.interval)
        # ``None`` (no limits, a static order) prunes the limits path and the
        # age-and-size sort from the compiled loop (numba prunes branches on
        # ``is None`` of an argument before typing): the common replay does
        # not compile what it does not use
        self.limits = ((depth, interval)
                       if depth < bk.UNLIMITED_DEPTH or interval > 0.0 else None)
        self.bf = np.array([-math.inf, 0.0])
        prio = getattr(scheduler, "fused_priority", lambda: None)()
        size = max(n, 1)
        self.darr = self.dpar = None
        if prio is not None:
            self.darr = (np.zeros(size, np.int64), np.zeros(L, np.int64),
                         np.zeros(size, np.int64), np.zeros(size),
                         np.zeros(size, np.int64),
                         np.ascontiguousarray(prio.rep, np.int64),
                         np.array(prio.elig, float),
                         np.ascontiguousarray(prio.size, float),
                         np.ascontiguousarray(prio.anchor, np.int64),
                         np.zeros(size, np.int64), np.zeros(1, np.int64))
            self.dpar = np.array([float(prio.grouped), prio.weight_age,
                                  prio.weight_size, prio.max_age])

    def run(self) -> int:
        """Run (or resume); ``DONE``, ``PAUSED`` or ``STUCK``."""
        status, st = run(self.kind, self.scheduler._st, self.key, self.submit,
                         self.length, self.kill_after, self.pred_left, self.succ_off,
                         self.succ, self.qoff, self.qn, self.qj, self.start_t,
                         self.killed_t, self.moff, self.mach, self.ht, self.hj,
                         self.size, self.regs, self.act, self.rel, self.report_every,
                         self.limits, self.bf, self.darr, self.dpar)
        self.scheduler._st = st
        return status

    @property
    def ended(self) -> int:
        return int(self.regs[R_ENDED])

    def waiting(self) -> list[int]:
        """The jobs submitted but never started (after ``STUCK``)."""
        ji = self.scheduler._st[0]
        return np.flatnonzero(ji[:, bk.J_STATE] == bk.WAITING).tolist()

    def machines(self) -> list[MachineSet]:
        """Every job's machines (the kernel writes them increasing), as runs
        of consecutive machines found for all jobs in one numpy pass: a run
        starts where the next machine is not the previous plus one, or where
        a job's machines start."""
        off = np.asarray(self.moff, dtype=np.int64)
        jobs, total = len(off) - 1, int(off[-1])
        held = np.asarray(self.mach[:total], dtype=np.int64)
        if total and held.min() < 0:
            raise ValueError(f"machine set: machine {int(held.min())} is negative")
        starts = np.ones(total, dtype=bool)
        starts[1:] = np.diff(held) != 1
        starts[off[:-1][off[:-1] < total]] = True
        first = np.flatnonzero(starts)
        last = np.append(first[1:], total) - 1
        bounds = np.empty(2 * len(first), np.int64)
        bounds[0::2], bounds[1::2] = held[first], held[last] + 1
        # runs of job i: those whose first machine lies in [off[i], off[i+1])
        cut = (2 * np.searchsorted(first, off)).tolist()
        flat = bounds.tolist()
        return [MachineSet._from_bounds(tuple(flat[cut[i]:cut[i + 1]]))
                for i in range(jobs)]
