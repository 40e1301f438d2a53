"""Compiled event steps of the ``shared`` execution model (numba).

The phases in progress on an I/O node share its bandwidth. Node ``k`` has a
*water level* ``lambda_k(t)``, piecewise constant between the node's events;
an active phase ``p`` of weight ``omega_p`` (1, or ``Q_i``) and cap ``c``
runs at

.. math:: \\rho_p(t) = \\min(c, \\omega_p \\lambda_k(t)),
          \\qquad \\sum_{p \\text{ active}} \\rho_p(t) = \\eta(m)\\, b_k
          \\;\\text{ unless every phase is at its cap},

with ``m`` the number of active phases and ``eta(m) <= 1`` the congestion
efficiency. The level is recomputed at the end of every instant where the
node's set of active phases changed (water filling: phases whose cap binds
get ``c``, the others share the rest in proportion to their weights), and
recorded as a segment ``(t, lambda_k)``. A phase ends when its remaining
volume reaches 0; the node's next end is ``t + min_p r_p / rho_p``.

When no cap can bind (every cap at least the node's bandwidth, the default:
then ``omega_p lambda <= eta(m) b_k <= c``), all phases of a node progress in
one *service* clock ``S_k(t) = int lambda_k``: a phase joining at service
``S`` with volume ``v`` ends when ``S_k`` reaches ``tau_p = S + v / omega_p``,
so each node keeps a heap of ``tau`` and an event costs ``O(log m)``
(``virtual`` mode). Otherwise remaining volumes are updated explicitly at
every event of the node (``O(m)``).

State as in :mod:`~opt_sched.execution.exclusive_kernel`, plus per job the
remaining volume ``rem``, rate ``rate`` and weight ``wgt`` of its I/O phase,
and per node ``act[k*n : k*n + m_k]`` (active jobs), ``t_last`` (time the
remaining volumes refer to), ``lam``, ``node_next``, and the segment record
``seg_node``/``seg_t``/``seg_lam`` (``meta[3]`` segments so far).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..borrow import borrow
from ..simulation.kernel import _ev_push, _ev_remove_root, _w_pop, _w_push
from .stepping import HSIZE, SEQ, TOUCHED, touch

__all__ = ["advance", "kill", "settle", "start_jobs"]

RUNNING = 1
DONE = 2
KILLED = 3

_SEQ_BITS = 1 << 56
_HSIZE = HSIZE
_SEQ = SEQ
_TOUCHED = TOUCHED
_NSEG = 3


@njit(cache=True)
def start_jobs(jobs, parts, t, ph_off, part, cur, status, jstart,
               ev_t, ev_p, heap, meta, w, cstart):
    """Start ``jobs[m]`` on ``parts[m]`` at ``t`` (first compute phase)."""
    jobs = borrow(jobs)
    parts = borrow(parts)
    ph_off = borrow(ph_off)
    part = borrow(part)
    cur = borrow(cur)
    status = borrow(status)
    jstart = borrow(jstart)
    ev_t = borrow(ev_t)
    ev_p = borrow(ev_p)
    heap = borrow(heap)
    meta = borrow(meta)
    w = borrow(w)
    cstart = borrow(cstart)
    for m in range(jobs.shape[0]):
        j = jobs[m]
        part[j] = parts[m]
        status[j] = RUNNING
        jstart[j] = t
        ph = ph_off[j]
        cur[j] = ph
        cstart[ph] = t
        ev_t[j] = t + w[ph]
        ev_p[j] = _SEQ_BITS + meta[_SEQ]
        meta[_SEQ] += 1
        meta[_HSIZE] = _ev_push(heap, meta[_HSIZE], ev_t, ev_p, j)


@njit(cache=True)
def _bring(k, t, n, virtual, act, m_k, rem, rate, t_last, lam, svc):
    """Bring node ``k`` to time ``t``: its service clock (virtual mode) or
    the remaining volumes of its active phases (explicit mode)."""
    dt = t - t_last[k]
    if dt > 0.0:
        if virtual:
            svc[k] += lam[k] * dt
        else:
            base = k * n
            for q in range(m_k[k]):
                j = act[base + q]
                rem[j] -= rate[j] * dt
        t_last[k] = t


@njit(cache=True)
def _next_compute(j, t, ph_off, cur, status, ev_t, ev_p, heap, meta, w, cstart,
                  ended, count):
    """Job ``j`` finished I/O phase ``cur[j]`` at ``t``: start its next compute
    phase (pushing its event) or end it. Returns the new ``count``."""
    nxt = cur[j] + 1
    if nxt == ph_off[j + 1]:
        status[j] = DONE
        ended[count] = j
        return count + 1
    cur[j] = nxt
    cstart[nxt] = t
    ev_t[j] = t + w[nxt]
    ev_p[j] = _SEQ_BITS + meta[_SEQ]
    meta[_SEQ] += 1
    meta[_HSIZE] = _ev_push(heap, meta[_HSIZE], ev_t, ev_p, j)
    return count


@njit(cache=True)
def _clean_top(k, n, status, act, hsz, tau, zeros):
    """Drop killed jobs from the top of node ``k``'s tau-heap."""
    base = k * n
    while hsz[k] > 0 and status[act[base]] != RUNNING:
        _w_pop(act, base, hsz[k], tau, zeros)
        hsz[k] -= 1


@njit(cache=True)
def _end_phases(k, t, n, virtual, ph_off, part, cur, status, ev_t, ev_p, heap,
                meta, w, cstart, ioend, rem, rate, wgt, act, m_k, pos, t_last,
                svc, tau, sumw, hsz, zeros, ended, count):
    """Node ``k``'s next end is ``t``: end the phases due, bring the others."""
    base = k * n
    if virtual:
        _clean_top(k, n, status, act, hsz, tau, zeros)
        due = tau[act[base]]
        svc[k] = due  # snap the clock: the due phases end exactly now
        t_last[k] = t
        while hsz[k] > 0 and tau[act[base]] == due:
            j = _w_pop(act, base, hsz[k], tau, zeros)
            hsz[k] -= 1
            if status[j] != RUNNING:
                continue
            m_k[k] -= 1
            sumw[k] -= wgt[j]
            ioend[cur[j]] = t
            count = _next_compute(j, t, ph_off, cur, status, ev_t, ev_p, heap,
                                  meta, w, cstart, ended, count)
        return count
    tl = t_last[k]
    q = 0
    while q < m_k[k]:
        j = act[base + q]
        if tl + max(rem[j], 0.0) / rate[j] <= t:
            rem[j] = 0.0
            ioend[cur[j]] = t
            last = act[base + m_k[k] - 1]
            act[base + q] = last
            pos[last] = q
            pos[j] = -1
            m_k[k] -= 1
            count = _next_compute(j, t, ph_off, cur, status, ev_t, ev_p, heap,
                                  meta, w, cstart, ended, count)
        else:
            rem[j] -= rate[j] * (t - tl)
            q += 1
    t_last[k] = t
    return count


@njit(cache=True)
def _apply_instant(t, n, virtual, ph_off, part, cur, status, ev_t, ev_p, heap,
                   meta, w, v, cstart, iostart, ioend, rem, rate, wgt, act, m_k,
                   pos, t_last, lam, node_next, svc, tau, sumw, hsz, zeros,
                   touched, flag, ended):
    """Apply every event at ``t`` (I/O ends first, then compute ends, then the
    compute ends at ``t`` those create); return the number of jobs ended."""
    count = 0
    for k in range(node_next.shape[0]):
        if node_next[k] != t:
            continue
        count = _end_phases(k, t, n, virtual, ph_off, part, cur, status, ev_t,
                            ev_p, heap, meta, w, cstart, ioend, rem, rate, wgt,
                            act, m_k, pos, t_last, svc, tau, sumw, hsz, zeros,
                            ended, count)
        node_next[k] = np.inf
        touch(k, touched, flag, meta)
    while meta[_HSIZE] > 0 and ev_t[heap[0]] == t:
        j = heap[0]
        meta[_HSIZE] = _ev_remove_root(heap, meta[_HSIZE], ev_t, ev_p)
        if status[j] != RUNNING:
            continue
        ph = cur[j]
        if v[ph] <= 0.0:
            iostart[ph] = t
            ioend[ph] = t
            count = _next_compute(j, t, ph_off, cur, status, ev_t, ev_p, heap, meta,
                                  w, cstart, ended, count)
            continue
        k = part[j]
        _bring(k, t, n, virtual, act, m_k, rem, rate, t_last, lam, svc)
        iostart[ph] = t
        if virtual:
            tau[j] = svc[k] + v[ph] / wgt[j]
            _w_push(act, k * n, hsz[k], tau, zeros, j)
            hsz[k] += 1
            sumw[k] += wgt[j]
        else:
            rem[j] = v[ph]
            rate[j] = 0.0
            act[k * n + m_k[k]] = j
            pos[j] = m_k[k]
        m_k[k] += 1
        node_next[k] = np.inf
        touch(k, touched, flag, meta)
    return count


@njit(cache=True)
def _eta(m, eta_m, eta_v):
    """``eta(m)``: piecewise-linear through the points ``(eta_m, eta_v)``,
    constant beyond them; 1 without points."""
    if eta_m.shape[0] == 0:
        return 1.0
    if m <= eta_m[0]:
        return eta_v[0]
    for q in range(1, eta_m.shape[0]):
        if m <= eta_m[q]:
            a = (m - eta_m[q - 1]) / (eta_m[q] - eta_m[q - 1])
            return eta_v[q - 1] + a * (eta_v[q] - eta_v[q - 1])
    return eta_v[eta_v.shape[0] - 1]


@njit(cache=True)
def _explicit_level(k, t, n, cap, capacity, act, m_k, rem, rate, wgt, order):
    """Water filling with explicit rates; returns ``(level, next end)``."""
    base = k * n
    m = m_k[k]
    total_w = 0.0
    max_w = 0.0
    for q in range(m):
        j = act[base + q]
        total_w += wgt[j]
        if wgt[j] > max_w:
            max_w = wgt[j]
    level = capacity / total_w
    if max_w * level > cap:
        # some caps bind: fill from the smallest cap/weight up
        for q in range(m):
            order[q] = act[base + q]
        keys = np.empty(m)
        for q in range(m):
            keys[q] = cap / wgt[order[q]]
        idx = np.argsort(keys)
        left = capacity
        left_w = total_w
        level = keys[idx[m - 1]]  # everyone at its cap unless filled below
        for q in range(m):
            j = order[idx[q]]
            if keys[idx[q]] * left_w >= left:
                level = left / left_w
                break
            left -= cap
            left_w -= wgt[j]
    soonest = np.inf
    for q in range(m):
        j = act[base + q]
        r = min(wgt[j] * level, cap)
        rate[j] = r
        end = t + max(rem[j], 0.0) / r
        if end < soonest:
            soonest = end
    return level, soonest


@njit(cache=True)
def _finish(t, n, virtual, bands, caps, eta_m, eta_v, act, m_k, rem, rate, wgt,
            lam, node_next, svc, tau, sumw, hsz, zeros, status, order,
            seg_node, seg_t, seg_lam, meta, touched, flag):
    """End of instant ``t``: new levels, next ends and segments of the
    touched nodes."""
    while meta[_TOUCHED] > 0:
        meta[_TOUCHED] -= 1
        k = touched[meta[_TOUCHED]]
        flag[k] = False
        m = m_k[k]
        level = 0.0
        node_next[k] = np.inf
        if m > 0:
            capacity = _eta(m, eta_m, eta_v) * bands[k]
            if virtual:
                level = capacity / sumw[k]
                _clean_top(k, n, status, act, hsz, tau, zeros)
                node_next[k] = t + max(tau[act[k * n]] - svc[k], 0.0) / level
            else:
                level, node_next[k] = _explicit_level(
                    k, t, n, caps[k], capacity, act, m_k, rem, rate, wgt, order)
        lam[k] = level
        s = meta[_NSEG]
        seg_node[s] = k
        seg_t[s] = t
        seg_lam[s] = level
        meta[_NSEG] = s + 1


@njit(cache=True)
def advance(until, n, virtual, ph_off, part, cur, status, jstart, ev_t, ev_p,
            heap, meta, w, v, cstart, iostart, ioend, rem, rate, wgt, act, m_k,
            pos, t_last, lam, node_next, svc, tau, sumw, hsz, zeros, bands, caps,
            eta_m, eta_v, seg_node, seg_t, seg_lam, order, touched, flag, ended):
    """As :func:`opt_sched.execution.exclusive_kernel.advance`: whole instants
    until one where jobs end, or up to ``until``; the rates of that instant
    are left to :func:`settle`."""
    ph_off = borrow(ph_off)
    part = borrow(part)
    cur = borrow(cur)
    status = borrow(status)
    jstart = borrow(jstart)
    ev_t = borrow(ev_t)
    ev_p = borrow(ev_p)
    heap = borrow(heap)
    meta = borrow(meta)
    w = borrow(w)
    v = borrow(v)
    cstart = borrow(cstart)
    iostart = borrow(iostart)
    ioend = borrow(ioend)
    rem = borrow(rem)
    rate = borrow(rate)
    wgt = borrow(wgt)
    act = borrow(act)
    m_k = borrow(m_k)
    pos = borrow(pos)
    t_last = borrow(t_last)
    lam = borrow(lam)
    node_next = borrow(node_next)
    svc = borrow(svc)
    tau = borrow(tau)
    sumw = borrow(sumw)
    hsz = borrow(hsz)
    zeros = borrow(zeros)
    bands = borrow(bands)
    caps = borrow(caps)
    eta_m = borrow(eta_m)
    eta_v = borrow(eta_v)
    seg_node = borrow(seg_node)
    seg_t = borrow(seg_t)
    seg_lam = borrow(seg_lam)
    order = borrow(order)
    touched = borrow(touched)
    flag = borrow(flag)
    ended = borrow(ended)
    while True:
        while meta[_HSIZE] > 0 and status[heap[0]] != RUNNING:
            meta[_HSIZE] = _ev_remove_root(heap, meta[_HSIZE], ev_t, ev_p)
        t = np.inf
        if meta[_HSIZE] > 0:
            t = ev_t[heap[0]]
        for k in range(node_next.shape[0]):
            if node_next[k] < t:
                t = node_next[k]
        if t > until:
            return until, 0
        count = _apply_instant(t, n, virtual, ph_off, part, cur, status, ev_t,
                               ev_p, heap, meta, w, v, cstart, iostart, ioend, rem,
                               rate, wgt, act, m_k, pos, t_last, lam, node_next,
                               svc, tau, sumw, hsz, zeros, touched, flag, ended)
        if count > 0 or t == until:
            return t, count
        _finish(t, n, virtual, bands, caps, eta_m, eta_v, act, m_k, rem, rate, wgt,
                lam, node_next, svc, tau, sumw, hsz, zeros, status, order,
                seg_node, seg_t, seg_lam, meta, touched, flag)


@njit(cache=True)
def settle(t, n, virtual, ph_off, part, cur, status, jstart, ev_t, ev_p,
           heap, meta, w, v, cstart, iostart, ioend, rem, rate, wgt, act, m_k,
           pos, t_last, lam, node_next, svc, tau, sumw, hsz, zeros, bands, caps,
           eta_m, eta_v, seg_node, seg_t, seg_lam, order, touched, flag, ended):
    """Finish instant ``t``: apply the events the new starts created; if jobs
    end, return their count, else recompute the touched nodes' rates."""
    ph_off = borrow(ph_off)
    part = borrow(part)
    cur = borrow(cur)
    status = borrow(status)
    jstart = borrow(jstart)
    ev_t = borrow(ev_t)
    ev_p = borrow(ev_p)
    heap = borrow(heap)
    meta = borrow(meta)
    w = borrow(w)
    v = borrow(v)
    cstart = borrow(cstart)
    iostart = borrow(iostart)
    ioend = borrow(ioend)
    rem = borrow(rem)
    rate = borrow(rate)
    wgt = borrow(wgt)
    act = borrow(act)
    m_k = borrow(m_k)
    pos = borrow(pos)
    t_last = borrow(t_last)
    lam = borrow(lam)
    node_next = borrow(node_next)
    svc = borrow(svc)
    tau = borrow(tau)
    sumw = borrow(sumw)
    hsz = borrow(hsz)
    zeros = borrow(zeros)
    bands = borrow(bands)
    caps = borrow(caps)
    eta_m = borrow(eta_m)
    eta_v = borrow(eta_v)
    seg_node = borrow(seg_node)
    seg_t = borrow(seg_t)
    seg_lam = borrow(seg_lam)
    order = borrow(order)
    touched = borrow(touched)
    flag = borrow(flag)
    ended = borrow(ended)
    count = _apply_instant(t, n, virtual, ph_off, part, cur, status, ev_t,
                           ev_p, heap, meta, w, v, cstart, iostart, ioend, rem,
                           rate, wgt, act, m_k, pos, t_last, lam, node_next,
                           svc, tau, sumw, hsz, zeros, touched, flag, ended)
    if count > 0:
        return count
    _finish(t, n, virtual, bands, caps, eta_m, eta_v, act, m_k, rem, rate, wgt,
            lam, node_next, svc, tau, sumw, hsz, zeros, status, order,
            seg_node, seg_t, seg_lam, meta, touched, flag)
    return 0


@njit(cache=True)
def kill(j, t, n, virtual, part, cur, status, iostart, ioend, rem, rate, wgt,
         act, m_k, pos, t_last, lam, node_next, svc, sumw, touched, flag, meta):
    """Stop running job ``j`` at ``t``; an I/O phase in progress is cut (in
    virtual mode its heap entry goes stale)."""
    part = borrow(part)
    cur = borrow(cur)
    status = borrow(status)
    iostart = borrow(iostart)
    ioend = borrow(ioend)
    rem = borrow(rem)
    rate = borrow(rate)
    wgt = borrow(wgt)
    act = borrow(act)
    m_k = borrow(m_k)
    pos = borrow(pos)
    t_last = borrow(t_last)
    lam = borrow(lam)
    node_next = borrow(node_next)
    svc = borrow(svc)
    sumw = borrow(sumw)
    touched = borrow(touched)
    flag = borrow(flag)
    meta = borrow(meta)
    if status[j] != RUNNING:
        return
    status[j] = KILLED
    ph = cur[j]
    if np.isnan(iostart[ph]) or not np.isnan(ioend[ph]):
        return  # computing: its event goes stale
    k = part[j]
    _bring(k, t, n, virtual, act, m_k, rem, rate, t_last, lam, svc)
    ioend[ph] = t
    if virtual:
        sumw[k] -= wgt[j]
    else:
        base = k * n
        q = pos[j]
        last = act[base + m_k[k] - 1]
        act[base + q] = last
        pos[last] = q
        pos[j] = -1
    m_k[k] -= 1
    node_next[k] = np.inf
    touch(k, touched, flag, meta)
