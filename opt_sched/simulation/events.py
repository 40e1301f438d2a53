"""The exclusive-I/O event loop (numba, ``cache=True``), written once.

It runs the batch simulator (:mod:`.kernel` drives it with a plan's start
queues and gates) and the replay's ``exclusive`` execution model
(:class:`~opt_sched.execution.exclusive.Exclusive` drives it with an online
scheduler's starts): the same plan gives the same schedule both ways.

Model (SPEC §3 rule 5)
----------------------
A started job computes ``w_ij``, then requests I/O phase ``j`` of duration
``d_ij = v_ij / b_k``. A phase with ``d_ij = 0`` runs at once and never
waits; otherwise the job waits, keeping its nodes, until its partition's
I/O node picks it, and the phase occupies the node during ``[t, t +
d_ij)``. After its last I/O phase the job ends.

Events and determinism
----------------------
The event heap (:mod:`.heaps`) orders the pending events by ``(time,
priority, sequence)``: I/O end (0), then compute end (1). *Decisions are
taken once per instant*: :func:`step` applies every event of an instant
(requests join the waiting heaps, I/O ends free nodes, ends of jobs are
returned to the caller), the caller then starts jobs at that instant
(:func:`start`, :func:`start_jobs`), and only then (the ``settle`` call) does
every touched free I/O node pick a waiting phase. So a phase requested at
``t`` competes with the phases already waiting when a node frees at ``t``,
whatever the order of the events inside the instant.

The I/O choice (policy ``mode``)
--------------------------------
- ``MODE_STATIC``: smallest ``(key[phase], request time, job index)``, with
  ``key`` precomputed per phase by the policy; a binary heap per node.
- ``MODE_FIFO``: smallest ``(request time, request time, job index)``.
- ``MODE_STRETCH``: largest current stretch ``(t + d_ij - S_i) / (P_ij +
  d_ij)``, then earliest request, then smallest index; the key depends on
  ``t``, so the waiting set is scanned (``O(waiting)`` per decision).

State
-----
A few 2-D arrays whose *rows* are the named vectors (so that a call passes a
handful of arrays, not twenty-five; ``n`` jobs, ``R`` partitions, phases job
after job; see :func:`new_state`):

- ``ji`` (int, per job): partition (``-1`` before its start), current
  phase, status (0 waiting to start, 1 running, 2 done, 3 killed), the
  pending event's priority and kind, and the scratch rows: the event heap,
  the jobs ended in the current call;
- ``jf`` (float, per job): the pending event's time, the job's start, and,
  while it waits for an I/O node, its key and request time;
- ``pf`` (float, per phase): ``w`` and the partition-dependent ``d``,
  ``key``, ``done`` (the contention-free work ``P_ij`` done once compute
  ``j`` ends), and the results ``cstart``/``iostart``;
- ``ki`` (int, per partition): the job using the I/O node (``-1`` if free),
  the waiting count, the stack of partitions whose I/O node must choose at
  the end of the instant and its flags;
- ``wheap[k*n : k*n + wlen[k]]``: partition ``k``'s waiting heap;
- ``meta = [heap size, sequence counter, touched partitions]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..borrow import borrow_all, borrow_rows
from .heaps import (
    HSIZE,
    SEQ,
    SEQ_BITS,
    TOUCHED,
    ev_remove_root,
    ev_sift_down,
    schedule,
    touch,
    untouch,
    w_pop,
    w_push,
)

__all__ = ["DONE", "HSIZE", "KILLED", "MODE_FIFO", "MODE_STATIC", "MODE_STRETCH",
           "RUNNING", "TOUCHED", "kill", "new_state", "next_event", "start",
           "start_jobs", "step"]

MODE_STATIC = 0
MODE_FIFO = 1
MODE_STRETCH = 2

RUNNING = 1
DONE = 2
KILLED = 3

_IO_END = 0
_COMPUTE_END = 1

# rows of ji
JI_ROWS = 7
J_PART, J_CUR, J_STATUS, J_EVP, J_EVKIND, J_HEAP, J_ENDED = range(JI_ROWS)
# rows of jf
JF_ROWS = 4
F_EVT, F_JSTART, F_WKEY, F_WREQ = range(JF_ROWS)
# rows of pf
PF_ROWS = 6
P_W, P_D, P_KEY, P_DONE, P_CSTART, P_IOSTART = range(PF_ROWS)
# rows of ki
KI_ROWS = 4
K_IOJOB, K_WLEN, K_TOUCHED, K_FLAG = range(KI_ROWS)
# rows of tables
T_D, T_KEY, T_DONE = range(3)


def new_state(off: np.ndarray, w: np.ndarray, partitions: int
              ) -> tuple[np.ndarray, ...]:
    """A fresh state ``(ph_off, ji, jf, pf, ki, wheap, meta)`` for jobs
    owning phases ``off[i]:off[i+1]`` (see the module docstring)."""
    n = len(off) - 1
    cols = max(n, 1)
    ji = np.zeros((JI_ROWS, cols), np.int64)
    ji[J_PART] = -1
    jf = np.zeros((JF_ROWS, cols))
    jf[F_JSTART] = np.nan
    pf = np.zeros((PF_ROWS, len(w)))
    pf[P_W] = w
    pf[P_CSTART:] = np.nan
    ki = np.zeros((KI_ROWS, partitions), np.int64)
    ki[K_IOJOB] = -1
    wheap = np.empty(max(partitions * n, 1), np.int64)
    meta = np.zeros(3, np.int64)
    return off, ji, jf, pf, ki, wheap, meta


@njit(cache=True)
def start(j, k, t, ph_off, ji, jf, pf, meta):
    """Start job ``j`` on partition ``k`` at ``t`` (its phase rows of ``pf``
    already hold ``d``, ``key`` and ``done``): schedule its first compute
    end."""
    ji[J_PART, j] = k
    ji[J_STATUS, j] = RUNNING
    jf[F_JSTART, j] = t
    ph = ph_off[j]
    ji[J_CUR, j] = ph
    pf[P_CSTART, ph] = t
    ji[J_EVKIND, j] = _COMPUTE_END
    schedule(j, t + pf[P_W, ph], _COMPUTE_END, ji[J_HEAP], jf[F_EVT], ji[J_EVP], meta)


@njit(cache=True)
def start_jobs(jobs, parts, t, ph_off, ji, jf, pf, meta, tables):
    """Start ``jobs[m]`` on ``parts[m]`` at ``t``: copy the partition's phase
    durations, keys and work-done values (``tables[:, k]``), and schedule
    the first compute end."""
    jobs, parts, ph_off, ji, jf, pf, meta, tables = borrow_all(
        jobs, parts, ph_off, ji, jf, pf, meta, tables)
    for m in range(jobs.shape[0]):
        j = jobs[m]
        k = parts[m]
        for p in range(ph_off[j], ph_off[j + 1]):
            pf[P_D, p] = tables[T_D, k, p]
            pf[P_KEY, p] = tables[T_KEY, k, p]
            pf[P_DONE, p] = tables[T_DONE, k, p]
        start(j, k, t, ph_off, ji, jf, pf, meta)


@njit(cache=True)
def _w_take_stretch(wheap, base, size, t, cur, d, done, jstart, wreq):
    """Remove and return the waiting job of largest current stretch."""
    best_pos = 0
    best = wheap[base]
    ph = cur[best]
    best_s = (t + d[ph] - jstart[best]) / (done[ph] + d[ph])
    for pos in range(1, size):
        job = wheap[base + pos]
        ph = cur[job]
        s = (t + d[ph] - jstart[job]) / (done[ph] + d[ph])
        if s > best_s or (s == best_s and (
                wreq[job] < wreq[best] or (wreq[job] == wreq[best] and job < best))):
            best_s = s
            best = job
            best_pos = pos
    wheap[base + best_pos] = wheap[base + size - 1]
    return best


@njit(inline="always")
def next_event(heap, ev_t, ev_p, status, meta):
    """The time of the earliest pending event of a running job (``inf``:
    none), once the stale events (of jobs killed) on top of the heap are
    dropped."""
    while meta[HSIZE] > 0 and status[heap[0]] != RUNNING:
        meta[HSIZE] = ev_remove_root(heap, meta[HSIZE], ev_t, ev_p)
    return ev_t[heap[0]] if meta[HSIZE] > 0 else np.inf


@njit(cache=True)
def step(t, settle, n, mode, ph_off, ji, jf, pf, ki, wheap, meta):
    """Advance or settle; returns ``(instant, jobs ended)`` (the jobs in
    ``ji[J_ENDED]``, in event order).

    ``settle=False`` (``advance``, ``t`` is *until*): run whole instants
    until one where jobs end, or up to ``until``; the I/O choices of that
    instant are left to the ``settle`` call. ``settle=True``: finish instant
    ``t`` after the caller's starts -- apply the events they created at
    ``t``; if jobs end, return them (choices deferred again), else let the
    touched I/O nodes choose.
    """
    ph_off, wheap, meta = borrow_all(ph_off, wheap, meta)
    part, cur, status, ev_p, ev_kind, heap, ended = borrow_rows(ji, JI_ROWS)
    ev_t, jstart, wkey, wreq = borrow_rows(jf, JF_ROWS)
    w, d, key, done, cstart, iostart = borrow_rows(pf, PF_ROWS)
    io_job, wlen, touched, flag = borrow_rows(ki, KI_ROWS)
    until = t
    find_next = not settle
    while True:
        if find_next:
            t = next_event(heap, ev_t, ev_p, status, meta)
            if t > until:
                return until, 0
        find_next = True

        # -- every pending event at t -------------------------------------
        count = 0
        while meta[HSIZE] > 0 and ev_t[heap[0]] == t:
            j = heap[0]
            if status[j] != RUNNING:  # a killed job's stale event
                meta[HSIZE] = ev_remove_root(heap, meta[HSIZE], ev_t, ev_p)
                continue
            k = part[j]
            advance_job = False
            if ev_kind[j] == _IO_END:
                io_job[k] = -1
                if wlen[k] > 0:
                    touch(k, touched, flag, meta)
                advance_job = True
            else:  # compute end: request I/O phase cur[j]
                ph = cur[j]
                if d[ph] <= 0.0:
                    iostart[ph] = t
                    advance_job = True
                else:
                    meta[HSIZE] = ev_remove_root(heap, meta[HSIZE], ev_t, ev_p)
                    wreq[j] = t
                    wkey[j] = t if mode == MODE_FIFO else key[ph]
                    size = wlen[k]
                    if mode == MODE_STRETCH:
                        wheap[k * n + size] = j
                    else:
                        w_push(wheap, k * n, size, wkey, wreq, j)
                    wlen[k] = size + 1
                    if io_job[k] < 0:
                        touch(k, touched, flag, meta)
            if advance_job:
                nxt = cur[j] + 1
                if nxt == ph_off[j + 1]:
                    status[j] = DONE
                    ended[count] = j
                    count += 1
                    meta[HSIZE] = ev_remove_root(heap, meta[HSIZE], ev_t, ev_p)
                else:
                    # the job's own event stays at the root: reschedule it there
                    cur[j] = nxt
                    cstart[nxt] = t
                    ev_t[j] = t + w[nxt]
                    ev_p[j] = _COMPUTE_END * SEQ_BITS + meta[SEQ]
                    meta[SEQ] += 1
                    ev_kind[j] = _COMPUTE_END
                    ev_sift_down(heap, meta[HSIZE], ev_t, ev_p, j, 0)

        if count > 0 or (t == until and not settle):
            return t, count

        # -- end of instant t: every touched free I/O node picks a phase ------
        while meta[TOUCHED] > 0:
            k = untouch(touched, flag, meta)
            size = wlen[k]
            if io_job[k] >= 0 or size == 0:
                continue
            base = k * n
            if mode == MODE_STRETCH:
                j = _w_take_stretch(wheap, base, size, t, cur, d, done, jstart, wreq)
            else:
                j = w_pop(wheap, base, size, wkey, wreq)
            wlen[k] = size - 1
            ph = cur[j]
            iostart[ph] = t
            io_job[k] = j
            ev_kind[j] = _IO_END
            schedule(j, t + d[ph], _IO_END, heap, ev_t, ev_p, meta)
        if settle:
            return t, 0


@njit(cache=True)
def kill(j, n, mode, ji, jf, ki, wheap, meta):
    """Stop running job ``j``: its pending event goes stale, it leaves the
    waiting heap of its I/O node, and a node it was using frees now."""
    ji, jf, wheap, meta = borrow_all(ji, jf, wheap, meta)
    io_job, wlen, touched, flag = borrow_rows(ki, KI_ROWS)
    status = ji[J_STATUS]
    wkey = jf[F_WKEY]
    wreq = jf[F_WREQ]
    if status[j] != RUNNING:
        return
    status[j] = KILLED
    k = ji[J_PART, j]
    if io_job[k] == j:
        io_job[k] = -1
        if wlen[k] > 0:
            touch(k, touched, flag, meta)
        return
    base = k * n
    size = wlen[k]
    pos = -1
    for q in range(size):
        if wheap[base + q] == j:
            pos = q
            break
    if pos < 0:
        return
    # remove it and rebuild the heap (kills are rare)
    rest = np.empty(size - 1, np.int64)
    m = 0
    for q in range(size):
        if q != pos:
            rest[m] = wheap[base + q]
            m += 1
    wlen[k] = 0
    for q in range(size - 1):
        if mode == MODE_STRETCH:
            wheap[base + q] = rest[q]
        else:
            w_push(wheap, base, q, wkey, wreq, rest[q])
    wlen[k] = size - 1
