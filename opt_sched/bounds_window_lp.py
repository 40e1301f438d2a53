r"""An interval-indexed LP bound on the mean flow time of a window
(``models/mean-flow-lp.md``), after Hall, Schulz, Shmoys and Wein (1997),
with the two facts the combinatorial bounds drop: a job holds its ``Q_i``
nodes on one *contiguous* stretch of at least ``T_i``, and the I/O node
serves one phase at a time.

Notation of :mod:`opt_sched.bounds_flow` (``est_i``, ``ect_i``, ``T_i``,
``Q_i``, first head ``h_i``, compute after the last I/O ``a_i``, I/O time
``io_i = V_i / b``); ``F(t)`` the node-seconds free of the holds in
``[0, t)``, ``G(t)`` the I/O-node seconds free of the busy intervals.

Each job gets completion intervals ``[P_ik, U_ik]`` (``P_i0 = ect_i``,
``U_ik = P_i,k+1``, the last one ``[P_i,K-1, inf)``) and a 0/1 variable
``x_ik``: ``C_i`` lies in interval ``k``. For times ``s < t`` of a grid:

.. math::

    \sum_{i,k} Q_i\, ov_{ik}(s,t)\, x_{ik} \le F(t) - F(s), \qquad
    \sum_{i,k} io_{ik}(s,t)\, x_{ik} \le G(t) - G(s),

and, for any set ``E`` of jobs, the count row

.. math::

    \sum_{i \in E,k} ov_{ik}(s,t)\, x_{ik} \le \int_s^t m_E(f(\tau))\, d\tau,

``m_E(f)`` the most jobs of ``E`` that fit on ``f`` free nodes together
(the smallest first), ``f`` the nodes free of the holds; with
``ov_ik(s,t)`` the least overlap of ``[C - T_i, C]`` with ``[s, t]`` over
``C`` in the interval (the overlap is unimodal in ``C``: the least is
at an end; 0 for the last interval) and ``io_ik(s,t) = (io_i - (s -
h_i)^+ - (U_ik - a_i - t)^+)^+`` (0 for the last interval). Every feasible
schedule satisfies them with its own ``x`` (the job holds its nodes on
``[S_i, C_i] \supseteq [C_i - T_i, C_i]``; its I/O lies in ``[h_i, C_i -
a_i]``, one phase at a time on the node; at any instant the jobs of ``E``
running fit on the free nodes), and ``sum_i C_i >= sum_{i,k}
P_ik x_ik``. So the minimum of that integer program is a lower bound, and
for any multipliers ``lambda >= 0`` of the rows (weak duality, the
convexity rows ``sum_k x_ik = 1`` kept):

.. math::

    \sum_i C_i \ge \sum_i \min_k \Big(P_{ik} + \sum_r \lambda_r a_{r,ik}\Big)
        - \sum_r \lambda_r b_r .

HiGHS solves the LP relaxation (rows added while violated) only to
*propose* ``lambda`` (its row duals); the bound is then computed here from
``lambda`` by the formula above, so it is valid whatever the LP solver's
accuracy or time limit (``lambda = 0`` gives ``sum_i ect_i``, the ``alone``
bound). HiGHS runs where :func:`opt_sched.highs_process.highs_mode` says:
in this process when highspy and ortools can share it, else in a fresh
interpreter (``python -m opt_sched.bounds_window_lp``).

Exclusive I/O with reservations only (the I/O rows need one phase at a time
and the busy intervals at full bandwidth); one partition, no dependencies.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable

import numpy as np
from numba import njit

from .bounds_flow import _jobs
from .highs_process import ask, load_highspy, run_interruptibly, serve
from .instance import Instance
from .reservations import Reservations

__all__ = ["HOLDS_UNDER", "branched_lp_mean_flow_bound", "interval_lp_mean_flow_bound",
           "lagrangian_bound"]

HOLDS_UNDER: dict[str, frozenset[str]] = {
    name: frozenset({"exclusive"}) for name in ("interval-lp", "branched-lp")}
"""The I/O rows need one phase at a time and the reserved busy intervals at
full bandwidth (the exclusive rule); the node rows hold under any model."""

_INTERVALS = 64
"""Completion intervals per job."""
_FIRST_DELAY = 5e-3
"""The first geometric delay as a share of a job's span ``horizon - ect_i``
(was 1e-3: finer where the window's jobs complete, thousands of seconds
after ``ect_i``; measured in ``models/mean-flow-lp.md``)."""
_FINER = 2
"""When the LP ends in under half its time, it runs again with this many
times the intervals in the time left; the bound is the larger of the two
(each is valid)."""
_GRID = 120
"""Uniform grid times (besides every ``est_i``, ``ect_i`` and hold end)."""
_ROUND = 200
"""Most violated rows added per round of row generation."""
_SETS_AGAIN = 0
"""Count-row sets of earlier rounds whose spans are separated again."""
_SPAN_SETS = 8
"""Count-row sets of a round (the most violated) separated over every span."""
_PER_SET = 10
"""Most violated spans added per count-row set and round."""
_KEEP = 1000
"""Past this many rows, the rows with no dual and some slack are deleted
after each solve (HiGHS's re-solves slow down with the rows)."""
_GRACE = 15.0
"""Seconds the LP subprocess may overrun its limit (start-up)."""


def _completion_points(ect: np.ndarray, horizon: float, k: int) -> np.ndarray:
    """``P_ik``: ``ect_i`` then ``ect_i + d`` for geometric delays ``d`` up
    to ``horizon - ect_i`` (at least 1 s)."""
    span = np.maximum(horizon - ect, 1.0)
    low = np.maximum(span * _FIRST_DELAY, 1e-3)
    ratio = np.linspace(0.0, 1.0, k - 1)
    delays = low[:, None] * (span / low)[:, None] ** ratio[None, :]
    return np.concatenate([ect[:, None], ect[:, None] + delays], axis=1)


def _node_coef(s: float, t: np.ndarray, lo: np.ndarray, up: np.ndarray,
               length: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """``Q_i ov_ik(s, t)`` for every ``t`` (shape ``(len(t), n, K)``)."""
    tt = t[:, None, None]

    def ov(c: np.ndarray) -> np.ndarray:
        c = c[None]
        out = np.minimum(tt, c) - np.maximum(s, c - length[None, :, None])
        return np.where(np.isfinite(c), np.maximum(out, 0.0), 0.0)

    return nodes[None, :, None] * np.minimum(ov(lo), ov(up))


def _io_coef(s: float, t: np.ndarray, up: np.ndarray, io: np.ndarray,
             head: np.ndarray, tail: np.ndarray) -> np.ndarray:
    """``io_ik(s, t)`` for every ``t`` (shape ``(len(t), n, K)``)."""
    tt = t[:, None, None]
    before = np.maximum(s - head, 0.0)[None, :, None]
    after = np.maximum(up[None] - tail[None, :, None] - tt, 0.0)
    out = np.maximum(io[None, :, None] - before - after, 0.0)
    return np.where(np.isfinite(up)[None], out, 0.0)


def _coefs(data: dict[str, np.ndarray], kind: int, s: float, t: np.ndarray,
           members: np.ndarray | None = None) -> np.ndarray:
    """The coefficients ``a_r,ik`` of the rows ``(kind, s, t)`` for every
    ``t`` (shape ``(len(t), n, K)``): nodes (0), I/O (1), or a count row
    (2) of the jobs ``members`` (a 0/1 vector): ``ov_ik(s, t)`` for them."""
    if kind == 0:
        return _node_coef(s, t, data["lo"], data["up"], data["length"],
                          data["nodes"])
    if kind == 2:
        return _node_coef(s, t, data["lo"], data["up"], data["length"],
                          np.asarray(members, float))
    return _io_coef(s, t, data["up"], data["io"], data["head"], data["tail"])


def most_running(nodes: np.ndarray, members: np.ndarray, free: float) -> int:
    """``m_E(f)``: the most jobs of ``E`` (``members``, 0/1) that can run at
    once on ``free`` nodes -- the largest ``m`` whose ``m`` smallest ``Q_i``
    in ``E`` sum to at most ``free`` (smallest first is optimal for a
    count)."""
    need = np.sort(nodes[np.asarray(members) > 0])
    return int(np.searchsorted(np.cumsum(need), free + 1e-9, side="right"))


@njit(cache=True)
def _most_violated_prefix(y: np.ndarray, level: np.ndarray, levels: np.ndarray,
                          free: float) -> tuple[float, int]:
    """Over the prefixes ``E_m`` (``m >= 2``) of jobs in this order, the
    largest ``sum_{E_m} y_i - m_{E_m}(free)`` above ``1e-6`` and its ``m``
    (``(1e-6, 0)`` if none): :func:`most_running` of each prefix, kept
    incrementally as the count of its jobs per node level (``levels``
    ascending, ``level`` each job's index in it), smallest level first --
    ``O(m * levels)`` in all instead of a sort per prefix."""
    per_level = np.zeros(levels.shape[0], np.int64)
    best, size, total = 1e-6, 0, 0.0
    for m in range(y.shape[0]):
        per_level[level[m]] += 1
        total += y[m]
        if m == 0:
            continue
        left, running = free + 1e-9, 0
        for q in range(levels.shape[0]):
            count = per_level[q]
            if count == 0:
                continue
            fit = count if levels[q] <= 0.0 else min(count, int(left // levels[q]))
            running += fit
            left -= fit * levels[q]
            if fit < count:
                break
        if total - running > best:
            best, size = total - running, m + 1
    return best, size


def _free_before(data: dict[str, np.ndarray]) -> np.ndarray:
    """For each elementary interval ``[g_a, g_a+1)`` of the grid, the free
    nodes just before ``g_a+1``: the most free on it (``f`` non-decreasing)."""
    return data["node_rate"][np.searchsorted(data["node_starts"], data["grid"][1:],
                                             side="left") - 1]


def _count_capacity(data: dict[str, np.ndarray], members: np.ndarray) -> np.ndarray:
    """``int_0^{g_b} m_E(f(tau)) dtau`` at every grid point ``g_b``, each
    elementary interval counted at its most free nodes."""
    free = _free_before(data)
    levels = np.unique(free)
    counts = np.array([most_running(data["nodes"], members, f) for f in levels],
                      float)
    per = counts[np.searchsorted(levels, free)] * np.diff(data["grid"])
    return np.concatenate([[0.0], np.cumsum(per)])


def _rhs(data: dict[str, np.ndarray], kind: int, si: int, ti: np.ndarray,
         members: np.ndarray | None = None) -> np.ndarray:
    """``b_r``: the free node-seconds (0) or I/O-node seconds (1) in ``[s,
    t)``; for a count row (2), ``int_s^t m_E(f(tau)) dtau`` bounded above on
    each elementary interval by ``m_E`` of its most free nodes."""
    if kind == 2:
        cum = _count_capacity(data, members)
        return cum[ti] - cum[si]
    free = data["free_nodes"] if kind == 0 else data["free_io"]
    return free[ti] - free[si]


def lagrangian_bound(data: dict[str, np.ndarray], rows: np.ndarray,
                     lam: np.ndarray, allowed: np.ndarray | None = None,
                     sets: np.ndarray | None = None) -> float:
    """``sum_i min_k (P_ik + sum_r lambda_r a_r,ik) - sum_r lambda_r b_r``
    (module doc) for rows ``(kind, s index, t index[, set index])`` and
    ``lambda >= 0`` (a count row's jobs: row ``set index`` of ``sets``); the
    minimum over the intervals ``allowed`` (all by default; a branch,
    ``inf`` if a job has none)."""
    lam = np.maximum(np.asarray(lam, float), 0.0)
    grid = data["grid"]
    reduced = data["lo"].copy()
    rhs = 0.0
    rows = np.asarray(rows, int)
    for row, weight in zip(rows.tolist(), lam.tolist()):
        if weight <= 0:
            continue
        kind, si, ti = row[:3]
        members = sets[row[3]] if kind == 2 else None
        coef = _coefs(data, kind, float(grid[si]), grid[[ti]], members)[0]
        reduced += weight * coef
        rhs += weight * float(_rhs(data, kind, si, np.array([ti]), members)[0])
    if allowed is not None:
        reduced = np.where(allowed > 0, reduced, np.inf)
    return math.fsum(reduced.min(axis=1).tolist()) - rhs


def _count_cuts(data: dict[str, np.ndarray], x: np.ndarray
                ) -> list[tuple[float, int, np.ndarray]]:
    """Violated count rows at the LP point ``x``, one per elementary interval
    ``e = [g_a, g_a+1)`` at most: ``y_i = sum_k x_ik ov_ik(e) / |e|`` (how
    surely job ``i`` runs through ``e``), ``E`` a prefix of the jobs by
    ``y`` (ties: more nodes first) with ``sum_E y_i > m_E(f)``. Returns
    ``(violation * |e|, a, E)``."""
    grid = data["grid"]
    width = np.diff(grid)
    i, j = np.nonzero(x > 1e-9)
    if not len(i):
        return []
    lo, up, length = data["lo"][i, j], data["up"][i, j], data["length"][i]
    s, t = grid[:-1, None], grid[1:, None]

    def ov(c: np.ndarray) -> np.ndarray:
        out = np.minimum(t, c[None]) - np.maximum(s, (c - length)[None])
        return np.where(np.isfinite(c)[None], np.maximum(out, 0.0), 0.0)

    part = np.minimum(ov(lo), ov(up)) * x[i, j][None]
    n = x.shape[0]
    y = np.zeros((len(width), n))
    np.add.at(y.T, i, part.T)
    y /= np.maximum(width, 1e-300)[:, None]
    nodes = data["nodes"]
    free = _free_before(data)
    levels, level_of = np.unique(nodes, return_inverse=True)
    cuts = []
    for a in np.flatnonzero((y * nodes).sum(axis=1) > 0.5 * free).tolist():
        order = np.lexsort((-nodes, -y[a]))
        order = order[y[a, order] > 1e-9]
        best, size = _most_violated_prefix(y[a, order], level_of[order],
                                           levels.astype(float), float(free[a]))
        if size:
            members = np.zeros(n, bool)
            members[order[:size]] = True
            cuts.append((best * float(width[a]), a, members))
    return cuts


@njit(cache=True)
def _row_lhs_kernel(grid, kind, weight, lo, up, length, io, head, tail):
    """``lhs[s, t] = sum_c weight_c coef_c(grid[s], grid[t])`` for ``s < t``
    over the columns ``c`` (their ``P``, ``U``, job length, I/O time, first
    head and last tail): the node coefficient ``ov`` or the I/O coefficient
    of the module doc (0 for ``U = inf``). A column's node coefficient is 0
    unless ``s < P`` and ``t > U - T``, its I/O one unless ``s < h + io``
    and ``t > U - a - io``: only those ``(s, t)`` are visited."""
    g = grid.shape[0]
    out = np.zeros((g, g))
    for c in range(weight.shape[0]):
        w = weight[c]
        p = lo[c]
        u = up[c]
        if w <= 0.0 or not np.isfinite(u):
            continue
        if kind == 0:
            s_end = np.searchsorted(grid, p, side="left")
            t_begin = np.searchsorted(grid, u - length[c], side="right")
        else:
            s_end = np.searchsorted(grid, head[c] + io[c], side="left")
            t_begin = np.searchsorted(grid, u - tail[c] - io[c], side="right")
        for si in range(min(s_end, g - 1)):
            s = grid[si]
            for ti in range(max(si + 1, t_begin), g):
                t = grid[ti]
                if kind == 0:
                    a = min(t, p) - max(s, p - length[c])
                    b = min(t, u) - max(s, u - length[c])
                    v = min(a, b)
                else:
                    v = io[c] - max(s - head[c], 0.0) - max(u - tail[c] - t, 0.0)
                if v > 0.0:
                    out[si, ti] += w * v
    return out


def _row_lhs(data: dict[str, np.ndarray], kind: int, x: np.ndarray,
             members: np.ndarray | None = None) -> np.ndarray:
    """The left-hand side of every row ``(kind, s, t)`` at the LP point
    ``x`` (``(g, g)``, upper triangle), from its nonzero entries only; a
    count row (2) of the jobs ``members``."""
    i, j = np.nonzero(x > 1e-12)
    lo, up = data["lo"][i, j], data["up"][i, j]
    if kind == 0:
        weight = x[i, j] * data["nodes"][i]
    elif kind == 2:
        weight = x[i, j] * np.asarray(members, float)[i]
    else:
        weight = x[i, j]
    return _row_lhs_kernel(data["grid"], 1 if kind == 1 else 0,
                           weight.astype(float), lo, up,
                           data["length"][i].astype(float),
                           data["io"][i].astype(float),
                           data["head"][i].astype(float),
                           data["tail"][i].astype(float))


def _largest(values: np.ndarray, count: int) -> np.ndarray:
    """Indices of the ``count`` largest ``values`` (any order)."""
    if len(values) <= count:
        return np.arange(len(values))
    return np.argpartition(-values, count)[:count]


def propose_multipliers(data: dict[str, np.ndarray], time_limit: float,
                        allowed: np.ndarray | None = None, counts: bool = True
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Row generation on the LP relaxation with HiGHS (imports highspy:
    call it where :func:`~opt_sched.highs_process.highs_mode` allows, or
    through :func:`~opt_sched.highs_process.ask`); ``allowed`` (0/1 per ``x_ik``) the
    intervals of a branch; ``counts``: count rows too. Returns the rows
    ``(kind, s index, t index, set index)``, their multipliers ``lambda >=
    0`` (the negated row duals) and the count rows' job sets (0/1 rows)."""
    highspy = load_highspy()

    stop = time.perf_counter() + time_limit
    lo = data["lo"]
    n, k = lo.shape
    grid = data["grid"]
    g = len(grid)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", max(0.1, time_limit))
    upper = np.ones(n * k) if allowed is None else np.asarray(allowed, float).ravel()
    h.addVars(n * k, np.zeros(n * k), upper)
    h.changeColsCost(n * k, np.arange(n * k, dtype=np.int32), lo.ravel())
    starts = np.arange(0, n * k, k, dtype=np.int32)
    h.addRows(n, np.ones(n), np.ones(n), n * k, starts,
              np.arange(n * k, dtype=np.int32), np.ones(n * k))
    rows: list[tuple[int, int, int, int]] = []
    uppers: list[float] = []
    sets: list[np.ndarray] = []
    known_sets: dict[bytes, int] = {}
    seen = np.zeros((2, g, g), bool)
    seen_counts: set[tuple[int, int, int]] = set()

    def add(new: list[tuple[int, int, int, np.ndarray | None]]) -> None:
        idx, val, st, upper = [], [], [], []
        nnz = 0
        for kind, si, ti, members in new:
            coef = _coefs(data, kind, float(grid[si]), grid[[ti]], members)[0].ravel()
            nz = np.flatnonzero(coef > 0)
            st.append(nnz)
            idx.append(nz.astype(np.int32))
            val.append(coef[nz])
            nnz += len(nz)
            upper.append(float(_rhs(data, kind, si, np.array([ti]), members)[0]))
            if kind == 2:
                key = np.asarray(members, bool).tobytes()
                if key not in known_sets:
                    known_sets[key] = len(sets)
                    sets.append(np.asarray(members, bool))
                rows.append((kind, si, ti, known_sets[key]))
                seen_counts.add((si, ti, known_sets[key]))
            else:
                rows.append((kind, si, ti, -1))
                seen[kind, si, ti] = True
        uppers.extend(upper)
        h.addRows(len(new), np.full(len(new), -np.inf), np.array(upper), nnz,
                  np.array(st, dtype=np.int32),
                  np.concatenate(idx) if idx else np.zeros(0, np.int32),
                  np.concatenate(val) if val else np.zeros(0))

    def drop_slack(dual: np.ndarray, value: np.ndarray) -> None:
        """Delete the rows with no dual and some slack (their slack is
        basic: the basis stays a warm start); they may come back."""
        bound = np.array(uppers)
        slack = (np.abs(dual) <= 1e-12) & (value < bound - 1e-9 * np.maximum(
            1.0, np.abs(bound)))
        gone = np.flatnonzero(slack)
        if not len(gone):
            return
        h.deleteRows(len(gone), (gone + n).astype(np.int32))
        for r in gone.tolist():
            kind, si, ti, index = rows[r]
            if kind == 2:
                seen_counts.discard((si, ti, index))
            else:
                seen[kind, si, ti] = False
        keep = np.ones(len(rows), bool)
        keep[gone] = False
        rows[:] = [row for row, kept in zip(rows, keep.tolist()) if kept]
        uppers[:] = [u for u, kept in zip(uppers, keep.tolist()) if kept]

    x = np.zeros((n, k))
    x[np.arange(n), np.argmax(upper.reshape(n, k) > 0, axis=1)] = 1.0
    kinds = (0, 1) if data["io"].max(initial=0.0) > 0 else (0,)
    scale = {0: max(1.0, float(data["free_nodes"][-1])),
             1: max(1.0, float(data["free_io"][-1])),
             2: max(1.0, float(grid[-1] - grid[0]))}
    upper_tri = np.triu(np.ones((g, g), bool), 1)
    # the rows and duals of the last optimal solve: valid multipliers for
    # the bound (weak duality) if a later solve stops at the time limit
    last: tuple[list[tuple[int, int, int, int]], np.ndarray] | None = None
    # a round's separation is Python-side and not interruptible (seconds on
    # a thousand jobs): no round starts that the last one says cannot end
    separation = 0.0
    while time.perf_counter() + separation < stop:
        separation_began = time.perf_counter()
        found: list[tuple[float, tuple[int, int, int, np.ndarray | None]]] = []
        for kind in kinds:
            free = data["free_nodes"] if kind == 0 else data["free_io"]
            over = (_row_lhs(data, kind, x) - (free[None, :] - free[:, None])) \
                / scale[kind]
            hit = upper_tri & ~seen[kind] & (over > 1e-7)
            si, ti = np.nonzero(hit)
            top = _largest(over[si, ti], _ROUND)
            found += [(float(over[si[r], ti[r]]), (kind, int(si[r]), int(ti[r]), None))
                      for r in top.tolist()]
        if counts:
            # once few node and I/O rows are violated: the sets of this
            # round's most violated elementary cuts (and the latest known
            # ones), each over every span (s, t): longer spans are stronger
            cuts = sorted(_count_cuts(data, x), key=lambda cut: -cut[0])
            if len(found) >= _ROUND // 4:  # the node and I/O rows first
                found += [(over / scale[2], (2, a, a + 1, m)) for over, a, m in cuts
                          if (a, a + 1, known_sets.get(m.tobytes()))
                          not in seen_counts]
                cuts = []
            chosen = {m.tobytes(): m for _, _, m in cuts[:_SPAN_SETS]}
            for members in sets[max(0, len(sets) - _SETS_AGAIN):]:
                chosen.setdefault(members.tobytes(), members)
            for key, members in chosen.items():
                cum = _count_capacity(data, members)
                over = (_row_lhs(data, 2, x, members)
                        - (cum[None, :] - cum[:, None])) / scale[2]
                si, ti = np.nonzero(upper_tri & (over > 1e-7))
                index = known_sets.get(key)
                top = _largest(over[si, ti], _PER_SET)
                found += [(float(over[si[r], ti[r]]),
                           (2, int(si[r]), int(ti[r]), members))
                          for r in top.tolist()
                          if (int(si[r]), int(ti[r]), index) not in seen_counts]
        separation = time.perf_counter() - separation_began
        if not found or time.perf_counter() >= stop:
            break
        found.sort(key=lambda item: -item[0])
        add([key for _, key in found[:_ROUND]])
        h.setOptionValue("time_limit", max(0.1, stop - time.perf_counter()))
        run_interruptibly(h)
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            break
        solution = h.getSolution()
        x = np.asarray(solution.col_value).reshape(n, k)
        last = (list(rows), np.array(solution.row_dual)[n:])
        if len(rows) > _KEEP:
            drop_slack(np.asarray(solution.row_dual)[n:],
                       np.asarray(solution.row_value)[n:])
    members = np.array(sets, bool).reshape(len(sets), n)
    if not rows:
        return np.zeros((0, 4), int), np.zeros(0), members
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        # rows deleted (or added) since the last solve: HiGHS dropped its
        # duals; the deleted rows had none, so this re-solve is a warm start
        h.setOptionValue("time_limit", max(1.0, 0.2 * time_limit))
        run_interruptibly(h)
    duals = np.asarray(h.getSolution().row_dual)[n:]
    if h.getModelStatus() != highspy.HighsModelStatus.kOptimal \
            or len(duals) != len(rows):
        if last is None:  # lambda = 0: still a bound (alone)
            return np.array(rows, int), np.zeros(len(rows)), members
        rows, duals = last  # the last optimal solve's
    return np.array(rows, int), np.maximum(-duals, 0.0), members


def _lp_data(instance: Instance, reservations: Reservations | None,
             horizon: float | None, intervals: int = _INTERVALS
             ) -> dict[str, np.ndarray]:
    jobs = _jobs(instance, reservations)
    n = len(jobs)
    bandwidth = instance.platform.partitions[0].bandwidth
    nodes = instance.platform.partitions[0].nodes
    ect = np.array([job.ect for job in jobs])
    length = np.array([job.length for job in jobs])
    if horizon is None or not horizon > ect.max():
        horizon = float(ect.max() + length.sum())
    lo = _completion_points(ect, horizon, intervals)
    up = np.concatenate([lo[:, 1:], np.full((n, 1), np.inf)], axis=1)
    res = reservations if reservations is not None else Reservations()
    times = {0.0, float(horizon)}
    times.update(float(v) for v in np.linspace(0.0, horizon, _GRID))
    times.update(job.est for job in jobs)
    times.update(job.ect for job in jobs)
    times.update(e for e, _ in res.node_holds if e < horizon)
    # where a wide job may run: the ends and starts of its intervals
    widest = max(job.nodes for job in jobs)
    for i, job in enumerate(jobs):
        if job.length > 0 and (2 * job.nodes > nodes or job.nodes == widest):
            times.update(float(v) for v in lo[i] if v <= horizon)
            times.update(float(v) for v in lo[i] - job.length if 0 <= v <= horizon)
    grid = np.array(sorted(times))
    node_rate = res.node_profile(nodes)
    io_rate = res.io_profile(1.0)
    return {"lo": lo, "up": up, "length": length,
            "nodes": np.array([job.nodes for job in jobs], float),
            "io": np.array([job.volume / bandwidth for job in jobs]),
            "head": np.array([job.first_head for job in jobs]),
            "tail": np.array([job.last_tail for job in jobs]),
            "grid": grid,
            "free_nodes": np.asarray(node_rate.work(grid), float),
            "free_io": np.asarray(io_rate.work(grid), float),
            "node_starts": np.asarray(node_rate.starts, float),
            "node_rate": np.asarray(node_rate.rates, float),
            "releases": np.array([job.release for job in jobs])}


def _branch_masks(data: dict[str, np.ndarray], branches: int) -> np.ndarray:
    """``allowed`` of each branch: the widest job's completion intervals cut
    into ``branches`` runs of consecutive intervals (every schedule falls in
    one); one branch (everything allowed) if ``branches <= 1``."""
    n, k = data["lo"].shape
    if branches <= 1 or n < 2:
        return np.ones((1, n, k))
    widest = int(np.argmax(data["nodes"] * (data["length"] > 0)))
    masks = []
    for chunk in np.array_split(np.arange(k), min(branches, k)):
        mask = np.ones((n, k))
        mask[widest] = 0.0
        mask[widest, chunk] = 1.0
        masks.append(mask)
    return np.array(masks)


def propose_branches(data: dict[str, np.ndarray], masks: np.ndarray,
                     time_limit: float, counts: bool = True
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`propose_multipliers` for each branch, the time shared out;
    rows ``(branch, kind, s index, t index, set index)``, their multipliers
    and the count rows' job sets (indices across the branches)."""
    stop = time.perf_counter() + time_limit
    found = _Proposals(data["lo"].shape[0])
    for b, mask in enumerate(masks):
        left = (stop - time.perf_counter()) / (len(masks) - b)
        if left <= 0.05:
            break
        found.add(b, *propose_multipliers(data, left, mask, counts))
    return found.arrays()


class _Proposals:
    """The rows, multipliers and count-row job sets proposed for several
    branches, gathered as :func:`propose_branches` returns them (each
    branch's set indices shifted past the sets before it)."""

    def __init__(self, n: int) -> None:
        self.rows = [np.zeros((0, 5), int)]
        self.lams = [np.zeros(0)]
        self.sets = [np.zeros((0, n), bool)]
        self.offset = 0

    def add(self, branch: int, rows: np.ndarray, lam: np.ndarray,
            members: np.ndarray) -> None:
        r = rows.reshape(-1, 4).copy()
        r[r[:, 3] >= 0, 3] += self.offset
        self.offset += len(members)
        self.rows.append(np.column_stack([np.full(len(r), branch, int), r]))
        self.lams.append(lam)
        self.sets.append(members)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return (np.concatenate(self.rows).astype(int), np.concatenate(self.lams),
                np.concatenate(self.sets).astype(bool))


def interval_lp_mean_flow_bound(instance: Instance, *,
                                reservations: Reservations | None = None,
                                time_limit: float = 10.0,
                                horizon: float | None = None,
                                branches: int = 1,
                                counts: bool = True,
                                intervals: int = _INTERVALS,
                                refine: bool = True) -> dict[str, float]:
    """``{"interval-lp": bound}`` on the mean flow time (module doc), for a
    one-partition instance without dependencies (empty otherwise, or when
    the LP fails). ``horizon``: where the completion intervals
    end (e.g. an incumbent's makespan; any value is valid, it only sets
    the resolution). ``branches``: the widest job's completion intervals
    cut into that many runs, one LP each, the bound the least of them.
    ``counts``: add count rows (``models/mean-flow-lp.md``).
    ``intervals``: completion intervals per job. ``refine``: if the LP ends
    in under half of ``time_limit``, solve it again with ``_FINER`` times
    the intervals in the time left and keep the larger bound. HiGHS runs
    where :func:`~opt_sched.highs_process.highs_mode` says."""
    if instance.platform.num_partitions != 1 or instance.has_dependencies \
            or not instance.num_jobs:
        return {}
    began = time.perf_counter()
    bound = _one_lp(instance, reservations, horizon, intervals, time_limit,
                    branches, counts)
    left = time_limit - (time.perf_counter() - began)
    if refine and bound is not None and left > 0.5 * time_limit:
        finer = _one_lp(instance, reservations, horizon, _FINER * intervals, left,
                        branches, counts)
        if finer is not None:
            bound = max(bound, finer)
    return {} if bound is None else {"interval-lp": bound}


def _one_lp(instance: Instance, reservations: Reservations | None,
            horizon: float | None, intervals: int, time_limit: float,
            branches: int, counts: bool) -> float | None:
    """The bound of one LP with ``intervals`` completion intervals per job
    (``None`` when the LP fails)."""
    data = _lp_data(instance, reservations, horizon, intervals)
    masks = _branch_masks(data, branches)
    proposal = _ask_for_proposal(data, masks, time_limit, counts)
    if proposal is None:
        return None
    rows, lam, sets = proposal
    total = min(lagrangian_bound(data, rows[rows[:, 0] == b, 1:],
                                 lam[rows[:, 0] == b], mask, sets)
                for b, mask in enumerate(masks))
    releases = math.fsum(data["releases"].tolist())
    return (total - releases) / instance.num_jobs


def _ask_for_proposal(data: dict[str, np.ndarray], masks: np.ndarray,
                      time_limit: float, counts: bool,
                      branch: tuple[int, np.ndarray] | None = None
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """HiGHS through :func:`~opt_sched.highs_process.ask` (here, or in a
    fresh interpreter, :func:`_main`): the branches ``masks``,
    or with ``branch = (job, floors)`` :func:`propose_best_first`."""
    extra = {} if branch is None else {"branch_job": np.array(branch[0]),
                                       "branch_floors": branch[1]}
    out = ask(_answer,
              {"masks": masks, "counts": np.array(counts), **extra, **data},
              time_limit, _GRACE)
    if out is None:
        return None
    return out["rows"].astype(int), out["lam"].astype(float), out["sets"].astype(bool)


def _job_mask(data: dict[str, np.ndarray], job: int, k: int) -> np.ndarray:
    """``allowed``: job ``job`` completes in its interval ``k``, the others
    anywhere."""
    mask = np.ones(data["lo"].shape)
    mask[job] = 0.0
    mask[job, k] = 1.0
    return mask


def propose_best_first(data: dict[str, np.ndarray], job: int, floors: np.ndarray,
                       time_limit: float, counts: bool = True
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Best-first branching on job ``job``'s completion interval: the
    interval of least value (``floors``, then the larger of it and its
    branch's Lagrangian bound once solved) is solved next, with
    :func:`propose_multipliers`, until the least is a solved one or the
    time is up. Rows ``(interval, kind, s index, t index, set index)``, as
    :func:`propose_branches`."""
    stop = time.perf_counter() + time_limit
    value = np.asarray(floors, float).copy()
    solved = np.zeros(len(value), bool)
    found = _Proposals(data["lo"].shape[0])
    while True:
        left = stop - time.perf_counter()
        k = int(np.argmin(value))
        if solved[k] or left <= 0.05:
            break
        mask = _job_mask(data, job, k)
        r, lam, members = propose_multipliers(data, min(left, max(0.5, time_limit / 4)),
                                              mask, counts)
        solved[k] = True
        value[k] = max(value[k], lagrangian_bound(data, r, lam, mask, members))
        found.add(k, r, lam, members)
    return found.arrays()


def branched_lp_mean_flow_bound(
        instance: Instance, job: int, *, reservations: Reservations | None = None,
        floors: Callable[[np.ndarray], np.ndarray] | None = None,
        time_limit: float = 5.0, horizon: float | None = None,
        intervals: int = _INTERVALS) -> dict[str, float]:
    """``{"branched-lp": bound}`` on the mean flow time
    (``models/mean-flow-lp.md``, "The LP branched on a job's completion"):
    every schedule has ``C_j`` (``j = job``) in one of ``j``'s completion
    intervals ``[P_jk, P_j,k+1)``; for each, the larger of ``floors(P_j)[k]``
    (a lower bound of ``sum_i (C_i - r_i)`` given by the caller for the
    schedules with ``C_j`` in that interval, e.g.
    :func:`opt_sched.bounds_window.beside_completion_bounds`; ``-inf``
    without) and, for the intervals the best-first search solved, the
    Lagrangian bound of the LP with ``x_jk = 1``; the bound is the least
    over the intervals. Empty when the LP fails, or for an
    instance the LP does not cover."""
    if instance.platform.num_partitions != 1 or instance.has_dependencies \
            or not 0 <= job < instance.num_jobs:
        return {}
    data = _lp_data(instance, reservations, horizon, intervals)
    releases = math.fsum(data["releases"].tolist())
    points = data["lo"][job]
    floor = np.full(len(points), -math.inf) if floors is None else \
        np.asarray(floors(points), float) + releases
    proposal = _ask_for_proposal(data, np.zeros((0, 1, 1)), time_limit, True,
                                 branch=(job, floor))
    if proposal is None:
        return {}
    rows, lam, sets = proposal
    value = floor.copy()
    for k in np.unique(rows[:, 0]).tolist():
        picked = rows[:, 0] == k
        value[k] = max(value[k], lagrangian_bound(
            data, rows[picked, 1:], lam[picked], _job_mask(data, job, k), sets))
    total = float(value.min())
    if not math.isfinite(total):
        return {}
    return {"branched-lp": (total - releases) / instance.num_jobs}


def _answer(data: dict[str, np.ndarray], limit: float) -> dict[str, np.ndarray]:
    """The subprocess's work (:func:`opt_sched.highs_process.serve`)."""
    masks = data.pop("masks")
    legacy = "counts" not in data  # a caller without count rows: its format
    counts = not legacy and bool(data.pop("counts"))
    if "branch_job" in data:
        job = int(data.pop("branch_job"))
        floors = data.pop("branch_floors")
        rows, lam, sets = propose_best_first(data, job, floors, limit, counts)
    else:
        rows, lam, sets = propose_branches(data, masks, limit, counts)
    if legacy:
        return {"rows": rows[:, :4], "lam": lam}
    return {"rows": rows, "lam": lam, "sets": sets}


def _main(argv: list[str]) -> int:
    """``python -m opt_sched.bounds_window_lp REQUEST ANSWER`` (npz files)."""
    return serve(argv, _answer)


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
