"""The compiled event loop of the simulator (numba, ``cache=True``).

One kernel, :func:`run`, executes every plan. It sees jobs, phases,
partitions and *gates*, never plans: :mod:`opt_sched.simulation.program`
lowers a plan into these arrays.

Model (SPEC §3)
---------------
- Partition ``k`` has ``capacity[k]`` nodes and one exclusive,
  non-preemptive I/O node. Its jobs are started strictly in the order of its
  *start queue* ``q_jobs[q_off[k]:q_off[k+1]]`` (no overtaking): the head job
  ``i`` starts at the first time ``t`` with

  .. math:: \\mathrm{gate}(i)\\ \\text{open} \\;\\wedge\\; t \\ge e_i
            \\;\\wedge\\; \\mathrm{free}_k(t) \\ge Q_i,

  where ``e_i`` is its earliest start and a gate opens when every job it
  awaits has completed (a pack barrier, the job's predecessors, or both).
- A started job computes ``w_ij``, then requests I/O phase ``j``. A phase of
  duration ``d_ij = 0`` runs at once and never waits; otherwise the job waits,
  keeping its nodes, until its I/O node picks it, and the phase occupies the
  I/O node during ``[t, t + d_ij)``. After its last I/O phase the job
  completes and frees its ``Q_i`` nodes.

Events and determinism
----------------------
A binary heap holds the pending events ordered by ``(time, priority,
sequence)`` (SimPy's scheme); the kinds and their priorities are I/O end (0),
compute end (1) and earliest-start wake-up (2), and ``sequence`` counts
pushes. A job has at most one pending event, so the heap stores job indices.
*Decisions are taken once per instant*: all events of time ``t`` are applied
first (requests join the waiting sets, completions free nodes and open
gates); then the start queues of the touched partitions are served (a job
started with a zero compute phase adds events at ``t``, which are applied in
turn); only then does every free I/O node with waiting phases pick one. So a
phase requested at ``t`` competes with the phases already waiting when an I/O
node frees at ``t``, whatever the order of the events inside the instant.

The I/O choice (policy ``mode``)
--------------------------------
- ``MODE_STATIC``: smallest ``(key[phase], request time, job index)``, with
  ``key`` precomputed per phase by the policy; a binary heap per partition.
- ``MODE_FIFO``: smallest ``(request time, request time, job index)``.
- ``MODE_STRETCH``: largest current stretch ``(t + d_ij - S_i) / (P_ij +
  d_ij)``, then earliest request, then smallest index; the key depends on
  ``t``, so the waiting set is scanned (``O(waiting)`` per decision).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["MODE_FIFO", "MODE_STATIC", "MODE_STRETCH", "run", "segment_cumsum"]

MODE_STATIC = 0
MODE_FIFO = 1
MODE_STRETCH = 2

_IO_END = 0
_COMPUTE_END = 1
_WAKE = 2
_SEQ_BITS = 1 << 56  # priority * _SEQ_BITS + sequence: one int64 tie key


@njit(cache=True)
def segment_cumsum(x, off, reverse):
    """Cumulative sums of ``x`` restarted at every segment ``off[i]:off[i+1]``
    (from the segment's end when ``reverse``); sequential like ``np.cumsum``,
    so equal to it applied job by job."""
    out = np.empty_like(x)
    for i in range(off.shape[0] - 1):
        acc = 0.0
        if reverse:
            for p in range(off[i + 1] - 1, off[i] - 1, -1):
                acc += x[p]
                out[p] = acc
        else:
            for p in range(off[i], off[i + 1]):
                acc += x[p]
                out[p] = acc
    return out


@njit(cache=True, inline="always")
def _ev_less(ta: float, pa: int, tb: float, pb: int) -> bool:
    return ta < tb or (ta == tb and pa < pb)


@njit(cache=True)
def _ev_sift_down(heap, size, ev_t, ev_p, job, i):
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


@njit(cache=True)
def _ev_push(heap, size, ev_t, ev_p, job):
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


@njit(cache=True)
def _ev_remove_root(heap, size, ev_t, ev_p):
    size -= 1
    if size > 0:
        _ev_sift_down(heap, size, ev_t, ev_p, heap[size], 0)
    return size


@njit(cache=True, inline="always")
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


@njit(cache=True)
def _w_push(wheap, base, size, wkey, wreq, job):
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


@njit(cache=True)
def _w_pop(wheap, base, size, wkey, wreq):
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


@njit(cache=True)
def run(job_part, job_nodes, job_earliest, job_gate, ph_off,
        w, d, key, done,
        capacity, q_off, q_jobs,
        gate_count_init, gate_part, succ_off, succ_gate,
        mode, res_cap, job_dem):
    """Simulate; return ``(compute_starts, io_starts, job_starts, completions,
    unstarted)`` with the phase arrays indexed like ``w`` and ``d``.

    Parameters
    ----------
    job_part, job_nodes, job_earliest, job_gate : arrays of length ``n``
        Partition ``k(i)``, nodes ``Q_i``, earliest start ``e_i`` and gate of
        each job.
    ph_off : int64 array of length ``n + 1``
        Job ``i`` owns phases ``ph_off[i]:ph_off[i+1]`` (at least one).
    w, d, key, done : float arrays, one entry per phase
        Compute length ``w_ij``; I/O duration ``d_ij = v_ij / b_k(i)``; static
        policy key; contention-free work ``P_ij`` done once compute ``j`` ends.
    capacity, q_off, q_jobs : partition nodes ``P_k`` and start queues.
    gate_count_init, gate_part : jobs each gate awaits, and its partition.
    succ_off, succ_gate : CSR list of the gates each job's completion opens.
    mode : ``MODE_STATIC``, ``MODE_FIFO`` or ``MODE_STRETCH``.
    res_cap, job_dem : capacities of the ``M`` named resources (shared by all
        partitions) and the ``n x M`` demands; a job also waits in its start
        queue until every resource has room: ``free_r(t) >= q_ir``.

    ``unstarted`` counts jobs that never started (a gate that never opened),
    which a checked plan never produces.
    """
    n = job_part.shape[0]
    R = capacity.shape[0]
    n_ph = w.shape[0]
    cstart = np.full(n_ph, np.nan)
    iostart = np.full(n_ph, np.nan)
    jstart = np.full(n, np.nan)
    completion = np.full(n, np.nan)
    gate_count = gate_count_init.copy()
    free = capacity.copy()
    n_res = res_cap.shape[0]
    res_free = res_cap.copy()
    head = q_off[:R].copy()
    io_busy = np.zeros(R, np.bool_)
    wlen = np.zeros(R, np.int64)
    wheap = np.empty(max(n, 1), np.int64)
    wkey = np.zeros(n)
    wreq = np.zeros(n)
    cur = np.zeros(n, np.int64)
    wake_pending = np.zeros(n, np.bool_)
    heap = np.empty(max(n, 1), np.int64)
    ev_t = np.zeros(n)
    ev_p = np.zeros(n, np.int64)
    ev_kind = np.zeros(n, np.int64)
    hsize = 0
    seq = 0
    sd_stack = np.empty(R, np.int64)
    sd_flag = np.zeros(R, np.bool_)
    sd_len = 0
    dd_stack = np.empty(R, np.int64)
    dd_flag = np.zeros(R, np.bool_)
    dd_len = 0
    for k in range(R):
        sd_stack[sd_len] = k
        sd_flag[k] = True
        sd_len += 1

    t = -np.inf
    pending = True  # end-of-instant work is due before the first pop
    while True:
        if pending:
            # --- end of instant t: serve start queues, then I/O nodes ----
            while sd_len > 0:
                sd_len -= 1
                k = sd_stack[sd_len]
                sd_flag[k] = False
                stop = q_off[k + 1]
                while head[k] < stop:
                    j = q_jobs[head[k]]
                    if gate_count[job_gate[j]] > 0:
                        break
                    if job_earliest[j] > t:
                        if not wake_pending[j]:
                            wake_pending[j] = True
                            ev_t[j] = job_earliest[j]
                            ev_p[j] = _WAKE * _SEQ_BITS + seq
                            seq += 1
                            ev_kind[j] = _WAKE
                            hsize = _ev_push(heap, hsize, ev_t, ev_p, j)
                        break
                    if free[k] < job_nodes[j]:
                        break
                    blocked = False
                    for r in range(n_res):
                        if res_free[r] < job_dem[j, r]:
                            blocked = True
                    if blocked:
                        break
                    head[k] += 1
                    free[k] -= job_nodes[j]
                    for r in range(n_res):
                        res_free[r] -= job_dem[j, r]
                    jstart[j] = t
                    ph = ph_off[j]
                    cur[j] = ph
                    cstart[ph] = t
                    ev_t[j] = t + w[ph]
                    ev_p[j] = _COMPUTE_END * _SEQ_BITS + seq
                    seq += 1
                    ev_kind[j] = _COMPUTE_END
                    hsize = _ev_push(heap, hsize, ev_t, ev_p, j)
            if hsize > 0 and ev_t[heap[0]] <= t:
                pending = False  # zero-length computes just started: apply them
            else:
                while dd_len > 0:
                    dd_len -= 1
                    k = dd_stack[dd_len]
                    dd_flag[k] = False
                    size = wlen[k]
                    if io_busy[k] or size == 0:
                        continue
                    base = q_off[k]
                    if mode == MODE_STRETCH:
                        j = _w_take_stretch(wheap, base, size, t, cur, d, done,
                                            jstart, wreq)
                    else:
                        j = _w_pop(wheap, base, size, wkey, wreq)
                    wlen[k] = size - 1
                    ph = cur[j]
                    iostart[ph] = t
                    io_busy[k] = True
                    ev_t[j] = t + d[ph]
                    ev_p[j] = _IO_END * _SEQ_BITS + seq
                    seq += 1
                    ev_kind[j] = _IO_END
                    hsize = _ev_push(heap, hsize, ev_t, ev_p, j)
                pending = False
        if hsize == 0:
            break

        # --- apply the next event -------------------------------------
        j = heap[0]
        t = ev_t[j]
        kind = ev_kind[j]
        k = job_part[j]
        advance = False
        if kind == _WAKE:
            wake_pending[j] = False
            hsize = _ev_remove_root(heap, hsize, ev_t, ev_p)
            if not sd_flag[k]:
                sd_flag[k] = True
                sd_stack[sd_len] = k
                sd_len += 1
        elif kind == _IO_END:
            io_busy[k] = False
            if wlen[k] > 0 and not dd_flag[k]:
                dd_flag[k] = True
                dd_stack[dd_len] = k
                dd_len += 1
            advance = True
        else:  # compute end: request I/O phase cur[j]
            ph = cur[j]
            if d[ph] <= 0.0:
                iostart[ph] = t
                advance = True
            else:
                hsize = _ev_remove_root(heap, hsize, ev_t, ev_p)
                wreq[j] = t
                if mode == MODE_FIFO:
                    wkey[j] = t
                else:
                    wkey[j] = key[ph]
                size = wlen[k]
                if mode == MODE_STRETCH:
                    wheap[q_off[k] + size] = j
                else:
                    _w_push(wheap, q_off[k], size, wkey, wreq, j)
                wlen[k] = size + 1
                if not io_busy[k] and not dd_flag[k]:
                    dd_flag[k] = True
                    dd_stack[dd_len] = k
                    dd_len += 1
        if advance:
            nxt = cur[j] + 1
            if nxt == ph_off[j + 1]:
                completion[j] = t
                hsize = _ev_remove_root(heap, hsize, ev_t, ev_p)
                free[k] += job_nodes[j]
                if head[k] < q_off[k + 1] and not sd_flag[k]:
                    sd_flag[k] = True
                    sd_stack[sd_len] = k
                    sd_len += 1
                if n_res > 0:
                    # resources are global: every start queue may now move
                    for r in range(n_res):
                        res_free[r] += job_dem[j, r]
                    for kk in range(R):
                        if head[kk] < q_off[kk + 1] and not sd_flag[kk]:
                            sd_flag[kk] = True
                            sd_stack[sd_len] = kk
                            sd_len += 1
                for s in range(succ_off[j], succ_off[j + 1]):
                    g = succ_gate[s]
                    gate_count[g] -= 1
                    if gate_count[g] == 0:
                        kg = gate_part[g]
                        if not sd_flag[kg]:
                            sd_flag[kg] = True
                            sd_stack[sd_len] = kg
                            sd_len += 1
            else:
                # the job's own event stays at the root: reschedule it there
                cur[j] = nxt
                cstart[nxt] = t
                ev_t[j] = t + w[nxt]
                ev_p[j] = _COMPUTE_END * _SEQ_BITS + seq
                seq += 1
                ev_kind[j] = _COMPUTE_END
                _ev_sift_down(heap, hsize, ev_t, ev_p, j, 0)
        if hsize == 0 or ev_t[heap[0]] > t:
            pending = True

    unstarted = 0
    for j in range(n):
        if np.isnan(jstart[j]):
            unstarted += 1
    return cstart, iostart, jstart, completion, unstarted
