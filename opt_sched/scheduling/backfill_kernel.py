"""The compiled core of the backfilling schedulers (numba, ``cache=True``):
the one implementation of EASY and conservative backfilling (and of their
bandwidth rules), called by the Python schedulers pass by pass
(:mod:`~opt_sched.scheduling.backfilling`) and by the fused replay loop
(:mod:`~opt_sched.scheduling.fused`).

State ``st`` (a tuple of arrays, built by :func:`new_state`), for ``n``
jobs, ``L`` lanes (partitions), ``W`` words per machine set:

- ``ji[j]``: nodes, lane, state (0 unsubmitted, 1 waiting, 2 running,
  3 ended), mask slot (``-1``), has a reservation, position in the running
  list, regular (the target rule's group); ``jf[j]``: estimate ``e_j``
  (+ RJMS delay), bandwidth ``beta_j`` (the admission demand), allocation
  start and end (running or reserved), excess over the target's background
  (the target rule's ``r'_j``);
- ``masks[slot]``: the machines of a running or reserved job, slots taken
  from the stack ``slots``;
- ``li[k]``: profile slices in use, head job (``-1``), a job ended at this
  instant, stale (a reservation lies in the past), free machines now,
  profile tracks bandwidth, running jobs, earliest estimated end to
  recompute, running regular jobs (target rule); ``lf[k]``: bandwidth
  tolerance, sum of the running jobs' ``beta``, bandwidth of the jobs past
  their estimate, partition bandwidth ``b_k``, admission limit ``L``
  (``inf``), earliest estimated end of a running job, the running jobs'
  excess and the target ``R*'`` (target rule);
- the profiles ``times[k]``, ``free[k]``, ``bw[k]``
  (:mod:`~opt_sched.scheduling.profile`), ``busy[k]`` (machines of jobs
  past their estimate);
- ``g``: free slots, running jobs, admission rule (:data:`CHECK_NONE`,
  :data:`CHECK_LIMIT`, :data:`CHECK_TARGET`), some job has 0 nodes, jobs
  started in this decision, a job refused by the admission rule is skipped
  rather than reserved; ``run_list``; ``scratch``; ``started``
  (the jobs started in this decision, in order).

Capacity: a pass adds at most two slices and takes at most one slot per
placed job; :func:`lane_pass` refuses to start without that room, and the
caller then grows ``times``/``free``/``bw`` and the slot pool
(:func:`grow`).

Jobs without a requested time (``e = inf``; batsched rejects them): a job
whose machines such a job holds has no first fit, hence no reservation.
EASY then backfills nothing past such a head, since nothing could prove
that a backfilled job does not delay it (only running jobs can block the
head, and they end: a later pass places it). Conservative places the later
jobs as usual -- stopping could wait forever, as a job may be blocked by
the reservation, of unknown end, of a job behind it in the queue order --
and tries the job again at the next pass that places the whole queue
(after a job end, or when the reservations were dropped); a pass with
only new submissions places only those, as batsched does.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ..borrow import borrow
from . import profile as pf

# ji columns
J_NODES, J_LANE, J_STATE, J_SLOT, J_RES, J_RUNPOS, J_REG = 0, 1, 2, 3, 4, 5, 6
# job states
UNSUBMITTED, WAITING, RUNNING, ENDED = 0, 1, 2, 3
# jf columns
F_EST, F_DEMAND, F_START, F_END, F_EXCESS = 0, 1, 2, 3, 4
# li columns
L_NSL, L_HEAD, L_ENDED, L_STALE, L_FREE, L_TRACK, L_NRUN, L_DIRTY, L_NREG = range(9)
# lf columns
LF_TOL, LF_RUNBW, LF_BUSYBW, LF_BAND, LF_LIMIT, LF_MINEND, LF_EXCESS, LF_TARGET = \
    range(8)
# g entries
G_SLOTTOP, G_NRUN, G_CHECK, G_ZERO, G_NSTARTED, G_SKIP, G_FEWEST = range(7)
# admission rules (g[G_CHECK])
CHECK_NONE, CHECK_LIMIT, CHECK_TARGET = 0, 1, 2
# what place() did
RESERVED, STARTED, REFUSED = 0, 1, 2

EASY = 0
CONSERVATIVE = 1
_FAIL_CAP = 64
"""Failed (nodes, estimate) points an EASY pass remembers for dominance."""


@njit(cache=True)
def borrowed(st):
    """The state with every array borrowed (see :func:`borrow`)."""
    return (borrow(st[0]), borrow(st[1]), borrow(st[2]), borrow(st[3]), borrow(st[4]),
            borrow(st[5]), borrow(st[6]), borrow(st[7]), borrow(st[8]), borrow(st[9]),
            borrow(st[10]), borrow(st[11]), borrow(st[12]), borrow(st[13]))


def new_state(nodes, estimate, demand, lane, sizes, bands, capacities, limits,
              check, slices=64, slots=64, skip=False):
    """A fresh state (see the module docstring). ``capacities[k]``: the
    bandwidth the profile tracks (``nan``: none); ``limits[k]``: the
    admission limit (``inf``: none); ``check``: the admission rule
    (``CHECK_*``; ``True`` is ``CHECK_LIMIT``); ``skip``: a job the rule
    refuses gets no reservation."""
    n = len(nodes)
    L = len(sizes)
    W = pf.words_for(max(sizes))
    ji = np.zeros((n, 7), np.int64)
    ji[:, J_NODES] = nodes
    ji[:, J_LANE] = lane
    ji[:, J_SLOT] = -1
    ji[:, J_RUNPOS] = -1
    jf = np.zeros((n, 5))
    jf[:, F_EST] = estimate
    jf[:, F_DEMAND] = demand
    slots = max(slots, 1)
    masks = np.zeros((slots, W), np.uint64)
    slot_stack = np.arange(slots - 1, -1, -1, dtype=np.int64)
    li = np.zeros((L, 9), np.int64)
    lf = np.zeros((L, 8))
    times = np.zeros((L, slices))
    free = np.zeros((L, slices, W), np.uint64)
    bw = np.zeros((L, slices))
    for k in range(L):
        li[k, L_NSL] = 1
        li[k, L_HEAD] = -1
        li[k, L_FREE] = sizes[k]
        full, rest = divmod(sizes[k], 64)
        free[k, 0, :full] = np.uint64(2**64 - 1)
        if rest:
            free[k, 0, full] = np.uint64(2**rest - 1)
        track = not math.isnan(capacities[k])
        li[k, L_TRACK] = track
        bw[k, 0] = capacities[k] if track else 0.0
        cap = capacities[k] if track else limits[k]
        lf[k, LF_TOL] = pf.BW_TOL * max(cap, 1.0) if math.isfinite(cap) else 0.0
        lf[k, LF_BAND] = bands[k]
        lf[k, LF_LIMIT] = limits[k]
        lf[k, LF_MINEND] = math.inf
    busy = np.zeros((L, W), np.uint64)
    g = np.zeros(7, np.int64)
    g[G_SLOTTOP] = slots
    g[G_CHECK] = int(check)
    g[G_SKIP] = int(skip)
    g[G_ZERO] = int((np.asarray(nodes) == 0).any())
    g[G_FEWEST] = int(np.min(nodes)) if n else 1  # the narrowest job's machines
    run_list = np.zeros(max(n, 1), np.int64)
    scratch = np.zeros((3, W), np.uint64)
    started = np.zeros(max(n, 1), np.int64)
    return (ji, jf, masks, slot_stack, li, lf, times, free, bw, busy, g, run_list,
            scratch, started)


@njit(cache=True)
def needs_room(st, lane, placements):
    """Whether lane ``lane`` lacks profile slices or the pool lacks slots
    for ``placements`` more placements."""
    li, times, g = st[4], st[6], st[10]
    slack = 2 * placements + 4
    return (li[lane, L_NSL] + slack > times.shape[1]
            or g[G_SLOTTOP] < placements + 1)


@njit(cache=True)
def placements_bound(kind, st, k, n):
    """At most how many allocations a pass of lane ``k`` over ``n`` waiting
    jobs adds (what :func:`needs_room` and :func:`grow` make room for).

    Conservative backfilling may place every waiting job: ``n``. An EASY
    pass (with or without Slurm's limits) adds one allocation per job it
    starts, and each start takes at least ``q_min`` (``G_FEWEST``: the
    fewest machines a job of the workload asks) of the ``L_FREE`` machines
    no running job holds, plus at most two reservations of the head
    (placed in the first loop, placed again after the backfilled starts);
    removing an allocation never adds a slice. So ``min(n, L_FREE // q_min
    + 2)``, unless a job asks no machine (``G_ZERO``: it starts without
    taking any). A long EASY queue (an overloaded Mira workload: tens of
    thousands of jobs waiting, 768 words per machine set) then needs a
    profile of a few hundred slices, not twice the queue."""
    if kind != EASY or st[10][G_ZERO]:
        return n
    return min(n, max(st[4][k, L_FREE], 0) // max(st[10][G_FEWEST], 1) + 2)


@njit(cache=True)
def grow(st, placements):
    """The state with room for ``placements`` more placements in every lane
    (arrays reallocated, contents kept)."""
    (ji, jf, masks, slot_stack, li, lf, times, free, bw, busy, g, run_list,
     scratch, started) = st
    L, C = times.shape
    need = 0
    for k in range(L):
        need = max(need, li[k, L_NSL] + 2 * placements + 4)
    if need > C:
        C2 = max(need, 2 * C)
        times2 = np.zeros((L, C2))
        free2 = np.zeros((L, C2, free.shape[2]), np.uint64)
        bw2 = np.zeros((L, C2))
        # element loops, not slice assignments: numba's shape checks of a
        # slice assignment cost seconds of compile time on a cold cache
        for k in range(L):
            for c in range(C):
                times2[k, c] = times[k, c]
                bw2[k, c] = bw[k, c]
                for w in range(free.shape[2]):
                    free2[k, c, w] = free[k, c, w]
        times, free, bw = times2, free2, bw2
    S = masks.shape[0]
    if g[G_SLOTTOP] < placements + 1:
        S2 = max(2 * S, S + placements + 1)
        masks2 = np.zeros((S2, masks.shape[1]), np.uint64)
        for s in range(S):
            for w in range(masks.shape[1]):
                masks2[s, w] = masks[s, w]
        stack2 = np.zeros(S2, np.int64)
        top = g[G_SLOTTOP]
        for i in range(top):
            stack2[i] = slot_stack[i]
        for s in range(S2 - 1, S - 1, -1):
            stack2[top] = s
            top += 1
        g[G_SLOTTOP] = top
        masks, slot_stack = masks2, stack2
    return (ji, jf, masks, slot_stack, li, lf, times, free, bw, busy, g, run_list,
            scratch, started)


# -- allocations ---------------------------------------------------------------------
@njit(cache=True, inline="always")
def _take_slot(st, j, rows, r):
    ji, masks, slot_stack, g = st[0], st[2], st[3], st[10]
    g[G_SLOTTOP] -= 1
    s = slot_stack[g[G_SLOTTOP]]
    ji[j, J_SLOT] = s
    for w in range(masks.shape[1]):
        masks[s, w] = rows[r, w]
    return s


@njit(cache=True, inline="always")
def _free_slot(st, j):
    ji, slot_stack, g = st[0], st[3], st[10]
    slot_stack[g[G_SLOTTOP]] = ji[j, J_SLOT]
    g[G_SLOTTOP] += 1
    ji[j, J_SLOT] = -1


@njit(cache=True, inline="always")
def _profile_add(st, k, start, end, s, demand):
    li = st[4]
    li[k, L_NSL] = pf.add(st[6], st[7], st[8], k, li[k, L_NSL], start, end, st[2],
                          s, demand, li[k, L_TRACK] != 0)


@njit(cache=True, inline="always")
def _profile_remove(st, k, start, end, s, demand):
    li = st[4]
    li[k, L_NSL] = pf.remove(st[6], st[7], st[8], k, li[k, L_NSL], start, end,
                             st[2], s, demand, li[k, L_TRACK] != 0)


@njit(cache=True)
def start_job(st, j, now, rows, r):
    """Start ``j`` now on the machines ``rows[r]``."""
    ji, jf, li, lf, g, run_list, started = st[0], st[1], st[4], st[5], st[10], st[11], \
        st[13]
    k = ji[j, J_LANE]
    s = _take_slot(st, j, rows, r)
    end = now + jf[j, F_EST]
    jf[j, F_START] = now
    jf[j, F_END] = end
    ji[j, J_STATE] = RUNNING
    li[k, L_FREE] -= ji[j, J_NODES]
    li[k, L_NRUN] += 1
    lf[k, LF_RUNBW] += jf[j, F_DEMAND]
    lf[k, LF_EXCESS] += jf[j, F_EXCESS]
    li[k, L_NREG] += ji[j, J_REG]
    lf[k, LF_MINEND] = min(lf[k, LF_MINEND], end)
    ji[j, J_RUNPOS] = g[G_NRUN]
    run_list[g[G_NRUN]] = j
    g[G_NRUN] += 1
    started[g[G_NSTARTED]] = j
    g[G_NSTARTED] += 1
    _profile_add(st, k, now, end, s, jf[j, F_DEMAND])


@njit(cache=True)
def reserve_job(st, j, start, rows, r):
    """Reserve the machines ``rows[r]`` for ``j`` from ``start``."""
    ji, jf = st[0], st[1]
    s = _take_slot(st, j, rows, r)
    jf[j, F_START] = start
    jf[j, F_END] = start + jf[j, F_EST]
    ji[j, J_RES] = 1
    _profile_add(st, ji[j, J_LANE], start, jf[j, F_END], s, jf[j, F_DEMAND])


@njit(cache=True)
def unreserve_job(st, j):
    ji, jf = st[0], st[1]
    _profile_remove(st, ji[j, J_LANE], jf[j, F_START], jf[j, F_END], ji[j, J_SLOT],
                    jf[j, F_DEMAND])
    _free_slot(st, j)
    ji[j, J_RES] = 0


@njit(cache=True)
def complete_job(st, j):
    """``j`` ended (or was killed): its machines and bandwidth are free."""
    st = borrowed(st)
    ji, jf, li, lf, g, run_list = st[0], st[1], st[4], st[5], st[10], st[11]
    k = ji[j, J_LANE]
    _profile_remove(st, k, jf[j, F_START], jf[j, F_END], ji[j, J_SLOT],
                    jf[j, F_DEMAND])
    _free_slot(st, j)
    ji[j, J_STATE] = ENDED
    li[k, L_FREE] += ji[j, J_NODES]
    li[k, L_NRUN] -= 1
    lf[k, LF_RUNBW] = lf[k, LF_RUNBW] - jf[j, F_DEMAND] if li[k, L_NRUN] else 0.0
    li[k, L_ENDED] = 1
    if jf[j, F_END] <= lf[k, LF_MINEND]:
        li[k, L_DIRTY] = 1
    pos = ji[j, J_RUNPOS]
    g[G_NRUN] -= 1
    last = run_list[g[G_NRUN]]
    run_list[pos] = last
    ji[last, J_RUNPOS] = pos
    ji[j, J_RUNPOS] = -1


# -- placing ------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _admits(st, j, k):
    """The admission rule (see :mod:`~opt_sched.scheduling.bandwidth`).

    ``CHECK_LIMIT``: ``sum_running d + d_j <= L``. ``CHECK_TARGET`` also
    asks a regular job (``J_REG``) to bring the running jobs' excess
    ``X`` no further from the target ``R*'`` than it is: ``X + r'_j / 2 <=
    R*'``, unless no regular job runs. (The caller keeps ``LF_EXCESS``,
    ``L_NREG``, ``F_EXCESS`` and ``J_REG`` up to date before each pass.)"""
    ji, jf, li, lf, g = st[0], st[1], st[4], st[5], st[10]
    check = g[G_CHECK]
    if check == CHECK_NONE:
        return True
    demand = jf[j, F_DEMAND]
    if demand > 0.0 and lf[k, LF_RUNBW] + demand > lf[k, LF_LIMIT] + lf[k, LF_TOL]:
        return False
    if check == CHECK_TARGET and ji[j, J_REG] and li[k, L_NREG] > 0:
        return (lf[k, LF_EXCESS] + 0.5 * jf[j, F_EXCESS]
                <= lf[k, LF_TARGET] + lf[k, LF_TOL])
    return True


@njit(cache=True)
def fits_now(st, j, now):
    """Whether ``j`` may start now without touching any reservation (and
    the admission rule lets it); the machines are left in ``scratch[1]``."""
    ji, jf, li, lf, scratch = st[0], st[1], st[4], st[5], st[12]
    k = ji[j, J_LANE]
    ok = pf.fit_now(st[6], st[7], st[8], k, li[k, L_NSL], st[9], lf[k, LF_BUSYBW],
                    ji[j, J_NODES], jf[j, F_EST], jf[j, F_DEMAND],
                    li[k, L_TRACK] != 0, lf[k, LF_TOL], scratch, scratch, 1)
    return ok and _admits(st, j, k)


@njit(cache=True)
def place(st, j, now):
    """batsched ``add_job_first_fit``: start ``j`` now if its first fit
    starts now (and the admission rule lets it), else keep the fit as its
    reservation. Returns :data:`STARTED`, :data:`RESERVED` (also: a job that
    never fits -- its machines held by jobs of infinite estimate -- gets no
    reservation), or :data:`REFUSED`: it fits now, the admission rule
    refuses it, and the rule skips refused jobs (``G_SKIP``): no
    reservation."""
    ji, jf, li, lf, scratch = st[0], st[1], st[4], st[5], st[12]
    k = ji[j, J_LANE]
    a, now_ok = pf.first_fit(st[6], st[7], st[8], k, li[k, L_NSL], st[9],
                             lf[k, LF_BUSYBW], ji[j, J_NODES], jf[j, F_EST],
                             jf[j, F_DEMAND], li[k, L_TRACK] != 0, lf[k, LF_TOL],
                             scratch, scratch, 1)
    if a < 0:
        return RESERVED
    if now_ok:
        if _admits(st, j, k):
            start_job(st, j, now, scratch, 1)
            return STARTED
        if st[10][G_SKIP]:
            return REFUSED
    reserve_job(st, j, st[6][k, a], scratch, 1)
    return RESERVED


@njit(cache=True)
def refresh(st, k, now, order, n):
    """Move lane ``k`` to ``now``: note the running jobs past their
    estimate (busy now), and drop every reservation (stale) if one of them
    overran or a reservation lies in the past -- it could not start when
    due, because a job overran or the admission rule refused it; batsched
    never sees either. ``order[:n]`` are the lane's waiting jobs."""
    ji, jf, li, lf, times, free, bw, busy, g, run_list = (st[0], st[1], st[4], st[5],
                                                           st[6], st[7], st[8], st[9],
                                                           st[10], st[11])
    W = busy.shape[1]
    for w in range(W):
        busy[k, w] = 0
    busy_bw = 0.0
    stale = False
    masks = st[2]
    if li[k, L_DIRTY]:  # the earliest estimated end may have ended
        least = math.inf
        for r in range(g[G_NRUN]):
            j = run_list[r]
            if ji[j, J_LANE] == k and jf[j, F_END] < least:
                least = jf[j, F_END]
        lf[k, LF_MINEND] = least
        li[k, L_DIRTY] = 0
    for r in range(g[G_NRUN] if lf[k, LF_MINEND] <= now else 0):
        j = run_list[r]
        if ji[j, J_LANE] != k or jf[j, F_END] > now:
            continue
        s = ji[j, J_SLOT]
        for w in range(W):
            busy[k, w] |= masks[s, w]
        busy_bw += jf[j, F_DEMAND]
        if jf[j, F_END] < now:
            stale = True
    lf[k, LF_BUSYBW] = busy_bw
    li[k, L_NSL] = pf.advance(times, free, bw, k, li[k, L_NSL], now)
    for i in range(n):  # a reservation that could not start when due
        if ji[order[i], J_RES] and jf[order[i], F_START] < now:
            stale = True
            break
    li[k, L_STALE] = stale
    if stale:
        for i in range(n):
            if ji[order[i], J_RES]:
                unreserve_job(st, order[i])
        li[k, L_HEAD] = -1


# -- the passes -----------------------------------------------------------------------
@njit(cache=True)
def easy_pass(st, k, now, order, n, released, nrel):
    """batsched ``EasyBackfilling::make_decisions`` on lane ``k`` (see
    :mod:`~opt_sched.scheduling.easy`). ``order[:n]``: the waiting jobs in
    queue order; ``released[:nrel]``: the jobs submitted at ``now`` (any
    lane), in submission order."""
    ji, li, g = st[0], st[4], st[10]
    i = 0
    placed = False
    first = order[0] if n > 0 else -1
    if first != li[k, L_HEAD]:
        old = li[k, L_HEAD]
        if old >= 0 and ji[old, J_RES]:
            unreserve_job(st, old)
        while i < n and place(st, order[i], now) != RESERVED:
            i += 1  # started, or refused and skipped: the next job is the head
        placed = True
    head = order[i] if i < n else -1
    # batsched counts the machines of its first slice, which at a slice
    # boundary is the zero-length slice [now, now): the machines no running
    # job holds (a reservation starting now is not in it)
    free = li[k, L_FREE]
    if not (li[k, L_ENDED] or li[k, L_STALE]):
        if head >= 0 and not ji[head, J_RES]:
            nrel = 0  # the head has no reservation (see the module docstring)
        for r in range(nrel):
            if free <= 0:
                break
            j = released[r]
            if (ji[j, J_LANE] != k or j == head or ji[j, J_STATE] != WAITING
                    or ji[j, J_NODES] > free):
                continue
            if fits_now(st, j, now):
                start_job(st, j, now, st[12], 1)
                free -= ji[j, J_NODES]
    elif free > 0:
        # Dominance: without bandwidth tracking or an admission rule,
        # whether a job fits now depends only on its (nodes, estimate), and
        # monotonically (q' >= q and e' >= e: every q' machines free over
        # [now, now + e') include q free over [now, now + e)); starting a
        # job only removes availability. So a job dominating one that did
        # not fit earlier in this pass cannot fit: skip it (same decisions,
        # fewer profile scans on long queues).
        prune = li[k, L_TRACK] == 0 and g[G_CHECK] == CHECK_NONE
        fq = np.empty(_FAIL_CAP, np.int64)
        fe = np.empty(_FAIL_CAP)
        nf = 0
        for idx in range(i, n):
            j = order[idx]
            if j == head:
                if not placed:
                    nf = 0  # re-placing the head changes the reservations
                    if ji[j, J_RES]:
                        unreserve_job(st, j)
                    done = place(st, j, now)
                    if done != RESERVED:
                        if done == STARTED:
                            free -= ji[j, J_NODES]
                        head = order[idx + 1] if idx + 1 < n else -1
                        placed = False
                        continue
                placed = False
                if not ji[j, J_RES]:
                    break  # the head has no reservation (see the module docstring)
                continue
            if free <= 0 and not g[G_ZERO]:
                break  # the head is placed: nothing else can start
            q = ji[j, J_NODES]
            if q > free:
                continue
            if prune and q > 0:
                est = st[1][j, F_EST]
                dominated = False
                for f in range(nf):
                    if q >= fq[f] and est >= fe[f]:
                        dominated = True
                        break
                if dominated:
                    continue
            if fits_now(st, j, now):
                start_job(st, j, now, st[12], 1)
                free -= q
            elif prune and q > 0 and nf < _FAIL_CAP:
                fq[nf] = q
                fe[nf] = st[1][j, F_EST]
                nf += 1
    li[k, L_HEAD] = head


@njit(cache=True)
def conservative_pass(st, k, now, order, n, released, nrel):
    """batsched ``ConservativeBackfilling::make_decisions`` on lane ``k``
    (see :mod:`~opt_sched.scheduling.conservative`)."""
    ji, li = st[0], st[4]
    if not (li[k, L_ENDED] or li[k, L_STALE]):
        for r in range(nrel):
            j = released[r]
            if ji[j, J_LANE] == k and ji[j, J_STATE] == WAITING:
                place(st, j, now)
        return
    for idx in range(n):
        j = order[idx]
        if ji[j, J_RES]:
            unreserve_job(st, j)
        place(st, j, now)


@njit(cache=True)
def lane_pass(kind, st, k, now, order, n, released, nrel):
    """One scheduling pass of lane ``k`` at ``now``: refresh, then the
    ``kind`` pass; the started jobs are appended to ``started``. Returns
    ``False`` (having done nothing) if the state lacks room for ``n``
    placements: :func:`grow` it and call again."""
    if needs_room(st, k, placements_bound(kind, st, k, n)):
        return False
    sb = borrowed(st)
    ob, rb = borrow(order), borrow(released)
    refresh(sb, k, now, ob, n)
    if kind == EASY:
        easy_pass(sb, k, now, ob, n, rb, nrel)
    else:
        conservative_pass(sb, k, now, ob, n, rb, nrel)
    sb[4][k, L_ENDED] = 0
    return True


@njit(cache=True)
def started_machines(st, out, off):
    """The machines of the jobs started in this decision: those of
    ``started[s]`` go to ``out[off[s]:off[s + 1]]``. Returns how many jobs
    started."""
    sb = borrowed(st)
    ji, masks, g, started = sb[0], sb[2], sb[10], sb[13]
    count = g[G_NSTARTED]
    off[0] = 0
    for s in range(count):
        off[s + 1] = off[s] + pf.machines_of(masks, ji[started[s], J_SLOT], out,
                                             off[s])
    return count


# -- Slurm's backfilling limits: depth and interval ---------------------------------
# Modes of :func:`bounded_lane_pass`.
EVENT = 0
"""The kind's event-driven pass (batsched's), on the first ``depth`` jobs."""
SWEEP = 1
"""A periodic backfill pass: the whole queue (up to ``depth``) is traversed
and the reservations are rebuilt."""
FIFO = 2
"""Only the FIFO part: start jobs from the head while they fit."""

UNLIMITED_DEPTH = 2**62
"""``bf_depth`` when none is given."""


@njit(cache=True)
def fifo_part(st, k, now, order, n):
    """Start the jobs of ``order[:n]`` (lane ``k``) from the head while each
    fits now; stop at the first that does not.

    A job's own reservation is dropped before it is tried. A job that fits
    now except for the reservations of jobs *behind* it in the queue (lower
    priority: Slurm's main scheduler does not see backfill reservations)
    starts after those reservations are dropped. The job that stops the
    part keeps a reservation (placed again at its first fit) if it held
    one; every other reservation is kept."""
    ji, li = st[0], st[4]
    for idx in range(n):
        j = order[idx]
        had = ji[j, J_RES] != 0
        if had:
            unreserve_job(st, j)
        ok = fits_now(st, j, now)
        if not ok and ji[j, J_NODES] <= li[k, L_FREE]:
            dropped = False
            for later in range(idx + 1, n):
                if ji[order[later], J_RES]:
                    unreserve_job(st, order[later])
                    dropped = True
            if dropped:
                li[k, L_HEAD] = -1  # EASY: the head's reservation is gone
                ok = fits_now(st, j, now)
        if ok:
            start_job(st, j, now, st[12], 1)
            continue
        if had:
            place(st, j, now)
        return


@njit(cache=True)
def _released_within(order, nd, released, nrel):
    """The jobs of ``released[:nrel]`` found in ``order[:nd]``, in
    submission order."""
    out = np.empty(max(nrel, 1), np.int64)
    m = 0
    for r in range(nrel):
        j = released[r]
        for idx in range(nd):
            if order[idx] == j:
                out[m] = j
                m += 1
                break
    return out, m


@njit(cache=True)
def conservative_bounded(st, k, now, order, n, nd, mode):
    """Conservative backfilling on the first ``nd`` jobs of ``order[:n]``;
    the reservations of the jobs behind are dropped.

    ``SWEEP``: every reservation is dropped, then the first ``nd`` jobs are
    placed in queue order (Slurm's backfill plan, rebuilt at each pass).
    ``EVENT``: after a job end (or stale reservations), the compression of
    :func:`conservative_pass`; otherwise each job of the first ``nd``
    without a reservation is placed, in queue order."""
    ji, li = st[0], st[4]
    if mode == SWEEP:
        for idx in range(n):
            if ji[order[idx], J_RES]:
                unreserve_job(st, order[idx])
        for idx in range(nd):
            place(st, order[idx], now)
        return
    # the jobs behind lose their reservations *before* the first ``nd`` are
    # placed: a reservation of a job behind (of infinite estimate, say)
    # could otherwise hold the machines the first job needs, leaving it with
    # neither a start nor a reservation and no event to come (found by
    # hypothesis: depth 1, sjf, jobs of unknown length)
    for idx in range(nd, n):
        if ji[order[idx], J_RES]:
            unreserve_job(st, order[idx])
    full = li[k, L_ENDED] or li[k, L_STALE]
    for idx in range(nd):
        j = order[idx]
        if ji[j, J_RES]:
            if not full:
                continue
            unreserve_job(st, j)
        place(st, j, now)


@njit(cache=True)
def bounded_lane_pass(kind, st, k, now, order, n, released, nrel, depth, mode):
    """:func:`lane_pass` under Slurm's limits: only the first ``depth`` jobs
    of the queue are examined (started, reserved or skipped; the jobs
    behind are neither started nor reserved), in ``mode`` (:data:`EVENT`,
    :data:`SWEEP` or :data:`FIFO`, see
    :class:`~opt_sched.scheduling.backfilling.ProfileScheduler`)."""
    if needs_room(st, k, placements_bound(kind, st, k, n)):
        return False
    sb = borrowed(st)
    ob, rb = borrow(order), borrow(released)
    refresh(sb, k, now, ob, n)
    nd = min(n, depth)
    if mode == FIFO:
        fifo_part(sb, k, now, ob, n)
    elif kind == EASY:
        if mode == SWEEP:
            sb[4][k, L_ENDED] = 1  # traverse the whole queue (up to the depth)
        if nd < n and nrel > 0:
            within, m = _released_within(ob, nd, rb, nrel)
            easy_pass(sb, k, now, ob, nd, within, m)
        else:
            easy_pass(sb, k, now, ob, nd, rb, nrel)
    else:
        conservative_bounded(sb, k, now, ob, n, nd, mode)
    sb[4][k, L_ENDED] = 0
    return True
