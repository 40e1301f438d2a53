"""The heaps of the event loops (numba, compiled inline into each caller).

Written once for the exclusive-I/O event loop (:mod:`.events`, which runs
both the batch simulator and the replay's ``exclusive`` model) and the
``shared`` model's loop (:mod:`opt_sched.execution.shared_kernel`).

Event heap
    A binary heap of job indices (a job has at most one pending event)
    ordered by ``(ev_t[j], ev_p[j])``: time, then one int64 tie key
    ``priority * SEQ_BITS + sequence`` (SimPy's scheme: the event kind's
    priority, then the order of the pushes).
Waiting heaps
    One binary heap per I/O node, stored at ``wheap[base : base + size]``,
    ordered by ``(wkey[j], wreq[j], j)``: the policy's key, the request
    time, the job index.

``meta`` is a loop's small int64 state vector: slot :data:`HSIZE` is the
event heap's size, :data:`SEQ` the sequence counter, :data:`TOUCHED` the
number of I/O nodes that must act at the end of the current instant, listed
in ``touched`` (``flag`` marks them, so each is listed once).

The helpers are ``inline="always"``: a compiled call costs about as much
as the heap step itself, and the loops make a few per I/O phase.
"""

from __future__ import annotations

from numba import njit

__all__ = ["HSIZE", "SEQ", "SEQ_BITS", "TOUCHED", "ev_push", "ev_remove_root",
           "ev_sift_down", "schedule", "touch", "w_pop", "w_push"]

HSIZE = 0
SEQ = 1
TOUCHED = 2

SEQ_BITS = 1 << 56
"""``priority * SEQ_BITS + sequence``: one int64 tie key."""


@njit(inline="always")
def _ev_less(ta: float, pa: int, tb: float, pb: int) -> bool:
    return ta < tb or (ta == tb and pa < pb)


@njit(inline="always")
def ev_sift_down(heap, size, ev_t, ev_p, job, i):
    """Place ``job`` at hole ``i`` and sift it down (a heap of ``size``)."""
    t = ev_t[job]
    p = ev_p[job]
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        r = c + 1
        hc = heap[c]
        if r < size:
            hr = heap[r]
            if _ev_less(ev_t[hr], ev_p[hr], ev_t[hc], ev_p[hc]):
                c = r
                hc = hr
        if _ev_less(ev_t[hc], ev_p[hc], t, p):
            heap[i] = hc
            i = c
        else:
            break
    heap[i] = job


@njit(inline="always")
def ev_push(heap, size, ev_t, ev_p, job):
    """Push ``job`` (its event already in ``ev_t``/``ev_p``); returns the
    new size."""
    t = ev_t[job]
    p = ev_p[job]
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        q = heap[parent]
        if _ev_less(t, p, ev_t[q], ev_p[q]):
            heap[i] = q
            i = parent
        else:
            break
    heap[i] = job
    return size + 1


@njit(inline="always")
def ev_remove_root(heap, size, ev_t, ev_p):
    """Remove the root; returns the new size."""
    size -= 1
    if size > 0:
        ev_sift_down(heap, size, ev_t, ev_p, heap[size], 0)
    return size


@njit(inline="always")
def schedule(j, time, priority, heap, ev_t, ev_p, meta):
    """Push job ``j``'s next event at ``time`` with ``priority`` (the next
    sequence number breaks the remaining ties)."""
    ev_t[j] = time
    ev_p[j] = priority * SEQ_BITS + meta[SEQ]
    meta[SEQ] += 1
    meta[HSIZE] = ev_push(heap, meta[HSIZE], ev_t, ev_p, j)


@njit(inline="always")
def _w_less(a, b, wkey, wreq):
    ka = wkey[a]
    kb = wkey[b]
    if ka != kb:
        return ka < kb
    ra = wreq[a]
    rb = wreq[b]
    if ra != rb:
        return ra < rb
    return a < b


@njit(inline="always")
def w_push(wheap, base, size, wkey, wreq, job):
    """Push ``job`` on the waiting heap ``wheap[base : base + size]`` (the
    caller counts the new size)."""
    i = size
    while i > 0:
        parent = (i - 1) >> 1
        q = wheap[base + parent]
        if _w_less(job, q, wkey, wreq):
            wheap[base + i] = q
            i = parent
        else:
            break
    wheap[base + i] = job


@njit(inline="always")
def w_pop(wheap, base, size, wkey, wreq):
    """Remove and return the smallest job of ``wheap[base : base + size]``
    (the caller counts the new size)."""
    top = wheap[base]
    size -= 1
    if size > 0:
        job = wheap[base + size]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= size:
                break
            hc = wheap[base + c]
            r = c + 1
            if r < size:
                hr = wheap[base + r]
                if _w_less(hr, hc, wkey, wreq):
                    c = r
                    hc = hr
            if _w_less(hc, job, wkey, wreq):
                wheap[base + i] = hc
                i = c
            else:
                break
        wheap[base + i] = job
    return top


@njit(inline="always")
def touch(k, touched, flag, meta):
    """List I/O node ``k`` for the end of the instant (once)."""
    if not flag[k]:
        flag[k] = True
        touched[meta[TOUCHED]] = k
        meta[TOUCHED] += 1


@njit(inline="always")
def untouch(touched, flag, meta):
    """Take the I/O node listed last by :func:`touch` off the list (there is
    one: ``meta[TOUCHED] > 0``) and return it; the end of an instant serves
    the touched nodes last touched first."""
    meta[TOUCHED] -= 1
    k = touched[meta[TOUCHED]]
    flag[k] = False
    return k
