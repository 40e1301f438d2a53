"""Compiled event steps of the ``exclusive`` execution model (numba).

The state of a replay lives in numpy arrays owned by
:class:`~opt_sched.execution.exclusive.Exclusive`; these functions advance
it between job-level events, so that a Python scheduler runs between two
calls while every I/O event runs compiled. The event heap, the per-node
waiting heaps and the three I/O choice modes are those of the batch kernel
(:mod:`opt_sched.simulation.kernel`), whose helpers are reused.

State layout (``n`` jobs, ``R`` partitions, phases job after job):

- per job: ``part`` (``-1`` before its start), ``cur`` (current phase),
  ``status`` (0 waiting to start, 1 running, 2 done, 3 killed), ``jstart``,
  the pending event ``ev_t``/``ev_p``/``ev_kind`` and, while it waits for an
  I/O node, ``wkey``/``wreq``;
- per phase: ``w`` and the partition-dependent ``d``, ``key``, ``done`` (set
  at the job's start from the ``*_by_part`` tables), and the results
  ``cstart``/``iostart``;
- per partition: ``io_job`` (the job using the I/O node, ``-1`` if free),
  ``wlen`` and the waiting heap ``wheap[k*n : k*n + wlen[k]]``;
- ``meta = [heap size, sequence counter, touched partitions]`` and the
  stack of partitions whose I/O node must choose at the end of the instant.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..borrow import borrow
from ..simulation.kernel import (
    MODE_FIFO,
    MODE_STRETCH,
    _ev_push,
    _ev_remove_root,
    _ev_sift_down,
    _w_pop,
    _w_push,
    _w_take_stretch,
)
from .stepping import HSIZE, SEQ, TOUCHED, touch

__all__ = ["advance", "kill", "settle", "start_jobs"]

RUNNING = 1
DONE = 2
KILLED = 3

_IO_END = 0
_COMPUTE_END = 1
_SEQ_BITS = 1 << 56

_HSIZE = HSIZE
_SEQ = SEQ
_TOUCHED = TOUCHED


@njit(cache=True)
def start_jobs(jobs, parts, t, n, ph_off, part, cur, status, jstart,
               ev_t, ev_p, ev_kind, heap, meta,
               w, d, key, done, d_by_part, key_by_part, done_by_part, cstart):
    """Start ``jobs[m]`` on ``parts[m]`` at ``t``: copy the partition's phase
    durations, keys and work-done values, and schedule the first compute
    end."""
    jobs = borrow(jobs)
    parts = borrow(parts)
    ph_off = borrow(ph_off)
    part = borrow(part)
    cur = borrow(cur)
    status = borrow(status)
    jstart = borrow(jstart)
    ev_t = borrow(ev_t)
    ev_p = borrow(ev_p)
    ev_kind = borrow(ev_kind)
    heap = borrow(heap)
    meta = borrow(meta)
    w = borrow(w)
    d = borrow(d)
    key = borrow(key)
    done = borrow(done)
    d_by_part = borrow(d_by_part)
    key_by_part = borrow(key_by_part)
    done_by_part = borrow(done_by_part)
    cstart = borrow(cstart)
    for m in range(jobs.shape[0]):
        j = jobs[m]
        k = parts[m]
        part[j] = k
        status[j] = RUNNING
        jstart[j] = t
        for p in range(ph_off[j], ph_off[j + 1]):
            d[p] = d_by_part[k, p]
            key[p] = key_by_part[k, p]
            done[p] = done_by_part[k, p]
        ph = ph_off[j]
        cur[j] = ph
        cstart[ph] = t
        ev_t[j] = t + w[ph]
        ev_p[j] = _COMPUTE_END * _SEQ_BITS + meta[_SEQ]
        meta[_SEQ] += 1
        ev_kind[j] = _COMPUTE_END
        meta[_HSIZE] = _ev_push(heap, meta[_HSIZE], ev_t, ev_p, j)


@njit(cache=True)
def _apply_instant(t, n, mode, ph_off, part, cur, status, jstart,
                   ev_t, ev_p, ev_kind, heap, meta, w, d, key,
                   cstart, iostart, io_job, wlen, wheap, wkey, wreq,
                   touched, flag, ended):
    """Apply every pending event at time ``t``; return how many jobs ended
    (written to ``ended``)."""
    count = 0
    while meta[_HSIZE] > 0 and ev_t[heap[0]] == t:
        j = heap[0]
        if status[j] != RUNNING:  # a killed job's stale event
            meta[_HSIZE] = _ev_remove_root(heap, meta[_HSIZE], ev_t, ev_p)
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
                meta[_HSIZE] = _ev_remove_root(heap, meta[_HSIZE], ev_t, ev_p)
                wreq[j] = t
                wkey[j] = t if mode == MODE_FIFO else key[ph]
                size = wlen[k]
                if mode == MODE_STRETCH:
                    wheap[k * n + size] = j
                else:
                    _w_push(wheap, k * n, size, wkey, wreq, j)
                wlen[k] = size + 1
                if io_job[k] < 0:
                    touch(k, touched, flag, meta)
        if advance_job:
            nxt = cur[j] + 1
            if nxt == ph_off[j + 1]:
                status[j] = DONE
                ended[count] = j
                count += 1
                meta[_HSIZE] = _ev_remove_root(heap, meta[_HSIZE], ev_t, ev_p)
            else:
                cur[j] = nxt
                cstart[nxt] = t
                ev_t[j] = t + w[nxt]
                ev_p[j] = _COMPUTE_END * _SEQ_BITS + meta[_SEQ]
                meta[_SEQ] += 1
                ev_kind[j] = _COMPUTE_END
                _ev_sift_down(heap, meta[_HSIZE], ev_t, ev_p, j, 0)
    return count


@njit(cache=True)
def _choose_io(t, n, mode, cur, jstart, ev_t, ev_p, ev_kind, heap, meta,
               d, done, iostart, io_job, wlen, wheap, wkey, wreq, touched, flag):
    """End of instant ``t``: every touched free I/O node picks a phase."""
    while meta[_TOUCHED] > 0:
        meta[_TOUCHED] -= 1
        k = touched[meta[_TOUCHED]]
        flag[k] = False
        size = wlen[k]
        if io_job[k] >= 0 or size == 0:
            continue
        base = k * n
        if mode == MODE_STRETCH:
            j = _w_take_stretch(wheap, base, size, t, cur, d, done, jstart, wreq)
        else:
            j = _w_pop(wheap, base, size, wkey, wreq)
        wlen[k] = size - 1
        ph = cur[j]
        iostart[ph] = t
        io_job[k] = j
        ev_t[j] = t + d[ph]
        ev_p[j] = _IO_END * _SEQ_BITS + meta[_SEQ]
        meta[_SEQ] += 1
        ev_kind[j] = _IO_END
        meta[_HSIZE] = _ev_push(heap, meta[_HSIZE], ev_t, ev_p, j)


@njit(cache=True)
def advance(until, n, mode, ph_off, part, cur, status, jstart,
            ev_t, ev_p, ev_kind, heap, meta, w, d, key, done,
            cstart, iostart, io_job, wlen, wheap, wkey, wreq,
            touched, flag, ended):
    """Run whole instants until one where jobs end, or up to ``until``.

    Returns ``(t, count)``: the instant reached and how many jobs ended
    there (in ``ended``). The I/O choices of instant ``t`` are left to
    :func:`settle`.
    """
    ph_off = borrow(ph_off)
    part = borrow(part)
    cur = borrow(cur)
    status = borrow(status)
    jstart = borrow(jstart)
    ev_t = borrow(ev_t)
    ev_p = borrow(ev_p)
    ev_kind = borrow(ev_kind)
    heap = borrow(heap)
    meta = borrow(meta)
    w = borrow(w)
    d = borrow(d)
    key = borrow(key)
    done = borrow(done)
    cstart = borrow(cstart)
    iostart = borrow(iostart)
    io_job = borrow(io_job)
    wlen = borrow(wlen)
    wheap = borrow(wheap)
    wkey = borrow(wkey)
    wreq = borrow(wreq)
    touched = borrow(touched)
    flag = borrow(flag)
    ended = borrow(ended)
    while True:
        while meta[_HSIZE] > 0 and status[heap[0]] != RUNNING:
            meta[_HSIZE] = _ev_remove_root(heap, meta[_HSIZE], ev_t, ev_p)
        if meta[_HSIZE] == 0 or ev_t[heap[0]] > until:
            return until, 0
        t = ev_t[heap[0]]
        count = _apply_instant(t, n, mode, ph_off, part, cur, status, jstart,
                               ev_t, ev_p, ev_kind, heap, meta, w, d, key,
                               cstart, iostart, io_job, wlen, wheap, wkey, wreq,
                               touched, flag, ended)
        if count > 0 or t == until:
            return t, count
        _choose_io(t, n, mode, cur, jstart, ev_t, ev_p, ev_kind, heap, meta,
                   d, done, iostart, io_job, wlen, wheap, wkey, wreq, touched, flag)


@njit(cache=True)
def settle(t, n, mode, ph_off, part, cur, status, jstart,
           ev_t, ev_p, ev_kind, heap, meta, w, d, key, done,
           cstart, iostart, io_job, wlen, wheap, wkey, wreq,
           touched, flag, ended):
    """Finish instant ``t`` after the scheduler's starts: apply the events
    they created at ``t``; if jobs end, return their count (choices
    deferred again), else let the touched I/O nodes choose and return 0."""
    ph_off = borrow(ph_off)
    part = borrow(part)
    cur = borrow(cur)
    status = borrow(status)
    jstart = borrow(jstart)
    ev_t = borrow(ev_t)
    ev_p = borrow(ev_p)
    ev_kind = borrow(ev_kind)
    heap = borrow(heap)
    meta = borrow(meta)
    w = borrow(w)
    d = borrow(d)
    key = borrow(key)
    done = borrow(done)
    cstart = borrow(cstart)
    iostart = borrow(iostart)
    io_job = borrow(io_job)
    wlen = borrow(wlen)
    wheap = borrow(wheap)
    wkey = borrow(wkey)
    wreq = borrow(wreq)
    touched = borrow(touched)
    flag = borrow(flag)
    ended = borrow(ended)
    count = _apply_instant(t, n, mode, ph_off, part, cur, status, jstart,
                           ev_t, ev_p, ev_kind, heap, meta, w, d, key,
                           cstart, iostart, io_job, wlen, wheap, wkey, wreq,
                           touched, flag, ended)
    if count > 0:
        return count
    _choose_io(t, n, mode, cur, jstart, ev_t, ev_p, ev_kind, heap, meta,
               d, done, iostart, io_job, wlen, wheap, wkey, wreq, touched, flag)
    return 0


@njit(cache=True)
def kill(j, n, mode, part, status, io_job, wlen, wheap, wkey, wreq,
         touched, flag, meta):
    """Stop running job ``j``: its pending event goes stale, it leaves the
    waiting heap of its I/O node, and a node it was using frees now."""
    part = borrow(part)
    status = borrow(status)
    io_job = borrow(io_job)
    wlen = borrow(wlen)
    wheap = borrow(wheap)
    wkey = borrow(wkey)
    wreq = borrow(wreq)
    touched = borrow(touched)
    flag = borrow(flag)
    meta = borrow(meta)
    if status[j] != RUNNING:
        return
    status[j] = KILLED
    k = part[j]
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
            _w_push(wheap, base, q, wkey, wreq, rest[q])
    wlen[k] = size - 1
