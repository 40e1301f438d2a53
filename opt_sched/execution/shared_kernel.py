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
recorded as a segment ``(k, t, lambda_k)``. A phase ends when its remaining
volume reaches 0; the node's next end is ``t + min_p r_p / rho_p``.

When no cap can bind (every cap at least the node's bandwidth, the default:
then ``omega_p lambda <= eta(m) b_k <= c``), all phases of a node progress in
one *service* clock ``S_k(t) = int lambda_k``: a phase joining at service
``S`` with volume ``v`` ends when ``S_k`` reaches ``tau_p = S + v / omega_p``,
so each node keeps a heap of ``tau`` (ties: lowest job index) and an event
costs ``O(log m)`` (``virtual`` mode). Otherwise remaining volumes are
updated explicitly at every event of the node (``O(m)``).

State: a few 2-D arrays whose *rows* are the named per-job, per-phase and
per-node vectors (so that a call passes five arrays, not forty; see
:func:`new_state` for the rows):

- ``ji`` (int, per job): partition (``-1`` before the start), current phase,
  status (0 waiting to start, 1 running, 2 done, 3 killed), event priority,
  position in ``act`` (explicit mode), and the scratch rows: the event heap,
  the jobs ended in the current call, the jobs whose I/O phase just ended,
  a sort order;
- ``jf`` (float, per job): event time, remaining volume, rate, weight,
  ``tau``, a row of zeros (the ``tau`` heap's second key), ``eta(q + 1)``,
  a scratch row;
- ``pf`` (float, per phase): ``w``, ``v`` and the results ``cstart``,
  ``iostart``, ``ioend``;
- ``ki`` (int, per node): active phases ``m_k``, ``tau`` heap size, the stack
  of nodes touched during the instant and its flags;
  ``kf`` (float, per node): time the remaining volumes or service refer to,
  level, next end, service clock, sum of active weights, bandwidth, cap;
- ``act[k*n : k*n + m_k]``: the node's active jobs (explicit mode) or its
  ``tau`` heap (virtual mode, stale entries of killed jobs included);
- ``seg[s] = (t, lambda)`` and ``seg_node[s]``: segment ``s`` (rows, so
  that one node's segments are a ``(s, 2)`` slice);
- ``meta``: event heap size, sequence counter, touched nodes, segments.

One function, :func:`step`, runs both halves of the
:class:`~opt_sched.execution.base.ExecutionModel` protocol (``advance`` and
``settle``), so each event rule is written once and the per-event work runs
in one compiled frame.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..borrow import borrow_all, borrow_rows
from ..simulation.events import DONE, KILLED, RUNNING, next_event
from ..simulation.heaps import HSIZE, TOUCHED, schedule, touch, untouch
from ..simulation.heaps import ev_remove_root as _ev_remove_root
from ..simulation.heaps import w_pop as _w_pop
from ..simulation.heaps import w_push as _w_push

__all__ = ["eta_table", "kill", "new_state", "start_jobs", "step"]

_COMPUTE_END = 1  # the event's priority (I/O ends are node events here)
_HSIZE = HSIZE
_TOUCHED = TOUCHED
NSEG = 3

# rows of ji
JI_ROWS = 9
J_PART, J_CUR, J_STATUS, J_EVP, J_POS, J_HEAP, J_ENDED, J_FIN, J_ORDER = range(JI_ROWS)
# rows of jf
JF_ROWS = 9
F_EVT, F_REM, F_RATE, F_WGT, F_TAU, F_ZERO, F_ETA, F_KEY, F_NCAP = range(JF_ROWS)
# rows of pf
PF_ROWS = 5
P_W, P_V, P_CSTART, P_IOSTART, P_IOEND = range(PF_ROWS)
# rows of ki
KI_ROWS = 4
K_M, K_HSZ, K_TOUCHED, K_FLAG = range(KI_ROWS)
# rows of kf
KF_ROWS = 7
KF_TLAST, KF_LAM, KF_NEXT, KF_SVC, KF_SUMW, KF_BAND, KF_CAP = range(KF_ROWS)


def new_state(off: np.ndarray, w: np.ndarray, v: np.ndarray, weights: np.ndarray,
              bands: np.ndarray, caps: np.ndarray, eta_points: np.ndarray,
              ncap: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
    """A fresh state ``(ph_off, ji, jf, pf, ki, kf, act, seg, seg_node, meta)`` for
    jobs owning phases ``off[i]:off[i+1]`` (see the module docstring);
    ``eta_points`` is ``2 x P`` (the ``m`` and ``eta`` of each point);
    ``ncap[i]`` caps every phase of job ``i`` (the per-node rate times its
    nodes; default none)."""
    n = len(off) - 1
    R = len(bands)
    cols = max(n, 1)
    ji = np.zeros((JI_ROWS, cols), np.int64)
    ji[J_PART] = -1
    ji[J_POS] = -1
    jf = np.zeros((JF_ROWS, cols))
    jf[F_WGT, :n] = weights
    jf[F_NCAP] = np.inf
    if ncap is not None:
        jf[F_NCAP, :n] = ncap
    jf[F_ETA] = eta_table(cols, eta_points[0], eta_points[1])
    nph = len(w)
    pf = np.full((PF_ROWS, nph), np.nan)
    pf[P_W] = w
    pf[P_V] = v
    ki = np.zeros((KI_ROWS, R), np.int64)
    kf = np.zeros((KF_ROWS, R))
    kf[KF_NEXT] = np.inf
    kf[KF_BAND] = bands
    kf[KF_CAP] = caps
    act = np.empty(max(R * n, 1), np.int64)
    # a segment per touched node and instant: at most one per I/O start,
    # I/O end instant or kill, plus the first instants
    segs = 2 * int(np.count_nonzero(v > 0)) + 2 * n + R + 1
    seg = np.empty((segs, 2))
    seg_node = np.empty(segs, np.int64)
    meta = np.zeros(4, np.int64)
    return off, ji, jf, pf, ki, kf, act, seg, seg_node, meta


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
def eta_table(size, eta_m, eta_v):
    """``out[q] = eta(q + 1)`` for ``q < size`` (a node never has more
    active phases than there are jobs)."""
    out = np.empty(size)
    for q in range(size):
        out[q] = _eta(q + 1, eta_m, eta_v)
    return out


@njit(cache=True)
def start_jobs(jobs, parts, t, ph_off, ji, jf, pf, meta):
    """Start ``jobs[m]`` on ``parts[m]`` at ``t`` (first compute phase)."""
    jobs, parts, ph_off, meta = borrow_all(jobs, parts, ph_off, meta)
    part, cur, status, ev_p, _, heap, _, _, _ = borrow_rows(ji, JI_ROWS)
    ev_t = borrow_rows(jf, JF_ROWS)[F_EVT]
    w, _, cstart, _, _ = borrow_rows(pf, PF_ROWS)
    for m in range(jobs.shape[0]):
        j = jobs[m]
        part[j] = parts[m]
        status[j] = RUNNING
        ph = ph_off[j]
        cur[j] = ph
        cstart[ph] = t
        schedule(j, t + w[ph], _COMPUTE_END, heap, ev_t, ev_p, meta)


@njit(cache=True)
def _bring(k, t, n, virtual, act, ki, jf, kf):
    """Bring node ``k`` to time ``t``: its service clock (virtual mode) or
    the remaining volumes of its active phases (explicit mode)."""
    t_last = kf[KF_TLAST]
    dt = t - t_last[k]
    if dt > 0.0:
        if virtual:
            kf[KF_SVC, k] += kf[KF_LAM, k] * dt
        else:
            rem = jf[F_REM]
            rate = jf[F_RATE]
            base = k * n
            for q in range(ki[K_M, k]):
                j = act[base + q]
                rem[j] -= rate[j] * dt
        t_last[k] = t


@njit(cache=True)
def _leave(k, j, n, act, pos, m_k):
    """Job ``j`` leaves node ``k``'s active phases (explicit mode): the last
    one takes its place in ``act``."""
    base = k * n
    q = pos[j]
    last = act[base + m_k[k] - 1]
    act[base + q] = last
    pos[last] = q
    pos[j] = -1
    m_k[k] -= 1


@njit(cache=True)
def _drop_stale(k, n, act, status, hsz, tau, zeros):
    """Drop killed jobs from the top of node ``k``'s ``tau`` heap."""
    base = k * n
    while hsz[k] > 0 and status[act[base]] != RUNNING:
        _w_pop(act, base, hsz[k], tau, zeros)
        hsz[k] -= 1


@njit(cache=True)
def _explicit_level(k, t, n, cap, capacity, act, m, rem, rate, wgt, ncap, order,
                    keys):
    """Water filling with explicit rates on node ``k`` (``m`` active
    phases): set every rate; return ``(level, next end)``. The phase of job
    ``j`` is capped at ``c_j = min(cap, ncap[j])``."""
    base = k * n
    total_w = 0.0
    for q in range(m):
        j = act[base + q]
        total_w += wgt[j]
    level = capacity / total_w
    binds = False
    for q in range(m):
        j = act[base + q]
        if wgt[j] * level > min(cap, ncap[j]):
            binds = True
            break
    if binds:
        # some caps bind: fill from the smallest cap/weight up
        for q in range(m):
            order[q] = act[base + q]
            keys[q] = min(cap, ncap[order[q]]) / wgt[order[q]]
        idx = np.argsort(keys[:m])
        left = capacity
        left_w = total_w
        level = keys[idx[m - 1]]  # everyone at its cap unless filled below
        for q in range(m):
            j = order[idx[q]]
            if keys[idx[q]] * left_w >= left:
                level = left / left_w
                break
            left -= min(cap, ncap[j])
            left_w -= wgt[j]
    soonest = np.inf
    for q in range(m):
        j = act[base + q]
        r = min(wgt[j] * level, cap, ncap[j])
        rate[j] = r
        end = t + max(rem[j], 0.0) / r
        if end < soonest:
            soonest = end
    return level, soonest


@njit(cache=True)
def step(t, settle, n, virtual, ph_off, ji, jf, pf, ki, kf, act, seg, seg_node,
         meta):
    """One call of the protocol; returns ``(instant, jobs ended)`` (the jobs
    in ``ji[J_ENDED]``).

    ``settle=False`` (``advance``, ``t`` is *until*): run whole instants
    until one where jobs end, or up to ``until``; the rates of that instant
    are left to the ``settle`` call. ``settle=True``: finish instant ``t``
    after the scheduler's starts -- apply the events they created at ``t``;
    if jobs end, return them (rates deferred again), else recompute the
    touched nodes' rates.

    An instant applies node ends first (the phases due, in ``tau`` order or
    in the order of ``act``), then the compute ends in event order (each
    starting its I/O phase; a zero-volume phase takes no time), then the
    events at ``t`` those create, each I/O end or zero-volume phase starting
    the job's next compute phase (or ending the job) at once.
    """
    ph_off, jf, ki, kf, act, seg, seg_node, meta = borrow_all(
        ph_off, jf, ki, kf, act, seg, seg_node, meta)
    part, cur, status, ev_p, pos, heap, ended, fin, order = borrow_rows(ji, JI_ROWS)
    ev_t, rem, rate, wgt, tau, zeros, eta_of, keys, ncap = borrow_rows(jf, JF_ROWS)
    w, v, cstart, iostart, ioend = borrow_rows(pf, PF_ROWS)
    m_k, hsz, touched, flag = borrow_rows(ki, KI_ROWS)
    t_last, lam, node_next, svc, sumw, bands, caps = borrow_rows(kf, KF_ROWS)
    R = node_next.shape[0]
    until = t
    find_next = not settle
    while True:
        if find_next:
            t = next_event(heap, ev_t, ev_p, status, meta)
            for k in range(R):
                if node_next[k] < t:
                    t = node_next[k]
            if t > until:
                return until, 0
        find_next = True

        # -- the I/O phases due on their nodes end ----------------------------
        nfin = 0
        for k in range(R):
            if node_next[k] != t:
                continue
            base = k * n
            if virtual:
                if status[act[base]] != RUNNING:
                    _drop_stale(k, n, act, status, hsz, tau, zeros)
                due = tau[act[base]]
                svc[k] = due  # snap the clock: the due phases end exactly now
                while hsz[k] > 0 and tau[act[base]] == due:
                    j = _w_pop(act, base, hsz[k], tau, zeros)
                    hsz[k] -= 1
                    if status[j] != RUNNING:
                        continue
                    m_k[k] -= 1
                    sumw[k] -= wgt[j]
                    fin[nfin] = j
                    nfin += 1
            else:
                tl = t_last[k]
                q = 0
                while q < m_k[k]:
                    j = act[base + q]
                    if tl + max(rem[j], 0.0) / rate[j] <= t:
                        rem[j] = 0.0
                        _leave(k, j, n, act, pos, m_k)
                        fin[nfin] = j
                        nfin += 1
                    else:
                        rem[j] -= rate[j] * (t - tl)
                        q += 1
            t_last[k] = t
            node_next[k] = np.inf
            touch(k, touched, flag, meta)

        # -- then every event at t, in order ----------------------------------
        count = 0
        done = 0
        while True:
            # each job of fin[done:nfin] ended its I/O phase at t: its next
            # compute phase starts (or the job ends)
            while done < nfin:
                j = fin[done]
                done += 1
                ioend[cur[j]] = t
                nxt = cur[j] + 1
                if nxt == ph_off[j + 1]:
                    status[j] = DONE
                    ended[count] = j
                    count += 1
                    continue
                cur[j] = nxt
                cstart[nxt] = t
                schedule(j, t + w[nxt], _COMPUTE_END, heap, ev_t, ev_p, meta)
            done = 0
            nfin = 0
            if meta[_HSIZE] == 0 or ev_t[heap[0]] != t:
                break
            j = heap[0]
            meta[_HSIZE] = _ev_remove_root(heap, meta[_HSIZE], ev_t, ev_p)
            if status[j] != RUNNING:
                continue  # a killed job's stale event
            ph = cur[j]
            iostart[ph] = t
            if v[ph] <= 0.0:
                fin[0] = j  # takes no time
                nfin = 1
                continue
            k = part[j]
            if virtual:
                if t > t_last[k]:  # bring the service clock to t
                    svc[k] += lam[k] * (t - t_last[k])
                    t_last[k] = t
                tau[j] = svc[k] + v[ph] / wgt[j]
                _w_push(act, k * n, hsz[k], tau, zeros, j)
                hsz[k] += 1
                sumw[k] += wgt[j]
            else:
                _bring(k, t, n, virtual, act, ki, jf, kf)
                rem[j] = v[ph]
                rate[j] = 0.0
                act[k * n + m_k[k]] = j
                pos[j] = m_k[k]
            m_k[k] += 1
            node_next[k] = np.inf
            touch(k, touched, flag, meta)

        if count > 0 or (t == until and not settle):
            return t, count

        # -- end of instant t: new levels of the touched nodes -----------------
        while meta[_TOUCHED] > 0:
            k = untouch(touched, flag, meta)
            m = m_k[k]
            level = 0.0
            node_next[k] = np.inf
            if m > 0:
                capacity = eta_of[m - 1] * bands[k]
                if virtual:
                    level = capacity / sumw[k]
                    if status[act[k * n]] != RUNNING:
                        _drop_stale(k, n, act, status, hsz, tau, zeros)
                    node_next[k] = t + max(tau[act[k * n]] - svc[k], 0.0) / level
                else:
                    level, node_next[k] = _explicit_level(
                        k, t, n, caps[k], capacity, act, m, rem, rate, wgt, ncap,
                        order, keys)
            lam[k] = level
            s = meta[NSEG]
            seg_node[s] = k
            seg[s, 0] = t
            seg[s, 1] = level
            meta[NSEG] = s + 1
        if settle:
            return t, 0


@njit(cache=True)
def kill(j, t, n, virtual, ji, jf, pf, ki, kf, act, meta):
    """Stop running job ``j`` at ``t``; an I/O phase in progress is cut (in
    virtual mode its heap entry goes stale)."""
    ji, jf, pf, ki, kf, act, meta = borrow_all(ji, jf, pf, ki, kf, act, meta)
    status = ji[J_STATUS]
    if status[j] != RUNNING:
        return
    status[j] = KILLED
    ph = ji[J_CUR, j]
    iostart = pf[P_IOSTART]
    ioend = pf[P_IOEND]
    if np.isnan(iostart[ph]) or not np.isnan(ioend[ph]):
        return  # computing: its event goes stale
    k = ji[J_PART, j]
    _bring(k, t, n, virtual, act, ki, jf, kf)
    ioend[ph] = t
    if virtual:
        kf[KF_SUMW, k] -= jf[F_WGT, j]
        ki[K_M, k] -= 1
    else:
        _leave(k, j, n, act, ji[J_POS], ki[K_M])
    kf[KF_NEXT, k] = np.inf
    touch(k, ki[K_TOUCHED], ki[K_FLAG], meta)
