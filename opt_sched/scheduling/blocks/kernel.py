"""The compiled side of the building blocks (numba, ``cache=True``).

Each function is one call from Python that does a whole block on the state
``st`` of :mod:`~opt_sched.scheduling.backfill_kernel` (the built-in
backfilling schedulers' state: jobs, running allocations, reservations and
the availability profiles of :mod:`~opt_sched.scheduling.profile`). They
compose that module's operations -- :func:`~.backfill_kernel.fits_now`,
:func:`~.backfill_kernel.start_job`, :func:`~.backfill_kernel.reserve_job`,
:func:`~.backfill_kernel.refresh` -- and the profile's
:func:`~.profile.first_fit`; the profile and the fit rules are not copied
here.

A block that may add allocations (a start or a reservation adds at most
two slices and takes one mask slot) first checks that the state has room
for the most it could add, and returns ``-1`` having done nothing if it
has not: the caller grows the state (:func:`~.backfill_kernel.grow`) and
calls again.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from ...borrow import borrow
from .. import backfill_kernel as bk
from .. import profile as pf

__all__ = ["clear_reservations", "first_fit", "fits_now", "place_in_order", "reserve",
           "start_fitting", "start_in_order", "start_one", "sync"]

_FAIL_CAP = 64
"""Failed ``(lane, nodes, estimate)`` points :func:`start_fitting`
remembers for dominance."""


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
def sync(st, ended, nend, k, now, order, n):
    """Apply the jobs ended since the last sync (``ended[:nend]``), then
    move lane ``k`` to ``now`` (:func:`~.backfill_kernel.refresh`: the jobs
    past their estimate are busy now, and every reservation is dropped if
    one of them overran or a reservation of ``order[:n]``, the lane's
    waiting jobs, lies in the past). ``k = -1``: only the ends."""
    sb = bk.borrowed(st)
    eb = borrow(ended)
    for i in range(nend):
        bk.complete_job(sb, eb[i])
    if k >= 0:
        bk.refresh(sb, k, now, borrow(order), n)


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
def fits_now(st, j, now, before):
    """``1`` if waiting job ``j`` could start now (see :func:`_fits`),
    ``0`` if not (or it is not waiting), ``-1`` if the state lacks room;
    nothing changes."""
    if not _room(st, 1):
        return -1
    sb = bk.borrowed(st)
    if sb[0][j, bk.J_STATE] != bk.WAITING:
        return 0
    return 1 if _fits(sb, j, now, before, True) else 0


@njit(cache=True)
def start_one(st, j, now, before):
    """Start waiting job ``j`` now if it fits (:func:`_fits`; a reservation
    it holds is given up); ``1`` if it started, ``0`` if not, ``-1`` if the
    state lacks room."""
    if not _room(st, 1):
        return -1
    sb = bk.borrowed(st)
    if sb[0][j, bk.J_STATE] != bk.WAITING or not _fits(sb, j, now, before, False):
        return 0
    bk.start_job(sb, j, now, sb[12], 1)
    return 1


@njit(cache=True)
def start_in_order(st, jobs, n, now, ended, nend, k, order, norder):
    """Start ``jobs[:n]`` in order while each fits now (a job's own
    reservation given up); stop at the first waiting job that does not.
    Returns how many of ``jobs`` were passed (started, or not waiting), or
    ``-1`` if the state lacks room. First, if ``k >= 0``, :func:`sync`
    (the same arguments): one call less per pass."""
    if k >= 0:
        sync(st, ended, nend, k, now, order, norder)
    if not _room(st, n):
        return -1
    sb = bk.borrowed(st)
    jb = borrow(jobs)
    for i in range(n):
        j = jb[i]
        if sb[0][j, bk.J_STATE] != bk.WAITING:
            continue
        if not _fits(sb, j, now, math.inf, False):
            return i
        bk.start_job(sb, j, now, sb[12], 1)
    return n


@njit(cache=True)
def start_fitting(st, jobs, n, now, before, ended, nend, k, order, norder):
    """Start every waiting job of ``jobs[:n]``, in order, that fits now
    (:func:`_fits`) and is expected to end by ``before``; jobs holding a
    reservation are skipped. Returns how many started, or ``-1`` if the
    state lacks room.

    Dominance: the state tracks no bandwidth and has no admission rule, so
    whether a job fits now depends only on its lane, ``Q_j`` and ``e_j``,
    monotonically (``Q' >= Q`` and ``e' >= e`` in one lane: every ``Q'``
    machines free over ``[now, now + e')`` include ``Q`` free over ``[now,
    now + e)``), and a start only removes availability. A job dominating
    one that did not fit earlier in the call is skipped untried.

    First, if ``k >= 0``, :func:`sync` (the same arguments)."""
    if k >= 0:
        sync(st, ended, nend, k, now, order, norder)
    if not _room(st, n):
        return -1
    sb = bk.borrowed(st)
    ji, jf, li = sb[0], sb[1], sb[4]
    jb = borrow(jobs)
    fk = np.empty(_FAIL_CAP, np.int64)
    fq = np.empty(_FAIL_CAP, np.int64)
    fe = np.empty(_FAIL_CAP)
    nf = 0
    started = 0
    for i in range(n):
        j = jb[i]
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
def place_in_order(st, jobs, n, now, ended, nend, k, order, norder):
    """batsched's ``add_job_first_fit`` for each waiting job of ``jobs[:n]``
    in order: its reservation, if any, is dropped, and it starts now if its
    first fit starts now, else it is reserved there (no reservation if it
    never fits); the jobs after it keep theirs meanwhile. Returns how many
    started, or ``-1`` if the state lacks room. First, if ``k >= 0``,
    :func:`sync` (the same arguments)."""
    if k >= 0:
        sync(st, ended, nend, k, now, order, norder)
    if not _room_for(st, n):
        return -1
    sb = bk.borrowed(st)
    ji = sb[0]
    jb = borrow(jobs)
    started = 0
    for i in range(n):
        j = jb[i]
        if ji[j, bk.J_STATE] != bk.WAITING:
            continue
        if ji[j, bk.J_RES]:
            bk.unreserve_job(sb, j)
        if bk.place(sb, j, now) == bk.STARTED:
            started += 1
    return started


@njit(cache=True)
def first_fit(st, j, out):
    """Where waiting job ``j`` fits first in its lane's profile (batsched
    ``add_job_first_fit``; its own reservation, if any, counts as free):
    the start time (``inf`` if it never fits), the machines in ``out[0]``
    (the lowest-numbered ones free over the whole window). Nothing
    changes. ``-1.0`` if the state lacks room."""
    if not _room(st, 1):
        return -1.0
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
def reserve(st, j):
    """Reserve waiting job ``j`` at its first fit (a reservation it held is
    placed again); returns the start (``inf``: it never fits, no
    reservation), or ``-1.0`` if the state lacks room."""
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
def clear_reservations(st, jobs, n):
    """Drop the reservations held by ``jobs[:n]``; returns how many."""
    sb = bk.borrowed(st)
    jb = borrow(jobs)
    c = 0
    for i in range(n):
        if sb[0][jb[i], bk.J_RES]:
            bk.unreserve_job(sb, jb[i])
            c += 1
    return c
