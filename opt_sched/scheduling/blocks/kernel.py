"""The compiled side of the building blocks (numba, ``cache=True``).

Each function is one call from Python that does a whole block on the state
of :mod:`~opt_sched.scheduling.backfill_kernel` (the built-in backfilling
schedulers' state: jobs, running allocations, reservations and the
availability profiles of :mod:`~opt_sched.scheduling.profile`) and the
blocks' own arrays, both reached through one handle ``h``
(:mod:`.handle`: a call then costs about 0.25 microseconds, not 1). They
compose that module's operations -- :func:`~.backfill_kernel.fits_now`,
:func:`~.backfill_kernel.start_job`, :func:`~.backfill_kernel.reserve_job`,
:func:`~.backfill_kernel.refresh` -- and the profile's
:func:`~.profile.first_fit`; the profile and the fit rules are not copied
here.

The blocks' arrays (``extras``, indices ``X_*``):

- ``X_QUEUE``: the waiting jobs of lane ``k`` in submission order, at
  ``queue[lanes[k, Q_OFF] : lanes[k, Q_OFF] + lanes[k, Q_LEN]]`` (``Q_OFF``:
  the jobs of the lanes before ``k``; Python appends a submitted job, and
  :func:`finish` drops the jobs started in a pass);
- ``X_LANES``: per lane, that offset and length, how many of its jobs
  ended so far (``Q_ENDS``) and at its last sync (``Q_SEEN``), and whether
  one ended between its last two syncs (``Q_ENDED``: batsched's "jobs
  ended recently", for the pass that made the last one);
- ``X_SUBMITTED``, ``X_ENDED``: the jobs submitted, and ended, in order
  (each job at most once in each); ``X_REG[R_ENDED]`` counts the ends
  already applied;
- ``X_OUT``: the starts of a pass, written by :func:`finish`;
- ``X_MASK``: one machine set (:func:`first_fit`'s answer).

A block that may add allocations (a start or a reservation adds at most
two slices and takes one mask slot) first checks that the state has room
for the most it could add, and returns ``-1`` having done nothing if it
has not: the caller grows the state (:func:`~.backfill_kernel.grow`), makes
a new handle and calls again.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .. import backfill_kernel as bk
from .. import profile as pf
from .handle import view

__all__ = ["clear_reservations", "compact", "finish", "first_fit", "fits_now",
           "place_in_order", "reserve", "start_fitting", "start_in_order", "start_one",
           "sync"]

X_QUEUE, X_LANES, X_SUBMITTED, X_ENDED, X_REG, X_OUT, X_MASK = range(7)
Q_OFF, Q_LEN, Q_ENDS, Q_SEEN, Q_ENDED = range(5)
R_ENDED = 0

_FAIL_CAP = 64
"""Failed ``(lane, nodes, estimate)`` points :func:`start_fitting`
remembers for dominance."""
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_ONE = np.uint64(1)


@njit(cache=True)
def _room(st, n):
    """Whether every lane has room for ``n`` more placements (at most one
    per job that can start: ``sum_k free_k // q_min`` of them, plus one)."""
    li, g = st[4], st[10]
    cap = 0
    for k in range(li.shape[0]):
        cap += max(li[k, bk.L_FREE], 0)
    bound = n if g[bk.G_ZERO] else min(n, cap // max(g[bk.G_FEWEST], 1) + 1)
    for k in range(li.shape[0]):  # noqa: SIM110 (numba: no generator in all())
        if bk.needs_room(st, k, bound):
            return False
    return True


@njit(cache=True)
def _room_for(st, n):
    """Whether every lane has room for ``n`` more placements."""
    for k in range(st[4].shape[0]):  # noqa: SIM110 (numba: no generator in all())
        if bk.needs_room(st, k, n):
            return False
    return True


@njit(cache=True)
def _compact(ji, queue, lanes, k):
    """Drop from lane ``k``'s queue the jobs no longer waiting; its length."""
    base = lanes[k, Q_OFF]
    w = 0
    for i in range(lanes[k, Q_LEN]):
        j = queue[base + i]
        if ji[j, bk.J_STATE] == bk.WAITING:
            queue[base + w] = j
            w += 1
    lanes[k, Q_LEN] = w
    return w


@njit(cache=True)
def _sync(sb, ex, nend, k, now):
    """:func:`sync` on the state ``sb`` and the blocks' arrays ``ex``."""
    queue, lanes, ended, reg = ex[X_QUEUE], ex[X_LANES], ex[X_ENDED], ex[X_REG]
    ji = sb[0]
    for i in range(reg[R_ENDED], nend):
        j = ended[i]
        bk.complete_job(sb, j)
        lanes[ji[j, bk.J_LANE], Q_ENDS] += 1
    reg[R_ENDED] = nend
    if k < 0:
        return
    lanes[k, Q_ENDED] = lanes[k, Q_ENDS] > lanes[k, Q_SEEN]
    lanes[k, Q_SEEN] = lanes[k, Q_ENDS]
    base, n = lanes[k, Q_OFF], lanes[k, Q_LEN]
    bk.refresh(sb, k, now, queue[base:base + n], n)


@njit(cache=True)
def sync(h, nend, k, now):
    """Apply the jobs ended since the last sync (``ended[:nend]``, any
    lane: their machines are free); then, if ``k >= 0``, note whether a job
    of lane ``k`` ended since its last sync and move the lane to ``now``
    (:func:`~.backfill_kernel.refresh`: the jobs past their estimate are
    busy now, and every reservation is dropped if one of them overran or a
    reservation of a waiting job lies in the past). Once per pass and
    lane."""
    st, ex = view(h)
    _sync(bk.borrowed(st), ex, nend, k, now)


@njit(cache=True)
def compact(h, k):
    """Drop from lane ``k``'s queue the jobs started since; its length."""
    st, ex = view(h)
    return _compact(st[0], ex[X_QUEUE], ex[X_LANES], k)


@njit(cache=True)
def _runs(masks, s, out, o):
    """Write the machines of ``masks[s]`` as maximal runs ``low, high``
    (half-open, increasing) into ``out[o:]``; return how many numbers."""
    c = 0
    inrun = False
    W = masks.shape[1]
    for w in range(W):
        x = masks[s, w]
        base = 64 * w
        if x == _ALL:
            if not inrun:
                out[o + c] = base
                c += 1
                inrun = True
            continue
        b = base
        while True:
            if x == 0:
                if inrun and b < base + 64:
                    out[o + c] = b
                    c += 1
                    inrun = False
                break
            if x & _ONE:
                if not inrun:
                    out[o + c] = b
                    c += 1
                    inrun = True
            elif inrun:
                out[o + c] = b
                c += 1
                inrun = False
            x >>= _ONE
            b += 1
    if inrun:
        out[o + c] = 64 * W
        c += 1
    return c


@njit(cache=True)
def finish(h):
    """End a pass: the jobs started in it leave the queues and are written
    to ``out`` as ``job, c, b_1, ..., b_c`` (``c`` numbers: the runs of its
    machines, :func:`_runs`), then forgotten. Returns how many numbers were
    written."""
    st, ex = view(h)
    ji, masks, g, started = st[0], st[2], st[10], st[13]
    queue, lanes, out = ex[X_QUEUE], ex[X_LANES], ex[X_OUT]
    for k in range(lanes.shape[0]):
        _compact(ji, queue, lanes, k)
    o = 0
    for s in range(g[bk.G_NSTARTED]):
        j = started[s]
        out[o] = j
        c = _runs(masks, ji[j, bk.J_SLOT], out, o + 2)
        out[o + 1] = c
        o += 2 + c
    g[bk.G_NSTARTED] = 0
    return o


@njit(cache=True)
def _fits(sb, j, now, before, keep):
    """``j`` (waiting) fits now over its whole estimate without touching any
    reservation but its own, and is expected to end by ``before``; the
    machines are left in ``scratch[1]``. A reservation ``j`` holds is
    dropped first and placed back as it was if ``keep`` or if ``j`` does
    not fit (so that, with ``keep`` false, a ``True`` answer leaves ``j``
    without a reservation, ready to start)."""
    ji, jf = sb[0], sb[1]
    if now + jf[j, bk.F_EST] > before:
        return False
    if not ji[j, bk.J_RES]:
        return bk.fits_now(sb, j, now)
    masks, scratch = sb[2], sb[12]
    s = ji[j, bk.J_SLOT]
    for w in range(masks.shape[1]):
        scratch[2, w] = masks[s, w]
    start = jf[j, bk.F_START]
    bk.unreserve_job(sb, j)
    ok = bk.fits_now(sb, j, now)
    if keep or not ok:
        bk.reserve_job(sb, j, start, scratch, 2)
    return ok


@njit(cache=True)
def fits_now(h, j, now, before):
    """``1`` if waiting job ``j`` could start now (see :func:`_fits`),
    ``0`` if not (or it is not waiting), ``-1`` if the state lacks room;
    nothing changes."""
    st, _ = view(h)
    if not _room(st, 1):
        return -1
    sb = bk.borrowed(st)
    if sb[0][j, bk.J_STATE] != bk.WAITING:
        return 0
    return 1 if _fits(sb, j, now, before, True) else 0


@njit(cache=True)
def start_one(h, j, now, before):
    """Start waiting job ``j`` now if it fits (:func:`_fits`; a reservation
    it holds is given up); ``1`` if it started, ``0`` if not, ``-1`` if the
    state lacks room."""
    st, _ = view(h)
    if not _room(st, 1):
        return -1
    sb = bk.borrowed(st)
    if sb[0][j, bk.J_STATE] != bk.WAITING or not _fits(sb, j, now, before, False):
        return 0
    bk.start_job(sb, j, now, sb[12], 1)
    return 1


@njit(cache=True)
def start_in_order(h, jobs, now, nend, k):
    """Start ``jobs`` in order while each fits now (a job's own reservation
    given up); stop at the first waiting job that does not. Returns how
    many of ``jobs`` were passed (started, or not waiting), or ``-1`` if
    the state lacks room. First :func:`sync` ``(nend, k)``: one call less
    per pass (the caller passes ``k = -1`` when it retries)."""
    st, ex = view(h)
    _sync(bk.borrowed(st), ex, nend, k, now)
    n = jobs.shape[0]
    if not _room(st, n):
        return -1
    sb = bk.borrowed(st)
    for i in range(n):
        j = jobs[i]
        if sb[0][j, bk.J_STATE] != bk.WAITING:
            continue
        if not _fits(sb, j, now, math.inf, False):
            return i
        bk.start_job(sb, j, now, sb[12], 1)
    return n


@njit(cache=True)
def start_fitting(h, jobs, now, before, nend, k):
    """Start every waiting job of ``jobs``, in order, that fits now
    (:func:`_fits`) and is expected to end by ``before``; jobs holding a
    reservation are skipped. Returns how many started, or ``-1`` if the
    state lacks room.

    Dominance: the state tracks no bandwidth and has no admission rule, so
    whether a job fits now depends only on its lane, ``Q_j`` and ``e_j``,
    monotonically (``Q' >= Q`` and ``e' >= e`` in one lane: every ``Q'``
    machines free over ``[now, now + e')`` include ``Q`` free over ``[now,
    now + e)``), and a start only removes availability. A job dominating
    one that did not fit earlier in the call is skipped untried.

    First :func:`sync` ``(nend, k)``."""
    st, ex = view(h)
    _sync(bk.borrowed(st), ex, nend, k, now)
    n = jobs.shape[0]
    if not _room(st, n):
        return -1
    sb = bk.borrowed(st)
    ji, jf, li = sb[0], sb[1], sb[4]
    fk = np.empty(_FAIL_CAP, np.int64)
    fq = np.empty(_FAIL_CAP, np.int64)
    fe = np.empty(_FAIL_CAP)
    nf = 0
    started = 0
    for i in range(n):
        j = jobs[i]
        if ji[j, bk.J_STATE] != bk.WAITING or ji[j, bk.J_RES]:
            continue
        k = ji[j, bk.J_LANE]
        q = ji[j, bk.J_NODES]
        est = jf[j, bk.F_EST]
        if q > li[k, bk.L_FREE] or now + est > before:
            continue
        dominated = False
        for f in range(nf):
            if fk[f] == k and q >= fq[f] and est >= fe[f]:
                dominated = True
                break
        if dominated:
            continue
        if bk.fits_now(sb, j, now):
            bk.start_job(sb, j, now, sb[12], 1)
            started += 1
        elif q > 0 and nf < _FAIL_CAP:
            fk[nf] = k
            fq[nf] = q
            fe[nf] = est
            nf += 1
    return started


@njit(cache=True)
def place_in_order(h, jobs, now, nend, k):
    """batsched's ``add_job_first_fit`` for each waiting job of ``jobs`` in
    order: its reservation, if any, is dropped, and it starts now if its
    first fit starts now, else it is reserved there (no reservation if it
    never fits); the jobs after it keep theirs meanwhile. Returns how many
    started, or ``-1`` if the state lacks room. First :func:`sync` ``(nend,
    k)``."""
    st, ex = view(h)
    _sync(bk.borrowed(st), ex, nend, k, now)
    n = jobs.shape[0]
    if not _room_for(st, n):
        return -1
    sb = bk.borrowed(st)
    ji = sb[0]
    started = 0
    for i in range(n):
        j = jobs[i]
        if ji[j, bk.J_STATE] != bk.WAITING:
            continue
        if ji[j, bk.J_RES]:
            bk.unreserve_job(sb, j)
        if bk.place(sb, j, now) == bk.STARTED:
            started += 1
    return started


@njit(cache=True)
def first_fit(h, j):
    """Where waiting job ``j`` fits first in its lane's profile (batsched
    ``add_job_first_fit``; its own reservation, if any, counts as free):
    the start time (``inf`` if it never fits), the machines in ``mask[0]``
    (the lowest-numbered ones free over the whole window). Nothing
    changes. ``-1.0`` if the state lacks room."""
    st, ex = view(h)
    if not _room(st, 1):
        return -1.0
    out = ex[X_MASK]
    sb = bk.borrowed(st)
    ji, jf, li, lf, scratch = sb[0], sb[1], sb[4], sb[5], sb[12]
    k = ji[j, bk.J_LANE]
    had = ji[j, bk.J_RES] != 0
    start = 0.0
    if had:
        masks = sb[2]
        s = ji[j, bk.J_SLOT]
        for w in range(masks.shape[1]):
            scratch[2, w] = masks[s, w]
        start = jf[j, bk.F_START]
        bk.unreserve_job(sb, j)
    a, _ = pf.first_fit(sb[6], sb[7], sb[8], k, li[k, bk.L_NSL], sb[9],
                        lf[k, bk.LF_BUSYBW], ji[j, bk.J_NODES], jf[j, bk.F_EST],
                        jf[j, bk.F_DEMAND], li[k, bk.L_TRACK] != 0, lf[k, bk.LF_TOL],
                        scratch, scratch, 1)
    t = math.inf if a < 0 else sb[6][k, a]
    for w in range(scratch.shape[1]):
        out[0, w] = scratch[1, w] if a >= 0 else 0
    if had:
        bk.reserve_job(sb, j, start, scratch, 2)
    return t


@njit(cache=True)
def reserve(h, j):
    """Reserve waiting job ``j`` at its first fit (a reservation it held is
    placed again); returns the start (``inf``: it never fits, no
    reservation), or ``-1.0`` if the state lacks room."""
    st, _ = view(h)
    if not _room(st, 1):
        return -1.0
    sb = bk.borrowed(st)
    ji, jf, li, lf, scratch = sb[0], sb[1], sb[4], sb[5], sb[12]
    if ji[j, bk.J_RES]:
        bk.unreserve_job(sb, j)
    k = ji[j, bk.J_LANE]
    a, _ = pf.first_fit(sb[6], sb[7], sb[8], k, li[k, bk.L_NSL], sb[9],
                        lf[k, bk.LF_BUSYBW], ji[j, bk.J_NODES], jf[j, bk.F_EST],
                        jf[j, bk.F_DEMAND], li[k, bk.L_TRACK] != 0, lf[k, bk.LF_TOL],
                        scratch, scratch, 1)
    if a < 0:
        return math.inf
    t = sb[6][k, a]
    bk.reserve_job(sb, j, t, scratch, 1)
    return t


@njit(cache=True)
def clear_reservations(h, jobs):
    """Drop the reservations held by ``jobs``; returns how many."""
    st, _ = view(h)
    sb = bk.borrowed(st)
    c = 0
    for i in range(jobs.shape[0]):
        if sb[0][jobs[i], bk.J_RES]:
            bk.unreserve_job(sb, jobs[i])
            c += 1
    return c
